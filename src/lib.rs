#![doc = include_str!("../README.md")]
//!
//! # The crate
//!
//! [`SITE`] is the site compiled at build time (from `public/`, or the folder named by the
//! `EDGESITE_SITE` environment variable or `edgesite.toml`). Both runtimes serve it with
//! edgesite-core through their adapter: on wasm32 the Worker, whose fetch handler is the JS
//! entry `src/entry.js`, calling the wasm exports of `src/exports.rs`, which call
//! `crates/worker`; on the host the native twin, `crates/native`. [`respond_into`] answers a
//! request from it directly, for a Rust program that embeds the site. On the host `SITE`'s
//! tables are in the binary; on wasm32 they are the entry's data module `site/tables.bin`, and
//! `set_tables` (generated beside `SITE`; `edgesite_register_tables` calls it) must hand them
//! over before the first use of `SITE` or of `respond_into`.

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
mod exports;
