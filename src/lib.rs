#![doc = include_str!("../README.md")]
//!
//! # The crate
//!
//! [`SITE`] is the site compiled at build time (from `public/`, or the folder named by the
//! `EDGESITE_SITE` environment variable) and [`respond`] answers a request from it. On wasm32 the
//! crate also exports the Worker's `fetch` handler (`src/worker.rs`); the native twin
//! (`crates/native`) calls [`respond`] too, so both runtimes give the same answers.

include!(concat!(env!("OUT_DIR"), "/site.rs"));

/// The site directory this build embedded (absolute, or as given in `EDGESITE_SITE`).
pub const SITE_DIR: &str = env!("EDGESITE_SITE_DIR");

pub use edgesite_core::{decide, RequestHead, Response};

/// The answer to `request` from the embedded [`SITE`]: status, header fields (the site's
/// configured ones included) and body, all `'static`. Allocates nothing.
pub fn respond(request: &RequestHead<'_>) -> Response<'static> {
    edgesite_core::respond(&SITE, request)
}

/// [`respond`], written into `response` in place: what the adapters call, since a [`Response`]
/// (with room for a written Location) costs more to move than to fill.
pub fn respond_into(request: &RequestHead<'_>, response: &mut Response<'static>) {
    edgesite_core::respond_into(&SITE, request, response);
}

#[cfg(target_arch = "wasm32")]
mod worker;
