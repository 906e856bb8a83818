//! # edgesite-codecs
//!
//! The content codings edgesite-sitegen's build writes (RFC 9110 §8.4.1), as plain functions
//! over bytes: brotli, zstd and gzip (libdeflate or zopfli) at the settings the build chooses,
//! the check that an encoding decodes to its file (read back from the build's cache), and RFC
//! 9842's dictionary-compressed deltas ([`delta`]).
//!
//! A crate of its own so that it is compiled optimised in every profile (the workspace's
//! `Cargo.toml`), build.rs's included: brotli's encoder and decoder are generic (over their
//! allocator and streams), so their code is instantiated in the crate that calls them, and at
//! the opt-level 0 of a build script brotli 11 took 2.4 times as long (docs/benchmarks.md,
//! "Many files").

pub mod delta;

use edgesite_core::ContentCoding;
use std::io::Read;

/// `bytes` compressed by brotli at `quality` (0..=11) with a window of 2^24, the largest a
/// browser decodes.
pub fn brotli(bytes: &[u8], quality: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: quality as i32,
        lgwin: 24,
        size_hint: bytes.len(),
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &bytes[..], &mut out, &params)
        .expect("brotli into a Vec cannot fail");
    out
}

/// `bytes` compressed by zstd at `level`.
pub fn zstd(bytes: &[u8], level: i32) -> Vec<u8> {
    zstd::bulk::compress(bytes, level).expect("zstd into a Vec cannot fail")
}

/// `bytes` as gzip (RFC 1952) by libdeflate at `level` (1..=12; 12, its highest, is the
/// build's; out of range: 12).
pub fn gzip_libdeflate(bytes: &[u8], level: i32) -> Vec<u8> {
    let level = libdeflater::CompressionLvl::new(level)
        .unwrap_or_else(|_| libdeflater::CompressionLvl::best());
    let mut compressor = libdeflater::Compressor::new(level);
    let mut out = vec![0; compressor.gzip_compress_bound(bytes.len())];
    let len = compressor
        .gzip_compress(bytes, &mut out)
        .expect("libdeflate's bound is enough room");
    out.truncate(len);
    out
}

/// `bytes` as gzip (RFC 1952) by zopfli with `iterations` (at least 1).
pub fn gzip_zopfli(bytes: &[u8], iterations: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let options = zopfli::Options {
        iteration_count: std::num::NonZeroU64::new(iterations).unwrap_or(std::num::NonZeroU64::MIN),
        ..zopfli::Options::default()
    };
    zopfli::compress(options, zopfli::Format::Gzip, bytes, &mut out)
        .expect("zopfli into a Vec cannot fail");
    out
}

/// Whether `encoded` (in `coding`: br, zstd or gzip) decodes to `identity`, reading no more
/// than it; false for any other coding.
pub fn decodes_to(coding: ContentCoding, encoded: &[u8], identity: &[u8]) -> bool {
    let mut out = Vec::with_capacity(identity.len());
    let limit = identity.len() as u64 + 1;
    let decoded = match coding {
        ContentCoding::Br => brotli::Decompressor::new(encoded, 4096)
            .take(limit)
            .read_to_end(&mut out)
            .is_ok(),
        ContentCoding::Zstd => zstd::stream::read::Decoder::new(encoded)
            .and_then(|decoder| decoder.take(limit).read_to_end(&mut out))
            .is_ok(),
        ContentCoding::Gzip => {
            out.resize(identity.len(), 0);
            let mut decompressor = libdeflater::Decompressor::new();
            let read = decompressor.gzip_decompress(encoded, &mut out);
            read.is_ok_and(|n| n == identity.len())
        }
        _ => false,
    };
    decoded && out == identity
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text() -> Vec<u8> {
        "edgesite compresses repetitive text very well. "
            .repeat(100)
            .into_bytes()
    }

    #[test]
    fn every_encoder_decodes_to_its_input_and_nothing_else() {
        let input = text();
        let encoded = [
            (ContentCoding::Br, brotli(&input, 11)),
            (ContentCoding::Zstd, zstd(&input, 19)),
            (ContentCoding::Gzip, gzip_libdeflate(&input, 12)),
            (ContentCoding::Gzip, gzip_zopfli(&input, 2)),
        ];
        for (coding, bytes) in &encoded {
            assert!(
                bytes.len() * 10 < input.len(),
                "{coding:?}: {}",
                bytes.len()
            );
            assert!(decodes_to(*coding, bytes, &input), "{coding:?}");
            // Other bytes, a truncated stream, or the wrong coding: not the input.
            assert!(!decodes_to(*coding, bytes, &input[1..]), "{coding:?}");
            assert!(
                !decodes_to(*coding, &bytes[..bytes.len() / 2], &input),
                "{coding:?}"
            );
            assert!(!decodes_to(ContentCoding::Identity, bytes, &input));
        }
        assert!(!decodes_to(ContentCoding::Br, &encoded[1].1, &input));
    }
}
