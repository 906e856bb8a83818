//! The Cloudflare Worker: the embedded [`SITE`](crate::SITE) served through edgesite-worker,
//! the Workers adapter any Worker can use (library mode). It makes no HTTP decision of its own.

use edgesite_worker::entry;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

/// The general path for any request: reads the whole `Request` (used when the request's head
/// does not fit the input buffer). The entry answers a 500 without details if this fails.
#[wasm_bindgen(js_name = "edgesite_fetch")]
#[allow(unreachable_pub)] // exported to JS, not to Rust
pub fn fetch(request: &web_sys::Request) -> Result<web_sys::Response, JsValue> {
    edgesite_worker::respond(&crate::SITE, request)
}

/// Hands the site's blobs (the entry's data modules, ArrayBuffers in the build's order) to the
/// adapter.
#[wasm_bindgen(js_name = "edgesite_register_blobs")]
#[allow(unreachable_pub)]
pub fn register_blobs(blobs: js_sys::Array) {
    edgesite_worker::set_blobs(&blobs);
}

/// The fields the core reads, NUL-joined, in the order `edgesite_decide` takes their lengths.
#[wasm_bindgen(js_name = "edgesite_request_fields")]
#[allow(unreachable_pub)]
pub fn request_fields() -> String {
    edgesite_core::REQUEST_FIELDS.join("\0")
}

/// The address of the input buffer the entry writes a request into, its capacity, and the
/// address of the output area (`edgesite_worker::entry`).
#[wasm_bindgen(js_name = "edgesite_input")]
#[allow(unreachable_pub)]
pub fn input() -> Vec<u32> {
    vec![
        entry::input(),
        entry::INPUT_CAPACITY as u32,
        entry::output(),
    ]
}

/// The compact answer to the request in the input buffer (see `edgesite_worker::entry`).
#[wasm_bindgen(js_name = "edgesite_decide")]
#[allow(unreachable_pub, clippy::too_many_arguments)]
pub fn decide(
    method: u32,
    target: i32,
    accept_encoding: i32,
    if_match: i32,
    if_none_match: i32,
    if_modified_since: i32,
    if_unmodified_since: i32,
    if_range: i32,
    range: i32,
    sec_fetch_mode: i32,
    accept: i32,
    available_dictionary: i32,
) -> i32 {
    let lengths = [
        target,
        accept_encoding,
        if_match,
        if_none_match,
        if_modified_since,
        if_unmodified_since,
        if_range,
        range,
        sec_fetch_mode,
        accept,
        available_dictionary,
    ];
    entry::decide(&crate::SITE, method, &lengths)
}

/// The fields of the answer to the request in the input buffer, for the entry's cache.
#[wasm_bindgen(js_name = "edgesite_fields")]
#[allow(unreachable_pub)]
pub fn fields(method: u32, lengths: &[i32]) -> String {
    entry::fields(&crate::SITE, method, lengths)
}

/// The whole answer to the request in the input buffer (anything but a fast 200 or 304).
#[wasm_bindgen(js_name = "edgesite_general")]
#[allow(unreachable_pub)]
pub fn general(method: u32, lengths: &[i32]) -> Result<web_sys::Response, JsValue> {
    entry::general(&crate::SITE, method, lengths)
}

#[cfg(test)]
mod tests {
    //! The Worker's fetch path in a real browser (headless Chromium through wasm-pack):
    //! real `web_sys::Request` objects in, real `web_sys::Response` objects out. The site's
    //! bytes are in blobs outside wasm memory, as in the Worker: the tests hand them over as the
    //! entry does (`edgesite_register_blobs`), from `$OUT_DIR/blobs.rs`.
    use super::*;
    use js_sys::{Reflect, Uint8Array};
    use wasm_bindgen_futures::JsFuture;
    use wasm_bindgen_test::*;
    use web_sys::Headers;
    use web_sys::RequestInit;

    wasm_bindgen_test_configure!(run_in_browser);

    /// The blobs build.rs wrote, in order.
    static BLOBS: &[&[u8]] = include!(concat!(env!("OUT_DIR"), "/blobs.rs"));

    /// The Worker's general path, with the blobs handed over first (once).
    fn fetch(request: &web_sys::Request) -> Result<web_sys::Response, JsValue> {
        static REGISTERED: std::sync::Once = std::sync::Once::new();
        REGISTERED.call_once(|| {
            let list = js_sys::Array::new();
            for blob in BLOBS {
                list.push(&js_sys::Uint8Array::from(*blob).buffer());
            }
            register_blobs(list);
        });
        super::fetch(request)
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
        let site = &crate::SITE;
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

    #[wasm_bindgen_test]
    async fn the_clients_accept_encoding_from_request_cf_selects_a_precompressed_body() {
        // RFC 9110 §12.5.3; the runtime rewrites the header, so cf.clientAcceptEncoding counts.
        let response = fetch(&with_cf_accept_encoding("http://localhost/", "gzip, br")).unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers().get("content-encoding").unwrap().unwrap(),
            "br"
        );
        assert_eq!(
            response.headers().get("vary").unwrap().unwrap(),
            "accept-encoding"
        );
        let stored = match &crate::SITE.route("/").unwrap().target {
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
}
