//! # edgesite-worker
//!
//! The Cloudflare Workers adapter of edgesite: answers a `web_sys::Request` from a compiled
//! [`Site`] with a `web_sys::Response`. It translates only; every HTTP decision is
//! edgesite-core's. Use it from any Worker (workers-rs or plain wasm-bindgen) to serve an
//! embedded site beside your own routes:
//!
//! ```ignore
//! // build.rs: fn main() -> std::process::ExitCode { edgesite_sitegen::build_script::run() }
//! edgesite_core::include_site!(); // SITE, compiled from public/ at build time
//!
//! #[worker::event(fetch)]
//! async fn fetch(req: worker::Request, _env: worker::Env, _ctx: worker::Context) -> worker::Result<web_sys::Response> {
//!     if req.path() == "/api/hello" {
//!         return Ok(worker::Response::from_json(&serde_json::json!({ "hello": "world" }))?.into());
//!     }
//!     // Return edgesite's web_sys::Response as it is: converting it into a worker::Response
//!     // would drop its `encodeBody: "manual"`, and the runtime would compress the precompressed
//!     // body again.
//!     match edgesite_worker::respond_if_served(&SITE, req.inner()) {
//!         Some(response) => Ok(response?),
//!         None => Ok(worker::Response::error("Not Found", 404)?.into()),
//!     }
//! }
//! ```
//! `examples/api-worker` is that Worker (workers-rs accepts a `web_sys::Response` as the
//! handler's result), tested end to end under `wrangler dev` by `make test`.
//!
//! Precompressed bodies are sent with `encodeBody: "manual"`; `Date` is added from the JS
//! clock. The request is read, and the response built, in one call across the wasm boundary each
//! (a wasm-bindgen inline JS snippet).

use edgesite_core::{
    respond_if_served as core_respond_if_served, respond_into, Body, RequestHead, Response, Site,
    REQUEST_FIELDS,
};
use std::cell::RefCell;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

/// The answer to `request` from `site`: a file, a redirect, a 304, the nearest 404 page...
/// always a response. `Err` only if the runtime refuses to build the Response.
pub fn respond(site: &Site<'_>, request: &web_sys::Request) -> Result<web_sys::Response, JsValue> {
    with_head(request, |head| {
        let mut response = Response::new();
        respond_into(site, head, &mut response);
        to_web_sys(&response)
    })
}

/// The answer to `request` from `site` if the site has something at its path (a file, a
/// redirect, a matching `_redirects` rule, the SPA fallback for a navigation), whatever the
/// method; `None` otherwise, so the Worker can answer from its own routes.
pub fn respond_if_served(
    site: &Site<'_>,
    request: &web_sys::Request,
) -> Option<Result<web_sys::Response, JsValue>> {
    with_head(request, |head| {
        let mut response = Response::new();
        core_respond_if_served(site, head, &mut response).then(|| to_web_sys(&response))
    })
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

/// Reads `request` in one call across the boundary and calls `f` with its head.
fn with_head<T>(request: &web_sys::Request, f: impl FnOnce(&RequestHead<'_>) -> T) -> T {
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
    f(&head)
}

/// The path and query of an absolute URL (`https://host/p?q` → `/p?q`). The runtime hands the
/// Worker an already-parsed absolute URL, so the authority never contains a `/`.
fn origin_form(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(url, |i| &url[i + 3..]);
    after_scheme.find('/').map_or("/", |i| &after_scheme[i..])
}

/// Copies the core's response into a JS Response in one call: the fields as one string, the
/// body as a view the Response constructor copies once.
fn to_web_sys(response: &Response<'_>) -> Result<web_sys::Response, JsValue> {
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
                let mut assembled = Vec::with_capacity(multipart.byte_len() as usize);
                multipart.for_each_chunk(|chunk| assembled.extend_from_slice(chunk));
                edgesite_response(status, &fields, &assembled, false, encoded)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::origin_form;
    use proptest::prelude::*;

    #[test]
    fn origin_form_strips_scheme_and_authority() {
        assert_eq!(origin_form("https://example.com/a/b?c=d"), "/a/b?c=d");
        assert_eq!(origin_form("http://127.0.0.1:8787"), "/");
    }

    proptest! {
        /// The adapter's conversion never panics and always yields an origin-form target: for
        /// any URL the runtime could hand over (parsed, so its path is never empty), and for any
        /// string at all.
        #[test]
        fn origin_form_is_total_and_keeps_the_path_and_query(
            host in "[a-z0-9.-]{1,20}(:[0-9]{1,5})?",
            path in "(/[^/?#]{0,10}){1,4}",
            query in "(\\?[^#]{0,20})?",
            anything in ".{0,40}",
        ) {
            let url = format!("https://{host}{path}{query}");
            let expected = format!("{path}{query}");
            prop_assert_eq!(origin_form(&url), expected.as_str());
            prop_assert!(origin_form(&anything).starts_with('/'));
        }
    }
}
