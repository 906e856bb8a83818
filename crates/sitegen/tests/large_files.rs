//! A site's large files that nothing parses (media, archives, datasets) are read a piece at a
//! time, never whole (issue 33, sites of any size): what the build holds does not grow with
//! such a file's size, so a video or a disk image larger than the machine's memory builds. The build runs in this process, the one test of this binary
//! (nothing else runs beside it), and its peak resident set over what the process held before
//! is what the build held at once (a whole file read is resident: read() writes every page of
//! it; a sparse file's pages on disk are not). Before the pieces, each of these files was held whole at least once (the
//! encode stage read it, the multipart boundary's search held every file of the site at once,
//! a staged deploy's commit held every new body at once): a peak of hundreds of MiB.

use base64::prelude::{Engine as _, BASE64_STANDARD};
use edgesite_sitegen::config::Config;
use edgesite_sitegen::history::{commit, stage, History};
use edgesite_sitegen::model::Tier;
use edgesite_sitegen::{compile, Bodies, Options};
use sha2::{Digest, Sha256, Sha384};
use std::fs;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

/// A field of this process's `/proc/self/status` in bytes: `VmRSS` (what it holds now) or
/// `VmHWM` (the most it has held: its peak resident set).
fn status_bytes(field: &str) -> u64 {
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"));
    let kib: u64 = line.trim().trim_end_matches("kB").trim().parse().unwrap();
    kib * 1024
}

const MIB: u64 = 1024 * 1024;

/// A file of `len` zero bytes that takes no room on disk (a sparse file): reading it is cheap,
/// holding it is not.
fn sparse(path: &Path, len: u64) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::File::create(path).unwrap().set_len(len).unwrap();
}

/// The SHA-256 (or another digest `D`) of `len` zero bytes, computed a piece at a time.
fn zeros_digest<D: Digest>(len: u64) -> Vec<u8> {
    let mut hasher = D::new();
    let piece = [0u8; 64 * 1024];
    let mut left = len;
    while left > 0 {
        let n = left.min(piece.len() as u64) as usize;
        hasher.update(&piece[..n]);
        left -= n as u64;
    }
    hasher.finalize().to_vec()
}

#[test]
fn files_far_larger_than_what_the_build_holds_are_read_in_pieces() {
    let dir = std::env::temp_dir().join(format!("edgesite-large-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let site = dir.join("site");
    // A page that links both (so the link pass fingerprints them too), a video (a type never
    // compressed) and a dataset over `compression.max_input_bytes` (a type that would be).
    fs::create_dir_all(&site).unwrap();
    fs::write(
        site.join("index.html"),
        "<!doctype html><title>Big</title><a href=/media/talk.mp4>talk</a> \
         <a href=/data/set.csv>data</a>",
    )
    .unwrap();
    let (video, data) = (96 * MIB, 80 * MIB);
    sparse(&site.join("media/talk.mp4"), video);
    sparse(&site.join("data/set.csv"), data);
    let toml = "[compression]\nmax_input_bytes = 1048576\n\n[storage]\nr2_bucket = \"big\"\n";
    let config = Config::parse(toml, Path::new("edgesite.toml")).unwrap();
    let options = Options::from_config(config, UNIX_EPOCH + Duration::from_secs(1_700_000_000));

    let before = status_bytes("VmRSS");
    let mut manifest = compile(&site, &options).unwrap();
    let out = dir.join("out");
    manifest
        .write_rust_with(&out, Bodies::Tables { in_binary: false })
        .unwrap();
    let history = dir.join("history");
    let staged = dir.join("staged");
    stage(&manifest, &history, 2, &staged).unwrap();
    commit(&staged)
        .unwrap()
        .expect("a staged deploy is committed");
    let held = status_bytes("VmHWM").saturating_sub(before);

    // What the build made of them: identity alone, with the digests of their bytes, in R2
    // (larger than Static Assets takes), the objects written whole; the deploy names them, and
    // its history keeps no copy (no later build reads them: not dictionaries, no hashed name).
    for (path, len) in [("/media/talk.mp4", video), ("/data/set.csv", data)] {
        let file = manifest.files.iter().find(|f| f.path == path).unwrap();
        assert_eq!((file.size, file.tier), (len, Tier::R2), "{path}");
        let sha256: String = zeros_digest::<Sha256>(len)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(file.sha256, sha256, "{path}");
        let sha384 = BASE64_STANDARD.encode(zeros_digest::<Sha384>(len));
        assert_eq!(file.integrity, format!("sha384-{sha384}"), "{path}");
        assert_eq!(file.representations.len(), 1, "{path}: identity alone");
        let object = out
            .join("store")
            .join(file.representations[0].object_key(file.tier));
        assert_eq!(fs::metadata(&object).unwrap().len(), len, "{path}");
        let recorded = History::open(&history).unwrap();
        assert_eq!(recorded.deploys[0].files.get(path), Some(&file.sha256));
        assert!(!recorded.body_path(&file.sha256).exists(), "{path}");
    }
    assert!(
        held < 48 * MIB,
        "the build held {} MiB at once for files of 96 and 80 MiB",
        held / MIB
    );
    fs::remove_dir_all(&dir).unwrap();
}
