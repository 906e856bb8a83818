//! A store that fails (`[storage]`; RFC 9110 §15.6.4): against a server of
//! `tests/fixtures/stored.toml` whose store this test may change: in a plain `cargo test`, the
//! native twin in-process (its store, `support::fixture_store()`, this binary's own); in
//! `make test` also the Worker under bare workerd, whose store folders `EDGESITE_STORE_DIR`
//! and `EDGESITE_R2_DIR` name (the disk services standing in for its ASSETS binding and,
//! through tests/fixtures/r2-stand-in.js, its R2 bucket read them per request), and under
//! wrangler dev, whose Static Assets folder `EDGESITE_STORE_DIR` names (its local R2 is a
//! database: not changed here). Against another server without them, it checks nothing.
//!
//! An object that is missing, or holds fewer bytes than the tables name (a small one the Worker
//! reads whole, and a large one it streams), or under wrangler dev other bytes of the same
//! length (its SHA-256 checked), gets 503 with Retry-After and
//! `Cache-Control: no-store`, never a body of the file, for a whole body, a range and several
//! ranges; HEAD, 304 and 412 read nothing from the store and are unchanged; once
//! the object is back, the same request is 200 with its bytes. Objects are moved aside and
//! replaced, never written in place (the served folder's files are hard links of the build's).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use edgesite_core::{Content, ContentCoding, Representation, Store, Target, STORE_RETRY_AFTER};
use std::path::PathBuf;
use support::{fixture_store, request, server, site_under_test, Runtime};

/// The folder the server under test reads `store`'s objects from, if this test may change it:
/// `EDGESITE_STORE_DIR` (Static Assets) or `EDGESITE_R2_DIR` (R2; none under wrangler dev,
/// whose local R2 is a database), or the in-process server's own folder, which holds both.
fn folder(store: Store) -> Option<PathBuf> {
    let named = match store {
        Store::Assets => "EDGESITE_STORE_DIR",
        Store::R2 => "EDGESITE_R2_DIR",
    };
    match std::env::var_os(named) {
        Some(dir) => Some(PathBuf::from(dir)),
        None if std::env::var_os("EDGESITE_BASE_URL").is_none() => {
            site_under_test();
            Some(fixture_store())
        }
        None => None,
    }
}

/// The files whose store this test changes: a photograph (an object the Worker reads whole and
/// checks against its name), the 640 KB manual (one it streams) and the 800 KB lecture (in R2),
/// with the fields that select their identity representation.
const FILES: [(&str, &[(&str, &str)]); 3] = [
    ("/images/coffee.jpg", &[("accept", "image/jpeg")]),
    ("/downloads/manual.txt", &[("accept-encoding", "identity")]),
    ("/media/lecture.txt", &[("accept-encoding", "identity")]),
];

/// The stored identity representation of the file at `path`.
fn identity(path: &str) -> &'static Representation<'static> {
    let Target::Asset(asset) = &site_under_test().route(path).unwrap().target else {
        panic!("a file");
    };
    let identity = &asset.representations[0];
    assert_eq!(identity.coding, ContentCoding::Identity);
    assert!(
        matches!(identity.content, Content::Stored { .. }),
        "in the store"
    );
    identity
}

