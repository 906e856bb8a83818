//! The types every stage of the build shares: what a compile is asked ([`Options`]), what it
//! makes of each file of the site (an [`Asset`] and its [`Representation`]s, named as
//! edgesite-core names them) and of the site ([`Manifest`]), and what each stage counted.
//!
//! The bottom of the pipeline: this module imports no stage, and every stage imports it
//! (`tests/module_graph.rs`).

mod asset;
mod route;
mod source;
mod stats;

pub(crate) use asset::kept_in_compact;
pub use asset::{
    Asset, CacheReason, Candidate, Delta, ImageReport, Representation, Rewritten, Tier, Variant,
    OBJECT_FOLDER, R2_FOLDER,
};
pub use route::{
    DestinationPart, PatternSegment, RedirectRule, Route, RouteTarget, RuleAction, RuleIndexNode,
};
pub use source::Source;
pub(crate) use source::{hidden, Body};
pub use stats::{
    AgentStats, BuildStats, DeltaStats, EncodeCounts, ImageStats, Kept, LinkStats, MinifyStats,
    OptimizeStats, StoreChoice, TwinFigures,
};

use crate::config::{BudgetConfig, Config, StorageConfig};
use crate::warning::{Notes, Warning};
use serde::Serialize;
use std::path::PathBuf;
use std::time::SystemTime;

/// How to compile a site: what `edgesite.toml` asks for, and what the caller knows besides.
#[derive(Debug, Clone)]
pub struct Options {
    /// The configuration (`edgesite.toml`, or the defaults).
    pub config: Config,
    /// The Last-Modified of every file (see [`last_modified`](crate::last_modified)).
    pub last_modified: SystemTime,
    /// The date each page's Markdown twin names: the build's (the default), or the page's own.
    pub page_dates: PageDates,
    /// Where encoded files are cached between builds (keyed by content and settings); `None`
    /// encodes everything every time.
    pub cache_dir: Option<PathBuf>,
    /// The deploy history to build RFC 9842 deltas from (`[history] dir`, resolved by the
    /// caller); `None`: no deltas.
    pub history_dir: Option<PathBuf>,
    /// How hard the encoders try for an encoding the cache does not hold: as configured (the
    /// default), or quickly, as `make dev` asks (`EDGESITE_ENCODINGS=quick`).
    pub effort: Effort,
}

impl Options {
    /// The defaults: clean URLs on, no SPA fallback, the default caching policy and fields.
    pub fn new(last_modified: SystemTime) -> Self {
        Options::from_config(Config::default(), last_modified)
    }

    /// The options an `edgesite.toml` asks for (no encoding cache, no deploy history).
    pub fn from_config(config: Config, last_modified: SystemTime) -> Self {
        Options {
            config,
            last_modified,
            page_dates: PageDates::Build,
            cache_dir: None,
            history_dir: None,
            effort: Effort::Configured,
        }
    }
}

/// How hard the encoders try for an encoding the cache does not hold at the configured
/// settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Effort {
    /// At `[compression]`'s settings (the default: what is deployed).
    #[default]
    Configured,
    /// At quick settings (`encode::compress::Levels::quick`: brotli 5, zstd 3, libdeflate 6,
    /// or the configured where lower): what `make dev` asks (`EDGESITE_ENCODINGS=quick`), so
    /// that an edit is served without waiting for the slowest encoders (brotli 11 of a large
    /// `/llms-full.txt`, which every edit changes: docs/benchmarks.md, "The dev loop"). What
    /// the cache holds at the configured settings is still used as is.
    Quick,
}

/// Which date a page's Markdown twin names as its `last_modified`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PageDates {
    /// The build's Last-Modified for every page: what a build with `SOURCE_DATE_EPOCH` asks for
    /// (one instant, reproducible), and [`Options::new`](crate::Options::new)'s default.
    #[default]
    Build,
    /// Each page's own (`modified::own_dates`: its last commit, or its modification time): the
    /// build script's unless `SOURCE_DATE_EPOCH` is set.
    Own,
}

impl PageDates {
    /// What a build given `SOURCE_DATE_EPOCH` (or not) uses: one date, or each page's own.
    pub fn for_epoch(source_date_epoch: Option<&str>) -> PageDates {
        match source_date_epoch {
            Some(_) => PageDates::Build,
            None => PageDates::Own,
        }
    }
}

/// The Worker's code without the site, counted in every bundle estimate: the wasm module and its
/// JS glue, rounded up (docs/benchmarks.md has their measured sizes).
pub const CODE_ESTIMATE_BYTES: u64 = 256 * 1024;

