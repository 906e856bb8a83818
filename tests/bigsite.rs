//! A generated big site over HTTP: `make bigsite` (bench/bigsite.sh) builds bench/sites.sh's
//! `1gb` site (3,000 pages, 900 images of 1 MB, 8 downloads of 20 MiB: 1.1 GB, most of it in the
//! store) and serves it under `wrangler dev` and with the native twin, and runs these
//! `#[ignore]`d tests against each, naming the site's folder in `EDGESITE_BIGSITE_DIR` and the
//! build's copy of its HTML and CSS as served (after the link pass, which gives references a
//! `?v=`) in `EDGESITE_BIGSITE_SERVED_DIR`:
//!
//! * every file of the site is served with exactly its bytes (identity);
//! * for a sample of every kind of file, each representation has its own strong ETag (RFC 9110
//!   §8.8.3), and br, gzip and identity all deliver the file's bytes; If-None-Match with each
//!   ETag is 304 (§13.1.2); a range of the identity is the file's bytes (§14.2).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use support::{file_as_served, request};

fn folder(variable: &str) -> std::path::PathBuf {
    std::env::var_os(variable)
        .unwrap_or_else(|| panic!("{variable}: make bigsite sets it"))
        .into()
}

/// Every 97th page, the CSS, the JS and every 37th image: URL path and the file's bytes as
/// served (the build's copy of an HTML or CSS file, else the source file).
fn sample() -> Vec<(String, Vec<u8>)> {
    let (root, served) = (
        folder("EDGESITE_BIGSITE_DIR"),
        folder("EDGESITE_BIGSITE_SERVED_DIR"),
    );
    let mut paths: Vec<String> = (0..1000)
        .step_by(97)
        .map(|i| format!("/docs/page-{i:04}.html"))
        .collect();
    paths.extend(["/assets/site.css".into(), "/assets/site.js".into()]);
    paths.extend(
        (0..200)
            .step_by(37)
            .map(|i| format!("/images/img-{i:04}.png")),
    );
    paths
        .into_iter()
        .map(|p| {
            let bytes = file_as_served(&served, &root, &p);
            // Clean URLs: a page is served without its .html.
            (p.trim_end_matches(".html").to_string(), bytes)
        })
        .collect()
}

#[test]
#[ignore = "needs the generated big site served; make bigsite runs it"]
fn every_coding_delivers_the_file_with_its_own_strong_etag() {
    for (path, file) in sample() {
        let mut etags = Vec::new();
        for coding in ["br", "gzip", "identity"] {
            let reply = request("GET", &path, &[("accept-encoding", coding)]);
            assert_eq!(reply.status, 200, "{path} {coding}");
            let etag = reply.header("etag").unwrap().to_string();
            assert!(etag.starts_with('"'), "{path}: a strong ETag, {etag}");
            assert_eq!(reply.decoded(), file, "{path} {coding}");
            // §13.1.2: the current ETag is a 304.
            let again = request(
                "GET",
                &path,
                &[("accept-encoding", coding), ("if-none-match", &etag)],
            );
            assert_eq!(again.status, 304, "{path} {coding}");
            etags.push((reply.header("content-encoding").map(str::to_string), etag));
        }
        // Two representations never share a strong ETag; an image has only its identity.
        etags.sort();
        etags.dedup();
        let codings = etags.iter().filter(|(c, _)| c.is_some()).count();
        let distinct: std::collections::BTreeSet<&String> = etags.iter().map(|(_, e)| e).collect();
        assert_eq!(distinct.len(), etags.len(), "{path}: {etags:?}");
        assert_eq!(
            codings == 0,
            path.starts_with("/images/"),
            "{path}: {etags:?}"
        );
    }
}

#[test]
#[ignore = "needs the generated big site served; make bigsite runs it"]
fn ranges_of_the_identity_are_the_files_bytes() {
    for (path, file) in sample() {
        let reply = request("GET", &path, &[("range", "bytes=100-1099")]);
        assert_eq!(reply.status, 206, "{path}");
        assert_eq!(reply.body, &file[100..1100], "{path}");
        let total = format!("bytes 100-1099/{}", file.len());
        assert_eq!(
            reply.header("content-range"),
            Some(total.as_str()),
            "{path}"
        );
    }
}

/// Every file under `dir`, as URL paths relative to `root`.
fn files(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(root, &path, out);
        } else {
            let relative = path.strip_prefix(root).unwrap().to_str().unwrap();
            out.push(format!("/{relative}"));
        }
    }
}

#[test]
#[ignore = "needs the generated big site served; make bigsite runs it"]
fn every_file_is_served_with_exactly_its_bytes() {
    let (root, served) = (
        folder("EDGESITE_BIGSITE_DIR"),
        folder("EDGESITE_BIGSITE_SERVED_DIR"),
    );
    let mut paths = Vec::new();
    files(&root, &root, &mut paths);
    assert!(paths.len() > 3000, "{} files", paths.len());
    let mut bytes = 0;
    for path in &paths {
        let file = file_as_served(&served, &root, path);
        // Clean URLs: a page is served without its .html, a folder's index at the folder.
        let url = match path.strip_suffix(".html") {
            Some(page) => page.strip_suffix("index").unwrap_or(page).to_string(),
            None => path.clone(),
        };
        let reply = request("GET", &url, &[("accept-encoding", "identity")]);
        assert_eq!(reply.status, 200, "{url}");
        assert!(
            reply.body == file,
            "{url}: {} bytes, {} expected",
            reply.body.len(),
            file.len()
        );
        bytes += file.len();
    }
    eprintln!("{} files, {bytes} bytes, each served exactly", paths.len());
}
