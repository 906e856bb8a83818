//! The Cloudflare Worker: translates a fetch event's `Request` into a [`RequestHead`], and the
//! core's [`Response`] into a `web_sys::Response`. It makes no HTTP decision of its own.

use crate::{respond_into, RequestHead};
use edgesite_core::{Body, Response, REQUEST_FIELDS};
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::JsValue;
use web_sys::{Headers, ResponseInit};

/// The fetch handler. `#[event(fetch)]` exports a JS function named `fetch`; in the browser test
/// build that would shadow the global `fetch()` wasm-bindgen loads the module with, so it is
/// only attached outside `cfg(test)` (see ../shared/toolchain.md, Q3).
#[cfg_attr(not(test), ::worker::event(fetch))]
#[cfg_attr(test, allow(dead_code))]
async fn fetch(
    request: web_sys::Request,
    _env: ::worker::Env,
    _ctx: ::worker::Context,
) -> ::worker::Result<web_sys::Response> {
    Ok(handle(&request)?)
}

/// Answers one request from the embedded site.
pub(crate) fn handle(request: &web_sys::Request) -> Result<web_sys::Response, JsValue> {
    let url = request.url();
    let method = request.method();
    let fields = request.headers();
    let mut values: [Option<String>; REQUEST_FIELDS.len()] = Default::default();
    for (value, name) in values.iter_mut().zip(REQUEST_FIELDS) {
        // Headers.get joins several field lines with ", " (Fetch), as RFC 9110 §5.3 reads them.
        *value = fields.get(name)?;
    }
    let client_accept_encoding = client_accept_encoding(request);
    let mut head = RequestHead::new(&method, origin_form(&url));
    for (name, value) in REQUEST_FIELDS.iter().zip(&values) {
        if let Some(value) = value {
            head.set_field(name, value.as_bytes());
        }
    }
    if let Some(list) = &client_accept_encoding {
        head.set_field("accept-encoding", list.as_bytes());
    }
    let mut response = Response::new();
    respond_into(&head, &mut response);
    to_web_sys(&response)
}

/// The client's own Accept-Encoding: Cloudflare rewrites the request's header at the edge and
/// keeps the original in `request.cf.clientAcceptEncoding` (absent under bare workerd).
fn client_accept_encoding(request: &web_sys::Request) -> Option<String> {
    let cf = Reflect::get(request.as_ref(), &JsValue::from_str("cf")).ok()?;
    if cf.is_undefined() || cf.is_null() {
        return None;
    }
    Reflect::get(&cf, &JsValue::from_str("clientAcceptEncoding"))
        .ok()?
        .as_string()
}

/// The path and query of an absolute URL (`https://host/p?q` → `/p?q`). The runtime hands the
/// Worker an already-parsed absolute URL, so the authority never contains a `/`.
fn origin_form(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(url, |i| &url[i + 3..]);
    after_scheme.find('/').map_or("/", |i| &after_scheme[i..])
}

/// Copies the core's response into a JS Response: the fields as they are, the body in one copy.
fn to_web_sys(response: &Response<'static>) -> Result<web_sys::Response, JsValue> {
    let headers = Headers::new()?;
    let mut encoded = false;
    for (name, value) in response.headers.iter() {
        encoded |= name == "content-encoding";
        headers.set(name, &value)?;
    }
    // RFC 9110 §6.6.1: an origin server with a clock MUST send Date. The core has no clock; the
    // runtime does not add one (bare workerd sends none). JS toUTCString() is an IMF-fixdate.
    headers.set("date", &String::from(js_sys::Date::new_0().to_utc_string()))?;
    let init = ResponseInit::new();
    init.set_status(response.status);
    init.set_headers(&headers);
    if encoded {
        // The body is already encoded (precompressed at build time). With the default
        // `encodeBody: "automatic"` the runtime would compress it again per Content-Encoding;
        // "manual" sends it as it is (workers-rs `EncodeBody::Manual`).
        Reflect::set(
            &init,
            &JsValue::from_str("encodeBody"),
            &JsValue::from_str("manual"),
        )?;
    }
    // A null body for 204/304 and HEAD: the Response constructor rejects a body with 204 and 304.
    let body = match &response.body {
        Body::Empty => None,
        Body::Bytes(bytes) => Some(Uint8Array::from(*bytes)),
        Body::Multipart(multipart) => {
            let mut assembled = Vec::with_capacity(multipart.len() as usize);
            multipart.for_each_chunk(|chunk| assembled.extend_from_slice(chunk));
            Some(Uint8Array::from(assembled.as_slice()))
        }
    };
    web_sys::Response::new_with_opt_buffer_source_and_init(body.as_ref().map(|b| b.as_ref()), &init)
}

#[cfg(test)]
mod tests {
    //! The Worker's fetch path in a real browser (headless Chromium through wasm-pack):
    //! real `web_sys::Request` objects in, real `web_sys::Response` objects out.
    use super::*;
    use wasm_bindgen_futures::JsFuture;
    use wasm_bindgen_test::*;
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
