//! The link pass on real-world markup (tests/fixtures/links: a Sphinx-like page with upper-case
//! and unquoted attributes, `?2022.1` queries, `&amp;`, srcset, `<base>`, conditional comments,
//! markup inside scripts and CDATA, module and SRI scripts, inline and attribute CSS,
//! stylesheets with `@import` and `url()` quoted and not, a `_redirects` 301, a reference cycle, and two broken
//! links). What it checks:
//!
//! * rewriting is byte-exact outside the values it changes: each served file equals its source
//!   with exactly the expected values replaced;
//! * every `v` is the first 10 hex digits of the SHA-256 of the bytes served for its target,
//!   and stylesheets are rewritten before their hash is taken (dependency order);
//! * a link to a page that the site reaches through a permanent redirect names the page's URL;
//! * data:, external, scheme-relative, mailto: and fragment-only URLs, other navigations, module
//!   scripts, `<meta>` image URLs (checked only), comments, script text and CDATA are left alone; a cycle is left alone, warned;
//! * broken links are reported with file and line (and fail the build with `broken = "error"`);
//! * each page's `Link` preload field; `mode = "off"` rewrites nothing.

use edgesite_sitegen::config::{BrokenLinks, FingerprintMode};
use edgesite_sitegen::model::Asset;
use edgesite_sitegen::warning::WarningKind;
use edgesite_sitegen::{compile, Error, Manifest, Options};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

const SITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/links");

/// The files as written (`[optimize]` off: these tests check the link pass's rewrites byte by
/// byte against them; tests/optimize.rs checks the two stages together), and no Markdown
/// twins (their `Link: rel=alternate` would join the pass's fields; tests/agents.rs).
fn options() -> Options {
    let mut options = Options::new(UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    options.config.agents.enabled = Some(false);
    options.config.optimize.html = false;
    options.config.optimize.css = false;
    options.config.optimize.js = false;
    options
}

fn file<'m>(manifest: &'m Manifest, path: &str) -> &'m Asset {
    manifest
        .files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no {path}"))
}

fn source(path: &str) -> String {
    std::fs::read_to_string(format!("{SITE}{path}")).unwrap()
}

/// The bytes served for `path`: the rewritten ones, or the source's.
fn served(manifest: &Manifest, path: &str) -> String {
    let file = file(manifest, path);
    match file.identity_bytes() {
        Some(bytes) => String::from_utf8(bytes.to_vec()).unwrap(),
        // The site's file, or one the build wrote (the speculation rules).
        None => String::from_utf8(file.source.read().unwrap().into_owned()).unwrap(),
    }
}

fn v(manifest: &Manifest, path: &str) -> String {
    let file = file(manifest, path);
    assert_eq!(file.fingerprint.len(), 10, "{path} has a fingerprint");
    file.fingerprint.clone()
}

