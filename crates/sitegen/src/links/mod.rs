//! The link pass: the build reads the site's HTML and CSS for references to its own files. A
//! file per step, over the types below:
//!
//! 1. **Scan** ([`scan`]) every HTML page (an HTML tokenizer: [`html`]) and stylesheet (a CSS
//!    tokenizer: [`css`]) for references, with their exact byte spans.
//! 2. **Resolve** ([`resolve`]) each local one against the page's URL and `<base href>` (RFC
//!    3986 §5.2, [`url`]), then through edgesite-core's own answer over the compiled routes,
//!    `_redirects` and SPA fallback. One that leads nowhere is a **broken link** (`file:line`).
//! 3. **Fingerprint** ([`rewrite`]): each subresource reference to a file gets `v=` the first
//!    10 hex digits of the SHA-256 of the bytes served (before the fragment, beside any query
//!    of its own), so the URL names those bytes and the core can answer it `immutable`. A
//!    file's hash is taken after its own references are rewritten, so files are rewritten in
//!    dependency order ([`graph`]); references inside a cycle keep their text (a warning says
//!    which). Bytes outside the changed values stay as they were.
//!    Then a page whose only render-blocking resources are small stylesheets gets them inline
//!    ([`inline`]), an `<img>` of the site's without a size gets the image's ([`sizes`]), and
//!    the likely LCP image gets `fetchpriority="high"`, images far down `loading="lazy"`
//!    ([`priority`]).
//! 4. **Preload** ([`preload`](mod@preload)): each page's render-blocking stylesheets, synchronous head
//!    scripts and preloaded fonts become one `Link` field (RFC 8288) of `rel=preload` hints,
//!    with the likely LCP image and what those stylesheets make a browser fetch late
//!    ([`sheet`]): their `@import`s, the fonts of the body text and headings, the page's
//!    background image.
//! 5. **Navigate** ([`rewrite`]): a link to a page that the site reaches only through permanent
//!    redirects (a clean URL's or a folder's canonical 308, a `_redirects` 301) names the page's
//!    URL instead: a click costs no redirect, and the speculation rules (which name pages)
//!    match it.
//!
//! Not rewritten: other navigations (links between pages), module scripts and `modulepreload`
//! (a module is keyed by its URL), `<meta>` URLs (checked only), references with escapes or
//! character references other than `&amp;` in their text, files some page loads with
//! `integrity` (their bytes must stay), and files already named by their hash or excluded by
//! `[fingerprint] exclude`.

mod boxes;
mod css;
mod graph;
mod html;
mod inline;
mod preload;
mod priority;
mod resolve;
mod rewrite;
mod scan;
mod sheet;
mod sizes;

pub(crate) use rewrite::fuzz_check;

use crate::cache::Policy;
use crate::config::LinksConfig;
use crate::error::Error;
use crate::images::Images;
use crate::model::LinkStats;
use crate::resolve::Resolved;
use crate::routing::Routing;
use crate::rule::indexed_assets;
use crate::sources::Sources;
use crate::url;
use crate::warning::Notes;
use preload::{preload, Styles};
use resolve::{page_urls, report_broken, resolve_all};
use rewrite::{rewrite_in_order, Hashes};
use scan::scan_all;
use std::collections::HashMap;
use std::ops::Range;
use std::time::Instant;

/// The most preload hints per page.
pub(crate) const MAX_PRELOADS: usize = 8;

/// A reference in a file.
#[derive(Debug, Clone)]
pub(crate) struct Ref {
    /// Where its text is, in bytes of the file.
    pub span: Range<usize>,
    /// The URL, character references and escapes resolved.
    pub url: String,
    /// Whether the text at `span` can be rewritten in place.
    pub verbatim: bool,
    pub role: Role,
    /// A preload hint it makes, if it is render-blocking.
    pub hint: Option<Hint>,
    /// Its element has `integrity`: the target's bytes must not change.
    pub integrity: bool,
    /// In HTML markup (a query separator is written `&amp;`), not in CSS text.
    pub amp: bool,
}

/// What a reference does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Loads a subresource: checked and fingerprinted.
    Subresource,
    /// A link to a page: checked only.
    Navigation,
    /// Loads something whose URL must stay as written: checked only (a module script or
    /// `modulepreload`, keyed by its URL in the module map; a `<meta>` image that other sites
    /// fetch).
    Checked,
}

/// A `rel=preload` destination (Fetch's `as`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hint {
    Style,
    Script,
    Font,
    /// An image a stylesheet names (never made by the HTML scan).
    Image,
}

/// A file's new bytes.
#[derive(Debug, Clone)]
pub(crate) struct Rewrite {
    pub bytes: Vec<u8>,
    pub references: usize,
    /// Of them, links to pages made to name the page's URL (not a redirect to it).
    pub navigations: usize,
    pub source_sha256: String,
}

/// What the pass gives the rest of the build.
#[derive(Debug, Default)]
pub(crate) struct Links {
    /// By file index: the bytes to serve instead of the source's.
    pub rewrites: Vec<Option<Rewrite>>,
    /// By file index: a `Link` field value.
    pub preload: Vec<Option<String>>,
    /// Files not read, broken links, cycles.
    pub notes: Notes,
    pub stats: LinkStats,
}

