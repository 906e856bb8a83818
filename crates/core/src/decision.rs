//! `decide`: request head → one closed [`Decision`]; `Decision::response`: → status, fields, body.
//!
//! The order of evaluation:
//! 1. the method (RFC 9110 §9): GET and HEAD are served, OPTIONS answers 204 with Allow, any
//!    other method 405 with Allow (§15.5.6: a 405 MUST carry Allow);
//! 2. the path ([`normalize`]): malformed → 400, too long → 404;
//! 3. the route: a resource or a redirect (a fixed `_redirects` rule, or a URL's canonical
//!    spelling, 308); else the first `_redirects` rule with placeholders or a splat that matches
//!    (a redirect, or a 200 rewrite to another resource); else the SPA fallback for navigations,
//!    or 404 with the nearest folder's `404.html`. A redirect keeps the request's query unless its
//!    destination has one;
//! 4. negotiation (§12.5.3, [`select`]): the representation to send, or 406;
//! 5. preconditions, only for a resource that would be 2xx (§13.2.1), in the order of §13.2.2:
//!    If-Match (strong) → 412; else If-Unmodified-Since → 412; If-None-Match (weak) → 304;
//!    else If-Modified-Since → 304. A malformed field or invalid date is ignored;
//! 6. Range, for GET only (§14.2), after If-Range (§13.1.5): 206 (one part, or
//!    `multipart/byteranges`), 416, or the full 200 when the field is ignored.

use crate::date::parse_http_date;
use crate::etag::{IfMatch, IfNoneMatch, IfRange};
use crate::negotiate::select;
use crate::path::{canonical_path, normalize, PathBuf, PathError, MAX_PATH_LEN};
use crate::range::{evaluate_range, ByteRange, RangeRequest, RangeSet};
use crate::redirect::{location_len, rewrite_path, Destination, LOCATION_CAPACITY};
use crate::request::{Method, RequestHead};
use crate::response::{Body, HeaderList, Multipart, Response, ALLOW};
use crate::site::{Action, Asset, ContentCoding, RedirectStatus, Representation, Site, Target};

/// What to answer. Validators and fields are computed once in [`Decision::response`]; HEAD
/// differs from GET only in whether the content is attached (RFC 9110 §9.3.2).
// The range set makes one variant a few hundred bytes; boxing it would allocate, which the core
// never does. These values live briefly on the stack.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy)]
pub enum Decision<'a> {
    /// 200 OK (RFC 9110 §15.3.1) with this representation.
    Ok {
        /// The resource.
        asset: &'a Asset<'a>,
        /// The selected representation.
        representation: &'a Representation<'a>,
        /// HEAD: the same fields, no content.
        head: bool,
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
        /// The body.
        multipart: Multipart<'a>,
    },
    /// 304 Not Modified (RFC 9110 §15.4.5): the client's copy is current.
    NotModified {
        /// The resource.
        asset: &'a Asset<'a>,
        /// The representation the 200 would have sent.
        representation: &'a Representation<'a>,
    },
    /// A redirect (RFC 9110 §15.4): 301, 302, 303, 307 or 308, with a Location.
    Redirect {
        /// The status.
        status: RedirectStatus,
        /// Where to: the Location is written by [`Decision::response`].
        destination: Destination<'a>,
    },
    /// 400 Bad Request (RFC 9110 §15.5.1): the request target is malformed.
    BadRequest {
        /// HEAD: the same fields, no content.
        head: bool,
    },
    /// 404 Not Found (RFC 9110 §15.5.5), with the nearest 404 page as content if there is one.
    NotFound {
        /// The 404 page.
        page: Option<&'a Asset<'a>>,
        /// HEAD: the same fields, no content.
        head: bool,
    },
    /// 405 Method Not Allowed (RFC 9110 §15.5.6), with Allow.
    MethodNotAllowed,
    /// 406 Not Acceptable (RFC 9110 §15.5.7): no stored representation is acceptable.
    NotAcceptable {
        /// The resource.
        asset: &'a Asset<'a>,
        /// HEAD: the same fields, no content.
        head: bool,
    },
    /// 414 URI Too Long (RFC 9110 §15.5.15): a redirect's Location would be longer than
    /// [`LOCATION_CAPACITY`].
    UriTooLong {
        /// HEAD: the same fields, no content.
        head: bool,
    },
    /// 412 Precondition Failed (RFC 9110 §15.5.13).
    PreconditionFailed {
        /// The resource.
        asset: &'a Asset<'a>,
        /// HEAD: the same fields, no content.
        head: bool,
    },
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

/// The complete answer to `request` from `site`: [`decide`], then [`Decision::response`] with the
/// configured fields: a resource's own list on its 2xx and 304 (sitegen includes the site's
/// defaults in it, less what `_headers` removed), the site's on every other response.
/// Allocates nothing and never panics.
pub fn respond<'a>(site: &'a Site<'a>, request: &RequestHead<'_>) -> Response<'a> {
    let mut response = Response::new();
    respond_into(site, request, &mut response);
    response
}

/// [`respond`], written into `response` (whatever it held before is replaced). A [`Response`]
/// has room for a written Location, which makes it large: adapters build one in place and let
/// this fill it rather than move one around.
pub fn respond_into<'a>(
    site: &'a Site<'a>,
    request: &RequestHead<'_>,
    response: &mut Response<'a>,
) {
    decide(site, request).write_response(request, response);
    if !response.headers.has_resource_fields() {
        response.headers.extend_site(site.headers);
    }
}

/// Whether the site has something at the request's path, whatever the method: a route (a file
/// or a redirect), a matching `_redirects` rule, or the SPA fallback for a navigation. For a
/// Worker or server that embeds a site beside its own routes (library mode): what the site does
/// not serve goes to them. A malformed target is not the site's either.
pub fn serves(site: &Site<'_>, request: &RequestHead<'_>) -> bool {
    let mut buf: PathBuf;
    let path = match canonical_path(request.target) {
        Some(path) => path,
        None => {
            buf = [0; MAX_PATH_LEN];
            match normalize(request.target, &mut buf) {
                Ok(path) => path,
                Err(_) => return false,
            }
        }
    };
    site.route(path).is_some()
        || site.rules.iter().any(|rule| rule.captures(path).is_some())
        || (site.fallback.is_some() && request.is_navigation() && !has_extension(path))
}

