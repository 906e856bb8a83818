//! RFC 9842 Compression Dictionary Transport over HTTP, against every runtime. The demo's
//! deploy history (`tests/fixtures/demo-history`, `[history]` in edgesite.toml) holds an older
//! app.js and style.css, so the build made deltas of the current ones against them:
//!
//! * a request whose Available-Dictionary (§2.2) names the older bytes, with `dcb`/`dcz` in
//!   Accept-Encoding, gets the smallest delta: Content-Encoding `dcb` or `dcz`, its own strong
//!   ETag, and bytes that decode, with the older version as the dictionary, to the current file
//!   (the stream's header repeats the dictionary's hash, §5);
//! * conditionals and ranges apply to the delta as to any representation (RFC 9110 §13, §14):
//!   304 for its ETag, 206 of its bytes;
//! * no Available-Dictionary, an unknown or a malformed one, or no dictionary coding accepted:
//!   ordinary negotiation; every response of a resource with deltas varies on both fields
//!   (§6.2);
//! * files a browser holds fresh offer themselves as dictionaries (`Use-As-Dictionary`, §2.1).
//!
//! `wrangler dev`'s proxy, which re-encodes br and identity answers (tests/negotiation.rs),
//! passes dcb and dcz answers through as the Worker sent them (wrangler 4.164.0), so nothing is
//! relaxed here.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::io::Read;
use support::{request, site_file, Reply};

const CHROME: &str = "gzip, deflate, br, zstd, dcb, dcz";

/// The older version of `path` in the demo's history: its bytes and the Available-Dictionary
/// field value naming them.
fn previous(path: &str) -> (Vec<u8>, String) {
    use base64::Engine as _;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/demo-history");
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}/deploys.json")).unwrap())
            .unwrap();
    let sha = index["deploys"][0]["files"][path].as_str().unwrap();
    let bytes = std::fs::read(format!("{dir}/bodies/{sha}")).unwrap();
    let digest = <sha2::Sha256 as sha2::Digest>::digest(&bytes);
    let field = format!(
        ":{}:",
        base64::engine::general_purpose::STANDARD.encode(digest)
    );
    (bytes, field)
}

/// The delta of `path` in `coding` the build stored, from the embedded tables.
fn stored_delta(path: &str, coding: &str) -> &'static edgesite_core::Representation<'static> {
    let edgesite_core::Target::Asset(asset) = &edgesite::SITE.route(path).unwrap().target else {
        panic!("{path} is a file");
    };
    asset
        .deltas
        .iter()
        .map(|d| &d.representation)
        .find(|r| r.coding.token() == coding)
        .unwrap_or_else(|| panic!("no {coding} delta of {path}"))
}

/// Undoes a dcb or dcz body with `dictionary` (RFC 9842 §5.1, §5.2).
fn decode_delta(coding: &str, body: &[u8], dictionary: &[u8]) -> Vec<u8> {
    let hash = <sha2::Sha256 as sha2::Digest>::digest(dictionary);
    match coding {
        "dcb" => {
            assert_eq!(body[..4], [0xff, 0x44, 0x43, 0x42], "dcb magic");
            assert_eq!(body[4..36], hash[..], "the dictionary's hash");
            let mut out = Vec::new();
            brotli::Decompressor::new_with_custom_dict(
                &body[36..],
                4096,
                dictionary.to_vec().into(),
            )
            .read_to_end(&mut out)
            .expect("a brotli stream against the dictionary");
            out
        }
        "dcz" => {
            assert_eq!(
                body[..8],
                [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00],
                "dcz magic"
            );
            assert_eq!(body[8..40], hash[..], "the dictionary's hash");
            zstd::bulk::Decompressor::with_dictionary(dictionary)
                .unwrap()
                .decompress(&body[40..], 1 << 20)
                .expect("a zstd frame against the dictionary")
        }
        other => panic!("not a dictionary coding: {other}"),
    }
}

fn get(path: &str, fields: &[(&str, &str)]) -> Reply {
    request("GET", path, fields)
}

fn assert_delta(reply: &Reply, path: &str, coding: &str, dictionary: &[u8]) {
    let stored = stored_delta(path, coding);
    assert_eq!(reply.status, 200, "{path} {coding}");
    assert_eq!(reply.header("etag"), Some(stored.etag), "{path} {coding}");
    assert_eq!(
        reply.header("vary"),
        Some("accept-encoding, available-dictionary"),
        "{path}"
    );
    assert_eq!(reply.header("content-encoding"), Some(coding), "{path}");
    assert_eq!(
        reply.body.len(),
        stored.length() as usize,
        "{path} {coding}"
    );
    assert_eq!(
        decode_delta(coding, &reply.body, dictionary),
        site_file(path)
    );
}