/// One scanned file.
struct Scanned {
    index: usize,
    text: String,
    /// SHA-256 of `text`, lower-case hex.
    sha256: String,
    /// A page's first `<base href>`, character references decoded.
    base: Option<String>,
    refs: Vec<Ref>,
    /// A page's render-blocking stylesheet links.
    style_links: Vec<html::StyleLink>,
    /// A page's `<img>` elements.
    images: Vec<html::Image>,
    /// The rules of a page's `<style>` elements that may set an `<img>`'s box.
    box_rules: Vec<boxes::BoxRule>,
    /// Where each reference leads (`None`: not local, or relative to another site's base).
    resolved: Vec<Option<(String, Resolved)>>,
}

/// Runs the pass over the sources, as `[links]` says (stylesheets never inline when `csp`: the
/// site sends a Content-Security-Policy, which may forbid inline styles), with the caching
/// policy's fingerprints:
/// the site's own files are read for references (and may be rewritten); the rest (an earlier
/// deploy's files, kept for skew protection, and what the build made) are served as they were.
///
/// # Errors
/// A file that cannot be read, or broken links with `[links] broken = "error"`.
pub(crate) fn pass(
    sources: &Sources,
    images: &Images,
    routing: &Routing,
    links: &LinksConfig,
    policy: Policy<'_>,
    csp: bool,
) -> Result<Links, Error> {
    let (found, scanned) = (&sources.files[..], sources.own);
    let started = Instant::now();
    let mut outcome = Links {
        rewrites: vec![None; found.len()],
        preload: vec![None; found.len()],
        ..Links::default()
    };
    let urls = page_urls(found, &routing.served);
    let mut scanned = scan_all(
        &found[..scanned.min(found.len())],
        &mut outcome.notes.warnings,
    )?;
    let assets = indexed_assets(found.len());
    // Where every reference leads (each distinct target asked of the core once).
    routing.with_core_site(&assets, |site| resolve_all(site, &mut scanned, &urls));
    outcome.stats.files = scanned.len();
    report_broken(found, &scanned, links, &mut outcome)?;
    let mut hashes = Hashes::new(found, images, policy);
    rewrite_in_order(found, &scanned, &mut hashes, &mut outcome);
    let limit = if csp { 0 } else { links.inline_css_bytes };
    let inlined = inline_stylesheets(found, &scanned, limit, &mut outcome);
    if links.size_images {
        size_images(found, &scanned, images, csp, &mut outcome);
    }
    let image_hints = match links.prioritize_images {
        true => prioritise_images(&scanned, images, &mut hashes, &mut outcome),
        false => HashMap::new(),
    };
    if links.preload {
        let styles = Styles::new(found, &scanned, &urls, &outcome.rewrites);
        for file in &scanned {
            let inline = inlined.get(&file.index).map_or(&[][..], Vec::as_slice);
            let image = image_hints.get(&file.index).map(String::as_str);
            outcome.preload[file.index] =
                preload(file, &mut hashes, &outcome.rewrites, &styles, inline, image);
        }
    }
    let hints = outcome.preload.iter().flatten();
    outcome.stats.preload_hints = hints.map(|v| v.split(", <").count()).sum();
    outcome.stats.wall_time_ms = started.elapsed().as_millis() as u64;
    Ok(outcome)
}

/// By file index: each scanned file's position in `scanned`.
fn positions(scanned: &[Scanned]) -> HashMap<usize, usize> {
    scanned
        .iter()
        .enumerate()
        .map(|(i, f)| (f.index, i))
        .collect()
}

/// Puts small render-blocking stylesheets inline ([`inline`]) in the pages' rewrites; the files
/// each page now holds inline, by page.
fn inline_stylesheets(
    found: &[crate::sources::Found],
    scanned: &[Scanned],
    limit: u64,
    outcome: &mut Links,
) -> HashMap<usize, Vec<usize>> {
    let mut inlined = HashMap::new();
    for made in inline::inline_all(found, scanned, &outcome.rewrites, limit) {
        let page = &scanned[made.at];
        rewrite_page(outcome, page, made.bytes);
        outcome.stats.inlined_css += 1;
        inlined.insert(page.index, made.files);
    }
    inlined
}

/// Gives the pages' unsized images their size ([`sizes`]) in the pages' rewrites.
fn size_images(
    found: &[crate::sources::Found],
    scanned: &[Scanned],
    images: &Images,
    csp: bool,
    outcome: &mut Links,
) {
    for made in sizes::size_all(found, scanned, images, csp, &outcome.rewrites) {
        rewrite_page(outcome, &scanned[made.at], made.bytes);
        outcome.stats.sized_images += made.images;
    }
}

/// Gives the pages' likely LCP images priority and their far images laziness ([`priority`]) in
/// the pages' rewrites; the LCP images' `Link` hints, by page.
fn prioritise_images(
    scanned: &[Scanned],
    images: &Images,
    hashes: &mut Hashes<'_>,
    outcome: &mut Links,
) -> HashMap<usize, String> {
    let mut hints = HashMap::new();
    for made in priority::prioritise_all(scanned, images, hashes, &outcome.rewrites) {
        let page = &scanned[made.at];
        rewrite_page(outcome, page, made.bytes);
        outcome.stats.lcp_images += usize::from(made.hero);
        outcome.stats.lazy_images += made.lazy;
        if let Some(hint) = made.hint {
            hints.insert(page.index, hint);
        }
    }
    hints
}

/// Serves `bytes` for `page`: a later step's change of its rewrite, or its first.
fn rewrite_page(outcome: &mut Links, page: &Scanned, bytes: Vec<u8>) {
    match &mut outcome.rewrites[page.index] {
        Some(rewrite) => rewrite.bytes = bytes,
        slot @ None => {
            *slot = Some(Rewrite {
                bytes,
                references: 0,
                navigations: 0,
                source_sha256: page.sha256.clone(),
            });
        }
    }
}
