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
//! handler's result), tested end to end under `wrangler dev` by `make test`. Its site's bytes
//! are in the module (`build_script::run`).
//!
//! A Worker with its own JS entry can keep the site's bytes out of wasm memory: its `build.rs`
//! calls `edgesite_sitegen::build_script::run_with(Bodies::External)`, its entry imports the
//! blobs the build wrote as data modules and hands them over with [`set_blobs`], and it answers
//! most requests through [`entry`] without a string crossing the boundary. edgesite's own
//! Worker does (`src/worker-shim.js`, `scripts/build-worker.sh`).
//!
//! Precompressed bodies are sent with `encodeBody: "manual"`; `Date` is added from the JS
//! clock.

pub mod entry;
mod js;

pub use js::set_blobs;

use edgesite_core::{
    respond_if_served as core_respond_if_served, respond_into, RequestHead, Response, Site,
    REQUEST_FIELDS,
};
use js::{edgesite_read_request, edgesite_set_request_fields, to_web_sys};
use wasm_bindgen::JsValue;

/// The answer to `request` from `site`: a file, a redirect, a 304, the nearest 404 page...
/// always a response. `Err` only if the runtime refuses to build the Response, or a body held
/// outside wasm memory is not there (blobs not handed over with [`set_blobs`]).
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
    // Cloudflare rewrites the request's Accept-Encoding at the edge (to "br, gzip") and keeps the
    // client's own in request.cf.clientAcceptEncoding (absent under bare workerd and in
    // browsers); the snippet reads it only when the field is of that form.
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
