//! The behaviour of [`crate::respond`] (deciding and rendering) over hand-built sites: one test
//! per rule, each citing its RFC section. The parsers' own tests sit beside them.
use crate::render::*;
use crate::site::{Action, NotFoundPage, Part, Redirect, RedirectStatus, Route, Rule, Segment};
use crate::{
    decide, Asset, Body, Content, ContentCoding, Representation, RequestHead, Response, Scratch,
    Site, Target, LOCATION_CAPACITY, MAX_PATH_LEN,
};
use std::string::ToString;
use std::vec::Vec;

const DATE: &str = "Tue, 14 Nov 2023 22:13:20 GMT";
const UNIX: u64 = 1_700_000_000;

static PAGE: Asset<'static> = Asset {
    deltas: &[],
    variants: &[],
    alternate: None,
    content_type: "text/html; charset=utf-8",
    last_modified: DATE,
    last_modified_unix: UNIX,
    cache_control: "no-cache",
    fingerprint: "",
    fields: &[],
    representations: &[
        Representation {
            coding: ContentCoding::Identity,
            etag: "\"page\"",
            content_length: "10",
            content: Content::Bytes(b"0123456789"),
        },
        Representation {
            coding: ContentCoding::Br,
            etag: "\"page-br\"",
            content_length: "4",
            content: Content::Bytes(b"BR!!"),
        },
    ],
};
static PLAIN: Asset<'static> = Asset {
    deltas: &[],
    variants: &[],
    alternate: None,
    content_type: "text/plain; charset=utf-8",
    last_modified: DATE,
    last_modified_unix: UNIX,
    cache_control: "no-cache",
    fingerprint: "0123abcdef",
    fields: &[("cdn-cache-control", "max-age=60")],
    representations: &[Representation {
        coding: ContentCoding::Identity,
        etag: "\"plain\"",
        content_length: "26",
        content: Content::Bytes(b"abcdefghijklmnopqrstuvwxyz"),
    }],
};
static MISSING: Asset<'static> = Asset {
    deltas: &[],
    variants: &[],
    alternate: None,
    content_type: "text/html; charset=utf-8",
    last_modified: DATE,
    last_modified_unix: UNIX,
    cache_control: "no-cache",
    fingerprint: "",
    fields: &[],
    representations: &[Representation {
        coding: ContentCoding::Identity,
        etag: "\"404\"",
        content_length: "7",
        content: Content::Bytes(b"missing"),
    }],
};
static DOCS_MISSING: Asset<'static> = Asset {
    deltas: &[],
    variants: &[],
    alternate: None,
    content_type: "text/html; charset=utf-8",
    last_modified: DATE,
    last_modified_unix: UNIX,
    cache_control: "no-cache",
    fingerprint: "",
    fields: &[],
    representations: &[Representation {
        coding: ContentCoding::Identity,
        etag: "\"docs-404\"",
        content_length: "12",
        content: Content::Bytes(b"docs missing"),
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
    fields: &[("x-content-type-options", "nosniff")],
    rules: &RULES,
    rule_index: &[],
    fingerprinted_cache_control: "public, max-age=31536000, immutable",
    shared_caches: crate::SharedCaches::Private,
    store: "",
};
/// `_redirects`:
/// ```text
/// /blog/:year/*  https://blog.example/:year/:splat  301
/// /search/:term  /find?q=:term#results
/// /files/:name   /:name  200
/// /app/*         /docs/  200
/// /gone/*        /nowhere/:splat  200
/// /old/*         /:splat/index.html  301
/// ```
static RULES: [Rule<'static>; 6] = [
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
    Rule {
        pattern: &[Segment::Literal("old")],
        splat: true,
        action: Action::Redirect {
            status: RedirectStatus::MovedPermanently,
            destination: &[
                Part::Literal("/"),
                Part::Capture(0),
                Part::Literal("/index.html"),
            ],
            query_at: Some(3),
        },
    },
];
static SPA: Site<'static> = Site {
    routes: &[Route {
        path: "/plain.txt",
        target: Target::Asset(&PLAIN),
    }],
    fallback: Some(&PAGE),
    ..Site::EMPTY
};

fn respond<'r>(method: &'r str, target: &'r str, fields: &[(&str, &'r str)]) -> Response<'static> {
    let mut head = RequestHead::new(method, target);
    for (name, value) in fields {
        head.set_field(name, value.as_bytes());
    }
    crate::respond(&SITE, &head)
}

fn get(target: &str, fields: &[(&str, &str)]) -> Response<'static> {
    respond("GET", target, fields)
}

