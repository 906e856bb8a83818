//! Image variants over HTTP, against every runtime: the AVIF and WebP forms the build made of
//! the demo's JPEGs and PNGs (crates/sitegen/src/images), negotiated by Accept (RFC 9110
//! §12.5.1, edgesite's rule in crates/core/src/media.rs). Covers:
//!
//! * the Accept fields browsers send for `<img>` (Chromium's, Firefox's `image.http.accept`
//!   default, Safari's), curl's `*/*`, no Accept, `image/webp` alone, `image/avif;q=0`, and a
//!   malformed field: each gets the representation the rule names, with its own Content-Type,
//!   strong ETag and length, its bytes as stored;
//! * `Vary: accept` on every response of an image with variants (200, 206, 304, 412), and
//!   `CDN-Cache-Control: private` (shared caches that ignore Vary never store one client's AVIF
//!   for another); neither on a page;
//! * per representation: If-None-Match → 304, If-Match with another's ETag → 412, a Range → 206
//!   of its own bytes, If-Range with another's ETag → the whole representation, HEAD;
//! * the lossless forms are pixel-identical to the file published (decoded here);
//! * an image is never offered as an RFC 9842 dictionary.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use edgesite_core::{Content, Representation};
use support::{request, server, site_file, Reply, Runtime};

const PHOTO: &str = "/images/coffee.jpg";
const SCREENSHOT: &str = "/images/screenshot.png";

/// Chromium's Accept for images (net/http, `kImageAcceptHeader` in Blink's loader).
const CHROMIUM: &str = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
/// Firefox's `image.http.accept` default.
const FIREFOX: &str = "image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5";
/// Safari 17's (WebKit's CachedResourceLoader on macOS 14).
const SAFARI: &str = "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5";
const NO_AVIF: &str = "image/avif;q=0,image/webp,image/apng,image/*,*/*;q=0.8";

/// The asset at `path` in the embedded tables (what the build made).
fn asset(path: &str) -> &'static edgesite_core::Asset<'static> {
    match &edgesite::SITE.route(path).expect("a route").target {
        edgesite_core::Target::Asset(asset) => asset,
        edgesite_core::Target::Redirect(_) => panic!("{path} is a redirect"),
    }
}

/// The stored representation of `path` in `content_type`: a variant's, or the file's own.
fn stored(path: &str, content_type: &str) -> &'static Representation<'static> {
    let asset = asset(path);
    if asset.content_type == content_type {
        return asset.identity();
    }
    &asset
        .variants
        .iter()
        .find(|v| v.content_type == content_type)
        .unwrap_or_else(|| panic!("{path} has no {content_type} variant"))
        .representation
}

