//! `edgesite.toml`: the project's configuration, read with serde. Every key is optional and has
//! the default written here; an unknown key, or a value of the wrong type, is a build error that
//! names the file and line.
//!
//! ```toml
//! [site]
//! # The folder to compile, relative to edgesite.toml. EDGESITE_SITE overrides it.
//! dir = "public"
//! # Clean URLs: /about serves about.html, /about.html redirects (308) to /about.
//! clean_urls = true
//! # Single-page-application fallback: this HTML file answers (200) navigation requests for
//! # extension-less paths that match nothing. Off unless set.
//! # spa_fallback = "/index.html"
//! ```

mod images;

pub use images::{ImageFormat, ImagesConfig, SharedCaches};

use crate::error::Error;
use crate::field::check_value;
use edgesite_core::ContentCoding;
use serde::{Deserialize, Deserializer, Serializer};
use std::path::{Path, PathBuf};

/// The parsed `edgesite.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `[site]`
    #[serde(default)]
    pub site: SiteConfig,
    /// `[cache]`
    #[serde(default)]
    pub cache: CacheConfig,
    /// `[headers]`
    #[serde(default)]
    pub headers: HeadersConfig,
    /// `[compression]`
    #[serde(default)]
    pub compression: CompressionConfig,
    /// `[budget]`
    #[serde(default)]
    pub budget: BudgetConfig,
    /// `[compat]`
    #[serde(default)]
    pub compat: CompatConfig,
    /// `[fingerprint]`
    #[serde(default)]
    pub fingerprint: FingerprintConfig,
    /// `[links]`
    #[serde(default)]
    pub links: LinksConfig,
    /// `[history]`
    #[serde(default)]
    pub history: HistoryConfig,
    /// `[images]`
    #[serde(default)]
    pub images: ImagesConfig,
}

/// `[history]`: the deploy history (what earlier deploys served; see `history.rs`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryConfig {
    /// The history folder, relative to the config file (default `.edgesite/history`).
    #[serde(default = "default_history_dir")]
    pub dir: PathBuf,
    /// How many deploys it keeps, the newest included (default 3; 1 to 10).
    #[serde(default = "default_keep")]
    pub keep: usize,
    /// A site-wide dictionary for HTML (RFC 9842): zstd's trainer over the site's pages, served
    /// at `/_edgesite/html.dict`, announced on every page, and each page given `dcz`/`dcb`
    /// deltas against it (default `false`: measured 7-18% below br, docs/benchmarks.md).
    #[serde(default)]
    pub html_dictionary: bool,
}

impl Default for HistoryConfig {
    fn default() -> Self {
        HistoryConfig {
            dir: default_history_dir(),
            keep: default_keep(),
            html_dictionary: false,
        }
    }
}

fn default_history_dir() -> PathBuf {
    PathBuf::from(".edgesite/history")
}
fn default_keep() -> usize {
    3
}

impl HistoryConfig {
    fn first_invalid(&self) -> Option<(Key, String)> {
        let key = |name| Key::new(&["history", name]);
        if !(1..=10).contains(&self.keep) {
            return Some((key("keep"), format!("{} is not in 1..=10", self.keep)));
        }
        if self.dir.as_os_str().is_empty() {
            return Some((key("dir"), "an empty folder name".into()));
        }
        None
    }
}

/// `[fingerprint]`: content-addressed URLs for the site's own subresources.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FingerprintConfig {
    /// `query` (default): references to the site's files from its HTML and CSS get `?v=` the
    /// first 10 hex digits of the SHA-256 of the bytes served, and such a request gets
    /// `cache.fingerprinted`; `off`: nothing is rewritten and `v` means nothing.
    #[serde(default)]
    pub mode: FingerprintMode,
    /// Globs over URL paths (`*` within a segment, `**` across) of files never fingerprinted:
    /// references to them are left as they are, and their `v` means nothing.
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// `fingerprint.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FingerprintMode {
    /// `path?v=<hash>`.
    #[default]
    Query,
    /// No fingerprints.
    Off,
}

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

