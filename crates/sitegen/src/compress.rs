//! Precompression at build time: every file that benefits is stored as brotli, zstd and gzip,
//! each at its maximum practical setting, so a request only selects (RFC 9110 §8.4.1).
//!
//! - brotli: quality 11, window 2^24 (the largest a browser decodes);
//! - zstd: level 19, whose window stays within the 8 MiB browsers accept (RFC 9659 §3);
//! - gzip: zopfli, the best deflate ratio (about 5% below `gzip -9`);
//! - a variant is kept only when it is at least 5% and 64 bytes smaller than identity;
//! - types that are already compressed (images, fonts, media, archives) are not tried.

use edgesite_core::ContentCoding;

/// An encoded representation of a file.
#[derive(Debug, Clone)]
pub(crate) struct Encoded {
    pub(crate) coding: ContentCoding,
    pub(crate) bytes: Vec<u8>,
}

/// The encodings of `bytes` worth storing, in the order br, zstd, gzip.
pub(crate) fn precompress(file_name: &str, bytes: &[u8]) -> Vec<Encoded> {
    if is_already_compressed(file_name) || bytes.len() < 64 {
        return Vec::new();
    }
    [
        (ContentCoding::Br, brotli(bytes)),
        (ContentCoding::Zstd, zstd(bytes)),
        (ContentCoding::Gzip, gzip(bytes)),
    ]
    .into_iter()
    .filter(|(_, encoded)| worth_keeping(bytes.len(), encoded.len()))
    .map(|(coding, bytes)| Encoded { coding, bytes })
    .collect()
}

/// At least 5% and 64 bytes smaller than identity.
fn worth_keeping(identity: usize, encoded: usize) -> bool {
    encoded + 64 <= identity && encoded * 100 <= identity * 95
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

fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 24,
        size_hint: bytes.len(),
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &bytes[..], &mut out, &params)
        .expect("brotli into a Vec cannot fail");
    out
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(bytes, 19).expect("zstd into a Vec cannot fail")
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    zopfli::compress(
        zopfli::Options::default(),
        zopfli::Format::Gzip,
        bytes,
        &mut out,
    )
    .expect("zopfli into a Vec cannot fail");
    out
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
                ContentCoding::Identity => unreachable!(),
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
        assert!(worth_keeping(1000, 936));
        assert!(!worth_keeping(1000, 951));
        assert!(!worth_keeping(100, 40));
        assert!(worth_keeping(200, 136));
    }
}
