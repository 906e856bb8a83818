#![doc = include_str!("../README.md")]
//!
//! # The crate
//!
//! [`SITE`] is the site compiled at build time (from `public/`, or the folder named by the
//! `EDGESITE_SITE` environment variable or `edgesite.toml`) and [`respond_into`] answers a
//! request from it. Two adapters call it: on wasm32, the Worker's fetch handler (`src/worker.rs`,
//! through `crates/worker`), and on the host, the native twin (`crates/native`), so both runtimes
//! give the same answers.

include!(concat!(env!("OUT_DIR"), "/site.rs"));

/// The site directory this build embedded (absolute, or as given in `EDGESITE_SITE`).
pub const SITE_DIR: &str = env!("EDGESITE_SITE_DIR");

pub use edgesite_core::{RequestHead, Response};

/// The answer to `request` from the embedded [`SITE`], written into `response` in place (a
/// [`Response`], with room for a written Location, costs more to move than to fill): status,
/// header fields (the site's configured ones included) and body, all `'static`. Allocates
/// nothing.
pub fn respond_into(request: &RequestHead<'_>, response: &mut Response<'static>) {
    edgesite_core::respond_into(&SITE, request, response);
}

#[cfg(target_arch = "wasm32")]
mod worker;