/// The `Link` field of the file at `path` (empty when it has none).
fn link_field(m: &Manifest, path: &str) -> String {
    file(m, path)
        .fields
        .iter()
        .find(|(n, _)| n == "link")
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

/// Writes `bytes` at `path` under `dir`, with its folders.
fn write_in(dir: &Path, path: &str, bytes: impl AsRef<[u8]>) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// `text` with each needle (which must occur exactly once) replaced.
fn replaced(text: &str, edits: &[(&str, String)]) -> String {
    let mut out = text.to_string();
    for (needle, replacement) in edits {
        assert_eq!(out.matches(needle).count(), 1, "{needle:?} occurs once");
        out = out.replacen(needle, replacement, 1);
    }
    out
}

#[test]
fn every_v_names_the_bytes_served_for_its_target() {
    let manifest = compile(Path::new(SITE), &options()).unwrap();
    for file in &manifest.files {
        let bytes = served(&manifest, &file.path);
        let sha = hex(&Sha256::digest(bytes.as_bytes()));
        assert_eq!(
            file.sha256, sha,
            "{}: sha256 describes the bytes served",
            file.path
        );
        if !file.fingerprint.is_empty() {
            assert_eq!(file.fingerprint, sha[..10], "{}", file.path);
        }
        // The manifest says which files were rewritten, and from what.
        match &file.rewritten {
            Some(r) => assert_eq!(r.source_sha256, hex(&Sha256::digest(source(&file.path)))),
            None => assert_eq!(
                bytes,
                String::from_utf8(file.source.read().unwrap().into_owned()).unwrap()
            ),
        }
    }
    assert_eq!(
        manifest.fingerprinted_cache_control,
        "public, max-age=31536000, immutable"
    );
}

#[test]
fn a_page_is_rewritten_byte_exactly_outside_the_values_it_changes() {
    let m = compile(Path::new(SITE), &options()).unwrap();
    let [pygments, print, font, hero1, hero2, app, later, sri, extra, space, bg, icons] = [
        "/_static/pygments.css",
        "/_static/print.css",
        "/fonts/x.woff2",
        "/img/hero-1x.png",
        "/img/hero-2x.png",
        "/js/app.js",
        "/js/later.js",
        "/js/sri.js",
        "/_static/extra.css",
        "/img/a b.png",
        "/img/bg.png",
        "/img/icons.svg",
    ]
    .map(|p| v(&m, p));
    let expected = replaced(
        &source("/index.html"),
        &[
            (
                "HREF=_static/pygments.css?2022.1 ",
                format!("HREF=_static/pygments.css?2022.1&amp;v={pygments} "),
            ),
            ("'_static/print.css'", format!("'_static/print.css?v={print}'")),
            ("\"fonts/x.woff2\"", format!("\"fonts/x.woff2?v={font}\"")),
            ("img/hero-1x.png#frag", format!("img/hero-1x.png?v={hero1}#frag")),
            (
                "js/app.js?v=2022.1&amp;lang=en",
                format!("js/app.js?v=2022.1&amp;lang=en&amp;v={app}"),
            ),
            ("\"js/later.js\"", format!("\"js/later.js?v={later}\"")),
            ("\"js/sri.js\"", format!("\"js/sri.js?v={sri}\"")),
            (
                "\"js/legacy.js\"",
                format!("\"js/legacy.js?v={}\"", v(&m, "/js/legacy.js")),
            ),
            ("\"_static/extra.css\"", format!("\"_static/extra.css?v={extra}\"")),
            ("'img/a b.png'", format!("'img/a b.png?v={space}'")),
            ("src=img/bg.png alt", format!("src=img/bg.png?v={bg} alt")),
            (
                "src=\"img/hero-1x.png\" srcset=\"img/hero-1x.png 1x, img/hero-2x.png   2x,",
                format!(
                    "src=\"img/hero-1x.png?v={hero1}\" srcset=\"img/hero-1x.png?v={hero1} 1x, img/hero-2x.png?v={hero2}   2x,"
                ),
            ),
            ("url(img/bg.png)", format!("url(img/bg.png?v={bg})")),
            ("img/icons.svg#i", format!("img/icons.svg?v={icons}#i")),
            // A link to a page through its clean URL's 308 names the page's URL.
            ("\"docs/page.html\"", "\"/docs/page\"".to_string()),
        ],
    );
    assert_eq!(served(&m, "/index.html"), expected);
    // Left alone: the module script, the conditional comment, script text, CDATA, data:,
    // external and scheme-relative URLs, mailto:, fragments, the broken image.
    for kept in [
        "src=\"js/mod.js\"",
        "content=\"img/hero-2x.png\"",
        "href=\"_static/ie.css\"",
        "<img src=\"img/bg.png\"> stays",
        "href=\"_static/pygments.css\">'",
        "<![CDATA[ <img src=\"img/bg.png\"> ]]>",
        "data:image/png;base64,AAAA 3x",
        "src=\"https://cdn.example.org/a.png\"",
        "src=\"//cdn.example.org/b.png\"",
        "src=\"missing.png\"",
    ] {
        assert!(expected.contains(kept), "{kept}");
    }
}

#[test]
fn base_href_relative_paths_and_redirects_resolve_as_a_browser_does() {
    let m = compile(Path::new(SITE), &options()).unwrap();
    let expected = replaced(
        &source("/docs/page.html"),
        &[
            (
                "\"pygments.css?2022.1\"",
                format!(
                    "\"pygments.css?2022.1&amp;v={}\"",
                    v(&m, "/_static/pygments.css")
                ),
            ),
            (
                "\"../img/bg.png\"",
                format!("\"../img/bg.png?v={}\"", v(&m, "/img/bg.png")),
            ),
            (
                "\"/img/hero-2x.png\"",
                format!("\"/img/hero-2x.png?v={}\"", v(&m, "/img/hero-2x.png")),
            ),
            // Through a `_redirects` 301: replaced by where it leads (one round trip fewer).
            (
                "\"old.css#x\"",
                format!("\"/_static/print.css?v={}#x\"", v(&m, "/_static/print.css")),
            ),
        ],
    );
    assert_eq!(served(&m, "/docs/page.html"), expected);
}

#[test]
fn stylesheets_are_rewritten_after_what_they_import_and_a_cycle_is_left_alone() {
    let m = compile(Path::new(SITE), &options()).unwrap();
    let font = v(&m, "/fonts/x.woff2");
    let extra = replaced(
        &source("/_static/extra.css"),
        &[
            (
                "\"../fonts/x.woff2\"",
                format!("\"../fonts/x.woff2?v={font}\""),
            ),
            ("x.woff2?#iefix", format!("x.woff2?v={font}#iefix")),
        ],
    );
    assert_eq!(served(&m, "/_static/extra.css"), extra);
    // pygments.css names extra.css's rewritten bytes (its v is taken after the rewrite).
    let pygments = replaced(
        &source("/_static/pygments.css"),
        &[
            (
                "url(extra.css)",
                format!("url(extra.css?v={})", v(&m, "/_static/extra.css")),
            ),
            (
                "url(../img/bg.png)",
                format!("url(../img/bg.png?v={})", v(&m, "/img/bg.png")),
            ),
            (
                "\"../img/icons.svg#i\"",
                format!("\"../img/icons.svg?v={}#i\"", v(&m, "/img/icons.svg")),
            ),
        ],
    );
    assert_eq!(served(&m, "/_static/pygments.css"), pygments);
    assert!(pygments.contains("/* url(commented.png) stays */"));
    // a.css and b.css import each other: those references stay, with a warning for each.
    let a = served(&m, "/_static/a.css");
    assert!(a.starts_with("@import \"b.css\";\n"), "{a}");
    assert!(a.contains(&format!("url(../img/bg.png?v={})", v(&m, "/img/bg.png"))));
    assert_eq!(served(&m, "/_static/b.css"), source("/_static/b.css"));
    for css in ["a.css", "b.css"] {
        assert!(
            m.warnings
                .iter()
                .any(|w| w.kind == WarningKind::ReferenceCycle
                    && w.file.as_deref().is_some_and(|f| f.ends_with(css))),
            "{css}: {:?}",
            m.warnings
        );
    }
}

/// The line of the first occurrence of `needle` in the source of `path`.
fn line_of(path: &str, needle: &str) -> usize {
    let text = source(path);
    1 + text[..text.find(needle).unwrap()].matches('\n').count()
}

#[test]
fn broken_links_are_reported_with_file_and_line() {
    let m = compile(Path::new(SITE), &options()).unwrap();
    let broken: Vec<String> = m
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::BrokenLink)
        .map(ToString::to_string)
        .collect();
    let index = format!("{SITE}/index.html");
    // Each names its file and line, as a value and in its text.
    let lines: Vec<(Option<&str>, Option<usize>)> = m
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::BrokenLink)
        .map(|w| (w.file.as_deref(), w.line))
        .collect();
    assert_eq!(
        lines,
        ["missing-card.png", "missing.png", "docs/nowhere.html"]
            .map(|needle| (Some(index.as_str()), Some(line_of("/index.html", needle))))
    );
    assert_eq!(
        broken,
        [
            format!(
                "{index}:{}: broken link \"/img/missing-card.png\": the site serves nothing at /img/missing-card.png",
                line_of("/index.html", "missing-card.png")
            ),
            format!(
                "{index}:{}: broken link \"missing.png\": the site serves nothing at /missing.png",
                line_of("/index.html", "missing.png")
            ),
            format!(
                "{index}:{}: broken link \"docs/nowhere.html\": the site serves nothing at /docs/nowhere.html",
                line_of("/index.html", "docs/nowhere.html")
            ),
        ]
    );
    assert_eq!(m.stats.links.broken, 3);

    let mut strict = options();
    strict.config.links.broken = BrokenLinks::Error;
    match compile(Path::new(SITE), &strict) {
        Err(Error::BrokenLinks { links }) => {
            assert_eq!(links.len(), 3, "{links:?}");
            assert!(links.iter().all(|w| w.kind == WarningKind::BrokenLink));
        }
        other => panic!("expected the broken links as an error, got {other:?}"),
    }
    let mut ignoring = options();
    ignoring.config.links.ignore = vec![
        "/missing.png".into(),
        "/docs/**".into(),
        "/img/missing-*.png".into(),
    ];
    let m = compile(Path::new(SITE), &ignoring).unwrap();
    assert!(
        !m.warnings.iter().any(|w| w.kind == WarningKind::BrokenLink),
        "{:?}",
        m.warnings
    );
}

