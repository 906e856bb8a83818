//! The Worker's fetch path in a real browser (headless Chromium through wasm-pack: `make test`'s
//! browser layer runs `wasm-pack test --headless --chrome -- --test worker_in_browser`): real
//! `web_sys::Request` objects in, real `web_sys::Response` objects out, through
//! edgesite-worker and its JS half (crates/worker/src/bridge.js) as the Worker's exports
//! (src/exports.rs) call them. The site's bytes are in blobs outside wasm memory, as in the
//! Worker: the tests hand them over as the entry does, from `$OUT_DIR/blobs.rs`.
#![cfg(target_arch = "wasm32")]

use edgesite_worker::protocol;
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::Headers;
use web_sys::RequestInit;

wasm_bindgen_test_configure!(run_in_browser);

/// The blobs build.rs wrote, in order.
static BLOBS: &[&[u8]] = include!(concat!(env!("OUT_DIR"), "/blobs.rs"));

/// The site, with its tables and blobs handed over first (once), as the Worker's entry hands
/// over its data modules.
fn site() -> &'static edgesite_core::Site<'static> {
    static REGISTERED: std::sync::Once = std::sync::Once::new();
    REGISTERED.call_once(|| {
        edgesite::set_tables(include_bytes!(concat!(env!("OUT_DIR"), "/tables.bin")));
        let list = js_sys::Array::new();
        for blob in BLOBS {
            list.push(&js_sys::Uint8Array::from(*blob).buffer());
        }
        edgesite_worker::set_blobs(&list);
    });
    &edgesite::SITE
}

/// The Worker's general path.
fn fetch(request: &web_sys::Request) -> Result<web_sys::Response, JsValue> {
    edgesite_worker::respond(site(), request)
}

fn request(method: &str, url: &str, headers: &[(&str, &str)]) -> web_sys::Request {
    let init = RequestInit::new();
    init.set_method(method);
    let h = Headers::new().unwrap();
    for (name, value) in headers {
        h.set(name, value).unwrap();
    }
    init.set_headers(&h);
    web_sys::Request::new_with_str_and_init(url, &init).unwrap()
}

async fn body(response: &web_sys::Response) -> Vec<u8> {
    let buffer = JsFuture::from(response.array_buffer().unwrap())
        .await
        .unwrap();
    Uint8Array::new(&buffer).to_vec()
}

/// The bytes of the demo site's page or stylesheet at `path` (relative to `public/`), as
/// served: the build's copy after its link pass (`EDGESITE_SERVED_DIR`).
fn file(path: &str) -> &'static [u8] {
    macro_rules! served {
        ($path:literal) => {
            include_bytes!(concat!(env!("EDGESITE_SERVED_DIR"), "/", $path))
        };
    }
    match path {
        "index.html" => served!("index.html"),
        "guide/index.html" => served!("guide/index.html"),
        "about.html" => served!("about.html"),
        "404.html" => served!("404.html"),
        "style.css" => served!("style.css"),
        other => unreachable!("the tests read no {other}"),
    }
}

#[wasm_bindgen_test]
fn library_mode_leaves_paths_the_site_does_not_serve_to_the_worker() {
    // edgesite_worker::respond_if_served: None for what the site has nothing at (whatever the
    // method), the site's answer for the rest (405 for a POST to a file).
    let _ = fetch(&request("GET", "http://localhost/", &[])); // the blobs, handed over
    let site = site();
    let api = request("POST", "http://localhost/api/hello", &[]);
    assert!(edgesite_worker::respond_if_served(site, &api).is_none());
    let missing = request("GET", "http://localhost/nope", &[]);
    assert!(edgesite_worker::respond_if_served(site, &missing).is_none());
    let page = request("GET", "http://localhost/about", &[]);
    let served = edgesite_worker::respond_if_served(site, &page)
        .unwrap()
        .unwrap();
    assert_eq!(served.status(), 200);
    let post = request("POST", "http://localhost/about", &[]);
    let refused = edgesite_worker::respond_if_served(site, &post)
        .unwrap()
        .unwrap();
    assert_eq!(refused.status(), 405);
    // A `_redirects` rule counts as the site's.
    let rule = request("GET", "http://localhost/docs/x", &[]);
    assert_eq!(
        edgesite_worker::respond_if_served(site, &rule)
            .unwrap()
            .unwrap()
            .status(),
        301
    );
}