fn body(response: &Response<'_>) -> Vec<u8> {
    match response.body {
        Body::Empty => Vec::new(),
        Body::Bytes(bytes) => bytes.to_vec(),
        Body::Multipart(m) => {
            let Content::Bytes(bytes) = m.representation().content else {
                panic!("the test sites hold their bytes")
            };
            let mut out = Vec::new();
            m.for_each_chunk(bytes, |chunk| out.extend_from_slice(chunk));
            out
        }
        Body::Representation { .. } => panic!("the test sites hold their bytes"),
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
        STORE_UNAVAILABLE,
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
    assert_eq!(r.field("content-type").unwrap(), "text/html; charset=utf-8");
    assert_eq!(r.field("content-length").unwrap(), "10");
    assert_eq!(r.field("etag").unwrap(), "\"page\"");
    assert_eq!(r.field("last-modified").unwrap(), DATE);
    assert_eq!(r.field("accept-ranges").unwrap(), "bytes");
    // RFC 9110 §12.5.5: identity responses of a negotiable resource vary too.
    assert_eq!(r.field("vary").unwrap(), "accept-encoding");
    assert!(r.field("content-encoding").is_none());
    assert!(get("/plain.txt", &[]).field("vary").is_none());
}

#[test]
fn negotiation_selects_an_encoding_with_its_own_etag() {
    let r = get("/", &[("accept-encoding", "gzip, br")]);
    assert_eq!(r.field("content-encoding").unwrap(), "br");
    assert_eq!(r.field("etag").unwrap(), "\"page-br\"");
    assert_eq!(r.field("content-length").unwrap(), "4");
    assert_eq!(body(&r), b"BR!!");
}

#[test]
fn nothing_acceptable_is_406_with_vary() {
    let r = get("/", &[("accept-encoding", "identity;q=0")]);
    assert_eq!(r.status, 406);
    assert_eq!(r.field("vary").unwrap(), "accept-encoding");
}

#[test]
fn head_has_the_fields_of_get_and_no_content() {
    // RFC 9110 §9.3.2.
    let (get, head) = (get("/", &[]), respond("HEAD", "/", &[]));
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert!(get
        .fields
        .iter()
        .map(|(n, v)| (n, v.to_string()))
        .eq(head.fields.iter().map(|(n, v)| (n, v.to_string()))));
}

#[test]
fn other_methods_get_405_with_allow() {
    // RFC 9110 §15.5.6: a 405 MUST carry Allow. §9.1: methods are case-sensitive.
    for method in ["POST", "PUT", "DELETE", "PATCH", "get", "BREW"] {
        let r = respond(method, "/", &[]);
        assert_eq!(r.status, 405, "{method}");
        assert_eq!(r.field("allow").unwrap(), ALLOW);
    }
}

#[test]
fn options_gets_204_with_allow_and_no_content_length() {
    // RFC 9110 §9.3.7; §8.6: no Content-Length in a 204.
    let r = respond("OPTIONS", "*", &[]);
    assert_eq!(
        (
            r.status,
            &*r.field("allow").unwrap(),
            r.field("content-length").is_none()
        ),
        (204, ALLOW, true)
    );
}

#[test]
fn missing_paths_get_the_nearest_404_page() {
    let r = get("/nope", &[]);
    assert_eq!((r.status, body(&r)), (404, b"missing".to_vec()));
    assert!(r.field("etag").is_none());
    assert_eq!(body(&get("/docs/nope/deeper", &[])), b"docs missing");
    let bare = Site {
        not_found: &[],
        ..SPA
    };
    let head = RequestHead::new("GET", "/nope");
    let r = decide(&bare, &head, &mut Scratch::new()).response();
    assert_eq!(
        (r.status, body(&r)),
        (404, NOT_FOUND.body.as_bytes().to_vec())
    );
}

#[test]
fn a_resources_fields_replace_the_sites() {
    let r = crate::respond(&SITE, &RequestHead::new("GET", "/plain.txt"));
    let names: std::vec::Vec<&str> = r.fields.iter().map(|(n, _)| n).collect();
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
        let r = crate::respond(&SITE, &head);
        // The site's fields exactly on the responses that are not the resource's own.
        let site_fields = r.field("x-content-type-options").is_some();
        assert_eq!(
            site_fields,
            r.field("cdn-cache-control").is_none(),
            "{target}"
        );
        (
            r.status,
            r.field("cdn-cache-control").map(|v| v.to_string()),
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
    let r = crate::respond(&SITE, &RequestHead::new("DELETE", "/"));
    assert_eq!(
        (r.status, &*r.field("x-content-type-options").unwrap()),
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
    let location = r.field("location").map(|l| l.to_string());
    (r.status, location.unwrap_or_default())
}

#[test]
fn a_folder_without_its_slash_is_redirected_with_its_query() {
    // RFC 9110 §15.4.9; the query is the client's, so it goes along (RFC 3986 §5.2.2 would
    // drop it from a relative reference without one).
    assert_eq!(location("/docs"), (308, "/docs/".into()));
    assert_eq!(location("/docs?x=1&y"), (308, "/docs/?x=1&y".into()));
    let r = get("/docs?x=1", &[]);
    assert_eq!(r.field("content-length").unwrap(), "0");
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
    let r = crate::respond(&SITE, &head);
    assert_eq!(
        &*r.field("location").unwrap(),
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
        let r = crate::respond(&SITE, &head);
        proptest::prop_assert!(
            [200, 204, 206, 301, 302, 304, 308, 400, 404, 405, 406, 412, 414, 416].contains(&r.status),
            "{}", r.status
        );
        for (name, value) in r.fields.iter() {
            proptest::prop_assert!(
                value.bytes().all(|b| b.is_ascii_graphic() || b == b' '),
                "{name}: {:?}", &*value
            );
        }
        if let Some(length) = r.field("content-length") {
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
        if let Some(location) = r.field("location") {
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
    let timing = crate::respond_timed(&SITE, &head, &mut r, clock);
    assert_eq!(
        timing,
        crate::ServerTiming {
            lookup_ns: 1_500,
            negotiation_ns: 1_500,
            total_ns: 4_500
        }
    );
    assert_eq!(r.status, 200);
    assert_eq!(
        &*r.field("server-timing").unwrap(),
        "lookup;dur=0.001, negotiation;dur=0.001, total;dur=0.004"
    );
    // No negotiation for a redirect; large values keep three decimals.
    let mut now = 0;
    let slow = || {
        now += 12_345_678;
        now
    };
    let head = RequestHead::new("GET", "/docs");
    let timing = crate::respond_timed(&SITE, &head, &mut r, slow);
    assert_eq!((r.status, timing.negotiation_ns), (308, 0));
    assert_eq!(
        &*r.field("server-timing").unwrap(),
        "lookup;dur=12.345, negotiation;dur=0.000, total;dur=24.691"
    );
    // The same answer as respond, Server-Timing aside.
    let plain = crate::respond(&SITE, &head);
    assert_eq!(plain.fields.len() + 1, r.fields.len());
    assert_eq!(
        &*plain.field("location").unwrap(),
        &*r.field("location").unwrap()
    );
}

#[test]
fn rewrite_rules_serve_another_resource_at_the_same_url() {
    // A 200 rewrite: the resource at the destination, with its own validators.
    let r = get("/files/plain.txt", &[]);
    assert_eq!((r.status, body(&r)), (200, body(&get("/plain.txt", &[]))));
    assert!(r.field("location").is_none());
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
    // RFC 9111 §4.2.2: a 414 may be stored heuristically; this one says nothing of later ones.
    assert_eq!(&*r.field("cache-control").unwrap(), "no-store");
    let r = get(
        &std::format!("/docs?{}", &query[..LOCATION_CAPACITY - 7]),
        &[],
    );
    assert_eq!(r.status, 308);
    assert_eq!(r.field("location").unwrap().len(), LOCATION_CAPACITY);
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
        assert_eq!(r.field("etag").unwrap(), "\"page\"");
        assert_eq!(r.field("cache-control").unwrap(), "no-cache");
        assert_eq!(r.field("vary").unwrap(), "accept-encoding");
        assert!(r.field("content-length").is_none());
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
    assert_eq!(r.field("content-range").unwrap(), "bytes 2-5/26");
    assert_eq!(r.field("content-length").unwrap(), "4");
    assert_eq!(r.field("etag").unwrap(), "\"plain\"");
    assert_eq!(body(&get("/plain.txt", &[("range", "bytes=-3")])), b"xyz");
}

#[test]
fn a_range_of_an_encoded_representation_is_of_its_bytes() {
    let r = get("/", &[("accept-encoding", "br"), ("range", "bytes=0-1")]);
    assert_eq!((r.status, body(&r)), (206, b"BR".to_vec()));
    assert_eq!(r.field("content-range").unwrap(), "bytes 0-1/4");
    assert_eq!(r.field("content-encoding").unwrap(), "br");
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
        r.field("content-type").unwrap(),
        "multipart/byteranges; boundary=BOUNDARY"
    );
    let expected = "--BOUNDARY\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Range: bytes 0-1/26\r\n\r\nab\r\n--BOUNDARY\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Range: bytes 24-25/26\r\n\r\nyz\r\n--BOUNDARY--\r\n";
    assert_eq!(std::str::from_utf8(&body(&r)).unwrap(), expected);
    assert_eq!(
        r.field("content-length").unwrap(),
        expected.len().to_string().as_str()
    );
    assert!(r.field("content-range").is_none());
}

#[test]
fn unsatisfiable_ranges_are_416_with_the_complete_length() {
    let r = get("/plain.txt", &[("range", "bytes=26-")]);
    assert_eq!(
        (r.status, &*r.field("content-range").unwrap()),
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
        decide(&SPA, &head, &mut Scratch::new()).status()
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
    // Without Fetch Metadata, Accept must name text/html with a weight (RFC 9110 §12.5.1):
    // refused (q=0), only through */*, or in a malformed field, it is no navigation.
    assert_eq!(nav("/users/42", &[("accept", "TEXT/HTML;q=0.9")]), 200);
    assert_eq!(nav("/users/42", &[("accept", "text/html;q=0, */*")]), 404);
    assert_eq!(nav("/users/42", &[("accept", "*/*")]), 404);
    assert_eq!(nav("/users/42", &[("accept", "text/html;q=5")]), 404);
}

#[test]
fn a_request_without_exactly_one_host_is_400_when_the_transport_counted() {
    // RFC 9112 §3.2: HTTP/1.1 without Host, or any request with two Host field lines.
    use crate::HostFieldLines;
    for (count, http_1_1, status) in [
        (0, true, 400),
        (2, false, 400),
        (1, true, 200),
        (0, false, 200),
    ] {
        let mut head = RequestHead::new("GET", "/");
        head.host = Some(HostFieldLines { count, http_1_1 });
        let r = crate::respond(&SITE, &head);
        assert_eq!(r.status, status, "{count} {http_1_1}");
        if status == 400 {
            // With the site's fields, as every answer that is not a resource's own.
            assert_eq!(r.field("x-content-type-options").unwrap(), "nosniff");
        }
    }
    // Even before the method: a POST without Host is 400, not 405.
    let mut post = RequestHead::new("POST", "/");
    post.host = Some(HostFieldLines {
        count: 0,
        http_1_1: true,
    });
    assert_eq!(crate::respond(&SITE, &post).status, 400);
}

#[test]
fn deciding_then_rendering_gives_what_respond_gives() {
    // One render path: the site's fields are merged in render, whoever calls it.
    for target in ["/", "/nope", "/docs", "/blog/1/x?q=1", "/plain.txt", "/%zz"] {
        let head = RequestHead::new("GET", target);
        let mut scratch = Scratch::new();
        let decided = decide(&SITE, &head, &mut scratch).response();
        let responded = crate::respond(&SITE, &head);
        let fields = |r: &Response<'_>| -> Vec<(std::string::String, std::string::String)> {
            r.fields
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(decided.status, responded.status, "{target}");
        assert_eq!(fields(&decided), fields(&responded), "{target}");
        assert_eq!(body(&decided), body(&responded), "{target}");
    }
}

/// A resource whose bytes are not in memory: the identity decoded from the stored gzip
/// (compact storage), the gzip in a Worker's blob.
static OUTSIDE: Asset<'static> = Asset {
    deltas: &[],
    variants: &[],
    alternate: None,
    content_type: "text/plain; charset=utf-8",
    last_modified: DATE,
    last_modified_unix: UNIX,
    cache_control: "no-cache",
    fingerprint: "",
    fields: &[],
    representations: &[
        Representation {
            coding: ContentCoding::Identity,
            etag: "\"plain\"",
            content_length: "26",
            content: Content::Decoded {
                id: 7,
                from: 1,
                length: 26,
            },
        },
        Representation {
            coding: ContentCoding::Gzip,
            etag: "\"plain-gz\"",
            content_length: "20",
            content: Content::External {
                id: 8,
                blob: 0,
                offset: 100,
                length: 20,
            },
        },
    ],
};

static OUTSIDE_SITE: Site<'static> = Site {
    routes: &[Route {
        path: "/t.txt",
        target: Target::Asset(&OUTSIDE),
    }],
    ..Site::EMPTY
};

fn outside(fields: &[(&str, &'static str)]) -> Response<'static> {
    let mut head = RequestHead::new("GET", "/t.txt");
    for (name, value) in fields {
        head.set_field(name, value.as_bytes());
    }
    crate::respond(&OUTSIDE_SITE, &head)
}

#[test]
fn bytes_not_in_memory_are_named_for_the_adapter_with_the_same_fields() {
    // The core decides from lengths alone: negotiation, Content-Length, ranges, 416.
    let r = outside(&[("accept-encoding", "gzip")]);
    assert_eq!(
        (r.status, &*r.field("content-length").unwrap()),
        (200, "20")
    );
    assert!(matches!(
        r.body,
        Body::Representation { representation, source: None, range: None } if representation.etag == "\"plain-gz\""
    ));
    // RFC 9110 §15.3.7: a range of the identity, which is decoded on demand.
    let r = outside(&[("range", "bytes=2-5")]);
    assert_eq!(r.status, 206);
    assert_eq!(r.field("content-range").unwrap(), "bytes 2-5/26");
    // The adapter decodes the identity from the stored gzip, which the body names.
    assert!(matches!(
        r.body,
        Body::Representation { range: Some(range), source: Some(source), .. }
            if (range.first, range.last) == (2, 5) && source.etag == "\"plain-gz\""
    ));
    assert_eq!(r.body.len(), 4);
    let r = outside(&[("range", "bytes=30-")]);
    assert_eq!(
        (r.status, &*r.field("content-range").unwrap()),
        (416, "bytes */26")
    );
}

/// A file in R2 past 4 GiB (a disk image, a long video): 5 GiB.
const HUGE_LENGTH: u64 = 5 << 30;

static HUGE: Asset<'static> = Asset {
    content_type: "application/octet-stream",
    representations: &[Representation {
        coding: ContentCoding::Identity,
        etag: "\"AAAAAAAAAAAAAAAAAAAAAA\"",
        content_length: "5368709120",
        content: Content::Stored {
            id: 3,
            store: crate::Store::R2,
            length: crate::ObjectLength::new(HUGE_LENGTH),
        },
    }],
    ..OUTSIDE
};

static HUGE_SITE: Site<'static> = Site {
    routes: &[Route {
        path: "/disk.img",
        target: Target::Asset(&HUGE),
    }],
    ..Site::EMPTY
};

fn huge(range: Option<&'static str>) -> Response<'static> {
    let mut head = RequestHead::new("GET", "/disk.img");
    if let Some(range) = range {
        head.set_field("range", range.as_bytes());
    }
    crate::respond(&HUGE_SITE, &head)
}

#[test]
fn a_stored_file_past_4_gib_is_answered_with_its_whole_length() {
    let r = huge(None);
    assert_eq!(r.status, 200);
    assert_eq!(r.field("content-length").unwrap(), "5368709120");
    assert_eq!(r.body.len(), HUGE_LENGTH);
    // RFC 9110 §14.4: ranges past 4 GiB, counted from the start and from the end.
    for (range, first) in [
        ("bytes=5368709110-", 5_368_709_110),
        ("bytes=-10", 5_368_709_110),
        ("bytes=4294967296-4294967305", 4_294_967_296),
    ] {
        let r = huge(Some(range));
        assert_eq!(r.status, 206, "{range}");
        let last = first + 9;
        let expected = std::format!("bytes {first}-{last}/5368709120");
        assert_eq!(r.field("content-range").unwrap(), expected.as_str());
        assert!(matches!(
            r.body,
            Body::Representation { range: Some(got), .. } if (got.first, got.last) == (first, last)
        ));
        assert_eq!(r.body.len(), 10);
    }
    // RFC 9110 §15.5.17: a range past the end is 416 with the whole length.
    let r = huge(Some("bytes=5368709120-"));
    assert_eq!(r.status, 416);
    assert_eq!(r.field("content-range").unwrap(), "bytes */5368709120");
}

#[test]
fn a_part_past_4_gib_has_its_content_range() {
    // RFC 9110 §14.6: a part's Content-Range past 4 GiB.
    let r = huge(Some("bytes=0-0, -1"));
    let Body::Multipart(multipart) = r.body else {
        panic!("{:?}", r.body)
    };
    let mut text = Vec::new();
    multipart.for_each_piece(|piece| {
        if let crate::Piece::Text(t) = piece {
            text.extend_from_slice(t);
        }
    });
    let text = std::string::String::from_utf8(text).unwrap();
    assert!(
        text.contains("Content-Range: bytes 5368709119-5368709119/5368709120"),
        "{text}"
    );
    // The store's length keeps Content no larger than its other kinds (4-aligned halves): a
    // stored object's fields take no more room than a blob's four numbers.
    assert_eq!(core::mem::align_of::<crate::ObjectLength>(), 4);
    assert!(
        core::mem::size_of::<(u32, crate::Store, crate::ObjectLength)>()
            <= core::mem::size_of::<[u32; 4]>()
    );
    assert_eq!(crate::ObjectLength::new(u64::MAX).get(), u64::MAX);
    assert_eq!(
        std::format!("{:?}", crate::ObjectLength::new(HUGE_LENGTH)),
        "5368709120"
    );
}

#[test]
fn a_multipart_body_is_text_and_ranges_of_the_representation() {
    // RFC 9110 §14.6: the adapter fills the ranges from wherever the bytes are.
    let r = outside(&[("range", "bytes=0-1, 24-")]);
    let Body::Multipart(multipart) = r.body else {
        panic!("{:?}", r.body)
    };
    let mut ranges = Vec::new();
    let mut text = Vec::new();
    multipart.for_each_piece(|piece| match piece {
        crate::Piece::Text(t) => text.extend_from_slice(t),
        crate::Piece::Range(range) => ranges.push((range.first, range.last)),
    });
    assert_eq!(ranges, [(0, 1), (24, 25)]);
    let mut body = Vec::new();
    multipart.for_each_chunk(b"abcdefghijklmnopqrstuvwxyz", |c| body.extend_from_slice(c));
    assert_eq!(
        std::str::from_utf8(&body).unwrap(),
        "--edgesite-boundary\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Range: bytes 0-1/26\r\n\r\nab\r\n--edgesite-boundary\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Range: bytes 24-25/26\r\n\r\nyz\r\n--edgesite-boundary--\r\n"
    );
    assert_eq!(multipart.byte_len(), body.len() as u64);
    assert_eq!(
        r.field("content-length").unwrap(),
        body.len().to_string().as_str()
    );
}

#[test]
fn a_query_naming_the_current_bytes_makes_the_answer_immutable() {
    // RFC 9111 §5.2.2.1 (max-age) and RFC 8246 (immutable): `?v=` the fingerprint names these
    // bytes for ever; any other query, or none, gets the resource's own policy.
    const IMMUTABLE: &str = "public, max-age=31536000, immutable";
    let cache_control = |target: &str, fields: &[(&str, &str)]| {
        let r = get(target, fields);
        (r.status, r.field("cache-control").unwrap().to_string())
    };
    for target in [
        "/plain.txt?v=0123abcdef",
        "/plain.txt?x=1&v=0123abcdef",
        "/plain.txt?v=2022.1&v=0123abcdef",
    ] {
        assert_eq!(
            cache_control(target, &[]),
            (200, IMMUTABLE.into()),
            "{target}"
        );
    }
    for target in [
        "/plain.txt",
        "/plain.txt?v=0123abcde0",
        "/plain.txt?v=0123ABCDEF",
        "/plain.txt?v=0123abcdef0",
        "/plain.txt?w=0123abcdef",
    ] {
        assert_eq!(
            cache_control(target, &[]),
            (200, "no-cache".into()),
            "{target}"
        );
    }
    // RFC 9110 §15.4.5: a 304 carries the Cache-Control the 200 would; a 206 too.
    let etag = get("/plain.txt", &[]).field("etag").unwrap().to_string();
    assert_eq!(
        cache_control("/plain.txt?v=0123abcdef", &[("if-none-match", &etag)]),
        (304, IMMUTABLE.into())
    );
    assert_eq!(
        cache_control("/plain.txt?v=0123abcdef", &[("range", "bytes=0-1")]),
        (206, IMMUTABLE.into())
    );
    let head = respond("HEAD", "/plain.txt?v=0123abcdef", &[]);
    assert_eq!(head.field("cache-control").as_deref(), Some(IMMUTABLE));
    // A resource without a fingerprint ignores `v`; a 404 has no fingerprint to match.
    assert_eq!(cache_control("/?v=", &[]), (200, "no-cache".into()));
    assert_eq!(cache_control("/nope?v=0123abcdef", &[]).0, 404);
}

#[test]
fn every_request_field_adapters_copy_is_one_the_head_keeps() {
    // The adapters copy REQUEST_FIELDS by name (the Worker's JS half writes exactly these): a
    // name that set_field or field did not know would be dropped silently.
    let values: Vec<std::string::String> = crate::REQUEST_FIELDS
        .iter()
        .map(|name| std::format!("value of {name}"))
        .collect();
    let mut head = RequestHead::new("GET", "/");
    for (name, value) in crate::REQUEST_FIELDS.iter().zip(&values) {
        head.set_field(name, value.as_bytes());
    }
    for (name, value) in crate::REQUEST_FIELDS.iter().zip(&values) {
        assert_eq!(head.field(name), Some(value.as_bytes()), "{name}");
    }
    assert_eq!(head.field("host"), None);
}

/// The SPA fallback's page, with a CDN policy of its own (`cache.cdn`).
static APP: Asset<'static> = Asset {
    fields: &[("cdn-cache-control", "max-age=600"), ("x-app", "1")],
    ..PAGE
};
static APP_SITE: Site<'static> = Site {
    fallback: Some(&APP),
    fields: &[("x-content-type-options", "nosniff")],
    ..SPA
};

fn spa(site: &'static Site<'static>, target: &str, fields: &[(&str, &str)]) -> Response<'static> {
    let mut head = RequestHead::new("GET", target);
    for (name, value) in fields {
        head.set_field(name, value.as_bytes());
    }
    crate::respond(site, &head)
}

#[test]
fn the_spa_fallbacks_choice_varies_by_what_tells_a_navigation_and_is_kept_from_cdns() {
    // RFC 9110 §12.5.5: the answer at /users/42 was chosen by Sec-Fetch-Mode (or, without it,
    // Accept), so every answer there names both, the page's 200 and 304 and the 404 alike.
    let page = spa(&APP_SITE, "/users/42", &[("sec-fetch-mode", "navigate")]);
    assert_eq!(page.status, 200);
    assert_eq!(
        &*page.field("vary").unwrap(),
        "accept, accept-encoding, sec-fetch-mode"
    );
    // A CDN that ignores that Vary must not store it (RFC 9213): `private` replaces the page's
    // own CDN-Cache-Control, whose other fields stay.
    let cdn: Vec<_> = page
        .fields
        .iter()
        .filter(|(n, _)| *n == "cdn-cache-control")
        .map(|(_, v)| v.to_string())
        .collect();
    assert_eq!(cdn, ["private"]);
    assert_eq!(page.fields.iter().count(), page.fields.len());
    assert_eq!(&*page.field("x-app").unwrap(), "1");
    let again = spa(
        &APP_SITE,
        "/users/42",
        &[
            ("sec-fetch-mode", "navigate"),
            ("if-none-match", "\"page\""),
        ],
    );
    assert_eq!(again.status, 304);
    assert_eq!(
        &*again.field("vary").unwrap(),
        "accept, accept-encoding, sec-fetch-mode"
    );
    assert_eq!(&*again.field("cdn-cache-control").unwrap(), "private");
    let fetched = spa(&APP_SITE, "/users/42", &[("sec-fetch-mode", "cors")]);
    assert_eq!(fetched.status, 404);
    assert_eq!(&*fetched.field("vary").unwrap(), "accept, sec-fetch-mode");
    assert_eq!(&*fetched.field("cdn-cache-control").unwrap(), "private");
    assert_eq!(&*fetched.field("cache-control").unwrap(), "no-cache");
    // Where the fallback never answers (a file's own path, a name with an extension), nothing
    // depends on it.
    let file = spa(&APP_SITE, "/plain.txt", &[("sec-fetch-mode", "navigate")]);
    assert!(file.field("vary").is_none());
    assert_eq!(&*file.field("cdn-cache-control").unwrap(), "max-age=60");
    let script = spa(&APP_SITE, "/app.js", &[("sec-fetch-mode", "navigate")]);
    assert_eq!(script.status, 404);
    assert!(script.field("vary").is_none());
    assert!(script.field("cdn-cache-control").is_none());
    // With shared caches trusted to honour Vary, the page's own policy stands.
    static TRUSTING: Site<'static> = Site {
        shared_caches: crate::SharedCaches::Vary,
        ..APP_SITE
    };
    let trusted = spa(&TRUSTING, "/users/42", &[("sec-fetch-mode", "navigate")]);
    assert_eq!(&*trusted.field("cdn-cache-control").unwrap(), "max-age=600");
    assert_eq!(
        &*trusted.field("vary").unwrap(),
        "accept, accept-encoding, sec-fetch-mode"
    );
}

static WITH_DELTA: Asset<'static> = Asset {
    deltas: &[crate::Delta {
        available_dictionary: ":AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=:",
        representation: Representation {
            coding: ContentCoding::Dcz,
            etag: "\"dz\"",
            content_length: "2",
            content: Content::Bytes(b"dz"),
        },
    }],
    ..PLAIN
};
static DELTA_SITE: Site<'static> = Site {
    routes: &[Route {
        path: "/app.js",
        target: Target::Asset(&WITH_DELTA),
    }],
    ..Site::EMPTY
};

