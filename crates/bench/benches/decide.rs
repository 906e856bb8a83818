//! `decide` + `response` per scenario, in ns: the pure core on the real embedded demo site with
//! browser-like request headers, and the route lookup on a generated 10,000-file site (binary
//! search over the sorted table, hit and miss). No I/O, no allocation (tests/allocations.rs
//! proves that); what is measured is parsing the header fields, the lookup and the rendering.
//! Run with `make bench`.
#![allow(missing_docs)] // criterion's macros generate undocumented items

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use edgesite_core::{
    respond_into, Asset, Content, ContentCoding, Representation, RequestHead, Response, Route,
    Site, Target,
};
use std::time::Duration;

/// What Chromium 156 sends (read off a request it made on this machine).
const CHROME_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/jxl,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";
const CHROME_AE: &str = "gzip, deflate, br, zstd";
const CHROME_IMAGE_ACCEPT: &str =
    "image/jxl,image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
/// What an agent sends for a page it would rather read as Markdown.
const AGENT_ACCEPT: &str = "text/markdown, text/html;q=0.9, */*;q=0.8";

fn head<'a>(target: &'a str, fields: &[(&'a str, &'a str)]) -> RequestHead<'a> {
    let mut head = RequestHead::new("GET", target);
    for (name, value) in fields {
        head.set_field(name, value.as_bytes());
    }
    head
}

/// What an adapter does per request: a fresh [`Response`], filled in place.
fn answer(site: &'static Site<'static>, request: &RequestHead<'_>) -> u16 {
    let mut response = Response::new();
    respond_into(site, request, &mut response);
    black_box(&response);
    response.status
}

fn etag(site: &Site<'_>, path: &str, coding: &str) -> String {
    let Target::Asset(asset) = &site.route(path).unwrap().target else {
        panic!("{path}")
    };
    asset
        .representations
        .iter()
        .find(|r| r.coding.token() == coding)
        .unwrap()
        .etag
        .to_string()
}

fn demo(c: &mut Criterion) {
    let site = &edgesite::SITE;
    let br_etag = etag(site, "/", "br");
    let browser = [
        ("accept-encoding", CHROME_AE),
        ("accept", CHROME_ACCEPT),
        ("sec-fetch-mode", "navigate"),
    ];
    let revalidate = [
        browser[0],
        browser[1],
        browser[2],
        ("if-none-match", br_etag.as_str()),
    ];
    // RFC 9842: a browser holding the previous app.js (the demo's history) asks for the new one.
    let Target::Asset(app) = &site.route("/app.js").unwrap().target else {
        panic!("/app.js")
    };
    let dictionary = app.deltas[0].available_dictionary;
    let script = [
        ("accept-encoding", "gzip, deflate, br, zstd, dcb, dcz"),
        ("sec-fetch-mode", "no-cors"),
    ];
    let delta = [script[0], script[1], ("available-dictionary", dictionary)];
    let image = [
        ("accept", CHROME_IMAGE_ACCEPT),
        ("accept-encoding", CHROME_AE),
        ("sec-fetch-mode", "no-cors"),
    ];
    let scenarios: Vec<(&str, RequestHead<'_>)> = vec![
        (
            "200 identity (no Accept-Encoding)",
            head("/", &[("accept", CHROME_ACCEPT)]),
        ),
        ("200 br (browser headers)", head("/", &browser)),
        // A page with a Markdown twin (issue 35): Accept weighed on every request that has one.
        (
            "200 br page, no Accept (nothing to weigh)",
            head("/", &[browser[0], browser[2]]),
        ),
        (
            "200 br page, an Accept parsed (text/html,*/*;q=0.8)",
            head(
                "/",
                &[browser[0], ("accept", "text/html,*/*;q=0.8"), browser[2]],
            ),
        ),
        (
            "200 br Markdown twin at the page's URL (an agent's Accept)",
            head("/", &[browser[0], ("accept", AGENT_ACCEPT)]),
        ),
        (
            "304 (browser headers + If-None-Match)",
            head("/", &revalidate),
        ),
        (
            "206 single range",
            head("/app.js", &[("range", "bytes=0-99")]),
        ),
        (
            "206 multipart, 3 ranges",
            head("/app.js", &[("range", "bytes=0-9,50-59,-5")]),
        ),
        ("404 (browser headers)", head("/does/not/exist", &browser)),
        ("200 br, app.js (script headers)", head("/app.js", &script)),
        (
            "200 dcb delta, app.js (+ Available-Dictionary)",
            head("/app.js", &delta),
        ),
        // Image variants (RFC 9110 §12.5.1): the AVIF of a JPEG for Chromium's <img> headers,
        // and the JPEG for curl's.
        (
            "200 image AVIF (Chromium <img> headers)",
            head("/images/coffee.jpg", &image),
        ),
        (
            "200 image original (Accept: */*)",
            head(
                "/images/coffee.jpg",
                &[("accept", "*/*"), image[1], image[2]],
            ),
        ),
    ];
    let mut group = c.benchmark_group("demo site");
    for (name, request) in &scenarios {
        group.bench_function(*name, |b| b.iter(|| answer(site, black_box(request))));
    }
    group.finish();
}