impl Default for LinksConfig {
    fn default() -> Self {
        LinksConfig {
            broken: BrokenLinks::default(),
            ignore: Vec::new(),
            preload: true,
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

/// `[compat]`: compatibility with other hosts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct CompatConfig {
    /// Refuse `_redirects` and `_headers` files past Cloudflare Pages' caps (2,000 fixed and
    /// 100 dynamic redirects, 1,000 characters a line, 100 header rules), for a site that must
    /// also deploy on Pages (default `false`: edgesite compiles any number of rules).
    #[serde(default)]
    pub pages_limits: bool,
}

/// `[compression]`: which encodings are stored, and how hard each is tried.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct CompressionConfig {
    /// The encodings to store, of `br`, `zstd`, `gzip` (default all three).
    #[serde(
        default = "default_codings",
        deserialize_with = "codings",
        serialize_with = "coding_tokens"
    )]
    pub codings: Vec<ContentCoding>,
    /// Brotli quality, 0-11 (default 11).
    #[serde(default = "default_brotli_quality")]
    pub brotli_quality: u32,
    /// zstd level, 1-19 (default 19; higher levels need windows browsers may refuse).
    #[serde(default = "default_zstd_level")]
    pub zstd_level: i32,
    /// The gzip encoder (default `libdeflate`, level 12).
    #[serde(default)]
    pub gzip_encoder: GzipEncoder,
    /// zopfli iterations, when `gzip_encoder = "zopfli"` (default 15).
    #[serde(default = "default_zopfli_iterations")]
    pub zopfli_iterations: u64,
    /// Keep an encoding only when at least this many percent smaller (default 5).
    #[serde(default = "default_min_savings_percent")]
    pub min_savings_percent: u64,
    /// ... and at least this many bytes smaller (default 64).
    #[serde(default = "default_min_savings_bytes")]
    pub min_savings_bytes: u64,
    /// Which representations are stored (default `auto`).
    #[serde(default)]
    pub store: Store,
}

/// `compression.gzip_encoder`: what produces the gzip representation (RFC 9110 §8.4.1.3). Both
/// write standard gzip; they differ in time and, by about 1% either way, in size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum GzipEncoder {
    /// libdeflate at level 12 (its slowest, near-optimal parsing): fast enough that an edited
    /// page is re-encoded within an edit-rebuild (docs/benchmarks.md, `make bench`).
    #[default]
    Libdeflate,
    /// zopfli with `zopfli_iterations`: tens of times slower than libdeflate and, on text,
    /// within about 1% of its size, smaller or larger by file (docs/benchmarks.md).
    Zopfli,
}

/// `compression.store`: which representations of a compressible file are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Store {
    /// Identity and every configured encoding: each response is sent as stored.
    Full,
    /// For compressible files stored with gzip, only br and gzip (not zstd, not identity): a
    /// client that accepts neither gets identity decoded from the gzip on demand, with the same
    /// strong ETag, Content-Length and ranges. For sites too large to store in full.
    Compact,
    /// `full` unless the bundle would then exceed `budget.max_bundle_bytes`, else `compact`.
    #[default]
    Auto,
}

impl Default for CompressionConfig {
    fn default() -> Self {
        CompressionConfig {
            codings: default_codings(),
            brotli_quality: default_brotli_quality(),
            zstd_level: default_zstd_level(),
            gzip_encoder: GzipEncoder::default(),
            zopfli_iterations: default_zopfli_iterations(),
            min_savings_percent: default_min_savings_percent(),
            min_savings_bytes: default_min_savings_bytes(),
            store: Store::default(),
        }
    }
}

/// The codings sitegen precompresses: all but identity and the dictionary codings (RFC 9842
/// deltas are built from the deploy history, not listed here).
fn default_codings() -> Vec<ContentCoding> {
    ContentCoding::ALL
        .into_iter()
        .filter(|c| *c != ContentCoding::Identity && !c.needs_dictionary())
        .collect()
}

