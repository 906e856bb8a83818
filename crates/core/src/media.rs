//! The media type a resource is sent in: its own, or one of its [`Variant`]s (an image's AVIF
//! or WebP form made at build time), chosen by Accept (RFC 9110 §12.5.1); then the content coding
//! (§12.5.3, [`negotiate`](crate::negotiate)).
//!
//! The rules edgesite applies:
//! - a variant is a candidate only for a request whose Accept names its type explicitly with a
//!   weight above 0 (`image/avif`, not `image/*` or `*/*`): a client that names no format gets
//!   what the author published, as curl's `*/*` does;
//! - the resource's own representation (as Accept-Encoding chooses it) weighs what the most
//!   specific matching range gives its type (0 when none does: a client that lists only
//!   `image/webp` gets the WebP);
//! - the highest weight wins, then the fewest bytes, then the resource's own;
//! - variants are stored in the identity coding: a request whose Accept-Encoding refuses
//!   identity gets the resource's own;
//! - no Accept, or a malformed one (ignored as a whole): the resource's own.
//!
//! Every response of a resource with variants carries `Vary: accept` ([`Asset::vary`]).

use crate::accept::{known_names, weigh};
use crate::coding::ContentCoding;
use crate::negotiate::{negotiate_parsed, parsed};
use crate::site::{Asset, Representation};

/// The representation of `asset` to send, or `None` for 406 (see the module's rules):
/// [`negotiate`](crate::negotiate) over its own representations, then its variants weighed by `accept` (the raw
/// field values, as the request carried them). Allocates nothing.
///
/// ```
/// # use edgesite_core::{choose, Asset, Content, ContentCoding, Representation, Variant};
/// # static AVIF: [Variant<'static>; 1] = [Variant { content_type: "image/avif",
/// #     representation: Representation { coding: ContentCoding::Identity, etag: "\"a\"",
/// #     content_length: "1", content: Content::Bytes(b"a") } }];
/// # static PNG: [Representation<'static>; 1] = [Representation { coding: ContentCoding::Identity,
/// #     etag: "\"p\"", content_length: "3", content: Content::Bytes(b"png") }];
/// # static IMAGE: Asset<'static> = Asset { content_type: "image/png", last_modified: "",
/// #     last_modified_unix: 0, cache_control: "no-cache", fingerprint: "", fields: &[],
/// #     representations: &PNG, deltas: &[], variants: &AVIF, alternate: None };
/// let chromium = b"image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
/// let chosen = |accept: Option<&[u8]>| IMAGE.content_type_of(choose(&IMAGE, accept, None, None).unwrap());
/// assert_eq!(chosen(Some(chromium)), "image/avif");
/// assert_eq!(chosen(Some(b"*/*")), "image/png");
/// assert_eq!(chosen(Some(b"image/avif;q=0, image/*")), "image/png");
/// assert_eq!(chosen(None), "image/png");
/// ```
pub fn choose<'a>(
    asset: &'a Asset<'a>,
    accept: Option<&[u8]>,
    accept_encoding: Option<&[u8]>,
    available_dictionary: Option<&[u8]>,
) -> Option<&'a Representation<'a>> {
    let accept_encoding = parsed(accept_encoding);
    let own = negotiate_parsed(asset, accept_encoding.as_ref(), available_dictionary)?;
    if asset.variants.is_empty() {
        return Some(own);
    }
    let weights = accept.and_then(|value| weigh(value, asset.content_type, asset.variants, ""));
    let Some(weights) = weights else {
        return Some(own);
    };
    let mut best = (own, weights.own);
    for (variant, weight) in asset.variants.iter().zip(weights.variants) {
        let Some(weight) = weight.filter(|&w| w > 0) else {
            continue;
        };
        let smaller = variant.representation.length() < best.0.length();
        if weight > best.1 || (weight == best.1 && smaller) {
            best = (&variant.representation, weight);
        }
    }
    // Absent, empty or malformed Accept-Encoding: identity only, which a variant is.
    let identity = accept_encoding.is_none_or(|ae| ae.quality(ContentCoding::Identity) > 0);
    if !core::ptr::eq(best.0, own) && !identity {
        return Some(own);
    }
    Some(best.0)
}

