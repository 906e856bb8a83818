//! `decide`: request head → one closed [`Decision`] that carries everything rendering needs.
//!
//! The order of evaluation:
//! 0. the framing the transport left to the core: an HTTP/1.1 request without exactly one Host
//!    field line → 400 (RFC 9112 §3.2, [`HostFieldLines`](crate::HostFieldLines));
//! 1. the method (RFC 9110 §9): GET and HEAD are served, OPTIONS answers 204 with Allow, any
//!    other method 405 with Allow (§15.5.6: a 405 MUST carry Allow);
//! 2. the path ([`normalize`](crate::normalize)): malformed → 400, too long → 404;
//! 3. the lookup ([`lookup`](crate::lookup)): a resource or a redirect (a fixed `_redirects`
//!    rule, or a URL's canonical spelling, 308); else the first `_redirects` rule with
//!    placeholders or a splat that matches (a redirect, or a 200 rewrite to another resource);
//!    else the SPA fallback for navigations, or 404 with the nearest folder's `404.html`. A
//!    redirect keeps the request's query unless its destination has one; a Location longer than
//!    [`LOCATION_CAPACITY`] is 414;
//! 4. negotiation ([`choose`]): the media type (§12.5.1: a page's Markdown twin, its
//!    [`alternate`](Asset::alternate), for a client whose Accept weighs `text/markdown` above
//!    `text/html` ([`prefers_alternate`]); an image's AVIF or WebP variant for a client that
//!    names its type) and the content coding (§12.5.3): the representation to send, or 406;
//! 5. preconditions, only for a resource that would be 2xx (§13.2.1), in the order of §13.2.2:
//!    If-Match (strong) → 412; else If-Unmodified-Since → 412; If-None-Match (weak) → 304;
//!    else If-Modified-Since → 304. A malformed field or invalid date is ignored;
//! 6. Range, for GET only (§14.2), after If-Range (§13.1.5): 206 (one part, or
//!    `multipart/byteranges`), 416, or the full 200 when the field is ignored;
//! 7. the version: a 2xx or 304 of a resource whose query has `v=` its fingerprint is
//!    [`fingerprinted`](Decision::fingerprinted) (sitegen writes such URLs into the site's HTML and
//!    CSS), which changes only its Cache-Control.
//!
//! Rendering ([`render`](crate::render)) turns the [`Decision`] into fields and content without
//! looking at the request again.

use crate::coding::ContentCoding;
use crate::date::parse_http_date;
use crate::etag::{IfMatch, IfNoneMatch, IfRange};
use crate::location::{query_of, Location, LOCATION_CAPACITY};
use crate::lookup::{lookup, Found, Scratch};
use crate::media::{choose, prefers_alternate};
use crate::path::PathError;
use crate::range::{evaluate_range, ByteRange, RangeRequest, RangeSet};
use crate::request::{Method, RequestHead};
use crate::site::{Asset, RedirectStatus, Representation, Site};

/// What to answer, decided once: validators and fields follow from it, and HEAD differs from GET
/// only in whether the content is attached (RFC 9110 §9.3.2).
#[derive(Debug, Clone, Copy)]
pub struct Decision<'a, 'r> {
    /// The site answering: its fields go on answers that are not a resource's own, and its
    /// boundary delimits a multipart body.
    pub site: &'a Site<'a>,
    /// The answer.
    pub outcome: Outcome<'a, 'r>,
    /// HEAD: the fields of GET, no content.
    pub head: bool,
    /// The target's query names the resource's current bytes ([`Asset::has_fingerprint`]): its 2xx
    /// and 304 carry [`Site::fingerprinted_cache_control`] instead of the resource's own.
    pub fingerprinted: bool,
    /// The answer was chosen by whether the request is a navigation: the SPA fallback's page,
    /// or the 404 a request that is not one gets at a path where a navigation would have had
    /// that page. It then varies by `Sec-Fetch-Mode` and `Accept` (RFC 9110 §12.5.5), and is
    /// kept from shared caches that may ignore that ([`Site::shared_caches`]).
    pub by_navigation: bool,
    /// The resource at the URL has an [`alternate`](Asset::alternate), and Accept chose between
    /// the two: the answer, whichever it is, varies by `Accept` and is kept from shared caches
    /// that may ignore that, as an image's variants are.
    pub by_accept: bool,
}