#[wasm_bindgen_test]
async fn get_root_serves_index_html() {
    let response = fetch(&request("GET", "http://localhost/", &[])).unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers();
    assert_eq!(
        headers.get("content-type").unwrap().unwrap(),
        "text/html; charset=utf-8"
    );
    assert!(headers.get("etag").unwrap().unwrap().starts_with('"'));
    assert_eq!(body(&response).await, file("index.html"));
}

#[wasm_bindgen_test]
async fn nested_folder_serves_its_index() {
    let response = fetch(&request("GET", "http://localhost/guide/", &[])).unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(body(&response).await, file("guide/index.html"));
}

#[wasm_bindgen_test]
async fn head_has_no_body() {
    // RFC 9110 §9.3.2.
    let response = fetch(&request("HEAD", "http://localhost/about", &[])).unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers().get("content-length").unwrap().unwrap(),
        file("about.html").len().to_string()
    );
    assert!(response.body().is_none());
}

#[wasm_bindgen_test]
async fn missing_path_serves_the_404_page() {
    let response = fetch(&request("GET", "http://localhost/nope", &[])).unwrap();
    assert_eq!(response.status(), 404);
    assert_eq!(body(&response).await, file("404.html"));
}

#[wasm_bindgen_test]
fn a_redirects_rule_answers_with_its_status_and_a_written_location() {
    // RFC 9110 §15.4.2; public/_redirects `/docs/* /guide/:splat 301`, the query kept.
    let response = fetch(&request("GET", "http://localhost/docs/a%20b?x=1", &[])).unwrap();
    assert_eq!(response.status(), 301);
    assert_eq!(
        response.headers().get("location").unwrap().unwrap(),
        "/guide/a%20b?x=1"
    );
    assert!(response.body().is_none());
}

#[wasm_bindgen_test]
fn post_is_405_with_allow() {
    // RFC 9110 §15.5.6.
    let response = fetch(&request("POST", "http://localhost/", &[])).unwrap();
    assert_eq!(response.status(), 405);
    assert_eq!(
        response.headers().get("allow").unwrap().unwrap(),
        "GET, HEAD, OPTIONS"
    );
}

#[wasm_bindgen_test]
async fn a_range_request_is_206_with_the_bytes_asked_for() {
    // RFC 9110 §14.2, §15.3.7.
    let response = fetch(&request(
        "GET",
        "http://localhost/style.css",
        &[("range", "bytes=0-9")],
    ))
    .unwrap();
    assert_eq!(response.status(), 206);
    let total = file("style.css").len();
    assert_eq!(
        response.headers().get("content-range").unwrap().unwrap(),
        format!("bytes 0-9/{total}")
    );
    assert_eq!(body(&response).await, &file("style.css")[..10]);
}

#[wasm_bindgen_test]
async fn several_ranges_are_one_multipart_body() {
    // RFC 9110 §14.6.
    let response = fetch(&request(
        "GET",
        "http://localhost/style.css",
        &[("range", "bytes=0-0,-1")],
    ))
    .unwrap();
    assert_eq!(response.status(), 206);
    let content_type = response.headers().get("content-type").unwrap().unwrap();
    assert!(
        content_type.starts_with("multipart/byteranges; boundary="),
        "{content_type}"
    );
    let text = String::from_utf8(body(&response).await).unwrap();
    assert!(text.contains("Content-Range: bytes 0-0/"), "{text}");
}

/// A request as Cloudflare delivers it: Accept-Encoding rewritten to the edge's own list
/// (`br, gzip`), the client's own in `request.cf`.
fn with_cf_accept_encoding(url: &str, list: &str) -> web_sys::Request {
    with_accept_encoding_and_cf(url, "br, gzip", list)
}

/// A request with `field` as its Accept-Encoding and `client` as `cf.clientAcceptEncoding`.
/// A page cannot give a Request an Accept-Encoding (a forbidden request-header name in
/// Fetch), so the request gets a `headers` of its own, as the runtime's would be.
fn with_accept_encoding_and_cf(url: &str, field: &str, client: &str) -> web_sys::Request {
    let req = request("GET", url, &[]);
    let headers = Headers::new().unwrap();
    headers.set("accept-encoding", field).unwrap();
    let descriptor = js_sys::Object::new();
    Reflect::set(&descriptor, &"value".into(), &headers).unwrap();
    js_sys::Object::define_property(req.as_ref(), &"headers".into(), &descriptor);
    let cf = js_sys::Object::new();
    Reflect::set(&cf, &"clientAcceptEncoding".into(), &client.into()).unwrap();
    Reflect::set(req.as_ref(), &"cf".into(), &cf).unwrap();
    req
}

