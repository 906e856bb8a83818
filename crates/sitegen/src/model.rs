//! The types every stage of the build shares: what a compile is asked ([`Options`]), what it
//! makes of each file of the site (an [`Asset`] and its [`Representation`]s, named as
//! edgesite-core names them) and of the site ([`Manifest`]), and what each stage counted.
//!
//! The bottom of the pipeline: this module imports no stage, and every stage imports it
//! (`tests/module_graph.rs`).

use crate::cache::CacheReason;
use crate::config::{BudgetConfig, Config, Store};
use crate::etag;
use edgesite_core::{segment_key, ContentCoding, RedirectStatus};
use serde::{Serialize, Serializer};
use std::path::PathBuf;
use std::time::SystemTime;

/// How to compile a site: what `edgesite.toml` asks for, and what the caller knows besides.
#[derive(Debug, Clone)]
pub struct Options {
    /// The configuration (`edgesite.toml`, or the defaults).
    pub config: Config,
    /// The Last-Modified of every file (see [`last_modified`](crate::last_modified)).
    pub last_modified: SystemTime,
    /// Where encoded files are cached between builds (keyed by content and settings); `None`
    /// encodes everything every time.
    pub cache_dir: Option<PathBuf>,
    /// The deploy history to build RFC 9842 deltas from (`[history] dir`, resolved by the
    /// caller); `None`: no deltas.
    pub history_dir: Option<PathBuf>,
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
            cache_dir: None,
            history_dir: None,
        }
    }
}

/// The Worker's code without the site, counted in every bundle estimate: the wasm module and its
/// JS glue, rounded up (docs/benchmarks.md has their measured sizes).
pub const CODE_ESTIMATE_BYTES: u64 = 256 * 1024;

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

/// What one compile did, stage by stage.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BuildStats {
    /// Files compiled.
    pub files: usize,
    /// Encodings computed now, and taken from the cache.
    pub encodings: EncodeCounts,
    /// What the link pass found and did.
    pub links: LinkStats,
    /// The RFC 9842 deltas built from the deploy history.
    pub deltas: DeltaStats,
    /// What the image stage made.
    pub images: ImageStats,
    /// Wall time of the compile, in milliseconds.
    pub wall_time_ms: u64,
    /// Wall time of each stage, in milliseconds, in the order they ran.
    pub stages: Vec<(&'static str, u64)>,
}

/// How many encodings were computed, and how many came from the cache.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EncodeCounts {
    /// Encoded now.
    pub encoded: usize,
    /// Taken from the cache.
    pub cached: usize,
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
    /// Warnings of the stages after encoding (the link pass and `_redirects` keep their own).
    pub(crate) warnings: Vec<String>,
    /// Files the stages after encoding read (`_headers`), for `cargo:rerun-if-changed`.
    pub(crate) tracked: Vec<PathBuf>,
}

/// One file of the site: a resource and everything its responses carry, decided at build.
#[derive(Debug, Clone, Serialize)]
pub struct Asset {
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
    #[serde(rename = "headers")]
    pub fields: Vec<(String, String)>,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256 of the bytes served (identity), lower-case hex.
    pub sha256: String,
    /// Its first 10 hex digits, when references to this file get `?v=` (`[fingerprint]`): a
    /// request with `v` equal to it gets [`Manifest::fingerprinted_cache_control`]. Empty when
    /// the file is not fingerprinted.
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
    pub representations: Vec<Representation>,
    /// Deltas against earlier deploys' versions of this file (RFC 9842), from the deploy
    /// history; empty without one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deltas: Vec<Delta>,
    /// The file in other media types (an image's AVIF and WebP forms), sent to clients whose
    /// Accept names them; empty for most files.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Variant>,
    /// What the image stage did with this file, when it is an image it read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageReport>,
}