/// The demo's `/` as a one-route site, with its Markdown twin as its alternate or without:
/// everything else (the page's representations and fields, the site's fields) the same.
fn front_page(alternate: bool) -> &'static Site<'static> {
    let site = &edgesite::SITE;
    let Target::Asset(index) = &site.route("/").unwrap().target else {
        panic!("/")
    };
    assert!(index.alternate.is_some(), "the demo's / has a twin");
    let page: &'static Asset<'static> = leak(Box::new(Asset {
        alternate: index.alternate.filter(|_| alternate),
        ..**index
    }));
    leak(Box::new(Site {
        routes: leak(
            vec![Route {
                path: "/",
                target: Target::Asset(page),
            }]
            .into_boxed_slice(),
        ),
        fields: site.fields,
        boundary: site.boundary,
        multipart_content_type: site.multipart_content_type,
        fingerprinted_cache_control: site.fingerprinted_cache_control,
        shared_caches: site.shared_caches,
        ..Site::EMPTY
    }))
}

/// Issue 35's hot path: a browser's request for a page with a Markdown twin against the same
/// page without one (the Accept weighed, or not), and the twin's 200 against a plain 200.
fn twin(c: &mut Criterion) {
    let (with, without) = (front_page(true), front_page(false));
    let browser = [
        ("accept-encoding", CHROME_AE),
        ("accept", CHROME_ACCEPT),
        ("sec-fetch-mode", "navigate"),
    ];
    let agent = [("accept-encoding", CHROME_AE), ("accept", AGENT_ACCEPT)];
    let scenarios = [
        (
            "page with a twin, Chromium's navigation",
            with,
            &browser[..],
        ),
        (
            "page without a twin, Chromium's navigation",
            without,
            &browser[..],
        ),
        (
            "page with a twin, no Accept",
            with,
            &[browser[0], browser[2]][..],
        ),
        (
            "page without a twin, no Accept",
            without,
            &[browser[0], browser[2]][..],
        ),
        ("the twin, an agent's Accept", with, &agent[..]),
        (
            "page without a twin, an agent's Accept",
            without,
            &agent[..],
        ),
    ];
    let mut group = c.benchmark_group("twin");
    for (name, site, fields) in scenarios {
        let request = head("/", fields);
        group.bench_function(name, |b| b.iter(|| answer(site, black_box(&request))));
    }
    group.finish();
}

fn leak<T: ?Sized>(value: Box<T>) -> &'static T {
    Box::leak(value)
}

