//! Round trips of a site with every kind of table, and corrupt tables refused without a panic.

use super::*;
use edgesite_core::{
    Action, Asset, Content, ContentCoding, Delta, NotFoundPage, ObjectLength, Part, Redirect,
    RedirectStatus, Representation, Route, Rule, RuleNode, Segment, SharedCaches, Site, Store,
    Target, Variant,
};

fn leak<T>(items: Vec<T>) -> &'static [T] {
    Box::leak(items.into_boxed_slice())
}

/// A brotli representation with `content` (its id `id`), its Content-Length its length.
fn representation(id: u32, content: Content<'static>) -> Representation<'static> {
    let mut r = Representation {
        coding: ContentCoding::Br,
        etag: "\"tag\"",
        content_length: "",
        content: match content {
            Content::External {
                blob,
                offset,
                length,
                ..
            } => Content::External {
                id,
                blob,
                offset,
                length,
            },
            other => other,
        },
    };
    r.content_length = Box::leak(r.length().to_string().into_boxed_str());
    r
}

/// Two assets: a page with every kind of content, deltas, variants and fields, and a
/// stylesheet sharing one of its representations' slices.
/// Every kind of content.
fn representations() -> &'static [Representation<'static>] {
    leak(vec![
        representation(
            0,
            Content::External {
                id: 0,
                blob: 1,
                offset: 2,
                length: 3,
            },
        ),
        Representation {
            coding: ContentCoding::Identity,
            etag: "\"AAECAwQFBgcICQoLDA0ODw\"",
            // Past 4 GiB (R2 keeps such objects): both halves of its length.
            content_length: "5368709125",
            content: Content::Stored {
                id: 1,
                store: Store::R2,
                length: ObjectLength::new((5 << 30) + 5),
            },
        },
        Representation {
            coding: ContentCoding::Identity,
            etag: "\"decoded\"",
            content_length: "7",
            content: Content::Decoded {
                id: 2,
                from: 0,
                length: 7,
            },
        },
    ])
}

fn assets() -> (&'static Asset<'static>, &'static Asset<'static>) {
    let representations = representations();
    let deltas = leak(vec![Delta {
        available_dictionary: ":abc=:",
        representation: representation(
            3,
            Content::External {
                id: 0,
                blob: 0,
                offset: 0,
                length: 1,
            },
        ),
    }]);
    let variants = leak(vec![Variant {
        content_type: "image/avif",
        representation: Representation {
            coding: ContentCoding::Identity,
            etag: "\"_____________________w\"",
            content_length: "4",
            content: Content::Stored {
                id: 4,
                store: Store::Assets,
                length: ObjectLength::new(4),
            },
        },
    }]);
    let twin = twin(&representations[1..]);
    let page = Box::leak(Box::new(Asset {
        content_type: "text/html; charset=utf-8",
        last_modified: "Tue, 14 Nov 2023 22:13:20 GMT",
        last_modified_unix: 1_700_000_000 + (1 << 33),
        cache_control: "no-cache",
        fingerprint: "abc",
        fields: leak(vec![
            ("link", "</a.css>; rel=preload; as=style"),
            ("x-a", "b"),
        ]),
        representations,
        deltas,
        variants,
        alternate: Some(twin),
    }));
    let other = Box::leak(Box::new(Asset {
        content_type: "text/css",
        last_modified: "Tue, 14 Nov 2023 22:13:20 GMT",
        last_modified_unix: 1,
        cache_control: "max-age=60",
        fingerprint: "",
        fields: &[],
        representations: &representations[2..],
        deltas: &[],
        variants: &[],
        alternate: None,
    }));
    (page, other)
}

/// A page's Markdown twin (its alternate), with `representations`.
fn twin(representations: &'static [Representation<'static>]) -> &'static Asset<'static> {
    Box::leak(Box::new(Asset {
        content_type: "text/markdown; charset=utf-8",
        last_modified: "Tue, 14 Nov 2023 22:13:20 GMT",
        last_modified_unix: 1_700_000_000,
        cache_control: "no-cache",
        fingerprint: "",
        fields: leak(vec![("x-markdown-tokens", "12")]),
        representations,
        deltas: &[],
        variants: &[],
        alternate: None,
    }))
}

