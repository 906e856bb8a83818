//! # edgesite-sitegen
//!
//! The build-time site compiler behind edgesite. [`compile`] walks a site directory, hashes every
//! file with SHA-256, decides its Content-Type, ETag, Last-Modified and Cache-Control, and builds
//! the sorted route table; [`Manifest::write_rust`] then writes `site.rs` (static tables of
//! `edgesite-core` types, bodies embedded with `include_bytes!`) and `manifest.json`.
//!
//! [`compile`] takes its inputs as arguments and reads no environment variable;
//! [`build_script::run`] is what a `build.rs` calls: it reads `EDGESITE_CONFIG`,
//! `EDGESITE_SITE`, `SOURCE_DATE_EPOCH` and `OUT_DIR`, and prints the `cargo:` lines.
//!
//! ```no_run
//! use edgesite_sitegen::{compile, last_modified, Options};
//! use std::path::Path;
//!
//! let site = Path::new("public");
//! let options = Options::new(last_modified(None, site)?);
//! let manifest = compile(site, &options)?;
//! manifest.write_rust(Path::new("target/out"))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod boundary;
mod budget;
pub mod build_script;
mod cache;
mod codegen;
mod compress;
mod config;
pub mod delta;
mod error;
mod etag;
mod field;
mod glob;
mod headers_file;
pub mod history;
mod leak;
mod links;
mod mime;
mod modified;
mod redirects_file;
mod report;
mod routes;
mod rule;
mod store;
mod uri;
mod walk;

pub use budget::{bundle_bytes, warnings as budget_warnings, CODE_ESTIMATE_BYTES};
pub use cache::CacheReason;
pub use codegen::Bodies;
pub use compress::{encode, EncodeCounts};
pub use config::{
    BrokenLinks, BudgetConfig, CacheConfig, CacheRule, CompatConfig, CompressionConfig, Config,
    FingerprintConfig, FingerprintMode, GzipEncoder, HeadersConfig, HistoryConfig, LinksConfig,
    SiteConfig, Store, TrailingSlash,
};
pub use error::Error;
pub use links::LinkStats;
pub use modified::last_modified;
pub use rule::{DestinationPart, PatternSegment, RedirectRule, RuleAction, RuleIndexNode};
pub use store::StoreChoice;

use edgesite_core::{ContentCoding, RedirectStatus};
use serde::{Serialize, Serializer};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How to compile a site.
#[derive(Debug, Clone)]
pub struct Options {
    /// The Last-Modified of every file (see [`last_modified`]).
    pub last_modified: SystemTime,
    /// Clean URLs: `/about` serves `about.html`, and `/about.html` redirects (308) to `/about`.
    pub clean_urls: bool,
    /// Whether folder URLs end with a slash.
    pub trailing_slash: TrailingSlash,
    /// The single-page-application fallback: the URL path of an HTML file (e.g. `/index.html`)
    /// sent with 200 to navigation requests for extension-less paths that match nothing.
    pub spa_fallback: Option<String>,
    /// The Cache-Control policy.
    pub cache: CacheConfig,
    /// The fields sent on every response.
    pub headers: HeadersConfig,
    /// Which encodings to store, and their settings.
    pub compression: CompressionConfig,
    /// The size limits.
    pub budget: BudgetConfig,
    /// Where encoded files are cached between builds (keyed by content and settings); `None`
    /// encodes everything every time.
    pub cache_dir: Option<PathBuf>,
    /// Refuse `_redirects` and `_headers` past Cloudflare Pages' caps (`[compat]`).
    pub pages_limits: bool,
    /// Content-addressed `?v=` URLs for the site's own subresources (`[fingerprint]`).
    pub fingerprint: FingerprintConfig,
    /// The link check and preload hints (`[links]`).
    pub links: LinksConfig,
    /// The deploy history to build RFC 9842 deltas from (`[history] dir`, resolved by the
    /// caller); `None`: no deltas.
    pub history_dir: Option<PathBuf>,
    /// A site-wide HTML dictionary (`[history] html_dictionary`).
    pub html_dictionary: bool,
}

impl Options {
    /// The defaults: clean URLs on, no SPA fallback, the default caching policy and headers.
    pub fn new(last_modified: SystemTime) -> Self {
        Options::from_config(&Config::default(), last_modified)
    }

