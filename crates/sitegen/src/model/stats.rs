//! What each stage counted, and what the storage stage chose: the report's figures.

use crate::config::Store;
use serde::Serialize;

/// What one compile did, stage by stage.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BuildStats {
    /// Files compiled.
    pub files: usize,
    /// Encodings computed now, and taken from the cache.
    pub encodings: EncodeCounts,
    /// What the optimize stage minified.
    pub optimize: OptimizeStats,
    /// What the link pass found and did.
    pub links: LinkStats,
    /// The RFC 9842 deltas built from the deploy history.
    pub deltas: DeltaStats,
    /// What the image stage made.
    pub images: ImageStats,
    /// What the agents stage made.
    pub agents: AgentStats,
    /// Wall time of the compile, in milliseconds.
    pub wall_time_ms: u64,
    /// Wall time of each stage, in milliseconds, in the order they ran; `encode-made` ran
    /// beside `links` (listed after it), so the stages may sum to more than `wall_time_ms`.
    pub stages: Vec<(&'static str, u64)>,
}

/// How many encodings were computed, and how many came from the cache.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EncodeCounts {
    /// Encoded now.
    pub encoded: usize,
    /// Taken from the cache.
    pub cached: usize,
    /// Of both, those at quick settings (`EDGESITE_ENCODINGS=quick`, what `make dev` asks),
    /// not the configured ones.
    pub quick: usize,
}

/// What the optimize stage counted (`[optimize]`), per kind of file.
#[derive(Debug, Clone, Default, Serialize)]
pub struct OptimizeStats {
    /// HTML pages.
    pub html: MinifyStats,
    /// Stylesheets.
    pub css: MinifyStats,
    /// Scripts.
    pub js: MinifyStats,
    /// Whether a stylesheet of the site may keep spaces outside `<pre>`: no page's whitespace
    /// was collapsed.
    pub spaces_kept: bool,
    /// Files (of every kind) whose minified bytes came from the build's cache.
    pub cached: usize,
    /// Wall time of the stage, in milliseconds.
    pub wall_time_ms: u64,
}

impl OptimizeStats {
    /// The figures of the kind named `kind` (`html`, `css`, `js`).
    pub(crate) fn of(&mut self, kind: &str) -> &mut MinifyStats {
        match kind {
            "html" => &mut self.html,
            "css" => &mut self.css,
            _ => &mut self.js,
        }
    }
}

/// What the optimize stage did with the files of one kind.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct MinifyStats {
    /// Files of the kind the stage was on for.
    pub files: usize,
    /// Of them, minified.
    pub minified: usize,
    /// Served as written by rule: excluded, minified already, named by their hash, loaded with
    /// `integrity`, not UTF-8.
    pub skipped: usize,
    /// Served as written because the minifier could not read them or gained too little.
    pub kept: usize,
    /// Their bytes as written.
    pub bytes: u64,
    /// Their bytes as served (minified or not).
    pub minified_bytes: u64,
}

/// What the link pass counted.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct LinkStats {
    /// HTML and CSS files read.
    pub files: usize,
    /// Local references found.
    pub references: usize,
    /// References given a `v` (or replaced by where their redirect leads).
    #[serde(rename = "versioned")]
    pub fingerprinted: usize,
    /// Links to pages made to name the page's own URL, not a permanent redirect to it.
    pub navigations: usize,
    /// Files whose bytes changed.
    pub rewritten_files: usize,
    /// Local references that lead nowhere.
    pub broken: usize,
    /// `rel=preload` hints written.
    pub preload_hints: usize,
    /// Pages given their stylesheets inline (`links.inline_css_bytes`).
    pub inlined_css: usize,
    /// `<img>` elements given their image's size (`links.size_images`).
    pub sized_images: usize,
    /// Pages whose likely LCP image got `fetchpriority="high"` (`links.prioritize_images`).
    pub lcp_images: usize,
    /// `<img>` elements far down their page made `loading="lazy"`.
    pub lazy_images: usize,
    /// Wall time of the pass, in milliseconds.
    pub wall_time_ms: u64,
}

/// What the image stage counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ImageStats {
    /// Images read (PNG, JPEG, not excluded).
    pub images: usize,
    /// Of those, made now (the rest came from the cache).
    pub encoded: usize,
    /// Their bytes as the sources hold them.
    pub original_bytes: u64,
    /// What they serve as themselves (lossless re-encodes kept).
    pub served_bytes: u64,
    /// Variants kept, and their bytes.
    pub variants: usize,
    /// Their bytes.
    pub variant_bytes: u64,
    /// Variants the storage stage left out to fit the budget.
    pub left_out: usize,
    /// Milliseconds.
    pub wall_time_ms: u64,
}

/// What the build did with the deploy history: deltas, dictionaries, kept files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DeltaStats {
    /// Deploys the history held.
    pub deploys: usize,
    /// Files that got at least one delta.
    pub files: usize,
    /// Deltas kept (dcb and dcz, per earlier version).
    pub deltas: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Deltas computed now.
    pub encoded: usize,
    /// Taken from the encoding cache.
    pub cached: usize,
    /// Files offered as dictionaries (`Use-As-Dictionary`).
    pub dictionaries: usize,
    /// Skew protection: earlier deploys' fingerprinted files still served.
    pub kept: Kept,
    /// The site-wide HTML dictionary's size (0: none).
    pub html_dictionary_bytes: u64,
    /// Pages with deltas against the HTML dictionary.
    pub html_pages: usize,
    /// Milliseconds.
    pub wall_time_ms: u64,
}

/// Skew protection: what the kept deploys served that the current site does not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Kept {
    /// Files of earlier deploys still served.
    pub files: usize,
    /// Their bytes (identity).
    pub bytes: u64,
}

/// The storage a build chose, and why (for the report).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreChoice {
    /// `Full` or `Compact` (never `Auto`).
    pub store: Store,
    /// Why, with the figures.
    pub reason: String,
}

impl Default for StoreChoice {
    fn default() -> Self {
        StoreChoice {
            store: Store::Full,
            reason: String::new(),
        }
    }
}

/// What the agents stage made (`[agents]`): Markdown twins and llms.txt.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AgentStats {
    /// Pages given a twin.
    pub twins: usize,
    /// Pages without one, and why (the site's own file at the twin's URL, which a build note
    /// also names; no main content; no text in it).
    pub skipped: Vec<(String, String)>,
    /// The pages' HTML bytes.
    pub html_bytes: u64,
    /// Their twins' bytes (front matter included).
    pub markdown_bytes: u64,
    /// The token estimate (characters / 4) of the pages' HTML.
    pub html_tokens: u64,
    /// The same of their twins' bodies.
    pub markdown_tokens: u64,
    /// Each twin's figures, in the pages' order.
    pub pages: Vec<TwinFigures>,
    /// The llms.txt files made (`/llms.txt`, `/llms-full.txt`).
    pub llms: Vec<String>,
    /// The twins in `/llms-full.txt`.
    pub full_pages: usize,
    /// Wall time of the stage, in milliseconds.
    pub wall_time_ms: u64,
}

/// One page and its twin: where, bytes and token estimates.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TwinFigures {
    /// The page's URL path.
    pub path: String,
    /// The page's HTML bytes, and its twin's (front matter included).
    pub html_bytes: u64,
    /// Its twin's bytes.
    pub markdown_bytes: u64,
    /// The token estimates of the page's HTML and of the twin's body.
    pub html_tokens: u64,
    /// The twin's.
    pub markdown_tokens: u64,
}
