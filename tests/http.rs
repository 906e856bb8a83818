//! The HTTP suite: real requests over loopback, one behaviour for every runtime.
//!
//! Run by `make test` against the native twin (in-process, and as the `edgesite-native` binary),
//! the Worker under bare `workerd serve`, and the Worker under `wrangler dev` (see
//! `tests/support/mod.rs` for how the server is chosen). It covers:
//!
//! * every file of the site: GET of its URL gives its exact bytes, Content-Type (with
//!   `charset=utf-8` for text), Content-Length and a strong ETag;
//! * `/` and `/dir/` serve the folder's index.html; `/dir` redirects 308 to `/dir/`; clean URLs:
//!   `/about` serves about.html and `/about.html` redirects 308 to `/about`;
//! * HEAD: the fields of GET and no content (RFC 9110 §9.3.2);
//! * a missing path: 404 with the site's 404.html (RFC 9110 §15.5.5);
//! * other methods: 405 with Allow (RFC 9110 §15.5.6); OPTIONS: 204 with Allow (§9.3.7);
//! * If-None-Match with the current tag: 304 with the validators and no content (§13.1.2, §15.4.5);
//! * paths: the query is ignored, percent-decoding, dot segments never leave the site,
//!   malformed targets are 400.
//!
//! Relaxations, each for a known runtime difference and named where it applies:
//! * `wrangler dev`: its dev proxy drops Content-Length and answers chunked.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use support::{canonical, get, request, server, site_file, site_files, Runtime};

fn expected_content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml; charset=utf-8",
        Some("png") => "image/png",
        Some("jpg") => "image/jpeg",
        Some("txt") => "text/plain; charset=utf-8",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// The demo's caching policy (the defaults of edgesite.toml): `/assets/` holds fingerprinted files.
fn expected_cache_control(path: &str) -> &'static str {
    if path.starts_with("/assets/") {
        "public, max-age=31536000, immutable"
    } else if path.ends_with(".html") {
        "no-cache"
    } else {
        "public, max-age=0, must-revalidate"
    }
}

/// Content-Length must equal the body's length (RFC 9110 §8.6); `wrangler dev` drops it.
fn assert_content_length(reply: &support::Reply, len: usize, what: &str) {
    match reply.header("content-length") {
        Some(value) => assert_eq!(value, len.to_string(), "Content-Length of {what}"),
        None => assert_eq!(
            server().runtime,
            Runtime::WranglerDev,
            "{what} has no Content-Length"
        ),
    }
}

fn assert_strong_etag(value: Option<&str>, what: &str) {
    let value = value.unwrap_or_else(|| panic!("{what} has no ETag"));
    // RFC 9110 §8.8.3: a strong entity-tag is a quoted string without the W/ prefix.
    assert!(
        value.len() > 2 && value.starts_with('"') && value.ends_with('"'),
        "{what}: ETag {value}"
    );
}

