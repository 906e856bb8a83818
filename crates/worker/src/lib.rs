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
//! most requests through [`protocol`] without a string crossing the boundary. edgesite's own
//! Worker does, with its tables a data module too (`Bodies::Tables`: the generated `set_tables`;
//! `src/entry.js`, `scripts/build-worker.sh`).
//!
//! A site larger than the bundle keeps the rest in the store (`[storage]`): such a Worker hands
//! its Static Assets binding over with [`set_store`] and answers with [`answer`], a Response or a
//! Promise of one (edgesite's own entry does).
//!
//! Precompressed bodies are sent with `encodeBody: "manual"`; `Date` is added from the JS
//! clock.

mod js;
pub mod protocol;

pub use js::{set_blobs, set_store};

use edgesite_core::{
    respond_if_served as core_respond_if_served, respond_into as core_respond_into, Response, Site,
};
use js::to_web_sys;
use protocol::{with_request, Unread};
use wasm_bindgen::JsValue;

/// The answer to `request` from `site`: a file, a redirect, a 304, the nearest 404 page...
/// always a response. `Err` only if the runtime refuses to build the Response, or a body held
/// outside wasm memory is not there (blobs not handed over with [`set_blobs`], or a body in the
/// store, which only [`answer`] reads: a library-mode build keeps none there).
pub fn respond(site: &Site<'_>, request: &web_sys::Request) -> Result<web_sys::Response, JsValue> {
    let answer = with_request(request, |head| {
        let mut response = Response::new();
        core_respond_into(site, head, &mut response);
        to_web_sys(&response)
    });
    match answer {
        Ok(answer) => answer,
        Err(Unread::TooLarge) => js::too_large(),
        Err(unread) => Err(unread.into()),
    }
}

/// [`respond`] for a Worker whose entry handed over its store ([`set_store`]) and blobs: a
/// Response, or a Promise of one when the body is read from the store (a site with
/// `edgesite_core::Content::Stored` representations).
pub fn answer(site: &Site<'_>, request: &web_sys::Request) -> Result<JsValue, JsValue> {
    match with_request(request, |head| protocol::answer(site, head)) {
        Ok(answer) => answer,
        Err(Unread::TooLarge) => js::too_large().map(Into::into),
        Err(unread) => Err(unread.into()),
    }
}

/// The answer to `request` from `site` if the site has something at its path (a file, a
/// redirect, a matching `_redirects` rule, the SPA fallback for a navigation), whatever the
/// method; `None` otherwise, so the Worker can answer from its own routes.
pub fn respond_if_served(
    site: &Site<'_>,
    request: &web_sys::Request,
) -> Option<Result<web_sys::Response, JsValue>> {
    with_request(request, |head| {
        let mut response = Response::new();
        core_respond_if_served(site, head, &mut response).then(|| to_web_sys(&response))
    })
    .unwrap_or_else(|unread| match unread {
        Unread::TooLarge => Some(js::too_large()),
        Unread::Malformed => Some(Err(unread.into())),
    })
}