/// What chose among answers besides the resource's own representations: whether the request
/// is a navigation ([`Decision::by_navigation`]), its Accept ([`Decision::by_accept`]).
#[derive(Debug, Clone, Copy, Default)]
struct Chosen {
    by_navigation: bool,
    by_accept: bool,
}

/// The closed set of answers. `'a` borrows the site; `'r` the request (its query) and the
/// [`Scratch`] its normalized path was written into (a rule's captures).
// The range set makes one variant a few hundred bytes; boxing it would allocate, which the core
// never does. These values live briefly on the stack.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy)]
pub enum Outcome<'a, 'r> {
    /// 200 OK (RFC 9110 §15.3.1) with this representation.
    Ok {
        /// The resource.
        asset: &'a Asset<'a>,
        /// The selected representation.
        representation: &'a Representation<'a>,
    },
    /// 206 Partial Content (RFC 9110 §15.3.7) with one range.
    PartialContent {
        /// The resource.
        asset: &'a Asset<'a>,
        /// The selected representation, which the range is of.
        representation: &'a Representation<'a>,
        /// The range sent.
        range: ByteRange,
    },
    /// 206 Partial Content as `multipart/byteranges` (RFC 9110 §14.6).
    MultipartRanges {
        /// The resource.
        asset: &'a Asset<'a>,
        /// The selected representation, which the ranges are of.
        representation: &'a Representation<'a>,
        /// The ranges, in request order.
        ranges: RangeSet,
    },
    /// 304 Not Modified (RFC 9110 §15.4.5): the client's copy is current.
    NotModified {
        /// The resource.
        asset: &'a Asset<'a>,
        /// The representation the 200 would have sent.
        representation: &'a Representation<'a>,
    },
    /// A redirect (RFC 9110 §15.4): 301, 302, 303, 307 or 308.
    Redirect {
        /// The status.
        status: RedirectStatus,
        /// What the Location is written from.
        location: Location<'a, 'r>,
    },
    /// 400 Bad Request (RFC 9110 §15.5.1): the request target or framing is malformed.
    BadRequest,
    /// 404 Not Found (RFC 9110 §15.5.5), with the nearest 404 page as content if there is one.
    NotFound {
        /// The 404 page.
        page: Option<&'a Asset<'a>>,
    },
    /// 405 Method Not Allowed (RFC 9110 §15.5.6), with Allow.
    MethodNotAllowed,
    /// 406 Not Acceptable (RFC 9110 §15.5.7): no stored representation is acceptable.
    NotAcceptable {
        /// The resource.
        asset: &'a Asset<'a>,
    },
    /// 412 Precondition Failed (RFC 9110 §15.5.13).
    PreconditionFailed {
        /// The resource.
        asset: &'a Asset<'a>,
    },
    /// 414 URI Too Long (RFC 9110 §15.5.15): a redirect's Location would be longer than
    /// [`LOCATION_CAPACITY`].
    UriTooLong,
    /// 416 Range Not Satisfiable (RFC 9110 §15.5.17), with `Content-Range: bytes */LEN`.
    RangeNotSatisfiable {
        /// The resource.
        asset: &'a Asset<'a>,
        /// The selected representation.
        representation: &'a Representation<'a>,
    },
    /// 204 No Content to OPTIONS (RFC 9110 §9.3.7), with Allow.
    Options,
}

impl<'a> Outcome<'a, '_> {
    /// The resource whose own answer this is (a 2xx or 304 of it), if any.
    pub fn resource(&self) -> Option<&'a Asset<'a>> {
        match *self {
            Outcome::Ok { asset, .. }
            | Outcome::PartialContent { asset, .. }
            | Outcome::MultipartRanges { asset, .. }
            | Outcome::NotModified { asset, .. } => Some(asset),
            _ => None,
        }
    }

    /// The status code.
    pub fn status(&self) -> u16 {
        match self {
            Outcome::Ok { .. } => 200,
            Outcome::Options => 204,
            Outcome::PartialContent { .. } | Outcome::MultipartRanges { .. } => 206,
            Outcome::NotModified { .. } => 304,
            Outcome::Redirect { status, .. } => status.code(),
            Outcome::BadRequest => 400,
            Outcome::NotFound { .. } => 404,
            Outcome::MethodNotAllowed => 405,
            Outcome::NotAcceptable { .. } => 406,
            Outcome::PreconditionFailed { .. } => 412,
            Outcome::UriTooLong => 414,
            Outcome::RangeNotSatisfiable { .. } => 416,
        }
    }
}

