//! `edgesite.toml` policies over HTTP, against a server of `tests/fixtures/configured.toml` (the
//! fixture site with every policy changed): in a plain `cargo test`, the native twin in-process
//! serving that configuration's compile (`support::FIXTURES`); in `make test` also the Worker
//! built with it under bare workerd. Covers:
//!
//! * the SPA fallback: a navigation (`Sec-Fetch-Mode: navigate`, or an `Accept` naming
//!   `text/html` with a weight above 0) to an extension-less path that matches nothing gets the
//!   app with 200; a non-navigation request, or a path with a file extension, still gets 404;
//! * `site.trailing_slash = "never"`: `/docs` serves the folder's index, `/docs/` redirects 308;
//! * `[cache]`: a `[[cache.rules]]` pattern, the `default`, HTML's `no-cache`, and
//!   `CDN-Cache-Control` from `cdn` on 200 and 304 (RFC 9111 §5.2.2);
//! * `_headers` (Pages syntax): a splat substituted into a value, `! Referrer-Policy` removing a
//!   default, a placeholder, and a `Cache-Control` override, on 200 and 304;
//! * `[headers]`: the opt-in CSP, HSTS and CORS fields, a changed Referrer-Policy and the build
//!   id (`X-Edgesite-Build`), on every response;
//! * `_redirects` (Pages syntax): a fixed 301, a splat under the `never` trailing-slash policy,
//!   a placeholder substituted into a destination's query (which replaces the request's), and a
//!   200 rewrite.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use support::{get, request};

const FIXTURE_SITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/site");

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!("{FIXTURE_SITE}{path}")).unwrap()
}