#[test]
fn each_page_gets_its_render_blocking_preloads() {
    let m = compile(Path::new(SITE), &options()).unwrap();
    let link = |path: &str| -> Option<String> {
        file(&m, path)
            .fields
            .iter()
            .find(|(n, _)| n == "link")
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        link("/index.html").unwrap(),
        format!(
            "</_static/pygments.css?2022.1&v={}>; rel=preload; as=style, \
             </fonts/x.woff2?v={}>; rel=preload; as=font; crossorigin, \
             </js/app.js?v=2022.1&lang=en&v={}>; rel=preload; as=script, \
             </js/sri.js?v={}>; rel=preload; as=script, \
             </_static/extra.css?v={}>; rel=preload; as=style",
            v(&m, "/_static/pygments.css"),
            v(&m, "/fonts/x.woff2"),
            v(&m, "/js/app.js"),
            v(&m, "/js/sri.js"),
            // pygments.css imports it: found a round trip later without the hint.
            v(&m, "/_static/extra.css"),
        )
    );
    assert_eq!(
        link("/docs/page.html").unwrap(),
        format!(
            "</_static/pygments.css?2022.1&v={}>; rel=preload; as=style, \
             </_static/extra.css?v={}>; rel=preload; as=style",
            v(&m, "/_static/pygments.css"),
            v(&m, "/_static/extra.css"),
        )
    );
    assert_eq!(link("/_static/pygments.css"), None);
    let mut off = options();
    off.config.links.preload = false;
    let m = compile(Path::new(SITE), &off).unwrap();
    assert!(m
        .files
        .iter()
        .all(|f| f.fields.iter().all(|(n, _)| n != "link")));
}

