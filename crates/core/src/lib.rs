//! # edgesite-core
//!
//! The pure part of edgesite: given a compiled [`Site`] and a borrowed [`RequestHead`], [`decide`]
//! returns a closed [`Decision`] that carries everything the answer needs, and [`render`] turns
//! it into a status, a list of `&'static`-backed header fields (a redirect's Location may be
//! written into the response) and a body, without looking at the request again. [`respond`]
//! does both. Both runtimes (the Cloudflare Worker in the root crate, and the native hyper twin)
//! copy that [`Response`] out verbatim, so they cannot disagree on any HTTP rule.
//!
//! What it is not: it does no I/O, reads no clock or environment, knows no `http` or `worker`
//! types, and allocates nothing (`#![no_std]`, no `alloc`). Everything that can be decided before
//! a request arrives (routes, ETags, Content-Type, Content-Length strings) is decided at build time
//! by `edgesite-sitegen` and arrives here as static tables.
//!
//! ```
//! use edgesite_core::{decide, respond, Asset, Body, Content, ContentCoding, RequestHead, Representation, Route, Scratch, Site, Target};
//!
//! static INDEX: Asset<'static> = Asset {
//!     deltas: &[],
//!     variants: &[],
//!     alternate: None,
//!     content_type: "text/html; charset=utf-8",
//!     last_modified: "Sun, 29 Nov 2026 12:00:00 GMT",
//!     last_modified_unix: 1_795_953_600,
//!     cache_control: "no-cache",
//!     fingerprint: "",
//!     fields: &[("x-content-type-options", "nosniff")],
//!     representations: &[Representation {
//!         coding: ContentCoding::Identity,
//!         etag: "\"abc\"",
//!         content_length: "5",
//!         content: Content::Bytes(b"hello"),
//!     }],
//! };
//! static SITE: Site<'static> = Site {
//!     routes: &[Route { path: "/", target: Target::Asset(&INDEX) }],
//!     fields: &[("x-content-type-options", "nosniff")],
//!     ..Site::EMPTY
//! };
//!
//! let response = respond(&SITE, &RequestHead::new("GET", "/?utm=1"));
//! assert_eq!(response.status, 200);
//! assert!(matches!(response.body, Body::Bytes(b"hello")));
//! assert_eq!(response.field("etag").unwrap(), "\"abc\"");
//! // The site's fields go on responses that are not a resource's own, such as a 404.
//! let missing = respond(&SITE, &RequestHead::new("GET", "/nope"));
//! assert_eq!((missing.status, &*missing.field("x-content-type-options").unwrap()), (404, "nosniff"));
//!
//! // RFC 9110 §13.1.2: If-None-Match uses the weak comparison, so W/"abc" matches "abc".
//! let mut head = RequestHead::new("GET", "/");
//! head.set_field("if-none-match", b"W/\"abc\"");
//! let mut scratch = Scratch::new();
//! let decision = decide(&SITE, &head, &mut scratch);
//! assert_eq!(decision.status(), 304);
//! // Deciding and rendering separately gives what respond gives.
//! assert_eq!(decision.response().field("x-content-type-options").unwrap(), "nosniff");
//! ```
#![no_std]
#[cfg(test)]
extern crate std;

mod accept;
mod base64;
mod coding;
mod date;
mod decision;
mod etag;
mod location;
mod lookup;
mod media;
mod negotiate;
mod ows;
mod path;
mod percent;
mod range;
mod render;
mod request;
mod respond;
mod response;
mod rule;
mod site;
mod timing;

#[cfg(test)]
mod tests;

/// Defines the site compiled by `edgesite_sitegen::build_script::run` (from the crate's
/// `build.rs`) in the calling crate: `pub static SITE: edgesite_core::Site<'static>`.
///
/// ```ignore
/// edgesite_core::include_site!();
/// let response = edgesite_core::respond(&SITE, &request);
/// ```
#[macro_export]
macro_rules! include_site {
    () => {
        include!(concat!(env!("OUT_DIR"), "/site.rs"));
    };
}

pub use accept::{named_quality, MAX_VARIANTS};
pub use coding::ContentCoding;
pub use date::parse_http_date;
pub use decision::{decide, Decision, Outcome};
pub use etag::{strong_eq, weak_eq, IfMatch, IfNoneMatch, IfRange};
pub use location::{is_network_path, Destination, Location, LOCATION_CAPACITY};
pub use lookup::{serves, Scratch};
pub use media::{choose, prefers_alternate};
pub use negotiate::{dictionary_hash, negotiate, select, AcceptEncoding};
pub use path::{canonical_path, normalize, percent_decode, PathBuf, PathError, MAX_PATH_LEN};
pub use percent::{is_path_char, is_query_value_char, is_visible_ascii, percent_encode};
pub use range::{evaluate_range, ByteRange, RangeRequest, RangeSet, MAX_RANGE_SPECS};
pub use render::{render, store_unavailable, ALLOW, STORE_RETRY_AFTER};
pub use request::{HostFieldLines, Method, RequestHead, REQUEST_FIELDS};
pub use respond::{respond, respond_if_served, respond_into};
pub use response::{Body, FieldList, FieldText, Multipart, Piece, Response};
pub use rule::{segment_key, Captures, MAX_CAPTURES};
pub use site::{
    Action, Asset, Content, Delta, NotFoundPage, ObjectKey, ObjectLength, Part, Redirect,
    RedirectStatus, Representation, Route, Rule, RuleNode, Segment, SharedCaches, Site, Store,
    Target, Variant, DECODED_CACHE_BYTES,
};
pub use timing::{respond_timed, ServerTiming};
