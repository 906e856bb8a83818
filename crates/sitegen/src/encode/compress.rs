//! Precompression at build time: every file that benefits is stored as brotli, zstd and gzip,
//! each at its maximum practical setting, so a request only selects (RFC 9110 §8.4.1). Under
//! `make dev` (`Effort::Quick`), what the cache does not hold at those settings is made at
//! quick ones ([`Levels`]).
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
//! whose bytes changed. An entry is checked before it is used, not trusted: it is sealed as the
//! stages' cache entries are (`stage_cache::sealed`: the SHA-256 of its key and its encoding,
//! made when the encoding was), and one that does not match it (damaged, edited, or copied under
//! another key) is encoded again. An entry from before the seals is decoded and compared with
//! the input, once: then kept sealed. (Decoding
//! every entry was most of a rebuild's encode stage: brotli builds its Huffman tables for each
//! small file; docs/benchmarks.md, "The rebuild, taken apart".)
//!
//! The encoders and decoders themselves are edgesite-codecs', compiled optimised in every
//! profile.

use crate::config::{CompressionConfig, GzipEncoder};
use crate::model::{Effort, EncodeCounts};
use crate::stage_cache;
use edgesite_core::ContentCoding;
use std::path::Path;

/// An encoded representation of a file.
#[derive(Debug, Clone)]
pub(crate) struct Encoded {
    pub(crate) coding: ContentCoding,
    pub(crate) bytes: Vec<u8>,
}

/// The encodings of `bytes` worth storing, in the order of [`ContentCoding::ALL`] (of those
/// configured), made with `effort` where the cache does not hold them.
pub(crate) fn precompress(
    file_name: &str,
    bytes: &[u8],
    sha256_hex: &str,
    config: &CompressionConfig,
    (cache_dir, effort): (Option<&Path>, Effort),
    counts: &mut EncodeCounts,
) -> Vec<Encoded> {
    if !tries(file_name, bytes.len() as u64, config) {
        return Vec::new();
    }
    let codings: Vec<ContentCoding> = (ContentCoding::ALL.into_iter())
        .filter(|&c| c != ContentCoding::Identity && config.codings.contains(&c))
        .collect();
    let one = |coding| encoded(coding, bytes, sha256_hex, config, (cache_dir, effort));
    // A large file's codings on threads of their own: brotli 11 of the 4 MiB llms-full.txt
    // takes seconds, and encoded one coding after another at the end of a build it would run
    // alone while the other cores idle (the encode stage takes files largest first).
    let parallel = (PARALLEL_CODINGS_BYTES..=PARALLEL_CODINGS_MAX_BYTES).contains(&bytes.len());
    let results: Vec<Option<(Vec<u8>, Made)>> = if parallel {
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
        let Some((encoded, made)) = result else {
            continue;
        };
        match made.cached {
            true => counts.cached += 1,
            false => counts.encoded += 1,
        }
        counts.quick += usize::from(made.quick);
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

/// How an encoding was had: from the cache or made now, and at quick settings or not.
#[derive(Debug, Clone, Copy)]
struct Made {
    cached: bool,
    quick: bool,
}

/// `bytes` encoded with `coding` (not a dictionary coding), from the cache where it holds what
/// decodes to them at the configured settings; else, with [`Effort::Quick`], at quick settings
/// (from the cache, or made); else made at the configured settings. What is made is kept in
/// the cache. `None` for a coding with no settings.
fn encoded(
    coding: ContentCoding,
    bytes: &[u8],
    sha256_hex: &str,
    config: &CompressionConfig,
    (cache_dir, effort): (Option<&Path>, Effort),
) -> Option<(Vec<u8>, Made)> {
    // config.codings never holds a dictionary coding (config/compression.rs refuses them).
    let configured = Levels::configured(config);
    let mut tried = vec![(configured, configured.key(coding)?)];
    let quick = Levels::quick(config);
    // Quick only where it names other settings for this coding (a configured brotli 4 is
    // already quick).
    if effort == Effort::Quick && quick.key(coding)? != tried[0].1 {
        tried.push((quick, quick.key(coding)?));
    }
    for (i, (_, settings)) in tried.iter().enumerate() {
        let key = format!("{sha256_hex}.{settings}");
        let cached = cache_dir.and_then(|dir| cached(dir, &key, coding, bytes));
        if let Some(encoded) = cached {
            return Some((
                encoded,
                Made {
                    cached: true,
                    quick: i > 0,
                },
            ));
        }
    }
    let (levels, settings) = tried.last()?;
    let encoded = levels.compress(coding, bytes)?;
    if let Some(dir) = cache_dir {
        keep(dir, &format!("{sha256_hex}.{settings}"), &encoded);
    }
    let quick = tried.len() > 1;
    Some((
        encoded,
        Made {
            cached: false,
            quick,
        },
    ))
}

/// The encoding of `bytes` with `coding` the cache holds under `key`, if whole: sealed under
/// `key` ([`stage_cache::sealed`]), or (an entry from before the seals) it decodes to `bytes`,
/// and is kept again, sealed.
fn cached(dir: &Path, key: &str, coding: ContentCoding, bytes: &[u8]) -> Option<Vec<u8>> {
    let entry = std::fs::read(dir.join(key)).ok()?;
    let entry = match stage_cache::unsealed(key, entry) {
        Ok(encoded) => return Some(encoded),
        Err(entry) => entry,
    };
    if !edgesite_codecs::decodes_to(coding, &entry, bytes) {
        return None;
    }
    keep(dir, key, &entry);
    Some(entry)
}

/// Keeps `encoded` under `key`, sealed. A failed write only costs a later re-encode.
fn keep(dir: &Path, key: &str, encoded: &[u8]) {
    let _ = crate::atomic::write_checked(dir, key, &stage_cache::sealed(key, encoded));
}

/// The settings the encoders run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Levels {
    brotli: u32,
    zstd: i32,
    gzip: Gzip,
}

/// The gzip encoder and its setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gzip {
    /// libdeflate at this level (1..=12).
    Libdeflate(i32),
    /// zopfli with this many iterations.
    Zopfli(u64),
}