#[test]
fn fingerprint_mode_off_rewrites_nothing() {
    let mut off = options();
    off.config.fingerprint.mode = FingerprintMode::Off;
    let m = compile(Path::new(SITE), &off).unwrap();
    for file in &m.files {
        assert!(file.rewritten.is_none(), "{}", file.path);
        assert!(file.fingerprint.is_empty(), "{}", file.path);
    }
    assert_eq!(m.fingerprinted_cache_control, "");
    // The check and the hints still run (without v).
    assert_eq!(m.stats.links.broken, 3);
    assert!(file(&m, "/index.html")
        .fields
        .iter()
        .any(|(n, v)| n == "link" && v.starts_with("</_static/pygments.css?2022.1>;")));
}

#[test]
fn excluded_files_keep_their_references() {
    let mut options = options();
    options.config.fingerprint.exclude = vec!["/img/**".into()];
    let m = compile(Path::new(SITE), &options).unwrap();
    let index = served(&m, "/index.html");
    assert!(index.contains("src=img/bg.png alt"));
    assert!(index.contains(&format!("\"js/later.js?v={}\"", v(&m, "/js/later.js"))));
    assert!(file(&m, "/img/bg.png").fingerprint.is_empty());
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Issue 34, item 3: what a render-blocking stylesheet makes a browser fetch only once it has
/// it joins the page's hints, each at the URL the stylesheet (as served) names: the sheets it
/// imports on every screen (an import cycle ends), the face of each font the body text and the
/// page's headings are set in (the weight a browser picks; not a font nothing uses, nor a
/// bold face for normal text), and the body's background image. A page that sets fonts or
/// backgrounds itself gets no such hint for them.
#[test]
fn what_a_render_blocking_stylesheet_fetches_late_is_named_in_the_first_response() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| write_in(dir.path(), path, text);
    let page = |body: &str| {
        format!(
            "<!doctype html><html><head><title>t</title>\
             <link rel=stylesheet href=\"/css/theme.css\"></head><body>{body}</body></html>"
        )
    };
    write("index.html", &page("<h1>Title</h1><p>Text</p>"));
    write("plain.html", &page("<p>Text only</p>"));
    write(
        "styled.html",
        &page("<style>body { font-family: Own; background: #eee }</style><h1>T</h1>"),
    );
    write(
        "css/theme.css",
        r#"@import "basic.css";
@import url(print.css) print;
@font-face { font-family: Lato; src: url(../fonts/lato.woff2) format("woff2"); font-weight: 400 }
@font-face { font-family: Lato; src: url(../fonts/lato-bold.woff2) format("woff2"); font-weight: 700 }
@font-face { font-family: "Roboto Slab"; src: url("../fonts/slab.woff2") }
@font-face { font-family: Unused; src: url(../fonts/unused.woff2) }
body { font-family: Lato, sans-serif; background: url(../img/bg.svg) no-repeat }
h1 { font-family: "Roboto Slab", serif }
h2 { font-family: Unused }
"#,
    );
    write(
        "css/basic.css",
        "@import \"theme.css\";\nbody { margin: 0 }\n",
    );
    write("css/print.css", "body { color: black }\n");
    // A sheet for some screens only, and one whose body background a media query replaces:
    // what they name is not what every visitor fetches.
    write(
        "dark.html",
        "<!doctype html><html><head><link rel=stylesheet href=/css/theme.css \
         media=\"(prefers-color-scheme: dark)\"></head><body><p>x</p></body></html>",
    );
    write(
        "responsive.html",
        "<!doctype html><html><head><link rel=stylesheet href=/css/responsive.css></head>\
         <body><p>x</p></body></html>",
    );
    // (Over `inline_css_bytes`, so that it stays linked.)
    write(
        "css/responsive.css",
        &format!(
            "body {{ background: url(/img/bg.svg) }}\n\
             @media (min-width: 800px) {{ body {{ background: url(/img/bg.svg#wide) }} }}\n/* {} */\n",
            "x".repeat(5000)
        ),
    );
    for font in ["lato", "lato-bold", "slab", "unused"] {
        write(&format!("fonts/{font}.woff2"), &format!("wOF2 {font}"));
    }
    write(
        "img/bg.svg",
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1\" height=\"1\"/>",
    );
    let m = compile(dir.path(), &options()).unwrap();
    let link = |path: &str| link_field(&m, path);
    let hint = |path: &str, params: &str| format!("<{path}?v={}>; {params}", v(&m, path));
    let theme = hint("/css/theme.css", "rel=preload; as=style");
    // theme.css and basic.css import each other: references in a cycle keep their text (no
    // `v`), so a browser asks for /css/basic.css, whose import of /css/theme.css is another URL
    // than the page's: it is fetched too, and named; the walk ends there (each sheet once).
    let cycle = "</css/basic.css>; rel=preload; as=style, </css/theme.css>; rel=preload; as=style";
    let lato = hint("/fonts/lato.woff2", "rel=preload; as=font; crossorigin");
    let slab = hint("/fonts/slab.woff2", "rel=preload; as=font; crossorigin");
    let bg = hint("/img/bg.svg", "rel=preload; as=image");
    let joined = |hints: &[&str]| hints.join(", ");
    assert_eq!(
        link("/index.html"),
        joined(&[&theme, cycle, &lato, &slab, &bg])
    );
    assert_eq!(link("/plain.html"), joined(&[&theme, cycle, &lato, &bg]));
    assert_eq!(link("/styled.html"), joined(&[&theme, cycle]));
    assert_eq!(link("/dark.html"), theme);
    assert_eq!(
        link("/responsive.html"),
        hint("/css/responsive.css", "rel=preload; as=style")
    );
    // Each hint's URL is the one the served stylesheet names (resolved against its URL).
    let served_theme = served(&m, "/css/theme.css");
    for path in ["/fonts/lato.woff2", "/fonts/slab.woff2", "/img/bg.svg"] {
        let name = path.rsplit('/').next().unwrap();
        assert!(
            served_theme.contains(&format!("{name}?v={}", v(&m, path))),
            "{path} in {served_theme}"
        );
    }
    assert!(served_theme.contains("@import \"basic.css\";"));
    // The cap holds: at most MAX_PRELOADS (8) hints.
    assert!(link("/index.html").split(", <").count() <= 8);
}