/// The file in another media type, made by the image stage (stored in the identity coding).
#[derive(Debug, Clone, Serialize)]
pub struct Variant {
    /// Its Content-Type: `image/avif`, `image/webp`.
    pub content_type: &'static str,
    /// Its bytes, size and ETag.
    pub representation: Representation,
    /// Its SSIMULACRA2 score against the original (lossy variants; `None`: lossless, checked
    /// pixel-identical).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
}

/// What the image stage did with one image: the report's rows.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ImageReport {
    /// The source file's size.
    pub original_bytes: u64,
    /// Width and height as shown (EXIF orientation applied).
    pub dimensions: (u32, u32),
    /// Why the image is served as it is, with no candidate tried (excluded, animated, too large,
    /// not decodable, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_as_is: Option<String>,
    /// Set with `left_as_is` when the build should warn of it: an image over the stage's bounds
    /// (`max_pixels`, `max_memory_mb`) or one that cannot be decoded, not one left as it is by
    /// design (animated, excluded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// Every encoding tried, kept or not.
    pub candidates: Vec<Candidate>,
}

/// One encoding the image stage tried.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Candidate {
    /// What it is: `png (oxipng)`, `webp lossless`, `avif q82`, `webp q85`.
    pub kind: String,
    /// Its bytes (0 when it could not be made).
    pub bytes: u64,
    /// Its SSIMULACRA2 score against the original (lossy only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Whether it is served.
    pub kept: bool,
    /// Why it was kept or dropped.
    pub why: String,
}

/// How the link pass changed a file (see [`Asset::rewritten`]).
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
    #[serde(rename = "variant")]
    pub representation: Representation,
}

fn serialize_hex<S: Serializer>(bytes: &[u8; 32], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&etag::hex(bytes))
}

/// One stored representation of a file (RFC 9110 §3.2).
#[derive(Debug, Clone, Serialize)]
pub struct Representation {
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

impl Representation {
    /// A representation of `size` bytes with this SHA-256; `bytes` are kept for encoded ones.
    pub(crate) fn new(
        coding: ContentCoding,
        digest: &[u8; 32],
        size: usize,
        bytes: Option<Vec<u8>>,
    ) -> Representation {
        Representation {
            coding,
            size: size as u64,
            sha256: etag::hex(digest),
            etag: etag::strong_etag(digest),
            bytes,
            decoded_from: None,
        }
    }

    /// The bytes this representation adds to the bundle (none when decoded on demand).
    pub fn stored_size(&self) -> u64 {
        if self.decoded_from.is_some() {
            0
        } else {
            self.size
        }
    }
}

impl Asset {
    /// The bytes served as identity when they are not the source file's (the link pass
    /// rewrote it).
    pub fn identity_bytes(&self) -> Option<&[u8]> {
        self.representations
            .iter()
            .find(|r| r.coding == ContentCoding::Identity)
            .and_then(|r| r.bytes.as_deref())
    }

    /// The bytes this asset adds to the bundle as it is now.
    pub fn stored_bytes(&self) -> u64 {
        let deltas = self.deltas.iter().map(|d| d.representation.size);
        self.representations
            .iter()
            .map(Representation::stored_size)
            .chain(deltas)
            .chain(self.variant_bytes())
            .sum()
    }

    /// The bytes of each variant (stored in every storage mode).
    fn variant_bytes(&self) -> impl Iterator<Item = u64> + '_ {
        self.variants.iter().map(|v| v.representation.size)
    }

    /// The bytes this asset would add in compact storage.
    pub fn compact_bytes(&self) -> u64 {
        match self.compact_source() {
            Some(_) => self
                .representations
                .iter()
                .filter(|r| kept_in_compact(r.coding))
                .map(|r| r.size)
                .chain(self.deltas.iter().map(|d| d.representation.size))
                .chain(self.variant_bytes())
                .sum(),
            None => self.stored_bytes(),
        }
    }