impl Levels {
    /// `[compression]`'s.
    pub(crate) fn configured(config: &CompressionConfig) -> Levels {
        Levels {
            brotli: config.brotli_quality,
            zstd: config.zstd_level,
            gzip: match config.gzip_encoder {
                GzipEncoder::Libdeflate => Gzip::Libdeflate(12),
                GzipEncoder::Zopfli => Gzip::Zopfli(config.zopfli_iterations),
            },
        }
    }

    /// [`Effort::Quick`]'s: brotli 5, zstd 3 and libdeflate 6, or the configured brotli and
    /// zstd where lower: each many times faster than the configured defaults on a large file
    /// (docs/benchmarks.md, "The dev loop", has the times).
    fn quick(config: &CompressionConfig) -> Levels {
        Levels {
            brotli: config.brotli_quality.min(5),
            zstd: config.zstd_level.min(3),
            gzip: Gzip::Libdeflate(6),
        }
    }

    /// The part of a cache key that names the coding and every setting that changes its
    /// output; `None` for a dictionary coding (its output depends on the dictionary too).
    fn key(&self, coding: ContentCoding) -> Option<String> {
        Some(match coding {
            ContentCoding::Br => format!("br-q{}-w24", self.brotli),
            ContentCoding::Zstd => format!("zstd-{}", self.zstd),
            ContentCoding::Gzip => match self.gzip {
                Gzip::Libdeflate(level) => format!("gzip-libdeflate-{level}"),
                Gzip::Zopfli(iterations) => format!("gzip-zopfli-i{iterations}"),
            },
            ContentCoding::Identity => "identity".into(),
            ContentCoding::Dcb | ContentCoding::Dcz => return None,
        })
    }