/// Issue 34, item 3: a page whose only render-blocking resources are small stylesheets gets
/// them inline, each `<style>` where its `<link>` stood (with its `media`), and its preload
/// field no longer names them; a page is left linked whenever inlining could change what it
/// means or not save the round trip.
#[test]
fn small_render_blocking_stylesheets_go_inline_when_nothing_else_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| write_in(dir.path(), path, text);
    let page = |head: &str| {
        format!(
            "<!doctype html><html><head><title>t</title>{head}</head><body><p>x</p></body></html>"
        )
    };
    let a = "<link rel=stylesheet href=\"/css/a.css\" media=\"screen and (min-width: 1px)\">";
    let b = "<link rel=\"stylesheet\" href=\"css/b.css\">";
    write("index.html", &page(&format!("{a}\n{b}")));
    write(
        "script.html",
        &page(&format!("{a}<script src=\"/s.js\"></script>")),
    );
    write(
        "relative.html",
        &page("<link rel=stylesheet href=\"/css/rel.css\">"),
    );
    write(
        "big.html",
        &page("<link rel=stylesheet href=\"/css/big.css\">"),
    );
    write(
        "import.html",
        &page("<link rel=stylesheet href=\"/css/imp.css\">"),
    );
    write(
        "attrs.html",
        &page("<link rel=stylesheet href=\"/css/b.css\" id=theme>"),
    );
    write(
        "closing.html",
        &page("<link rel=stylesheet href=\"/css/closing.css\">"),
    );
    write(
        "bom.html",
        &page("<link rel=stylesheet href=\"/css/bom.css\">"),
    );
    write(
        "meta-csp.html",
        &page(&format!(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"style-src 'self'\">{b}"
        )),
    );
    write(
        "type.html",
        &page("<link rel=stylesheet href=\"/css/b.css\" type=text/plain>"),
    );
    write(
        "up.html",
        &page("<link rel=stylesheet href=\"/css/up.css\">"),
    );
    write("css/a.css", "body { background: url(/img/x.svg) }\n");
    write("css/b.css", "p { color: #333 }\n");
    write("css/rel.css", "body { background: url(img/y.svg) }\n");
    write(
        "css/big.css",
        &format!("p {{ color: red }}\n/* {} */\n", "x".repeat(5000)),
    );
    write("css/imp.css", "@import url(/css/b.css);\n");
    write("css/closing.css", "p::after { content: \"</style>\" }\n");
    write("css/bom.css", "\u{feff}p { color: #111 }\n");
    // From the root page this resolves as from /css/ (`..` stops at the root), but a page is
    // served at other URLs too (a 404 page at any missing path): only `/...` URLs go inline.
    write("css/up.css", "body { background: url(../img/x.svg) }\n");
    write(
        "css/img/y.svg",
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
    );
    write("img/x.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
    write("s.js", "1;\n");
    let m = compile(dir.path(), &options()).unwrap();
    assert_eq!(m.stats.links.inlined_css, 2);
    // The byte order mark a browser drops from a stylesheet would be part of a selector inline.
    assert_eq!(
        served(&m, "/bom.html"),
        page("<style>p { color: #111 }\n</style>")
    );
    let index = served(&m, "/index.html");
    let a_served = served(&m, "/css/a.css");
    assert!(a_served.contains(&format!("/img/x.svg?v={}", v(&m, "/img/x.svg"))));
    assert_eq!(
        index,
        page(&format!(
            "<style media=\"screen and (min-width: 1px)\">{a_served}</style>\n<style>{}</style>",
            served(&m, "/css/b.css")
        ))
    );
    let link = |path: &str| link_field(&m, path);
    assert!(
        !link("/index.html").contains("/css/"),
        "{}",
        link("/index.html")
    );
    for path in [
        "script", "relative", "big", "import", "attrs", "closing", "meta-csp", "type", "up",
    ] {
        let text = served(&m, &format!("/{path}.html"));
        assert!(!text.contains("<style"), "{path}: {text}");
        assert!(
            link(&format!("/{path}.html")).contains("as=style"),
            "{path}"
        );
    }
    // Off, and never with a Content-Security-Policy (it may forbid inline styles).
    let mut off = options();
    off.config.links.inline_css_bytes = 0;
    let mut with_csp = options();
    with_csp.config.headers.content_security_policy = "default-src 'self'".into();
    for options in [off, with_csp] {
        let m = compile(dir.path(), &options).unwrap();
        assert_eq!(m.stats.links.inlined_css, 0);
        assert!(!served(&m, "/index.html").contains("<style"));
    }
    write(
        "_headers",
        "/blog/*\n  Content-Security-Policy: style-src 'self'\n",
    );
    let m = compile(dir.path(), &options()).unwrap();
    assert_eq!(m.stats.links.inlined_css, 0);
}