fn assert_unavailable(path: &str, selecting: &[(&str, &str)], what: &str) {
    for range in [None, Some("bytes=10-19"), Some("bytes=0-4,100-104")] {
        let mut fields = selecting.to_vec();
        fields.extend(range.map(|r| ("range", r)));
        let reply = request("GET", path, &fields);
        assert_eq!(reply.status, 503, "{path} {what} {range:?}");
        assert_eq!(
            reply.header("retry-after"),
            Some(STORE_RETRY_AFTER),
            "{what}"
        );
        assert_eq!(reply.header("cache-control"), Some("no-store"), "{what}");
        assert_eq!(reply.header("etag"), None, "{what}: no field of the file");
        assert!(
            reply.body.starts_with(b"503 "),
            "{what}: the 503's text, no byte of the file"
        );
    }
    let head = request("HEAD", path, selecting);
    assert_eq!(head.status, 200, "{path} {what}: HEAD reads nothing");
    assert_eq!(head.header("etag"), Some(identity(path).etag), "{what}");
    let mut fields = selecting.to_vec();
    fields.push(("if-none-match", identity(path).etag));
    let not_modified = request("GET", path, &fields);
    assert_eq!(
        not_modified.status, 304,
        "{path} {what}: a 304 reads nothing"
    );
    // RFC 9110 §13.1.1: If-Match naming another tag fails from the tables alone.
    let mut fields = selecting.to_vec();
    fields.push(("if-match", "\"another\""));
    let failed = request("GET", path, &fields);
    assert_eq!(failed.status, 412, "{path} {what}: a 412 reads nothing");
}

#[test]
fn a_missing_or_truncated_object_is_503_and_never_a_body() {
    let mut changed = 0;
    for (path, selecting) in FILES {
        let Content::Stored { store, .. } = identity(path).content else {
            unreachable!()
        };
        let key = identity(path).object_key().expect("stored").to_string();
        let Some(folder) = folder(store) else {
            eprintln!("{:?}: no {store:?} folder to change", server().runtime);
            continue;
        };
        changed += 1;
        let object = folder.join(&key);
        let aside = object.with_extension("aside");
        let bytes = std::fs::read(&object).unwrap();
        // The object served whole. wrangler dev's local Static Assets see a file renamed back
        // through their folder's watcher, a moment later (a CI run got one 503 right after
        // the rename): a 503 is asked again for up to 10 s; any other answer fails at once.
        let serves = || {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            let mut reply = request("GET", path, selecting);
            while reply.status == 503
                && server().runtime == Runtime::WranglerDev
                && std::time::Instant::now() < deadline
            {
                std::thread::sleep(std::time::Duration::from_millis(100));
                reply = request("GET", path, selecting);
            }
            assert_eq!(reply.status, 200, "{path}");
            assert!(reply.body == bytes, "{path}: the object's bytes");
        };
        serves();

        std::fs::rename(&object, &aside).unwrap();
        let missing = std::panic::catch_unwind(|| assert_unavailable(path, selecting, "missing"));
        std::fs::rename(&aside, &object).unwrap();
        missing.unwrap();
        serves();

        // wrangler dev's local Static Assets answer a large object without Content-Length: a
        // short one is seen only as it streams, and breaks the transfer (curl: "partial file")
        // instead of answering 503 (docs/http.md).
        if server().runtime == Runtime::WranglerDev && bytes.len() > 256 * 1024 {
            continue;
        }
        std::fs::rename(&object, &aside).unwrap();
        std::fs::write(&object, &bytes[..bytes.len() / 2]).unwrap();
        let truncated =
            std::panic::catch_unwind(|| assert_unavailable(path, selecting, "truncated"));
        std::fs::rename(&aside, &object).unwrap();
        truncated.unwrap();
        serves();

        // Other bytes of the same length: only a store that states no length has its small
        // objects read whole and checked against their SHA-256 before a byte is sent (wrangler
        // dev's local Static Assets); one that states the length is held to it alone
        // (docs/http.md).
        if server().runtime != Runtime::WranglerDev || bytes.len() > 256 * 1024 {
            continue;
        }
        std::fs::rename(&object, &aside).unwrap();
        let mut other = bytes.clone();
        other[bytes.len() / 2] ^= 0xff;
        std::fs::write(&object, &other).unwrap();
        let other = std::panic::catch_unwind(|| assert_unavailable(path, selecting, "changed"));
        std::fs::rename(&aside, &object).unwrap();
        other.unwrap();
        serves();
    }
    if changed == 0 {
        eprintln!("{:?}: no store to change", server().runtime);
    }
}