/// A generated site of `n` small pages in 100 folders, as the route table sitegen would build
/// (clean URLs, sorted by path), leaked to `'static`.
fn generated_site(n: usize) -> &'static Site<'static> {
    let text = |s: String| leak(s.into_boxed_str());
    let assets: Vec<Asset<'static>> = (0..n)
        .map(|i| {
            let body = text(format!("<p>page {i}</p>"));
            Asset {
                deltas: &[],
                variants: &[],
                alternate: None,
                content_type: "text/html; charset=utf-8",
                last_modified: "Tue, 14 Nov 2023 22:13:20 GMT",
                last_modified_unix: 1_700_000_000,
                cache_control: "no-cache",
                fingerprint: "",
                fields: &[],
                representations: leak(Box::new([Representation {
                    coding: ContentCoding::Identity,
                    etag: text(format!("\"etag-{i:05}\"")),
                    content_length: text(body.len().to_string()),
                    content: Content::Bytes(body.as_bytes()),
                }])),
            }
        })
        .collect();
    let assets: &'static [Asset<'static>] = leak(assets.into_boxed_slice());
    let mut routes: Vec<Route<'static>> = (0..n)
        .map(|i| Route {
            path: text(format!("/section-{:02}/page-{i:05}", i % 100)),
            target: Target::Asset(&assets[i]),
        })
        .collect();
    routes.sort_by(|a, b| a.path.cmp(b.path));
    leak(Box::new(Site {
        routes: leak(routes.into_boxed_slice()),
        ..Site::EMPTY
    }))
}

fn large(c: &mut Criterion) {
    let site = generated_site(10_000);
    let browser = [("accept-encoding", CHROME_AE), ("accept", CHROME_ACCEPT)];
    let hit = head("/section-42/page-05042", &browser);
    let miss = head("/section-42/page-99999", &browser);
    let mut group = c.benchmark_group(format!("generated site, {} routes", site.routes.len()));
    group.bench_function("200 (lookup hit)", |b| {
        b.iter(|| answer(site, black_box(&hit)));
    });
    group.bench_function("404 (lookup miss)", |b| {
        b.iter(|| answer(site, black_box(&miss)));
    });
    group.bench_function("route lookup alone", |b| {
        b.iter(|| site.route(black_box("/section-42/page-05042")));
    });
    group.finish();
}

/// A site with 10,000 `_redirects` rules with placeholders (100 sections of 100 rules; even
/// ones redirect, odd ones rewrite to the page), compiled by edgesite-sitegen (its parser, checks
/// and rule index), and one file.
fn rules_site(dir: &std::path::Path) -> edgesite_sitegen::Manifest {
    let rules: String = (0..10_000)
        .map(|i| match i % 2 {
            0 => format!(
                "/section-{:02}/old-{i:05}/:slug /new/{i}/:slug 301\n",
                i % 100
            ),
            _ => format!("/section-{:02}/old-{i:05}/:slug /page.html 200\n", i % 100),
        })
        .collect();
    std::fs::write(dir.join("_redirects"), rules).unwrap();
    std::fs::write(dir.join("page.html"), "<p>hi</p>").unwrap();
    let mut options = edgesite_sitegen::Options::new(std::time::SystemTime::UNIX_EPOCH);
    options.config.site.clean_urls = false;
    edgesite_sitegen::compile(dir, &options).unwrap()
}

/// Issue 11's target: a request matched by one of 10,000 dynamic rules within 2x of a route hit
/// on the same site.
fn many_rules(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let manifest = rules_site(dir.path());
    manifest.with_routing(|site| {
        let browser = [("accept-encoding", CHROME_AE), ("accept", CHROME_ACCEPT)];
        let route = head("/page.html", &browser);
        let rule = head("/section-42/old-05042/hello", &browser);
        let rewrite = head("/section-43/old-05043/hello", &browser);
        let miss = head("/section-42/nothing/hello", &browser);
        let mut group = c.benchmark_group("10,000 dynamic rules");
        let mut run = |name: &str, request: &RequestHead<'_>, status: u16| {
            let mut response = Response::new();
            respond_into(site, request, &mut response);
            assert_eq!(response.status, status, "{name}");
            group.bench_function(name, |b| {
                b.iter(|| {
                    respond_into(site, black_box(request), &mut response);
                    black_box(&response);
                });
            });
        };
        run("200 (route hit)", &route, 200);
        run("200 (rule hit: a rewrite)", &rewrite, 200);
        run("301 (rule hit: a redirect)", &rule, 301);
        run("404 (no route, no rule)", &miss, 404);
        group.finish();
    });
}

criterion_group! {
    name = benches;
    // Bounded in time: about 2 s of measurement per benchmark.
    config = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = demo, twin, large, many_rules
}
criterion_main!(benches);