/// A request whose `headers` are `fields` as the runtime hands them over (a page cannot set
/// forbidden names such as Accept-Encoding or Sec-Fetch-Mode on a Request: see below).
fn with_headers(method: &str, url: &str, fields: &[(&str, &str)]) -> web_sys::Request {
    let req = request(method, url, &[]);
    let headers = Headers::new().unwrap();
    for (name, value) in fields {
        headers.set(name, value).unwrap();
    }
    let descriptor = js_sys::Object::new();
    Reflect::set(&descriptor, &"value".into(), &headers).unwrap();
    js_sys::Object::define_property(req.as_ref(), &"headers".into(), &descriptor);
    req
}

/// What wasm reads back of `request` after the JS half's reader wrote it: method, target and
/// every field of REQUEST_FIELDS.
fn read_back(request: &web_sys::Request) -> (String, String, Vec<Option<String>>) {
    protocol::with_request(request, |head| {
        let fields = edgesite_core::REQUEST_FIELDS
            .iter()
            .map(|name| {
                head.field(name)
                    .map(|v| String::from_utf8(v.to_vec()).unwrap())
            })
            .collect();
        (head.method.to_string(), head.target.to_string(), fields)
    })
    .unwrap()
}

#[wasm_bindgen_test]
fn the_js_reader_and_wasm_agree_on_every_field_the_core_reads() {
    // The protocol's two sides (crates/worker: bridge.js writes, protocol.rs reads): every
    // field of REQUEST_FIELDS, each with its own value, arrives under its own name, in
    // order, with the method and the target. A field added on one side only fails here.
    let names = edgesite_core::REQUEST_FIELDS;
    let values: Vec<String> = names.iter().map(|n| format!("{n}: {}", n.len())).collect();
    let fields: Vec<(&str, &str)> = names
        .iter()
        .copied()
        .zip(values.iter().map(String::as_str))
        .collect();
    let (method, target, read) =
        read_back(&with_headers("HEAD", "http://localhost/a/b?c=d", &fields));
    assert_eq!((method.as_str(), target.as_str()), ("HEAD", "/a/b?c=d"));
    assert_eq!(read, values.iter().cloned().map(Some).collect::<Vec<_>>());
    // Absent fields are absent; another method is one the core refuses (405).
    let (method, target, read) = read_back(&with_headers("DELETE", "http://localhost", &[]));
    assert_eq!((method.as_str(), target.as_str()), ("POST", "/"));
    assert!(read.iter().all(Option::is_none), "{read:?}");
}

#[wasm_bindgen_test]
fn a_request_larger_than_the_input_or_not_ascii_is_read_whole() {
    // Not ASCII: written one value at a time (byte lengths, not character lengths). Larger
    // than the input buffer: it grows, and the request is read again.
    let long = format!("/{}", "a".repeat(200 * 1024));
    let req = with_headers(
        "GET",
        &format!("http://localhost{long}"),
        &[("if-none-match", "\"é\"")],
    );
    let (_, target, read) = read_back(&req);
    assert_eq!(target, long);
    let at = edgesite_core::REQUEST_FIELDS
        .iter()
        .position(|n| *n == "if-none-match")
        .unwrap();
    assert_eq!(read[at].as_deref(), Some("\"é\""));
}

#[wasm_bindgen_test]
async fn the_clients_accept_encoding_from_request_cf_selects_a_precompressed_body() {
    // RFC 9110 §12.5.3; the runtime rewrites the header, so cf.clientAcceptEncoding counts.
    let response = fetch(&with_cf_accept_encoding("http://localhost/", "gzip, br")).unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers().get("content-encoding").unwrap().unwrap(),
        "br"
    );
    // Accept too: the page's Markdown twin (issue 35).
    assert_eq!(
        response.headers().get("vary").unwrap().unwrap(),
        "accept, accept-encoding"
    );
    let stored = match &site().route("/").unwrap().target {
        edgesite_core::Target::Asset(asset) => asset
            .representations
            .iter()
            .find(|r| r.coding.token() == "br")
            .unwrap(),
        edgesite_core::Target::Redirect(_) => unreachable!("/ is a page"),
    };
    assert_eq!(
        response.headers().get("etag").unwrap().unwrap(),
        stored.etag
    );
    // In a browser the Response body is what was stored; Workers send it as is (encodeBody
    // manual). It comes from its blob, outside wasm memory.
    let edgesite_core::Content::External {
        blob,
        offset,
        length,
        ..
    } = stored.content
    else {
        panic!("the Worker's bytes are in blobs: {:?}", stored.content)
    };
    let (from, to) = (offset as usize, (offset + length) as usize);
    assert_eq!(body(&response).await, &BLOBS[blob as usize][from..to]);
}

