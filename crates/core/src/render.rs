//! `render`: a [`Decision`] → status, header fields and content, with no access to the request.
//!
//! This is the one place that says which fields each status carries:
//! - 200 and 206: Content-Type (the part's, or `multipart/byteranges`), Content-Encoding for an
//!   encoded representation (§8.4), Content-Length, Content-Range for one part (§14.4), the
//!   validators and caching fields, Accept-Ranges (§14.3) and Vary;
//! - 304: the validators and caching fields of the 200 it stands for, and Vary (§15.4.5);
//! - a redirect: Location (§10.2.2) and an empty body;
//! - 405 and OPTIONS: Allow (§10.2.1); 416: `Content-Range: bytes */LEN` (§14.4);
//! - 406, 412 and 416 of a negotiable resource: Vary (§12.5.5), so caches key them apart; a 406
//!   is chosen by Accept-Encoding, which its Vary always names;
//! - an answer the SPA fallback's choice made (its page to a navigation, or a 404 where a
//!   navigation would have had it): Vary naming `accept, sec-fetch-mode` too;
//! - every error: an explicit Cache-Control (RFC 9111 §4.2.2 lets caches store a 404, 405 or
//!   414 heuristically): `no-cache` on a 404, which a deploy may turn into a 200, `no-store` on
//!   the others, which say nothing about the resource's future;
//! - an answer a shared cache that ignores its Vary could hand to the wrong client (a
//!   dictionary delta, RFC 9842 §6.2; the SPA fallback's choice): `CDN-Cache-Control: private`
//!   in place of a configured one, unless [`Site::shared_caches`] trusts the caches' Vary;
//! - every answer: the configured fields, a resource's own on its 2xx and 304 (sitegen includes
//!   the site's defaults in them, less what `_headers` removed), the site's on every other one.

use crate::coding::ContentCoding;
use crate::decision::{Decision, Outcome};
use crate::location::Location;
use crate::range::{ByteRange, RangeSet};
use crate::response::{Body, FieldList, Multipart, Response};
use crate::site::{vary_field, Asset, Content, Representation, Selectors, SharedCaches, Site};

/// The methods every resource allows, as sent in Allow (RFC 9110 §10.2.1).
pub const ALLOW: &str = "GET, HEAD, OPTIONS";

const TEXT_PLAIN: &str = "text/plain; charset=utf-8";

/// Cache-Control of a 404 (a later deploy may serve the path) and of the other errors.
const NOT_FOUND_CACHE_CONTROL: &str = "no-cache";
const ERROR_CACHE_CONTROL: &str = "no-store";

/// A fixed text body with its Content-Length spelled out, so nothing is formatted at run time
/// (the `fixed_bodies_have_their_content_length` test keeps the two in step).
pub(crate) struct Text {
    pub(crate) body: &'static str,
    pub(crate) content_length: &'static str,
}

pub(crate) const BAD_REQUEST: Text = Text {
    body: "400 Bad Request\n",
    content_length: "16",
};
pub(crate) const NOT_FOUND: Text = Text {
    body: "404 Not Found\n",
    content_length: "14",
};
pub(crate) const METHOD_NOT_ALLOWED: Text = Text {
    body: "405 Method Not Allowed\n",
    content_length: "23",
};
pub(crate) const NOT_ACCEPTABLE: Text = Text {
    body: "406 Not Acceptable: no stored encoding of this resource is acceptable\n",
    content_length: "70",
};
pub(crate) const PRECONDITION_FAILED: Text = Text {
    body: "412 Precondition Failed\n",
    content_length: "24",
};
pub(crate) const URI_TOO_LONG: Text = Text {
    body: "414 URI Too Long\n",
    content_length: "17",
};
pub(crate) const RANGE_NOT_SATISFIABLE: Text = Text {
    body: "416 Range Not Satisfiable\n",
    content_length: "26",
};

pub(crate) const STORE_UNAVAILABLE: Text = Text {
    body: "503 Service Unavailable: the site's store did not answer; try again\n",
    content_length: "68",
};

/// How many seconds a client should wait before it asks again after a store read failed
/// (Retry-After, RFC 9110 §10.2.3).
pub const STORE_RETRY_AFTER: &str = "5";