/// A 3x2 PNG.
const PNG_3X2: [u8; 73] = [
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0,
    0, 0, 18, 22, 241, 77, 0, 0, 0, 16, 73, 68, 65, 84, 120, 156, 99, 56, 193, 197, 5, 65, 12, 112,
    22, 0, 56, 24, 5, 41, 6, 138, 246, 148, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130,
];

/// Issue 34, item 2: an `<img>` of the site's without `width` and `height` gets the image's
/// size (a PNG's, an SVG's in pixels), so the browser reserves its box; with `height:auto` (or
/// `width:auto`) in its style where CSS that may apply sets only its width (or height); never
/// where CSS may set both, nor on a page with a stylesheet the build cannot read, nor an image
/// with a size, a `srcset`, or in a `<picture>`.
#[test]
fn unsized_images_get_their_size_where_css_cannot_squeeze_them() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, bytes: &[u8]| write_in(dir.path(), path, bytes);
    let page = |head: &str, body: &str| {
        format!(
            "<!doctype html><html><head><title>t</title>{head}</head><body>{body}</body></html>"
        )
    };
    write("img/a.png", &PNG_3X2);
    write(
        "img/logo.svg",
        b"<?xml version=\"1.0\"?>\n<svg width=\"16\" height=\"16px\" viewBox=\"0 0 16 16\" \
          xmlns=\"http://www.w3.org/2000/svg\"><rect width=\"8\" height=\"8\"/></svg>",
    );
    write(
        "img/fluid.svg",
        b"<svg width=\"100%\" viewBox=\"0 0 4 4\" xmlns=\"http://www.w3.org/2000/svg\"></svg>",
    );
    let images = "<img src=\"/img/a.png\" alt=a>\n<img src=\"/img/a.png\" width=\"10\">\n\
                  <img src=\"/img/a.png\" srcset=\"/img/a.png 2x\">\n\
                  <picture><source srcset=\"/img/a.png\"><img src=\"/img/a.png\"></picture>\n\
                  <IMG SRC=/img/a.png />";
    write("index.html", page("", images).as_bytes());
    for (name, css) in [
        ("wide", "wide.css"),
        ("auto", "auto.css"),
        ("max", "max.css"),
    ] {
        let body = "<img src=\"/img/a.png\">\n<img class=\"tall\" src=\"/img/a.png\">\n\
                    <img src=\"/img/logo.svg\" style=\"vertical-align: middle\">\n\
                    <img src=\"/img/fluid.svg\">";
        let head = format!("<link rel=stylesheet href=/css/{css}>");
        write(&format!("{name}.html"), page(&head, body).as_bytes());
    }
    write(
        "styled.html",
        page(
            "<style>.hero { height: 10em }</style>",
            "<div style=\"width: 10px\"><img class=hero src=\"/img/a.png\"></div>",
        )
        .as_bytes(),
    );
    write(
        "elsewhere.html",
        page(
            "<link rel=stylesheet href=https://cdn.example/site.css>",
            "<img src=\"/img/a.png\">",
        )
        .as_bytes(),
    );
    // `main`'s width cannot reach an image; `.tall`'s height is one.
    write(
        "css/wide.css",
        b"main { max-width: 40em }\n.tall { height: 5em }\n",
    );
    write(
        "css/auto.css",
        b"main { max-width: 40em }\nimg { max-width: 100%; height: auto }\n",
    );
    write(
        "css/max.css",
        b"@media (min-width: 30em) { img { max-width: 100% } }\n.tall { height: 5em }\n",
    );
    let m = compile(dir.path(), &options()).unwrap();
    let v = v(&m, "/img/a.png");
    let src = format!("/img/a.png?v={v}");
    let logo = format!("/img/logo.svg?v={}", self::v(&m, "/img/logo.svg"));
    let fluid = format!("/img/fluid.svg?v={}", self::v(&m, "/img/fluid.svg"));
    assert_eq!(
        served(&m, "/index.html"),
        page(
            "",
            &format!(
                "<img src=\"{src}\" alt=a width=\"3\" height=\"2\">\n<img src=\"{src}\" width=\"10\">\n\
                 <img src=\"{src}\" srcset=\"{src} 2x\">\n\
                 <picture><source srcset=\"{src}\"><img src=\"{src}\"></picture>\n\
                 <IMG SRC={src} width=\"3\" height=\"2\"/>"
            )
        )
    );
    let body = |sized: [&str; 3]| {
        format!(
            "<img src=\"{src}\"{}>\n<img class=\"tall\" src=\"{src}\"{}>\n\
             <img src=\"{logo}\" style=\"vertical-align: middle{}>\n<img src=\"{fluid}\">",
            sized[0], sized[1], sized[2]
        )
    };
    let in_body = |path: &str| {
        let text = served(&m, path);
        text[text.find("<body>").unwrap() + 6..text.find("</body>").unwrap()].to_string()
    };
    assert_eq!(
        in_body("/wide.html"),
        body([
            " width=\"3\" height=\"2\"",
            " width=\"3\" height=\"2\" style=\"width:auto\"",
            "\" width=\"16\" height=\"16\"",
        ])
    );
    // `img { height: auto }` applies to every image: the attributes alone keep the ratio; a
    // width and a height (`.tall` in a stylesheet with `img { max-width }`) leave the image.
    assert_eq!(
        in_body("/auto.html"),
        body([
            " width=\"3\" height=\"2\"",
            " width=\"3\" height=\"2\"",
            "\" width=\"16\" height=\"16\"",
        ])
    );
    assert_eq!(
        in_body("/max.html"),
        body([
            " width=\"3\" height=\"2\" style=\"height:auto\"",
            "",
            ";height:auto\" width=\"16\" height=\"16\"",
        ])
    );
    assert!(in_body("/styled.html").contains(&format!(
        "<img class=hero src=\"{src}\" width=\"3\" height=\"2\" style=\"width:auto\">"
    )));
    assert!(!served(&m, "/elsewhere.html").contains("height="));
    assert_eq!(m.stats.links.sized_images, 2 + 3 + 3 + 2 + 1);
    let mut off = options();
    off.config.links.size_images = false;
    let m = compile(dir.path(), &off).unwrap();
    assert_eq!(m.stats.links.sized_images, 0);
    assert!(!served(&m, "/index.html").contains("height="));
    // A Content-Security-Policy may forbid `style` attributes: only the images that need none.
    let mut with_csp = options();
    with_csp.config.headers.content_security_policy = "default-src 'self'".into();
    let m = compile(dir.path(), &with_csp).unwrap();
    assert!(!served(&m, "/max.html").contains("height="));
    assert!(!served(&m, "/wide.html").contains("style=\"width:auto\""));
    assert_eq!(m.stats.links.sized_images, 2 + 2 + 3);
}