/// Percent-encodes what a request target cannot carry as is (spaces, non-ASCII).
fn encode(path: &str) -> String {
    path.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'.' | b'-' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn every_file_is_served_with_its_bytes_type_length_and_strong_etag() {
    let files = site_files();
    assert!(files.len() >= 8, "the demo site has at least 8 files");
    for (path, bytes) in files {
        let url = canonical(&path);
        if url != path {
            // Clean URLs: one URL per page; the file's own path redirects to it.
            let redirect = get(&encode(&path));
            assert_eq!(redirect.status, 308, "GET {path}");
            assert_eq!(
                redirect.header("location"),
                Some(encode(&url).as_str()),
                "GET {path}"
            );
        }
        let reply = get(&encode(&url));
        assert_eq!(reply.status, 200, "GET {url}");
        assert_eq!(reply.body, bytes, "body of {path}");
        assert_eq!(
            reply.header("content-type"),
            Some(expected_content_type(&path)),
            "{path}"
        );
        assert_content_length(&reply, bytes.len(), &path);
        assert_strong_etag(reply.header("etag"), &path);
        assert!(
            reply
                .header("last-modified")
                .is_some_and(|v| v.ends_with(" GMT")),
            "{path}"
        );
        assert_eq!(
            reply.header("cache-control"),
            Some(expected_cache_control(&path)),
            "{path}"
        );
        assert_eq!(reply.header("accept-ranges"), Some("bytes"), "{path}");
    }
}

#[test]
fn fingerprinted_files_are_immutable_and_html_is_revalidated() {
    // RFC 9111 §5.2.2: the caching policy compiled at build time; RFC 8246: immutable.
    let fingerprinted = site_files()
        .into_iter()
        .find(|(p, _)| p.starts_with("/assets/stamp."))
        .unwrap()
        .0;
    assert_eq!(
        get(&fingerprinted).header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(get("/").header("cache-control"), Some("no-cache"));
    assert_eq!(
        get("/style.css").header("cache-control"),
        Some("public, max-age=0, must-revalidate")
    );
}

#[test]
fn security_headers_are_on_every_response() {
    // edgesite.toml [headers] defaults: nosniff and a referrer policy, on 2xx, 3xx, 4xx alike.
    for (method, path) in [
        ("GET", "/"),
        ("GET", "/nope"),
        ("GET", "/guide"),
        ("POST", "/"),
        ("GET", "/%00"),
    ] {
        let reply = request(method, path, &[("content-length", "0")]);
        assert_eq!(
            reply.header("x-content-type-options"),
            Some("nosniff"),
            "{method} {path}"
        );
        assert_eq!(
            reply.header("referrer-policy"),
            Some("strict-origin-when-cross-origin"),
            "{method} {path}"
        );
    }
}

#[test]
fn every_response_carries_a_date() {
    // RFC 9110 §6.6.1: an origin server with a clock MUST send Date, as an IMF-fixdate (§5.6.7).
    for (method, path) in [
        ("GET", "/"),
        ("GET", "/nope"),
        ("HEAD", "/about"),
        ("POST", "/"),
        ("GET", "/guide"),
    ] {
        let reply = request(method, path, &[("content-length", "0")]);
        let date = reply
            .header("date")
            .unwrap_or_else(|| panic!("{method} {path}: no Date"));
        assert!(
            httpdate::parse_http_date(date).is_ok(),
            "{method} {path}: Date {date:?}"
        );
        assert!(
            date.ends_with(" GMT") && date.len() == 29,
            "{method} {path}: Date {date:?}"
        );
    }
}

#[test]
fn root_serves_index_html() {
    let reply = get("/");
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(reply.body, site_file("/index.html"));
    assert_eq!(get("/index.html").header("location"), Some("/"));
}

#[test]
fn clean_urls_serve_html_without_its_extension() {
    let reply = get("/about");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, site_file("/about.html"));
    let redirect = get("/about.html");
    assert_eq!(
        (redirect.status, redirect.header("location")),
        (308, Some("/about"))
    );
    let redirect = get("/guide/index.html");
    assert_eq!(
        (redirect.status, redirect.header("location")),
        (308, Some("/guide/"))
    );
}

#[test]
fn a_folder_with_its_slash_serves_its_index_html() {
    let reply = get("/guide/");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, site_file("/guide/index.html"));
}

#[test]
fn a_folder_without_its_slash_is_redirected_permanently() {
    // RFC 9110 §15.4.9: 308 keeps the method; Location names the folder with its slash.
    let reply = get("/guide");
    assert_eq!(reply.status, 308);
    assert_eq!(reply.header("location"), Some("/guide/"));
}

#[test]
fn head_has_the_fields_of_get_and_no_content() {
    // RFC 9110 §9.3.2: the same header fields as GET, and no content on the wire.
    for path in ["/", "/about", "/images/icon.png", "/nope"] {
        let get = get(path);
        let head = request("HEAD", path, &[]);
        assert_eq!(head.status, get.status, "HEAD {path}");
        assert_eq!(head.raw_body_len, 0, "HEAD {path} sent content");
        for field in ["content-type", "etag", "last-modified", "cache-control"] {
            assert_eq!(
                head.header(field),
                get.header(field),
                "{field} of HEAD {path}"
            );
        }
        if let Some(len) = head.header("content-length") {
            // §9.3.2: a Content-Length in a HEAD answer is the length GET would send.
            assert_eq!(
                len,
                get.body.len().to_string(),
                "Content-Length of HEAD {path}"
            );
        }
    }
}

