//! Conditional requests over HTTP (RFC 9110 §13), against every runtime. Covers:
//!
//! * If-None-Match: weak comparison, lists, `*`, commas inside quoted tags → 304 with ETag,
//!   Last-Modified, Cache-Control and Vary and no content (§13.1.2, §15.4.5);
//! * If-Modified-Since only without If-None-Match; invalid dates ignored (§13.1.3, §13.2.2);
//! * If-Match: strong comparison, lists, `*` → 412 on failure, before If-None-Match (§13.1.1);
//! * If-Unmodified-Since only without If-Match (§13.1.4);
//! * preconditions never apply to a 404 (§13.2.1);
//! * each representation is compared with its own strong ETag (§8.8.3).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use support::{get, request, Reply};

const PAGE: &str = "/style.css";
const BR: (&str, &str) = ("accept-encoding", "br");

fn fetch(headers: &[(&str, &str)]) -> Reply {
    request("GET", PAGE, headers)
}

fn validators() -> (String, String) {
    let reply = get(PAGE);
    (
        reply.header("etag").unwrap().to_string(),
        reply.header("last-modified").unwrap().to_string(),
    )
}

/// An HTTP-date `delta` seconds from `date` (IMF-fixdate).
fn shifted(date: &str, delta: i64) -> String {
    let t = httpdate::parse_http_date(date).unwrap();
    let t = if delta >= 0 {
        t + std::time::Duration::from_secs(delta as u64)
    } else {
        t - std::time::Duration::from_secs((-delta) as u64)
    };
    httpdate::fmt_http_date(t)
}

#[test]
fn if_none_match_with_the_current_tag_or_star_is_304() {
    // RFC 9110 §13.1.2: weak comparison; §15.4.5: the 304 repeats the 200's validators and Vary.
    let full = get(PAGE);
    let (etag, _) = validators();
    for value in [
        etag.clone(),
        format!("W/{etag}"),
        format!("\"a,b\", {etag}"),
        format!(" , {etag} ,"),
        "*".into(),
    ] {
        let reply = fetch(&[("if-none-match", &value)]);
        assert_eq!(reply.status, 304, "If-None-Match: {value}");
        assert_eq!(reply.raw_body_len, 0);
        for field in ["etag", "last-modified", "cache-control", "vary"] {
            assert_eq!(
                reply.header(field),
                full.header(field),
                "{field} of the 304 for {value}"
            );
        }
    }
}

#[test]
fn if_none_match_with_other_tags_is_200() {
    for value in ["\"nope\"", "\"a\", W/\"b\"", "unquoted", "\"unterminated"] {
        assert_eq!(
            fetch(&[("if-none-match", value)]).status,
            200,
            "If-None-Match: {value}"
        );
    }
}

#[test]
fn if_modified_since_applies_only_without_if_none_match() {
    // RFC 9110 §13.1.3, §13.2.2 step 4; nginx gets this wrong.
    let (_, modified) = validators();
    assert_eq!(fetch(&[("if-modified-since", &modified)]).status, 304);
    assert_eq!(
        fetch(&[("if-modified-since", &shifted(&modified, 3600))]).status,
        304
    );
    assert_eq!(
        fetch(&[("if-modified-since", &shifted(&modified, -1))]).status,
        200
    );
    let stale = fetch(&[
        ("if-modified-since", &modified),
        ("if-none-match", "\"nope\""),
    ]);
    assert_eq!(
        stale.status, 200,
        "a non-matching If-None-Match wins over a matching date"
    );
}

#[test]
fn if_modified_since_accepts_all_three_date_formats_and_ignores_invalid_ones() {
    // RFC 9110 §5.6.7: recipients MUST accept IMF-fixdate, rfc850-date and asctime-date.
    let (_, modified) = validators();
    let t = httpdate::parse_http_date(&modified).unwrap();
    let secs = t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let later = secs + 86_400;
    let rfc850 = format_rfc850(later);
    let asctime = format_asctime(later);
    assert_eq!(
        fetch(&[("if-modified-since", &rfc850)]).status,
        304,
        "{rfc850}"
    );
    assert_eq!(
        fetch(&[("if-modified-since", &asctime)]).status,
        304,
        "{asctime}"
    );
    for bad in [
        "yesterday",
        "Sun, 31 Feb 2026 00:00:00 GMT",
        "2026-11-30T00:00:00Z",
    ] {
        assert_eq!(fetch(&[("if-modified-since", bad)]).status, 200, "{bad}");
    }
}

