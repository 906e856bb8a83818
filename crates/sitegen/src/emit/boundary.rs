//! The `multipart/byteranges` boundary (RFC 9110 §14.6, RFC 2046 §5.1.1): fixed per build and
//! checked against every stored body, so no part can contain it.

use crate::model::Asset;
use memchr::memmem::Finder;
use sha2::{Digest, Sha256};
use std::borrow::Cow;

/// A boundary that occurs in no representation of `files`: `edgesite-<24 hex of the site's
/// hash>-<n>` for the smallest `n` that no body contains.
pub(crate) fn choose(files: &[Asset]) -> String {
    let mut seed = Sha256::new();
    for file in files {
        seed.update(file.sha256.as_bytes());
    }
    let hash = crate::hash::hex(&seed.finalize());
    let prefix = format!("edgesite-{}-", &hash[..24]);
    let sources: Vec<Vec<u8>> = files
        .iter()
        .map(|file| file.source.read().map(Cow::into_owned).unwrap_or_default())
        .collect();
    let stored = files
        .iter()
        .flat_map(|file| &file.representations)
        .filter_map(|v| v.bytes.as_deref());
    first_absent(&prefix, sources.iter().map(Vec::as_slice).chain(stored))
}

/// `<prefix><n>` for the smallest `n` that no body contains. Each body is searched once for the
/// prefix (SIMD substring search); only those holding it are searched again.
fn first_absent<'a>(prefix: &str, bodies: impl Iterator<Item = &'a [u8]>) -> String {
    let finder = Finder::new(prefix.as_bytes());
    let holding: Vec<&[u8]> = bodies.filter(|b| finder.find(b).is_some()).collect();
    (0u32..)
        .map(|n| format!("{prefix}{n}"))
        .find(|candidate| {
            let finder = Finder::new(candidate.as_bytes());
            !holding.iter().any(|body| finder.find(body).is_some())
        })
        .expect("some counter yields a boundary absent from finitely many bodies")
}

#[cfg(test)]
mod tests {
    use super::first_absent;

    fn absent(bodies: &[&str]) -> String {
        first_absent("edgesite-ab-", bodies.iter().map(|b| b.as_bytes()))
    }

    #[test]
    fn the_first_counter_no_body_contains() {
        assert_eq!(absent(&["plain text", ""]), "edgesite-ab-0");
        assert_eq!(
            absent(&["--edgesite-ab-0--", "x edgesite-ab-1"]),
            "edgesite-ab-2"
        );
        // "edgesite-ab-10" contains "edgesite-ab-1", not "edgesite-ab-0".
        assert_eq!(absent(&["edgesite-ab-10"]), "edgesite-ab-0");
        assert_eq!(absent(&["edgesite-ab-0", "edgesite-ab-"]), "edgesite-ab-1");
    }
}