fn routes(
    page: &'static Asset<'static>,
    other: &'static Asset<'static>,
) -> &'static [Route<'static>] {
    let redirect = |status, location, query_at| {
        Target::Redirect(Redirect {
            status,
            location,
            query_at,
        })
    };
    leak(vec![
        Route {
            path: "/",
            target: Target::Asset(page),
        },
        Route {
            path: "/a.css",
            target: Target::Asset(other),
        },
        Route {
            path: "/index.html",
            target: Target::Asset(page),
        },
        Route {
            path: "/index.md",
            // A copy of the page's alternate, as sitegen's leaked site has.
            target: Target::Asset(Box::leak(Box::new(*page.alternate.unwrap()))),
        },
        Route {
            path: "/old",
            target: redirect(RedirectStatus::PermanentRedirect, "/new?x=1", None),
        },
        Route {
            path: "/q",
            target: redirect(RedirectStatus::Found, "/elsewhere#top", Some(10)),
        },
    ])
}

fn rules() -> (&'static [Rule<'static>], &'static [RuleNode<'static>]) {
    let rules = leak(vec![
        Rule {
            pattern: leak(vec![Segment::Literal("blog"), Segment::Placeholder]),
            splat: false,
            action: Action::Redirect {
                status: RedirectStatus::MovedPermanently,
                destination: leak(vec![
                    Part::Literal("/posts/"),
                    Part::Capture(0),
                    Part::QueryCapture(1),
                ]),
                query_at: Some(2),
            },
        },
        Rule {
            pattern: leak(vec![Segment::Literal("app")]),
            splat: true,
            action: Action::Rewrite {
                destination: leak(vec![Part::Literal("/index.html")]),
            },
        },
    ]);
    let index = leak(vec![
        RuleNode {
            keys: &[],
            children: leak(vec![("blog", 1), ("app", 2)]),
            rules: &[],
        },
        RuleNode {
            keys: &[7, 8],
            children: &[],
            rules: &[0],
        },
        RuleNode {
            keys: &[],
            children: &[],
            rules: &[1],
        },
    ]);
    (rules, index)
}

/// A site with every kind of table: assets shared by two routes, a 404 page and the fallback;
/// redirects, rules and their index.
fn site() -> &'static Site<'static> {
    let (page, other) = assets();
    let (rules, rule_index) = rules();
    Box::leak(Box::new(Site {
        routes: routes(page, other),
        not_found: leak(vec![NotFoundPage {
            folder: "/",
            page: other,
        }]),
        fallback: Some(page),
        boundary: "edgesite-b",
        multipart_content_type: "multipart/byteranges; boundary=edgesite-b",
        fields: leak(vec![("x-content-type-options", "nosniff")]),
        rules,
        rule_index,
        fingerprinted_cache_control: "public, max-age=31536000, immutable",
        shared_caches: SharedCaches::Vary,
        store: "/tmp/store",
    }))
}