#[wasm_bindgen_test]
fn an_accept_encoding_the_edge_cannot_have_written_is_the_clients_own() {
    // The edge writes only its own list ("br, gzip"); "gzip, deflate" came from the client,
    // so request.cf is not consulted (it would make this a 406).
    let response = fetch(&with_accept_encoding_and_cf(
        "http://localhost/",
        "gzip, deflate",
        "identity;q=0",
    ))
    .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers().get("content-encoding").unwrap().unwrap(),
        "gzip"
    );
}

#[wasm_bindgen_test]
fn nothing_acceptable_in_request_cf_is_406() {
    let response = fetch(&with_cf_accept_encoding(
        "http://localhost/",
        "identity;q=0",
    ))
    .unwrap();
    assert_eq!(response.status(), 406);
}

#[wasm_bindgen_test]
async fn if_none_match_with_the_current_etag_is_304() {
    // RFC 9110 §13.1.2.
    let first = fetch(&request("GET", "http://localhost/style.css", &[])).unwrap();
    let etag = first.headers().get("etag").unwrap().unwrap();
    let again = request(
        "GET",
        "http://localhost/style.css",
        &[("if-none-match", &etag)],
    );
    let response = fetch(&again).unwrap();
    assert_eq!(response.status(), 304);
    assert_eq!(response.headers().get("etag").unwrap().unwrap(), etag);
    assert!(response.body().is_none());
}

#[wasm_bindgen_test]
fn a_request_larger_than_the_input_is_431_never_500() {
    // RFC 6585 §5: a head whose fields the core reads pass the bridge's 1 MiB input is refused
    // as too large, and stored by no cache; one within it is answered as usual.
    let tag = format!("\"{}\"", "t".repeat(protocol::INPUT_LIMIT + 1024));
    let request = with_headers("GET", "https://example.com/", &[("if-none-match", &tag)]);
    let refused = fetch(&request).unwrap();
    assert_eq!(refused.status(), 431);
    assert_eq!(
        refused.headers().get("cache-control").unwrap().as_deref(),
        Some("no-store")
    );
    let tag = format!("\"{}\"", "t".repeat(protocol::INPUT_LIMIT / 2));
    let request = with_headers("GET", "https://example.com/", &[("if-none-match", &tag)]);
    assert_eq!(fetch(&request).unwrap().status(), 200);
}

/// A file stored compact, as the build stores it: its gzip representation (bytes here), and the
/// identity decoded from it, `length` bytes by the build's record, whose id is `id` (the build
/// gives each representation its own; the JS half keeps decoded ones by id).
fn compact_site(
    id: u32,
    length: usize,
    gzip: &'static [u8],
) -> &'static edgesite_core::Site<'static> {
    use edgesite_core::{Asset, Content, ContentCoding, Representation, Route, Site, Target};
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let representations = Box::leak(Box::new([
        Representation {
            coding: ContentCoding::Identity,
            etag: leak(format!("\"{id}\"")),
            content_length: leak(length.to_string()),
            content: Content::Decoded {
                id,
                from: 1,
                length: length as u32,
            },
        },
        Representation {
            coding: ContentCoding::Gzip,
            etag: leak(format!("\"{id}-gz\"")),
            content_length: leak(gzip.len().to_string()),
            content: Content::Bytes(gzip),
        },
    ]));
    let asset = Box::leak(Box::new(Asset {
        deltas: &[],
        variants: &[],
        alternate: None,
        content_type: "text/plain; charset=utf-8",
        last_modified: "Tue, 01 Dec 2026 00:00:00 GMT",
        last_modified_unix: 1_795_996_800,
        cache_control: "no-cache",
        fingerprint: "",
        fields: &[],
        representations,
    }));
    let routes = Box::leak(Box::new([Route {
        path: "/t.txt",
        target: Target::Asset(asset),
    }]));
    Box::leak(Box::new(Site {
        routes,
        ..Site::EMPTY
    }))
}

