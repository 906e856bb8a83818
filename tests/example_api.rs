//! The example Worker (`examples/api-worker`: an API route beside an embedded site, edgesite
//! in library mode), end to end under `wrangler dev`. `#[ignore]`d in a plain `cargo test`;
//! `make test` starts the example and runs this with `EDGESITE_BASE_URL` pointing at it.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use support::{get, request};

const SITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/api-worker/site");

#[test]
#[ignore = "needs the example Worker under wrangler dev; make test runs it"]
fn the_api_route_is_the_workers_own() {
    let reply = get("/api/hello");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.decoded(), b"{\"hello\":\"world\"}");
    let reply = request("POST", "/api/hello", &[]);
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("allow"), Some("GET, HEAD"));
    assert_eq!(get("/api/nope").status, 404);
}

/// A file of the example's site as its build serves it: compiled here with the example's
/// configuration (the link pass gives the page's stylesheet reference a `?v=`).
fn served(path: &str) -> Vec<u8> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/api-worker");
    let config = edgesite_sitegen::Config::load(&root.join("edgesite.toml")).unwrap();
    let options = edgesite_sitegen::Options::from_config(config.clone(), std::time::UNIX_EPOCH);
    let manifest = edgesite_sitegen::compile(std::path::Path::new(SITE), &options).unwrap();
    let file = manifest.files.iter().find(|f| f.path == path).unwrap();
    match file.identity_bytes() {
        Some(bytes) => bytes.to_vec(),
        None => file.source.read().unwrap().into_owned(),
    }
}

#[test]
#[ignore = "needs the example Worker under wrangler dev; make test runs it"]
fn the_embedded_site_answers_everything_else() {
    let index = served("/index.html");
    let reply = get("/");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.decoded(), index);
    // edgesite's validators and conditional requests (RFC 9110 §13.1.2).
    let etag = reply.header("etag").unwrap().to_string();
    assert!(etag.starts_with('"'), "a strong ETag: {etag}");
    assert_eq!(request("GET", "/", &[("if-none-match", &etag)]).status, 304);
    // A precompressed body, still the page once decoded.
    let br = request("GET", "/", &[("accept-encoding", "br")]);
    assert_eq!(br.decoded(), index);
    // The site's canonical redirect and its 404 page.
    assert_eq!(get("/index.html").status, 308);
    let missing = get("/nope");
    assert_eq!(missing.status, 404);
    assert_eq!(missing.decoded(), served("/404.html"));
}