    /// The options an `edgesite.toml` asks for.
    pub fn from_config(config: &Config, last_modified: SystemTime) -> Self {
        Options {
            last_modified,
            clean_urls: config.site.clean_urls,
            trailing_slash: config.site.trailing_slash,
            spa_fallback: config.site.spa_fallback.clone(),
            cache: config.cache.clone(),
            headers: config.headers.clone(),
            compression: config.compression.clone(),
            budget: config.budget.clone(),
            cache_dir: None,
            pages_limits: config.compat.pages_limits,
            fingerprint: config.fingerprint.clone(),
            links: config.links.clone(),
            history_dir: None,
            html_dictionary: config.history.html_dictionary,
        }
    }
}

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
    pub files: Vec<File>,
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
    /// Fields sent on every response (security headers), names in lower case.
    pub headers: Vec<(&'static str, String)>,
    /// Cache-Control of a request whose `v` names a file's current bytes (`cache.fingerprinted`;
    /// empty when `[fingerprint] mode = "off"`).
    pub versioned_cache_control: String,
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
    /// The storage it chose (`[compression] store`), and why.
    #[serde(skip)]
    pub store: StoreChoice,
    /// Things worth a look that do not fail the build (e.g. a `_headers` rule that matches no file).
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// Every directory and file read, for `cargo:rerun-if-changed`.
    #[serde(skip)]
    pub tracked: Vec<PathBuf>,
}

/// What one compile did.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct BuildStats {
    /// Files compiled.
    pub files: usize,
    /// Encodings computed now, and taken from the cache.
    pub encodings: EncodeCounts,
    /// What the link pass found and did.
    pub links: LinkStats,
    /// The RFC 9842 deltas built from the deploy history.
    pub deltas: delta::DeltaStats,
    /// Wall time of the compile, in milliseconds.
    pub wall_time_ms: u64,
}

/// One file of the site.
#[derive(Debug, Clone, Serialize)]
pub struct File {
    /// The URL path, e.g. `/docs/index.html`.
    pub path: String,
    /// Where it was read from.
    pub source: PathBuf,
    /// Content-Type field value.
    pub content_type: &'static str,
    /// Cache-Control field value.
    pub cache_control: String,
    /// Why it got that Cache-Control.
    pub cache_reason: CacheReason,
    /// The configured fields of this file's 2xx and 304 responses: the `[headers]` defaults,
    /// `cdn-cache-control`, and what `_headers` adds or removes.
    pub headers: Vec<(String, String)>,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256 of the bytes served (identity), lower-case hex.
    pub sha256: String,
    /// Its first 10 hex digits, when references to this file get `?v=` (`[fingerprint]`): a
    /// request with `v` equal to it gets [`Manifest::versioned_cache_control`]. Empty when the
    /// file is not fingerprinted.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub fingerprint: String,
    /// When the link pass rewrote references in this file (`?v=`): the bytes served, which
    /// `sha256` and `integrity` describe, are not the source file's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewritten: Option<Rewritten>,
    /// Subresource Integrity of the bytes served (`sha384-...`, W3C SRI), for
    /// `<script integrity>`.
    pub integrity: String,
    /// The strong ETag, quoted.
    pub etag: String,
    /// The stored representations: identity first, then the encodings worth keeping.
    pub representations: Vec<Variant>,
    /// Deltas against earlier deploys' versions of this file (RFC 9842), from the deploy
    /// history; empty without one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deltas: Vec<Delta>,
}

/// How the link pass changed a file (see [`File::rewritten`]).
#[derive(Debug, Clone, Serialize)]
pub struct Rewritten {
    /// References given a `?v=` (or replaced by a redirect's target).
    pub references: usize,
    /// SHA-256 of the source file's bytes, lower-case hex.
    pub source_sha256: String,
}

/// A delta of a file (RFC 9842): its bytes in `dcb` or `dcz` against an earlier version the
/// deploy history kept.
#[derive(Debug, Clone, Serialize)]
pub struct Delta {
    /// The SHA-256 of the dictionary (the earlier version's bytes): what Available-Dictionary
    /// names.
    #[serde(serialize_with = "serialize_hex")]
    pub dictionary: [u8; 32],
    /// The delta's bytes, size and ETag.
    pub variant: Variant,
}

fn serialize_hex<S: serde::Serializer>(bytes: &[u8; 32], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&etag::hex(bytes))
}

