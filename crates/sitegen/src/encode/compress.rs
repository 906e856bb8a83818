//! Precompression at build time: every file that benefits is stored as brotli, zstd and gzip,
//! each at its maximum practical setting, so a request only selects (RFC 9110 §8.4.1).
//!
//! Defaults (`[compression]` in edgesite.toml changes them):
//! - brotli: quality 11, window 2^24 (the largest a browser decodes);
//! - zstd: level 19, whose window stays within the 8 MiB browsers accept (RFC 9659 §3);
//! - gzip: libdeflate at level 12, smaller than `gzip -9` and near zopfli's size (smaller or
//!   larger by file) in a small part of its time (docs/benchmarks.md, "Build settings");
//!   `gzip_encoder = "zopfli"` for zopfli;
//! - a variant is kept only when it is at least 5% and 64 bytes smaller than identity;
//! - types that are already compressed (images, fonts, media, archives) are not tried.
//!
//! Encoding is the slow part of a build, so results are kept in a cache folder (under `target/`)
//! keyed by the SHA-256 of the input, the coding and its settings: a rebuild encodes only files
//! whose bytes changed. What the cache holds is decoded and compared with the input before it is
//! used (a damaged or edited cache file is encoded again): decoding costs a small part of
//! encoding at these settings.
//!
//! The encoders and decoders themselves are edgesite-codecs', compiled optimised in every
//! profile.

use crate::config::{CompressionConfig, GzipEncoder};
use crate::model::EncodeCounts;
use edgesite_core::ContentCoding;
use std::path::Path;

/// An encoded representation of a file.
#[derive(Debug, Clone)]
pub(crate) struct Encoded {
    pub(crate) coding: ContentCoding,
    pub(crate) bytes: Vec<u8>,
}

