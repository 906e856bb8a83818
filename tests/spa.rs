//! The single-page-application fallback over HTTP, against a server built with
//! `tests/fixtures/spa.toml` (the fixture site, `spa_fallback = "/index.html"`). The tests are
//! `#[ignore]`d in a plain `cargo test` (whose in-process server embeds the demo site, which has
//! no fallback); `make test` runs them with `--ignored` against the native twin and the Worker
//! under bare workerd, both built with that config. Covers:
//!
//! * a navigation (`Sec-Fetch-Mode: navigate`, or `Accept` listing `text/html`) to an
//!   extension-less path that matches nothing gets the fallback with 200, and its validators;
//! * a non-navigation request, or a path with a file extension, still gets 404;
//! * existing files are served as usual.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use support::{get, request};

const FIXTURE_SITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/site");

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!("{FIXTURE_SITE}{path}")).unwrap()
}

#[test]
#[ignore = "needs a server built with tests/fixtures/spa.toml; make test runs it"]
fn navigations_to_unknown_routes_get_the_app() {
    for header in [
        ("sec-fetch-mode", "navigate"),
        ("accept", "text/html,application/xhtml+xml;q=0.9"),
    ] {
        let reply = request("GET", "/app/users/42?tab=1", &[header]);
        assert_eq!(reply.status, 200, "{header:?}");
        assert_eq!(reply.body, fixture("/index.html"), "{header:?}");
        assert!(reply.header("etag").is_some(), "{header:?}");
    }
}

#[test]
#[ignore = "needs a server built with tests/fixtures/spa.toml; make test runs it"]
fn other_requests_and_missing_files_stay_404() {
    assert_eq!(
        request("GET", "/app/users/42", &[("sec-fetch-mode", "cors")]).status,
        404
    );
    assert_eq!(get("/app/users/42").status, 404);
    // A missing script must not be answered with HTML.
    let reply = request("GET", "/app/missing.js", &[("sec-fetch-mode", "navigate")]);
    assert_eq!((reply.status, reply.body), (404, fixture("/404.html")));
}

#[test]
#[ignore = "needs a server built with tests/fixtures/spa.toml; make test runs it"]
fn files_are_served_as_usual() {
    let reply = request("GET", "/hello.txt", &[("sec-fetch-mode", "navigate")]);
    assert_eq!((reply.status, reply.body), (200, fixture("/hello.txt")));
}