#[test]
fn a_delta_is_kept_from_cdns_and_the_other_representations_are_not() {
    let dictionary = (
        "available-dictionary",
        WITH_DELTA.deltas[0].available_dictionary,
    );
    let delta = spa(
        &DELTA_SITE,
        "/app.js",
        &[("accept-encoding", "dcz"), dictionary],
    );
    assert_eq!(&*delta.field("content-encoding").unwrap(), "dcz");
    // RFC 9842 §6.2; a CDN that ignores Available-Dictionary would hand these bytes to a
    // client without the dictionary.
    assert_eq!(&*delta.field("cdn-cache-control").unwrap(), "private");
    assert_eq!(
        &*delta.field("vary").unwrap(),
        "accept-encoding, available-dictionary"
    );
    let etag = [
        ("accept-encoding", "dcz"),
        dictionary,
        ("if-none-match", "\"dz\""),
    ];
    let not_modified = spa(&DELTA_SITE, "/app.js", &etag);
    assert_eq!(not_modified.status, 304);
    assert_eq!(
        &*not_modified.field("cdn-cache-control").unwrap(),
        "private"
    );
    let plain = spa(&DELTA_SITE, "/app.js", &[]);
    assert!(plain.field("content-encoding").is_none());
    assert_eq!(&*plain.field("cdn-cache-control").unwrap(), "max-age=60");
}