fn civil(secs: u64) -> (u64, usize, u64, u64, usize) {
    // (year, month index, day, seconds of day, weekday index Mon=0)
    let days = secs / 86_400;
    let weekday = ((days + 3) % 7) as usize;
    let (mut y, mut d) = (1970, days);
    loop {
        let len = if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) {
            366
        } else {
            365
        };
        if d < len {
            break;
        }
        d -= len;
        y += 1;
    }
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let lens = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    let mut m = 0;
    while d >= lens[m] {
        d -= lens[m];
        m += 1;
    }
    (y, m, d + 1, secs % 86_400, weekday)
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

fn format_rfc850(secs: u64) -> String {
    const DAYS: [&str; 7] = [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ];
    let (y, m, d, s, w) = civil(secs);
    format!(
        "{}, {d:02}-{}-{:02} {:02}:{:02}:{:02} GMT",
        DAYS[w],
        MONTHS[m],
        y % 100,
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

fn format_asctime(secs: u64) -> String {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let (y, m, d, s, w) = civil(secs);
    format!(
        "{} {} {d:>2} {:02}:{:02}:{:02} {y}",
        DAYS[w],
        MONTHS[m],
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

#[test]
fn if_match_uses_the_strong_comparison_and_fails_with_412() {
    // RFC 9110 §13.1.1 and §15.5.13.
    let (etag, _) = validators();
    assert_eq!(fetch(&[("if-match", &etag)]).status, 200);
    assert_eq!(
        fetch(&[("if-match", &format!("\"x\", {etag}"))]).status,
        200
    );
    assert_eq!(fetch(&[("if-match", "*")]).status, 200);
    assert_eq!(fetch(&[("if-match", "\"nope\"")]).status, 412);
    assert_eq!(
        fetch(&[("if-match", &format!("W/{etag}"))]).status,
        412,
        "a weak tag never matches strongly"
    );
}

#[test]
fn if_match_is_evaluated_before_if_none_match() {
    // RFC 9110 §13.2.2: step 1 (If-Match) before step 3 (If-None-Match).
    let (etag, _) = validators();
    assert_eq!(
        fetch(&[("if-match", "\"nope\""), ("if-none-match", &etag)]).status,
        412
    );
    assert_eq!(
        fetch(&[("if-match", &etag), ("if-none-match", &etag)]).status,
        304
    );
}

#[test]
fn if_unmodified_since_applies_only_without_if_match() {
    // RFC 9110 §13.1.4, §13.2.2 step 2.
    let (etag, modified) = validators();
    let before = shifted(&modified, -60);
    assert_eq!(fetch(&[("if-unmodified-since", &modified)]).status, 200);
    assert_eq!(fetch(&[("if-unmodified-since", &before)]).status, 412);
    assert_eq!(
        fetch(&[("if-match", &etag), ("if-unmodified-since", &before)]).status,
        200
    );
    assert_eq!(fetch(&[("if-unmodified-since", "not a date")]).status, 200);
}

#[test]
fn preconditions_never_apply_to_a_missing_resource() {
    // RFC 9110 §13.2.1: only when the response would be 2xx.
    for field in [
        ("if-none-match", "*"),
        ("if-match", "\"x\""),
        ("if-modified-since", "Fri, 01 Jan 2100 00:00:00 GMT"),
    ] {
        assert_eq!(request("GET", "/nope", &[field]).status, 404, "{field:?}");
    }
}

#[test]
fn each_encoding_is_revalidated_with_its_own_etag() {
    // RFC 9110 §8.8.3: the br representation has its own strong tag; a client holding it gets
    // 304 only while it still asks for br.
    let identity = get(PAGE);
    let br = fetch(&[BR]);
    assert_eq!(br.header("content-encoding"), Some("br"));
    let br_tag = br.header("etag").unwrap().to_string();
    assert_ne!(Some(br_tag.as_str()), identity.header("etag"));
    assert_eq!(fetch(&[BR, ("if-none-match", &br_tag)]).status, 304);
    assert_eq!(fetch(&[("if-none-match", &br_tag)]).status, 200);
}
