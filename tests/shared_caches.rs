//! What a shared cache (a CDN, a proxy) may store of each kind of answer, over HTTP against
//! every runtime (docs/http.md, "Shared caches"). A cache that keys on the URL and what `Vary`
//! names (RFC 9111 §4.1) never hands one client an answer chosen for another; one that ignores
//! `Vary` past Accept-Encoding (as CDNs do) is told `CDN-Cache-Control: private` (RFC 9213) on
//! every answer it could mix up. Covered, on the demo:
//!
//! * a page, an asset, a fingerprinted URL: `Vary: accept-encoding` (RFC 9110 §12.5.5), their
//!   own Cache-Control, no `private`;
//! * an image with variants: `Vary: accept` on the file and on its AVIF, `private` on both;
//! * a dictionary delta (RFC 9842 §6.2): `Vary` naming `available-dictionary`, `private` on the
//!   delta and on its 304, and not on the same file's br answer;
//! * a 404, 400, 405, 406, 412 and 416: an explicit Cache-Control, and the 406's Vary naming
//!   Accept-Encoding;
//! * a redirect: chosen by the URL alone (no Vary), so a cache may keep it as its status says.
//!
//! The SPA fallback's answers are `tests/configured.rs`'s (the demo has no fallback).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use support::{request, Reply, Runtime};

const BROWSER: &str = "gzip, deflate, br, zstd";

fn get(target: &str, fields: &[(&str, &str)]) -> Reply {
    request("GET", target, fields)
}

/// Whether the answer tells CDNs to keep it to the client it was made for.
fn private(reply: &Reply) -> bool {
    reply.header("cdn-cache-control") == Some("private")
}

#[test]
fn pages_assets_and_fingerprinted_urls_vary_by_accept_encoding_alone() {
    // An image the pages reference, stored compressed, with no earlier version (whose deltas
    // would add Available-Dictionary).
    let logo = edgesite_asset("/logo.svg");
    let fingerprinted = format!("/logo.svg?v={}", logo.fingerprint);
    // The twins at their own URLs too (at their pages' URLs, below, they vary by Accept).
    let targets = [
        "/logo.svg",
        fingerprinted.as_str(),
        "/index.md",
        "/about.md",
    ];
    for target in targets {
        let reply = get(target, &[("accept-encoding", BROWSER)]);
        assert_eq!(reply.status, 200, "{target}");
        assert_eq!(reply.header("vary"), Some("accept-encoding"), "{target}");
        assert!(reply.header("cache-control").is_some(), "{target}");
        assert!(!private(&reply), "{target}: nothing a CDN could mix up");
    }
    let immutable = get(&fingerprinted, &[]);
    assert!(immutable
        .header("cache-control")
        .is_some_and(|c| c.contains("immutable")));
}

/// A page with a Markdown twin (issue 35): the page and the twin at its URL vary by Accept, and
/// CDNs that key on the URL alone keep neither.
#[test]
fn a_page_with_a_markdown_twin_varies_by_accept_and_is_kept_from_cdns() {
    for accept in ["*/*", "text/html,*/*;q=0.8", "text/markdown"] {
        for target in ["/", "/about"] {
            let reply = get(target, &[("accept", accept), ("accept-encoding", BROWSER)]);
            assert_eq!(reply.status, 200, "{target} {accept}");
            let vary = reply.header("vary");
            assert_eq!(vary, Some("accept, accept-encoding"), "{target} {accept}");
            assert!(private(&reply), "{target} {accept}");
        }
    }
}

#[test]
fn an_image_with_variants_varies_by_accept_and_is_kept_from_cdns() {
    for accept in ["*/*", "image/avif,image/webp,*/*"] {
        let reply = get("/images/chelsea.jpg", &[("accept", accept)]);
        assert_eq!(reply.status, 200, "{accept}");
        assert_eq!(reply.header("vary"), Some("accept"), "{accept}");
        assert!(private(&reply), "{accept}");
    }
}