/// One stored representation of a file (RFC 9110 §3.2).
#[derive(Debug, Clone, Serialize)]
pub struct Variant {
    /// The content coding (written as its token: `identity`, `br`, `zstd`, `gzip`).
    #[serde(serialize_with = "serialize_coding")]
    pub coding: ContentCoding,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256 of these bytes, lower-case hex.
    pub sha256: String,
    /// This representation's own strong ETag (RFC 9110 §8.8.3).
    pub etag: String,
    /// The encoded bytes (`None` for identity, which is read from the source file).
    #[serde(skip)]
    pub bytes: Option<Vec<u8>>,
    /// Compact storage: not stored, but decoded on demand from the file's representation with
    /// this index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decoded_from: Option<usize>,
}

impl File {
    /// The bytes served as identity when they are not the source file's (the link pass
    /// rewrote it).
    pub fn identity_bytes(&self) -> Option<&[u8]> {
        self.representations
            .iter()
            .find(|v| v.coding == ContentCoding::Identity)
            .and_then(|v| v.bytes.as_deref())
    }
}

impl Variant {
    /// The bytes this representation adds to the bundle (none when decoded on demand).
    pub fn stored_size(&self) -> u64 {
        if self.decoded_from.is_some() {
            0
        } else {
            self.size
        }
    }
}

/// A route: a request path and what it leads to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Route {
    /// The normalized request path.
    pub path: String,
    /// Where it leads.
    pub target: RouteTarget,
}

/// Where a route leads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RouteTarget {
    /// The file at this index of [`Manifest::files`].
    File(usize),
    /// A redirect: a fixed `_redirects` rule, one resolved for this path, or the canonical
    /// spelling of a URL (308).
    Redirect {
        /// The status (written as its code).
        #[serde(serialize_with = "serialize_status")]
        status: RedirectStatus,
        /// The Location, percent-encoded.
        location: String,
        /// Where the request's query goes into `location`, if the destination has no query.
        query_at: Option<usize>,
    },
}

/// Writes a coding as its token in `manifest.json`.
fn serialize_coding<S: Serializer>(coding: &ContentCoding, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(coding.token())
}

/// Writes a redirect status as its code in `manifest.json`.
pub(crate) fn serialize_status<S: Serializer>(
    status: &RedirectStatus,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.serialize_u16(status.code())
}

/// Compiles the site in `site_dir`.
///
/// # Errors
/// A missing, empty or unreadable site, a name no URL can reach, a bad option, or a bad
/// `_headers` or `_redirects` file (see [`Error`]).
pub fn compile(site_dir: &Path, options: &Options) -> Result<Manifest, Error> {
    let started = Instant::now();
    let (mut found, mut tracked) = walk_site(site_dir)?;
    // Skew protection's kept files and the HTML dictionary are served after the site's own
    // files, never rewritten by the link pass.
    let current = found.len();
    let history = history::History::open_configured(options)?;
    let kept_stats = history::add_kept_files(history.as_ref(), &mut found);
    let html_dictionary = delta::add_html_dictionary(options, &mut found, current)?;
    let routing = routing(site_dir, options, &found, &mut tracked)?;
    let links = links::pass(&found, current, &routing.view(), options)?;
    let (mut files, counts) = compile_files(found, options, &links.rewrites)?;
    links::add_preload(&mut files, &links.preload);
    let deltas = delta::add(
        &mut files,
        options,
        history.as_ref(),
        html_dictionary.as_ref(),
        kept_stats,
    )?;
    let store = store::apply(
        &mut files,
        &options.compression,
        &options.budget,
        CODE_ESTIMATE_BYTES,
    );
    budget::check(&files, &options.budget)?;
    let build_id = build_id(&files);
    let headers = site_headers(options, &build_id, &mut files);
    let mut warnings = apply_headers_file(site_dir, options, &mut files, &routing, &mut tracked)?;
    warnings.extend(routing.redirects.warnings);
    warnings.extend(links.warnings);
    let (last_modified, last_modified_unix) = last_modified_fields(options);
    Ok(Manifest {
        site_dir: site_dir.to_path_buf(),
        last_modified,
        last_modified_unix,
        boundary: boundary::choose(&files),
        headers,
        versioned_cache_control: options.fingerprint.versioned_cache_control(&options.cache),
        build_id,
        stats: BuildStats {
            files: files.len(),
            encodings: counts,
            links: links.stats,
            deltas,
            wall_time_ms: started.elapsed().as_millis() as u64,
        },
        budget: options.budget.clone(),
        store,
        warnings,
        not_found: not_found_pages(&files),
        files,
        routes: routing.routes,
        rules: routing.redirects.rules,
        rule_index: routing.redirects.index,
        fallback: routing.fallback,
        tracked,
    })
}