fn bytes(r: &Representation<'static>) -> &'static [u8] {
    match r.content {
        Content::Bytes(bytes) => bytes,
        _ => panic!("the host build embeds its bytes"),
    }
}

/// The smallest of `path`'s representations among `types`.
fn smallest(path: &str, types: &[&'static str]) -> &'static str {
    types
        .iter()
        .copied()
        .min_by_key(|t| stored(path, t).length())
        .unwrap()
}

fn get(path: &str, fields: &[(&str, &str)]) -> Reply {
    request("GET", path, fields)
}

/// `reply` is `path`'s `content_type` representation, whole, with the fields of a resource with
/// variants.
fn assert_representation(reply: &Reply, path: &str, content_type: &str, what: &str) {
    let r = stored(path, content_type);
    assert_eq!(reply.status, 200, "{what}");
    assert_eq!(reply.header("content-type"), Some(content_type), "{what}");
    assert_eq!(reply.header("etag"), Some(r.etag), "{what}");
    assert_eq!(reply.body, bytes(r), "{what}");
    if server().runtime != Runtime::WranglerDev {
        assert_eq!(
            reply.header("content-length"),
            Some(r.content_length),
            "{what}"
        );
    }
    assert_eq!(reply.header("vary"), Some("accept"), "{what}");
    assert_eq!(reply.header("cdn-cache-control"), Some("private"), "{what}");
    // Never an RFC 9842 dictionary: a client would hold one of several representations.
    assert_eq!(reply.header("use-as-dictionary"), None, "{what}");
}

#[test]
fn the_demo_images_have_variants() {
    let photo = asset(PHOTO);
    let types: Vec<&str> = photo.variants.iter().map(|v| v.content_type).collect();
    assert_eq!(types, ["image/avif", "image/webp"], "{PHOTO}");
    for variant in photo.variants {
        assert!(variant.representation.length() < photo.identity().length());
    }
    // The screenshot's lossless WebP, and its re-encoded PNG (smaller than the file published).
    let screenshot = asset(SCREENSHOT);
    assert_eq!(screenshot.variants[0].content_type, "image/webp");
    assert!(screenshot.identity().length() < site_file_source(SCREENSHOT).len() as u64);
}

/// The file as published (before the image stage).
fn site_file_source(path: &str) -> Vec<u8> {
    std::fs::read(format!("{}{path}", env!("EDGESITE_SITE_DIR"))).unwrap()
}

#[test]
fn each_accept_gets_the_representation_it_names() {
    let all = ["image/jpeg", "image/avif", "image/webp"];
    let cases: [(Option<&str>, &str); 9] = [
        (Some(CHROMIUM), smallest(PHOTO, &all)),
        (Some(FIREFOX), smallest(PHOTO, &all)),
        (Some(SAFARI), smallest(PHOTO, &all)),
        // curl's default, and no Accept: what the author published.
        (Some("*/*"), "image/jpeg"),
        (None, "image/jpeg"),
        (Some("image/webp"), "image/webp"),
        (
            Some(NO_AVIF),
            smallest(PHOTO, &["image/jpeg", "image/webp"]),
        ),
        // Malformed (a weight above 1): ignored as a whole.
        (Some("image/avif;q=2,image/webp"), "image/jpeg"),
        (
            Some("image/avif;q=0.5, image/webp;q=0.4, */*;q=0.1"),
            "image/avif",
        ),
    ];
    for (accept, expected) in cases {
        let fields: Vec<(&str, &str)> = accept.map(|a| ("accept", a)).into_iter().collect();
        let reply = get(PHOTO, &fields);
        assert_representation(&reply, PHOTO, expected, &format!("Accept: {accept:?}"));
    }
    // What the bytes are: an AVIF (ISO BMFF `ftypavif`), a WebP (RIFF), a JPEG (SOI).
    let avif = get(PHOTO, &[("accept", "image/avif")]);
    assert_eq!(&avif.body[4..12], b"ftypavif");
    let webp = get(PHOTO, &[("accept", "image/webp")]);
    assert_eq!(
        (&webp.body[..4], &webp.body[8..12]),
        (&b"RIFF"[..], &b"WEBP"[..])
    );
    assert_eq!(get(PHOTO, &[]).body[..2], [0xff, 0xd8]);
}

#[test]
fn conditionals_and_ranges_apply_to_each_representation() {
    for (accept, content_type) in [
        ("image/avif", "image/avif"),
        ("image/webp", "image/webp"),
        ("*/*", "image/jpeg"),
    ] {
        let own = stored(PHOTO, content_type);
        let other = stored(
            PHOTO,
            if content_type == "image/jpeg" {
                "image/webp"
            } else {
                "image/jpeg"
            },
        );
        // RFC 9110 §13.1.2: the client's copy of this representation is current.
        let not_modified = get(PHOTO, &[("accept", accept), ("if-none-match", own.etag)]);
        assert_eq!(not_modified.status, 304, "{accept}");
        assert_eq!(not_modified.header("etag"), Some(own.etag), "{accept}");
        assert_eq!(not_modified.header("vary"), Some("accept"), "{accept}");
        assert!(not_modified.body.is_empty());
        // Another representation's ETag does not match this one.
        let changed = get(PHOTO, &[("accept", accept), ("if-none-match", other.etag)]);
        assert_representation(&changed, PHOTO, content_type, accept);
        // §13.1.1: If-Match with another representation's ETag fails.
        let failed = get(PHOTO, &[("accept", accept), ("if-match", other.etag)]);
        assert_eq!(failed.status, 412, "{accept}");
        assert_eq!(failed.header("vary"), Some("accept"), "{accept}");
        // §14.2: a range of this representation's bytes, under If-Range with its ETag.
        let range = get(
            PHOTO,
            &[
                ("accept", accept),
                ("range", "bytes=0-99"),
                ("if-range", own.etag),
            ],
        );
        assert_eq!(range.status, 206, "{accept}");
        assert_eq!(
            range.header("content-range"),
            Some(format!("bytes 0-99/{}", own.length()).as_str()),
            "{accept}"
        );
        assert_eq!(range.header("content-type"), Some(content_type), "{accept}");
        assert_eq!(range.body, bytes(own)[..100], "{accept}");
        // §13.1.5: If-Range naming another representation: the whole of this one.
        let whole = get(
            PHOTO,
            &[
                ("accept", accept),
                ("range", "bytes=0-99"),
                ("if-range", other.etag),
            ],
        );
        assert_representation(&whole, PHOTO, content_type, accept);
        // §9.3.2: HEAD has GET's fields.
        let head = request("HEAD", PHOTO, &[("accept", accept)]);
        assert_eq!(head.header("etag"), Some(own.etag), "{accept}");
        assert_eq!(head.header("content-type"), Some(content_type), "{accept}");
        assert_eq!(head.raw_body_len, 0, "{accept}");
    }
}

/// A page showing images with variants does not vary by them: it has no variants of its own,
/// answers an image Accept with its HTML, and its Vary is a page's (`/about`'s: Accept for its
/// Markdown twin alone).
#[test]
fn pages_do_not_vary_by_the_images_they_show() {
    assert!(asset("/photos").variants.is_empty());
    let page = get("/photos", &[("accept", CHROMIUM)]);
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    let plain = get("/about", &[("accept", CHROMIUM)]);
    assert_eq!(page.header("vary"), plain.header("vary"));
    assert_eq!(
        page.header("cdn-cache-control"),
        plain.header("cdn-cache-control")
    );
}

#[test]
fn lossless_forms_are_pixel_identical_to_the_file_published() {
    let published = image::load_from_memory(&site_file_source(SCREENSHOT))
        .unwrap()
        .to_rgba8();
    let png = get(SCREENSHOT, &[("accept", "*/*")]);
    assert_representation(&png, SCREENSHOT, "image/png", "the re-encoded PNG");
    assert_eq!(
        png.body,
        site_file(SCREENSHOT),
        "what the build wrote as served"
    );
    let webp = get(SCREENSHOT, &[("accept", CHROMIUM)]);
    assert_representation(&webp, SCREENSHOT, "image/webp", "Chromium");
    for (what, body) in [("png", &png.body), ("webp", &webp.body)] {
        let decoded = image::load_from_memory(body).unwrap().to_rgba8();
        assert!(decoded == published, "the {what} is not pixel-identical");
    }
}