/// [`respond_into`] if the site [`serves`] the request's path; `false` (and `response`
/// untouched) if not, so the caller can answer from its own routes.
pub fn respond_if_served<'a>(
    site: &'a Site<'a>,
    request: &RequestHead<'_>,
    response: &mut Response<'a>,
) -> bool {
    if !serves(site, request) {
        return false;
    }
    respond_into(site, request, response);
    true
}

/// 400 Bad Request (RFC 9110 §15.5.1) with the site's fields, for a request the adapter's
/// transport found malformed before the core could see it (e.g. an HTTP/1.1 request without
/// exactly one Host field, RFC 9112 §3.2). `head`: the request's method was HEAD.
pub fn bad_request<'a>(site: &'a Site<'a>, head: bool, response: &mut Response<'a>) {
    let request = RequestHead::new(if head { "HEAD" } else { "GET" }, "");
    Decision::BadRequest { head }.write_response(&request, response);
    response.headers.extend_site(site.headers);
}

/// Decides the answer to `request` from `site`. Allocates nothing and never panics.
pub fn decide<'a>(site: &'a Site<'a>, request: &RequestHead<'_>) -> Decision<'a> {
    decide_marked(site, request, &mut NoMarks)
}

/// Where a decision's phases end, for Server-Timing: the lookup (route, `_redirects` rules) and
/// the negotiation (RFC 9110 §12.5.3). [`NoMarks`] compiles to nothing.
trait Marks {
    fn lookup_done(&mut self);
    fn negotiation_done(&mut self);
}

struct NoMarks;

impl Marks for NoMarks {
    #[inline(always)]
    fn lookup_done(&mut self) {}
    #[inline(always)]
    fn negotiation_done(&mut self) {}
}

/// The durations of one answer's phases, in nanoseconds of the clock given to
/// [`respond_timed`]: sent as `Server-Timing` (W3C Server Timing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServerTiming {
    /// Normalizing the path and finding its route or `_redirects` rule.
    pub lookup_ns: u64,
    /// Choosing the representation (0 when none was chosen, e.g. a redirect or a 404).
    pub negotiation_ns: u64,
    /// The whole answer: deciding and rendering.
    pub total_ns: u64,
}

struct ClockMarks<F: FnMut() -> u64> {
    clock: F,
    lookup: Option<u64>,
    negotiation: Option<u64>,
}

impl<F: FnMut() -> u64> Marks for ClockMarks<F> {
    fn lookup_done(&mut self) {
        self.lookup = Some((self.clock)());
    }
    fn negotiation_done(&mut self) {
        self.negotiation = Some((self.clock)());
    }
}

/// [`respond_into`], timed by `clock` (any monotonic nanosecond counter: the core has no clock of
/// its own), with a `Server-Timing: lookup;dur=.., negotiation;dur=.., total;dur=..` field
/// (milliseconds). Allocates nothing.
pub fn respond_timed<'a>(
    site: &'a Site<'a>,
    request: &RequestHead<'_>,
    response: &mut Response<'a>,
    clock: impl FnMut() -> u64,
) -> ServerTiming {
    let mut marks = ClockMarks {
        clock,
        lookup: None,
        negotiation: None,
    };
    let start = (marks.clock)();
    decide_marked(site, request, &mut marks).write_response(request, response);
    if !response.headers.has_resource_fields() {
        response.headers.extend_site(site.headers);
    }
    let end = (marks.clock)();
    let lookup = marks.lookup.unwrap_or(end);
    let timing = ServerTiming {
        lookup_ns: lookup.saturating_sub(start),
        negotiation_ns: marks.negotiation.map_or(0, |n| n.saturating_sub(lookup)),
        total_ns: end.saturating_sub(start),
    };
    response.headers.push_server_timing(timing);
    timing
}

fn decide_marked<'a, M: Marks>(
    site: &'a Site<'a>,
    request: &RequestHead<'_>,
    marks: &mut M,
) -> Decision<'a> {
    let head = match Method::from_token(request.method) {
        Some(Method::Get) => false,
        Some(Method::Head) => true,
        Some(Method::Options) => return Decision::Options,
        None => return Decision::MethodNotAllowed,
    };
    // Most targets are canonical already: look them up as they are, with no copy; only the
    // others are decoded into a stack buffer.
    let mut buf: PathBuf;
    let normalized = match canonical_path(request.target) {
        Some(path) => Ok(path),
        None => {
            buf = [0; MAX_PATH_LEN];
            normalize(request.target, &mut buf)
        }
    };
    let path = match normalized {
        Ok(path) => path,
        Err(PathError::BadRequest) => return Decision::BadRequest { head },
        // Longer than any route: nothing can match; the root's 404 page.
        Err(PathError::TooLong) => {
            return Decision::NotFound {
                page: site.not_found_page("/"),
                head,
            }
        }
    };
    let route = site.route(path).map(|route| &route.target);
    if route.is_some() {
        marks.lookup_done();
    }
    match route {
        Some(Target::Asset(asset)) => resource(site, asset, request, head, marks),
        Some(Target::Redirect(r)) => redirect(
            r.status,
            Destination::Fixed {
                location: r.location,
                query_at: r.query_at,
            },
            path,
            request,
            head,
        ),
        None => rules(site, path, request, head, marks),
    }
}

/// A path that matches no route: the first matching `_redirects` rule, the SPA fallback, or 404.
fn rules<'a, M: Marks>(
    site: &'a Site<'a>,
    path: &str,
    request: &RequestHead<'_>,
    head: bool,
    marks: &mut M,
) -> Decision<'a> {
    let matched = site
        .rules
        .iter()
        .find_map(|rule| Some((rule, rule.captures(path)?)));
    marks.lookup_done();
    match matched {
        Some((rule, captures)) => match &rule.action {
            Action::Redirect { status, .. } => {
                redirect(*status, Destination::Rule(rule), path, request, head)
            }
            Action::Rewrite { destination } => {
                let mut buf = [0; MAX_PATH_LEN];
                let target = rewrite_path(destination, &captures, &mut buf)
                    .and_then(|rewritten| site.route(rewritten));
                match target.map(|route| &route.target) {
                    Some(Target::Asset(asset)) => resource(site, asset, request, head, marks),
                    _ => Decision::NotFound {
                        page: site.not_found_page(path),
                        head,
                    },
                }
            }
        },
        None => match site.fallback {
            Some(app) if request.is_navigation() && !has_extension(path) => {
                resource(site, app, request, head, marks)
            }
            _ => Decision::NotFound {
                page: site.not_found_page(path),
                head,
            },
        },
    }
}