/// The site's files (none is an error) and the paths a build depends on (its folders and files).
fn walk_site(site_dir: &Path) -> Result<(Vec<walk::Found>, Vec<PathBuf>), Error> {
    let walked = walk::walk(site_dir)?;
    if walked.files.is_empty() {
        return Err(Error::EmptySite {
            path: site_dir.to_path_buf(),
        });
    }
    let mut tracked = walked.dirs;
    tracked.extend(walked.files.iter().map(|f| f.source.clone()));
    Ok((walked.files, tracked))
}

/// Last-Modified (RFC 9110 §8.8.2) of every file: the IMF-fixdate and the Unix seconds.
fn last_modified_fields(options: &Options) -> (String, u64) {
    let since_epoch = options
        .last_modified
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let seconds = since_epoch.as_secs();
    (
        httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(seconds)),
        seconds,
    )
}

/// The site's routing, decided from its paths before any file is read.
struct Routing {
    /// The routes of the files alone (what `_headers` matches against).
    served: Vec<Route>,
    /// With `_redirects` applied.
    routes: Vec<Route>,
    redirects: redirects_file::Applied,
    fallback: Option<usize>,
}

impl Routing {
    fn view(&self) -> links::Routing<'_> {
        links::Routing {
            served: &self.served,
            routes: &self.routes,
            rules: &self.redirects.rules,
            index: &self.redirects.index,
            fallback: self.fallback,
        }
    }
}

/// The routes of the walked files, `_redirects` applied, and the SPA fallback.
fn routing(
    site_dir: &Path,
    options: &Options,
    found: &[walk::Found],
    tracked: &mut Vec<PathBuf>,
) -> Result<Routing, Error> {
    let paths: Vec<&str> = found.iter().map(|f| f.url_path.as_str()).collect();
    let served = routes::routes(&paths, options.clean_urls, options.trailing_slash);
    let mut routes = served.clone();
    let redirects_file = site_dir.join("_redirects");
    let mut redirects = redirects_file::Applied::default();
    if redirects_file.is_file() {
        tracked.push(redirects_file.clone());
        let text = read_text(&redirects_file)?;
        redirects =
            redirects_file::apply(&text, &redirects_file, &mut routes, options.pages_limits)?;
    }
    let fallback = spa_fallback(site_dir, options, &paths)?;
    Ok(Routing {
        served,
        routes,
        redirects,
        fallback,
    })
}

/// The site's fields (sent on every answer that is not a resource's own), and `X-Edgesite-Build`
/// on every file too when `headers.build_id` asks for it (before `_headers`, which may remove
/// it for some files).
fn site_headers(
    options: &Options,
    build_id: &str,
    files: &mut [File],
) -> Vec<(&'static str, String)> {
    let mut headers = options.headers.fields();
    if options.headers.build_id {
        for file in files.iter_mut() {
            file.headers
                .push(("x-edgesite-build".to_string(), build_id.to_string()));
        }
        headers.push(("x-edgesite-build", build_id.to_string()));
    }
    headers
}

/// The bytes of the file at `path`; an error names it.
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn read_text(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Each folder that has a `404.html`, with the file's index.
fn not_found_pages(files: &[File]) -> Vec<(String, usize)> {
    files
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            f.path
                .strip_suffix("404.html")
                .filter(|d| d.ends_with('/'))
                .map(|d| (d.to_string(), i))
        })
        .collect()
}

/// The index of the SPA fallback's file, if one is configured.
fn spa_fallback(
    site_dir: &Path,
    options: &Options,
    paths: &[&str],
) -> Result<Option<usize>, Error> {
    let Some(path) = &options.spa_fallback else {
        return Ok(None);
    };
    let index = paths.iter().position(|p| p == path);
    index.map(Some).ok_or_else(|| Error::MissingFallback {
        path: path.clone(),
        site: site_dir.to_path_buf(),
    })
}