#[test]
fn a_missing_path_is_404_with_the_sites_404_page() {
    // RFC 9110 §15.5.5.
    let reply = get("/does/not/exist.html");
    assert_eq!(reply.status, 404);
    assert_eq!(
        reply.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(reply.body, site_file("/404.html"));
    assert_content_length(&reply, reply.body.len(), "the 404 page");
    // A 404 carries no validator, so no later conditional request can turn it into a 304.
    assert_eq!(reply.header("etag"), None);
}

#[test]
fn other_methods_are_405_with_allow() {
    // RFC 9110 §15.5.6: the origin server MUST generate an Allow field in a 405.
    for method in ["POST", "PUT", "DELETE", "PATCH"] {
        let reply = request(method, "/", &[("content-length", "0")]);
        assert_eq!(reply.status, 405, "{method}");
        assert_eq!(
            reply.header("allow"),
            Some("GET, HEAD, OPTIONS"),
            "{method}"
        );
    }
}

#[test]
fn options_is_204_with_allow() {
    // RFC 9110 §9.3.7.
    let reply = request("OPTIONS", "/", &[]);
    assert_eq!(reply.status, 204);
    assert_eq!(reply.header("allow"), Some("GET, HEAD, OPTIONS"));
    assert!(reply.body.is_empty());
}

#[test]
fn if_none_match_with_the_current_etag_is_304_without_content() {
    // RFC 9110 §13.1.2 (weak comparison) and §15.4.5 (a 304 repeats ETag and Cache-Control).
    let first = get("/style.css");
    let etag = first.header("etag").unwrap().to_string();
    for value in [
        etag.clone(),
        format!("W/{etag}"),
        format!("\"other\", {etag}"),
        "*".to_string(),
    ] {
        let reply = request("GET", "/style.css", &[("if-none-match", &value)]);
        assert_eq!(reply.status, 304, "If-None-Match: {value}");
        assert_eq!(reply.raw_body_len, 0, "a 304 has no content");
        assert_eq!(reply.header("etag"), Some(etag.as_str()));
        assert_eq!(reply.header("cache-control"), first.header("cache-control"));
        assert_eq!(reply.header("last-modified"), first.header("last-modified"));
    }
}

#[test]
fn if_none_match_with_another_or_malformed_etag_is_200() {
    // RFC 9110 §13.1.2; a malformed field value is treated as absent.
    for value in ["\"other\"", "not-quoted"] {
        let reply = request("GET", "/style.css", &[("if-none-match", value)]);
        assert_eq!(reply.status, 200, "If-None-Match: {value}");
        assert_eq!(reply.body, site_file("/style.css"));
    }
}

#[test]
fn the_query_is_not_part_of_the_path() {
    // RFC 9110 §4.2.4 / RFC 3986 §3.4.
    let reply = get("/about?utm_source=test&x=/../y");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, site_file("/about.html"));
}

#[test]
fn percent_encoded_paths_are_decoded() {
    let reply = get("/%61bout");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, site_file("/about.html"));
}

#[test]
fn dot_segments_are_removed_and_never_leave_the_site() {
    // RFC 3986 §5.2.4: `..` at the root stays at the root.
    let reply = get("/guide/../about");
    assert_eq!((reply.status, reply.body), (200, site_file("/about.html")));
    for escape in [
        "/../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/guide/../../Cargo.toml",
    ] {
        let reply = get(escape);
        assert_eq!(reply.status, 404, "{escape}");
        assert_eq!(reply.body, site_file("/404.html"), "{escape}");
    }
}

#[test]
fn malformed_targets_are_400() {
    // RFC 9110 §15.5.1: an encoded slash, NUL or a broken escape is not guessed at.
    for target in ["/guide%2Findex.html", "/%00", "/%zz", "/a%5Cb"] {
        let reply = get(target);
        assert_eq!(reply.status, 400, "{target}");
        assert_eq!(
            reply.header("content-type"),
            Some("text/plain; charset=utf-8"),
            "{target}"
        );
    }
}

