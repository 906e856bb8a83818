//! `decide`: request head → one closed [`Decision`]; `Decision::response`: → status, fields, body.
//!
//! The order of evaluation:
//! 1. the method (RFC 9110 §9): GET and HEAD are served, OPTIONS answers 204 with Allow, any
//!    other method 405 with Allow (§15.5.6: a 405 MUST carry Allow);
//! 2. the path ([`normalize`]): malformed → 400, too long → 404;
//! 3. the route: an asset, a 308 redirect, or 404 (with the site's `404.html` when it has one);
//! 4. the preconditions, only for a resource that would be 200 (§13.2.1): If-None-Match with the
//!    weak comparison → 304 (§13.1.2); a malformed field value is ignored.

use crate::etag::IfNoneMatch;
use crate::path::{normalize, PathError, MAX_PATH_LEN};
use crate::request::{Method, RequestHead};
use crate::response::{HeaderList, Response, ALLOW};
use crate::site::{Asset, Representation, Site, Target};

/// What to answer. Validators and fields are computed once in [`Decision::response`]; HEAD
/// differs from GET only in whether the content is attached (RFC 9110 §9.3.2).
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
    /// 304 Not Modified (RFC 9110 §15.4.5): the client's copy, named by `representation`'s
    /// ETag, is current.
    NotModified {
        /// The resource.
        asset: &'a Asset<'a>,
        /// The representation the 200 would have sent.
        representation: &'a Representation<'a>,
    },
    /// 308 Permanent Redirect (RFC 9110 §15.4.9), e.g. `/docs` → `/docs/`.
    PermanentRedirect {
        /// The Location field value.
        location: &'a str,
    },
    /// 404 Not Found (RFC 9110 §15.5.5), with the site's 404 page as content if it has one.
    NotFound {
        /// The site's `404.html`.
        page: Option<&'a Asset<'a>>,
        /// HEAD: the same fields, no content.
        head: bool,
    },
    /// 400 Bad Request (RFC 9110 §15.5.1): the request target is malformed.
    BadRequest {
        /// HEAD: the same fields, no content.
        head: bool,
    },
    /// 405 Method Not Allowed (RFC 9110 §15.5.6), with Allow.
    MethodNotAllowed,
    /// 204 No Content to OPTIONS (RFC 9110 §9.3.7), with Allow.
    Options,
}

/// Decides the answer to `request` from `site`. Allocates nothing and never panics.
pub fn decide<'a>(site: &'a Site<'a>, request: &RequestHead<'_>) -> Decision<'a> {
    let head = match Method::from_token(request.method) {
        Some(Method::Get) => false,
        Some(Method::Head) => true,
        Some(Method::Options) => return Decision::Options,
        None => return Decision::MethodNotAllowed,
    };
    let mut buf = [0; MAX_PATH_LEN];
    let route = match normalize(request.target, &mut buf) {
        Ok(path) => site.route(path),
        Err(PathError::BadRequest) => return Decision::BadRequest { head },
        Err(PathError::TooLong) => None,
    };
    match route.map(|route| &route.target) {
        Some(Target::Asset(asset)) => select(asset, request, head),
        Some(Target::Redirect(location)) => Decision::PermanentRedirect { location },
        None => Decision::NotFound {
            page: site.not_found,
            head,
        },
    }
}

/// GET/HEAD of an existing resource: 200, or 304 when If-None-Match names its current tag.
fn select<'a>(asset: &'a Asset<'a>, request: &RequestHead<'_>, head: bool) -> Decision<'a> {
    let representation = asset.identity();
    let if_none_match = request.if_none_match.and_then(IfNoneMatch::parse);
    match if_none_match {
        Some(condition) if !condition.precondition_passes(representation.etag) => {
            Decision::NotModified {
                asset,
                representation,
            }
        }
        _ => Decision::Ok {
            asset,
            representation,
            head,
        },
    }
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