#[test]
fn a_client_holding_the_previous_version_gets_the_smallest_delta_and_it_decodes_to_the_file() {
    for path in ["/app.js", "/style.css"] {
        let (old, field) = previous(path);
        let reply = get(
            path,
            &[
                ("accept-encoding", CHROME),
                ("available-dictionary", &field),
            ],
        );
        let (dcb, dcz) = (stored_delta(path, "dcb"), stored_delta(path, "dcz"));
        let smallest = if dcb.length() <= dcz.length() {
            "dcb"
        } else {
            "dcz"
        };
        assert_delta(&reply, path, smallest, &old);
        // Far smaller than the br representation: the bytes the client already has are not
        // sent again.
        let br = get(path, &[("accept-encoding", "br")]);
        assert!(
            stored_delta(path, smallest).length() * 3 < br.body.len() as u64,
            "{path}: delta {} bytes, br {}",
            stored_delta(path, smallest).length(),
            br.body.len()
        );
        for coding in ["dcb", "dcz"] {
            let only = get(
                path,
                &[
                    ("accept-encoding", coding),
                    ("available-dictionary", &field),
                ],
            );
            assert_delta(&only, path, coding, &old);
        }
    }
}

#[test]
fn conditionals_and_ranges_apply_to_the_delta() {
    let (_, field) = previous("/app.js");
    let fields = [
        ("accept-encoding", "dcz"),
        ("available-dictionary", field.as_str()),
    ];
    let stored = stored_delta("/app.js", "dcz");
    // RFC 9110 §13.1.2: its own ETag → 304, still varying on both fields.
    let mut with_tag = fields.to_vec();
    with_tag.push(("if-none-match", stored.etag));
    let not_modified = get("/app.js", &with_tag);
    assert_eq!(not_modified.status, 304);
    assert_eq!(
        not_modified.header("vary"),
        Some("accept-encoding, available-dictionary")
    );
    assert!(not_modified.body.is_empty());
    // RFC 9110 §14.2: a range of the delta's bytes (the representation selected).
    let mut ranged = fields.to_vec();
    ranged.push(("range", "bytes=0-7"));
    let partial = get("/app.js", &ranged);
    assert_eq!(partial.status, 206);
    assert_eq!(partial.header("content-encoding"), Some("dcz"));
    assert_eq!(
        partial.header("content-range"),
        Some(format!("bytes 0-7/{}", stored.length()).as_str())
    );
    assert_eq!(
        partial.body,
        [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00]
    );
}

#[test]
fn without_a_known_dictionary_the_file_is_negotiated_as_usual_and_varies_on_both_fields() {
    let (_, field) = previous("/app.js");
    let other = ":AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=:";
    let br_tag = get("/app.js", &[("accept-encoding", "br")])
        .header("etag")
        .unwrap()
        .to_string();
    for (what, fields) in [
        ("no Available-Dictionary", vec![("accept-encoding", CHROME)]),
        (
            "an unknown dictionary",
            vec![("accept-encoding", CHROME), ("available-dictionary", other)],
        ),
        (
            "a malformed field",
            vec![("accept-encoding", CHROME), ("available-dictionary", "abc")],
        ),
        (
            "no dictionary coding accepted",
            vec![
                ("accept-encoding", "gzip, br, zstd"),
                ("available-dictionary", &field),
            ],
        ),
        (
            "dictionary codings only through *",
            vec![
                ("accept-encoding", "br, *"),
                ("available-dictionary", &field),
            ],
        ),
    ] {
        let reply = get("/app.js", &fields);
        assert_eq!(reply.status, 200, "{what}");
        assert_eq!(reply.header("etag"), Some(br_tag.as_str()), "{what}");
        assert_eq!(
            reply.header("vary"),
            Some("accept-encoding, available-dictionary"),
            "{what}"
        );
    }
    // A resource without deltas varies on Accept-Encoding alone (the logo: the pages vary by
    // Accept too, for their Markdown twins).
    assert_eq!(
        get(
            "/logo.svg",
            &[
                ("accept-encoding", CHROME),
                ("available-dictionary", &field)
            ]
        )
        .header("vary"),
        Some("accept-encoding")
    );
}

