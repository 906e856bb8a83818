//! The fuzz targets' checks, shared by the libFuzzer binaries (`fuzz_targets/`) and the corpus
//! replay in `make test` (`tests/fuzz_corpus.rs` includes this file). Each target feeds
//! arbitrary bytes to a parser of edgesite-core and asserts its invariants; a panic is a crash.
#![allow(missing_docs, unreachable_pub)]

use edgesite_core::{
    canonical_path, choose, dictionary_hash, evaluate_range, named_quality, negotiate, normalize,
    parse_http_date, respond, select, AcceptEncoding, Action, Asset, Content, ContentCoding, Delta,
    IfMatch, IfNoneMatch, IfRange, Part, RangeRequest, Redirect, RedirectStatus, Representation,
    RequestHead, Route, Rule, RuleNode, Segment, Site, Target, Variant, LOCATION_CAPACITY,
    MAX_PATH_LEN, MAX_RANGE_SPECS, REQUEST_FIELDS,
};

/// Path normalisation: total; a key is canonical (starts with `/`, no empty, `.` or `..`
/// segment inside); the fast path agrees with it; a key is its own normalisation.
pub fn path(data: &[u8]) {
    let Ok(target) = std::str::from_utf8(data) else {
        return;
    };
    let mut buf = [0; MAX_PATH_LEN];
    let Ok(key) = normalize(target, &mut buf) else {
        assert!(canonical_path(target).is_none() || target.len() > MAX_PATH_LEN);
        return;
    };
    assert!(key.starts_with('/'), "{key:?}");
    let inner = key.trim_end_matches('/');
    for segment in inner.split('/').skip(1) {
        assert!(!matches!(segment, "" | "." | ".."), "{target:?} -> {key:?}");
    }
    if let Some(fast) = canonical_path(target) {
        assert_eq!(fast, key, "{target:?}");
    }
}

/// `data` without the optional whitespace around it (RFC 9110 §5.6.3: SP and HTAB only). CR, LF
/// and form feed are not OWS: a value with them is malformed (§5.5), not `*` or a hash.
fn trim_ows(data: &[u8]) -> &[u8] {
    let ows = |b: &u8| matches!(b, b' ' | b'\t');
    let start = data.iter().position(|b| !ows(b)).unwrap_or(data.len());
    let end = data.iter().rposition(|b| !ows(b)).map_or(start, |i| i + 1);
    &data[start..end]
}

/// If-Match and If-None-Match as the core evaluates them (one pass, validating and comparing):
/// total; both fields share one grammar, so a value is malformed for both or for neither; `*`
/// passes If-Match and fails If-None-Match; a strong match is a weak match, so If-Match passing
/// means If-None-Match fails. If-Range: total.
pub fn entity_tags(data: &[u8]) {
    for etag in ["\"a\"", "\"\"", "W/\"a\""] {
        let if_match = IfMatch::evaluate(data, etag);
        let if_none_match = IfNoneMatch::evaluate(data, etag);
        assert_eq!(if_match.is_some(), if_none_match.is_some(), "{data:?}");
        if if_match == Some(true) {
            assert_eq!(if_none_match, Some(false), "{data:?}");
        }
    }
    if trim_ows(data) == b"*" {
        assert_eq!(IfMatch::evaluate(data, "\"a\""), Some(true));
        assert_eq!(IfNoneMatch::evaluate(data, "\"a\""), Some(false));
    }
    if let Some(if_range) = IfRange::parse(data) {
        let _ = if_range.matches("\"a\"", 1_700_000_000);
    }
}

static BODY: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// The SHA-256 the fuzz asset's deltas name (RFC 9842): the bytes 0..32.
pub const DICTIONARY: [u8; 32] = {
    let mut hash = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        hash[i] = i as u8;
        i += 1;
    }
    hash
};

