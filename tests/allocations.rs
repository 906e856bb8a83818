//! The hot path allocates nothing: `decide` and `render` (and walking a multipart
//! body) run with zero heap allocations for every kind of answer, on the real embedded site and
//! with browser-like request headers. Measured per thread by a counting global allocator, so the
//! test harness's own threads cannot disturb the count.
#![cfg(not(target_arch = "wasm32"))]

use edgesite::{RequestHead, SITE};
use edgesite_core::{decide, render, Body, Content, Scratch, Target};

/// What Chrome sends for a page load, roughly.
const BROWSER: [(&str, &str); 3] = [
    ("accept-encoding", "gzip, deflate, br, zstd"),
    (
        "accept",
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
    ),
    ("sec-fetch-mode", "navigate"),
];

fn etag_of(path: &str, coding: &str) -> &'static str {
    let Target::Asset(asset) = &SITE.route(path).unwrap().target else {
        panic!("{path} is a page");
    };
    asset
        .representations
        .iter()
        .find(|r| r.coding.token() == coding)
        .unwrap()
        .etag
}

/// Runs `decide` + `response` (+ reading every header value and body chunk) and returns the
/// status and how many allocations it made.
fn allocations(method: &str, target: &str, fields: &[(&str, &str)]) -> (u16, u64) {
    let mut head = RequestHead::new(method, target);
    for (name, value) in fields {
        head.set_field(name, value.as_bytes());
    }
    let mut status = 0;
    // The site's tables are decoded at its first use (startup), before any request.
    std::sync::LazyLock::force(&SITE);
    let info = allocation_counter::measure(|| {
        let mut response = edgesite::Response::new();
        edgesite::respond_into(std::hint::black_box(&head), &mut response);
        let mut bytes = 0usize;
        for (name, value) in response.fields.iter() {
            bytes += name.len() + value.len();
        }
        match response.body {
            Body::Multipart(multipart) => {
                let Content::Bytes(all) = multipart.representation().content else {
                    panic!("the host build embeds its bytes")
                };
                multipart.for_each_chunk(all, |chunk| bytes += chunk.len());
            }
            Body::Bytes(body) => bytes += body.len(),
            Body::Empty => {}
            Body::Representation { .. } => panic!("the host build embeds its bytes"),
        }
        std::hint::black_box(bytes);
        status = response.status;
    });
    (status, info.count_total)
}

#[test]
fn the_counter_sees_allocations() {
    // Guards against a vacuous pass: the allocator is installed and counting on this thread.
    // The site's tables are decoded at its first use (startup), before any request.
    std::sync::LazyLock::force(&SITE);
    let info = allocation_counter::measure(|| {
        std::hint::black_box(vec![1u8; 16]);
    });
    assert_eq!(info.count_total, 1);
}

/// (name, method, target, header fields, expected status)
type Case<'a> = (&'a str, &'a str, &'a str, &'a [(&'a str, &'a str)], u16);