fn tables(site: &Site<'_>) -> &'static [u8] {
    leak(encode(site).unwrap())
}

#[test]
fn a_site_with_every_kind_of_table_decodes_to_itself() {
    let site = site();
    let decoded = decode(tables(site), &[]).unwrap();
    assert_eq!(format!("{decoded:#?}"), format!("{site:#?}"));
    // One asset behind both of its routes, the fallback: shared, not copied.
    let (Target::Asset(a), Target::Asset(b)) =
        (&decoded.routes[0].target, &decoded.routes[2].target)
    else {
        panic!("assets");
    };
    assert!(std::ptr::eq(*a, *b) && std::ptr::eq(*a, decoded.fallback.unwrap()));
    // The page's alternate and the asset at its own route (a copy of it): one asset.
    let Target::Asset(twin) = decoded.routes[3].target else {
        panic!("an asset");
    };
    assert!(std::ptr::eq(a.alternate.unwrap(), twin));
}

/// An alternate is the resource in another type: it has none of its own (the core weighs one).
#[test]
fn an_alternate_with_an_alternate_is_refused() {
    let (page, _) = assets();
    let page = Box::leak(Box::new(Asset {
        alternate: Some(page),
        ..*page
    }));
    let site = Site {
        routes: leak(vec![Route {
            path: "/",
            target: Target::Asset(page),
        }]),
        ..Site::EMPTY
    };
    assert!(encode(&site).is_err());
}

#[test]
fn strings_are_stored_once() {
    let tables = tables(site());
    let text = String::from_utf8_lossy(tables);
    assert_eq!(text.matches("Tue, 14 Nov 2023 22:13:20 GMT").count(), 1);
}

/// Files with the same fields share one slice of the pool, decoded once.
#[test]
fn a_list_of_fields_files_share_is_written_once() {
    let (page, _) = assets();
    let twin = Box::leak(Box::new(Asset {
        fingerprint: "other",
        ..*page
    }));
    let routes = leak(vec![
        Route {
            path: "/a",
            target: Target::Asset(page),
        },
        Route {
            path: "/b",
            target: Target::Asset(twin),
        },
    ]);
    let site = Site {
        routes,
        ..Site::EMPTY
    };
    let decoded = decode(tables(&site), &[]).unwrap();
    let fields = |i: usize| match decoded.routes[i].target {
        Target::Asset(asset) => asset.fields,
        Target::Redirect(_) => panic!("an asset"),
    };
    assert_eq!(fields(0), page.fields);
    assert!(std::ptr::eq(fields(0), fields(1)), "one slice");
}

#[test]
fn with_blobs_a_representation_in_a_blob_is_its_bytes() {
    static BLOBS: &[&[u8]] = &[b"z", b"0123456789"];
    let decoded = decode(tables(site()), BLOBS).unwrap();
    let Target::Asset(page) = decoded.routes[0].target else {
        panic!("an asset")
    };
    assert!(matches!(
        page.representations[0].content,
        Content::Bytes(b"234")
    ));
    assert!(matches!(
        page.deltas[0].representation.content,
        Content::Bytes(b"z")
    ));
    // A blob too short for what the tables name: an error.
    static SHORT: &[&[u8]] = &[b"z", b"01"];
    assert!(decode(tables(site()), SHORT).is_err());
}

#[test]
fn bytes_in_memory_are_not_tables() {
    let asset = Box::leak(Box::new(Asset {
        content_type: "text/plain",
        last_modified: "",
        last_modified_unix: 0,
        cache_control: "",
        fingerprint: "",
        fields: &[],
        representations: leak(vec![Representation {
            coding: ContentCoding::Identity,
            etag: "",
            content_length: "1",
            content: Content::Bytes(b"x"),
        }]),
        deltas: &[],
        variants: &[],
        alternate: None,
    }));
    let routes = leak(vec![Route {
        path: "/x",
        target: Target::Asset(asset),
    }]);
    let site = Site {
        routes,
        ..Site::EMPTY
    };
    assert!(encode(&site).is_err());
}

#[test]
fn corrupt_or_truncated_tables_are_an_error_never_a_panic() {
    let good = tables(site());
    for end in 0..good.len() {
        assert!(
            decode(leak(good[..end].to_vec()), &[]).is_err(),
            "cut at {end}"
        );
    }
    let mut longer = good.to_vec();
    longer.push(0);
    assert!(decode(leak(longer), &[]).is_err());
    let mut other_version = good.to_vec();
    other_version[4] = 9;
    assert!(decode(leak(other_version), &[])
        .unwrap_err()
        .to_string()
        .contains("version 9"));
    // Every byte changed in turn: whatever it decodes to, no panic and no read out of bounds.
    for at in 0..good.len() {
        for value in [0x00, 0x7f, 0xff] {
            let mut bytes = good.to_vec();
            bytes[at] = value;
            let _ = decode(leak(bytes), &[]);
        }
    }
}

/// What the core takes for granted of a site is checked when its tables are read: every asset
/// has a representation, one decoded on demand names one of its asset's, a Content-Length is
/// its representation's length, a stored one's ETag names its object.
#[test]
fn tables_the_core_could_not_serve_are_refused() {
    let one = |representations: &'static [Representation<'static>]| -> &'static Site<'static> {
        let asset = Box::leak(Box::new(Asset {
            representations,
            ..*assets().1
        }));
        let routes = leak(vec![Route {
            path: "/",
            target: Target::Asset(asset),
        }]);
        Box::leak(Box::new(Site {
            routes,
            ..Site::EMPTY
        }))
    };
    let decoded = |from| Representation {
        coding: ContentCoding::Identity,
        etag: "\"d\"",
        content_length: "7",
        content: Content::Decoded {
            id: 0,
            from,
            length: 7,
        },
    };
    let wrong_length = Representation {
        content_length: "8",
        ..decoded(0)
    };
    let unnamed = Representation {
        content: Content::Stored {
            id: 0,
            store: Store::Assets,
            length: ObjectLength::new(7),
        },
        ..decoded(0)
    };
    for (site, why) in [
        (one(&[]), "without representations"),
        (one(leak(vec![decoded(1)])), "decoded from one"),
        (one(leak(vec![wrong_length])), "Content-Length"),
        (one(leak(vec![unnamed])), "names no object"),
    ] {
        let error = decode(tables(site), &[]).unwrap_err().to_string();
        assert!(error.contains(why), "{error}");
    }
    assert!(decode(tables(one(leak(vec![decoded(0)]))), &[]).is_ok());
}