impl<'a> Decision<'a> {
    /// The status code.
    pub fn status(&self) -> u16 {
        match self {
            Decision::Ok { .. } => 200,
            Decision::Options => 204,
            Decision::NotModified { .. } => 304,
            Decision::PermanentRedirect { .. } => 308,
            Decision::BadRequest { .. } => 400,
            Decision::NotFound { .. } => 404,
            Decision::MethodNotAllowed => 405,
        }
    }

    /// Renders the status, header fields and content.
    pub fn response(self) -> Response<'a> {
        let mut headers = HeaderList::new();
        let body: &'a [u8] = match self {
            Decision::Ok {
                asset,
                representation,
                head,
            } => {
                content_fields(&mut headers, asset.content_type, representation);
                validator_fields(&mut headers, asset, representation);
                content(representation.body, head)
            }
            Decision::NotModified {
                asset,
                representation,
            } => {
                // RFC 9110 §15.4.5: the fields a 200 would carry that describe the cache entry.
                validator_fields(&mut headers, asset, representation);
                b""
            }
            Decision::PermanentRedirect { location } => {
                headers.push("location", location);
                headers.push("content-length", "0");
                b""
            }
            Decision::NotFound {
                page: Some(page),
                head,
            } => {
                content_fields(&mut headers, page.content_type, page.identity());
                headers.push("cache-control", "no-cache");
                content(page.identity().body, head)
            }
            Decision::NotFound { page: None, head } => text(&mut headers, &NOT_FOUND, head),
            Decision::BadRequest { head } => text(&mut headers, &BAD_REQUEST, head),
            Decision::MethodNotAllowed => {
                headers.push("allow", ALLOW);
                text(&mut headers, &METHOD_NOT_ALLOWED, false)
            }
            Decision::Options => {
                headers.push("allow", ALLOW);
                b""
            }
        };
        Response {
            status: self.status(),
            headers,
            body,
        }
    }
}

fn content_fields<'a>(
    headers: &mut HeaderList<'a>,
    content_type: &'a str,
    repr: &Representation<'a>,
) {
    headers.push("content-type", content_type);
    headers.push("content-length", repr.content_length);
}

fn validator_fields<'a>(
    headers: &mut HeaderList<'a>,
    asset: &Asset<'a>,
    repr: &Representation<'a>,
) {
    headers.push("etag", repr.etag);
    headers.push("last-modified", asset.last_modified);
    headers.push("cache-control", asset.cache_control);
}

/// HEAD gets the fields of GET and no content (RFC 9110 §9.3.2).
fn content(body: &[u8], head: bool) -> &[u8] {
    if head {
        b""
    } else {
        body
    }
}