/// The build id of `files`: changes exactly when a path or a byte of the site changes.
fn build_id(files: &[File]) -> String {
    let mut listing = String::new();
    for file in files {
        listing.push_str(&file.path);
        listing.push('\0');
        listing.push_str(&file.sha256);
        listing.push('\n');
    }
    etag::hex(&etag::sha256(listing.as_bytes()))[..16].to_string()
}

/// One file's result, with the encodings it computed or found in the cache.
type Compiled = Result<(File, EncodeCounts), Error>;

/// A lower bound on the bundle, raised as files compile: the code, every file that is not
/// compressed (stored as it is in any storage), and for each compiled file the least it can
/// be stored in. Past the budget, compiling stops: even compact storage cannot fit.
struct Floor {
    bytes: AtomicU64,
    over: AtomicBool,
    limit: u64,
    compact_allowed: bool,
    /// The files that are not compressed, with their sizes (for the error).
    untried: Vec<(String, u64)>,
}

impl Floor {
    fn new(found: &[walk::Found], options: &Options) -> Floor {
        let untried: Vec<(String, u64)> = found
            .iter()
            .filter_map(|f| Some((f, std::fs::metadata(&f.source).ok()?.len())))
            .filter(|(f, size)| !compress::tries(&f.url_path, *size, &options.compression))
            .map(|(f, size)| (f.url_path.clone(), size))
            .collect();
        let floor = Floor {
            bytes: AtomicU64::new(
                untried.iter().map(|(_, size)| size).sum::<u64>() + CODE_ESTIMATE_BYTES,
            ),
            untried,
            over: AtomicBool::new(false),
            limit: options.budget.max_bundle_bytes,
            compact_allowed: options.compression.store != Store::Full,
        };
        floor.add(0);
        floor
    }

    /// Adds a compiled file (its least storage, if it was compressed).
    fn add_file(&self, file: &File, options: &Options) {
        if compress::tries(&file.path, file.size, &options.compression) {
            let least = if self.compact_allowed {
                store::compact_bytes(file)
            } else {
                store::stored_bytes(file)
            };
            self.add(least);
        }
    }

    fn add(&self, bytes: u64) {
        if self.bytes.fetch_add(bytes, Ordering::Relaxed) + bytes > self.limit {
            self.over.store(true, Ordering::Relaxed);
        }
    }
}

/// Compiles every file on all cores (encoding dominates a build), keeping the walk's order;
/// stops early when the bundle cannot fit (see [`Floor`]).
fn compile_files(
    found: Vec<walk::Found>,
    options: &Options,
    rewrites: &[Option<links::Rewrite>],
) -> Result<(Vec<File>, EncodeCounts), Error> {
    let total = found.len();
    let floor = Floor::new(&found, options);
    let slots: Vec<Mutex<Option<Compiled>>> = (0..total).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(total.max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(file) = found.get(i) else { break };
                if floor.over.load(Ordering::Relaxed) {
                    break;
                }
                let rewrite = rewrites.get(i).and_then(Option::as_ref);
                let result = compile_file(file.clone(), options, rewrite);
                if let Ok((compiled, _)) = &result {
                    floor.add_file(compiled, options);
                }
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
            });
        }
    });
    collect(slots, &floor, options)
}

/// Progress for large sites (build-script stderr: `cargo build -vv` shows it).
fn progress(finished: usize, total: usize) {
    if total >= 100 && finished % (total / 10) == 0 {
        eprintln!("edgesite: compiled {finished}/{total} files");
    }
}

/// The compiled files in walk order, or the first error, or the budget error when compiling
/// stopped early.
fn collect(
    slots: Vec<Mutex<Option<Compiled>>>,
    floor: &Floor,
    options: &Options,
) -> Result<(Vec<File>, EncodeCounts), Error> {
    let mut files = Vec::with_capacity(slots.len());
    let mut counts = EncodeCounts::default();
    for slot in slots {
        // A slot left empty was not compiled: compiling stopped early.
        if let Some(result) = slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
            let (file, c) = result?;
            counts.encoded += c.encoded;
            counts.cached += c.cached;
            files.push(file);
        }
    }
    if floor.over.load(Ordering::Relaxed) {
        let bytes = floor.bytes.load(Ordering::Relaxed);
        let mut sizes: Vec<(String, u64)> = files
            .iter()
            .map(|f| (f.path.clone(), store::stored_bytes(f)))
            .collect();
        sizes.extend(
            floor
                .untried
                .iter()
                .filter(|(p, _)| !files.iter().any(|f| &f.path == p))
                .cloned(),
        );
        return Err(budget::over(bytes, &options.budget, sizes));
    }
    Ok((files, counts))
}