static ASSET: Asset<'static> = Asset {
    deltas: &[
        Delta {
            available_dictionary: ":AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=:",
            representation: Representation {
                coding: ContentCoding::Dcz,
                etag: "\"dz\"",
                content_length: "2",
                content: Content::Bytes(b"DZ"),
            },
        },
        Delta {
            available_dictionary: ":AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=:",
            representation: Representation {
                coding: ContentCoding::Dcb,
                etag: "\"db\"",
                content_length: "3",
                content: Content::Bytes(b"DB!"),
            },
        },
    ],
    content_type: "text/plain; charset=utf-8",
    last_modified: "Tue, 14 Nov 2023 22:13:20 GMT",
    last_modified_unix: 1_700_000_000,
    cache_control: "no-cache",
    fingerprint: "",
    fields: &[("x-extra", "1")],
    representations: &[
        Representation {
            coding: ContentCoding::Identity,
            etag: "\"id\"",
            content_length: "36",
            content: Content::Bytes(BODY),
        },
        Representation {
            coding: ContentCoding::Br,
            etag: "\"br\"",
            content_length: "4",
            content: Content::Bytes(b"BR!!"),
        },
        Representation {
            coding: ContentCoding::Zstd,
            etag: "\"zs\"",
            content_length: "5",
            content: Content::Bytes(b"ZSTD!"),
        },
        Representation {
            coding: ContentCoding::Gzip,
            etag: "\"gz\"",
            content_length: "6",
            content: Content::Bytes(b"GZIP!!"),
        },
    ],
    variants: &[],
    alternate: None,
};

/// Accept-Encoding: total; the choice is one of the stored representations, and a coding the
/// client gave weight 0 (explicitly) is never chosen.
pub fn accept_encoding(data: &[u8]) {
    let Some(chosen) = select(&ASSET, Some(data)) else {
        return;
    };
    assert!(ASSET
        .representations
        .iter()
        .any(|r| std::ptr::eq(r, chosen)));
    if !data.iter().all(|b| matches!(b, b' ' | b'\t')) {
        if let Some(accept) = AcceptEncoding::parse(data) {
            assert!(accept.quality(chosen.coding) > 0, "{:?}", chosen.coding);
        }
    }
}

/// Accept (RFC 9110 §12.5.1): total; a weight is at most 1000, and a type is named only by a
/// field that spells it (in any case); a navigation by Accept alone is one that names text/html.
pub fn accept(data: &[u8]) {
    let lower = data.to_ascii_lowercase();
    for media_type in ["image/avif", "image/webp", "text/html"] {
        if let Some(q) = named_quality(data, media_type) {
            assert!(q <= 1000, "{q}");
            assert!(
                lower
                    .windows(media_type.len())
                    .any(|w| w == media_type.as_bytes()),
                "{media_type} named by a field that does not spell it"
            );
        }
    }
    let mut head = RequestHead::new("GET", "/");
    head.set_field("accept", data);
    assert_eq!(
        head.is_navigation(),
        named_quality(data, "text/html").is_some_and(|q| q > 0)
    );
    // RFC 9110 §12.5.1 and edgesite's rule: a variant only for a client that names its type
    // with a weight above 0; the original for everyone else.
    let Some(chosen) = choose(&IMAGE, Some(data), None, None) else {
        panic!("no 406 for an image whose identity is acceptable");
    };
    let content_type = IMAGE.content_type_of(chosen);
    if content_type != "image/png" {
        assert!(
            named_quality(data, content_type).is_some_and(|q| q > 0),
            "{content_type} sent to a client that did not name it"
        );
    }
}