/// What an adapter answers when the bytes of a [`crate::Content::Stored`] representation
/// cannot be read: the store failed, timed out, or holds other bytes than the tables name (a
/// missing object, a length that differs). RFC 9110 §15.6.4: 503 with Retry-After, stored by no
/// cache (RFC 9111 §5.2.2.5); never another body. Replaces whatever `response` held.
pub fn store_unavailable(response: &mut Response<'_>) {
    response.status = 503;
    let h = &mut response.fields;
    h.clear();
    h.push("content-type", TEXT_PLAIN);
    h.push("content-length", STORE_UNAVAILABLE.content_length);
    h.push("retry-after", STORE_RETRY_AFTER);
    h.push("cache-control", ERROR_CACHE_CONTROL);
    response.body = Body::Bytes(STORE_UNAVAILABLE.body.as_bytes());
}

/// Writes the answer `decision` stands for into `response` (whatever it held is replaced).
/// Allocates nothing and never panics.
pub fn render<'a>(decision: &Decision<'a, '_>, response: &mut Response<'a>) {
    response.status = decision.status();
    let h = &mut response.fields;
    h.clear();
    // RFC 9111 §5.2.2: a URL that names exactly these bytes can be fresh for a year.
    let cache_control = decision
        .fingerprinted
        .then_some(decision.site.fingerprinted_cache_control);
    let content = fields(h, decision, cache_control);
    h.set_configured(configured_fields(&decision.outcome).unwrap_or(decision.site.fields));
    if decision.site.shared_caches == SharedCaches::Private && is_private_to_shared_caches(decision)
    {
        // RFC 9213: CDN-Cache-Control speaks to CDNs only; `private` (RFC 9111 §5.2.2.7)
        // keeps the answer out of theirs and leaves browsers' caches to Cache-Control.
        h.push("cdn-cache-control", "private");
        h.withhold("cdn-cache-control");
    }
    // RFC 9110 §9.3.2: HEAD gets the fields of GET and no content.
    response.body = if decision.head { Body::Empty } else { content };
}

/// The resource's own configured fields, for its 2xx and 304 answers.
fn configured_fields<'a>(outcome: &Outcome<'a, '_>) -> Option<&'a [(&'a str, &'a str)]> {
    match outcome {
        Outcome::Ok { asset, .. }
        | Outcome::PartialContent { asset, .. }
        | Outcome::MultipartRanges { asset, .. }
        | Outcome::NotModified { asset, .. } => Some(asset.fields),
        _ => None,
    }
}

/// Whether a shared cache that keys only on the URL and Accept-Encoding (as CDNs do) could
/// hand this answer to a client it was not chosen for: a dictionary delta (RFC 9842 §6.2),
/// whatever the SPA fallback's choice made, and either answer at the URL of a resource with an
/// alternate (a page or its Markdown twin, chosen by Accept).
fn is_private_to_shared_caches(decision: &Decision<'_, '_>) -> bool {
    let delta = match decision.outcome {
        Outcome::Ok { representation, .. }
        | Outcome::PartialContent { representation, .. }
        | Outcome::MultipartRanges { representation, .. }
        | Outcome::NotModified { representation, .. } => representation.coding.needs_dictionary(),
        _ => false,
    };
    delta || decision.by_navigation || decision.by_accept
}

/// Pushes the fields of the decision's outcome and returns its content; `cache_control`
/// replaces the resource's own Cache-Control (a fingerprinted request).
fn fields<'a>(
    h: &mut FieldList<'a>,
    decision: &Decision<'a, '_>,
    cache_control: Option<&'a str>,
) -> Body<'a> {
    let (site, navigation) = (decision.site, decision.by_navigation);
    let own = |asset: &Asset<'a>| cache_control.unwrap_or(asset.cache_control);
    let vary = |asset: &Asset<'_>| vary_field(selectors(decision, asset));
    match decision.outcome {
        Outcome::Ok {
            asset,
            representation,
        } => ok(h, asset, representation, own(asset), vary(asset)),
        Outcome::PartialContent {
            asset,
            representation,
            range,
        } => partial_content(h, asset, representation, range, own(asset), vary(asset)),
        Outcome::MultipartRanges {
            asset,
            representation,
            ranges,
        } => {
            let cache = (own(asset), vary(asset));
            multipart_ranges(h, site, asset, representation, ranges, cache)
        }
        Outcome::NotModified {
            asset,
            representation,
        } => {
            // RFC 9110 §15.4.5: the fields a 200 would carry that describe the cache entry.
            validator_fields(h, asset, representation, own(asset));
            push_vary(h, vary(asset));
            Body::Empty
        }
        Outcome::Redirect { ref location, .. } => redirect(h, location),
        Outcome::NotFound { page } => {
            let selectors = Selectors {
                navigation,
                ..Selectors::default()
            };
            not_found(h, page, vary_field(selectors))
        }
        Outcome::Options => {
            h.push("allow", ALLOW);
            Body::Empty
        }
        ref error => error_fields(h, error, decision),
    }
}

