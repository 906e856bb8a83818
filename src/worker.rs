//! The Cloudflare Worker: translates a fetch event's `Request` into a [`RequestHead`], and the
//! core's [`Response`] into a `web_sys::Response`. It makes no HTTP decision of its own.

use crate::{respond_into, RequestHead};
use edgesite_core::{Body, Response, REQUEST_FIELDS};
use std::cell::RefCell;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

/// The fetch handler, called synchronously by the Worker's entry (src/worker-shim.js), which
/// answers a 500 without details if this returns an error.
#[wasm_bindgen(js_name = "edgesite_fetch")]
#[allow(unreachable_pub)] // exported to JS, not to Rust
pub fn fetch(request: &web_sys::Request) -> Result<web_sys::Response, JsValue> {
    handle(request)
}

/// The JS half of the adapter. Every call across the wasm boundary costs far more than the
/// core's whole decision (a few hundred ns each, against 0.1-0.2 µs for `respond`), so a request
/// crosses twice: once in, reading the method, URL, the fields the core reads and
/// `cf.clientAcceptEncoding` as one string, and once out, building the Response from one string
/// of fields and a view of the body.
#[wasm_bindgen(inline_js = r#"
let names = [];
export function edgesite_set_request_fields(joined) { names = joined.split("\0"); }
// method NUL url, then for each field NUL and "" (absent) or "+value"; then the same for
// request.cf.clientAcceptEncoding. Field values cannot contain NUL (Fetch).
export function edgesite_read_request(request) {
  const headers = request.headers;
  let out = request.method + "\0" + request.url;
  for (const name of names) {
    const value = headers.get(name);
    out += value === null ? "\0" : "\0+" + value;
  }
  const cf = request.cf;
  const original = cf == null ? null : cf.clientAcceptEncoding;
  out += original == null ? "\0" : "\0+" + original;
  return out;
}
// fields: name NUL value NUL name NUL value... ; body: a view of wasm memory, which the Response
// constructor copies before this returns; null for 204, 304 and HEAD.
export function edgesite_response(status, fields, body, nullBody, manual) {
  const list = fields.split("\0");
  const headers = [];
  for (let i = 0; i + 1 < list.length; i += 2) headers.push([list[i], list[i + 1]]);
  headers.push(["date", new Date().toUTCString()]);
  const init = { status, headers };
  if (manual) init.encodeBody = "manual";
  return new Response(nullBody ? null : body, init);
}
"#)]
extern "C" {
    fn edgesite_set_request_fields(joined: &str);
    fn edgesite_read_request(request: &web_sys::Request) -> String;
    #[wasm_bindgen(catch)]
    fn edgesite_response(
        status: u16,
        fields: &str,
        body: &[u8],
        null_body: bool,
        manual: bool,
    ) -> Result<web_sys::Response, JsValue>;
}

thread_local! {
    /// The fields of the response being built, reused across requests (wasm is single-threaded).
    static FIELDS: RefCell<String> = RefCell::new(String::with_capacity(1024));
}

/// Answers one request from the embedded site.
pub(crate) fn handle(request: &web_sys::Request) -> Result<web_sys::Response, JsValue> {
    static NAMES_SENT: std::sync::Once = std::sync::Once::new();
    NAMES_SENT.call_once(|| edgesite_set_request_fields(&REQUEST_FIELDS.join("\0")));
    let read = edgesite_read_request(request);
    let mut parts = read.split('\0');
    let method = parts.next().unwrap_or("GET");
    let url = parts.next().unwrap_or("/");
    let mut head = RequestHead::new(method, origin_form(url));
    for name in REQUEST_FIELDS {
        if let Some(value) = parts.next().and_then(|p| p.strip_prefix('+')) {
            // Headers.get joins several field lines with ", " (Fetch), as RFC 9110 §5.3 reads them.
            head.set_field(name, value.as_bytes());
        }
    }
    // Cloudflare rewrites the request's Accept-Encoding at the edge and keeps the client's own
    // in request.cf.clientAcceptEncoding (absent under bare workerd and in browsers).
    if let Some(original) = parts.next().and_then(|p| p.strip_prefix('+')) {
        head.set_field("accept-encoding", original.as_bytes());
    }
    let mut response = Response::new();
    respond_into(&head, &mut response);
    to_web_sys(&response)
}

/// The path and query of an absolute URL (`https://host/p?q` → `/p?q`). The runtime hands the
/// Worker an already-parsed absolute URL, so the authority never contains a `/`.
fn origin_form(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(url, |i| &url[i + 3..]);
    after_scheme.find('/').map_or("/", |i| &after_scheme[i..])
}