/// A redirect, or 414 when its Location would not fit. Out of line, off the path of a 200.
#[inline(never)]
fn redirect<'a>(
    status: RedirectStatus,
    destination: Destination<'a>,
    path: &str,
    request: &RequestHead<'_>,
    head: bool,
) -> Decision<'a> {
    if location_len(&destination, path, request.target) > LOCATION_CAPACITY {
        return Decision::UriTooLong { head };
    }
    Decision::Redirect {
        status,
        destination,
    }
}

/// Whether the last segment of `path` has a file extension (`/app.js`, not `/users/42`): the SPA
/// fallback never answers those, so a missing script is a 404, not HTML.
fn has_extension(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .is_some_and(|last| last.contains('.'))
}

/// GET/HEAD of a resource: negotiation, then preconditions, then ranges.
fn resource<'a, M: Marks>(
    site: &'a Site<'a>,
    asset: &'a Asset<'a>,
    request: &RequestHead<'_>,
    head: bool,
    marks: &mut M,
) -> Decision<'a> {
    let selected = select(asset, request.accept_encoding);
    marks.negotiation_done();
    let Some(representation) = selected else {
        return Decision::NotAcceptable { asset, head };
    };
    match preconditions(asset, representation, request) {
        Some(Precondition::Failed) => return Decision::PreconditionFailed { asset, head },
        Some(Precondition::NotModified) => {
            return Decision::NotModified {
                asset,
                representation,
            }
        }
        None => {}
    }
    let full = Decision::Ok {
        asset,
        representation,
        head,
    };
    // RFC 9110 §14.2: GET is the only method for which range handling is defined.
    let Some(range) = request.range.filter(|_| !head) else {
        return full;
    };
    if let Some(if_range) = request.if_range {
        let current = IfRange::parse(if_range)
            .is_some_and(|v| v.matches(representation.etag, asset.last_modified_unix));
        if !current {
            return full; // §13.1.5: the validator does not match: send everything.
        }
    }
    match evaluate_range(range, representation.body.len() as u64) {
        RangeRequest::Ignore => full,
        RangeRequest::Unsatisfiable => Decision::RangeNotSatisfiable {
            asset,
            representation,
        },
        RangeRequest::Satisfiable(ranges) => {
            partial(site, asset, representation, ranges).unwrap_or(full)
        }
    }
}

/// 206 for `ranges`; `None` (send the full 200) for several ranges of an encoded representation,
/// whose parts a client could not decode (RFC 9110 §14.2 lets a server ignore Range).
fn partial<'a>(
    site: &'a Site<'a>,
    asset: &'a Asset<'a>,
    representation: &'a Representation<'a>,
    ranges: RangeSet,
) -> Option<Decision<'a>> {
    match ranges.as_slice() {
        [range] => Some(Decision::PartialContent {
            asset,
            representation,
            range: *range,
        }),
        _ if representation.coding != ContentCoding::Identity => None,
        _ => Some(Decision::MultipartRanges {
            asset,
            representation,
            multipart: Multipart {
                boundary: site.boundary,
                multipart_content_type: site.multipart_content_type,
                content_type: asset.content_type,
                representation: representation.body,
                ranges,
            },
        }),
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

const TEXT_PLAIN: &str = "text/plain; charset=utf-8";

/// A fixed text body with its Content-Length spelled out, so nothing is formatted at run time
/// (the `fixed_bodies_have_their_content_length` test keeps the two in step).
struct Text {
    body: &'static str,
    content_length: &'static str,
}

const BAD_REQUEST: Text = Text {
    body: "400 Bad Request\n",
    content_length: "16",
};
const NOT_FOUND: Text = Text {
    body: "404 Not Found\n",
    content_length: "14",
};
const METHOD_NOT_ALLOWED: Text = Text {
    body: "405 Method Not Allowed\n",
    content_length: "23",
};
const NOT_ACCEPTABLE: Text = Text {
    body: "406 Not Acceptable: no stored encoding of this resource is acceptable\n",
    content_length: "70",
};
const URI_TOO_LONG: Text = Text {
    body: "414 URI Too Long\n",
    content_length: "17",
};
const PRECONDITION_FAILED: Text = Text {
    body: "412 Precondition Failed\n",
    content_length: "24",
};
const RANGE_NOT_SATISFIABLE: Text = Text {
    body: "416 Range Not Satisfiable\n",
    content_length: "26",
};

impl<'a> Decision<'a> {
    /// The status code.
    pub fn status(&self) -> u16 {
        match self {
            Decision::Ok { .. } => 200,
            Decision::Options => 204,
            Decision::PartialContent { .. } | Decision::MultipartRanges { .. } => 206,
            Decision::NotModified { .. } => 304,
            Decision::Redirect { status, .. } => status.code(),
            Decision::BadRequest { .. } => 400,
            Decision::NotFound { .. } => 404,
            Decision::MethodNotAllowed => 405,
            Decision::NotAcceptable { .. } => 406,
            Decision::UriTooLong { .. } => 414,
            Decision::PreconditionFailed { .. } => 412,
            Decision::RangeNotSatisfiable { .. } => 416,
        }
    }

    /// Renders the status, header fields and content of the answer to `request` (the request
    /// this was decided for: a redirect's Location takes its query and captures from it).
    pub fn response(self, request: &RequestHead<'_>) -> Response<'a> {
        let mut response = Response::new();
        self.write_response(request, &mut response);
        response
    }

    /// [`Decision::response`], written into `response` (whatever it held before is replaced).
    pub fn write_response(self, request: &RequestHead<'_>, response: &mut Response<'a>) {
        response.status = self.status();
        response.headers.clear();
        let h = &mut response.headers;
        response.body = match self {
            Decision::Ok {
                asset,
                representation: r,
                head,
            } => {
                representation_fields(h, asset.content_type, r);
                h.push("content-length", r.content_length);
                resource_fields(h, asset, r);
                if head {
                    Body::Empty
                } else {
                    Body::Bytes(r.body)
                }
            }
            Decision::PartialContent {
                asset,
                representation: r,
                range,
            } => {
                // RFC 9110 §15.3.7: Content-Range, and the fields a 200 would carry.
                representation_fields(h, asset.content_type, r);
                h.push_int("content-length", range.len());
                h.push_content_range(range, r.body.len() as u64);
                resource_fields(h, asset, r);
                Body::Bytes(&r.body[range.first as usize..=range.last as usize])
            }
            Decision::MultipartRanges {
                asset,
                representation: r,
                multipart,
            } => {
                h.push("content-type", multipart.multipart_content_type);
                h.push_int("content-length", multipart.len());
                resource_fields(h, asset, r);
                Body::Multipart(multipart)
            }
            Decision::NotModified {
                asset,
                representation,
            } => {
                // RFC 9110 §15.4.5: the fields a 200 would carry that describe the cache entry.
                validator_fields(h, asset, representation);
                vary(h, asset);
                Body::Empty
            }
            Decision::Redirect { destination, .. } => {
                match destination {
                    // The common case, a fixed location and no query to add: no copy.
                    Destination::Fixed { location, .. }
                        if location_len(&destination, "", request.target) == location.len() =>
                    {
                        h.push("location", location);
                    }
                    _ => h.push_location(&destination, request.target),
                }
                h.push("content-length", "0");
                Body::Empty
            }
            Decision::NotFound {
                page: Some(page),
                head,
            } => {
                let r = page.identity();
                h.push("content-type", page.content_type);
                h.push("content-length", r.content_length);
                h.push("cache-control", "no-cache");
                content(r.body, head)
            }
            Decision::NotFound { page: None, head } => text(h, &NOT_FOUND, head),
            Decision::BadRequest { head } => text(h, &BAD_REQUEST, head),
            Decision::UriTooLong { head } => text(h, &URI_TOO_LONG, head),
            Decision::MethodNotAllowed => {
                h.push("allow", ALLOW);
                text(h, &METHOD_NOT_ALLOWED, false)
            }
            Decision::NotAcceptable { asset, head } => {
                vary(h, asset);
                text(h, &NOT_ACCEPTABLE, head)
            }
            Decision::PreconditionFailed { asset, head } => {
                vary(h, asset);
                text(h, &PRECONDITION_FAILED, head)
            }
            Decision::RangeNotSatisfiable {
                asset,
                representation,
            } => {
                h.push_unsatisfied_range(representation.body.len() as u64);
                h.push("accept-ranges", "bytes");
                vary(h, asset);
                text(h, &RANGE_NOT_SATISFIABLE, false)
            }
            Decision::Options => {
                h.push("allow", ALLOW);
                Body::Empty
            }
        };
    }
}

/// Content-Type and, for an encoded representation, Content-Encoding (RFC 9110 §8.3, §8.4).
fn representation_fields<'a>(
    h: &mut HeaderList<'a>,
    content_type: &'a str,
    r: &Representation<'a>,
) {
    h.push("content-type", content_type);
    if r.coding != ContentCoding::Identity {
        h.push("content-encoding", r.coding.token());
    }
}

/// The fields every 2xx of a resource carries: validators, Accept-Ranges (§14.3), Vary.
fn resource_fields<'a>(h: &mut HeaderList<'a>, asset: &Asset<'a>, r: &Representation<'a>) {
    validator_fields(h, asset, r);
    h.push("accept-ranges", "bytes");
    vary(h, asset);
}

