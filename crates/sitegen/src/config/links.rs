//! `[links]`: the link pass (broken links, preload hints) and the speculation rules.

use super::default_true;
use super::key::{first_invalid_glob, Key};
use serde::Deserialize;

/// `[links]`: the link check and the preload hints of the build's link pass.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinksConfig {
    /// A reference from the site's HTML or CSS to a local URL the site does not serve:
    /// `warn` (default: a build warning with file and line), `error` (the build fails) or
    /// `ignore`.
    #[serde(default)]
    pub broken: BrokenLinks,
    /// Globs over URL paths (`*` within a segment, `**` across) that references may lead to
    /// without being reported (e.g. a link that shows the 404 page on purpose).
    #[serde(default)]
    pub ignore: Vec<String>,
    /// `Link: <...>; rel=preload` on each page for its render-blocking stylesheets, synchronous
    /// head scripts and preloaded fonts, at most 8 (default `true`): what Cloudflare turns into
    /// 103 Early Hints.
    #[serde(default = "default_true")]
    pub preload: bool,
    /// A page whose only render-blocking resources are stylesheets of at most this many bytes
    /// in all (as served) gets them inline, as `<style>` where each `<link>` was (default
    /// 4096; 0: never): a first view without the stylesheets' round trip. Never with a
    /// Content-Security-Policy (it may forbid inline styles), nor for a stylesheet that
    /// imports, holds `</style`, or whose relative URLs would resolve otherwise from the page.
    #[serde(default = "default_inline_css_bytes")]
    pub inline_css_bytes: u64,
    /// An `<img>` of the site's images with neither `width` nor `height` gets both, the
    /// image's size (default `true`): no layout shift when it arrives. With `height:auto` (or
    /// `width:auto`) in its style where CSS that may apply to it sets its width only (or its
    /// height only); never where CSS may set both (`links/boxes.rs`).
    #[serde(default = "default_true")]
    pub size_images: bool,
    /// A page's likely Largest Contentful Paint image (its first large image, near the top)
    /// gets `fetchpriority="high"` and a preload hint, and images far below the first screen
    /// with a size get `loading="lazy" decoding="async"` (default `true`); the author's own
    /// `fetchpriority` and `loading` always stand.
    #[serde(default = "default_true")]
    pub prioritize_images: bool,
    /// Speculation Rules (WICG nav-speculation): what the browser may do with a link to one of
    /// the site's pages before the click, announced by a `Speculation-Rules` field on every HTML
    /// response: `prefetch` (default: the document only, no script runs), `prerender`, or `off`.
    #[serde(default)]
    pub speculation: SpeculationAction,
    /// When the browser acts, as the spec names it: `immediate`, `eager`, `moderate` (default:
    /// on hover, 200 ms on desktop) or `conservative` (on pointer or touch down).
    #[serde(default)]
    pub speculation_eagerness: Eagerness,
    /// Globs over URL paths (`*` within a segment, `**` across) of pages never speculated (a
    /// page with side effects on load). `ignore`'s globs are never speculated either.
    #[serde(default)]
    pub speculation_exclude: Vec<String>,
}

/// The most `links.inline_css_bytes` may be.
pub(crate) const MAX_INLINE_CSS_BYTES: u64 = 14 * 1024;

fn default_inline_css_bytes() -> u64 {
    4096
}

impl Default for LinksConfig {
    fn default() -> Self {
        LinksConfig {
            broken: BrokenLinks::default(),
            ignore: Vec::new(),
            preload: true,
            inline_css_bytes: default_inline_css_bytes(),
            size_images: true,
            prioritize_images: true,
            speculation: SpeculationAction::default(),
            speculation_eagerness: Eagerness::default(),
            speculation_exclude: Vec::new(),
        }
    }
}

/// `links.speculation`: the action of the site's speculation rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SpeculationAction {
    /// No rules, no field.
    Off,
    /// `prefetch` rules.
    #[default]
    Prefetch,
    /// `prerender` rules.
    Prerender,
}

/// `links.speculation_eagerness`: a speculation rule's `eagerness`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Eagerness {
    /// As soon as the rules are seen.
    Immediate,
    /// On a short hover (Chromium: 10 ms), as soon as seen on mobile.
    Eager,
    /// On hover (Chromium: 200 ms) or pointer down.
    #[default]
    Moderate,
    /// On pointer or touch down.
    Conservative,
}

impl Eagerness {
    /// The spec's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Eagerness::Immediate => "immediate",
            Eagerness::Eager => "eager",
            Eagerness::Moderate => "moderate",
            Eagerness::Conservative => "conservative",
        }
    }
}

/// `links.broken`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum BrokenLinks {
    /// A build warning each.
    #[default]
    Warn,
    /// A build error listing them.
    Error,
    /// Not reported.
    Ignore,
}

impl LinksConfig {
    pub(super) fn first_invalid(&self) -> Option<(Key, String)> {
        // An inline stylesheet is sent with every page that has it: more than an initial
        // congestion window's worth (about 14 KB) costs the first view a round trip itself.
        if self.inline_css_bytes > MAX_INLINE_CSS_BYTES {
            let key = Key::new(&["links", "inline_css_bytes"]);
            let message = format!("{} is over {MAX_INLINE_CSS_BYTES}", self.inline_css_bytes);
            return Some((key, message));
        }
        first_invalid_glob("links", "ignore", &self.ignore)
    }

    /// Whether a reference to `path` is not reported when it leads nowhere.
    pub(crate) fn ignores(&self, path: &str) -> bool {
        self.ignore
            .iter()
            .any(|glob| crate::glob::matches(glob, path))
    }
}
