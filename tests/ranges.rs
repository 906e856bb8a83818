//! Range requests over HTTP (RFC 9110 §14), against every runtime. Covers:
//!
//! * `Accept-Ranges: bytes` on 200s (§14.3);
//! * single ranges `a-b`, `a-`, `-n` → 206 with Content-Range and exactly those bytes (§14.1.2,
//!   §15.3.7), over the selected representation when it is encoded;
//! * several ranges → `multipart/byteranges`, overlapping and adjacent ones coalesced (§14.6);
//! * unsatisfiable → 416 with `Content-Range: bytes */LEN` (§15.5.17); malformed → ignored (200);
//! * too many ranges or overlaps → the full 200 (DoS guard, §14.2);
//! * HEAD with Range → 200 (§14.2: GET only);
//! * If-Range with the current strong ETag or the exact Last-Modified → 206, else 200 (§13.1.5).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use support::{get, request, site_file, Reply};

const FILE: &str = "/app.js";

fn ranged(value: &str) -> Reply {
    request("GET", FILE, &[("range", value)])
}

fn bytes() -> Vec<u8> {
    site_file(FILE)
}

#[test]
fn the_three_single_range_forms_are_206() {
    let all = bytes();
    let len = all.len();
    for (value, first, last) in [
        ("bytes=0-9", 0, 9),
        ("bytes=100-", 100, len - 1),
        ("bytes=-25", len - 25, len - 1),
        ("bytes=5-99999", 5, len - 1),
    ] {
        let reply = ranged(value);
        assert_eq!(reply.status, 206, "{value}");
        assert_eq!(reply.body, &all[first..=last], "{value}");
        assert_eq!(
            reply.header("content-range"),
            Some(format!("bytes {first}-{last}/{len}").as_str()),
            "{value}"
        );
        assert_eq!(
            reply.header("content-type"),
            Some("text/javascript; charset=utf-8")
        );
        assert!(
            reply.header("etag").is_some(),
            "§15.3.7: a 206 carries the 200's ETag"
        );
    }
}

#[test]
fn a_200_advertises_byte_ranges() {
    assert_eq!(get(FILE).header("accept-ranges"), Some("bytes"));
}

#[test]
fn several_ranges_are_one_multipart_byteranges_body() {
    // RFC 9110 §14.6.
    let all = bytes();
    let len = all.len();
    let reply = ranged("bytes=0-4, 20-29");
    assert_eq!(reply.status, 206);
    let content_type = reply.header("content-type").unwrap();
    let boundary = content_type
        .strip_prefix("multipart/byteranges; boundary=")
        .expect(content_type);
    let mut expected = Vec::new();
    for (i, (a, b)) in [(0, 4), (20, 29)].into_iter().enumerate() {
        expected.extend_from_slice(if i == 0 { b"--" } else { b"\r\n--" });
        expected.extend_from_slice(
            format!("{boundary}\r\nContent-Type: text/javascript; charset=utf-8\r\nContent-Range: bytes {a}-{b}/{len}\r\n\r\n").as_bytes(),
        );
        expected.extend_from_slice(&all[a..=b]);
    }
    expected.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    assert_eq!(
        String::from_utf8_lossy(&reply.body),
        String::from_utf8_lossy(&expected)
    );
    assert_eq!(
        reply.header("content-range"),
        None,
        "only the parts carry Content-Range"
    );
}

#[test]
fn overlapping_and_adjacent_ranges_are_coalesced() {
    let all = bytes();
    let reply = ranged("bytes=10-19, 0-9, 15-24");
    assert_eq!(reply.status, 206);
    assert_eq!(
        reply.header("content-range"),
        Some(format!("bytes 0-24/{}", all.len()).as_str())
    );
    assert_eq!(reply.body, &all[..25]);
}

#[test]
fn unsatisfiable_ranges_are_416_with_the_length() {
    // RFC 9110 §15.5.17.
    let len = bytes().len();
    for value in [
        format!("bytes={len}-"),
        format!("bytes={}-{}", len + 10, len + 20),
        "bytes=-0".to_string(),
    ] {
        let reply = ranged(&value);
        assert_eq!(reply.status, 416, "{value}");
        assert_eq!(
            reply.header("content-range"),
            Some(format!("bytes */{len}").as_str()),
            "{value}"
        );
    }
}

#[test]
fn malformed_or_foreign_ranges_are_ignored() {
    // RFC 9110 §14.2: a server MAY ignore Range; edgesite sends the whole representation.
    for value in ["bytes=9-1", "bytes=a-b", "items=0-1", "bytes", "0-1"] {
        let reply = ranged(value);
        assert_eq!(
            (reply.status, reply.body.len()),
            (200, bytes().len()),
            "{value}"
        );
    }
}

#[test]
fn too_many_ranges_or_overlaps_get_the_full_200() {
    let many: Vec<String> = (0..17)
        .map(|i| format!("{}-{}", i * 10, i * 10 + 1))
        .collect();
    assert_eq!(ranged(&format!("bytes={}", many.join(","))).status, 200);
    assert_eq!(ranged("bytes=0-99,0-99,0-99,0-99").status, 200);
}

#[test]
fn head_ignores_range() {
    // RFC 9110 §14.2: GET is the only method range handling is defined for.
    let reply = request("HEAD", FILE, &[("range", "bytes=0-9")]);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.raw_body_len, 0);
}

#[test]
fn if_range_decides_between_206_and_200() {
    // RFC 9110 §13.1.5: a strong ETag or the exact Last-Modified date.
    let full = get(FILE);
    let etag = full.header("etag").unwrap();
    let modified = full.header("last-modified").unwrap();
    let with = |if_range: &str| {
        request(
            "GET",
            FILE,
            &[("range", "bytes=0-0"), ("if-range", if_range)],
        )
        .status
    };
    assert_eq!(with(etag), 206);
    assert_eq!(with(modified), 206);
    assert_eq!(with("\"stale\""), 200);
    assert_eq!(with(&format!("W/{etag}")), 200, "a weak tag never matches");
    assert_eq!(with("Thu, 01 Jan 1970 00:00:00 GMT"), 200);
    assert_eq!(with("garbage"), 200);
}

#[test]
fn a_range_of_an_encoded_representation_is_of_its_stored_bytes() {
    let encoded = request("GET", "/", &[("accept-encoding", "br")]);
    let reply = request(
        "GET",
        "/",
        &[("accept-encoding", "br"), ("range", "bytes=0-99")],
    );
    assert_eq!(reply.status, 206);
    assert_eq!(reply.header("content-encoding"), Some("br"));
    assert_eq!(
        reply.header("content-range"),
        Some(format!("bytes 0-99/{}", encoded.body.len()).as_str())
    );
    assert_eq!(reply.body, &encoded.body[..100]);
}