/// What chose the answer about `asset` (RFC 9110 §12.5.5): its own representations, and
/// whether the request is a navigation or, for a resource with an alternate, its Accept.
fn selectors(decision: &Decision<'_, '_>, asset: &Asset<'_>) -> Selectors {
    let selectors = asset.selected_by(decision.by_navigation);
    Selectors {
        accept: selectors.accept || decision.by_accept,
        ..selectors
    }
}

/// The fields and fixed text of an error outcome (400, 405, 406, 412, 414, 416); what chose
/// among the resource's answers (the SPA fallback's choice, Accept) is named in Vary too.
fn error_fields<'a>(
    h: &mut FieldList<'a>,
    error: &Outcome<'a, '_>,
    decision: &Decision<'a, '_>,
) -> Body<'a> {
    let vary = |asset: &Asset<'_>| vary_field(selectors(decision, asset));
    match *error {
        Outcome::UriTooLong => error_text(h, None, &URI_TOO_LONG),
        Outcome::MethodNotAllowed => {
            h.push("allow", ALLOW);
            error_text(h, None, &METHOD_NOT_ALLOWED)
        }
        Outcome::NotAcceptable { asset } => {
            // §12.5.3: nothing Accept-Encoding accepts is stored, whatever else chose.
            let selectors = Selectors {
                encoding: true,
                ..selectors(decision, asset)
            };
            error_text(h, vary_field(selectors), &NOT_ACCEPTABLE)
        }
        Outcome::PreconditionFailed { asset } => error_text(h, vary(asset), &PRECONDITION_FAILED),
        Outcome::RangeNotSatisfiable {
            asset,
            representation,
        } => {
            h.push_unsatisfied_range(representation.length());
            h.push("accept-ranges", "bytes");
            error_text(h, vary(asset), &RANGE_NOT_SATISFIABLE)
        }
        // BadRequest, and no other outcome reaches here (`fields` answers them).
        _ => error_text(h, None, &BAD_REQUEST),
    }
}

/// 200: the whole representation.
fn ok<'a>(
    h: &mut FieldList<'a>,
    asset: &'a Asset<'a>,
    r: &'a Representation<'a>,
    cache_control: &'a str,
    vary: Option<&'static str>,
) -> Body<'a> {
    representation_fields(h, asset.content_type_of(r), r);
    h.push("content-length", r.content_length);
    resource_fields(h, asset, r, (cache_control, vary));
    content(asset, r, None)
}

/// The bytes of `r` (`range` of them, if given): a slice when they are in memory, else a
/// [`Body::Representation`] for the adapter to fetch.
fn content<'a>(
    asset: &'a Asset<'a>,
    r: &'a Representation<'a>,
    range: Option<ByteRange>,
) -> Body<'a> {
    match (r.content, range) {
        (Content::Bytes(bytes), None) => Body::Bytes(bytes),
        (Content::Bytes(bytes), Some(range)) => Body::Bytes(
            bytes
                .get(range.first as usize..=range.last as usize)
                .unwrap_or_default(),
        ),
        (Content::External { .. } | Content::Stored { .. } | Content::Decoded { .. }, range) => {
            Body::Representation {
                representation: r,
                source: source(asset, r),
                range,
            }
        }
    }
}

/// For a [`Content::Decoded`] representation, the stored one it is decoded from.
fn source<'a>(asset: &'a Asset<'a>, r: &Representation<'_>) -> Option<&'a Representation<'a>> {
    match r.content {
        Content::Decoded { from, .. } => asset.representations.get(usize::from(from)),
        Content::Bytes(_) | Content::External { .. } | Content::Stored { .. } => None,
    }
}

/// 206 with one part (RFC 9110 §15.3.7): Content-Range, and the fields a 200 would carry.
fn partial_content<'a>(
    h: &mut FieldList<'a>,
    asset: &'a Asset<'a>,
    r: &'a Representation<'a>,
    range: ByteRange,
    cache_control: &'a str,
    vary: Option<&'static str>,
) -> Body<'a> {
    representation_fields(h, asset.content_type_of(r), r);
    h.push_int("content-length", range.len());
    h.push_content_range(range, r.length());
    resource_fields(h, asset, r, (cache_control, vary));
    content(asset, r, Some(range))
}