impl Decision<'_, '_> {
    /// The status code.
    pub fn status(&self) -> u16 {
        self.outcome.status()
    }
}

/// Where a decision's phases end, for Server-Timing ([`crate::respond_timed`]): the lookup
/// (route, `_redirects` rules) and the negotiation (RFC 9110 §12.5.3). [`NoMarks`] compiles to
/// nothing.
pub(crate) trait Marks {
    fn lookup_done(&mut self);
    fn negotiation_done(&mut self);
}

pub(crate) struct NoMarks;

impl Marks for NoMarks {
    #[inline(always)]
    fn lookup_done(&mut self) {}
    #[inline(always)]
    fn negotiation_done(&mut self) {}
}

/// Decides the answer to `request` from `site`; a normalized path is written into `scratch`,
/// which the decision may borrow (a rule's captures). Allocates nothing and never panics.
///
/// ```
/// # use edgesite_core::{decide, RequestHead, Scratch, Site};
/// let mut scratch = Scratch::new();
/// let decision = decide(&Site::EMPTY, &RequestHead::new("GET", "/a/../nope"), &mut scratch);
/// assert_eq!(decision.status(), 404);
/// ```
pub fn decide<'a, 'r>(
    site: &'a Site<'a>,
    request: &RequestHead<'r>,
    scratch: &'r mut Scratch,
) -> Decision<'a, 'r> {
    decide_marked(site, request, scratch, &mut NoMarks)
}

pub(crate) fn decide_marked<'a, 'r, M: Marks>(
    site: &'a Site<'a>,
    request: &RequestHead<'r>,
    scratch: &'r mut Scratch,
    marks: &mut M,
) -> Decision<'a, 'r> {
    let head = request.method == "HEAD";
    let (outcome, chosen) = outcome(site, request, scratch, head, marks);
    let fingerprinted = match (outcome.resource(), query_of(request.target)) {
        (Some(asset), Some(query)) => asset.has_fingerprint(query),
        _ => false,
    };
    Decision {
        site,
        outcome,
        head,
        fingerprinted,
        by_navigation: chosen.by_navigation,
        by_accept: chosen.by_accept,
    }
}

/// Steps 0-3 of the order at the top of this file; and what besides the resource's
/// representations chose the answer.
fn outcome<'a, 'r, M: Marks>(
    site: &'a Site<'a>,
    request: &RequestHead<'r>,
    scratch: &'r mut Scratch,
    head: bool,
    marks: &mut M,
) -> (Outcome<'a, 'r>, Chosen) {
    let none = Chosen::default();
    if request.host.is_some_and(|lines| !lines.are_valid()) {
        return (Outcome::BadRequest, none);
    }
    match Method::from_token(request.method) {
        Some(Method::Get | Method::Head) => {}
        Some(Method::Options) => return (Outcome::Options, none),
        None => return (Outcome::MethodNotAllowed, none),
    }
    let found = lookup(site, request, scratch);
    marks.lookup_done();
    match found {
        Ok(Found::Resource(asset)) => resource(asset, request, head, marks, false),
        Ok(Found::App(app)) => resource(app, request, head, marks, true),
        Ok(Found::Redirect { status, location }) => (redirect(status, location), none),
        Ok(Found::Nothing {
            page,
            by_navigation,
            ..
        }) => (
            Outcome::NotFound { page },
            Chosen {
                by_navigation,
                ..none
            },
        ),
        Err(PathError::BadRequest) => (Outcome::BadRequest, none),
        // Longer than any route: nothing can match; the root's 404 page.
        Err(PathError::TooLong) => (
            Outcome::NotFound {
                page: site.not_found_page("/"),
            },
            none,
        ),
    }
}

/// A redirect, or 414 when its Location would not fit. Out of line, off the path of a 200.
#[inline(never)]
fn redirect<'a, 'r>(status: RedirectStatus, location: Location<'a, 'r>) -> Outcome<'a, 'r> {
    if location.byte_len() > LOCATION_CAPACITY {
        return Outcome::UriTooLong;
    }
    Outcome::Redirect { status, location }
}

