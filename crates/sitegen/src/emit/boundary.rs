//! The `multipart/byteranges` boundary (RFC 9110 §14.6, RFC 2046 §5.1.1): fixed per build and
//! checked against every stored body, so no part can contain it.

use crate::model::{Asset, Body};
use memchr::memmem::Finder;
use sha2::{Digest, Sha256};
use std::path::Path;

/// A boundary that occurs in no representation of `files`: `edgesite-<24 hex of the site's
/// hash>-<n>` for the smallest `n` that no body contains. A site file is searched as it is read,
/// a piece at a time: never whole, and never all of them at once.
pub(crate) fn choose(files: &[Asset]) -> String {
    let mut seed = Sha256::new();
    for file in files {
        seed.update(file.sha256.as_bytes());
    }
    let hash = crate::hash::hex(&seed.finalize());
    let prefix = format!("edgesite-{}-", &hash[..24]);
    let sources = files.iter().map(|file| file.source.body());
    let stored = files
        .iter()
        .flat_map(|file| &file.representations)
        .filter_map(|v| v.bytes.as_deref())
        .map(Body::Bytes);
    first_absent(&prefix, sources.chain(stored))
}

/// Whether `body` holds what `finder` looks for (a file that cannot be read holds nothing: the
/// build fails on it elsewhere).
fn holds(body: Body<'_>, finder: &Finder<'_>) -> bool {
    match body {
        Body::Bytes(bytes) => finder.find(bytes).is_some(),
        Body::File(path) => file_holds(path, finder).unwrap_or(false),
    }
}

/// Whether the file at `path` holds what `finder` looks for, read a piece at a time (each piece
/// searched with the end of the one before, so a match across two is found).
fn file_holds(path: &Path, finder: &Finder<'_>) -> std::io::Result<bool> {
    let keep = finder.needle().len().saturating_sub(1);
    let mut file = std::fs::File::open(path)?;
    let mut buffer = vec![0; keep + crate::hash::piece_for(file.metadata()?.len())];
    let mut held = 0;
    loop {
        let read = crate::hash::read_piece(&mut file, &mut buffer[held..])?;
        if read == 0 {
            return Ok(false);
        }
        let end = held + read;
        if finder.find(&buffer[..end]).is_some() {
            return Ok(true);
        }
        held = keep.min(end);
        buffer.copy_within(end - held..end, 0);
    }
}

/// `<prefix><n>` for the smallest `n` that no body contains. Each body is searched once for the
/// prefix (SIMD substring search, on every core: most bodies are read from disk); only those
/// holding it are searched again.
fn first_absent<'a>(prefix: &str, bodies: impl Iterator<Item = Body<'a>>) -> String {
    let finder = Finder::new(prefix.as_bytes());
    let bodies: Vec<Body<'_>> = bodies.collect();
    let holding: Vec<Body<'_>> = crate::parallel::map(bodies.len(), |i| {
        holds(bodies[i], &finder).then_some(bodies[i])
    })
    .into_iter()
    .flatten()
    .collect();
    (0u32..)
        .map(|n| format!("{prefix}{n}"))
        .find(|candidate| {
            let finder = Finder::new(candidate.as_bytes());
            !holding.iter().any(|body| holds(*body, &finder))
        })
        .expect("some counter yields a boundary absent from finitely many bodies")
}

#[cfg(test)]
mod tests {
    use super::{first_absent, Body};

    fn absent(bodies: &[&str]) -> String {
        first_absent(
            "edgesite-ab-",
            bodies.iter().map(|b| Body::Bytes(b.as_bytes())),
        )
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

    #[test]
    fn a_file_is_searched_in_pieces_and_across_them() {
        let dir = std::env::temp_dir().join(format!("edgesite-boundary-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let piece = crate::hash::PIECE_BYTES;
        // The first read takes a piece and the bytes kept for the next (the needle's length
        // less one: 11 for the prefix, 12 for a candidate): "edgesite-ab-0", a piece and 8
        // bytes in, begins 3 (4) bytes before that read ends, so each search finds it only
        // with the bytes carried over. "edgesite-ab-1" ends the file.
        let mut bytes = vec![b'.'; piece + 8];
        bytes.extend_from_slice(b"edgesite-ab-0");
        bytes.resize(3 * piece, b'.');
        bytes.extend_from_slice(b"edgesite-ab-1");
        let path = dir.join("file.bin");
        std::fs::write(&path, &bytes).unwrap();
        let files = [Body::File(&path), Body::Bytes(b"plain")];
        assert_eq!(
            first_absent("edgesite-ab-", files.into_iter()),
            "edgesite-ab-2"
        );
        let absent = dir.join("absent");
        let none = [Body::File(&absent)];
        assert_eq!(
            first_absent("edgesite-ab-", none.into_iter()),
            "edgesite-ab-0"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
