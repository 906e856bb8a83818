//! Malformed and hostile requests over real sockets (issue 6): each gets the correct answer or a
//! 4xx, never a 5xx, and the server keeps answering afterwards. The same suite runs against the
//! native twin (in-process and the binary), the Worker under bare workerd and under wrangler
//! dev. Where the transport (hyper, workerd) answers before edgesite sees the request, the
//! tests accept any 4xx or a closed connection, and say what native must answer (RFC 9112).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use support::{get, request, send_raw_lenient, server, site_file, status_of, Runtime};

fn host() -> String {
    server().addr.clone()
}

/// Sends raw bytes; the answer's status, or `None` when the connection closed without one.
fn raw(bytes: &[u8]) -> Option<u16> {
    status_of(&send_raw_lenient(bytes))
}

/// The server rejected the request at the transport, or answered a 4xx; never a 5xx.
fn assert_rejected(status: Option<u16>, what: &str) {
    if let Some(status) = status {
        assert!((400..500).contains(&status), "{what}: {status}");
    }
    assert_still_serving(what);
}

fn assert_still_serving(after: &str) {
    let reply = get("/about");
    assert_eq!(reply.status, 200, "after {after}");
}

fn native() -> bool {
    server().runtime == Runtime::Native
}

#[test]
fn conflicting_content_lengths_are_rejected() {
    // RFC 9112 §6.3: differing Content-Length values are unrecoverable: 400.
    let status = raw(format!(
        "GET / HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
        host()
    )
    .as_bytes());
    if native() {
        assert_eq!(status, Some(400));
    }
    assert_rejected(status, "two Content-Lengths");
}

#[test]
fn transfer_encoding_on_a_get_is_framed_or_rejected() {
    // RFC 9112 §6.1: a chunked body on GET is framed by Transfer-Encoding; the content is
    // ignored (RFC 9110 §9.3.1), so the answer is the resource, or a 4xx.
    let status = raw(format!(
        "GET /about HTTP/1.1\r\nHost: {}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        host()
    )
    .as_bytes());
    assert!(
        matches!(status, Some(200) | Some(400..=499) | None),
        "{status:?}"
    );
    // Transfer-Encoding and Content-Length together (request smuggling): never both honoured.
    let status = raw(format!(
        "GET /about HTTP/1.1\r\nHost: {}\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\nConnection: close\r\n\r\n0\r\n\r\n",
        host()
    )
    .as_bytes());
    assert!(
        matches!(status, Some(200) | Some(400..=499) | None),
        "{status:?}"
    );
    assert_still_serving("Transfer-Encoding on GET");
}