/// An image with an AVIF and a WebP variant (smaller than it).
static IMAGE: Asset<'static> = Asset {
    content_type: "image/png",
    last_modified: "Tue, 14 Nov 2023 22:13:20 GMT",
    last_modified_unix: 1_700_000_000,
    cache_control: "no-cache",
    fingerprint: "",
    fields: &[],
    representations: &[Representation {
        coding: ContentCoding::Identity,
        etag: "\"png\"",
        content_length: "6",
        content: Content::Bytes(b"PNG!!!"),
    }],
    deltas: &[],
    variants: &[
        Variant {
            content_type: "image/avif",
            representation: Representation {
                coding: ContentCoding::Identity,
                etag: "\"avif\"",
                content_length: "4",
                content: Content::Bytes(b"AVIF"),
            },
        },
        Variant {
            content_type: "image/webp",
            representation: Representation {
                coding: ContentCoding::Identity,
                etag: "\"webp\"",
                content_length: "5",
                content: Content::Bytes(b"WEBP!"),
            },
        },
    ],
    alternate: None,
};

/// Available-Dictionary (RFC 9842 §2.2) with a browser's Accept-Encoding: total; a value that
/// parses is 32 bytes that encode back to the characters sent (canonical base64, padding
/// optional); a delta is chosen exactly when the value names the deltas' dictionary, else an
/// ordinary representation (br, the smallest).
pub fn available_dictionary(data: &[u8]) {
    let hash = dictionary_hash(data);
    let chosen = negotiate(
        &ASSET,
        Some(b"gzip, deflate, br, zstd, dcb, dcz"),
        Some(data),
    )
    .expect("br, zstd and gzip are acceptable");
    if hash == Some(DICTIONARY) {
        assert_eq!(chosen.coding, ContentCoding::Dcz, "the smaller delta");
    } else {
        assert_eq!(chosen.coding, ContentCoding::Br, "{data:?}");
    }
    if let Some(hash) = hash {
        use base64::Engine as _;
        let encoded = base64::engine::general_purpose::STANDARD.encode(hash);
        let inner = trim_ows(data);
        let inner = &inner[1..inner.len() - 1];
        assert_eq!(
            inner.strip_suffix(b"=").unwrap_or(inner),
            encoded.trim_end_matches('=').as_bytes()
        );
    }
}

/// Range: total for any length; satisfiable ranges lie inside the representation, are at most
/// MAX_RANGE_SPECS, and each is non-empty.
pub fn range(data: &[u8]) {
    let (length, value) = match data.split_first() {
        Some((&n, rest)) => (u64::from(n) * 7, rest),
        None => (0, data),
    };
    if let RangeRequest::Satisfiable(set) = evaluate_range(value, length) {
        let ranges = set.as_slice();
        assert!(!ranges.is_empty() && ranges.len() <= MAX_RANGE_SPECS);
        for range in ranges {
            assert!(
                range.first <= range.last && range.last < length,
                "{range:?} of {length}"
            );
        }
    }
}

/// HTTP dates (all three formats of RFC 9110 §5.6.7): total, and a parsed date has a
/// four-digit year: at most 9999-12-31 23:59:60 (a leap second, which `make fuzz` found the
/// parser accepts, as the grammar's `second = 2DIGIT` allows), i.e. 10000-01-01T00:00:00.
pub fn http_date(data: &[u8]) {
    if let Some(seconds) = parse_http_date(data) {
        assert!(seconds <= 253_402_300_800, "{seconds}");
    }
}

