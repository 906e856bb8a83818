//! Content negotiation of precompressed encodings over HTTP (RFC 9110 §12.5.3), against every
//! runtime. Covers:
//!
//! * the smallest acceptable stored representation is sent, with Content-Encoding, its own
//!   strong ETag and its own Content-Length, and decodes to the file's bytes;
//! * q-values, `*`, `identity`, case-insensitive names, `x-gzip`, odd whitespace, `q=0`;
//! * no Accept-Encoding, an empty one, or a malformed one → identity;
//! * nothing acceptable (`identity;q=0`) → 406 with a short body;
//! * `Vary: Accept-Encoding` on every response of a negotiable resource: 200 identity, 206, 304,
//!   406 (§12.5.5), and not on a resource stored in one coding (an image: Accept only);
//! * precompressed bodies are sent as stored, not encoded twice.
//!
//! Relaxations under `wrangler dev`, whose dev proxy applies its own content coding after the
//! Worker answered (seen here with wrangler 4.164.0; bare workerd shows none of it):
//! * it re-encodes: a br answer reaches a client that listed gzip first as gzip, an identity
//!   answer is compressed with br when the client accepts br, gzip bodies are re-compressed;
//! * it answers `Accept-Encoding: identity;q=0` itself with 415, before the Worker runs.
//!
//! So there the Worker's choice is checked by the ETag it sent (each representation has its own
//! strong ETag, which the proxy passes through), bodies by decoding what arrived, and the 406
//! cases are skipped.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use support::{get, request, server, site_file, Reply, Runtime};

const PAGE: &str = "/";
const PAGE_FILE: &str = "/index.html";
/// What every answer of the page varies by: its codings, and its Markdown twin (issue 35).
const PAGE_VARY: &str = "accept, accept-encoding";

fn with_ae(value: &str) -> Reply {
    request("GET", PAGE, &[("accept-encoding", value)])
}

fn wrangler_dev() -> bool {
    server().runtime == Runtime::WranglerDev
}

/// The stored representation of `/` in `coding`, from the embedded tables.
fn stored(coding: &str) -> &'static edgesite_core::Representation<'static> {
    let edgesite_core::Target::Asset(index) = &edgesite::SITE.route(PAGE).unwrap().target else {
        panic!("/ is a page");
    };
    index
        .representations
        .iter()
        .find(|r| r.coding.token() == coding)
        .unwrap()
}

/// The Worker selected `coding` (None = identity): its ETag names it, and, except under
/// wrangler dev, so does Content-Encoding. The content always decodes to the file.
fn assert_selected(reply: &Reply, coding: Option<&str>, what: &str) {
    assert_eq!(reply.status, 200, "{what}");
    assert_eq!(
        reply.header("etag"),
        Some(stored(coding.unwrap_or("identity")).etag),
        "{what}"
    );
    if !wrangler_dev() {
        assert_eq!(reply.header("content-encoding"), coding, "{what}");
    }
    assert_eq!(reply.decoded(), site_file(PAGE_FILE), "{what}");
}

#[test]
fn browsers_get_the_smallest_encoding_and_it_decodes_to_the_file() {
    let reply = with_ae("gzip, deflate, br, zstd");
    assert_selected(&reply, Some("br"), "br is the smallest for the demo index");
    assert!(
        reply.body.len() * 2 < site_file(PAGE_FILE).len(),
        "{} bytes",
        reply.body.len()
    );
    if let Some(len) = reply.header("content-length") {
        assert_eq!(
            len,
            reply.body.len().to_string(),
            "the stored bytes, sent once"
        );
    }
}

#[test]
fn each_coding_is_sent_when_it_is_the_only_one_accepted() {
    let identity_tag = get(PAGE).header("etag").unwrap().to_string();
    let mut tags = vec![identity_tag];
    for coding in ["br", "zstd", "gzip"] {
        let reply = with_ae(coding);
        assert_selected(&reply, Some(coding), coding);
        tags.push(reply.header("etag").unwrap().to_string());
    }
    tags.sort();
    tags.dedup();
    assert_eq!(
        tags.len(),
        4,
        "RFC 9110 §8.8.3: each representation has its own strong ETag"
    );
}

