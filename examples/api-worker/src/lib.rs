//! An example Worker: its own API route (`/api/hello`) beside a site that edgesite compiled into
//! it (library mode). `build.rs` compiles `site/`; `include_site!` defines `SITE`; each request
//! goes to the API when it is an API path, to the site when the site serves its path, and gets
//! the site's 404 page otherwise. Tested end to end under `wrangler dev` by `make test`
//! (`tests/example_api.rs`).
#![cfg(target_arch = "wasm32")]

use worker::{event, Context, Env, Method, Request, Response, Result};

edgesite_core::include_site!();

/// The API's one answer, JSON.
const HELLO: &str = "{\"hello\":\"world\"}";

#[event(fetch)]
async fn fetch(req: Request, _env: Env, _ctx: Context) -> Result<web_sys::Response> {
    let path = req.path();
    if path == "/api/hello" {
        return match req.method() {
            Method::Get | Method::Head => {
                let mut response = Response::ok(HELLO)?;
                response
                    .headers_mut()
                    .set("content-type", "application/json")?;
                Ok(response.into())
            }
            _ => {
                let mut response = Response::error("405 Method Not Allowed\n", 405)?;
                response.headers_mut().set("allow", "GET, HEAD")?;
                Ok(response.into())
            }
        };
    }
    if path.starts_with("/api/") {
        return Ok(Response::error("404 Not Found: no such API\n", 404)?.into());
    }
    // The site answers what it has (files, redirects, 304s, ranges, encodings); the rest gets
    // its 404 page. Returned as the web_sys::Response edgesite built: converting it to
    // worker::Response would drop its `encodeBody: "manual"` and compress bodies twice.
    match edgesite_worker::respond_if_served(&SITE, req.inner()) {
        Some(response) => Ok(response?),
        None => Ok(edgesite_worker::respond(&SITE, req.inner())?),
    }
}