/// `compression.codings`: content-coding tokens (RFC 9110 §8.4.1), read as core's
/// [`ContentCoding`]; identity is always stored and cannot be listed.
fn codings<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<ContentCoding>, D::Error> {
    let tokens = Vec::<String>::deserialize(deserializer)?;
    tokens
        .iter()
        .map(|token| {
            ContentCoding::from_token(token.as_bytes())
                .filter(|c| default_codings().contains(c))
                .ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        "compression.codings: unknown coding {token:?}; use {}",
                        default_codings()
                            .iter()
                            .map(|c| c.token())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })
        })
        .collect()
}

fn coding_tokens<S: Serializer>(
    codings: &[ContentCoding],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(codings.iter().map(|c| c.token()))
}
fn default_brotli_quality() -> u32 {
    11
}
fn default_zstd_level() -> i32 {
    19
}
fn default_zopfli_iterations() -> u64 {
    15
}
fn default_min_savings_percent() -> u64 {
    5
}
fn default_min_savings_bytes() -> u64 {
    64
}

/// `[budget]`: the build fails past these sizes, and warns past 80% of them.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetConfig {
    /// The Worker bundle limit in bytes, uncompressed (default 64 MiB, Cloudflare's limit).
    #[serde(default = "default_max_bundle_bytes")]
    pub max_bundle_bytes: u64,
    /// The largest single file in bytes (default 25 MiB).
    #[serde(default = "default_max_file_bytes")]
    pub max_file_bytes: u64,
}

impl Default for BudgetConfig {
    fn default() -> Self {
        BudgetConfig {
            max_bundle_bytes: default_max_bundle_bytes(),
            max_file_bytes: default_max_file_bytes(),
        }
    }
}

fn default_max_bundle_bytes() -> u64 {
    64 * 1024 * 1024
}
fn default_max_file_bytes() -> u64 {
    25 * 1024 * 1024
}

/// `[cache]`: the Cache-Control policy (see `cache.rs` for the order rules apply in).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// HTML pages (default `no-cache`).
    #[serde(default = "default_html")]
    pub html: String,
    /// Files whose name carries a verified content hash (default a year, `immutable`).
    #[serde(default = "default_fingerprinted")]
    pub fingerprinted: String,
    /// Everything else (default `public, max-age=0, must-revalidate`).
    #[serde(default = "default_cache")]
    pub default: String,
    /// If set, sent as `CDN-Cache-Control` with every file: the policy for Cloudflare's (and other
    /// CDNs') shared cache, e.g. `public, max-age=86400, stale-while-revalidate=60`.
    #[serde(default)]
    pub cdn: Option<String>,
    /// What shared caches are told of answers chosen by a field a CDN may not key on: a
    /// dictionary delta (`Available-Dictionary`) and the SPA fallback's choice (`Sec-Fetch-Mode`,
    /// `Accept`). `private` (default): `CDN-Cache-Control: private` in place of `cdn`; `vary`:
    /// the CDN honours Vary, `cdn` applies as set. (Images: `images.shared_caches`.)
    #[serde(default)]
    pub shared_caches: SharedCaches,
    /// `[[cache.rules]]`: the first whose pattern matches wins over everything above.
    #[serde(default)]
    pub rules: Vec<CacheRule>,
}

/// `[[cache.rules]]`
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheRule {
    /// A glob over the URL path: `*` within a segment, `**` across segments.
    pub pattern: String,
    /// The Cache-Control for matching files.
    pub cache_control: String,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            html: default_html(),
            fingerprinted: default_fingerprinted(),
            default: default_cache(),
            cdn: None,
            shared_caches: SharedCaches::Private,
            rules: Vec::new(),
        }
    }
}

fn default_html() -> String {
    "no-cache".into()
}

fn default_fingerprinted() -> String {
    "public, max-age=31536000, immutable".into()
}

fn default_cache() -> String {
    "public, max-age=0, must-revalidate".into()
}