#[test]
fn files_a_browser_holds_fresh_offer_themselves_as_dictionaries() {
    // RFC 9842 §2.1: referenced with ?v= (immutable when so requested): its own path; a name
    // with a verified hash: a pattern matching its other versions. HTML (no-cache): none.
    let stamp = support::site_files()
        .into_iter()
        .map(|(path, _)| path)
        .find(|p| p.starts_with("/assets/stamp."))
        .unwrap();
    for (path, expected) in [
        ("/app.js", Some("match=\"/app.js\"")),
        ("/style.css", Some("match=\"/style.css\"")),
        (stamp.as_str(), Some("match=\"/assets/stamp.*.js\"")),
        ("/", None),
        ("/images/icon.png", None),
    ] {
        let reply = get(path, &[("accept-encoding", "br")]);
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(reply.header("use-as-dictionary"), expected, "{path}");
    }
}

#[test]
fn an_earlier_deploys_fingerprinted_files_are_still_served_and_others_are_not() {
    // Skew protection: the history's previous deploy served /assets/stamp.bd43f8aebd.js (its
    // name carries its hash) and /retired.js (no hash); the current site has neither. A page
    // of that deploy still open in a browser loads the first; the second is gone.
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/demo-history/bodies"
    );
    let kept = get("/assets/stamp.bd43f8aebd.js", &[]);
    assert_eq!(kept.status, 200);
    assert_eq!(
        kept.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(
        kept.body,
        std::fs::read(format!(
            "{dir}/bd43f8aebd36e3729d6887e59cd3d6d421ed219f165c03fef742988c7091787f"
        ))
        .unwrap()
    );
    assert_eq!(get("/retired.js", &[]).status, 404);
}

/// The photo page's captions: a file named as people name files by hand.
const CAPTIONS: &str = "/styles/légendes (100% photos).css";
/// Its URL as a browser requests it (WHATWG URL's path percent-encode set; the page writes the
/// `%` as `%25`, as a URL must).
const CAPTIONS_URL: &str = "/styles/l%C3%A9gendes%20(100%25%20photos).css";

#[test]
fn a_file_named_with_an_accent_a_space_a_percent_sign_and_parentheses_is_a_dictionary_and_gets_a_delta(
) {
    // Every field is visible ASCII (under workerd a Headers value that is not would throw: a
    // 500 for every answer of the file), and the pattern is the URL a browser requests, its
    // URL-pattern characters escaped (`\(`, written `\\(` in the structured-field string).
    let reply = get(CAPTIONS_URL, &[("accept-encoding", "br")]);
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("use-as-dictionary"),
        Some(r#"match="/styles/l%C3%A9gendes%20\\(100%25%20photos\\).css""#)
    );
    for (name, value) in &reply.headers {
        assert!(
            value.bytes().all(|b| b == b' ' || b.is_ascii_graphic()),
            "{name}: {value:?}"
        );
    }
    // RFC 9842 §5.2: the delta against the last deploy's version, decoded by the reference
    // tool (a dcz stream is a zstd skippable frame holding the dictionary's hash, then a zstd
    // frame made with the dictionary).
    let (old, field) = previous(CAPTIONS);
    let delta = get(
        CAPTIONS_URL,
        &[("accept-encoding", "dcz"), ("available-dictionary", &field)],
    );
    assert_delta(&delta, CAPTIONS, "dcz", &old);
    let dir = tempfile::tempdir().unwrap();
    let (dictionary, body) = (dir.path().join("old.css"), dir.path().join("new.dcz"));
    std::fs::write(&dictionary, &old).unwrap();
    std::fs::write(&body, &delta.body).unwrap();
    let out = std::process::Command::new("zstd")
        .args(["-q", "-d", "-c", "-D"])
        .arg(&dictionary)
        .arg(&body)
        .output()
        .expect("the zstd CLI (make setup installs it)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, site_file(CAPTIONS));
}

#[test]
fn a_file_named_with_a_percent_sign_is_served_with_valid_fields() {
    let reply = get("/notes/100%25%20de%20caf%C3%A9.txt", &[]);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, site_file("/notes/100% de café.txt"));
    for (name, value) in &reply.headers {
        assert!(
            value.bytes().all(|b| b == b' ' || b.is_ascii_graphic()),
            "{name}: {value:?}"
        );
    }
}