/// `[agents]`: each page but the excluded root has its twin, with the configured
/// `Content-Signal`, at its `.md` URL and at its own for `Accept: text/markdown`; that page's
/// answers vary by Accept and are kept from CDNs in place of `cache.cdn` (issue 35).
#[test]
fn pages_but_the_excluded_root_have_twins_with_the_content_signal() {
    for target in ["/docs/page", "/docs/page.md"] {
        let twin = request("GET", target, &[("accept", "text/markdown")]);
        assert_eq!(twin.status, 200, "{target}");
        let kind = twin.header("content-type");
        assert_eq!(kind, Some("text/markdown; charset=utf-8"), "{target}");
        let signal = twin.header("content-signal");
        assert_eq!(signal, Some("ai-train=no, search=yes"), "{target}");
    }
    let page = request("GET", "/docs/page", &[("accept", "text/html")]);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    // (Too small to be stored compressed: Accept alone.)
    assert_eq!(page.header("vary"), Some("accept"));
    assert_eq!(page.header("cdn-cache-control"), Some("private"));
    assert_eq!(get("/index.md").status, 404);
    let root = request("GET", "/", &[("accept", "text/markdown")]);
    assert!(root
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
}

#[test]
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
fn other_requests_and_missing_files_stay_404() {
    assert_eq!(
        request("GET", "/app/users/42", &[("sec-fetch-mode", "cors")]).status,
        404
    );
    assert_eq!(get("/app/users/42").status, 404);
    // RFC 9110 §12.5.1: text/html refused (q=0) or only through */* is not a navigation.
    for accept in ["text/html;q=0, */*", "*/*", "TEXT/HTML;q=0.000"] {
        let reply = request("GET", "/app/users/42", &[("accept", accept)]);
        assert_eq!(reply.status, 404, "{accept}");
    }
    // A missing script must not be answered with HTML.
    let reply = request("GET", "/app/missing.js", &[("sec-fetch-mode", "navigate")]);
    assert_eq!((reply.status, reply.body), (404, fixture("/404.html")));
}

#[test]
fn the_fallbacks_answers_vary_by_what_tells_a_navigation_and_are_kept_from_cdns() {
    // RFC 9110 §12.5.5: at a path the fallback answers, Sec-Fetch-Mode (or Accept) chose
    // between the app and a 404, so both name it; a CDN that keys on neither is told `private`
    // (RFC 9213) in place of `cache.cdn`, which a file's own answers keep.
    let app = request("GET", "/app/users/42", &[("sec-fetch-mode", "navigate")]);
    assert_eq!(app.status, 200);
    let vary = app.header("vary").unwrap_or_default();
    assert!(
        vary.contains("sec-fetch-mode") && vary.contains("accept"),
        "{vary}"
    );
    assert_eq!(app.header("cdn-cache-control"), Some("private"));
    let etag = app.header("etag").unwrap().to_string();
    let again = request(
        "GET",
        "/app/users/42",
        &[("sec-fetch-mode", "navigate"), ("if-none-match", &etag)],
    );
    assert_eq!(again.status, 304);
    assert_eq!(again.header("vary"), Some(vary));
    assert_eq!(again.header("cdn-cache-control"), Some("private"));
    let fetched = request("GET", "/app/users/42", &[("sec-fetch-mode", "cors")]);
    assert_eq!(fetched.status, 404);
    assert_eq!(fetched.header("vary"), Some("accept, sec-fetch-mode"));
    assert_eq!(fetched.header("cdn-cache-control"), Some("private"));
    assert_eq!(fetched.header("cache-control"), Some("no-cache"));
    let page = request("GET", "/", &[("sec-fetch-mode", "navigate")]);
    assert_eq!(page.status, 200);
    assert!(!page
        .header("vary")
        .unwrap_or_default()
        .contains("sec-fetch-mode"));
    assert_eq!(
        page.header("cdn-cache-control"),
        Some("public, max-age=86400, stale-while-revalidate=60")
    );
}

#[test]
fn files_are_served_as_usual() {
    let reply = request("GET", "/hello.txt", &[("sec-fetch-mode", "navigate")]);
    assert_eq!((reply.status, reply.body), (200, fixture("/hello.txt")));
}

#[test]
fn cache_rules_default_html_and_the_cdn_policy() {
    let cdn = Some("public, max-age=86400, stale-while-revalidate=60");
    // (/docs/page has a Markdown twin: CDNs are told `private` there, below.)
    let rule = get("/docs");
    assert_eq!(
        (
            rule.header("cache-control"),
            rule.header("cdn-cache-control")
        ),
        (Some("public, max-age=600"), cdn)
    );
    let default = get("/hello.txt");
    assert_eq!(
        (
            default.header("cache-control"),
            default.header("cdn-cache-control")
        ),
        (Some("public, max-age=60"), cdn)
    );
    assert_eq!(get("/").header("cache-control"), Some("no-cache"));
    // RFC 9110 §15.4.5: the 304 repeats the caching fields of the 200.
    let etag = default.header("etag").unwrap();
    let not_modified = request("GET", "/hello.txt", &[("if-none-match", etag)]);
    assert_eq!(
        (
            not_modified.status,
            not_modified.header("cdn-cache-control")
        ),
        (304, cdn)
    );
}

#[test]
fn configured_security_headers_are_on_every_response() {
    for path in ["/", "/hello.txt", "/nope.txt", "/docs"] {
        let reply = get(path);
        assert_eq!(
            reply.header("content-security-policy"),
            Some("default-src 'self'"),
            "{path}"
        );
        assert_eq!(
            reply.header("strict-transport-security"),
            Some("max-age=63072000; includeSubDomains"),
            "{path}"
        );
        assert_eq!(
            reply.header("access-control-allow-origin"),
            Some("*"),
            "{path}"
        );
        assert_eq!(
            reply.header("referrer-policy"),
            Some("no-referrer"),
            "{path}"
        );
        assert_eq!(
            reply.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
    }
}

#[test]
fn trailing_slash_never_serves_folders_without_the_slash() {
    let reply = get("/docs");
    assert_eq!(
        (reply.status, reply.body),
        (200, fixture("/docs/index.html"))
    );
    let redirect = get("/docs/");
    assert_eq!(
        (redirect.status, redirect.header("location")),
        (308, Some("/docs"))
    );
}

#[test]
fn headers_file_rules_take_effect() {
    // tests/fixtures/site/_headers
    let page = get("/docs/page");
    assert_eq!(page.status, 200);
    assert_eq!(page.header("x-docs-page"), Some("page"));
    assert_eq!(
        page.header("referrer-policy"),
        None,
        "! Referrer-Policy removes the default"
    );
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    let data = get("/data.json");
    assert_eq!(data.header("x-data-file"), Some("data"));
    assert_eq!(data.header("cache-control"), Some("public, max-age=30"));
    // RFC 9110 §15.4.5: the 304 repeats what the 200 carried.
    let etag = data.header("etag").unwrap();
    let not_modified = request("GET", "/data.json", &[("if-none-match", etag)]);
    assert_eq!(not_modified.status, 304);
    assert_eq!(not_modified.header("x-data-file"), Some("data"));
    assert_eq!(
        not_modified.header("cache-control"),
        Some("public, max-age=30")
    );
}

#[test]
fn the_fixture_redirects_take_effect() {
    let location = |target: &str| {
        let reply = get(target);
        (
            reply.status,
            reply.header("location").unwrap_or_default().to_string(),
        )
    };
    // RFC 9110 §15.4.2, the request's query kept.
    assert_eq!(location("/old-hello?a=1"), (301, "/hello.txt?a=1".into()));
    // RFC 9110 §15.4.9; the splat is the rest of the path.
    assert_eq!(location("/docs/v1/page"), (308, "/docs/page".into()));
    // RFC 9110 §15.4.3: the destination's own query replaces the request's.
    assert_eq!(
        location("/hi/ann%20b?x=1"),
        (302, "/hello.txt?greet=ann%20b".into())
    );
    // A 200 rewrite: data.json's bytes and validator at another URL.
    let reply = get("/data/anything");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, fixture("/data.json"));
    assert_eq!(reply.header("etag"), get("/data.json").header("etag"));
}

#[test]
fn the_build_id_is_on_every_response() {
    // headers.build_id = true: X-Edgesite-Build, 16 hex digits, the same on every answer of one
    // build (a file, a 404, a redirect, a 304).
    let id = get("/").header("x-edgesite-build").map(str::to_string);
    let id = id.expect("x-edgesite-build on a 200");
    assert!(
        id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()),
        "{id}"
    );
    let etag = get("/hello.txt").header("etag").unwrap().to_string();
    for reply in [
        get("/nope.txt"),
        get("/docs/"),
        request("GET", "/hello.txt", &[("if-none-match", &etag)]),
    ] {
        assert_eq!(
            reply.header("x-edgesite-build"),
            Some(id.as_str()),
            "{}",
            reply.status
        );
    }
}

#[test]
fn speculation_rules_name_the_pages_at_their_configured_urls() {
    // trailing_slash = "never": /docs, not /docs/ (a redirect). With the SPA fallback, a
    // navigation to any extension-less path is answered 200, but the rules name only the
    // site's own pages: /, /docs and /docs/page.
    assert_eq!(support::walk_speculation_rules("/docs/page"), 3);
}