/// Copies the core's response into a JS Response in one call: the fields as one string, the
/// body as a view the Response constructor copies once.
fn to_web_sys(response: &Response<'static>) -> Result<web_sys::Response, JsValue> {
    FIELDS.with(|fields| {
        let mut fields = fields.borrow_mut();
        fields.clear();
        let mut encoded = false;
        for (name, value) in response.headers.iter() {
            encoded |= name == "content-encoding";
            // Names are the core's literals, values visible ASCII: neither holds a NUL.
            fields.push_str(name);
            fields.push('\0');
            fields.push_str(&value);
            fields.push('\0');
        }
        // RFC 9110 §6.6.1: an origin server with a clock MUST send Date; the JS half adds it
        // (toUTCString() is an IMF-fixdate): the core has no clock, bare workerd adds none.
        // An encoded body is precompressed: with the default `encodeBody: "automatic"` the
        // runtime would compress it again per Content-Encoding; "manual" sends it as it is
        // (workers-rs `EncodeBody::Manual`). A null body for 204/304 and HEAD: the Response
        // constructor rejects a body with 204 and 304.
        let status = response.status;
        match &response.body {
            Body::Empty => edgesite_response(status, &fields, &[], true, encoded),
            Body::Bytes(bytes) => edgesite_response(status, &fields, bytes, false, encoded),
            Body::Multipart(multipart) => {
                let mut assembled = Vec::with_capacity(multipart.len() as usize);
                multipart.for_each_chunk(|chunk| assembled.extend_from_slice(chunk));
                edgesite_response(status, &fields, &assembled, false, encoded)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    //! The Worker's fetch path in a real browser (headless Chromium through wasm-pack):
    //! real `web_sys::Request` objects in, real `web_sys::Response` objects out.
    use super::*;
    use js_sys::{Reflect, Uint8Array};
    use wasm_bindgen_futures::JsFuture;
    use wasm_bindgen_test::*;
    use web_sys::Headers;
    use web_sys::RequestInit;

    wasm_bindgen_test_configure!(run_in_browser);

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

    fn file(path: &str) -> &'static [u8] {
        crate::FILES
            .get_file(path)
            .expect("the demo site has this file")
            .contents()
    }

    #[wasm_bindgen_test]
    fn origin_form_strips_scheme_and_authority() {
        assert_eq!(origin_form("https://example.com/a/b?c=d"), "/a/b?c=d");
        assert_eq!(origin_form("http://127.0.0.1:8787"), "/");
    }

    #[wasm_bindgen_test]
    async fn get_root_serves_index_html() {
        let response = handle(&request("GET", "http://localhost/", &[])).unwrap();
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
        let response = handle(&request("GET", "http://localhost/guide/", &[])).unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(body(&response).await, file("guide/index.html"));
    }

    #[wasm_bindgen_test]
    async fn head_has_no_body() {
        // RFC 9110 §9.3.2.
        let response = handle(&request("HEAD", "http://localhost/about", &[])).unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers().get("content-length").unwrap().unwrap(),
            file("about.html").len().to_string()
        );
        assert!(response.body().is_none());
    }

    #[wasm_bindgen_test]
    async fn missing_path_serves_the_404_page() {
        let response = handle(&request("GET", "http://localhost/nope", &[])).unwrap();
        assert_eq!(response.status(), 404);
        assert_eq!(body(&response).await, file("404.html"));
    }

    #[wasm_bindgen_test]
    fn a_redirects_rule_answers_with_its_status_and_a_written_location() {
        // RFC 9110 §15.4.2; public/_redirects `/docs/* /guide/:splat 301`, the query kept.
        let response = handle(&request("GET", "http://localhost/docs/a%20b?x=1", &[])).unwrap();
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
        let response = handle(&request("POST", "http://localhost/", &[])).unwrap();
        assert_eq!(response.status(), 405);
        assert_eq!(
            response.headers().get("allow").unwrap().unwrap(),
            "GET, HEAD, OPTIONS"
        );
    }

    #[wasm_bindgen_test]
    async fn a_range_request_is_206_with_the_bytes_asked_for() {
        // RFC 9110 §14.2, §15.3.7.
        let response = handle(&request(
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
        let response = handle(&request(
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

    /// A request as Cloudflare delivers it: the client's own Accept-Encoding in `request.cf`.
    fn with_cf_accept_encoding(url: &str, list: &str) -> web_sys::Request {
        let req = request("GET", url, &[]);
        let cf = js_sys::Object::new();
        Reflect::set(&cf, &"clientAcceptEncoding".into(), &list.into()).unwrap();
        Reflect::set(req.as_ref(), &"cf".into(), &cf).unwrap();
        req
    }

    #[wasm_bindgen_test]
    async fn the_clients_accept_encoding_from_request_cf_selects_a_precompressed_body() {
        // RFC 9110 §12.5.3; the runtime rewrites the header, so cf.clientAcceptEncoding counts.
        let response = handle(&with_cf_accept_encoding("http://localhost/", "gzip, br")).unwrap();
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
        // In a browser the Response body is what was stored; Workers send it as is (encodeBody manual).
        assert_eq!(body(&response).await, stored.body);
    }

    #[wasm_bindgen_test]
    fn nothing_acceptable_in_request_cf_is_406() {
        let response = handle(&with_cf_accept_encoding(
            "http://localhost/",
            "identity;q=0",
        ))
        .unwrap();
        assert_eq!(response.status(), 406);
    }

    #[wasm_bindgen_test]
    async fn if_none_match_with_the_current_etag_is_304() {
        // RFC 9110 §13.1.2.
        let first = handle(&request("GET", "http://localhost/style.css", &[])).unwrap();
        let etag = first.headers().get("etag").unwrap().unwrap();
        let again = request(
            "GET",
            "http://localhost/style.css",
            &[("if-none-match", &etag)],
        );
        let response = handle(&again).unwrap();
        assert_eq!(response.status(), 304);
        assert_eq!(response.headers().get("etag").unwrap().unwrap(), etag);
        assert!(response.body().is_none());
    }
}
