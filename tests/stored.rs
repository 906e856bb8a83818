//! The store tier over HTTP (`[storage]`), against a server of `tests/fixtures/stored.toml`:
//! a site with a bundle too small for it, so the pages and the stylesheet stay in the bundle,
//! the photograph (with its AVIF and WebP variants), the script (with its deltas), a 640 KB
//! manual and an empty file go to Static Assets, and an 800 KB lecture (larger than the
//! fixture lets Static Assets take) and a page of notes (by name) go to R2.
//! In a plain `cargo test`, the native twin in-process, reading the objects from a folder; in
//! `make test` also the Worker under bare workerd (its ASSETS binding a disk service, its R2
//! bucket tests/fixtures/r2-stand-in.js) and under `wrangler dev` (its local Static Assets and
//! R2). An object in R2 is read by range (R2Bucket.get's `range`), one in Static Assets whole
//! and cut. Every stored representation is checked against the
//! object this process's compile of the same config wrote (the same config compiles to the same
//! tables and objects):
//!
//! * 200 with exactly the object's bytes, its strong ETag and Content-Length (RFC 9110 §8.8.3,
//!   §8.6), for every coding (`Content-Encoding`, §8.4), every image variant (Accept) and every
//!   delta (`Available-Dictionary`, RFC 9842 §6.2);
//! * HEAD: the fields of GET, no content (§9.3.2);
//! * If-None-Match → 304 and If-Match with another tag → 412, decided from the tables (§13.1);
//! * one range → 206 with exactly those bytes, several → `multipart/byteranges` (§14.2, §14.6),
//!   If-Range with the ETag → the range, with another → the whole (§13.1.5);
//! * what the bundle holds is served as before, beside the store;
//! * a `?v=` the link pass wrote for a stored file is its object, immutable (RFC 9111 §5.2.2,
//!   RFC 8246); a kept deploy's file (skew protection) is its old bytes, from the store; the
//!   page's Speculation-Rules are served; no object is reachable at its own path.
//!
//! A store that fails is `tests/stored_failures.rs`'s (it changes the store under the server).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use edgesite_core::{
    is_path_char, percent_encode, Content, ContentCoding, Representation, Store, Target,
};
use support::{
    fixture_store, request, server, site_under_test, walk_speculation_rules, Reply, Runtime,
};