/// The encodings of `bytes` worth storing, in the order of [`ContentCoding::ALL`] (of those
/// configured).
pub(crate) fn precompress(
    file_name: &str,
    bytes: &[u8],
    sha256_hex: &str,
    config: &CompressionConfig,
    cache_dir: Option<&Path>,
    counts: &mut EncodeCounts,
) -> Vec<Encoded> {
    if !tries(file_name, bytes.len() as u64, config) {
        return Vec::new();
    }
    let codings: Vec<ContentCoding> = (ContentCoding::ALL.into_iter())
        .filter(|&c| c != ContentCoding::Identity && config.codings.contains(&c))
        .collect();
    let one = |coding| encoded(coding, bytes, sha256_hex, config, cache_dir);
    // A large file's codings on threads of their own: brotli 11 of the 4 MiB llms-full.txt
    // takes seconds, and encoded one coding after another at the end of a build it would run
    // alone while the other cores idle (the encode stage takes files largest first).
    let parallel = (PARALLEL_CODINGS_BYTES..=PARALLEL_CODINGS_MAX_BYTES).contains(&bytes.len());
    let results: Vec<Option<(Vec<u8>, bool)>> = if parallel {
        std::thread::scope(|scope| {
            let threads: Vec<_> = (codings.iter())
                .map(|&c| scope.spawn(move || one(c)))
                .collect();
            (threads.into_iter())
                .map(|thread| {
                    thread
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        })
    } else {
        codings.iter().map(|&c| one(c)).collect()
    };
    let mut out = Vec::new();
    for (coding, result) in codings.into_iter().zip(results) {
        let Some((encoded, cached)) = result else {
            continue;
        };
        match cached {
            true => counts.cached += 1,
            false => counts.encoded += 1,
        }
        if worth_keeping(bytes.len() as u64, encoded.len() as u64, config) {
            out.push(Encoded {
                coding,
                bytes: encoded,
            });
        }
    }
    out
}

/// The sizes at which a file's codings are encoded in parallel: from 1 MiB, up to 16 MiB (a
/// larger file's encoders at once would hold several times its size each, on every core).
const PARALLEL_CODINGS_BYTES: usize = 1 << 20;
const PARALLEL_CODINGS_MAX_BYTES: usize = 16 << 20;

/// `bytes` encoded with `coding` (not a dictionary coding), from the cache where it holds what
/// decodes to them (then `true`), else encoded and kept there; `None` for a coding with no
/// settings.
fn encoded(
    coding: ContentCoding,
    bytes: &[u8],
    sha256_hex: &str,
    config: &CompressionConfig,
    cache_dir: Option<&Path>,
) -> Option<(Vec<u8>, bool)> {
    // config.codings never holds a dictionary coding (config/compression.rs refuses them).
    let settings = settings_key(coding, config)?;
    let key = format!("{sha256_hex}.{settings}");
    let cached = cache_dir
        .and_then(|dir| std::fs::read(dir.join(&key)).ok())
        .filter(|encoded| edgesite_codecs::decodes_to(coding, encoded, bytes));
    if let Some(encoded) = cached {
        return Some((encoded, true));
    }
    let encoded = compress(coding, bytes, config)?;
    if let Some(dir) = cache_dir {
        // A failed cache write only costs a later re-encode.
        let _ = crate::atomic::write_atomically(dir, &key, &encoded);
    }
    Some((encoded, false))
}

/// The part of a cache key that names the coding and every setting that changes its output;
/// `None` for a dictionary coding (its output depends on the dictionary too).
fn settings_key(coding: ContentCoding, config: &CompressionConfig) -> Option<String> {
    Some(match coding {
        ContentCoding::Br => format!("br-q{}-w24", config.brotli_quality),
        ContentCoding::Zstd => format!("zstd-{}", config.zstd_level),
        ContentCoding::Gzip => match config.gzip_encoder {
            GzipEncoder::Libdeflate => "gzip-libdeflate-12".into(),
            GzipEncoder::Zopfli => format!("gzip-zopfli-i{}", config.zopfli_iterations),
        },
        ContentCoding::Identity => "identity".into(),
        ContentCoding::Dcb | ContentCoding::Dcz => return None,
    })
}

/// `bytes` compressed with `coding` at the configured settings (identity: a copy); `None` for a
/// dictionary coding (RFC 9842), which needs a dictionary: see [`crate::delta`].
pub fn compress(
    coding: ContentCoding,
    bytes: &[u8],
    config: &CompressionConfig,
) -> Option<Vec<u8>> {
    Some(match coding {
        ContentCoding::Br => edgesite_codecs::brotli(bytes, config.brotli_quality),
        ContentCoding::Zstd => edgesite_codecs::zstd(bytes, config.zstd_level),
        ContentCoding::Gzip => match config.gzip_encoder {
            GzipEncoder::Libdeflate => edgesite_codecs::gzip_libdeflate(bytes),
            GzipEncoder::Zopfli => edgesite_codecs::gzip_zopfli(bytes, config.zopfli_iterations),
        },
        ContentCoding::Identity => bytes.to_vec(),
        ContentCoding::Dcb | ContentCoding::Dcz => return None,
    })
}

/// Whether a file of this name and size is tried at all: not an already-compressed type, large
/// enough that an encoding could save `min_savings_bytes`, and not larger than
/// `max_input_bytes`.
pub(crate) fn tries(file_name: &str, size: u64, config: &CompressionConfig) -> bool {
    !is_already_compressed(file_name)
        && size >= config.min_savings_bytes.max(1)
        && size <= config.max_input_bytes
}

/// At least `min_savings_percent`% and `min_savings_bytes` bytes smaller than identity.
fn worth_keeping(identity: u64, encoded: u64, config: &CompressionConfig) -> bool {
    encoded + config.min_savings_bytes <= identity
        && encoded * 100 <= identity * (100 - config.min_savings_percent)
}

fn is_already_compressed(file_name: &str) -> bool {
    let ext = file_name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    matches!(
        ext.as_str(),
        "png"
            | "jpg"
            | "jpeg"
            | "gif"
            | "webp"
            | "avif"
            | "heic"
            | "ico"
            | "woff"
            | "woff2"
            | "mp4"
            | "m4v"
            | "webm"
            | "ogv"
            | "mp3"
            | "ogg"
            | "oga"
            | "m4a"
            | "flac"
            | "zip"
            | "gz"
            | "br"
            | "zst"
            | "xz"
            | "bz2"
            | "7z"
            | "rar"
            | "pdf"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn text() -> Vec<u8> {
        "edgesite compresses repetitive text very well. "
            .repeat(100)
            .into_bytes()
    }

    /// Default settings, no cache.
    fn precompress(name: &str, bytes: &[u8]) -> Vec<Encoded> {
        let sha = crate::hash::hex(&crate::hash::sha256(bytes));
        let config = CompressionConfig::default();
        super::precompress(
            name,
            bytes,
            &sha,
            &config,
            None,
            &mut EncodeCounts::default(),
        )
    }

    #[test]
    fn every_encoding_round_trips() {
        let input = text();
        let encoded = precompress("page.html", &input);
        assert_eq!(
            encoded.iter().map(|e| e.coding).collect::<Vec<_>>(),
            [ContentCoding::Br, ContentCoding::Zstd, ContentCoding::Gzip]
        );
        for e in &encoded {
            let decoded = match e.coding {
                ContentCoding::Br => {
                    let mut out = Vec::new();
                    brotli::BrotliDecompress(&mut &e.bytes[..], &mut out).unwrap();
                    out
                }
                ContentCoding::Zstd => zstd::decode_all(&e.bytes[..]).unwrap(),
                ContentCoding::Gzip => {
                    let mut out = Vec::new();
                    flate2::read::GzDecoder::new(&e.bytes[..])
                        .read_to_end(&mut out)
                        .unwrap();
                    out
                }
                ContentCoding::Identity | ContentCoding::Dcb | ContentCoding::Dcz => unreachable!(),
            };
            assert_eq!(decoded, input, "{:?}", e.coding);
            assert!(
                e.bytes.len() < input.len() / 10,
                "{:?}: {}",
                e.coding,
                e.bytes.len()
            );
        }
    }

    #[test]
    fn compressed_types_and_tiny_or_incompressible_files_are_not_encoded() {
        assert!(precompress("photo.JPG", &text()).is_empty());
        assert!(precompress("font.woff2", &text()).is_empty());
        assert!(precompress("tiny.txt", b"hello").is_empty());
        // xorshift64: bytes no coder can shrink by 5%.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 56) as u8
            })
            .collect();
        assert!(precompress("noise.bin", &noise).is_empty());
    }

    #[test]
    fn the_threshold_is_5_percent_and_64_bytes() {
        let c = CompressionConfig::default();
        assert!(worth_keeping(1000, 936, &c));
        assert!(!worth_keeping(1000, 951, &c));
        assert!(!worth_keeping(100, 40, &c));
        assert!(worth_keeping(200, 136, &c));
    }

    #[test]
    fn the_cache_returns_what_was_encoded_and_is_keyed_by_settings() {
        let dir = tempfile::tempdir().unwrap();
        let input = text();
        let sha = crate::hash::hex(&crate::hash::sha256(&input));
        let config = CompressionConfig::default();
        let mut first = EncodeCounts::default();
        let a = super::precompress("a.txt", &input, &sha, &config, Some(dir.path()), &mut first);
        let mut second = EncodeCounts::default();
        let b = super::precompress(
            "a.txt",
            &input,
            &sha,
            &config,
            Some(dir.path()),
            &mut second,
        );
        assert_eq!(
            (first, second),
            (
                EncodeCounts {
                    encoded: 3,
                    cached: 0
                },
                EncodeCounts {
                    encoded: 0,
                    cached: 3
                }
            )
        );
        assert!(a.iter().zip(&b).all(|(x, y)| x.bytes == y.bytes));
        let lighter = CompressionConfig {
            brotli_quality: 5,
            codings: vec![ContentCoding::Br],
            ..config
        };
        let mut third = EncodeCounts::default();
        super::precompress(
            "a.txt",
            &input,
            &sha,
            &lighter,
            Some(dir.path()),
            &mut third,
        );
        assert_eq!(
            third,
            EncodeCounts {
                encoded: 1,
                cached: 0
            },
            "another quality is another key"
        );
    }

    #[test]
    fn both_gzip_encoders_write_standard_gzip_and_are_cached_apart() {
        // RFC 9110 §8.4.1.3: gzip is the format of RFC 1952, whichever encoder wrote it.
        let dir = tempfile::tempdir().unwrap();
        let input = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../public/index.html"
        ))
        .unwrap();
        let sha = crate::hash::hex(&crate::hash::sha256(&input));
        let mut sizes = Vec::new();
        for gzip_encoder in [GzipEncoder::Libdeflate, GzipEncoder::Zopfli] {
            let config = CompressionConfig {
                codings: vec![ContentCoding::Gzip],
                gzip_encoder,
                zopfli_iterations: 2,
                ..CompressionConfig::default()
            };
            let mut counts = EncodeCounts::default();
            let encoded = super::precompress(
                "index.html",
                &input,
                &sha,
                &config,
                Some(dir.path()),
                &mut counts,
            );
            assert_eq!(
                counts.encoded, 1,
                "{gzip_encoder:?}: not taken from the other's cache"
            );
            let mut decoded = Vec::new();
            flate2::read::GzDecoder::new(&encoded[0].bytes[..])
                .read_to_end(&mut decoded)
                .unwrap();
            assert_eq!(decoded, input, "{gzip_encoder:?}");
            sizes.push(encoded[0].bytes.len());
        }
        // Within 2% of each other on a real page (either may be smaller).
        let (a, b) = (sizes[0] as f64, sizes[1] as f64);
        assert!((a - b).abs() / b < 0.02, "libdeflate {a} zopfli {b}");
    }
}