/// The configured fields every file starts with: `[headers]`, then `cache.cdn`.
fn default_fields(options: &Options) -> Vec<(String, String)> {
    let cdn = options
        .cache
        .cdn
        .iter()
        .map(|cdn| ("cdn-cache-control", cdn.clone()));
    options
        .headers
        .fields()
        .into_iter()
        .chain(cdn)
        .map(|(n, v)| (n.to_string(), v))
        .collect()
}

/// Applies the site's `_headers`, if it has one, to every file, matched against the URLs the
/// file is served at (not `_redirects` rewrites' sources); returns a warning for each rule
/// that matched nothing.
fn apply_headers_file(
    site_dir: &Path,
    options: &Options,
    files: &mut [File],
    routing: &Routing,
    tracked: &mut Vec<PathBuf>,
) -> Result<Vec<String>, Error> {
    let path = &site_dir.join("_headers");
    if !path.is_file() {
        return Ok(Vec::new());
    }
    tracked.push(path.clone());
    let routes = &routing.served;
    let text = read_text(path)?;
    let rules = headers_file::HeaderRules::parse(&text, path, options.pages_limits)?;
    let mut used = std::collections::BTreeSet::new();
    for (i, file) in files.iter_mut().enumerate() {
        let mut paths: Vec<&str> = routes
            .iter()
            .filter(|r| r.target == RouteTarget::File(i))
            .map(|r| r.path.as_str())
            .collect();
        if paths.is_empty() {
            paths.push(&file.path);
        }
        let mut cache_control = file.cache_control.clone();
        let applied = rules
            .apply(&paths, &mut file.headers, &mut cache_control)
            .map_err(|(line, message)| Error::Config {
                path: path.to_path_buf(),
                line,
                message,
            })?;
        used.extend(applied);
        if cache_control != file.cache_control {
            file.cache_control = cache_control;
            file.cache_reason = CacheReason::Rule;
        }
    }
    Ok(rules
        .rules()
        .filter(|(line, _)| !used.contains(line))
        .map(|(line, pattern)| {
            format!(
                "{}:{line}: the rule {pattern} matches no file",
                path.display()
            )
        })
        .collect())
}

/// Reads (or takes the link pass's `rewrite` of), hashes and precompresses one file, and
/// decides its caching fields.
fn compile_file(
    found: walk::Found,
    options: &Options,
    rewrite: Option<&links::Rewrite>,
) -> Result<(File, EncodeCounts), Error> {
    let bytes = served_bytes(&found, rewrite)?;
    let digest = etag::sha256(&bytes);
    // A rewritten file's bytes are not the source's: kept, as the encodings are.
    let kept = rewrite.map(|r| r.bytes.clone());
    let identity = variant(ContentCoding::Identity, &digest, bytes.len(), kept);
    let mut counts = EncodeCounts::default();
    let mut representations = vec![identity.clone()];
    representations.extend(encodings(
        &found.url_path,
        &bytes,
        &identity,
        options,
        &mut counts,
    ));
    let content_type = mime::content_type(&found.url_path);
    let (cache_control, cache_reason) = cache::cache_control(
        &options.cache,
        &found.url_path,
        content_type,
        &bytes,
        &digest,
    );
    let fingerprint = links::version(&found.url_path, cache_reason, &identity.sha256, options);
    let file = File {
        fingerprint: fingerprint.unwrap_or_default().to_string(),
        rewritten: rewrite.map(|r| Rewritten {
            references: r.references,
            source_sha256: r.source_sha256.clone(),
        }),
        content_type,
        cache_control: cache_control.to_string(),
        cache_reason,
        headers: default_fields(options),
        size: identity.size,
        etag: identity.etag,
        sha256: identity.sha256,
        integrity: etag::sri_sha384(&bytes),
        representations,
        deltas: Vec::new(),
        path: found.url_path,
        source: found.source,
    };
    Ok((file, counts))
}

