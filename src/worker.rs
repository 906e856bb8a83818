//! The Cloudflare Worker: translates a fetch event's `Request` into a [`RequestHead`], and the
//! core's [`Response`] into a `web_sys::Response`. It makes no HTTP decision of its own.

use crate::{respond, RequestHead};
use edgesite_core::Response;
use js_sys::Uint8Array;
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
pub(crate) fn handle(
    request: &web_sys::Request,
) -> Result<web_sys::Response, wasm_bindgen::JsValue> {
    let url = request.url();
    let method = request.method();
    let if_none_match = request.headers().get("if-none-match")?;
    let head = RequestHead {
        method: &method,
        target: origin_form(&url),
        if_none_match: if_none_match.as_deref().map(str::as_bytes),
    };
    to_web_sys(&respond(&head))
}

/// The path and query of an absolute URL (`https://host/p?q` → `/p?q`). The runtime hands the
/// Worker an already-parsed absolute URL, so the authority never contains a `/`.
fn origin_form(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(url, |i| &url[i + 3..]);
    after_scheme.find('/').map_or("/", |i| &after_scheme[i..])
}

/// Copies the core's response into a JS Response: the fields as they are, the body in one copy.
fn to_web_sys(response: &Response<'static>) -> Result<web_sys::Response, wasm_bindgen::JsValue> {
    let headers = Headers::new()?;
    for (name, value) in response.headers.iter() {
        headers.set(name, value)?;
    }
    let init = ResponseInit::new();
    init.set_status(response.status);
    init.set_headers(&headers);
    // A null body for 204/304 and HEAD: the Response constructor rejects a body with 204 and 304.
    let body = (!response.body.is_empty()).then(|| Uint8Array::from(response.body));
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
        let response = handle(&request("HEAD", "http://localhost/about.html", &[])).unwrap();
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