/// The Available-Dictionary naming the demo's earlier app.js (tests/fixtures/demo-history).
fn earlier_app_js() -> String {
    use base64::Engine as _;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/demo-history");
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}/deploys.json")).unwrap())
            .unwrap();
    let sha = index["deploys"][0]["files"]["/app.js"].as_str().unwrap();
    let digest = <sha2::Sha256 as sha2::Digest>::digest(
        std::fs::read(format!("{dir}/bodies/{sha}")).unwrap(),
    );
    format!(
        ":{}:",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

#[test]
fn a_delta_is_kept_from_cdns_and_the_same_files_other_answers_are_not() {
    let dictionary = earlier_app_js();
    let fields = [
        ("accept-encoding", "br, dcb, dcz"),
        ("available-dictionary", dictionary.as_str()),
    ];
    let delta = get("/app.js", &fields);
    let coding = delta.header("content-encoding").unwrap_or_default();
    assert!(coding == "dcb" || coding == "dcz", "{coding}");
    assert_eq!(
        delta.header("vary"),
        Some("accept-encoding, available-dictionary")
    );
    assert!(
        private(&delta),
        "RFC 9842 §6.2: only its dictionary's holders can decode it"
    );
    let etag = delta.header("etag").unwrap().to_string();
    let again = get("/app.js", &[fields[0], fields[1], ("if-none-match", &etag)]);
    assert_eq!(again.status, 304);
    assert!(private(&again));
    if support::server().runtime != Runtime::WranglerDev {
        // (wrangler dev's proxy re-encodes br answers by its own choice.)
        let br = get("/app.js", &[("accept-encoding", "br")]);
        assert_eq!(br.header("content-encoding"), Some("br"));
        assert!(!private(&br));
    }
}

#[test]
fn errors_say_how_long_they_may_be_kept() {
    // RFC 9111 §4.2.2: without Cache-Control a 404 may be stored heuristically.
    let missing = get("/nope", &[]);
    assert_eq!(missing.status, 404);
    assert_eq!(missing.header("cache-control"), Some("no-cache"));
    let bad = get("/a%2Fb", &[]);
    assert_eq!(bad.status, 400);
    assert_eq!(bad.header("cache-control"), Some("no-store"));
    let not_allowed = request("DELETE", "/about", &[]);
    assert_eq!(not_allowed.status, 405);
    assert_eq!(not_allowed.header("cache-control"), Some("no-store"));
    // 412 and 416 say nothing of the resource's future either; their Vary is the resource's
    // (a page with a Markdown twin's: Accept too).
    let failed = get("/about", &[("if-match", "\"not-it\"")]);
    assert_eq!(failed.status, 412);
    assert_eq!(failed.header("cache-control"), Some("no-store"));
    assert_eq!(failed.header("vary"), Some("accept, accept-encoding"));
    let unsatisfiable = get("/about", &[("range", "bytes=999999-")]);
    assert_eq!(unsatisfiable.status, 416);
    assert_eq!(unsatisfiable.header("cache-control"), Some("no-store"));
    if support::server().runtime != Runtime::WranglerDev {
        // (wrangler dev's proxy answers `identity;q=0` with its own 415.)
        let refused = get(
            "/images/chelsea.jpg",
            &[("accept-encoding", "identity;q=0")],
        );
        assert_eq!(refused.status, 406);
        assert_eq!(refused.header("vary"), Some("accept, accept-encoding"));
        assert_eq!(refused.header("cache-control"), Some("no-store"));
    }
}

#[test]
fn a_redirect_is_chosen_by_the_url_alone() {
    for fields in [
        &[][..],
        &[("sec-fetch-mode", "navigate"), ("accept-encoding", "br")][..],
    ] {
        let reply = get("/about.html", fields);
        assert_eq!(reply.status, 308);
        assert_eq!(reply.header("location"), Some("/about"));
        assert_eq!(reply.header("vary"), None);
        // RFC 9111 §4.2.2: a 308 is heuristically cacheable, and the same for every client.
        assert_eq!(reply.header("cache-control"), None);
        assert!(!private(&reply));
    }
}

/// A file of the embedded demo, as the tables hold it.
fn edgesite_asset(path: &str) -> &'static edgesite_core::Asset<'static> {
    match &edgesite::SITE.route(path).unwrap().target {
        edgesite_core::Target::Asset(asset) => asset,
        edgesite_core::Target::Redirect(_) => panic!("{path} is a file"),
    }
}