#[test]
fn the_server_keeps_connections_alive() {
    // RFC 9112 §9.3: HTTP/1.1 connections persist by default; two requests on one connection.
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(&server().addr).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let host = &server().addr;
    let two = format!("HEAD / HTTP/1.1\r\nHost: {host}\r\n\r\nGET /logo.svg HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(two.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw);
    assert_eq!(text.matches("HTTP/1.1 200").count(), 2, "{text}");
    if server().runtime == Runtime::WranglerDev {
        // wrangler dev answers chunked, so the body's bytes may be split by chunk framing.
        assert!(
            text.contains("</svg>"),
            "the second answer carries the SVG: {text}"
        );
    } else {
        assert!(
            raw.ends_with(&site_file("/logo.svg")),
            "the second answer carries the SVG: {text}"
        );
    }
}

/// The `v` the build writes into references to `path`: the first 10 hex digits of the SHA-256
/// of the bytes served (computed here from the served bytes, not read from the build).
fn version_of(path: &str) -> String {
    use sha2::{Digest, Sha256};
    let hex = |bytes: &[u8]| -> String {
        Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    // An image's `v` covers its variants too (docs/http.md): the SHA-256 of the served file's
    // SHA-256 (hex), then each variant's media type and SHA-256, in media type order.
    let served = hex(&site_file(path));
    let mut input = served.clone();
    for media_type in ["image/avif", "image/webp"] {
        let reply = request("GET", path, &[("accept", media_type)]);
        if reply.header("content-type") == Some(media_type) {
            input.push_str(media_type);
            input.push_str(&hex(&reply.body));
        }
    }
    let digest = if input == served {
        served
    } else {
        hex(input.as_bytes())
    };
    digest[..10].to_string()
}

#[test]
fn a_v_naming_the_current_bytes_is_immutable_and_any_other_gets_the_files_policy() {
    // RFC 9111 §5.2.2.1 max-age, RFC 8246 immutable: a URL whose `v` is the hash of the bytes
    // never names other bytes. Any other `v` (an old page's) still gets the file, revalidated.
    let immutable = Some("public, max-age=31536000, immutable");
    let revalidate = Some("public, max-age=0, must-revalidate");
    for path in ["/style.css", "/app.js", "/logo.svg", "/images/icon.png"] {
        let v = version_of(path);
        let plain = get(path);
        for query in [
            format!("v={v}"),
            format!("v=2022.1&v={v}"),
            format!("x=1&v={v}"),
        ] {
            let reply = get(&format!("{path}?{query}"));
            assert_eq!(reply.status, 200, "{path}?{query}");
            assert_eq!(reply.header("cache-control"), immutable, "{path}?{query}");
            assert_eq!(reply.body, site_file(path), "{path}?{query}");
            assert_eq!(reply.header("etag"), plain.header("etag"), "{path}?{query}");
        }
        for query in ["", "?v=0000000000", "?v=", "?vv=0", &format!("?V={v}")] {
            let reply = get(&format!("{path}{query}"));
            assert_eq!(reply.header("cache-control"), revalidate, "{path}{query}");
        }
        // RFC 9110 §15.4.5: a 304 carries the Cache-Control a 200 would; so do HEAD and 206.
        let target = format!("{path}?v={v}");
        let etag = plain.header("etag").unwrap();
        let not_modified = request("GET", &target, &[("if-none-match", etag)]);
        assert_eq!(not_modified.status, 304, "{target}");
        assert_eq!(not_modified.header("cache-control"), immutable, "{target}");
        let head = request("HEAD", &target, &[]);
        assert_eq!(head.header("cache-control"), immutable, "HEAD {target}");
        let partial = request("GET", &target, &[("range", "bytes=0-9")]);
        assert_eq!(partial.status, 206, "{target}");
        assert_eq!(partial.header("cache-control"), immutable, "{target}");
    }
    // Pages are navigations: never fingerprinted, whatever `v` says.
    let v = version_of("/about.html");
    assert_eq!(
        get(&format!("/about?v={v}")).header("cache-control"),
        Some("no-cache")
    );
    // A name-fingerprinted file is immutable already; a `v` changes nothing.
    let stamp = site_files()
        .into_iter()
        .find(|(p, _)| p.starts_with("/assets/stamp."))
        .unwrap()
        .0;
    assert_eq!(
        get(&format!("{stamp}?v=1")).header("cache-control"),
        immutable
    );
}

#[test]
fn pages_name_their_subresources_by_version_and_hold_their_small_stylesheet_inline() {
    // The build rewrote the demo's references (sitegen's link pass): every subresource URL a
    // page names is one the server answers as immutable. The page's only render-blocking
    // resource, its 1.5 KB stylesheet, is inline where its `<link>` stood (`[links]
    // inline_css_bytes`: the first view saves the round trip), so no hint names it (RFC 8288).
    let about = get("/about");
    let html = String::from_utf8(about.body.clone()).unwrap();
    for reference in [
        format!("/app.js?v={}", version_of("/app.js")),
        format!("/logo.svg?v={}", version_of("/logo.svg")),
        format!("/images/icon.png?v={}", version_of("/images/icon.png")),
    ] {
        assert!(html.contains(&format!("\"{reference}\"")), "{reference}");
        assert_eq!(
            get(&reference).header("cache-control"),
            Some("public, max-age=31536000, immutable"),
            "{reference}"
        );
    }
    let css = String::from_utf8(site_file("/style.css").to_vec()).unwrap();
    assert!(html.contains(&format!("<style>{css}</style>")), "{html}");
    assert!(!html.contains("rel=\"stylesheet\""), "{html}");
    // The stylesheet is still served, as immutable with its version, for any other use.
    let versioned = format!("/style.css?v={}", version_of("/style.css"));
    assert_eq!(
        get(&versioned).header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    // Links between pages stay as written.
    assert!(html.contains("href=\"/guide/\""));
    // No preload hint (its stylesheet is inline): its one Link names its Markdown twin.
    assert_eq!(
        about.header("link"),
        Some("</about.md>; rel=\"alternate\"; type=\"text/markdown\"")
    );
    // The index has no external stylesheet: no hint, its twin's alone.
    assert_eq!(
        get("/").header("link"),
        Some("</index.md>; rel=\"alternate\"; type=\"text/markdown\"")
    );
}

/// Issue 35: every page's Markdown twin at its URL with `.md`, named by the page's `Link`, as
/// `text/markdown` with its own strong ETag (304 for it, 412 for the page's), its
/// `x-markdown-tokens` the one of its front matter; `/llms.txt` links every twin; a browser's
/// navigation of the page still gets the page.
#[test]
fn every_page_has_a_markdown_twin_that_llms_txt_lists() {
    let llms = get("/llms.txt");
    assert_eq!(llms.status, 200);
    assert_eq!(
        llms.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    let llms = String::from_utf8(llms.body).unwrap();
    assert!(llms.starts_with("# "), "{llms}");
    for (page, twin) in [
        ("/", "/index.md"),
        ("/about", "/about.md"),
        ("/guide/", "/guide/index.md"),
    ] {
        let html = get(page);
        assert_eq!(html.status, 200, "{page}");
        assert!(html
            .header("content-type")
            .unwrap()
            .starts_with("text/html"));
        let link = format!("<{twin}>; rel=\"alternate\"; type=\"text/markdown\"");
        assert!(html.header("link").unwrap_or("").contains(&link), "{page}");
        assert!(llms.contains(&format!("]({twin})")), "{twin} in llms.txt");
        let reply = get(twin);
        assert_eq!(reply.status, 200, "{twin}");
        assert_eq!(
            reply.header("content-type"),
            Some("text/markdown; charset=utf-8")
        );
        let etag = reply.header("etag").unwrap().to_string();
        assert!(etag.starts_with('"') && Some(etag.as_str()) != html.header("etag"));
        let body = String::from_utf8(reply.body.clone()).unwrap();
        let tokens = reply.header("x-markdown-tokens").unwrap();
        assert!(body.starts_with("---\ntitle: "), "{body}");
        assert!(
            body.contains(&format!("\ntokens: {tokens}\n---\n")),
            "{body}"
        );
        let again = request("GET", twin, &[("if-none-match", &etag)]);
        assert_eq!(again.status, 304, "{twin}");
        let stale = request("GET", twin, &[("if-match", html.header("etag").unwrap())]);
        assert_eq!(stale.status, 412, "{twin}");
    }
}

/// Issue 35: at a page's own URL, the twin for a client whose Accept weighs `text/markdown`
/// above `text/html` (RFC 9110 §12.5.1), the page for every browser; each answer varies by
/// Accept (§12.5.5) and is kept from CDNs that key on the URL alone (RFC 9213); the twin
/// there is the representation its own URL serves, with its ETags, codings, 304, 412 and
/// ranges.
#[test]
fn a_client_that_prefers_markdown_gets_the_twin_at_the_pages_url() {
    const MARKDOWN: &str = "text/markdown, text/html;q=0.9, */*;q=0.8";
    const CHROMIUM: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";
    for (page, twin) in [
        ("/", "/index.md"),
        ("/about", "/about.md"),
        ("/guide/", "/guide/index.md"),
    ] {
        let own = get(twin);
        let etag = own.header("etag").unwrap();
        let agent = request("GET", page, &[("accept", MARKDOWN)]);
        assert_eq!(agent.status, 200, "{page}");
        assert_eq!(
            agent.header("content-type"),
            Some("text/markdown; charset=utf-8")
        );
        assert_eq!(agent.header("etag"), Some(etag), "{page}: the twin's own");
        assert_eq!(agent.body, own.body, "{page}");
        assert_eq!(
            agent.header("x-markdown-tokens"),
            own.header("x-markdown-tokens")
        );
        // RFC 9110 §8.7: the URL that names the twin alone.
        assert_eq!(agent.header("content-location"), Some(twin));
        for accept in [
            CHROMIUM,
            "*/*",
            "text/markdown;q=0, */*",
            "text/markdown, text/html",
            "text/*",
        ] {
            let html = request("GET", page, &[("accept", accept)]);
            assert!(
                html.header("content-type")
                    .unwrap()
                    .starts_with("text/html"),
                "{page} {accept}"
            );
            assert!(html.header("link").unwrap().contains(twin));
            assert_eq!(
                html.header("vary"),
                Some("accept, accept-encoding"),
                "{page}"
            );
            assert_eq!(html.header("cdn-cache-control"), Some("private"), "{page}");
        }
        assert_eq!(
            agent.header("vary"),
            Some("accept, accept-encoding"),
            "{page}"
        );
        assert_eq!(agent.header("cdn-cache-control"), Some("private"), "{page}");
        // At its own URL the twin varies by Accept-Encoding alone.
        assert_eq!(own.header("vary"), Some("accept-encoding"), "{twin}");
        // Its codings by Accept-Encoding (RFC 9110 §12.5.3), each with its own strong ETag.
        let br = [("accept", MARKDOWN), ("accept-encoding", "br")];
        let (at_page, at_twin) = (request("GET", page, &br), request("GET", twin, &br[1..]));
        assert_eq!(at_page.header("content-encoding"), Some("br"), "{page}");
        assert_eq!(at_page.header("etag"), at_twin.header("etag"));
        assert_eq!(at_page.body, at_twin.body);
        // §13.1.2, §13.1.1: validators are the twin's.
        let not_modified = request(
            "GET",
            page,
            &[("accept", MARKDOWN), ("if-none-match", etag)],
        );
        assert_eq!(not_modified.status, 304, "{page}");
        assert_eq!(not_modified.header("vary"), Some("accept, accept-encoding"));
        assert_eq!(request("GET", page, &[("if-none-match", etag)]).status, 200);
        let html_etag = get(page).header("etag").unwrap().to_string();
        let failed = request(
            "GET",
            page,
            &[("accept", MARKDOWN), ("if-match", &html_etag)],
        );
        assert_eq!(failed.status, 412, "{page}");
        // §14.2: a range of the twin's bytes; HEAD has GET's fields (§9.3.2).
        let range = request("GET", page, &[("accept", MARKDOWN), ("range", "bytes=0-3")]);
        assert_eq!(range.status, 206, "{page}");
        assert_eq!(range.body, b"---\n");
        let head = request("HEAD", page, &[("accept", MARKDOWN)]);
        assert_eq!(head.header("content-length"), own.header("content-length"));
        assert!(head.body.is_empty());
    }
    // A page without a twin (the 404 page's answer) and a file that is not a page: no Accept
    // in their Vary.
    let missing = request("GET", "/nope", &[("accept", MARKDOWN)]);
    assert_eq!((missing.status, missing.header("vary")), (404, None));
    let logo = request("GET", "/logo.svg", &[("accept", MARKDOWN)]);
    assert_eq!(logo.header("vary"), Some("accept-encoding"));
}

#[test]
fn every_page_announces_speculation_rules_that_name_only_its_pages() {
    // WICG nav-speculation (issue 23): the demo's pages, and nothing else, are what a hover
    // may prefetch: /, /about, /guide/ and /photos (not the 404 pages, the `_redirects`
    // sources or the ignored /does-not-exist).
    for page in ["/", "/about", "/guide/", "/photos"] {
        assert_eq!(support::walk_speculation_rules(page), 4, "{page}");
    }
    // Not on what is not HTML, nor on a 404 (which carries the site's fields, not its page's).
    assert_eq!(get("/style.css").header("speculation-rules"), None);
    assert_eq!(get("/guide/missing").header("speculation-rules"), None);
}
