//! The hashing of the build: SHA-256 (the content hash every file, representation and cache
//! entry is named by), its hex, SRI's sha384, and the strong entity tag made from it (RFC 9110
//! §8.8.3).
//!
//! The ETag is the first 128 bits of the SHA-256 of the exact bytes sent, in unpadded base64url,
//! quoted: 22 characters that change whenever a byte changes. It does not depend on the file's
//! mtime or path, so rebuilding the same content gives the same tags.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use sha2::{Digest, Sha256};

/// SHA-256 of `bytes`.
pub(crate) fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The strong ETag for content with this SHA-256.
pub(crate) fn strong_etag(sha256: &[u8; 32]) -> String {
    format!("\"{}\"", URL_SAFE_NO_PAD.encode(&sha256[..16]))
}

/// The Subresource Integrity string (W3C SRI) for `bytes`: `sha384-` and the base64 digest.
pub(crate) fn sri_sha384(bytes: &[u8]) -> String {
    format!(
        "sha384-{}",
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha384::digest(bytes))
    )
}

/// Lower-case hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etag_is_a_quoted_strong_tag_of_the_content_hash() {
        let tag = strong_etag(&sha256(b"hello"));
        // sha256("hello") = 2cf24dba5fb0a30e26e83b2ac5b9e29e..., its first 16 bytes in base64url:
        assert_eq!(tag, "\"LPJNul-wow4m6Dsqxbning\"");
        assert!(!tag.starts_with("W/"));
        assert_ne!(tag, strong_etag(&sha256(b"hello!")));
    }

    #[test]
    fn sri_is_sha384_in_standard_base64() {
        // `echo -n hello | openssl dgst -sha384 -binary | base64`
        assert_eq!(
            sri_sha384(b"hello"),
            "sha384-WeF0h3dEjGnea4ANejO7+5/xtGPkQ1TDVTvNucZm+pASWjx5+QOXvfX2oT3oKGhP"
        );
    }

    #[test]
    fn hex_is_lower_case() {
        assert_eq!(hex(&[0x00, 0xab, 0xff]), "00abff");
    }
}