/// Issue 34, item 2, what the sizing reads of CSS: an `img { height: auto }` only in a print
/// stylesheet does not make `height:auto` sure (the screen's `max-width` still gets it in the
/// style); a comment before a rule does not hide it; a rule with a nested rule, a flex item's
/// rule, and a stylesheet importing another site's leave the image as written.
#[test]
fn sizing_reads_media_comments_nesting_flex_and_imports() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, bytes: &[u8]| write_in(dir.path(), path, bytes);
    write("img/a.png", &PNG_3X2);
    let page = |links: &str| {
        format!(
            "<!doctype html><html><head><title>t</title>{links}</head><body>\
             <img src=\"/img/a.png\"></body></html>"
        )
    };
    write(
        "css/screen.css",
        b"/* don't let images overflow */\nimg { max-width: 100% }\n",
    );
    write("css/print.css", b"img { height: auto }\n");
    write("css/nested.css", b"main { & img { width: 10em } }\n");
    write("css/flex.css", b"img { flex: 1 }\n");
    write(
        "css/remote.css",
        b"@import url(https://cdn.example/x.css);\nmain { color: red }\n",
    );
    let link = |href: &str, media: &str| format!("<link rel=stylesheet href={href}{media}>");
    let pages = [
        (
            "print",
            link("/css/screen.css", "") + &link("/css/print.css", " media=print"),
        ),
        ("nested", link("/css/nested.css", "")),
        ("flex", link("/css/flex.css", "")),
        ("remote", link("/css/remote.css", "")),
    ];
    for (name, links) in &pages {
        write(&format!("{name}.html"), page(links).as_bytes());
    }
    let m = compile(dir.path(), &options()).unwrap();
    let v = v(&m, "/img/a.png");
    assert!(served(&m, "/print.html").contains(&format!(
        "<img src=\"/img/a.png?v={v}\" width=\"3\" height=\"2\" style=\"height:auto\">"
    )));
    for name in ["nested", "flex", "remote"] {
        assert!(
            !served(&m, &format!("/{name}.html")).contains("height="),
            "{name}"
        );
    }
}

/// A grey PNG of `width` x `height` pixels.
fn png(width: u32, height: u32) -> Vec<u8> {
    use std::io::Write;
    let chunk = |out: &mut Vec<u8>, kind: &[u8], data: &[u8]| {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        out.extend_from_slice(&crc.sum().to_be_bytes());
    };
    let mut header = Vec::new();
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    header.extend_from_slice(&[8, 0, 0, 0, 0]);
    let mut rows = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    for _ in 0..height {
        rows.write_all(&[0]).unwrap();
        rows.write_all(&vec![128; width as usize]).unwrap();
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut out, b"IHDR", &header);
    chunk(&mut out, b"IDAT", &rows.finish().unwrap());
    chunk(&mut out, b"IEND", b"");
    out
}

