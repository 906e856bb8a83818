//! The `multipart/byteranges` boundary (RFC 9110 §14.6, RFC 2046 §5.1.1): fixed per build and
//! checked against every stored body, so no part can contain it.

use crate::File;
use sha2::{Digest, Sha256};

/// A boundary that occurs in no representation of `files`.
pub(crate) fn choose(files: &[File]) -> String {
    let mut seed = Sha256::new();
    for file in files {
        seed.update(file.sha256.as_bytes());
    }
    let hash = crate::etag::hex(&seed.finalize());
    (0u32..)
        .map(|n| format!("edgesite-{}-{n}", &hash[..24]))
        .find(|candidate| !files.iter().any(|f| contains(f, candidate.as_bytes())))
        .expect("some counter yields a boundary absent from a finite site")
}

fn contains(file: &File, needle: &[u8]) -> bool {
    let identity = std::fs::read(&file.source).unwrap_or_default();
    std::iter::once(identity.as_slice())
        .chain(
            file.representations
                .iter()
                .filter_map(|v| v.bytes.as_deref()),
        )
        .any(|body| body.windows(needle.len()).any(|w| w == needle))
}
