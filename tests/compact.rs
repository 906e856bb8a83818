//! Compact storage over HTTP (`[compression] store = "compact"`), against a server of
//! `tests/fixtures/compact.toml` (the demo site storing only br and gzip of compressible
//! files): in a plain `cargo test`, the native twin in-process serving that configuration's
//! compile (`support::FIXTURES`); in `make test` also the Worker built with it under bare
//! workerd. The identity
//! representation is decoded on demand, and is exactly the full-storage one:
//!
//! * a client without br or gzip gets the file's bytes, with the identity's strong ETag (the
//!   same as in full storage: RFC 9110 §8.8.3, it names the same bytes) and Content-Length;
//! * If-None-Match with that ETag is 304 (§13.1.2), If-Range with it gives the range (§13.1.5);
//! * ranges of the identity, one or several, are the file's bytes (§14.2, §14.6); HEAD has the
//!   fields of GET and no content (§9.3.2);
//! * br and gzip are sent as stored; zstd, not stored, is never offered;
//! * a 404 page stored compact is decoded too; answers stay right on repetition (the decoded
//!   bytes are cached).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use edgesite_core::{ContentCoding, Target};
use support::{request, site_file};

/// The identity's strong ETag in full storage (the host build's embedded demo site).
fn full_storage_etag(path: &str, coding: ContentCoding) -> &'static str {
    let Target::Asset(asset) = &edgesite::SITE.route(path).unwrap().target else {
        panic!("{path} is a file");
    };
    asset
        .representations
        .iter()
        .find(|r| r.coding == coding)
        .unwrap()
        .etag
}

#[test]
fn a_client_without_br_or_gzip_gets_the_identity_decoded_with_its_etag() {
    for (name, fields) in [
        ("no Accept-Encoding", &[][..]),
        ("zstd only", &[("accept-encoding", "zstd")][..]),
        ("identity", &[("accept-encoding", "identity")][..]),
    ] {
        for _ in 0..2 {
            let reply = request("GET", "/", fields);
            assert_eq!(reply.status, 200, "{name}");
            assert_eq!(reply.header("content-encoding"), None, "{name}");
            assert_eq!(reply.body, site_file("/index.html"), "{name}");
            assert_eq!(
                reply.header("etag"),
                Some(full_storage_etag("/", ContentCoding::Identity)),
                "{name}"
            );
            assert_eq!(
                reply.header("content-length"),
                Some(site_file("/index.html").len().to_string().as_str())
            );
            // Accept too: the page's Markdown twin (issue 35).
            assert_eq!(reply.header("vary"), Some("accept, accept-encoding"));
        }
    }
}

#[test]
fn br_and_gzip_are_sent_as_stored() {
    for coding in [ContentCoding::Br, ContentCoding::Gzip] {
        let reply = request("GET", "/", &[("accept-encoding", coding.token())]);
        assert_eq!(reply.header("content-encoding"), Some(coding.token()));
        assert_eq!(reply.header("etag"), Some(full_storage_etag("/", coding)));
    }
}

#[test]
fn the_decoded_identity_answers_conditionals_ranges_and_head() {
    let file = site_file("/style.css");
    let etag = full_storage_etag("/style.css", ContentCoding::Identity);
    // RFC 9110 §13.1.2.
    let reply = request("GET", "/style.css", &[("if-none-match", etag)]);
    assert_eq!((reply.status, reply.body.len()), (304, 0));
    // §14.2, §13.1.5.
    let reply = request(
        "GET",
        "/style.css",
        &[("range", "bytes=10-19"), ("if-range", etag)],
    );
    assert_eq!(reply.status, 206);
    assert_eq!(reply.body, &file[10..20]);
    let total = format!("bytes 10-19/{}", file.len());
    assert_eq!(reply.header("content-range"), Some(total.as_str()));
    // §14.6: several ranges of the identity, as multipart/byteranges.
    let reply = request("GET", "/style.css", &[("range", "bytes=0-1, -2")]);
    assert_eq!(reply.status, 206);
    let text = String::from_utf8(reply.body).unwrap();
    let first = String::from_utf8(file[..2].to_vec()).unwrap();
    let last = String::from_utf8(file[file.len() - 2..].to_vec()).unwrap();
    assert!(text.contains(&format!("\r\n\r\n{first}\r\n")), "{text}");
    assert!(text.contains(&format!("\r\n\r\n{last}\r\n")), "{text}");
    // §9.3.2.
    let head = request("HEAD", "/style.css", &[]);
    assert_eq!(
        head.header("content-length"),
        Some(file.len().to_string().as_str())
    );
    assert_eq!(head.raw_body_len, 0);
}

#[test]
fn a_404_page_stored_compact_is_decoded() {
    let reply = request("GET", "/nope", &[]);
    assert_eq!((reply.status, reply.body), (404, site_file("/404.html")));
}