/// The bytes a file serves: the link pass's rewrite of it, or the source's.
fn served_bytes(found: &walk::Found, rewrite: Option<&links::Rewrite>) -> Result<Vec<u8>, Error> {
    if found.url_path.len() > edgesite_core::MAX_PATH_LEN - 1 {
        return Err(Error::Unservable {
            path: found.source.clone(),
            reason: "its URL path is longer than edgesite_core::MAX_PATH_LEN bytes",
        });
    }
    match rewrite {
        Some(rewrite) => Ok(rewrite.bytes.clone()),
        None => read_bytes(&found.source),
    }
}

/// The encoded representations of a file worth keeping (see [`compress::precompress`]).
fn encodings(
    path: &str,
    bytes: &[u8],
    identity: &Variant,
    options: &Options,
    counts: &mut EncodeCounts,
) -> Vec<Variant> {
    let cache_dir = options.cache_dir.as_deref();
    compress::precompress(
        path,
        bytes,
        &identity.sha256,
        &options.compression,
        cache_dir,
        counts,
    )
    .into_iter()
    .map(|encoded| {
        let digest = etag::sha256(&encoded.bytes);
        let size = encoded.bytes.len();
        variant(encoded.coding, &digest, size, Some(encoded.bytes))
    })
    .collect()
}

/// A representation of `size` bytes with this SHA-256; `bytes` are kept for encoded ones.
fn variant(
    coding: ContentCoding,
    digest: &[u8; 32],
    size: usize,
    bytes: Option<Vec<u8>>,
) -> Variant {
    Variant {
        coding,
        size: size as u64,
        sha256: etag::hex(digest),
        etag: etag::strong_etag(digest),
        bytes,
        decoded_from: None,
    }
}

impl Manifest {
    /// Calls `f` with edgesite-core's view of this site's routing: its routes (every file one
    /// empty placeholder asset), its `_redirects` rules and their index. What the build checks
    /// loops and reachability with; also what routing benchmarks run on.
    pub fn with_routing<T>(&self, f: impl FnOnce(&edgesite_core::Site<'_>) -> T) -> T {
        rule::with_core_site(&self.routes, &self.rules, &self.rule_index, f)
    }

    /// Total bytes of all files.
    pub fn total_size(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }

    /// Writes `site.rs` with the bytes embedded ([`Bodies::Embedded`]; the encoded ones in
    /// `encoded/<sha256>`), `manifest.json` and `report.txt` into `out_dir`.
    ///
    /// # Errors
    /// When a file cannot be written.
    pub fn write_rust(&self, out_dir: &Path) -> std::io::Result<()> {
        self.write_rust_with(out_dir, Bodies::Embedded)
    }

    /// [`Manifest::write_rust`], with the bytes kept as `bodies` says.
    ///
    /// # Errors
    /// When a file cannot be read or written.
    pub fn write_rust_with(&self, out_dir: &Path, bodies: Bodies) -> std::io::Result<()> {
        if bodies == Bodies::Embedded {
            let encoded = out_dir.join("encoded");
            std::fs::create_dir_all(&encoded)?;
            let deltas = self
                .files
                .iter()
                .flat_map(|f| f.deltas.iter().map(|d| &d.variant));
            for variant in self
                .files
                .iter()
                .flat_map(|f| &f.representations)
                .chain(deltas)
            {
                if let Some(bytes) = &variant.bytes {
                    std::fs::write(encoded.join(&variant.sha256), bytes)?;
                }
            }
        }
        codegen::write(self, out_dir, bodies)?;
        std::fs::write(out_dir.join("manifest.json"), self.to_json())?;
        std::fs::write(out_dir.join("report.txt"), self.report())
    }

    /// Writes every HTML and CSS file as it is served (the link pass may have rewritten it)
    /// into `dir`, at its URL path: what tests compare served bodies with.
    ///
    /// # Errors
    /// When a file cannot be read or written.
    pub fn write_served_pages(&self, dir: &Path) -> std::io::Result<()> {
        if dir.exists() {
            std::fs::remove_dir_all(dir)?;
        }
        for file in &self.files {
            if !file.content_type.starts_with("text/html")
                && !file.content_type.starts_with("text/css")
            {
                continue;
            }
            let to = dir.join(file.path.trim_start_matches('/'));
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            match file.identity_bytes() {
                Some(bytes) => std::fs::write(to, bytes)?,
                None => std::fs::copy(&file.source, to).map(|_| ())?,
            }
        }
        Ok(())
    }

    /// The integrity manifest: every file with its path, sizes and ETags per encoding, SHA-256
    /// and SRI `sha384-` hash, as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a Manifest always serializes")
    }
}
