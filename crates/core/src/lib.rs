//! # edgesite-core
//!
//! The pure part of edgesite: given a compiled [`Site`] and a borrowed [`RequestHead`], [`decide`]
//! returns a closed [`Decision`], and [`Decision::response`] renders it as a status, a list of
//! `&'static`-backed header fields and a body slice. Both runtimes (the Cloudflare Worker in the
//! root crate, and the native hyper twin) copy that [`Response`] out verbatim, so they cannot
//! disagree on any HTTP rule.
//!
//! What it is not: it does no I/O, reads no clock or environment, knows no `http` or `worker`
//! types, and allocates nothing (`#![no_std]`, no `alloc`). Everything that can be decided before
//! a request arrives (routes, ETags, Content-Type, Content-Length strings) is decided at build time
//! by `edgesite-sitegen` and arrives here as static tables.
//!
//! ```
//! use edgesite_core::{decide, Asset, ContentCoding, RequestHead, Representation, Route, Site, Target};
//!
//! static INDEX: Asset<'static> = Asset {
//!     content_type: "text/html; charset=utf-8",
//!     last_modified: "Sun, 29 Nov 2026 12:00:00 GMT",
//!     cache_control: "no-cache",
//!     representations: &[Representation {
//!         coding: ContentCoding::Identity,
//!         etag: "\"abc\"",
//!         content_length: "5",
//!         body: b"hello",
//!     }],
//! };
//! static SITE: Site<'static> = Site {
//!     routes: &[Route { path: "/", target: Target::Asset(&INDEX) }],
//!     not_found: None,
//! };
//!
//! let response = decide(&SITE, &RequestHead::new("GET", "/?utm=1")).response();
//! assert_eq!(response.status, 200);
//! assert_eq!(response.body, b"hello");
//! assert_eq!(response.header("etag"), Some("\"abc\""));
//!
//! // RFC 9110 §13.1.2: If-None-Match uses the weak comparison, so W/"abc" matches "abc".
//! let head = RequestHead { if_none_match: Some(b"W/\"abc\""), ..RequestHead::new("GET", "/") };
//! assert_eq!(decide(&SITE, &head).response().status, 304);
//! ```
#![no_std]
#[cfg(test)]
extern crate std;

mod decision;
mod etag;
mod path;
mod request;
mod response;
mod site;

pub use decision::{decide, Decision};
pub use etag::{weak_eq, IfNoneMatch};
pub use path::{normalize, PathBuf, PathError, MAX_PATH_LEN};
pub use request::{Method, RequestHead};
pub use response::{HeaderList, Response, ALLOW};
pub use site::{Asset, ContentCoding, Representation, Route, Site, Target};