#[test]
fn decide_and_respond_allocate_nothing() {
    let br_etag = etag_of("/", "br");
    let identity_etag = etag_of("/", "identity");
    let inm_br = [
        BROWSER[0],
        BROWSER[1],
        BROWSER[2],
        ("if-none-match", br_etag),
    ];
    // A URL naming the current bytes (`v`, what the link pass writes): the fingerprinted policy.
    let Target::Asset(app) = &SITE.route("/app.js").unwrap().target else {
        panic!("/app.js is a file");
    };
    let fingerprinted = format!("/app.js?x=1&v={}", app.fingerprint);
    // A delta (RFC 9842): Available-Dictionary names the dictionary of one of app.js's.
    let dictionary = app
        .deltas
        .first()
        .expect("the demo history gives app.js deltas")
        .available_dictionary;
    let delta = [
        ("accept-encoding", "gzip, deflate, br, zstd, dcb, dcz"),
        ("available-dictionary", dictionary),
    ];
    let cases: [Case<'_>; 19] = [
        ("200 identity", "GET", "/", &[("accept", BROWSER[1].1)], 200),
        ("200 fingerprinted", "GET", &fingerprinted, &BROWSER, 200),
        ("200 br", "GET", "/", &BROWSER, 200),
        ("200 delta", "GET", "/app.js", &delta, 200),
        ("304", "GET", "/", &inm_br, 304),
        (
            "304 by date",
            "GET",
            "/app.js",
            &[("if-modified-since", "Fri, 01 Jan 2100 00:00:00 GMT")],
            304,
        ),
        ("206", "GET", "/app.js", &[("range", "bytes=0-99")], 206),
        (
            "206 multipart",
            "GET",
            "/app.js",
            &[("range", "bytes=0-9, 50-59, -5")],
            206,
        ),
        ("404", "GET", "/does/not/exist?x=1", &BROWSER, 404),
        ("412", "GET", "/", &[("if-match", "\"nope\"")], 412),
        ("416", "GET", "/app.js", &[("range", "bytes=999999-")], 416),
        ("308", "GET", "/guide", &BROWSER, 308),
        (
            "308 with the query kept",
            "GET",
            "/guide?a=1",
            &BROWSER,
            308,
        ),
        (
            "301 `_redirects` fixed",
            "GET",
            "/home?from=x",
            &BROWSER,
            301,
        ),
        (
            "302 `_redirects` placeholders",
            "GET",
            "/blog/2024/hello",
            &BROWSER,
            302,
        ),
        (
            "301 `_redirects` splat",
            "GET",
            "/docs/a/b?c",
            &BROWSER,
            301,
        ),
        (
            "200 `_redirects` rewrite",
            "GET",
            "/app/settings",
            &BROWSER,
            200,
        ),
        ("405", "POST", "/", &[], 405),
        (
            "HEAD 200, another page's tag",
            "HEAD",
            "/about",
            &[("if-none-match", identity_etag)],
            200,
        ),
    ];
    for (name, method, target, fields, expected) in cases {
        let (status, count) = allocations(method, target, fields);
        assert_eq!(status, expected, "{name}");
        assert_eq!(count, 0, "{name}: {count} allocations");
    }
}

#[test]
fn decide_and_render_allocate_nothing_with_long_hostile_headers() {
    let long_list = vec!["\"x\""; 1000].join(", ");
    let ranges = format!("bytes={}", vec!["0-0"; 5000].join(","));
    let mut head = RequestHead::new("GET", "/%2e%2e/guide/../app.js");
    head.set_field("if-none-match", long_list.as_bytes());
    head.set_field("range", ranges.as_bytes());
    // The site's tables are decoded at its first use (startup), before any request.
    std::sync::LazyLock::force(&SITE);
    let info = allocation_counter::measure(|| {
        let mut scratch = Scratch::new();
        let decision = decide(&SITE, std::hint::black_box(&head), &mut scratch);
        let mut response = edgesite::Response::new();
        render(&decision, &mut response);
        std::hint::black_box(&response);
    });
    assert_eq!(info.count_total, 0);
}

#[test]
fn respond_timed_allocates_nothing_either() {
    // Server-Timing is formatted into the response's inline buffer.
    let mut head = RequestHead::new("GET", "/");
    for (name, value) in BROWSER {
        head.set_field(name, value.as_bytes());
    }
    let mut tick = 0u64;
    let mut response = edgesite::Response::new();
    // The site's tables are decoded at its first use (startup), before any request.
    std::sync::LazyLock::force(&SITE);
    let info = allocation_counter::measure(|| {
        edgesite_core::respond_timed(&SITE, std::hint::black_box(&head), &mut response, || {
            tick += 1_000;
            tick
        });
        let timing = response.field("server-timing").unwrap();
        std::hint::black_box(timing.len());
    });
    assert_eq!(response.status, 200);
    assert_eq!(info.count_total, 0);
}