/// What, beside its coding, a request names to be sent a representation.
#[derive(Debug, Clone, Copy)]
enum Selector {
    /// The file's own media type: a coding.
    Coding,
    /// An image variant's media type (Accept).
    Media(&'static str),
    /// The dictionary of a delta (Available-Dictionary, RFC 9842 §2.2).
    Dictionary(&'static str),
}

/// The request targets of the fixture's files and their representations kept in the store,
/// with what selects each one.
fn stored() -> Vec<(String, Selector, &'static Representation<'static>)> {
    let mut out = Vec::new();
    for route in site_under_test().routes {
        let Target::Asset(asset) = &route.target else {
            continue;
        };
        // The request target: the route's path percent-encoded.
        let mut target = Vec::new();
        percent_encode(route.path, is_path_char, &mut |piece| {
            target.extend_from_slice(piece);
        });
        let target = String::from_utf8(target).unwrap();
        for r in asset.representations {
            out.push((target.clone(), Selector::Coding, r));
        }
        for v in asset.variants {
            let media = Selector::Media(v.content_type);
            out.push((target.clone(), media, &v.representation));
        }
        for d in asset.deltas {
            let dictionary = Selector::Dictionary(d.available_dictionary);
            out.push((target.clone(), dictionary, &d.representation));
        }
    }
    out.retain(|(_, _, r)| matches!(r.content, Content::Stored { .. }));
    // A file at two paths (a folder's page at `/guide/` and `/guide/index.html`): once.
    let mut seen = std::collections::HashSet::new();
    out.retain(|(_, _, r)| seen.insert(std::ptr::from_ref(*r)));
    out
}

/// The bytes the store's object of `r` holds, as this process's compile wrote it.
fn object(r: &Representation<'_>) -> Vec<u8> {
    let key = r.object_key().expect("a stored representation").to_string();
    std::fs::read(fixture_store().join(&key)).unwrap_or_else(|e| panic!("{key}: {e}"))
}

/// The request fields that select `r` (a variant by Accept, a delta by Available-Dictionary,
/// a coding by Accept-Encoding).
fn selecting(selector: Selector, r: &Representation<'_>) -> Vec<(&'static str, &'static str)> {
    let coding = match r.coding {
        ContentCoding::Identity => "identity",
        coding => coding.token(),
    };
    let mut fields = vec![("accept-encoding", coding)];
    match selector {
        Selector::Coding => {}
        Selector::Media(media) => fields.push(("accept", media)),
        Selector::Dictionary(hash) => fields.push(("available-dictionary", hash)),
    }
    fields
}

fn wrangler_dev() -> bool {
    server().runtime == Runtime::WranglerDev
}

/// Whether the body of `reply` is `expected` as sent: wrangler dev's proxy re-encodes gzip
/// bodies (docs/http.md, "Under `wrangler dev` only"), so there the decoded bodies are compared.
fn same_body(reply: &Reply, expected: &[u8], r: &Representation<'_>) -> bool {
    if wrangler_dev() && r.coding == ContentCoding::Gzip {
        let mut inflated = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(expected), &mut inflated)
            .expect("a stored gzip object inflates");
        return reply.decoded() == inflated;
    }
    reply.body == expected
}

#[test]
fn the_fixture_keeps_pages_in_the_bundle_and_the_rest_in_the_store() {
    let stored = stored();
    let paths: Vec<&str> = stored.iter().map(|(p, _, _)| &p[..]).collect();
    for (path, store) in [
        ("/images/coffee.jpg", Store::Assets),
        ("/app.js", Store::Assets),
        ("/downloads/manual.txt", Store::Assets),
        ("/downloads/empty.txt", Store::Assets),
        // Over the fixture's max_file_bytes (Static Assets' 25 MiB in production): R2.
        ("/media/lecture.txt", Store::R2),
        // Named by `[storage] r2`; an empty object is read with R2's head().
        ("/media/notes.txt", Store::R2),
        ("/media/empty.txt", Store::R2),
    ] {
        let held = stored.iter().filter(|(p, _, _)| p == path);
        let stores: Vec<Store> = held
            .map(|(_, _, r)| match r.content {
                Content::Stored { store, .. } => store,
                _ => unreachable!(),
            })
            .collect();
        assert!(!stores.is_empty(), "{path} in the store: {paths:?}");
        assert!(stores.iter().all(|s| *s == store), "{path} in {store:?}");
    }
    let variant = |(_, s, _): &&(String, Selector, _)| matches!(s, Selector::Media(_));
    assert!(stored.iter().any(|s| variant(&s)), "a variant in the store");
    // The demo's history (EDGESITE_HISTORY) has an older /app.js: its deltas are stored too.
    let delta = |(_, s, _): &&(String, Selector, _)| matches!(s, Selector::Dictionary(_));
    assert!(stored.iter().any(|s| delta(&s)), "a delta in the store");
    // Over the Worker's 256 KiB check: streamed, not read whole.
    assert!(
        stored.iter().any(|(_, _, r)| r.length() > 256 * 1024),
        "a large object"
    );
    for page in ["/", "/about"] {
        assert!(!paths.contains(&page), "{page} stays in the bundle");
        let reply = request("GET", page, &[("accept-encoding", "br")]);
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("content-encoding"), Some("br"));
    }
}