/// What [`COMPACT_GZIP`] inflates to.
const COMPACT_TEXT: &[u8] =
    b"The identity of compact storage, inflated from its gzip as it is sent.\n";
/// `gzip.compress(COMPACT_TEXT, mtime=0)` (Python).
static COMPACT_GZIP: [u8; 85] = [
    31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 13, 203, 177, 13, 192, 32, 12, 4, 192, 62, 83, 252, 0, 17,
    211, 100, 1, 11, 12, 177, 20, 48, 194, 223, 36, 211, 135, 238, 154, 187, 110, 133, 21, 29, 52,
    190, 240, 138, 236, 125, 74, 38, 130, 190, 164, 233, 9, 27, 245, 17, 106, 65, 93, 222, 97, 12,
    180, 207, 38, 36, 182, 97, 129, 216, 55, 29, 63, 226, 5, 161, 129, 71, 0, 0, 0,
];
/// [`COMPACT_GZIP`] with a byte of its deflate stream changed.
static COMPACT_CORRUPT: [u8; 85] = {
    let mut bytes = COMPACT_GZIP;
    bytes[40] ^= 0x5a;
    bytes
};

async fn compact_get(
    site: &edgesite_core::Site<'_>,
    range: Option<&str>,
) -> (u16, Result<Vec<u8>, JsValue>) {
    let fields: &[(&str, &str)] = match range {
        Some(range) => &[("range", range)],
        None => &[],
    };
    let response =
        edgesite_worker::respond(site, &request("GET", "http://localhost/t.txt", fields)).unwrap();
    let read = JsFuture::from(response.array_buffer().unwrap()).await;
    (
        response.status(),
        read.map(|buffer| Uint8Array::new(&buffer).to_vec()),
    )
}

#[wasm_bindgen_test]
async fn compact_storage_inflates_the_identity_as_it_is_sent_and_keeps_it() {
    // The Worker has no decoder of its own: the runtime's DecompressionStream inflates the
    // stored gzip as the body is sent (crates/worker/src/bridge.js). RFC 9110 §14: ranges and
    // a multipart body of the identity are its bytes, also a range before the one read last.
    let text = COMPACT_TEXT;
    let ranged = compact_site(9001, text.len(), &COMPACT_GZIP);
    let (status, body) = compact_get(ranged, Some("bytes=4-11")).await;
    assert_eq!((status, body.unwrap()), (206, text[4..=11].to_vec()));
    let (status, body) = compact_get(ranged, Some("bytes=10-12, 0-1")).await;
    let body = String::from_utf8(body.unwrap()).unwrap();
    assert_eq!(status, 206);
    let (ten, zero) = (
        body.find("\r\n\r\nty ").unwrap(),
        body.find("\r\n\r\nTh").unwrap(),
    );
    assert!(ten < zero, "the request's order (§14.6): {body}");
    // All of it, then again once kept: the same bytes. A site whose source is corrupt but whose
    // identity has the same id answers from what was kept, so the second read is the cache's.
    let site = compact_site(9002, text.len(), &COMPACT_GZIP);
    for _ in 0..2 {
        let (status, body) = compact_get(site, None).await;
        assert_eq!((status, body.unwrap()), (200, text.to_vec()));
    }
    let same_id = compact_site(9002, text.len(), &COMPACT_CORRUPT);
    let (status, body) = compact_get(same_id, Some("bytes=-3")).await;
    assert_eq!(
        (status, body.unwrap()),
        (206, text[text.len() - 3..].to_vec())
    );
}

#[wasm_bindgen_test]
async fn compact_storage_never_sends_a_body_other_than_the_one_the_build_recorded() {
    // The identity's strong ETag names exactly `length` bytes (RFC 9110 §8.8.3): an inflated
    // stream longer, shorter or not valid errors, so the transfer breaks instead of ending.
    let text = COMPACT_TEXT;
    for (id, length, gzip, why) in [
        (9003, text.len() + 1, &COMPACT_GZIP, "shorter than recorded"),
        (9004, text.len() - 1, &COMPACT_GZIP, "longer than recorded"),
        (9005, text.len(), &COMPACT_CORRUPT, "corrupt"),
    ] {
        let site = compact_site(id, length, gzip);
        for range in [None, Some("bytes=0-0, -1")] {
            let (_, body) = compact_get(site, range).await;
            assert!(body.is_err(), "{why}, {range:?}: {body:?}");
        }
        // Nothing was kept: it fails again.
        assert!(compact_get(site, None).await.1.is_err(), "{why}");
    }
}
