//! `_redirects` over HTTP, on the demo site's `public/_redirects`:
//!
//! ```text
//! /home               /                                      301
//! /docs/*             /guide/:splat                          301
//! /blog/:year/:slug   https://blog.example.com/:year/:slug   302
//! /app/*              /                                      200
//! ```
//! Covers a fixed redirect, a splat, placeholders to another host, a 200 rewrite, the request's
//! query kept (also by the site's own 308s), HEAD, and 414 for a Location too long to write.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use support::{get, request, server, site_file, Runtime};

/// Status and Location of a GET.
fn redirect(target: &str) -> (u16, String) {
    let reply = get(target);
    // A redirect has no content (RFC 9110 §15.4: the Location is the answer).
    assert!(reply.body.is_empty(), "{target}: {:?}", reply.body);
    let location = reply.header("location").unwrap_or_default().to_string();
    (reply.status, location)
}

#[test]
fn a_fixed_rule_redirects_with_its_status_and_keeps_the_query() {
    // RFC 9110 §15.4.2 (301). The query is the client's; the destination has none of its own.
    assert_eq!(redirect("/home"), (301, "/".into()));
    assert_eq!(
        redirect("/home?from=mail&x=1"),
        (301, "/?from=mail&x=1".into())
    );
    let reply = get("/home");
    if server().runtime != Runtime::WranglerDev {
        // wrangler dev's proxy re-frames bodies as chunked (tests/support/mod.rs).
        assert_eq!(reply.header("content-length"), Some("0"));
    }
    // A redirect is not a resource: none of a file's validators.
    assert_eq!(reply.header("etag"), None);
}

#[test]
fn a_splat_carries_the_rest_of_the_path() {
    assert_eq!(
        redirect("/docs/start/here?x=1"),
        (301, "/guide/start/here?x=1".into())
    );
    // The splat may be empty: `/docs` and `/docs/` both match `/docs/*`.
    assert_eq!(redirect("/docs"), (301, "/guide/".into()));
    assert_eq!(redirect("/docs/"), (301, "/guide/".into()));
    // Captures are decoded paths, encoded again for the Location (RFC 3986 §2.1).
    assert_eq!(
        redirect("/docs/caf%C3%A9%20menu"),
        (301, "/guide/caf%C3%A9%20menu".into())
    );
    // Following the redirect leads to the page.
    assert_eq!(get("/guide/").body, site_file("/guide/index.html"));
}

#[test]
fn placeholders_fill_a_destination_on_another_host() {
    // RFC 9110 §15.4.3 (302, the default status of a rule).
    assert_eq!(
        redirect("/blog/2026/hello-world"),
        (302, "https://blog.example.com/2026/hello-world".into())
    );
    // A placeholder is one segment: `/blog/2026` and `/blog/2026/a/b` match nothing.
    assert_eq!(get("/blog/2026").status, 404);
    assert_eq!(get("/blog/2026/a/b").status, 404);
}

#[test]
fn a_rewrite_serves_another_file_at_the_same_url() {
    let reply = get("/app/settings/profile");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("location"), None);
    let root = get("/");
    assert_eq!(reply.decoded(), root.decoded());
    // The same representation, so the same validator: a cache can revalidate it.
    let etag = root.header("etag").unwrap().to_string();
    let revalidated = request("GET", "/app/x", &[("if-none-match", &etag)]);
    assert_eq!(revalidated.status, 304);
    // Files are served before rewrites: `/app/*` does not hide `/app.js`.
    assert_eq!(get("/app.js").body, site_file("/app.js"));
}

#[test]
fn the_sites_own_redirects_keep_the_query_too() {
    // RFC 9110 §15.4.9 (308).
    assert_eq!(redirect("/guide?tab=2"), (308, "/guide/?tab=2".into()));
    assert_eq!(redirect("/about.html?x"), (308, "/about?x".into()));
}

#[test]
fn head_of_a_redirect_has_its_fields() {
    // RFC 9110 §9.3.2.
    let reply = request("HEAD", "/home?q=1", &[]);
    assert_eq!(reply.status, 301);
    assert_eq!(reply.header("location"), Some("/?q=1"));
    assert!(reply.body.is_empty());
}

#[test]
fn a_location_too_long_to_write_is_414() {
    // RFC 9110 §15.5.15: edgesite writes Locations of up to 2,048 bytes.
    let query = "q".repeat(3000);
    let reply = get(&format!("/guide?{query}"));
    assert_eq!(reply.status, 414);
    assert_eq!(reply.header("location"), None);
    let fits = "q".repeat(2048 - "/guide/?".len());
    let (status, location) = redirect(&format!("/guide?{fits}"));
    assert_eq!((status, location.len()), (308, 2048));
}