#[test]
fn every_stored_representation_is_its_object_byte_for_byte() {
    for (path, media, r) in stored() {
        let expected = object(r);
        let reply = request("GET", &path, &selecting(media, r));
        let what = format!("{path} {media:?} {}", r.coding.token());
        assert_eq!(reply.status, 200, "{what}");
        assert!(
            same_body(&reply, &expected, r),
            "{what}: {} bytes, {} expected",
            reply.body.len(),
            expected.len()
        );
        assert_eq!(reply.header("etag"), Some(r.etag), "{what}");
        if !wrangler_dev() {
            assert_eq!(
                reply.header("content-length"),
                Some(r.content_length),
                "{what}"
            );
        }
        let coding = (r.coding != ContentCoding::Identity).then(|| r.coding.token());
        assert_eq!(reply.header("content-encoding"), coding, "{what}");
        if let Selector::Media(media) = media {
            assert_eq!(reply.header("content-type"), Some(media), "{what}");
        }
    }
}

#[test]
fn head_and_conditionals_are_answered_from_the_tables() {
    for (path, media, r) in stored() {
        let fields = selecting(media, r);
        let what = format!("{path} {media:?} {}", r.coding.token());
        let head = request("HEAD", &path, &fields);
        assert_eq!((head.status, head.raw_body_len), (200, 0), "{what}");
        assert_eq!(head.header("etag"), Some(r.etag), "{what}");
        let mut matching = fields.clone();
        matching.push(("if-none-match", r.etag));
        let not_modified = request("GET", &path, &matching);
        assert_eq!(
            (not_modified.status, not_modified.raw_body_len),
            (304, 0),
            "{what}"
        );
        let mut other = fields.clone();
        other.push(("if-match", "\"another\""));
        assert_eq!(request("GET", &path, &other).status, 412, "{what}");
    }
}

#[test]
fn ranges_of_a_stored_representation_are_its_bytes() {
    for (path, media, r) in stored()
        .into_iter()
        .filter(|(_, _, r)| r.coding == ContentCoding::Identity)
    {
        let all = object(r);
        let len = all.len();
        // The ranges below need 110 bytes (the part at 100, the last 5 after it).
        if len < 110 {
            continue;
        }
        let what = format!("{path} {media:?}");
        let mut fields = selecting(media, r);
        fields.push(("range", "bytes=10-39"));
        let one = request("GET", &path, &fields);
        assert_eq!(one.status, 206, "{what}");
        assert_eq!(one.body, &all[10..40], "{what}");
        let range = format!("bytes 10-39/{len}");
        assert_eq!(one.header("content-range"), Some(range.as_str()), "{what}");

        // Ascending (the object read once) and going back (read again for the second part):
        // the parts in the order the request named them (RFC 9110 §14.6).
        for (spec, order) in [
            (format!("bytes=0-4,100-104,{}-", len - 5), [0, 100, len - 5]),
            (format!("bytes={}-,100-104,0-4", len - 5), [len - 5, 100, 0]),
        ] {
            let mut fields = selecting(media, r);
            fields.push(("range", &spec));
            let parts = request("GET", &path, &fields);
            assert_eq!(parts.status, 206, "{what} {spec}");
            let content_type = parts.header("content-type").unwrap();
            let boundary = content_type
                .strip_prefix("multipart/byteranges; boundary=")
                .unwrap_or_else(|| panic!("{what}: {content_type}"));
            let body = parts.body.clone();
            let pieces: Vec<&[u8]> = split(&body, format!("--{boundary}").as_bytes());
            // A preamble (empty), three parts, and the closing `--`.
            assert_eq!(pieces.len(), 5, "{what} {spec}");
            for (piece, first) in pieces[1..4].iter().zip(order) {
                let part = [&b"\r\n\r\n"[..], &all[first..first + 5], b"\r\n"].concat();
                assert!(piece.ends_with(&part), "{what} {spec}: the part at {first}");
            }
        }

        for (validator, status) in [(r.etag, 206), ("\"another\"", 200)] {
            let mut fields = selecting(media, r);
            fields.push(("range", "bytes=10-39"));
            fields.push(("if-range", validator));
            let reply = request("GET", &path, &fields);
            assert_eq!(reply.status, status, "{what} If-Range {validator}");
            let expected = if status == 206 {
                &all[10..40]
            } else {
                &all[..]
            };
            assert_eq!(reply.body, expected, "{what} If-Range {validator}");
        }
    }
}