/// `[headers]`: fields sent on every response. An empty string turns a default off.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeadersConfig {
    /// `X-Content-Type-Options: nosniff` (default on): browsers trust our Content-Type.
    #[serde(default = "default_true")]
    pub nosniff: bool,
    /// `Referrer-Policy` (default `strict-origin-when-cross-origin`).
    #[serde(default = "default_referrer_policy")]
    pub referrer_policy: String,
    /// `Content-Security-Policy` (opt-in).
    #[serde(default)]
    pub content_security_policy: String,
    /// `Strict-Transport-Security` (opt-in), e.g. `max-age=63072000; includeSubDomains`.
    #[serde(default)]
    pub strict_transport_security: String,
    /// `Access-Control-Allow-Origin` (CORS, opt-in), e.g. `*`.
    #[serde(default)]
    pub access_control_allow_origin: String,
    /// `X-Edgesite-Build: <build id>` on every response (opt-in): which build answered, a hash
    /// of every file's path and content.
    #[serde(default)]
    pub build_id: bool,
}

impl Default for HeadersConfig {
    fn default() -> Self {
        HeadersConfig {
            nosniff: true,
            referrer_policy: default_referrer_policy(),
            content_security_policy: String::new(),
            strict_transport_security: String::new(),
            access_control_allow_origin: String::new(),
            build_id: false,
        }
    }
}

fn default_referrer_policy() -> String {
    "strict-origin-when-cross-origin".into()
}

impl HeadersConfig {
    /// The configured fields, names in lower case, empty values left out.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        let nosniff = if self.nosniff { "nosniff" } else { "" };
        [
            ("x-content-type-options", nosniff),
            ("referrer-policy", self.referrer_policy.as_str()),
            (
                "content-security-policy",
                self.content_security_policy.as_str(),
            ),
            (
                "strict-transport-security",
                self.strict_transport_security.as_str(),
            ),
            (
                "access-control-allow-origin",
                self.access_control_allow_origin.as_str(),
            ),
        ]
        .into_iter()
        .filter(|(_, value)| !value.is_empty())
        .map(|(name, value)| (name, value.to_string()))
        .collect()
    }
}

/// `[site]`: what to compile and how its URLs map to files.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteConfig {
    /// The site folder, relative to the config file (default `public`).
    #[serde(default = "default_dir")]
    pub dir: PathBuf,
    /// Clean URLs (default `true`).
    #[serde(default = "default_true")]
    pub clean_urls: bool,
    /// The SPA fallback's URL path, e.g. `/index.html` (default: none).
    #[serde(default)]
    pub spa_fallback: Option<String>,
    /// Folder URLs: `always` (default) serves `/docs/` and redirects `/docs` to it; `never` serves
    /// `/docs` and redirects `/docs/` to it.
    #[serde(default)]
    pub trailing_slash: TrailingSlash,
    /// Serve a folder that holds the project itself (`edgesite.toml`, `Cargo.toml`,
    /// `wrangler.toml`, or the folder of the configuration or one above it): off by default,
    /// since it would publish the configuration, the sources and whatever else lies there.
    #[serde(default)]
    pub allow_project_files: bool,
}

/// `site.trailing_slash`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TrailingSlash {
    /// `/docs/` is canonical (relative links in the folder's index resolve against the folder).
    #[default]
    Always,
    /// `/docs` is canonical.
    Never,
}

impl Default for SiteConfig {
    fn default() -> Self {
        SiteConfig {
            dir: default_dir(),
            clean_urls: true,
            spa_fallback: None,
            trailing_slash: TrailingSlash::Always,
            allow_project_files: false,
        }
    }
}

fn default_dir() -> PathBuf {
    PathBuf::from("public")
}

fn default_true() -> bool {
    true
}

impl Config {
    /// The configured fields every file's responses start with: `[headers]`, then `cache.cdn`
    /// (as `CDN-Cache-Control`).
    pub(crate) fn default_fields(&self) -> Vec<(String, String)> {
        let cdn = self
            .cache
            .cdn
            .iter()
            .map(|cdn| ("cdn-cache-control", cdn.clone()));
        self.headers
            .fields()
            .into_iter()
            .chain(cdn)
            .map(|(name, value)| (name.to_string(), value))
            .collect()
    }

