//! # edgesite-decode
//!
//! Compact storage (`[compression] store = "compact"`) keeps a compressible file's br and gzip
//! representations and not its identity; a client that accepts neither gets the identity,
//! decoded on demand by the adapter from the gzip representation the core names
//! ([`edgesite_core::Content::Decoded`]). This crate is the native twin's decoding: gzip
//! (RFC 1952) with miniz_oxide, pure Rust. The Worker does not use it: its JS half inflates with
//! the runtime's `DecompressionStream` (native code: all of it streamed, its last chunk held
//! until the inflater closed cleanly; for ranges, all of it inflated first), so the module
//! carries no decoder (it was about 47 KB of the module: docs/benchmarks.md, "Cold start and
//! size").
//!
//! Only gzip, on both runtimes: `DecompressionStream` has no br, and a br decoder in wasm brings
//! brotli's built-in dictionary (about 160 KB more). So compact storage decodes from gzip, and
//! a file stored without gzip keeps its identity.
//!
//! The output is checked against the length the build recorded: bytes that decode to anything
//! else are an error, never a wrong body under the identity's strong ETag.
//!
//! ```
//! use edgesite_core::ContentCoding;
//! use std::io::Write;
//! let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
//! gz.write_all(b"hello, hello, hello").unwrap();
//! let stored = gz.finish().unwrap();
//! assert_eq!(edgesite_decode::decode(ContentCoding::Gzip, &stored, 19).unwrap(), b"hello, hello, hello");
//! assert!(edgesite_decode::decode(ContentCoding::Gzip, &stored, 18).is_err());
//! ```

use edgesite_core::ContentCoding;
use std::io::Read;

/// Why a stored representation could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The bytes are not a valid stream of the coding.
    Corrupt(ContentCoding),
    /// The coding is not one edgesite decodes (only gzip is).
    Unsupported(ContentCoding),
    /// The output's length is not the one the build recorded.
    Length {
        /// The recorded length.
        expected: usize,
        /// What decoding gave (or more than `expected`).
        found: usize,
    },
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Corrupt(c) => write!(f, "the stored {} bytes do not decode", c.token()),
            DecodeError::Unsupported(c) => write!(f, "{} is not decoded on demand", c.token()),
            DecodeError::Length { expected, found } => {
                write!(
                    f,
                    "decoded {found} bytes where the build recorded {expected}"
                )
            }
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes `bytes`, a stored representation in `coding`, into the `expected_length` bytes of
/// the identity representation.
///
/// # Errors
/// Corrupt input, a coding other than gzip or br, or output of another length.
pub fn decode(
    coding: ContentCoding,
    bytes: &[u8],
    expected_length: usize,
) -> Result<Vec<u8>, DecodeError> {
    let mut out = Vec::with_capacity(expected_length);
    // One byte more than expected, to see a stream that is too long without reading it all.
    let limit = expected_length as u64 + 1;
    let read = match coding {
        ContentCoding::Gzip => flate2::read::GzDecoder::new(bytes)
            .take(limit)
            .read_to_end(&mut out),
        ContentCoding::Identity
        | ContentCoding::Br
        | ContentCoding::Zstd
        | ContentCoding::Dcb
        | ContentCoding::Dcz => return Err(DecodeError::Unsupported(coding)),
    };
    read.map_err(|_| DecodeError::Corrupt(coding))?;
    if out.len() != expected_length {
        return Err(DecodeError::Length {
            expected: expected_length,
            found: out.len(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::io::Write;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(bytes).unwrap();
        gz.finish().unwrap()
    }

    proptest! {
        /// Whatever the bytes, decoding their gzip gives them back.
        #[test]
        fn decoding_round_trips(bytes in proptest::collection::vec(any::<u8>(), 0..4000)) {
            prop_assert_eq!(decode(ContentCoding::Gzip, &gzip(&bytes), bytes.len()).unwrap(), bytes);
        }

        /// Any input is an answer or an error, never a panic.
        #[test]
        fn decoding_is_total(bytes in proptest::collection::vec(any::<u8>(), 0..200), n in 0usize..300) {
            let _ = decode(ContentCoding::Gzip, &bytes, n);
        }
    }

    #[test]
    fn a_wrong_length_or_coding_is_an_error() {
        let stored = gzip(b"abc");
        assert_eq!(
            decode(ContentCoding::Gzip, &stored, 2),
            Err(DecodeError::Length {
                expected: 2,
                found: 3
            })
        );
        assert_eq!(
            decode(ContentCoding::Zstd, &stored, 3),
            Err(DecodeError::Unsupported(ContentCoding::Zstd))
        );
        assert_eq!(
            decode(ContentCoding::Gzip, b"not gzip", 3),
            Err(DecodeError::Corrupt(ContentCoding::Gzip))
        );
        assert_eq!(
            decode(ContentCoding::Br, b"", 0),
            Err(DecodeError::Unsupported(ContentCoding::Br))
        );
    }
}