#[test]
fn a_406_varies_by_accept_encoding_whatever_else_chose() {
    // RFC 9110 §12.5.3: only Accept-Encoding can refuse every stored representation; an image
    // with variants and one coding still names it (its other answers say `accept`).
    static IMAGE: Asset<'static> = Asset {
        variants: &[crate::Variant {
            content_type: "image/avif",
            representation: Representation {
                coding: ContentCoding::Identity,
                etag: "\"avif\"",
                content_length: "1",
                content: Content::Bytes(b"a"),
            },
        }],
        ..PLAIN
    };
    static IMAGES: Site<'static> = Site {
        routes: &[Route {
            path: "/a.jpg",
            target: Target::Asset(&IMAGE),
        }],
        ..Site::EMPTY
    };
    assert_eq!(
        &*spa(&IMAGES, "/a.jpg", &[]).field("vary").unwrap(),
        "accept"
    );
    let refused = spa(&IMAGES, "/a.jpg", &[("accept-encoding", "identity;q=0")]);
    assert_eq!(refused.status, 406);
    assert_eq!(&*refused.field("vary").unwrap(), "accept, accept-encoding");
}

#[test]
fn every_error_says_how_long_it_may_be_kept() {
    // RFC 9111 §4.2.2: a 404, 405 or 414 without Cache-Control may be stored heuristically;
    // a 404 is revalidated (a deploy may fill the path), the others are not stored.
    type Case<'c> = (&'c str, &'c str, &'c [(&'c str, &'c str)], u16, &'c str);
    let cases: [Case<'_>; 7] = [
        ("GET", "/nope", &[], 404, "no-cache"),
        ("GET", "/a%2Fb", &[], 400, "no-store"),
        ("POST", "/", &[], 405, "no-store"),
        (
            "GET",
            "/",
            &[("accept-encoding", "identity;q=0")],
            406,
            "no-store",
        ),
        ("GET", "/", &[("if-match", "\"other\"")], 412, "no-store"),
        (
            "GET",
            "/plain.txt",
            &[("range", "bytes=99-")],
            416,
            "no-store",
        ),
        ("GET", "/docs/nope", &[], 404, "no-cache"),
    ];
    for (method, target, fields, status, cache_control) in cases {
        let r = respond(method, target, fields);
        assert_eq!(r.status, status, "{method} {target}");
        assert_eq!(
            r.field("cache-control").as_deref(),
            Some(cache_control),
            "{method} {target}"
        );
    }
    let bare = Site {
        not_found: &[],
        ..SPA
    };
    let r = decide(
        &bare,
        &RequestHead::new("GET", "/x.js"),
        &mut Scratch::new(),
    )
    .response();
    assert_eq!(
        (r.status, r.field("cache-control").as_deref()),
        (404, Some("no-cache"))
    );
}