/// The site `decide` fuzzes, its rules through a hand-written index.
pub static SITE: Site<'static> = Site {
    routes: &[
        Route {
            path: "/",
            target: Target::Asset(&ASSET),
        },
        Route {
            path: "/dir",
            target: Target::Redirect(Redirect {
                status: RedirectStatus::PermanentRedirect,
                location: "/dir/",
                query_at: Some(5),
            }),
        },
        Route {
            path: "/dir/",
            target: Target::Asset(&ASSET),
        },
    ],
    not_found: &[],
    fallback: Some(&ASSET),
    boundary: "BOUNDARY",
    multipart_content_type: "multipart/byteranges; boundary=BOUNDARY",
    fields: &[("x-content-type-options", "nosniff")],
    rules: &[
        Rule {
            pattern: &[Segment::Literal("r"), Segment::Placeholder],
            splat: true,
            action: Action::Redirect {
                status: RedirectStatus::Found,
                destination: &[
                    Part::Literal("https://x.example/"),
                    Part::Capture(0),
                    Part::Literal("?s="),
                    Part::QueryCapture(1),
                    Part::Literal("#f"),
                ],
                query_at: None,
            },
        },
        Rule {
            pattern: &[Segment::Literal("w")],
            splat: true,
            action: Action::Rewrite {
                destination: &[Part::Literal("/dir/"), Part::Capture(0)],
            },
        },
    ],
    // The rules through the index sitegen would build: root → r (rule 0), w (rule 1).
    rule_index: &[
        // Keys: edgesite_core::segment_key("w"), ("r"), ascending (the fuzz corpus replay
        // checks them against segment_key).
        RuleNode {
            keys: &[0xf20c_3f36, 0xf70c_4715],
            children: &[("w", 2), ("r", 1)],
            rules: &[],
        },
        RuleNode {
            keys: &[],
            children: &[],
            rules: &[0],
        },
        RuleNode {
            keys: &[],
            children: &[],
            rules: &[1],
        },
    ],
    fingerprinted_cache_control: "public, max-age=31536000, immutable",
    shared_caches: edgesite_core::SharedCaches::Private,
    store: "",
};

/// `respond` on an arbitrary request head (method, target and the nine fields, separated by
/// 0xFF bytes): total; the status is one edgesite sends; every field value is visible ASCII or
/// space; a Location fits; the body matches Content-Length (or is empty for HEAD).
pub fn decide(data: &[u8]) {
    let mut parts = data.split(|&b| b == 0xFF);
    let method = std::str::from_utf8(parts.next().unwrap_or_default()).unwrap_or("GET");
    let target = std::str::from_utf8(parts.next().unwrap_or_default()).unwrap_or("/");
    let mut head = RequestHead::new(method, target);
    for name in REQUEST_FIELDS {
        if let Some(value) = parts.next() {
            head.set_field(name, value);
        }
    }
    let response = respond(&SITE, &head);
    assert!(
        [200, 204, 206, 302, 304, 308, 400, 404, 405, 406, 412, 414, 416]
            .contains(&response.status),
        "{}",
        response.status
    );
    for (name, value) in response.fields.iter() {
        assert!(
            value.bytes().all(|b| b.is_ascii_graphic() || b == b' '),
            "{name}: {:?}",
            &*value
        );
        if name == "location" {
            assert!(value.len() <= LOCATION_CAPACITY);
        }
    }
    if let Some(length) = response.field("content-length") {
        let length: u64 = length.parse().expect("a decimal Content-Length");
        assert!(response.body.len() == length || (method == "HEAD" && response.body.is_empty()));
    }
}

/// `_headers` as sitegen parses and applies it (`edgesite_sitegen::fuzzing`): errors name a
/// line, bounded and escaped; what applies stays within the field table and the field check.
pub fn headers_file(data: &[u8]) {
    edgesite_sitegen::fuzzing::headers_file(&String::from_utf8_lossy(data));
}

/// `_redirects` as sitegen parses it: errors name a line, bounded and escaped; no accepted
/// redirect leads off-site by a path browsers read as another host.
pub fn redirects_file(data: &[u8]) {
    edgesite_sitegen::fuzzing::redirects_file(&String::from_utf8_lossy(data));
}

/// The link pass's HTML scanner: spans in order, apart, on character boundaries; rewriting
/// every verbatim reference changes no byte outside the spans.
pub fn html_references(data: &[u8]) {
    edgesite_sitegen::fuzzing::html_references(&String::from_utf8_lossy(data));
}

/// The link pass's CSS scanner, with the same properties.
pub fn css_references(data: &[u8]) {
    edgesite_sitegen::fuzzing::css_references(&String::from_utf8_lossy(data));
}
