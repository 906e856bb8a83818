//! The RFC 9842 content codings (sitegen's `examples/dictbench.rs` measures them):
//! dictionary-compressed deltas (§5), a file's new bytes compressed with bytes the client
//! already holds (an earlier version of the same URL) as the dictionary. The client names its
//! dictionary by SHA-256 in `Available-Dictionary`; the stream repeats that hash in its header,
//! so a client never decodes against the wrong dictionary.
//!
//! - `dcz` (§5.2): the 8 magic bytes `5E 2A 4D 18 20 00 00 00`, the 32-byte SHA-256 of the
//!   dictionary, then a zstd frame compressed with the dictionary as raw content (a prefix).
//! - `dcb` (§5.1): the 4 magic bytes `FF 44 43 42`, the SHA-256, then a brotli stream compressed
//!   with the dictionary as a raw (prefix) dictionary.
//!
//! Both are built at build time at maximum settings; a request only selects one.

use edgesite_core::ContentCoding;
use sha2::{Digest, Sha256};

/// RFC 9842 §5.2: the header of a `dcz` stream (a zstd skippable frame's magic and length 32).
pub const DCZ_MAGIC: [u8; 8] = [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00];
/// RFC 9842 §5.1: the header of a `dcb` stream.
pub const DCB_MAGIC: [u8; 4] = [0xff, 0x44, 0x43, 0x42];

/// The largest dictionary plus content a delta is built for: zstd's window must reach back over
/// the whole dictionary, and RFC 9842 §5.2 lets clients refuse windows past 8 MiB (or 1.25 times
/// the dictionary); brotli's window (§5.1) is 16 MiB. Larger files get no delta.
pub const MAX_DELTA_INPUT: usize = 8 << 20;

/// Why no delta was built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoDelta {
    /// Dictionary and content together exceed [`MAX_DELTA_INPUT`].
    TooLarge,
    /// The encoder reported an error (the file is then served without that delta).
    Encoder,
}

/// `dcz`: `bytes` compressed by zstd at `level` with `dictionary` as raw content (RFC 9842 §5.2).
pub fn dcz(bytes: &[u8], dictionary: &[u8], level: i32) -> Result<Vec<u8>, NoDelta> {
    use zstd::zstd_safe::{CCtx, CParameter};
    let total = dictionary.len() + bytes.len();
    if total > MAX_DELTA_INPUT {
        return Err(NoDelta::TooLarge);
    }
    let mut cctx = CCtx::create();
    let window_log = usize::BITS - total.max(1 << 10).next_power_of_two().leading_zeros() - 1;
    let configured = [
        CParameter::CompressionLevel(level),
        CParameter::WindowLog(window_log),
        CParameter::ContentSizeFlag(true),
        CParameter::ChecksumFlag(false),
    ]
    .into_iter()
    .all(|parameter| cctx.set_parameter(parameter).is_ok());
    if !configured
        || cctx.set_pledged_src_size(Some(bytes.len() as u64)).is_err()
        || cctx.ref_prefix(dictionary).is_err()
    {
        return Err(NoDelta::Encoder);
    }
    let mut frame = Vec::with_capacity(zstd::zstd_safe::compress_bound(bytes.len()));
    cctx.compress2(&mut frame, bytes)
        .map_err(|_| NoDelta::Encoder)?;
    Ok(framed(&DCZ_MAGIC, dictionary, &frame))
}

/// `dcb`: `bytes` compressed by brotli at `quality` with `dictionary` as a raw dictionary (RFC
/// 9842 §5.1; the same stream a decoder given the dictionary as a prefix reads).
pub fn dcb(bytes: &[u8], dictionary: &[u8], quality: u32) -> Result<Vec<u8>, NoDelta> {
    if dictionary.len() + bytes.len() > MAX_DELTA_INPUT {
        return Err(NoDelta::TooLarge);
    }
    let params = brotli::enc::BrotliEncoderParams {
        quality: quality as i32,
        lgwin: 24,
        size_hint: bytes.len(),
        ..Default::default()
    };
    let mut stream = Vec::new();
    let (mut input, mut output) = ([0u8; 4096], [0u8; 4096]);
    let mut no_callback =
        |_: &mut brotli::interface::PredictionModeContextMap<brotli::InputReferenceMut<'_>>,
         _: &mut [brotli::interface::StaticCommand],
         _: brotli::InputPair<'_>,
         _: &mut brotli::enc::StandardAlloc| ();
    brotli::enc::BrotliCompressCustomIoCustomDict(
        &mut brotli::IoReaderWrapper(&mut &bytes[..]),
        &mut brotli::IoWriterWrapper(&mut stream),
        &mut input,
        &mut output,
        &params,
        brotli::enc::StandardAlloc::default(),
        &mut no_callback,
        dictionary,
        std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
    )
    .map_err(|_| NoDelta::Encoder)?;
    Ok(framed(&DCB_MAGIC, dictionary, &stream))
}