/// 206 as `multipart/byteranges` (RFC 9110 §14.6), with the site's boundary.
fn multipart_ranges<'a>(
    h: &mut FieldList<'a>,
    site: &'a Site<'a>,
    asset: &'a Asset<'a>,
    r: &'a Representation<'a>,
    ranges: RangeSet,
    cache: (&'a str, Option<&'static str>),
) -> Body<'a> {
    let multipart = Multipart {
        boundary: site.boundary,
        content_type: asset.content_type_of(r),
        representation: r,
        source: source(asset, r),
        ranges,
    };
    h.push("content-type", site.multipart_content_type);
    h.push_int("content-length", multipart.byte_len());
    resource_fields(h, asset, r, cache);
    Body::Multipart(multipart)
}

/// A redirect (RFC 9110 §15.4): Location, and no content.
fn redirect<'a>(h: &mut FieldList<'a>, location: &Location<'a, '_>) -> Body<'a> {
    match location.as_fixed() {
        // The common case, a fixed location and no query to add: no copy.
        Some(text) => h.push("location", text),
        None => h.push_location(location),
    }
    h.push("content-length", "0");
    Body::Empty
}

/// 404, with the nearest folder's 404 page when there is one.
fn not_found<'a>(
    h: &mut FieldList<'a>,
    page: Option<&'a Asset<'a>>,
    vary: Option<&'static str>,
) -> Body<'a> {
    push_vary(h, vary);
    h.push("cache-control", NOT_FOUND_CACHE_CONTROL);
    let Some(page) = page else {
        return text(h, &NOT_FOUND);
    };
    let r = page.identity();
    h.push("content-type", page.content_type);
    h.push("content-length", r.content_length);
    content(page, r, None)
}

/// Content-Type and, for an encoded representation, Content-Encoding (RFC 9110 §8.3, §8.4).
fn representation_fields<'a>(h: &mut FieldList<'a>, content_type: &'a str, r: &Representation<'a>) {
    h.push("content-type", content_type);
    if r.coding != ContentCoding::Identity {
        h.push("content-encoding", r.coding.token());
    }
}

/// The fields every 2xx of a resource carries: validators, Accept-Ranges (§14.3), Vary.
fn resource_fields<'a>(
    h: &mut FieldList<'a>,
    asset: &Asset<'a>,
    r: &Representation<'a>,
    (cache_control, vary): (&'a str, Option<&'static str>),
) {
    validator_fields(h, asset, r, cache_control);
    h.push("accept-ranges", "bytes");
    push_vary(h, vary);
}

/// The validators and caching fields a 200 carries and a 304 repeats (RFC 9110 §15.4.5).
fn validator_fields<'a>(
    h: &mut FieldList<'a>,
    asset: &Asset<'a>,
    r: &Representation<'a>,
    cache_control: &'a str,
) {
    h.push("etag", r.etag);
    h.push("last-modified", asset.last_modified);
    h.push("cache-control", cache_control);
}

/// RFC 9110 §12.5.5: every response of a negotiable resource varies by Accept-Encoding (by
/// Accept when it has variants, by Available-Dictionary when it has deltas, RFC 9842 §6.2, and
/// by Sec-Fetch-Mode and Accept when the SPA fallback chose), identity, 206, 304 and errors
/// included, so caches key them apart.
fn push_vary(h: &mut FieldList<'_>, vary: Option<&'static str>) {
    if let Some(vary) = vary {
        h.push("vary", vary);
    }
}

/// An error: Vary when something in the request chose it, `Cache-Control: no-store`, its text.
fn error_text<'a>(h: &mut FieldList<'a>, vary: Option<&'static str>, body: &Text) -> Body<'a> {
    push_vary(h, vary);
    h.push("cache-control", ERROR_CACHE_CONTROL);
    text(h, body)
}

fn text<'a>(h: &mut FieldList<'a>, text: &Text) -> Body<'a> {
    h.push("content-type", TEXT_PLAIN);
    h.push("content-length", text.content_length);
    Body::Bytes(text.body.as_bytes())
}

impl<'a> Decision<'a, '_> {
    /// The rendered answer ([`render`] into a new [`Response`]). A [`Response`] has room for a
    /// written Location, which makes it large: adapters render into one they keep instead.
    pub fn response(&self) -> Response<'a> {
        let mut response = Response::new();
        render(self, &mut response);
        response
    }
}