/// The core finds a route by binary search: routes out of order are refused.
#[test]
fn routes_out_of_order_are_refused() {
    let (page, other) = assets();
    let unordered = leak(vec![
        Route {
            path: "/b",
            target: Target::Asset(page),
        },
        Route {
            path: "/a",
            target: Target::Asset(other),
        },
    ]);
    let site = Site {
        routes: unordered,
        ..Site::EMPTY
    };
    assert!(decode(tables(&site), &[]).is_err());
}

/// Numbers are LEB128 varints (the encoder's `Writer::u32`): small ones take a byte, the
/// largest five, and a number past 32 bits or spelled longer than it needs is refused.
#[test]
fn numbers_are_varints_and_a_bad_one_is_refused() {
    let good = tables(site());
    // The header (magic, version, the strings' length) and the strings, then the first number:
    // the count of the fields pool.
    let strings = u32::from_le_bytes(good[8..12].try_into().unwrap()) as usize;
    let first = 12 + strings;
    assert!(good[first] < 0x80, "a small count takes one byte");
    for (spelling, why) in [
        (vec![0x80, 0x00], "longer than it needs"),
        (vec![0xff, 0xff, 0xff, 0xff, 0x1f], "past 32 bits"),
        (vec![0xff, 0xff, 0xff, 0xff, 0xff, 0x01], "past 32 bits"),
    ] {
        let mut bytes = good[..first].to_vec();
        bytes.extend_from_slice(&spelling);
        bytes.extend_from_slice(&good[first + 1..]);
        let error = decode(leak(bytes), &[]).unwrap_err().to_string();
        assert!(error.contains(why), "{spelling:02x?}: {error}");
    }
}

/// A plain-text asset with one representation.
fn text_asset() -> &'static Asset<'static> {
    let representations = leak(vec![representation(
        0,
        Content::External {
            id: 0,
            blob: 0,
            offset: 0,
            length: 3,
        },
    )]);
    Box::leak(Box::new(Asset {
        content_type: "text/plain",
        last_modified: "",
        last_modified_unix: 0,
        cache_control: "no-cache",
        fingerprint: "",
        fields: &[],
        representations,
        deltas: &[],
        variants: &[],
        alternate: None,
    }))
}

/// What a Worker holds decoded, at the wasm32 sizes: a route is 28 bytes, an asset 80, a
/// representation 40; an asset behind two routes is held once.
#[test]
fn the_decoded_size_counts_each_item_once_at_its_wasm32_size() {
    let asset = text_asset();
    let route = |path| Route {
        path,
        target: Target::Asset(asset),
    };
    let one = Site {
        routes: leak(vec![route("/a")]),
        ..Site::EMPTY
    };
    let two = Site {
        routes: leak(vec![route("/a"), route("/b")]),
        ..Site::EMPTY
    };
    assert_eq!(decode_measured(tables(&one), &[]).unwrap().1, 28 + 80 + 40);
    assert_eq!(
        decode_measured(tables(&two), &[]).unwrap().1,
        2 * 28 + 80 + 40
    );
    // The whole site of the round trip: more than its routes.
    let site = site();
    let held = decode_measured(tables(site), &[]).unwrap().1;
    assert!(held > 28 * site.routes.len() as u64, "{held}");
}

/// A page whose twin (its alternate, with the same representations here) has a route of its
/// own, to a copy of it: two assets decoded, not three.
#[test]
fn a_twin_at_its_own_route_is_decoded_once() {
    let asset = text_asset();
    let page: &'static Asset<'static> = Box::leak(Box::new(Asset {
        alternate: Some(asset),
        ..*asset
    }));
    let twinned = Site {
        routes: leak(vec![
            Route {
                path: "/a",
                target: Target::Asset(page),
            },
            Route {
                path: "/a.md",
                target: Target::Asset(Box::leak(Box::new(*asset))),
            },
        ]),
        ..Site::EMPTY
    };
    assert_eq!(
        decode_measured(tables(&twinned), &[]).unwrap().1,
        2 * 28 + 2 * 80 + 40
    );
    // The route naming the alternate itself, not a copy: the same.
    let routes = leak(vec![
        Route {
            path: "/a",
            target: Target::Asset(page),
        },
        Route {
            path: "/a.md",
            target: Target::Asset(asset),
        },
    ]);
    let itself = Site {
        routes,
        ..Site::EMPTY
    };
    let (decoded, held) = decode_measured(tables(&itself), &[]).unwrap();
    assert_eq!(held, 2 * 28 + 2 * 80 + 40);
    let (Target::Asset(page), Target::Asset(twin)) =
        (&decoded.routes[0].target, &decoded.routes[1].target)
    else {
        panic!("assets");
    };
    assert!(std::ptr::eq(page.alternate.unwrap(), *twin));
}