/// The content a `dcz` or `dcb` stream of at most `size` bytes decodes to with `dictionary`
/// (RFC 9842 §5): `None` when its header names another dictionary or it does not decode. The
/// build checks every delta it reads from its cache with it.
pub fn undelta(
    coding: ContentCoding,
    delta: &[u8],
    dictionary: &[u8],
    size: usize,
) -> Option<Vec<u8>> {
    use std::io::Read;
    let magic: &[u8] = match coding {
        ContentCoding::Dcz => &DCZ_MAGIC,
        ContentCoding::Dcb => &DCB_MAGIC,
        _ => return None,
    };
    let stream = delta.strip_prefix(magic)?;
    let (hash, stream) = stream.split_at_checked(32)?;
    if hash != dictionary_hash(dictionary) {
        return None;
    }
    let mut out = Vec::with_capacity(size);
    if coding == ContentCoding::Dcz {
        let mut dctx = zstd::zstd_safe::DCtx::create();
        dctx.ref_prefix(dictionary).ok()?;
        dctx.decompress(&mut out, stream).ok()?;
    } else {
        brotli::Decompressor::new_with_custom_dict(stream, 4096, dictionary.to_vec().into())
            .take(size as u64 + 1)
            .read_to_end(&mut out)
            .ok()?;
    }
    (out.len() <= size).then_some(out)
}

/// The SHA-256 of a dictionary: what `Available-Dictionary` carries (RFC 9842 §2.2).
pub fn dictionary_hash(dictionary: &[u8]) -> [u8; 32] {
    Sha256::digest(dictionary).into()
}

fn framed(magic: &[u8], dictionary: &[u8], stream: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(magic.len() + 32 + stream.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&dictionary_hash(dictionary));
    out.extend_from_slice(stream);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// Version 2 of a script: version 1 with a few edits (what a deploy changes).
    fn versions() -> (Vec<u8>, Vec<u8>) {
        // Pseudo-random constants, so the script does not compress to nothing on its own.
        let mut state = 0x2545_f491_u64;
        let one: String = (0..400)
            .map(|i| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                format!(
                    "export function handler{i}(e) {{ return e.v * {} + {}; }}\n",
                    state >> 40,
                    state % 977
                )
            })
            .collect();
        let two = one.replace("handler17(", "handler17renamed(").replace(
            "handler250(e) { return e.v *",
            "handler250(e) { return e.w *",
        ) + "export const version = 2;\n";
        assert_ne!(one, two);
        (one.into_bytes(), two.into_bytes())
    }

    fn brotli_alone(bytes: &[u8]) -> usize {
        crate::brotli(bytes, 11).len()
    }

    #[test]
    fn dcz_is_framed_as_rfc_9842_says_and_the_zstd_cli_decodes_it_with_the_dictionary() {
        let (old, new) = versions();
        let delta = dcz(&new, &old, 19).unwrap();
        assert_eq!(delta[..8], DCZ_MAGIC);
        assert_eq!(delta[8..40], dictionary_hash(&old));
        // The zstd frame after the header, decoded by the reference implementation's CLI with
        // the old version as its dictionary (-D; raw content, no dictionary magic).
        let dir = tempfile::tempdir().unwrap();
        let (frame, dict) = (dir.path().join("frame.zst"), dir.path().join("old.js"));
        std::fs::write(&frame, &delta[40..]).unwrap();
        std::fs::write(&dict, &old).unwrap();
        let out = std::process::Command::new("zstd")
            .args(["-d", "-c", "-D"])
            .arg(&dict)
            .arg(&frame)
            .output()
            .expect("the zstd CLI (Debian's zstd package, installed by make setup)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.stdout, new);
        // A few edits cost a few dozen bytes, not a recompressed file.
        assert!(
            delta.len() * 10 < brotli_alone(&new),
            "dcz {} bytes, br {}",
            delta.len(),
            brotli_alone(&new)
        );
    }

    #[test]
    fn dcb_is_framed_as_rfc_9842_says_and_decodes_with_the_dictionary_as_prefix() {
        let (old, new) = versions();
        let delta = dcb(&new, &old, 11).unwrap();
        assert_eq!(delta[..4], DCB_MAGIC);
        assert_eq!(delta[4..36], dictionary_hash(&old));
        let mut decoded = Vec::new();
        brotli::Decompressor::new_with_custom_dict(&delta[36..], 4096, old.clone().into())
            .read_to_end(&mut decoded)
            .unwrap();
        assert_eq!(decoded, new);
        assert!(delta.len() * 10 < brotli_alone(&new));
        // Without the dictionary the stream does not decode to the new bytes.
        let mut without = Vec::new();
        let plain = brotli::Decompressor::new(&delta[36..], 4096).read_to_end(&mut without);
        assert!(plain.is_err() || without != new);
    }

    #[test]
    fn inputs_past_the_window_get_no_delta() {
        let big = vec![b'a'; MAX_DELTA_INPUT];
        assert_eq!(dcz(b"x", &big, 19), Err(NoDelta::TooLarge));
        assert_eq!(dcb(b"x", &big, 11), Err(NoDelta::TooLarge));
    }
}