/// Whether the Accept field `accept` (the raw value) asks for `asset`'s
/// [`alternate`](Asset::alternate) (a page's Markdown twin) rather than the resource itself: it
/// names the alternate's type explicitly (`text/markdown`, not `text/*` or `*/*`) with a weight
/// above 0, and above the weight the most specific range matching the resource's own type gives
/// it (0 when none does: `Accept: text/markdown` alone). Equal weights keep the resource's own,
/// so a client that names both alike gets the page, and a browser's navigation Accept, which
/// never names `text/markdown`, always does. No Accept, or a malformed one (ignored as a whole,
/// RFC 9110 §12.5.1): the resource's own. Allocates nothing.
///
/// ```
/// # use edgesite_core::{prefers_alternate, Asset, Content, ContentCoding, Representation};
/// # static R: [Representation<'static>; 1] = [Representation { coding: ContentCoding::Identity,
/// #     etag: "\"e\"", content_length: "0", content: Content::Bytes(b"") }];
/// # static TWIN: Asset<'static> = Asset { content_type: "text/markdown; charset=utf-8",
/// #     last_modified: "", last_modified_unix: 0, cache_control: "no-cache", fingerprint: "",
/// #     fields: &[], representations: &R, deltas: &[], variants: &[], alternate: None };
/// # static PAGE: Asset<'static> = Asset { content_type: "text/html; charset=utf-8",
/// #     last_modified: "", last_modified_unix: 0, cache_control: "no-cache", fingerprint: "",
/// #     fields: &[], representations: &R, deltas: &[], variants: &[], alternate: Some(&TWIN) };
/// let markdown = |accept: &[u8]| prefers_alternate(&PAGE, Some(accept));
/// assert!(markdown(b"text/markdown"));
/// assert!(markdown(b"text/markdown, text/html;q=0.9, */*;q=0.8"));
/// assert!(!markdown(b"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"));
/// assert!(!markdown(b"text/markdown, text/html")); // a tie: the page
/// assert!(!markdown(b"text/*")); // names no type
/// assert!(!markdown(b"text/markdown;q=0"));
/// assert!(!markdown(b"text/markdown;q=2")); // malformed: ignored
/// ```
pub fn prefers_alternate(asset: &Asset<'_>, accept: Option<&[u8]>) -> bool {
    let (Some(alternate), Some(accept)) = (asset.alternate, accept) else {
        return false;
    };
    // A browser's Accept, recognised, never names the alternate: not weighed.
    if known_names(accept, alternate.content_type) == Some(false) {
        return false;
    }
    match weigh(accept, asset.content_type, &[], alternate.content_type) {
        Some(weights) => weights.alternate.is_some_and(|w| w > weights.own),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::{Content, Route, Site, Target, Variant};
    use crate::{respond, Body, RequestHead, Response};
    use proptest::prelude::*;
    use std::string::{String, ToString};
    use std::vec::Vec;

    const AVIF: &[u8] = b"AVIF-bytes";
    const WEBP: &[u8] = b"WEBP-bytes-longer";
    const PNG: &[u8] = b"PNG-bytes-the-longest-of-all";

    static IMAGE: Asset<'static> = Asset {
        content_type: "image/png",
        last_modified: "Tue, 14 Nov 2023 22:13:20 GMT",
        last_modified_unix: 1_700_000_000,
        cache_control: "no-cache",
        fingerprint: "0123456789",
        fields: &[("cdn-cache-control", "private")],
        representations: &[Representation {
            coding: ContentCoding::Identity,
            etag: "\"png\"",
            content_length: "28",
            content: Content::Bytes(PNG),
        }],
        deltas: &[],
        variants: &[
            Variant {
                content_type: "image/avif",
                representation: Representation {
                    coding: ContentCoding::Identity,
                    etag: "\"avif\"",
                    content_length: "10",
                    content: Content::Bytes(AVIF),
                },
            },
            Variant {
                content_type: "image/webp",
                representation: Representation {
                    coding: ContentCoding::Identity,
                    etag: "\"webp\"",
                    content_length: "17",
                    content: Content::Bytes(WEBP),
                },
            },
        ],
        alternate: None,
    };

    static SITE: Site<'static> = Site {
        routes: &[Route {
            path: "/photo.png",
            target: Target::Asset(&IMAGE),
        }],
        ..Site::EMPTY
    };

    /// What browsers send for `<img>` (Chromium's network stack, Firefox's `image.http.accept`,
    /// WebKit's CachedResourceLoader), and curl's default.
    const CHROMIUM: &str = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
    const FIREFOX: &str = "image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5";
    const SAFARI: &str = "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5";

    fn chosen(accept: Option<&str>, accept_encoding: Option<&str>) -> Option<&'static str> {
        let r = choose(
            &IMAGE,
            accept.map(str::as_bytes),
            accept_encoding.map(str::as_bytes),
            None,
        )?;
        Some(IMAGE.content_type_of(r))
    }

    fn get(fields: &[(&str, &'static str)]) -> Response<'static> {
        let mut head = RequestHead::new("GET", "/photo.png");
        for (name, value) in fields {
            head.set_field(name, value.as_bytes());
        }
        respond(&SITE, &head)
    }

    fn field(response: &Response<'_>, name: &str) -> Option<String> {
        response.field(name).map(|v| v.to_string())
    }

    /// RFC 9110 §12.5.1: the variant a client names, the smallest among equal weights.
    #[test]
    fn browsers_get_the_smallest_format_they_name() {
        assert_eq!(chosen(Some(CHROMIUM), None), Some("image/avif"));
        // Firefox names image/png too, at the same weight: still the smallest.
        assert_eq!(chosen(Some(FIREFOX), None), Some("image/avif"));
        assert_eq!(chosen(Some(SAFARI), None), Some("image/avif"));
        assert_eq!(chosen(Some("image/webp"), None), Some("image/webp"));
        assert_eq!(chosen(Some("image/webp,*/*"), None), Some("image/webp"));
    }

    /// A client that names no format gets what the author published.
    #[test]
    fn wildcards_absent_and_malformed_fields_get_the_original() {
        for accept in [
            Some("*/*"),
            Some("image/*"),
            None,
            Some(""),
            Some("image/avif;q=2"),
        ] {
            assert_eq!(chosen(accept, None), Some("image/png"), "{accept:?}");
        }
        // A range with a parameter names a narrower type.
        assert_eq!(chosen(Some("image/avif;level=1"), None), Some("image/png"));
    }

    /// q=0 refuses a type (§12.5.1); the highest weight wins before size.
    #[test]
    fn weights_are_honoured() {
        let no_avif = "image/avif;q=0,image/webp,image/*,*/*;q=0.8";
        assert_eq!(chosen(Some(no_avif), None), Some("image/webp"));
        assert_eq!(
            chosen(Some("image/avif;q=0, image/webp;q=0"), None),
            Some("image/png")
        );
        // PNG (by name) over a WebP weighted lower.
        assert_eq!(
            chosen(Some("image/webp;q=0.5, image/png"), None),
            Some("image/png")
        );
        // image/* is less specific than image/png, and weighs less than the WebP.
        let more_webp = "image/webp;q=0.9, image/*;q=0.5, image/png;q=0.1";
        assert_eq!(chosen(Some(more_webp), None), Some("image/webp"));
        assert_eq!(
            chosen(Some("image/avif;q=0.5, image/*;q=0.4"), None),
            Some("image/avif")
        );
        // Equal weights: the smallest; the original only when nothing smaller is named.
        assert_eq!(
            chosen(Some("image/png, image/webp"), None),
            Some("image/webp")
        );
    }

    /// Variants are identity-coded: Accept-Encoding that refuses identity cannot get them.
    #[test]
    fn a_client_refusing_identity_gets_no_variant() {
        assert_eq!(chosen(Some(CHROMIUM), Some("br")), Some("image/avif"));
        assert_eq!(
            chosen(Some(CHROMIUM), Some("gzip, deflate, br, zstd")),
            Some("image/avif")
        );
        // The original is identity-only too: 406 (§12.5.3).
        assert_eq!(chosen(Some(CHROMIUM), Some("br, identity;q=0")), None);
    }

    /// The variant's Content-Type, length and ETag; Vary: accept on every response of the
    /// resource (§12.5.5), 304, 412 and 416 included; the resource's own fields on each.
    #[test]
    fn a_variant_is_a_representation_like_any_other() {
        let ok = get(&[("accept", CHROMIUM)]);
        assert_eq!(ok.status, 200);
        assert_eq!(field(&ok, "content-type").as_deref(), Some("image/avif"));
        assert_eq!(field(&ok, "content-length").as_deref(), Some("10"));
        assert_eq!(field(&ok, "etag").as_deref(), Some("\"avif\""));
        assert_eq!(field(&ok, "vary").as_deref(), Some("accept"));
        assert_eq!(field(&ok, "cdn-cache-control").as_deref(), Some("private"));
        assert!(matches!(ok.body, Body::Bytes(AVIF)));
        let plain = get(&[("accept", "*/*")]);
        assert_eq!(field(&plain, "content-type").as_deref(), Some("image/png"));
        assert_eq!(field(&plain, "etag").as_deref(), Some("\"png\""));
        assert_eq!(field(&plain, "vary").as_deref(), Some("accept"));
        // §13.1.2: If-None-Match against the variant's own ETag.
        let not_modified = get(&[("accept", CHROMIUM), ("if-none-match", "\"avif\"")]);
        assert_eq!(not_modified.status, 304);
        assert_eq!(field(&not_modified, "etag").as_deref(), Some("\"avif\""));
        assert_eq!(field(&not_modified, "vary").as_deref(), Some("accept"));
        // The PNG's ETag does not match the AVIF a Chromium would get.
        let other = get(&[("accept", CHROMIUM), ("if-none-match", "\"png\"")]);
        assert_eq!(other.status, 200);
        // §13.1.1: If-Match with the PNG's ETag fails for the AVIF.
        let failed = get(&[("accept", CHROMIUM), ("if-match", "\"png\"")]);
        assert_eq!(failed.status, 412);
        assert_eq!(field(&failed, "vary").as_deref(), Some("accept"));
        // §14.2: a range of the variant's bytes; If-Range with its ETag.
        let range = get(&[
            ("accept", CHROMIUM),
            ("range", "bytes=0-3"),
            ("if-range", "\"avif\""),
        ]);
        assert_eq!(range.status, 206);
        assert_eq!(
            field(&range, "content-range").as_deref(),
            Some("bytes 0-3/10")
        );
        assert_eq!(field(&range, "content-type").as_deref(), Some("image/avif"));
        assert!(matches!(range.body, Body::Bytes(b"AVIF")));
        // If-Range with another representation's ETag: the whole variant.
        let whole = get(&[
            ("accept", CHROMIUM),
            ("range", "bytes=0-3"),
            ("if-range", "\"png\""),
        ]);
        assert_eq!(whole.status, 200);
        let unsatisfiable = get(&[("accept", "image/webp"), ("range", "bytes=17-")]);
        assert_eq!(unsatisfiable.status, 416);
        assert_eq!(
            field(&unsatisfiable, "content-range").as_deref(),
            Some("bytes */17")
        );
        assert_eq!(field(&unsatisfiable, "vary").as_deref(), Some("accept"));
        let head = respond(&SITE, &{
            let mut head = RequestHead::new("HEAD", "/photo.png");
            head.set_field("accept", b"image/webp");
            head
        });
        assert_eq!(field(&head, "content-length").as_deref(), Some("17"));
        assert!(matches!(head.body, Body::Empty));
    }

    /// A multipart/byteranges part names the variant's type (RFC 9110 §14.6).
    #[test]
    fn multipart_parts_carry_the_variants_type() {
        let response = get(&[("accept", "image/webp"), ("range", "bytes=0-1,4-5")]);
        assert_eq!(response.status, 206);
        let Body::Multipart(multipart) = response.body else {
            panic!("{:?}", response.body);
        };
        assert_eq!(multipart.content_type, "image/webp");
    }

    #[test]
    fn vary_names_what_chooses() {
        assert_eq!(IMAGE.vary(), Some("accept"));
        static BOTH: Asset<'static> = Asset {
            representations: &[
                Representation {
                    coding: ContentCoding::Identity,
                    etag: "\"i\"",
                    content_length: "28",
                    content: Content::Bytes(PNG),
                },
                Representation {
                    coding: ContentCoding::Br,
                    etag: "\"b\"",
                    content_length: "3",
                    content: Content::Bytes(b"br!"),
                },
            ],
            ..IMAGE
        };
        assert_eq!(BOTH.vary(), Some("accept, accept-encoding"));
    }

    proptest! {
        /// Whatever Accept says, a variant goes only to a client that names its type with a
        /// weight above 0, and nothing panics.
        #[test]
        fn a_variant_only_when_named(ranges in prop::collection::vec(
            (prop::sample::select(&["image/avif", "image/webp", "image/png", "image/*", "*/*", "text/html"][..]),
             prop::option::of(0u16..=1000)), 0..6)) {
            let field: Vec<String> = ranges.iter().map(|(kind, q)| match q {
                Some(q) => std::format!("{kind};q={}.{:03}", q / 1000, q % 1000),
                None => kind.to_string(),
            }).collect();
            let field = field.join(", ");
            let content_type = chosen(Some(&field), None).unwrap();
            if content_type != "image/png" {
                prop_assert!(crate::named_quality(field.as_bytes(), content_type).is_some_and(|q| q > 0), "{}", field);
            }
        }
    }
}

/// A page with a Markdown twin as its [`Asset::alternate`] (issue 35): the twin at the page's
/// URL only for a client that weighs `text/markdown` above `text/html`; every answer at the
/// page's URL varies by Accept and is kept from shared caches that may ignore it.
#[cfg(test)]
mod alternates {
    use crate::site::{Content, Route, SharedCaches, Site, Target};
    use crate::{respond, Asset, Body, ContentCoding, Representation, RequestHead, Response};
    use std::string::{String, ToString};

    const fn identity_and_br<'a>(
        tags: [&'a str; 2],
        bytes: [&'a [u8]; 2],
        lengths: [&'a str; 2],
    ) -> [Representation<'a>; 2] {
        [
            Representation {
                coding: ContentCoding::Identity,
                etag: tags[0],
                content_length: lengths[0],
                content: Content::Bytes(bytes[0]),
            },
            Representation {
                coding: ContentCoding::Br,
                etag: tags[1],
                content_length: lengths[1],
                content: Content::Bytes(bytes[1]),
            },
        ]
    }

    static TWIN_REPRESENTATIONS: [Representation<'static>; 2] =
        identity_and_br(["\"md\"", "\"md-br\""], [b"# Guide\n", b"br"], ["8", "2"]);
    static PAGE_REPRESENTATIONS: [Representation<'static>; 2] = identity_and_br(
        ["\"html\"", "\"html-br\""],
        [b"<h1>Guide</h1>", b"BR"],
        ["14", "2"],
    );

    static TWIN: Asset<'static> = Asset {
        content_type: "text/markdown; charset=utf-8",
        last_modified: "Tue, 14 Nov 2023 22:13:20 GMT",
        last_modified_unix: 1_700_000_000,
        cache_control: "no-cache",
        fingerprint: "",
        fields: &[("x-markdown-tokens", "2")],
        representations: &TWIN_REPRESENTATIONS,
        deltas: &[],
        variants: &[],
        alternate: None,
    };

    static PAGE: Asset<'static> = Asset {
        content_type: "text/html; charset=utf-8",
        fields: &[(
            "link",
            "</guide.md>; rel=\"alternate\"; type=\"text/markdown\"",
        )],
        representations: &PAGE_REPRESENTATIONS,
        alternate: Some(&TWIN),
        ..TWIN
    };

    static ROUTES: [Route<'static>; 2] = [
        Route {
            path: "/guide",
            target: Target::Asset(&PAGE),
        },
        Route {
            path: "/guide.md",
            target: Target::Asset(&TWIN),
        },
    ];

    static SITE: Site<'static> = Site {
        routes: &ROUTES,
        ..Site::EMPTY
    };

    static APP: Site<'static> = Site {
        routes: &ROUTES,
        fallback: Some(&PAGE),
        ..Site::EMPTY
    };

    static TRUSTING: Site<'static> = Site {
        routes: &ROUTES,
        shared_caches: SharedCaches::Vary,
        ..Site::EMPTY
    };

    /// What browsers send for a navigation (a speculation rule's prefetch too), and curl's.
    const NAVIGATIONS: [&str; 3] = [
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        "*/*",
    ];

    fn request(
        site: &'static Site<'static>,
        method: &str,
        path: &str,
        fields: &[(&str, &'static str)],
    ) -> Response<'static> {
        let mut head = RequestHead::new(method, path);
        for (name, value) in fields {
            head.set_field(name, value.as_bytes());
        }
        respond(site, &head)
    }

    fn get(fields: &[(&str, &'static str)]) -> Response<'static> {
        request(&SITE, "GET", "/guide", fields)
    }

    fn field(response: &Response<'_>, name: &str) -> Option<String> {
        response.field(name).map(|v| v.to_string())
    }

    fn content_type(response: &Response<'_>) -> String {
        field(response, "content-type").unwrap_or_default()
    }

    /// RFC 9110 §12.5.1: browsers, curl, no Accept and a malformed one get the page.
    #[test]
    fn browsers_and_clients_naming_no_markdown_get_the_page() {
        for accept in NAVIGATIONS
            .iter()
            .map(|a| Some(*a))
            .chain([None, Some("text/markdown;q=2")])
        {
            let fields: &[(&str, &'static str)] = match accept {
                Some(accept) => &[("accept", accept)][..],
                None => &[],
            };
            let response = get(fields);
            assert_eq!(response.status, 200, "{accept:?}");
            assert_eq!(
                content_type(&response),
                "text/html; charset=utf-8",
                "{accept:?}"
            );
            assert_eq!(field(&response, "etag").as_deref(), Some("\"html\""));
            assert_eq!(
                field(&response, "vary").as_deref(),
                Some("accept, accept-encoding")
            );
            assert_eq!(
                field(&response, "cdn-cache-control").as_deref(),
                Some("private")
            );
            assert!(field(&response, "link").is_some());
        }
    }

    /// The twin for `text/markdown` named above `text/html`, or alone; never for a tie, a
    /// wildcard or q=0.
    #[test]
    fn markdown_named_above_html_gets_the_twin() {
        let twin = [
            "text/markdown",
            "Text/Markdown",
            "text/markdown, text/html;q=0.9, */*;q=0.8",
            "text/html;q=0.5, text/markdown",
            "text/markdown;q=0.2, */*;q=0.1",
        ];
        let page = [
            "text/markdown, text/html",
            "text/html, text/markdown",
            "text/*",
            "text/markdown;q=0",
            "text/markdown;q=0, */*",
            "text/markdown;q=0.5, text/html;q=0.5",
            "text/markdown;q=0.5, text/*",
        ];
        for accept in twin {
            let response = get(&[("accept", accept)]);
            assert_eq!(
                content_type(&response),
                "text/markdown; charset=utf-8",
                "{accept}"
            );
            assert_eq!(
                field(&response, "etag").as_deref(),
                Some("\"md\""),
                "{accept}"
            );
            assert_eq!(field(&response, "x-markdown-tokens").as_deref(), Some("2"));
            // The twin's own fields: not the page's Link.
            assert_eq!(field(&response, "link"), None);
            assert!(matches!(response.body, Body::Bytes(b"# Guide\n")));
        }
        for accept in page {
            let response = get(&[("accept", accept)]);
            assert_eq!(
                content_type(&response),
                "text/html; charset=utf-8",
                "{accept}"
            );
        }
    }

    /// The twin is a resource like any other at the page's URL: its codings by
    /// Accept-Encoding, its ETags for 304, 412 and If-Range, its ranges; Vary and the shared
    /// caches' rule on each answer (§12.5.5).
    #[test]
    fn the_twin_at_the_pages_url_is_negotiated_like_any_representation() {
        const MD: &str = "text/markdown";
        let br = get(&[("accept", MD), ("accept-encoding", "br, gzip")]);
        assert_eq!(field(&br, "content-encoding").as_deref(), Some("br"));
        assert_eq!(field(&br, "etag").as_deref(), Some("\"md-br\""));
        assert_eq!(
            field(&br, "vary").as_deref(),
            Some("accept, accept-encoding")
        );
        // §13.1.2: the twin's ETag matches for the twin only.
        let not_modified = get(&[("accept", MD), ("if-none-match", "\"md\"")]);
        assert_eq!(not_modified.status, 304);
        assert_eq!(
            field(&not_modified, "vary").as_deref(),
            Some("accept, accept-encoding")
        );
        assert_eq!(
            field(&not_modified, "cdn-cache-control").as_deref(),
            Some("private")
        );
        assert_eq!(get(&[("if-none-match", "\"md\"")]).status, 200);
        assert_eq!(
            get(&[("accept", MD), ("if-none-match", "\"html\"")]).status,
            200
        );
        // §13.1.1: If-Match with the page's ETag fails for the twin.
        let failed = get(&[("accept", MD), ("if-match", "\"html\"")]);
        assert_eq!(failed.status, 412);
        assert_eq!(
            field(&failed, "vary").as_deref(),
            Some("accept, accept-encoding")
        );
        // §14.2, §13.1.5: the twin's bytes, If-Range with its ETag.
        let range = get(&[
            ("accept", MD),
            ("range", "bytes=2-6"),
            ("if-range", "\"md\""),
        ]);
        assert_eq!(range.status, 206);
        assert_eq!(
            field(&range, "content-range").as_deref(),
            Some("bytes 2-6/8")
        );
        assert!(matches!(range.body, Body::Bytes(b"Guide")));
        let whole = get(&[
            ("accept", MD),
            ("range", "bytes=2-6"),
            ("if-range", "\"html\""),
        ]);
        assert_eq!(whole.status, 200);
        let unsatisfiable = get(&[("accept", MD), ("range", "bytes=8-")]);
        assert_eq!(unsatisfiable.status, 416);
        assert_eq!(
            field(&unsatisfiable, "content-range").as_deref(),
            Some("bytes */8")
        );
        assert_eq!(
            field(&unsatisfiable, "vary").as_deref(),
            Some("accept, accept-encoding")
        );
        // §9.3.2: HEAD has GET's fields.
        let head = request(&SITE, "HEAD", "/guide", &[("accept", MD)]);
        assert_eq!(field(&head, "content-length").as_deref(), Some("8"));
        assert_eq!(content_type(&head), "text/markdown; charset=utf-8");
        assert!(matches!(head.body, Body::Empty));
        // §12.5.3: nothing Accept-Encoding accepts: 406, naming what chose.
        let refused = get(&[("accept", MD), ("accept-encoding", "gzip, identity;q=0")]);
        assert_eq!(refused.status, 406);
        assert_eq!(
            field(&refused, "vary").as_deref(),
            Some("accept, accept-encoding")
        );
    }

    /// The SPA fallback's page, answering a navigation to a path not its own, is never its twin
    /// (whose front matter names the page's URL); Markdown alone is no navigation: a 404.
    #[test]
    fn the_fallbacks_page_is_never_its_twin() {
        let agent = "text/markdown, text/html;q=0.9";
        for fields in [
            &[("accept", agent)][..],
            &[("accept", agent), ("sec-fetch-mode", "navigate")][..],
        ] {
            let app = request(&APP, "GET", "/app/users/42", fields);
            assert_eq!(app.status, 200, "{fields:?}");
            assert_eq!(content_type(&app), "text/html; charset=utf-8", "{fields:?}");
        }
        let markdown = request(&APP, "GET", "/app/users/42", &[("accept", "text/markdown")]);
        assert_eq!(markdown.status, 404);
        // At its own URL the page still has its twin.
        let own = request(&APP, "GET", "/guide", &[("accept", agent)]);
        assert_eq!(content_type(&own), "text/markdown; charset=utf-8");
    }

    /// At its own URL the twin varies by Accept-Encoding only, and shared caches may keep it;
    /// a site that trusts shared caches with Vary (`SharedCaches::Vary`) gets no
    /// `CDN-Cache-Control: private` at the page's URL either.
    #[test]
    fn the_twins_own_url_and_trusted_shared_caches() {
        let own = request(&SITE, "GET", "/guide.md", &[("accept", NAVIGATIONS[0])]);
        assert_eq!(content_type(&own), "text/markdown; charset=utf-8");
        assert_eq!(field(&own, "vary").as_deref(), Some("accept-encoding"));
        assert_eq!(field(&own, "cdn-cache-control"), None);
        for accept in ["text/markdown", NAVIGATIONS[1]] {
            let trusted = request(&TRUSTING, "GET", "/guide", &[("accept", accept)]);
            assert_eq!(
                field(&trusted, "vary").as_deref(),
                Some("accept, accept-encoding")
            );
            assert_eq!(field(&trusted, "cdn-cache-control"), None);
        }
    }
}