/// The stored identity representation of the file at `path`.
fn stored_identity(path: &str) -> &'static Representation<'static> {
    stored()
        .into_iter()
        .find(|(p, s, r)| {
            p == path && matches!(s, Selector::Coding) && r.coding == ContentCoding::Identity
        })
        .unwrap_or_else(|| panic!("{path}: an identity representation in the store"))
        .2
}

const IMMUTABLE: Option<&str> = Some("public, max-age=31536000, immutable");

#[test]
fn a_fingerprinted_link_to_a_stored_file_is_its_object_and_immutable() {
    // The links the page was served with (the link pass's `?v=`, the bytes' version).
    let page = request("GET", "/", &[("accept-encoding", "identity")]);
    let html = String::from_utf8(page.body.clone()).expect("a UTF-8 page");
    let mut paths: Vec<String> = stored().into_iter().map(|(path, _, _)| path).collect();
    paths.dedup();
    let mut fingerprinted = 0;
    for path in paths {
        let Some(at) = html.find(&format!("\"{path}?v=")) else {
            continue;
        };
        let target = &html[at + 1..];
        let target = &target[..target.find('"').expect("a closing quote")];
        let r = stored_identity(&path);
        let reply = request("GET", target, &[("accept-encoding", "identity")]);
        assert_eq!(reply.status, 200, "{target}");
        assert_eq!(reply.header("cache-control"), IMMUTABLE, "{target}");
        assert_eq!(reply.header("etag"), Some(r.etag), "{target}");
        assert!(reply.body == object(r), "{target}: the object's bytes");
        fingerprinted += 1;
    }
    assert!(fingerprinted > 0, "the page links a stored file with ?v=");
}

#[test]
fn a_kept_file_of_an_earlier_deploy_is_its_old_bytes_from_the_store() {
    // Skew protection: the demo history's kept file, in Static Assets by the fixture's glob.
    let kept = "/assets/stamp.bd43f8aebd.js";
    let r = stored_identity(kept);
    let in_assets = matches!(
        r.content,
        Content::Stored {
            store: Store::Assets,
            ..
        }
    );
    assert!(in_assets, "{kept} in Static Assets");
    let mut bodies = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/demo-history/bodies")
        .read_dir()
        .unwrap()
        .map(|e| e.unwrap().path());
    let old = bodies
        .find(|p| p.to_string_lossy().contains("/bd43f8aebd"))
        .expect("the kept file's body in the history");
    let reply = request("GET", kept, &[("accept-encoding", "identity")]);
    assert_eq!(reply.status, 200, "{kept}");
    assert_eq!(reply.header("cache-control"), IMMUTABLE, "{kept}");
    assert!(
        reply.body == std::fs::read(old).unwrap(),
        "{kept}: its bytes"
    );
}

#[test]
fn the_speculation_rules_are_served_beside_the_store() {
    assert!(walk_speculation_rules("/") > 0, "the rules name a page");
}

#[test]
fn no_object_is_reachable_at_its_own_path() {
    // The objects are the Worker's to read, not a visitor's (run_worker_first): 404.
    for (path, _, r) in stored() {
        let key = r.object_key().expect("stored").to_string();
        let reply = request("GET", &format!("/{key}"), &[]);
        assert_eq!(reply.status, 404, "{path}'s object /{key}");
    }
}

/// The pieces of `bytes` between occurrences of `separator`.
fn split<'b>(bytes: &'b [u8], separator: &[u8]) -> Vec<&'b [u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while let Some(at) = rest.windows(separator.len()).position(|w| w == separator) {
        out.push(&rest[..at]);
        rest = &rest[at + separator.len()..];
    }
    out.push(rest);
    out
}