#[test]
fn weights_names_and_whitespace() {
    for (value, coding) in [
        ("br;q=0.1, gzip;q=0.9", Some("gzip")),
        ("BR", Some("br")),
        ("x-gzip", Some("gzip")),
        ("  zstd ;  q=1 ,gzip;q=0.5", Some("zstd")),
        ("br;q=0, gzip", Some("gzip")),
        ("*", Some("br")),
        ("deflate", None),
    ] {
        assert_selected(&with_ae(value), coding, value);
    }
}

#[test]
fn no_empty_or_malformed_accept_encoding_means_identity() {
    let plain = get(PAGE);
    assert_eq!(plain.header("content-encoding"), None);
    assert_eq!(plain.body, site_file(PAGE_FILE));
    for value in ["", "br;q=2", "gzip;;"] {
        assert_selected(&with_ae(value), None, value);
    }
}

#[test]
fn nothing_acceptable_is_406() {
    // RFC 9110 §12.5.3, §15.5.7.
    if wrangler_dev() {
        return; // its proxy answers `identity;q=0` with 415 before the Worker runs (see top)
    }
    for value in ["identity;q=0", "*;q=0", "deflate, identity;q=0"] {
        let reply = with_ae(value);
        assert_eq!(reply.status, 406, "{value}");
        assert!(!reply.body.is_empty() && reply.body.len() < 200);
        assert_eq!(reply.header("vary"), Some(PAGE_VARY));
    }
    // identity excluded, but br stored: br is sent.
    assert_selected(&with_ae("br, identity;q=0"), Some("br"), "br, identity;q=0");
}

#[test]
fn every_response_of_a_negotiable_resource_varies_by_accept_encoding() {
    // RFC 9110 §12.5.5.
    let identity = get(PAGE);
    assert_eq!(identity.header("vary"), Some(PAGE_VARY));
    let etag = identity.header("etag").unwrap().to_string();
    let not_modified = request("GET", PAGE, &[("if-none-match", &etag)]);
    assert_eq!(
        (not_modified.status, not_modified.header("vary")),
        (304, Some(PAGE_VARY))
    );
    let partial = request("GET", PAGE, &[("range", "bytes=0-9")]);
    assert_eq!(
        (partial.status, partial.header("vary")),
        (206, Some(PAGE_VARY))
    );
    // A PNG is stored in one coding: its responses vary by Accept only (its WebP form,
    // tests/images.rs), not by Accept-Encoding.
    let png = request(
        "GET",
        "/images/icon.png",
        &[("accept-encoding", "br, gzip")],
    );
    assert_eq!(png.header("vary"), Some("accept"));
    if !wrangler_dev() {
        assert_eq!(png.header("content-encoding"), None);
    }
}

#[test]
fn head_negotiates_like_get() {
    let get = with_ae("zstd");
    let head = request("HEAD", PAGE, &[("accept-encoding", "zstd")]);
    for field in ["content-encoding", "etag", "vary", "content-type"] {
        assert_eq!(head.header(field), get.header(field), "{field}");
    }
    assert_eq!(head.raw_body_len, 0);
}

#[test]
fn precompressed_bodies_are_sent_exactly_as_stored() {
    // The Worker sends them with manual body encoding, so the runtime never encodes them again.
    for coding in ["br", "zstd", "gzip"] {
        let stored = stored(coding);
        let reply = with_ae(coding);
        assert_eq!(reply.header("content-encoding"), Some(coding));
        assert_eq!(reply.header("etag"), Some(stored.etag));
        if wrangler_dev() && coding == "gzip" {
            // wrangler dev's proxy re-compresses gzip bodies (see top); the content is the file.
            assert_eq!(reply.decoded(), site_file(PAGE_FILE));
        } else {
            // The host build (this test's reference) embeds what the Worker keeps in blobs.
            let edgesite_core::Content::Bytes(bytes) = stored.content else {
                panic!("the host build embeds its bytes")
            };
            assert_eq!(reply.body, bytes, "{coding} body as stored at build time");
        }
    }
}