#[test]
fn a_path_destination_never_becomes_another_host() {
    // `/old/* /:splat/index.html`: an empty splat would make `//index.html`, which browsers
    // read as host `index.html` (RFC 3986 §4.2).
    assert_eq!(location("/old/"), (301, "/index.html".into()));
    assert_eq!(location("/old"), (301, "/index.html".into()));
    assert_eq!(location("/old/a/b"), (301, "/a/b/index.html".into()));
    assert_eq!(location("/old/?q=1"), (301, "/index.html?q=1".into()));
    // A backslash in a capture is encoded; browsers would read it as `/`.
    assert_eq!(get("/old/%5Cevil", &[]).status, 400);
}

/// A stored object is named by the 128 bits its ETag carries (22 base64url digits, the last
/// with four zero bits), in hex under its store's folder; any other ETag names none.
#[test]
fn a_stored_object_is_named_by_its_etag() {
    use crate::Store;
    let stored = |etag: &'static str, store| Representation {
        coding: ContentCoding::Br,
        etag,
        content_length: "1",
        content: Content::Stored {
            id: 0,
            store,
            length: crate::ObjectLength::new(1),
        },
    };
    let key = |r: Representation<'static>| r.object_key().map(|k| k.to_string());
    assert_eq!(
        key(stored("\"_____________________w\"", Store::Assets)).as_deref(),
        Some("_edgesite/b/ffffffffffffffffffffffffffffffff.bin")
    );
    assert_eq!(
        key(stored("\"AAAAAAAAAAAAAAAAAAAAAA\"", Store::R2)).as_deref(),
        Some("_edgesite/r/00000000000000000000000000000000.bin")
    );
    for etag in [
        "\"AAAAAAAAAAAAAAAAAAAAAB\"",  // bits past the 128th
        "\"AAAAAAAAAAAAAAAAAAAAA\"",   // 21 digits
        "\"AAAAAAAAAAAAAAAAAAAAAAA\"", // 23
        "\"AAAAAAAAAAAAAAAAAAAA+A\"",  // standard base64, not base64url
        "AAAAAAAAAAAAAAAAAAAAAA",      // unquoted
        "W/\"AAAAAAAAAAAAAAAAAAAAAA\"",
    ] {
        assert_eq!(key(stored(etag, Store::Assets)), None, "{etag}");
    }
    let in_memory = Representation {
        content: Content::Bytes(b"x"),
        ..stored("\"AAAAAAAAAAAAAAAAAAAAAA\"", Store::Assets)
    };
    assert_eq!(key(in_memory), None, "not stored");
}

proptest::proptest! {
    /// Any 128 bits, written as sitegen writes an ETag (URL-safe base64 without padding, in
    /// quotes), name the object of those bits in hex.
    #[test]
    fn every_etag_digest_names_its_object(digest in proptest::array::uniform16(proptest::prelude::any::<u8>())) {
        use base64::Engine as _;
        let etag = std::format!("\"{}\"", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest));
        let stored = Representation {
            coding: ContentCoding::Identity,
            etag: &etag,
            content_length: "1",
            content: Content::Stored { id: 0, store: crate::Store::Assets, length: crate::ObjectLength::new(1) },
        };
        let hex: std::string::String = digest.iter().map(|b| std::format!("{b:02x}")).collect();
        let key = stored.object_key().map(|k| k.to_string());
        proptest::prop_assert_eq!(key, Some(std::format!("_edgesite/b/{hex}.bin")));
    }
}