    /// `bytes` compressed with `coding` at these settings (identity: a copy); `None` for a
    /// dictionary coding.
    fn compress(&self, coding: ContentCoding, bytes: &[u8]) -> Option<Vec<u8>> {
        Some(match coding {
            ContentCoding::Br => edgesite_codecs::brotli(bytes, self.brotli),
            ContentCoding::Zstd => edgesite_codecs::zstd(bytes, self.zstd),
            ContentCoding::Gzip => match self.gzip {
                Gzip::Libdeflate(level) => edgesite_codecs::gzip_libdeflate(bytes, level),
                Gzip::Zopfli(iterations) => edgesite_codecs::gzip_zopfli(bytes, iterations),
            },
            ContentCoding::Identity => bytes.to_vec(),
            ContentCoding::Dcb | ContentCoding::Dcz => return None,
        })
    }
}

/// `bytes` compressed with `coding` at the configured settings (identity: a copy); `None` for a
/// dictionary coding (RFC 9842), which needs a dictionary: see [`crate::delta`].
pub fn compress(
    coding: ContentCoding,
    bytes: &[u8],
    config: &CompressionConfig,
) -> Option<Vec<u8>> {
    Levels::configured(config).compress(coding, bytes)
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
            (None, Effort::Configured),
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
        let cache = (Some(dir.path()), Effort::Configured);
        let mut first = EncodeCounts::default();
        let a = super::precompress("a.txt", &input, &sha, &config, cache, &mut first);
        let mut second = EncodeCounts::default();
        let b = super::precompress("a.txt", &input, &sha, &config, cache, &mut second);
        assert_eq!(
            (first, second),
            (
                EncodeCounts {
                    encoded: 3,
                    ..EncodeCounts::default()
                },
                EncodeCounts {
                    cached: 3,
                    ..EncodeCounts::default()
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
        super::precompress("a.txt", &input, &sha, &lighter, cache, &mut third);
        assert_eq!(
            third,
            EncodeCounts {
                encoded: 1,
                ..EncodeCounts::default()
            },
            "another quality is another key"
        );
    }

    #[test]
    fn an_entry_is_checked_by_its_digest_and_one_from_before_the_digests_by_decoding_it() {
        let dir = tempfile::tempdir().unwrap();
        let input = text();
        let sha = crate::hash::hex(&crate::hash::sha256(&input));
        let config = CompressionConfig {
            codings: vec![ContentCoding::Br],
            ..CompressionConfig::default()
        };
        let cache = (Some(dir.path()), Effort::Configured);
        let run = || {
            let mut counts = EncodeCounts::default();
            let made = super::precompress("a.txt", &input, &sha, &config, cache, &mut counts);
            (made[0].bytes.clone(), (counts.encoded, counts.cached))
        };
        let (encoding, counts) = run();
        assert_eq!(counts, (1, 0));
        let entry = dir.path().join(format!("{sha}.br-q11-w24"));
        let kept = std::fs::read(&entry).unwrap();
        assert_eq!(kept[..16], *stage_cache::SEAL);
        assert_eq!(
            kept[16..48],
            stage_cache::digest(&format!("{sha}.br-q11-w24"), &encoding)
        );
        assert_eq!(kept[48..], encoding);
        assert_eq!(run(), (encoding.clone(), (0, 1)));
        // Damaged: its digest does not match, and it is made again.
        let mut damaged = kept.clone();
        *damaged.last_mut().unwrap() ^= 0x55;
        std::fs::write(&entry, &damaged).unwrap();
        assert_eq!(run(), (encoding.clone(), (1, 0)));
        assert_eq!(std::fs::read(&entry).unwrap(), kept);
        // From before the digests: the encoding alone, used once it decodes to the file, and
        // kept with its digest.
        std::fs::write(&entry, &encoding).unwrap();
        assert_eq!(run(), (encoding.clone(), (0, 1)));
        assert_eq!(std::fs::read(&entry).unwrap(), kept);
        // Another input's entry, whole, copied under this key: not used.
        let other = b"another file, with another key".repeat(20);
        let other_key = format!(
            "{}.br-q11-w24",
            crate::hash::hex(&crate::hash::sha256(&other))
        );
        keep(dir.path(), &other_key, &edgesite_codecs::brotli(&other, 11));
        std::fs::copy(dir.path().join(&other_key), &entry).unwrap();
        assert_eq!(run(), (encoding.clone(), (1, 0)));
        assert_eq!(std::fs::read(&entry).unwrap(), kept);
        // One from before the digests that decodes to other bytes is not used.
        std::fs::write(&entry, edgesite_codecs::brotli(b"other bytes entirely", 11)).unwrap();
        assert_eq!(run(), (encoding, (1, 0)));
        assert_eq!(std::fs::read(&entry).unwrap(), kept);
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
                (Some(dir.path()), Effort::Configured),
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

    /// `make dev`'s quick effort: what the cache holds at the configured settings is used; what
    /// it does not is made at quick settings (and kept under their own key), never at the
    /// configured ones, and it round-trips.
    #[test]
    fn quick_effort_takes_the_configured_from_the_cache_and_makes_the_rest_quickly() {
        let dir = tempfile::tempdir().unwrap();
        let config = CompressionConfig::default();
        let quick = (Some(dir.path()), Effort::Quick);
        let configured = (Some(dir.path()), Effort::Configured);
        let page = text();
        let other = "another page, which the cache does not hold yet. ".repeat(100);
        let other = other.as_bytes();
        let sha = |bytes: &[u8]| crate::hash::hex(&crate::hash::sha256(bytes));
        let counted = |encoded: usize, cached: usize, quick: usize| EncodeCounts {
            encoded,
            cached,
            quick,
        };
        let mut counts = EncodeCounts::default();
        let best = super::precompress(
            "a.txt",
            &page,
            &sha(&page),
            &config,
            configured,
            &mut counts,
        );
        let mut counts = EncodeCounts::default();
        let again = super::precompress("a.txt", &page, &sha(&page), &config, quick, &mut counts);
        let bytes = |encoded: &[Encoded]| -> Vec<Vec<u8>> {
            encoded.iter().map(|e| e.bytes.clone()).collect()
        };
        assert_eq!(best.len(), 3);
        assert_eq!(bytes(&best), bytes(&again));
        assert_eq!(
            counts,
            counted(0, 3, 0),
            "the configured encodings, from the cache"
        );

        let mut counts = EncodeCounts::default();
        let made = super::precompress("b.txt", other, &sha(other), &config, quick, &mut counts);
        assert_eq!(counts, counted(3, 0, 3));
        let levels = Levels::quick(&config);
        assert_eq!((levels.brotli, levels.zstd), (5, 3));
        for encoded in &made {
            let expected = levels.compress(encoded.coding, other);
            assert_eq!(Some(&encoded.bytes), expected.as_ref());
            assert!(edgesite_codecs::decodes_to(
                encoded.coding,
                &encoded.bytes,
                other
            ));
            let key = format!("{}.{}", sha(other), levels.key(encoded.coding).unwrap());
            assert!(dir.path().join(key).is_file(), "kept under the quick key");
        }
        let mut counts = EncodeCounts::default();
        super::precompress("b.txt", other, &sha(other), &config, quick, &mut counts);
        assert_eq!(
            counts,
            counted(0, 3, 3),
            "the quick encodings, from the cache"
        );
        // A deploy build makes them at the configured settings.
        let mut counts = EncodeCounts::default();
        super::precompress(
            "b.txt",
            other,
            &sha(other),
            &config,
            configured,
            &mut counts,
        );
        assert_eq!(counts, counted(3, 0, 0));
        // Configured at or below the quick settings, brotli and zstd are made as configured:
        // not counted as quick (libdeflate 12 still is).
        let low = CompressionConfig {
            brotli_quality: 4,
            zstd_level: 2,
            ..CompressionConfig::default()
        };
        let third = "a third page. ".repeat(300);
        let third = third.as_bytes();
        let mut counts = EncodeCounts::default();
        super::precompress("c.txt", third, &sha(third), &low, quick, &mut counts);
        assert_eq!(counts, counted(3, 0, 1));
    }
}
