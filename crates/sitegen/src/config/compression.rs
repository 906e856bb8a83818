//! `[compression]`: which encodings are stored, how hard each is tried, and the storage.

use super::key::Key;
use edgesite_core::ContentCoding;
use serde::{Deserialize, Deserializer, Serializer};

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
    /// Files larger than this are stored in identity alone, never compressed (default 64 MiB):
    /// the encoders hold a file whole and run at about a megabyte a second at these levels, and
    /// the files that large on a website are archives, media and datasets.
    #[serde(default = "default_max_input_bytes")]
    pub max_input_bytes: u64,
    /// Which representations are stored (default `auto`).
    #[serde(default)]
    pub store: Store,
}

/// `compression.gzip_encoder`: what produces the gzip representation (RFC 9110 §8.4.1.3). Both
/// write standard gzip; they differ in time and, a little either way, in size
/// (docs/benchmarks.md, "Build settings").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum GzipEncoder {
    /// libdeflate at level 12 (its slowest, near-optimal parsing): fast enough that an edited
    /// page is re-encoded within an edit-rebuild (docs/benchmarks.md, `make bench`).
    #[default]
    Libdeflate,
    /// zopfli with `zopfli_iterations`: far slower than libdeflate and, on text, near its
    /// size, smaller or larger by file (docs/benchmarks.md, "Build settings").
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
            max_input_bytes: default_max_input_bytes(),
            store: Store::default(),
        }
    }
}

fn default_max_input_bytes() -> u64 {
    64 * 1024 * 1024
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

impl CompressionConfig {
    pub(super) fn first_invalid(&self) -> Option<(Key, String)> {
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