/// The validators and caching fields a 200 carries and a 304 repeats (RFC 9110 §15.4.5), with the
/// resource's configured fields (e.g. `cdn-cache-control`).
fn validator_fields<'a>(h: &mut HeaderList<'a>, asset: &Asset<'a>, r: &Representation<'a>) {
    h.push("etag", r.etag);
    h.push("last-modified", asset.last_modified);
    h.push("cache-control", asset.cache_control);
    h.extend_resource(asset.headers);
}

/// RFC 9110 §12.5.5: every response of a negotiable resource varies by Accept-Encoding,
/// identity, 206, 304 and errors included, so caches key them apart.
fn vary(h: &mut HeaderList<'_>, asset: &Asset<'_>) {
    if asset.is_negotiable() {
        h.push("vary", "accept-encoding");
    }
}

/// HEAD gets the fields of GET and no content (RFC 9110 §9.3.2).
fn content(body: &[u8], head: bool) -> Body<'_> {
    if head {
        Body::Empty
    } else {
        Body::Bytes(body)
    }
}

fn text<'a>(h: &mut HeaderList<'a>, text: &Text, head: bool) -> Body<'a> {
    h.push("content-type", TEXT_PLAIN);
    h.push("content-length", text.content_length);
    content(text.body.as_bytes(), head)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::{NotFoundPage, Part, Redirect, Route, Rule, Segment};
    use std::string::ToString;
    use std::vec::Vec;

    const DATE: &str = "Tue, 14 Nov 2023 22:13:20 GMT";
    const UNIX: u64 = 1_700_000_000;

    static PAGE: Asset<'static> = Asset {
        content_type: "text/html; charset=utf-8",
        last_modified: DATE,
        last_modified_unix: UNIX,
        cache_control: "no-cache",
        headers: &[],
        representations: &[
            Representation {
                coding: ContentCoding::Identity,
                etag: "\"page\"",
                content_length: "10",
                body: b"0123456789",
            },
            Representation {
                coding: ContentCoding::Br,
                etag: "\"page-br\"",
                content_length: "4",
                body: b"BR!!",
            },
        ],
    };
    static PLAIN: Asset<'static> = Asset {
        content_type: "text/plain; charset=utf-8",
        last_modified: DATE,
        last_modified_unix: UNIX,
        cache_control: "no-cache",
        headers: &[("cdn-cache-control", "max-age=60")],
        representations: &[Representation {
            coding: ContentCoding::Identity,
            etag: "\"plain\"",
            content_length: "26",
            body: b"abcdefghijklmnopqrstuvwxyz",
        }],
    };
    static MISSING: Asset<'static> = Asset {
        content_type: "text/html; charset=utf-8",
        last_modified: DATE,
        last_modified_unix: UNIX,
        cache_control: "no-cache",
        headers: &[],
        representations: &[Representation {
            coding: ContentCoding::Identity,
            etag: "\"404\"",
            content_length: "7",
            body: b"missing",
        }],
    };
    static DOCS_MISSING: Asset<'static> = Asset {
        content_type: "text/html; charset=utf-8",
        last_modified: DATE,
        last_modified_unix: UNIX,
        cache_control: "no-cache",
        headers: &[],
        representations: &[Representation {
            coding: ContentCoding::Identity,
            etag: "\"docs-404\"",
            content_length: "12",
            body: b"docs missing",
        }],
    };
    static SITE: Site<'static> = Site {
        routes: &[
            Route {
                path: "/",
                target: Target::Asset(&PAGE),
            },
            Route {
                path: "/docs",
                target: Target::Redirect(Redirect {
                    status: RedirectStatus::PermanentRedirect,
                    location: "/docs/",
                    query_at: Some(6),
                }),
            },
            Route {
                path: "/docs/",
                target: Target::Asset(&PAGE),
            },
            Route {
                path: "/plain.txt",
                target: Target::Asset(&PLAIN),
            },
        ],
        not_found: &[
            NotFoundPage {
                folder: "/",
                page: &MISSING,
            },
            NotFoundPage {
                folder: "/docs/",
                page: &DOCS_MISSING,
            },
        ],
        fallback: None,
        boundary: "BOUNDARY",
        multipart_content_type: "multipart/byteranges; boundary=BOUNDARY",
        headers: &[("x-content-type-options", "nosniff")],
        rules: &RULES,
    };
    /// `_redirects`:
    /// ```text
    /// /blog/:year/*  https://blog.example/:year/:splat  301
    /// /search/:term  /find?q=:term#results
    /// /files/:name   /:name  200
    /// /app/*         /docs/  200
    /// /gone/*        /nowhere/:splat  200
    /// ```
    static RULES: [Rule<'static>; 5] = [
        Rule {
            pattern: &[Segment::Literal("blog"), Segment::Placeholder],
            splat: true,
            action: Action::Redirect {
                status: RedirectStatus::MovedPermanently,
                destination: &[
                    Part::Literal("https://blog.example/"),
                    Part::Capture(0),
                    Part::Literal("/"),
                    Part::Capture(1),
                ],
                query_at: Some(4),
            },
        },
        Rule {
            pattern: &[Segment::Literal("search"), Segment::Placeholder],
            splat: false,
            action: Action::Redirect {
                status: RedirectStatus::Found,
                destination: &[
                    Part::Literal("/find?q="),
                    Part::QueryCapture(0),
                    Part::Literal("#results"),
                ],
                query_at: None,
            },
        },
        Rule {
            pattern: &[Segment::Literal("files"), Segment::Placeholder],
            splat: false,
            action: Action::Rewrite {
                destination: &[Part::Literal("/"), Part::Capture(0)],
            },
        },
        Rule {
            pattern: &[Segment::Literal("app")],
            splat: true,
            action: Action::Rewrite {
                destination: &[Part::Literal("/docs/")],
            },
        },
        Rule {
            pattern: &[Segment::Literal("gone")],
            splat: true,
            action: Action::Rewrite {
                destination: &[Part::Literal("/nowhere/"), Part::Capture(0)],
            },
        },
    ];
    static SPA: Site<'static> = Site {
        routes: &[Route {
            path: "/plain.txt",
            target: Target::Asset(&PLAIN),
        }],
        not_found: &[],
        fallback: Some(&PAGE),
        boundary: "B",
        multipart_content_type: "multipart/byteranges; boundary=B",
        headers: &[],
        rules: &[],
    };

    fn respond<'r>(
        method: &'r str,
        target: &'r str,
        fields: &[(&str, &'r str)],
    ) -> Response<'static> {
        let mut head = RequestHead::new(method, target);
        for (name, value) in fields {
            head.set_field(name, value.as_bytes());
        }
        decide(&SITE, &head).response(&head)
    }

    fn get(target: &str, fields: &[(&str, &str)]) -> Response<'static> {
        respond("GET", target, fields)
    }

    fn body(response: &Response<'_>) -> Vec<u8> {
        match response.body {
            Body::Empty => Vec::new(),
            Body::Bytes(bytes) => bytes.to_vec(),
            Body::Multipart(m) => {
                let mut out = Vec::new();
                m.for_each_chunk(|chunk| out.extend_from_slice(chunk));
                out
            }
        }
    }

    #[test]
    fn fixed_bodies_have_their_content_length() {
        for text in [
            BAD_REQUEST,
            NOT_FOUND,
            METHOD_NOT_ALLOWED,
            NOT_ACCEPTABLE,
            PRECONDITION_FAILED,
            RANGE_NOT_SATISFIABLE,
            URI_TOO_LONG,
        ] {
            assert_eq!(
                text.content_length.parse::<usize>().unwrap(),
                text.body.len(),
                "{}",
                text.body
            );
        }
    }

    #[test]
    fn get_serves_the_resource_with_its_fields() {
        let r = get("/", &[]);
        assert_eq!(r.status, 200);
        assert_eq!(body(&r), b"0123456789");
        assert_eq!(
            r.header("content-type").unwrap(),
            "text/html; charset=utf-8"
        );
        assert_eq!(r.header("content-length").unwrap(), "10");
        assert_eq!(r.header("etag").unwrap(), "\"page\"");
        assert_eq!(r.header("last-modified").unwrap(), DATE);
        assert_eq!(r.header("accept-ranges").unwrap(), "bytes");
        // RFC 9110 §12.5.5: identity responses of a negotiable resource vary too.
        assert_eq!(r.header("vary").unwrap(), "accept-encoding");
        assert!(r.header("content-encoding").is_none());
        assert!(get("/plain.txt", &[]).header("vary").is_none());
    }

    #[test]
    fn negotiation_selects_an_encoding_with_its_own_etag() {
        let r = get("/", &[("accept-encoding", "gzip, br")]);
        assert_eq!(r.header("content-encoding").unwrap(), "br");
        assert_eq!(r.header("etag").unwrap(), "\"page-br\"");
        assert_eq!(r.header("content-length").unwrap(), "4");
        assert_eq!(body(&r), b"BR!!");
    }

    #[test]
    fn nothing_acceptable_is_406_with_vary() {
        let r = get("/", &[("accept-encoding", "identity;q=0")]);
        assert_eq!(r.status, 406);
        assert_eq!(r.header("vary").unwrap(), "accept-encoding");
    }

    #[test]
    fn head_has_the_fields_of_get_and_no_content() {
        // RFC 9110 §9.3.2.
        let (get, head) = (get("/", &[]), respond("HEAD", "/", &[]));
        assert_eq!(head.status, 200);
        assert!(head.body.is_empty());
        assert!(get
            .headers
            .iter()
            .map(|(n, v)| (n, v.to_string()))
            .eq(head.headers.iter().map(|(n, v)| (n, v.to_string()))));
    }

    #[test]
    fn other_methods_get_405_with_allow() {
        // RFC 9110 §15.5.6: a 405 MUST carry Allow. §9.1: methods are case-sensitive.
        for method in ["POST", "PUT", "DELETE", "PATCH", "get", "BREW"] {
            let r = respond(method, "/", &[]);
            assert_eq!(r.status, 405, "{method}");
            assert_eq!(r.header("allow").unwrap(), ALLOW);
        }
    }

    #[test]
    fn options_gets_204_with_allow_and_no_content_length() {
        // RFC 9110 §9.3.7; §8.6: no Content-Length in a 204.
        let r = respond("OPTIONS", "*", &[]);
        assert_eq!(
            (
                r.status,
                &*r.header("allow").unwrap(),
                r.header("content-length").is_none()
            ),
            (204, ALLOW, true)
        );
    }

    #[test]
    fn missing_paths_get_the_nearest_404_page() {
        let r = get("/nope", &[]);
        assert_eq!((r.status, body(&r)), (404, b"missing".to_vec()));
        assert!(r.header("etag").is_none());
        assert_eq!(body(&get("/docs/nope/deeper", &[])), b"docs missing");
        let bare = Site {
            not_found: &[],
            ..SPA
        };
        let head = RequestHead::new("GET", "/nope");
        let r = decide(&bare, &head).response(&head);
        assert_eq!(
            (r.status, body(&r)),
            (404, NOT_FOUND.body.as_bytes().to_vec())
        );
    }

    #[test]
    fn a_resources_fields_replace_the_sites() {
        let r = super::respond(&SITE, &RequestHead::new("GET", "/plain.txt"));
        let names: std::vec::Vec<&str> = r.headers.iter().map(|(n, _)| n).collect();
        assert!(names.contains(&"cdn-cache-control"));
        assert!(
            !names.contains(&"x-content-type-options"),
            "the resource's list stands alone: {names:?}"
        );
    }

    #[test]
    fn site_fields_go_on_every_response_and_resource_fields_on_its_2xx_and_304() {
        let cdn = |target: &str, fields: &[(&str, &str)]| {
            let mut head = RequestHead::new("GET", target);
            for (name, value) in fields {
                head.set_field(name, value.as_bytes());
            }
            let r = super::respond(&SITE, &head);
            // The site's fields exactly on the responses that are not the resource's own.
            let site_fields = r.header("x-content-type-options").is_some();
            assert_eq!(
                site_fields,
                r.header("cdn-cache-control").is_none(),
                "{target}"
            );
            (
                r.status,
                r.header("cdn-cache-control").map(|v| v.to_string()),
            )
        };
        let sixty = Some("max-age=60".to_string());
        assert_eq!(cdn("/plain.txt", &[]), (200, sixty.clone()));
        assert_eq!(
            cdn("/plain.txt", &[("if-none-match", "\"plain\"")]),
            (304, sixty.clone())
        );
        assert_eq!(cdn("/plain.txt", &[("range", "bytes=0-0")]), (206, sixty));
        assert_eq!(cdn("/nope", &[]), (404, None));
        assert_eq!(cdn("/docs", &[]), (308, None));
        let r = super::respond(&SITE, &RequestHead::new("DELETE", "/"));
        assert_eq!(
            (r.status, &*r.header("x-content-type-options").unwrap()),
            (405, "nosniff")
        );
    }

    #[test]
    fn overlong_paths_are_404_not_the_root() {
        let long = std::format!("/{}", "a".repeat(MAX_PATH_LEN + 10));
        let r = get(&long, &[]);
        assert_eq!((r.status, body(&r)), (404, b"missing".to_vec()));
    }

    fn location(target: &str) -> (u16, std::string::String) {
        let r = get(target, &[]);
        let location = r.header("location").map(|l| l.to_string());
        (r.status, location.unwrap_or_default())
    }

    #[test]
    fn a_folder_without_its_slash_is_redirected_with_its_query() {
        // RFC 9110 §15.4.9; the query is the client's, so it goes along (RFC 3986 §5.2.2 would
        // drop it from a relative reference without one).
        assert_eq!(location("/docs"), (308, "/docs/".into()));
        assert_eq!(location("/docs?x=1&y"), (308, "/docs/?x=1&y".into()));
        let r = get("/docs?x=1", &[]);
        assert_eq!(r.header("content-length").unwrap(), "0");
        assert!(r.body.is_empty());
    }

    #[test]
    fn redirect_rules_substitute_captures_and_keep_the_query() {
        // RFC 9110 §15.4.2 (301) and §15.4.3 (302); `_redirects` placeholders and splat.
        assert_eq!(
            location("/blog/2024/a/b.html?utm=1"),
            (301, "https://blog.example/2024/a/b.html?utm=1".into())
        );
        // The splat may be empty: `/blog/2024` and `/blog/2024/` both match `/blog/:year/*`.
        assert_eq!(
            location("/blog/2024"),
            (301, "https://blog.example/2024/".into())
        );
        assert_eq!(
            location("/blog/2024/"),
            (301, "https://blog.example/2024/".into())
        );
        // A placeholder needs a segment.
        assert_eq!(get("/blog", &[]).status, 404);
        // Captures are the decoded path, encoded again for the Location.
        assert_eq!(
            location("/blog/20%2024/caf%C3%A9%3F"),
            (301, "https://blog.example/20%2024/caf%C3%A9%3F".into())
        );
        // A destination with its own query replaces the request's; in the query, `&` and `=`
        // of a capture are encoded so it stays one value; the fragment stays last.
        assert_eq!(
            location("/search/a&b=c?page=2"),
            (302, "/find?q=a%26b%3Dc#results".into())
        );
        assert_eq!(get("/search/a/b", &[]).status, 404, ":term is one segment");
        // The request's query is copied, except bytes a field value cannot carry.
        let mut head = RequestHead::new("GET", "/blog/1/x?a=\u{7f}b\"c");
        head.set_field("accept", b"*/*");
        let r = decide(&SITE, &head).response(&head);
        assert_eq!(
            &*r.header("location").unwrap(),
            "https://blog.example/1/x?a=%7Fb\"c"
        );
    }

    proptest::proptest! {
        /// Totality over arbitrary request heads (issue 6: the Worker never panics): any method,
        /// target and field bytes give a response with a known status, field values a client
        /// cannot misread (visible ASCII and spaces), and a body no longer than Content-Length
        /// says.
        #[test]
        fn any_request_head_gets_a_well_formed_response(
            method in "(GET|HEAD|OPTIONS|POST|get|[A-Z]{0,8})",
            target in "(/|/docs|/docs/|/plain.txt|/blog/[^#]{0,12}|/search/.{0,8}|/files/.{0,8}|/app/.{0,8}|[^ ]{0,40})(\\?.{0,20})?",
            fields in proptest::collection::vec(proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40), 9),
        ) {
            let mut head = RequestHead::new(&method, &target);
            for (name, value) in crate::REQUEST_FIELDS.iter().zip(&fields) {
                head.set_field(name, value);
            }
            let r = super::respond(&SITE, &head);
            proptest::prop_assert!(
                [200, 204, 206, 301, 302, 304, 308, 400, 404, 405, 406, 412, 414, 416].contains(&r.status),
                "{}", r.status
            );
            for (name, value) in r.headers.iter() {
                proptest::prop_assert!(
                    value.bytes().all(|b| b.is_ascii_graphic() || b == b' '),
                    "{name}: {:?}", &*value
                );
            }
            if let Some(length) = r.header("content-length") {
                let length: u64 = length.parse().unwrap();
                proptest::prop_assert!(r.body.len() == length || (method == "HEAD" && r.body.is_empty()));
            }
        }

        /// Whatever the path and query, a redirect's Location is visible ASCII (a valid field
        /// value, RFC 9110 §5.5: nothing a client sent can split or inject a header) and fits;
        /// nothing panics.
        #[test]
        fn locations_are_visible_ascii_whatever_the_request(
            target in "/(blog/[^/#]{1,8}|search|docs|files|app|gone)(/[^#]{0,40})?(\\?[^#]{0,40})?"
        ) {
            let r = get(&target, &[]);
            if let Some(location) = r.header("location") {
                proptest::prop_assert!((300..400).contains(&r.status));
                proptest::prop_assert!(location.bytes().all(|b| b.is_ascii_graphic()), "{:?}", &*location);
                proptest::prop_assert!(location.len() <= LOCATION_CAPACITY);
            }
        }
    }

    #[test]
    fn respond_timed_reports_each_phase_in_server_timing() {
        // A fake clock advancing 1,500 ns per reading: start, lookup, negotiation, end.
        let mut now = 0;
        let clock = || {
            now += 1_500;
            now
        };
        let head = RequestHead::new("GET", "/");
        let mut r = Response::new();
        let timing = super::respond_timed(&SITE, &head, &mut r, clock);
        assert_eq!(
            timing,
            super::ServerTiming {
                lookup_ns: 1_500,
                negotiation_ns: 1_500,
                total_ns: 4_500
            }
        );
        assert_eq!(r.status, 200);
        assert_eq!(
            &*r.header("server-timing").unwrap(),
            "lookup;dur=0.001, negotiation;dur=0.001, total;dur=0.004"
        );
        // No negotiation for a redirect; large values keep three decimals.
        let mut now = 0;
        let slow = || {
            now += 12_345_678;
            now
        };
        let head = RequestHead::new("GET", "/docs");
        let timing = super::respond_timed(&SITE, &head, &mut r, slow);
        assert_eq!((r.status, timing.negotiation_ns), (308, 0));
        assert_eq!(
            &*r.header("server-timing").unwrap(),
            "lookup;dur=12.345, negotiation;dur=0.000, total;dur=24.691"
        );
        // The same answer as respond, Server-Timing aside.
        let plain = super::respond(&SITE, &head);
        assert_eq!(plain.headers.len() + 1, r.headers.len());
        assert_eq!(
            &*plain.header("location").unwrap(),
            &*r.header("location").unwrap()
        );
    }

    #[test]
    fn rewrite_rules_serve_another_resource_at_the_same_url() {
        // A 200 rewrite: the resource at the destination, with its own validators.
        let r = get("/files/plain.txt", &[]);
        assert_eq!((r.status, body(&r)), (200, body(&get("/plain.txt", &[]))));
        assert!(r.header("location").is_none());
        let r = get("/app/any/route", &[("if-none-match", "\"page\"")]);
        assert_eq!(r.status, 304);
        // A rewrite to a path the site does not have is a 404 with the request's 404 page.
        let r = get("/gone/x", &[]);
        assert_eq!((r.status, body(&r)), (404, b"missing".to_vec()));
        let r = get("/files/nothing", &[]);
        assert_eq!(r.status, 404);
    }

    #[test]
    fn routes_win_over_rules_and_a_long_location_is_414() {
        // `/docs/` is a route; no rule is consulted for it.
        assert_eq!(get("/docs/", &[]).status, 200);
        // RFC 9110 §15.5.15: a Location longer than edgesite writes.
        let query = "q".repeat(LOCATION_CAPACITY);
        let r = get(&std::format!("/docs?{query}"), &[]);
        assert_eq!(
            (r.status, body(&r)),
            (414, URI_TOO_LONG.body.as_bytes().to_vec())
        );
        let r = get(
            &std::format!("/docs?{}", &query[..LOCATION_CAPACITY - 7]),
            &[],
        );
        assert_eq!(r.status, 308);
        assert_eq!(r.header("location").unwrap().len(), LOCATION_CAPACITY);
    }

    #[test]
    fn malformed_targets_are_400() {
        assert_eq!(get("/a%2Fb", &[]).status, 400);
        assert!(respond("HEAD", "/%zz", &[]).body.is_empty());
    }

    #[test]
    fn if_none_match_with_the_current_tag_is_304_with_validators() {
        // RFC 9110 §13.1.2 (weak comparison) and §15.4.5 (fields of a 304).
        for value in ["\"page\"", "W/\"page\"", "\"x\", \"page\"", "*"] {
            let r = get("/", &[("if-none-match", value)]);
            assert_eq!(r.status, 304, "{value}");
            assert!(r.body.is_empty());
            assert_eq!(r.header("etag").unwrap(), "\"page\"");
            assert_eq!(r.header("cache-control").unwrap(), "no-cache");
            assert_eq!(r.header("vary").unwrap(), "accept-encoding");
            assert!(r.header("content-length").is_none());
        }
    }

    #[test]
    fn if_none_match_compares_with_the_selected_representation() {
        let br = [("accept-encoding", "br"), ("if-none-match", "\"page-br\"")];
        assert_eq!(get("/", &br).status, 304);
        assert_eq!(get("/", &[("if-none-match", "\"page-br\"")]).status, 200);
    }

    #[test]
    fn if_none_match_other_or_malformed_is_200() {
        for value in ["\"other\"", "page", "\"page"] {
            assert_eq!(get("/", &[("if-none-match", value)]).status, 200, "{value}");
        }
    }

    #[test]
    fn if_match_failing_is_412_and_wins_over_if_none_match() {
        // RFC 9110 §13.2.2 step 1 comes before step 3.
        assert_eq!(get("/", &[("if-match", "\"other\"")]).status, 412);
        assert_eq!(get("/", &[("if-match", "W/\"page\"")]).status, 412);
        assert_eq!(
            get(
                "/",
                &[("if-match", "\"other\""), ("if-none-match", "\"page\"")]
            )
            .status,
            412
        );
        assert_eq!(get("/", &[("if-match", "\"page\"")]).status, 200);
        assert_eq!(get("/", &[("if-match", "*")]).status, 200);
    }

    #[test]
    fn if_unmodified_since_applies_only_without_if_match() {
        let before = "Tue, 14 Nov 2023 22:13:19 GMT";
        assert_eq!(get("/", &[("if-unmodified-since", before)]).status, 412);
        assert_eq!(get("/", &[("if-unmodified-since", DATE)]).status, 200);
        assert_eq!(
            get(
                "/",
                &[("if-match", "\"page\""), ("if-unmodified-since", before)]
            )
            .status,
            200
        );
        assert_eq!(get("/", &[("if-unmodified-since", "garbage")]).status, 200);
    }

    #[test]
    fn if_modified_since_applies_only_without_if_none_match() {
        // RFC 9110 §13.1.3 and §13.2.2: a matching date gives 304 unless If-None-Match is present.
        assert_eq!(get("/", &[("if-modified-since", DATE)]).status, 304);
        assert_eq!(
            get(
                "/",
                &[("if-modified-since", "Tue, 14 Nov 2023 22:13:19 GMT")]
            )
            .status,
            200
        );
        assert_eq!(
            get(
                "/",
                &[("if-modified-since", DATE), ("if-none-match", "\"other\"")]
            )
            .status,
            200
        );
        assert_eq!(
            get(
                "/",
                &[("if-modified-since", "Sunday, 32-Nov-23 22:13:20 GMT")]
            )
            .status,
            200
        );
    }

    #[test]
    fn preconditions_never_turn_a_404_into_a_304_or_412() {
        // RFC 9110 §13.2.1: preconditions are evaluated only when the response would be 2xx.
        assert_eq!(get("/nope", &[("if-none-match", "*")]).status, 404);
        assert_eq!(get("/nope", &[("if-match", "\"x\"")]).status, 404);
    }

    #[test]
    fn a_single_range_is_206_with_content_range() {
        let r = get("/plain.txt", &[("range", "bytes=2-5")]);
        assert_eq!(r.status, 206);
        assert_eq!(body(&r), b"cdef");
        assert_eq!(r.header("content-range").unwrap(), "bytes 2-5/26");
        assert_eq!(r.header("content-length").unwrap(), "4");
        assert_eq!(r.header("etag").unwrap(), "\"plain\"");
        assert_eq!(body(&get("/plain.txt", &[("range", "bytes=-3")])), b"xyz");
    }

    #[test]
    fn a_range_of_an_encoded_representation_is_of_its_bytes() {
        let r = get("/", &[("accept-encoding", "br"), ("range", "bytes=0-1")]);
        assert_eq!((r.status, body(&r)), (206, b"BR".to_vec()));
        assert_eq!(r.header("content-range").unwrap(), "bytes 0-1/4");
        assert_eq!(r.header("content-encoding").unwrap(), "br");
        // Several ranges of an encoded representation: the full 200.
        assert_eq!(
            get(
                "/",
                &[("accept-encoding", "br"), ("range", "bytes=0-0,2-2")]
            )
            .status,
            200
        );
    }

    #[test]
    fn several_ranges_are_multipart_byteranges() {
        // RFC 9110 §14.6.
        let r = get("/plain.txt", &[("range", "bytes=0-1, 24-")]);
        assert_eq!(r.status, 206);
        assert_eq!(
            r.header("content-type").unwrap(),
            "multipart/byteranges; boundary=BOUNDARY"
        );
        let expected = "--BOUNDARY\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Range: bytes 0-1/26\r\n\r\nab\r\n--BOUNDARY\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Range: bytes 24-25/26\r\n\r\nyz\r\n--BOUNDARY--\r\n";
        assert_eq!(std::str::from_utf8(&body(&r)).unwrap(), expected);
        assert_eq!(
            r.header("content-length").unwrap(),
            expected.len().to_string().as_str()
        );
        assert!(r.header("content-range").is_none());
    }

    #[test]
    fn unsatisfiable_ranges_are_416_with_the_complete_length() {
        let r = get("/plain.txt", &[("range", "bytes=26-")]);
        assert_eq!(
            (r.status, &*r.header("content-range").unwrap()),
            (416, "bytes */26")
        );
    }

    #[test]
    fn range_is_ignored_for_head_and_when_malformed() {
        // RFC 9110 §14.2: GET only.
        assert_eq!(
            respond("HEAD", "/plain.txt", &[("range", "bytes=0-1")]).status,
            200
        );
        assert_eq!(get("/plain.txt", &[("range", "bytes=5-1")]).status, 200);
    }

    #[test]
    fn if_range_decides_between_206_and_200() {
        // RFC 9110 §13.1.5: strong tag or exact date.
        let range = ("range", "bytes=0-0");
        assert_eq!(
            get("/plain.txt", &[range, ("if-range", "\"plain\"")]).status,
            206
        );
        assert_eq!(get("/plain.txt", &[range, ("if-range", DATE)]).status, 206);
        assert_eq!(
            get("/plain.txt", &[range, ("if-range", "\"old\"")]).status,
            200
        );
        assert_eq!(
            get("/plain.txt", &[range, ("if-range", "W/\"plain\"")]).status,
            200
        );
        assert_eq!(
            get(
                "/plain.txt",
                &[range, ("if-range", "Tue, 14 Nov 2023 22:13:21 GMT")]
            )
            .status,
            200
        );
        assert_eq!(
            get("/plain.txt", &[range, ("if-range", "nonsense")]).status,
            200
        );
    }

    #[test]
    fn the_spa_fallback_answers_navigations_to_extensionless_paths_only() {
        let nav = |target, fields: &[(&str, &'static str)]| {
            let mut head = RequestHead::new("GET", target);
            for (name, value) in fields {
                head.set_field(name, value.as_bytes());
            }
            decide(&SPA, &head).status()
        };
        assert_eq!(nav("/users/42", &[("sec-fetch-mode", "navigate")]), 200);
        assert_eq!(
            nav(
                "/users/42",
                &[("accept", "text/html,application/xhtml+xml")]
            ),
            200
        );
        assert_eq!(
            nav(
                "/users/42",
                &[("sec-fetch-mode", "cors"), ("accept", "text/html")]
            ),
            404
        );
        assert_eq!(nav("/users/42", &[]), 404);
        assert_eq!(nav("/missing.js", &[("sec-fetch-mode", "navigate")]), 404);
    }
}