#[test]
fn a_missing_or_repeated_host_is_400_on_native() {
    // RFC 9112 §3.2.
    let missing = raw(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
    let twice = raw(b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n");
    if native() {
        assert_eq!((missing, twice), (Some(400), Some(400)));
    }
    for (status, what) in [(missing, "no Host"), (twice, "two Hosts")] {
        if server().runtime == Runtime::WranglerDev && what == "two Hosts" && status == Some(500) {
            // wrangler dev's proxy (not the Worker, which never sees the request) builds a URL
            // from "a, b" and answers its own 500 "Invalid URL string". Dev only: bare workerd
            // passes this test.
            continue;
        }
        assert!(
            matches!(status, Some(200) | Some(400..=499) | None),
            "{what}: {status:?}"
        );
    }
    assert_still_serving("Host errors");
}

#[test]
fn obsolete_line_folding_and_space_before_the_colon_are_rejected() {
    // RFC 9112 §5.2: obs-fold → 400 (or replaced by SP); §5.1: whitespace between the field name
    // and the colon → MUST 400.
    let folded = raw(format!(
        "GET / HTTP/1.1\r\nHost: {}\r\nX-Folded: a\r\n b\r\nConnection: close\r\n\r\n",
        host()
    )
    .as_bytes());
    assert!(
        matches!(folded, Some(200) | Some(400..=499) | None),
        "{folded:?}"
    );
    let spaced = raw(format!(
        "GET / HTTP/1.1\r\nHost: {}\r\nAccept-Encoding : br\r\nConnection: close\r\n\r\n",
        host()
    )
    .as_bytes());
    if native() {
        assert_eq!((folded, spaced), (Some(400), Some(400)));
    }
    assert_rejected(spaced, "space before the colon");
}

#[test]
fn very_long_paths_are_404_or_refused() {
    // Paths longer than any route (1,023 bytes) are 404; the transport may refuse a target it
    // will not read (414, RFC 9110 §15.5.15, or 431).
    for len in [8 * 1024, 64 * 1024] {
        let target = format!("/{}", "a".repeat(len));
        let status = raw(format!(
            "GET {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            host()
        )
        .as_bytes());
        if native() && len == 8 * 1024 {
            assert_eq!(status, Some(404), "{len}");
        }
        assert_rejected(status, &format!("a {len}-byte path"));
    }
}

#[test]
fn a_100_kb_header_section_is_refused() {
    let fields: String = (0..100)
        .map(|i| format!("X-Pad-{i}: {}\r\n", "p".repeat(1000)))
        .collect();
    let status = raw(format!(
        "GET / HTTP/1.1\r\nHost: {}\r\n{fields}Connection: close\r\n\r\n",
        host()
    )
    .as_bytes());
    if native() {
        // RFC 6585 §5: past --max-header-bytes (16 KiB).
        assert_eq!(status, Some(431));
    }
    // workerd reads it all (its own limit is larger): the request is valid, so 200 is right.
    assert!(
        matches!(status, Some(200) | Some(400..=499) | None),
        "{status:?}"
    );
    assert_still_serving("100 KB of header fields");
}

#[test]
fn fields_past_a_mebibyte_are_refused_never_a_500() {
    // 1.2 MB of If-None-Match, a field the core reads: past the Worker's 1 MiB input (a 431
    // from the bridge, RFC 6585 §5) and far past native's head limit (hyper's 431). A runtime
    // that reads no such head refuses it at the transport.
    let fields: String = (0..1200)
        .map(|i| format!("If-None-Match: \"{i}-{}\"\r\n", "t".repeat(1000)))
        .collect();
    let status = raw(format!(
        "GET /about HTTP/1.1\r\nHost: {}\r\n{fields}Connection: close\r\n\r\n",
        host()
    )
    .as_bytes());
    if native() {
        assert_eq!(status, Some(431));
    }
    if server().runtime == Runtime::WranglerDev {
        // (wrangler dev's proxy, not the Worker, decides what such a request gets.)
        assert_still_serving("1.2 MB of header fields");
    } else {
        assert_rejected(status, "1.2 MB of header fields");
    }
}

#[test]
fn thousands_of_ranges_and_a_thousand_entity_tags_are_answered_normally() {
    // RFC 9110 §14.2: a server MAY ignore a Range with too many parts: the full 200.
    // 3,000 parts (12 KB, within native's 16 KiB head limit).
    let ranges = format!("bytes={}", vec!["0-0"; 3000].join(","));
    let reply = request("GET", "/about", &[("range", &ranges)]);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.decoded(), site_file("/about.html"));
    // 1,000 If-None-Match entries, the current tag last: 304 (RFC 9110 §13.1.2).
    let etag = get("/about").header("etag").unwrap().to_string();
    let mut tags: Vec<String> = (0..999).map(|i| format!("\"tag-{i}\"")).collect();
    tags.push(etag);
    let reply = request("GET", "/about", &[("if-none-match", &tags.join(", "))]);
    assert_eq!(reply.status, 304);
    assert_still_serving("long lists");
}

#[test]
fn bad_percent_encodings_invalid_utf8_and_nul_are_400() {
    // edgesite's own rule: a path it cannot decode to UTF-8 without NUL names no file: 400.
    for target in ["/%zz", "/%", "/%FF", "/caf%C3", "/a%00b", "/%C0%AF"] {
        let reply = get(target);
        assert_eq!(reply.status, 400, "{target}");
    }
    // Raw bytes a request target cannot hold (RFC 9112 §3.2 / RFC 3986): rejected before edgesite.
    let status = raw(format!(
        "GET /caf\u{e9} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        host()
    )
    .as_bytes());
    assert_rejected(status, "a raw non-ASCII target");
    let mut nul = format!("GET / HTTP/1.1\r\nHost: {}\r\nX-Nul: a", host()).into_bytes();
    nul.extend_from_slice(b"\0b\r\nConnection: close\r\n\r\n");
    let status = raw(&nul);
    if native() {
        assert_eq!(status, Some(400));
    }
    assert_rejected(status, "NUL in a field value");
}

#[test]
fn an_absolute_form_target_serves_its_path() {
    // RFC 9112 §3.2.2: the path of an absolute-form target; Host is then ignored.
    let status = raw(format!(
        "GET http://{}/about HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        host(),
        host()
    )
    .as_bytes());
    assert!(matches!(status, Some(200) | Some(400..=499)), "{status:?}");
    if native() {
        assert_eq!(status, Some(200));
    }
    assert_still_serving("an absolute-form target");
}

#[test]
fn http_1_0_requests_are_answered() {
    // RFC 9112 §2.3 / Appendix C: an HTTP/1.0 client, no Host, no keep-alive.
    let answer = send_raw_lenient(b"GET /about HTTP/1.0\r\n\r\n");
    let status = status_of(&answer);
    if server().runtime == Runtime::Native {
        assert_eq!(status, Some(200));
        assert!(answer.ends_with(&site_file("/about.html")));
    }
    assert!(matches!(status, Some(200) | Some(400..=499)), "{status:?}");
    assert_still_serving("HTTP/1.0");
}