fn text<'a>(headers: &mut HeaderList<'a>, text: &Text, head: bool) -> &'a [u8] {
    headers.push("content-type", TEXT_PLAIN);
    headers.push("content-length", text.content_length);
    content(text.body.as_bytes(), head)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::{ContentCoding, Route};

    const DATE: &str = "Sun, 29 Nov 2026 12:00:00 GMT";
    static PAGE: Asset<'static> = Asset {
        content_type: "text/html; charset=utf-8",
        last_modified: DATE,
        cache_control: "no-cache",
        representations: &[Representation {
            coding: ContentCoding::Identity,
            etag: "\"page\"",
            content_length: "4",
            body: b"page",
        }],
    };
    static MISSING: Asset<'static> = Asset {
        content_type: "text/html; charset=utf-8",
        last_modified: DATE,
        cache_control: "no-cache",
        representations: &[Representation {
            coding: ContentCoding::Identity,
            etag: "\"404\"",
            content_length: "7",
            body: b"missing",
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
                target: Target::Redirect("/docs/"),
            },
            Route {
                path: "/docs/",
                target: Target::Asset(&PAGE),
            },
        ],
        not_found: Some(&MISSING),
    };
    static BARE: Site<'static> = Site {
        routes: &[],
        not_found: None,
    };

    fn respond(method: &str, target: &str) -> Response<'static> {
        decide(&SITE, &RequestHead::new(method, target)).response()
    }

    #[test]
    fn fixed_bodies_have_their_content_length() {
        for text in [BAD_REQUEST, NOT_FOUND, METHOD_NOT_ALLOWED] {
            assert_eq!(
                text.content_length.parse::<usize>().unwrap(),
                text.body.len()
            );
        }
    }

    #[test]
    fn get_serves_the_resource_with_its_fields() {
        let r = respond("GET", "/");
        assert_eq!(r.status, 200);
        assert_eq!(r.body, b"page");
        assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
        assert_eq!(r.header("content-length"), Some("4"));
        assert_eq!(r.header("etag"), Some("\"page\""));
        assert_eq!(r.header("last-modified"), Some(DATE));
    }

    #[test]
    fn head_has_the_fields_of_get_and_no_content() {
        // RFC 9110 §9.3.2.
        let (get, head) = (respond("GET", "/"), respond("HEAD", "/"));
        assert_eq!(head.status, 200);
        assert!(head.body.is_empty());
        assert!(get.headers.iter().eq(head.headers.iter()));
    }

    #[test]
    fn other_methods_get_405_with_allow() {
        // RFC 9110 §15.5.6: a 405 MUST carry Allow. §9.1: methods are case-sensitive.
        for method in ["POST", "PUT", "DELETE", "PATCH", "get", "BREW"] {
            let r = respond(method, "/");
            assert_eq!(r.status, 405, "{method}");
            assert_eq!(r.header("allow"), Some(ALLOW));
        }
    }

    #[test]
    fn options_gets_204_with_allow_and_no_content_length() {
        // RFC 9110 §9.3.7; §8.6: no Content-Length in a 204.
        let r = respond("OPTIONS", "*");
        assert_eq!(
            (r.status, r.header("allow"), r.header("content-length")),
            (204, Some(ALLOW), None)
        );
    }

    #[test]
    fn missing_paths_get_the_sites_404_page() {
        let r = respond("GET", "/nope");
        assert_eq!((r.status, r.body), (404, &b"missing"[..]));
        assert_eq!(r.header("etag"), None);
        let r = decide(&BARE, &RequestHead::new("GET", "/nope")).response();
        assert_eq!((r.status, r.body), (404, NOT_FOUND.body.as_bytes()));
    }

    #[test]
    fn a_folder_without_its_slash_is_redirected() {
        let r = respond("GET", "/docs?x");
        assert_eq!((r.status, r.header("location")), (308, Some("/docs/")));
    }

    #[test]
    fn malformed_targets_are_400() {
        assert_eq!(respond("GET", "/a%2Fb").status, 400);
        assert_eq!(respond("HEAD", "/%zz").body, b"");
    }

    #[test]
    fn if_none_match_with_the_current_tag_is_304_with_validators() {
        // RFC 9110 §13.1.2 (weak comparison) and §15.4.5 (fields of a 304).
        for value in ["\"page\"", "W/\"page\"", "\"x\", \"page\"", "*"] {
            let head = RequestHead {
                if_none_match: Some(value.as_bytes()),
                ..RequestHead::new("GET", "/")
            };
            let r = decide(&SITE, &head).response();
            assert_eq!(r.status, 304, "{value}");
            assert!(r.body.is_empty());
            assert_eq!(r.header("etag"), Some("\"page\""));
            assert_eq!(r.header("cache-control"), Some("no-cache"));
            assert_eq!(r.header("content-length"), None);
        }
    }

    #[test]
    fn if_none_match_other_or_malformed_is_200() {
        for value in ["\"other\"", "page", "\"page"] {
            let head = RequestHead {
                if_none_match: Some(value.as_bytes()),
                ..RequestHead::new("GET", "/")
            };
            assert_eq!(decide(&SITE, &head).status(), 200, "{value}");
        }
    }

    #[test]
    fn preconditions_never_turn_a_404_into_a_304() {
        // RFC 9110 §13.2.1: preconditions are evaluated only when the response would be 2xx.
        let head = RequestHead {
            if_none_match: Some(b"*"),
            ..RequestHead::new("GET", "/nope")
        };
        assert_eq!(decide(&SITE, &head).status(), 404);
    }
}