/// Issue 34, item 2: the page's first large image near the top gets `fetchpriority="high"`
/// and a preload hint (with its `srcset` and `sizes`), images far down with a size
/// `loading="lazy" decoding="async"`; text in a `<nav>` is not above the content; the
/// author's `fetchpriority` and `loading` stand; `prioritize_images = false` changes nothing.
#[test]
fn the_likely_lcp_image_gets_priority_and_images_far_down_wait() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, bytes: &[u8]| write_in(dir.path(), path, bytes);
    let page = |body: &str| {
        format!("<!doctype html><html><head><title>t</title></head><body>{body}</body></html>")
    };
    let pages_of_text = format!("<p>{}</p>", "All work and no play. ".repeat(1000));
    write("img/photo.png", &png(640, 400));
    write("img/logo.png", &PNG_3X2);
    let logo = "<img src=/img/logo.png width=120 height=32>";
    write(
        "index.html",
        page(&format!(
            "{logo}<h1>Photos</h1><p>A photo.</p><img src=\"/img/photo.png\" alt=p>\
             {pages_of_text}<img src=\"/img/photo.png\" alt=far>\
             <img src=\"/img/photo.png\" loading=eager alt=eager>\
             <img src=\"/img/photo.png\" decoding=sync alt=sync>"
        ))
        .as_bytes(),
    );
    write(
        "srcset.html",
        page(&format!(
            "<nav>{pages_of_text}</nav><img src=\"/img/photo.png\" width=640 height=400 \
             srcset=\"/img/photo.png 1x, /img/photo.png?x=1&amp;y=2 2x\" sizes=\"(min-width: 40em) 50vw, 100vw\">"
        ))
        .as_bytes(),
    );
    write(
        "author.html",
        page(&format!(
            "<img src=/img/logo.png fetchpriority=low><img src=\"/img/photo.png\">\
             {pages_of_text}<img src=\"/img/photo.png\" loading=eager>"
        ))
        .as_bytes(),
    );
    write(
        "late.html",
        page(&format!("{pages_of_text}<img src=\"/img/photo.png\">")).as_bytes(),
    );
    let m = compile(dir.path(), &options()).unwrap();
    let src = format!("/img/photo.png?v={}", v(&m, "/img/photo.png"));
    let logo_src = format!("/img/logo.png?v={}", v(&m, "/img/logo.png"));
    let served_logo = format!("<img src={logo_src} width=120 height=32>");
    assert_eq!(
        served(&m, "/index.html"),
        page(&format!(
            "{served_logo}<h1>Photos</h1><p>A photo.</p>\
             <img src=\"{src}\" alt=p width=\"640\" height=\"400\" fetchpriority=\"high\">\
             {pages_of_text}<img src=\"{src}\" alt=far width=\"640\" height=\"400\" loading=\"lazy\" decoding=\"async\">\
             <img src=\"{src}\" loading=eager alt=eager width=\"640\" height=\"400\">\
             <img src=\"{src}\" decoding=sync alt=sync width=\"640\" height=\"400\" loading=\"lazy\">"
        ))
    );
    assert_eq!(
        link_field(&m, "/index.html"),
        format!("<{src}>; rel=preload; as=image; fetchpriority=high")
    );
    // The nav's text is beside the content: the image is the first screen's.
    let srcset = served(&m, "/srcset.html");
    assert!(srcset.contains("sizes=\"(min-width: 40em) 50vw, 100vw\" fetchpriority=\"high\">"));
    assert!(!srcset.contains("lazy"));
    assert_eq!(
        link_field(&m, "/srcset.html"),
        format!(
            "<{src}>; rel=preload; as=image; fetchpriority=high; imagesrcset=\"{src} 1x, \
             /img/photo.png?x=1&y=2&v={} 2x\"; imagesizes=\"(min-width: 40em) 50vw, 100vw\"",
            v(&m, "/img/photo.png")
        )
    );
    // The author chose: nothing changes (the images are only sized).
    let author = served(&m, "/author.html");
    assert!(!author.contains("fetchpriority=\"high\"") && !author.contains("lazy"));
    assert_eq!(link_field(&m, "/author.html"), "");
    // The first large image, after pages of text: not the first screen's, and it may wait.
    let late = served(&m, "/late.html");
    assert!(!late.contains("fetchpriority") && late.contains("loading=\"lazy\""));
    assert_eq!(link_field(&m, "/late.html"), "");
    assert_eq!(
        (m.stats.links.lcp_images, m.stats.links.lazy_images),
        (2, 3)
    );

    let mut off = options();
    off.config.links.prioritize_images = false;
    let m = compile(dir.path(), &off).unwrap();
    assert_eq!(
        (m.stats.links.lcp_images, m.stats.links.lazy_images),
        (0, 0)
    );
    for page in ["/index.html", "/srcset.html"] {
        let served = served(&m, page);
        assert!(!served.contains("fetchpriority=\"high\"") && !served.contains("lazy"));
        assert_eq!(link_field(&m, page), "");
    }
}
