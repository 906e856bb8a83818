//! Request paths over HTTP, against every runtime. Covers:
//!
//! * percent-decoding as UTF-8, dot-segment removal, `//` collapsing, the query ignored;
//! * escapes above the root stay inside the site; NUL, backslash and encoded slashes → 400;
//! * a folder → its index.html; `/dir` → 308 `/dir/`; clean URLs;
//! * the nearest ancestor 404.html, with status 404;
//! * very long paths → 404, never an error.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use support::{get, site_file};

#[test]
fn percent_decoding_dot_segments_and_empty_segments() {
    let about = site_file("/about.html");
    for target in [
        "/%61%62%6F%75%74",
        "//about",
        "/guide/./../about",
        "/./about?x=1#frag",
        "/guide/%2e%2e/about",
    ] {
        let reply = get(target);
        assert_eq!((reply.status, &reply.body), (200, &about), "{target}");
    }
}

#[test]
fn nothing_outside_the_site_can_be_named() {
    for target in [
        "/../../../../etc/passwd",
        "/..%2f..%2fetc%2fpasswd",
        "/%2e%2e/%2e%2e/Cargo.toml",
        "/guide/../../src/lib.rs",
    ] {
        let reply = get(target);
        assert!(
            matches!(reply.status, 400 | 404),
            "{target}: {}",
            reply.status
        );
    }
}

#[test]
fn nul_backslash_and_encoded_slash_are_400() {
    // RFC 9110 §15.5.1.
    for target in [
        "/about%00.html",
        "/guide%5C..%5Cabout",
        "/guide%2Findex.html",
        "/%C3%28",
    ] {
        assert_eq!(get(target).status, 400, "{target}");
    }
}

#[test]
fn the_nearest_404_page_is_sent_with_404() {
    let reply = get("/guide/nothing/here");
    assert_eq!(
        (reply.status, &reply.body),
        (404, &site_file("/guide/404.html"))
    );
    let reply = get("/nothing/here");
    assert_eq!((reply.status, &reply.body), (404, &site_file("/404.html")));
}

#[test]
fn very_long_paths_are_404() {
    let long = format!("/{}", "a".repeat(4000));
    assert_eq!(get(&long).status, 404);
}