/// GET/HEAD of a resource (the SPA fallback's page when `by_navigation`): the resource or its
/// alternate by Accept (not the fallback's), then negotiation, preconditions and ranges of the
/// one chosen.
fn resource<'a, 'r, M: Marks>(
    found: &'a Asset<'a>,
    request: &RequestHead<'_>,
    head: bool,
    marks: &mut M,
    by_navigation: bool,
) -> (Outcome<'a, 'r>, Chosen) {
    // The SPA fallback's page answers for paths not its own: never with its twin, which names
    // the page's own URL (and a request for Markdown alone is no navigation: a 404).
    let alternate = found.alternate.filter(|_| !by_navigation);
    let asset = match alternate {
        Some(alternate) if prefers_alternate(found, request.accept) => alternate,
        _ => found,
    };
    let chosen = Chosen {
        by_navigation,
        by_accept: alternate.is_some(),
    };
    (representation_of(asset, request, head, marks), chosen)
}

/// Negotiation, then preconditions, then ranges, of `asset`.
fn representation_of<'a, 'r, M: Marks>(
    asset: &'a Asset<'a>,
    request: &RequestHead<'_>,
    head: bool,
    marks: &mut M,
) -> Outcome<'a, 'r> {
    let selected = choose(
        asset,
        request.accept,
        request.accept_encoding,
        request.available_dictionary,
    );
    marks.negotiation_done();
    let Some(representation) = selected else {
        return Outcome::NotAcceptable { asset };
    };
    match preconditions(asset, representation, request) {
        Some(Precondition::Failed) => return Outcome::PreconditionFailed { asset },
        Some(Precondition::NotModified) => {
            return Outcome::NotModified {
                asset,
                representation,
            }
        }
        None => {}
    }
    // RFC 9110 §14.2: GET is the only method for which range handling is defined.
    match request.range.filter(|_| !head) {
        Some(range) => ranges(asset, representation, range, request.if_range),
        None => Outcome::Ok {
            asset,
            representation,
        },
    }
}

/// Step 6: the Range field of a GET whose preconditions passed.
fn ranges<'a, 'r>(
    asset: &'a Asset<'a>,
    representation: &'a Representation<'a>,
    range: &[u8],
    if_range: Option<&[u8]>,
) -> Outcome<'a, 'r> {
    let full = Outcome::Ok {
        asset,
        representation,
    };
    if let Some(if_range) = if_range {
        let current = IfRange::parse(if_range)
            .is_some_and(|v| v.matches(representation.etag, asset.last_modified_unix));
        if !current {
            return full; // §13.1.5: the validator does not match: send everything.
        }
    }
    match evaluate_range(range, representation.length()) {
        RangeRequest::Ignore => full,
        RangeRequest::Unsatisfiable => Outcome::RangeNotSatisfiable {
            asset,
            representation,
        },
        RangeRequest::Satisfiable(ranges) => match ranges.as_slice() {
            [range] => Outcome::PartialContent {
                asset,
                representation,
                range: *range,
            },
            // Several ranges of an encoded representation: parts a client could not decode;
            // RFC 9110 §14.2 lets a server ignore Range.
            _ if representation.coding != ContentCoding::Identity => full,
            _ => Outcome::MultipartRanges {
                asset,
                representation,
                ranges,
            },
        },
    }
}

enum Precondition {
    Failed,
    NotModified,
}

/// RFC 9110 §13.2.2, steps 1-4, for a resource that exists and was selected for GET or HEAD.
fn preconditions(
    asset: &Asset<'_>,
    representation: &Representation<'_>,
    request: &RequestHead<'_>,
) -> Option<Precondition> {
    let etag = representation.etag;
    let modified = asset.last_modified_unix;
    // One pass over each list (validate and compare together).
    if let Some(passes) = request.if_match.and_then(|v| IfMatch::evaluate(v, etag)) {
        if !passes {
            return Some(Precondition::Failed);
        }
    } else if let Some(date) = request.if_unmodified_since.and_then(parse_http_date) {
        if modified > date {
            return Some(Precondition::Failed);
        }
    }
    if let Some(passes) = request
        .if_none_match
        .and_then(|v| IfNoneMatch::evaluate(v, etag))
    {
        if !passes {
            return Some(Precondition::NotModified);
        }
    } else if let Some(date) = request.if_modified_since.and_then(parse_http_date) {
        if modified <= date {
            return Some(Precondition::NotModified);
        }
    }
    None
}