    /// Reads `path`; a missing file is the default configuration.
    ///
    /// # Errors
    /// An unreadable file, invalid TOML, an unknown key or a wrong type, naming file and line.
    pub fn load(path: &Path) -> Result<Config, Error> {
        match std::fs::read_to_string(path) {
            Ok(text) => Config::parse(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(source) => Err(Error::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Parses the text of `path`.
    ///
    /// # Errors
    /// Invalid TOML, an unknown key, a wrong type or a value out of range (a field value a
    /// response could not carry, a compression level, ...), naming file, line and key.
    pub fn parse(text: &str, path: &Path) -> Result<Config, Error> {
        let config: Config = toml::from_str(text).map_err(|e| Error::Config {
            path: path.to_path_buf(),
            line: e.span().map_or(1, |span| line_at(text, span.start)),
            message: e.message().to_string(),
        })?;
        match config.first_invalid() {
            None => Ok(config),
            Some((key, message)) => Err(Error::Config {
                path: path.to_path_buf(),
                line: key.line_in(text),
                message: format!("{key}: {message}"),
            }),
        }
    }

    /// The first value serde cannot check, with its key.
    fn first_invalid(&self) -> Option<(Key, String)> {
        self.compression
            .first_invalid()
            .or_else(|| self.headers.first_invalid())
            .or_else(|| self.cache.first_invalid())
            .or_else(|| self.site.first_invalid())
            .or_else(|| self.fingerprint.first_invalid())
            .or_else(|| self.links.first_invalid())
            .or_else(|| self.history.first_invalid())
            .or_else(|| self.images.first_invalid())
    }
}

/// The 1-based line of byte `offset` of `text`.
fn line_at(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// A key of `edgesite.toml`, for messages and to find its line: `headers.referrer_policy`,
/// `cache.rules[2].cache_control`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key(Vec<KeyPart>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyPart {
    Name(&'static str),
    Index(usize),
}

impl Key {
    fn new(names: &[&'static str]) -> Key {
        Key(names.iter().map(|n| KeyPart::Name(n)).collect())
    }

    /// The line of the key's value in `text` (1 when it is not written there, e.g. a default).
    fn line_in(&self, text: &str) -> usize {
        let Ok(document) = toml_edit::Document::parse(text) else {
            return 1;
        };
        let mut item = document.as_item();
        for part in &self.0 {
            let next = match *part {
                KeyPart::Name(name) => item.get(name),
                KeyPart::Index(i) => item.get(i),
            };
            match next {
                Some(next) => item = next,
                None => break,
            }
        }
        item.span().map_or(1, |span| line_at(text, span.start))
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, part) in self.0.iter().enumerate() {
            match part {
                KeyPart::Name(name) if i == 0 => write!(f, "{name}")?,
                KeyPart::Name(name) => write!(f, ".{name}")?,
                KeyPart::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// A configured field value: the shared check of `field.rs`; `required`: empty is refused.
fn check_field_value(key: Key, value: &str, required: bool) -> Option<(Key, String)> {
    if required && value.is_empty() {
        return Some((
            key,
            "an empty value; give a policy such as \"no-cache\"".into(),
        ));
    }
    check_value(value).err().map(|message| (key, message))
}

impl CompressionConfig {
    fn first_invalid(&self) -> Option<(Key, String)> {
        let key = |name| Key::new(&["compression", name]);
        if self.brotli_quality > 11 {
            return Some((
                key("brotli_quality"),
                format!("{} is not in 0..=11", self.brotli_quality),
            ));
        }
        if !(1..=19).contains(&self.zstd_level) {
            return Some((
                key("zstd_level"),
                format!("{} is not in 1..=19", self.zstd_level),
            ));
        }
        if self.zopfli_iterations == 0 {
            return Some((key("zopfli_iterations"), "must be at least 1".into()));
        }
        if self.min_savings_percent > 100 {
            return Some((
                key("min_savings_percent"),
                format!("{} is over 100", self.min_savings_percent),
            ));
        }
        None
    }
}

impl HeadersConfig {
    fn first_invalid(&self) -> Option<(Key, String)> {
        [
            ("referrer_policy", &self.referrer_policy),
            ("content_security_policy", &self.content_security_policy),
            ("strict_transport_security", &self.strict_transport_security),
            (
                "access_control_allow_origin",
                &self.access_control_allow_origin,
            ),
        ]
        .into_iter()
        .find_map(|(name, value)| check_field_value(Key::new(&["headers", name]), value, false))
    }
}

impl CacheConfig {
    fn first_invalid(&self) -> Option<(Key, String)> {
        let policies = [
            ("html", Some(&self.html)),
            ("fingerprinted", Some(&self.fingerprinted)),
            ("default", Some(&self.default)),
            ("cdn", self.cdn.as_ref()),
        ];
        let policy = policies
            .into_iter()
            .find_map(|(name, value)| check_field_value(Key::new(&["cache", name]), value?, true));
        policy.or_else(|| {
            self.rules.iter().enumerate().find_map(|(i, rule)| {
                let key = |name| {
                    Key(vec![
                        KeyPart::Name("cache"),
                        KeyPart::Name("rules"),
                        KeyPart::Index(i),
                        KeyPart::Name(name),
                    ])
                };
                if !rule.pattern.starts_with('/') {
                    return Some((
                        key("pattern"),
                        format!("{:?} must start with `/` (a URL path glob)", rule.pattern),
                    ));
                }
                check_field_value(key("cache_control"), &rule.cache_control, true)
            })
        })
    }
}

/// The first glob of `table.key` that is not a URL path glob.
fn first_invalid_glob(
    table: &'static str,
    key: &'static str,
    globs: &[String],
) -> Option<(Key, String)> {
    globs.iter().enumerate().find_map(|(i, glob)| {
        let stars = glob.bytes().filter(|&b| b == b'*').count();
        let problem = if !glob.starts_with('/') {
            "must start with `/` (a URL path glob)"
        } else if glob.len() > 2048 || stars > 32 {
            // The matcher's depth and work grow with both; no path is longer than 1,023 bytes.
            "is longer than 2,048 bytes or has more than 32 `*`"
        } else {
            return None;
        };
        let key = Key(vec![
            KeyPart::Name(table),
            KeyPart::Name(key),
            KeyPart::Index(i),
        ]);
        Some((key, format!("{} {problem}", crate::error::excerpt(glob))))
    })
}

impl LinksConfig {
    fn first_invalid(&self) -> Option<(Key, String)> {
        first_invalid_glob("links", "ignore", &self.ignore)
    }

    /// Whether a reference to `path` is not reported when it leads nowhere.
    pub(crate) fn ignores(&self, path: &str) -> bool {
        self.ignore
            .iter()
            .any(|glob| crate::glob::matches(glob, path))
    }
}

impl FingerprintConfig {
    fn first_invalid(&self) -> Option<(Key, String)> {
        first_invalid_glob("fingerprint", "exclude", &self.exclude)
    }

    /// Cache-Control of a request whose `v` names the current bytes: `cache.fingerprinted`,
    /// or empty (no such requests) with `mode = "off"`.
    pub(crate) fn fingerprinted_cache_control(&self, cache: &CacheConfig) -> String {
        match self.mode {
            FingerprintMode::Query => cache.fingerprinted.clone(),
            FingerprintMode::Off => String::new(),
        }
    }

    /// Whether the file at `path` gets a fingerprint: not with `mode = "off"`, not an excluded
    /// one, and never a page (HTML is what a navigation loads: its URL is the site's, and
    /// stays revalidated).
    pub(crate) fn covers(&self, path: &str) -> bool {
        self.mode == FingerprintMode::Query
            && !crate::mime::content_type(path).starts_with("text/html")
            && !self
                .exclude
                .iter()
                .any(|glob| crate::glob::matches(glob, path))
    }
}

impl SiteConfig {
    fn first_invalid(&self) -> Option<(Key, String)> {
        let fallback = self.spa_fallback.as_deref()?;
        (!fallback.starts_with('/')).then(|| {
            (
                Key::new(&["site", "spa_fallback"]),
                format!("{fallback:?} must be a URL path such as \"/index.html\""),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, Error> {
        Config::parse(text, Path::new("edgesite.toml"))
    }

    #[test]
    fn an_empty_file_is_the_defaults() {
        let config = parse("").unwrap();
        assert_eq!(config, Config::default());
        assert_eq!(config.site.dir, Path::new("public"));
        assert!(config.site.clean_urls);
        assert_eq!(config.site.spa_fallback, None);
    }

    #[test]
    fn every_key_is_read() {
        let config =
            parse("[site]\ndir = \"dist\"\nclean_urls = false\nspa_fallback = \"/app.html\"\n")
                .unwrap();
        assert_eq!(config.site.dir, Path::new("dist"));
        assert!(!config.site.clean_urls);
        assert_eq!(config.site.spa_fallback.as_deref(), Some("/app.html"));
    }

    #[test]
    fn an_unknown_key_is_an_error_naming_file_and_line() {
        let err = parse("[site]\ndir = \"dist\"\ncleanurls = true\n").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("edgesite.toml:3:"), "{text}");
        assert!(text.contains("cleanurls"), "{text}");
        let err = parse("[sites]\n").unwrap_err().to_string();
        assert!(
            err.starts_with("edgesite.toml:1:") && err.contains("sites"),
            "{err}"
        );
    }

    #[test]
    fn a_wrong_type_is_an_error_naming_file_and_line() {
        let err = parse("[site]\n\nclean_urls = \"yes\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("edgesite.toml:3:"), "{err}");
    }

    #[test]
    fn cache_and_headers_sections_are_read() {
        let config = parse(
            "[cache]\ndefault = \"public, max-age=60\"\ncdn = \"max-age=600\"\n\n[[cache.rules]]\npattern = \"/fonts/**\"\ncache_control = \"public, max-age=604800\"\n\n[headers]\nnosniff = false\nreferrer_policy = \"\"\naccess_control_allow_origin = \"*\"\n",
        )
        .unwrap();
        assert_eq!(config.cache.default, "public, max-age=60");
        assert_eq!(config.cache.html, "no-cache");
        assert_eq!(config.cache.cdn.as_deref(), Some("max-age=600"));
        assert_eq!(config.cache.rules[0].pattern, "/fonts/**");
        assert_eq!(
            config.headers.fields(),
            [("access-control-allow-origin", "*".to_string())]
        );
    }

    #[test]
    fn security_headers_default_to_nosniff_and_a_referrer_policy() {
        assert_eq!(
            Config::default().headers.fields(),
            [
                ("x-content-type-options", "nosniff".to_string()),
                (
                    "referrer-policy",
                    "strict-origin-when-cross-origin".to_string()
                )
            ]
        );
    }

    #[test]
    fn an_unknown_key_in_a_rule_is_an_error_naming_its_line() {
        let err = parse("[[cache.rules]]\npattern = \"/a\"\ncache-control = \"x\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("edgesite.toml:3:"), "{err}");
    }

    #[test]
    fn compression_and_budget_values_are_checked_naming_key_and_line() {
        let err = parse("[compression]\ncodings = [\"br\", \"lzma\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("edgesite.toml:2: compression.codings: unknown coding \"lzma\""),
            "{err}"
        );
        let err = parse("[compression]\n\nbrotli_quality = 12\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("edgesite.toml:3: compression.brotli_quality"),
            "{err}"
        );
        let config =
            parse("[compression]\ncodings = [\"br\"]\n[budget]\nmax_bundle_bytes = 1000\n")
                .unwrap();
        assert_eq!(config.compression.codings, [ContentCoding::Br]);
        assert_eq!(config.budget.max_bundle_bytes, 1000);
        assert_eq!(config.budget.max_file_bytes, 25 * 1024 * 1024);
    }

    /// Every configured value that reaches a response field is checked: each case fails the
    /// build naming the file, the line and the key (issue: a CSP with a line break built, then
    /// made every native response panic and every Worker response a 500).
    #[test]
    fn configured_field_values_are_checked_naming_line_and_key() {
        let cases = [
            ("[headers]\ncontent_security_policy = \"default-src 'self'\\nX-Injected: yes\"\n", 2, "headers.content_security_policy: the value contains '\\n'"),
            ("[headers]\n\nreferrer_policy = \"a\\r\\nb\"\n", 3, "headers.referrer_policy: the value contains '\\r'"),
            ("[headers]\naccess_control_allow_origin = \"caf\u{e9}\"\n", 2, "headers.access_control_allow_origin: the value contains"),
            ("[headers]\nstrict_transport_security = \" max-age=1\"\n", 2, "starts or ends with a space"),
            ("[headers]\nstrict_transport_security = \"a\\u0000\"\n", 2, "the value contains '\\0'"),
            ("[cache]\nhtml = \"\"\n", 2, "cache.html: an empty value"),
            ("[cache]\ndefault = \"max-age=60\\n\"\n", 2, "cache.default: the value contains"),
            ("[cache]\ncdn = \"x\\ty\\u0007\"\n", 2, "cache.cdn: the value contains '\\u{7}'"),
            ("[[cache.rules]]\npattern = \"/a/**\"\ncache_control = \"x\"\n\n[[cache.rules]]\npattern = \"/b\"\ncache_control = \"no\\nstore\"\n", 7, "cache.rules[1].cache_control: the value contains"),
            ("[[cache.rules]]\npattern = \"b/**\"\ncache_control = \"x\"\n", 2, "cache.rules[0].pattern: \"b/**\" must start with `/`"),
            ("[site]\nspa_fallback = \"index.html\"\n", 2, "site.spa_fallback"),
            ("[compression]\nzopfli_iterations = 0\n", 2, "compression.zopfli_iterations: must be at least 1"),
            ("[compression]\nmin_savings_percent = 101\n", 2, "compression.min_savings_percent"),
            ("[history]\nkeep = 0\n", 2, "history.keep: 0 is not in 1..=10"),
            ("[history]\n\nkeep = 11\n", 3, "history.keep: 11 is not in 1..=10"),
            ("[history]\ndir = \"\"\n", 2, "history.dir: an empty folder name"),
            ("[history]\nkept = 2\n", 2, "unknown field `kept`"),
            ("[compression]\ngzip_encoder = \"pigz\"\n", 2, "unknown variant `pigz`, expected `libdeflate` or `zopfli`"),
            ("[compression]\ncodings = [\"identity\"]\n", 2, "compression.codings: unknown coding \"identity\""),
            ("[compression]\ncodings = [\"br\", \"dcz\"]\n", 2, "compression.codings: unknown coding \"dcz\"; use br, zstd, gzip"),
        ];
        for (text, line, needle) in cases {
            let err = parse(text).expect_err(text).to_string();
            assert!(
                err.starts_with(&format!("edgesite.toml:{line}: ")) && err.contains(needle),
                "{text:?}: {err}"
            );
        }
        let long = format!(
            "[headers]\ncontent_security_policy = \"{}\"\n",
            "a".repeat(8193)
        );
        assert!(parse(&long)
            .unwrap_err()
            .to_string()
            .contains("over the limit of 8192"));
        // Tabs and spaces inside a value are fine; so is an empty [headers] value (off).
        parse("[headers]\ncontent_security_policy = \"a\\tb c\"\nreferrer_policy = \"\"\n")
            .unwrap();
    }

    #[test]
    fn pages_limits_are_off_unless_asked_for() {
        assert!(!Config::default().compat.pages_limits);
        assert!(
            parse("[compat]\npages_limits = true\n")
                .unwrap()
                .compat
                .pages_limits
        );
    }

    #[test]
    fn trailing_slash_is_always_or_never() {
        assert_eq!(
            parse("[site]\ntrailing_slash = \"never\"\n")
                .unwrap()
                .site
                .trailing_slash,
            TrailingSlash::Never
        );
        let err = parse("[site]\ntrailing_slash = \"sometimes\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("edgesite.toml:2:") && err.contains("sometimes"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_file_is_the_defaults() {
        assert_eq!(
            Config::load(Path::new("/no/such/edgesite.toml")).unwrap(),
            Config::default()
        );
    }
}