    /// The index of the representation compact storage decodes identity from: gzip; `None`
    /// when the asset has none, or when its identity is larger than half the runtimes' decoded
    /// cache ([`edgesite_core::DECODED_CACHE_BYTES`]), so that any two decoded files fit it at
    /// once and two alternating requests never decode each other out (then it keeps its
    /// identity).
    pub(crate) fn compact_source(&self) -> Option<usize> {
        if self.size > edgesite_core::DECODED_CACHE_BYTES as u64 / 2 {
            return None;
        }
        self.representations
            .iter()
            .position(|r| r.coding == ContentCoding::Gzip)
    }
}

/// The encodings compact storage keeps.
pub(crate) fn kept_in_compact(coding: ContentCoding) -> bool {
    matches!(coding, ContentCoding::Br | ContentCoding::Gzip)
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
    /// The asset at this index of [`Manifest::files`].
    #[serde(rename = "file")]
    Asset(usize),
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

/// A `_redirects` rule with placeholders or a splat, matched at run time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RedirectRule {
    /// The line of `_redirects` it comes from.
    pub line: usize,
    /// The source as written.
    pub source: String,
    /// The source's segments after its leading `/`, percent-decoded.
    pub pattern: Vec<PatternSegment>,
    /// Whether the source ends with `/*`.
    pub splat: bool,
    /// What a match does.
    pub action: RuleAction,
}

/// A segment of a rule's source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PatternSegment {
    /// Exactly this text.
    Literal(String),
    /// `:name`.
    Placeholder(String),
}

/// What a rule does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleAction {
    /// A redirect (301, 302, 303, 307, 308).
    Redirect {
        /// The status.
        #[serde(serialize_with = "serialize_status")]
        status: RedirectStatus,
        /// The destination, in parts.
        destination: Vec<DestinationPart>,
        /// The part before which the request's query goes, if the destination has no query.
        query_at: Option<usize>,
    },
    /// A 200 rewrite to a path of the site.
    Rewrite {
        /// The destination path, in parts (decoded).
        destination: Vec<DestinationPart>,
    },
}

/// A piece of a rule's destination.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DestinationPart {
    /// Text as it is.
    Literal(String),
    /// A capture (placeholders in source order, then the splat) in the path.
    Capture(usize),
    /// A capture in the query.
    QueryCapture(usize),
}

/// A node of the rules' trie over literal leading segments (see
/// [`edgesite_core::Site::rule_index`]); node 0 is the root.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RuleIndexNode {
    /// The next literal segment and its node, in core's order: by [`segment_key`], then segment.
    pub children: Vec<(String, u32)>,
    /// The rules (indexes, ascending) whose literal leading segments end at this node.
    pub rules: Vec<u32>,
}

impl RuleIndexNode {
    /// The keys of the children, in their order.
    pub fn keys(&self) -> Vec<u32> {
        self.children.iter().map(|(s, _)| segment_key(s)).collect()
    }
}

impl RedirectRule {
    /// The literal segments the source starts with.
    pub(crate) fn literal_prefix(&self) -> impl Iterator<Item = &str> {
        self.pattern.iter().map_while(|segment| match segment {
            PatternSegment::Literal(text) => Some(text.as_str()),
            PatternSegment::Placeholder(_) => None,
        })
    }

    /// Whether every path `later` matches is matched by this (earlier) rule.
    pub(crate) fn subsumes(&self, later: &RedirectRule) -> bool {
        for (i, segment) in later.pattern.iter().enumerate() {
            match self.pattern.get(i) {
                None => return self.splat,
                Some(PatternSegment::Literal(text)) => {
                    if !matches!(segment, PatternSegment::Literal(t) if t == text) {
                        return false;
                    }
                }
                Some(PatternSegment::Placeholder(_)) => {
                    if matches!(segment, PatternSegment::Literal(t) if t.is_empty()) {
                        return false;
                    }
                }
            }
        }
        self.pattern.len() <= later.pattern.len() && (!later.splat || self.splat)
    }
}