/// The tables as a build wrote them ([`Manifest::write_rust_with`] with `Bodies::Tables`): what
/// the bundle and a Worker's isolate hold of them, known exactly once they are encoded, where
/// the storage stage could only estimate them (from above); kept in [`Manifest::written`].
///
/// [`Manifest::write_rust_with`]: crate::model::Manifest::write_rust_with
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// `tables.bin`'s bytes.
    pub tables_bytes: u64,
    /// What they decode into in a Worker's wasm memory (their items at their wasm32 sizes).
    pub decoded_bytes: u64,
}

/// What a Worker's isolate holds without its site, counted in every memory check: its wasm
/// memory's stack and heap (1.3 MB measured with a 3 KB site's tables) and its JS heap (2 MiB),
/// rounded up (docs/benchmarks.md, "Many files").
pub const RUNTIME_MEMORY_BYTES: u64 = 4 << 20;

/// A compiled site: everything `site.rs` is generated from, also written as `manifest.json`.
#[derive(Debug, Serialize)]
pub struct Manifest {
    /// The site directory.
    pub site_dir: PathBuf,
    /// Last-Modified of every file, as an IMF-fixdate (RFC 9110 §5.6.7).
    pub last_modified: String,
    /// The same instant, in seconds since the Unix epoch.
    pub last_modified_unix: u64,
    /// Every file, sorted by URL path.
    pub files: Vec<Asset>,
    /// Every route, sorted by path (the order `edgesite_core::Site::route` searches).
    pub routes: Vec<Route>,
    /// The `_redirects` rules with placeholders or a splat, in file order (matched at run time
    /// for paths that are not routes).
    pub rules: Vec<RedirectRule>,
    /// The index of `rules` by their literal leading segments (a trie; node 0 is the root).
    #[serde(skip)]
    pub rule_index: Vec<RuleIndexNode>,
    /// The 404 pages: each folder that has a `404.html`, with its index in `files`.
    pub not_found: Vec<(String, usize)>,
    /// The index in `files` of the SPA fallback, if configured.
    pub fallback: Option<usize>,
    /// The `multipart/byteranges` boundary: occurs in no body of the site.
    pub boundary: String,
    /// Fields sent on every response (security fields), names in lower case.
    #[serde(rename = "headers")]
    pub fields: Vec<(&'static str, String)>,
    /// Cache-Control of a request whose `v` is a file's fingerprint (`cache.fingerprinted`;
    /// empty when `[fingerprint] mode = "off"`).
    #[serde(rename = "versioned_cache_control")]
    pub fingerprinted_cache_control: String,
    /// What shared caches are told of answers a CDN could mix up (`cache.shared_caches`; the
    /// core's `Site::shared_caches`).
    pub shared_caches: crate::config::SharedCaches,
    /// The build id: the first 16 hex digits of the SHA-256 of every file's path and SHA-256,
    /// sent as `X-Edgesite-Build` with `headers.build_id = true`.
    pub build_id: String,
    /// What the build did and how long it took (in the report, not in `manifest.json`, which
    /// stays identical across builds of the same tree).
    #[serde(skip)]
    pub stats: BuildStats,
    /// The size limits it was checked against.
    #[serde(skip)]
    pub budget: BudgetConfig,
    /// The store's limits it was checked against (`[storage]`).
    #[serde(skip)]
    pub storage: StorageConfig,
    /// The storage it chose (`[compression] store`), and why.
    #[serde(skip)]
    pub store: StoreChoice,
    /// Things worth a look that do not fail the build (e.g. a `_headers` rule that matches no
    /// file), in the order of the stages that found them.
    #[serde(skip)]
    pub warnings: Vec<Warning>,
    /// Every directory and file read, for `cargo:rerun-if-changed`.
    #[serde(skip)]
    pub tracked: Vec<PathBuf>,
    /// The tables as written, once they are (`Bodies::Tables`): the reports then give the
    /// bundle and the isolate exactly, and warn from them.
    #[serde(skip)]
    pub written: Option<Written>,
}

/// The site's assets as the stages after encoding pass them on (each takes them and returns
/// them with its work done), with what the stages counted and decided.
#[derive(Debug, Default)]
pub(crate) struct Assets {
    /// One per source, in the sources' order.
    pub(crate) list: Vec<Asset>,
    /// What the stages counted.
    pub(crate) stats: BuildStats,
    /// The storage chosen (the storage stage).
    pub(crate) store: StoreChoice,
    /// Fields of every response (the fields stage).
    pub(crate) fields: Vec<(&'static str, String)>,
    /// The build id (the fields stage).
    pub(crate) build_id: String,
    /// What the stages after encoding noticed (storage's warnings, `_headers` read).
    pub(crate) notes: Notes,
}
