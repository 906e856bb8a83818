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
    sri_of(&sha2::Sha384::digest(bytes).into())
}

/// The digests of a file read in pieces, never whole (a video or a disk image may be larger
/// than the build's memory): SHA-256, and when asked SRI's sha384 and the SHA-1 and MD5 a file
/// name's hash may be ([`crate::cache::is_fingerprinted_by`]).
pub(crate) struct FileDigests {
    pub(crate) sha256: [u8; 32],
    /// sha384, when asked for ([`Wanted::sri`]).
    pub(crate) sha384: Option<[u8; 48]>,
    /// SHA-1 and MD5, when asked for ([`Wanted::legacy`]).
    pub(crate) legacy: Option<([u8; 20], [u8; 16])>,
    /// How many bytes were read.
    pub(crate) len: u64,
}

impl FileDigests {
    /// The digests of `bytes` in memory: SHA-256, and SHA-1 and MD5 when `legacy` (no sha384).
    pub(crate) fn of(bytes: &[u8], legacy: bool) -> FileDigests {
        FileDigests {
            sha256: sha256(bytes),
            sha384: None,
            legacy: legacy.then(|| {
                (
                    sha1::Sha1::digest(bytes).into(),
                    md5::Md5::digest(bytes).into(),
                )
            }),
            len: bytes.len() as u64,
        }
    }
}

/// The digests [`file_digests`] computes beside SHA-256.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Wanted {
    /// SRI's sha384 (the encode stage's `integrity`).
    pub(crate) sri: bool,
    /// SHA-1 and MD5 (a name that may carry either).
    pub(crate) legacy: bool,
}

/// How much of a file [`file_digests`] holds at once.
pub(crate) const PIECE_BYTES: usize = 1 << 20;

/// The length of a buffer that reads a file of `len` bytes in pieces: the file, or a piece.
pub(crate) fn piece_for(len: u64) -> usize {
    usize::try_from(len).map_or(PIECE_BYTES, |len| len.clamp(1, PIECE_BYTES))
}

/// `Read::read` of `file` into `into`, again when interrupted: what each loop that reads a file
/// in pieces reads with (the boundary's search too).
pub(crate) fn read_piece(file: &mut impl std::io::Read, into: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match file.read(into) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            read => return read,
        }
    }
}

/// The digests of the file at `path`: SHA-256, and those `wanted`.
///
/// # Errors
/// When the file cannot be read.
pub(crate) fn file_digests(path: &std::path::Path, wanted: Wanted) -> std::io::Result<FileDigests> {
    let mut file = std::fs::File::open(path)?;
    let mut sha256 = Sha256::new();
    let mut sha384 = wanted.sri.then(sha2::Sha384::new);
    let mut others = wanted.legacy.then(|| (sha1::Sha1::new(), md5::Md5::new()));
    // No larger than the file (a site has many small ones): a piece is zeroed when made.
    let mut piece = vec![0; piece_for(file.metadata()?.len())];
    let mut len = 0u64;
    loop {
        let read = read_piece(&mut file, &mut piece)?;
        if read == 0 {
            break;
        }
        let bytes = &piece[..read];
        sha256.update(bytes);
        if let Some(sha384) = &mut sha384 {
            sha384.update(bytes);
        }
        if let Some((sha1, md5)) = &mut others {
            sha1.update(bytes);
            md5.update(bytes);
        }
        len += read as u64;
    }
    Ok(FileDigests {
        sha256: sha256.finalize().into(),
        sha384: sha384.map(|h| h.finalize().into()),
        legacy: others.map(|(sha1, md5)| (sha1.finalize().into(), md5.finalize().into())),
        len,
    })
}

/// The Subresource Integrity string for bytes whose sha384 is `digest`.
pub(crate) fn sri_of(digest: &[u8; 48]) -> String {
    format!(
        "sha384-{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
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
    fn a_file_read_in_pieces_has_the_digests_of_its_bytes() {
        let dir = std::env::temp_dir().join(format!("edgesite-digests-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Longer than a piece, and not a multiple of it: every piece and the last short one.
        let bytes: Vec<u8> = (0..PIECE_BYTES * 2 + 12_345)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let path = dir.join("file.bin");
        std::fs::write(&path, &bytes).unwrap();
        let all = Wanted {
            sri: true,
            legacy: true,
        };
        let read = file_digests(&path, all).unwrap();
        assert_eq!(read.sha256, sha256(&bytes));
        assert_eq!(sri_of(&read.sha384.unwrap()), sri_sha384(&bytes));
        let (sha1, md5) = read.legacy.unwrap();
        assert_eq!(sha1, <[u8; 20]>::from(sha1::Sha1::digest(&bytes)));
        assert_eq!(md5, <[u8; 16]>::from(md5::Md5::digest(&bytes)));
        assert_eq!(read.len, bytes.len() as u64);
        let sha256_alone = file_digests(&path, Wanted::default()).unwrap();
        assert!(sha256_alone.legacy.is_none() && sha256_alone.sha384.is_none());
        // Files smaller than a piece, and an empty one.
        for small in [&b"hello"[..], b""] {
            std::fs::write(&path, small).unwrap();
            let read = file_digests(&path, Wanted::default()).unwrap();
            assert_eq!((read.sha256, read.len), (sha256(small), small.len() as u64));
        }
        assert!(file_digests(&dir.join("absent"), all).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn hex_is_lower_case() {
        assert_eq!(hex(&[0x00, 0xab, 0xff]), "00abff");
    }
}
