//! The optimize stage (`[optimize]`, issue 34) in whole builds: what is minified and how, what
//! the later stages make of the minified bytes (fingerprints, ETags), what is served as
//! written and why, and the warnings that name a file the minifiers could not read.

use edgesite_sitegen::config::Config;
use edgesite_sitegen::model::Asset;
use edgesite_sitegen::warning::WarningKind;
use edgesite_sitegen::{compile, Manifest, Options};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

fn hex(digest: impl AsRef<[u8]>) -> String {
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

fn options(toml: &str) -> Options {
    let config = Config::parse(toml, Path::new("edgesite.toml")).unwrap();
    Options::from_config(config, UNIX_EPOCH + Duration::from_secs(1_700_000_000))
}

fn write(dir: &Path, path: &str, text: &str) {
    let to = dir.join(path);
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::write(to, text).unwrap();
}

fn file<'m>(manifest: &'m Manifest, path: &str) -> &'m Asset {
    manifest.files.iter().find(|f| f.path == path).unwrap()
}

/// `file:line` of each warning of `kind`.
fn places(manifest: &Manifest, kind: WarningKind) -> Vec<String> {
    let place = |w: &edgesite_sitegen::warning::Warning| {
        format!(
            "{}:{}",
            w.file.as_deref().unwrap_or(""),
            w.line.unwrap_or(0)
        )
    };
    manifest
        .warnings
        .iter()
        .filter(|w| w.kind == kind)
        .map(place)
        .collect()
}

/// What the build serves for `path`.
fn served(manifest: &Manifest, path: &str) -> String {
    let file = file(manifest, path);
    let bytes = match file.identity_bytes() {
        Some(bytes) => bytes.to_vec(),
        None => file.source.read().unwrap().into_owned(),
    };
    String::from_utf8(bytes).unwrap()
}

const PAGE: &str = "<!doctype html>
<html>
  <head>
    <!-- the page's head -->
    <link rel=stylesheet href=/style.css>
    <style>
      h1 { color: #ff0000; }
    </style>
  </head>
  <body>
    <h1>Title</h1>
    <p>Some     text,
       on two lines.</p>
    <pre>  keep
      this   </pre>
    <script src=/app.js></script>
    <script>
      var greeting = 'hello' + ' ' + 'world';
    </script>
  </body>
</html>
";

const STYLE: &str = "/* the site's style */
body {
  margin: 0px;
  font-family: serif;
}

@media (min-width: 40em) {
  body { margin: 0px 0px 0px 0px }
}

.wide {
  width: 100%;
}
";

const APP: &str = "// the site's script
function greet(name) {
  var message = 'Hello, ' + name;
  console.log(message);
}
greet('reader');
";

fn site() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "index.html", PAGE);
    write(dir.path(), "style.css", STYLE);
    write(dir.path(), "app.js", APP);
    dir
}

#[test]
fn pages_stylesheets_and_scripts_are_minified_and_fingerprinted_as_served() {
    let dir = site();
    // Not inline, so that the page names the stylesheet's fingerprint.
    let manifest = compile(dir.path(), &options("[links]\ninline_css_bytes = 0\n")).unwrap();
    let css = served(&manifest, "/style.css");
    assert_eq!(
        css,
        "body{margin:0;font-family:serif}@media (min-width:40em){body{margin:0}}.wide{width:100%}"
    );
    let js = served(&manifest, "/app.js");
    assert!(
        !js.contains("the site's script") && js.len() < APP.len() * 3 / 4,
        "{js}"
    );
    assert!(
        js.contains("function greet(") && js.contains("greet(`reader`)"),
        "{js}"
    );
    let page = served(&manifest, "/index.html");
    // Whitespace runs shortened (their line breaks kept), <pre> as written, the inline style
    // and script minified; comments kept (the page has scripts, which might read them).
    assert!(page.contains("<!-- the page's head -->"), "{page}");
    assert!(page.contains("<p>Some text,\non two lines.</p>"), "{page}");
    assert!(page.contains("<pre>  keep\n      this   </pre>"), "{page}");
    assert!(page.contains("<style>h1{color:red}</style>"), "{page}");
    assert!(page.contains("var greeting=`hello world`"), "{page}");
    // The link pass fingerprints the minified bytes, and the ETag is theirs.
    let v = &hex(Sha256::digest(css.as_bytes()))[..10];
    assert!(page.contains(&format!("/style.css?v={v}")), "{page}");
    assert_eq!(
        file(&manifest, "/style.css").sha256,
        hex(Sha256::digest(css.as_bytes()))
    );
    // The manifest still names the site's file.
    let style = file(&manifest, "/style.css");
    assert!(style.source.path().unwrap().ends_with("style.css"));
    let stats = &manifest.stats.optimize;
    assert_eq!(
        (stats.html.minified, stats.css.minified, stats.js.minified),
        (1, 1, 1)
    );
    assert_eq!(stats.css.bytes, STYLE.len() as u64);
    assert_eq!(stats.css.minified_bytes, css.len() as u64);
    let report = manifest.report();
    assert!(
        report.contains(&format!(
            "CSS 1 of 1 files minified, {} -> {} bytes",
            STYLE.len(),
            css.len()
        )),
        "{report}"
    );
    assert!(manifest.report_html().contains("<section id=\"optimize\">"));
}

#[test]
fn optimize_off_serves_every_file_as_written() {
    let dir = site();
    let off = "[optimize]\nhtml = false\ncss = false\njs = false\n";
    let manifest = compile(dir.path(), &options(off)).unwrap();
    assert_eq!(served(&manifest, "/style.css"), STYLE);
    assert_eq!(served(&manifest, "/app.js"), APP);
    // The link pass's `?v=` is the only change in the page.
    let page = served(&manifest, "/index.html");
    let v = &hex(Sha256::digest(STYLE.as_bytes()))[..10];
    assert_eq!(
        page.replace(&format!("?v={v}"), "").split("?v=").count(),
        2,
        "only app.js's v left: {page}"
    );
    // One kind off: only it is as written.
    let manifest = compile(dir.path(), &options("[optimize]\njs = false\n")).unwrap();
    assert_eq!(served(&manifest, "/app.js"), APP);
    assert_ne!(served(&manifest, "/style.css"), STYLE);
    assert!(served(&manifest, "/index.html").contains("var greeting = 'hello'"));
}

#[test]
fn what_must_keep_its_bytes_is_served_as_written() {
    let dir = site();
    let sri = format!(
        "<script src=/sri.js integrity=\"sha384-x\"></script>{}",
        "<script src=/lib.min.js></script><script src=/keep/own.js></script>"
    );
    write(dir.path(), "other.html", &sri);
    write(dir.path(), "sri.js", APP);
    write(dir.path(), "lib.min.js", APP);
    write(dir.path(), "keep/own.js", APP);
    write(
        dir.path(),
        "mapped.js",
        &format!("{APP}//# sourceMappingURL=mapped.js.map\n"),
    );
    let long_lines = format!("{}\n", "var a = 1;    ".repeat(100));
    write(dir.path(), "bundle.js", &long_lines);
    let hashed = format!("app.{}.js", &hex(Sha256::digest(APP.as_bytes()))[..8]);
    write(dir.path(), &hashed, APP);
    let config = "[optimize]\nexclude = [\"/keep/**\"]\n";
    let manifest = compile(dir.path(), &options(config)).unwrap();
    for path in [
        "/sri.js",
        "/lib.min.js",
        "/keep/own.js",
        &format!("/{hashed}"),
    ] {
        assert_eq!(served(&manifest, path), APP, "{path}");
    }
    assert_eq!(served(&manifest, "/bundle.js"), long_lines);
    assert_ne!(served(&manifest, "/app.js"), APP);
    // A source map comment on short lines: a bundler's unminified output, minified, and its
    // comment (whose map named the unminified text's positions) gone with the others.
    let mapped = served(&manifest, "/mapped.js");
    assert_eq!(mapped, served(&manifest, "/app.js"));
    assert_eq!(manifest.stats.optimize.js.skipped, 5);
}

#[test]
fn what_the_minifiers_cannot_read_is_kept_and_named_by_file_and_line() {
    let dir = site();
    write(
        dir.path(),
        "bad.css",
        "a { color: red }\n\nb..c { color: blue }\n",
    );
    write(dir.path(), "bad.js", "var a = 1;\nvar b = ;\n");
    write(
        dir.path(),
        "page.html",
        "<p>one</p>\n\n<script>\n  var ok = 1;\n  var = 2;\n</script>\n",
    );
    let manifest = compile(dir.path(), &options("")).unwrap();
    assert_eq!(
        served(&manifest, "/bad.css"),
        "a { color: red }\n\nb..c { color: blue }\n"
    );
    assert_eq!(served(&manifest, "/bad.js"), "var a = 1;\nvar b = ;\n");
    let page = served(&manifest, "/page.html");
    assert!(page.contains("<p>one</p>\n\n<script>\n  var ok = 1;\n  var = 2;\n</script>"));
    let warnings: Vec<String> = places(&manifest, WarningKind::NotOptimized);
    let names = |suffix: &str| warnings.iter().any(|w| w.ends_with(suffix));
    assert!(
        names("bad.css:3") && names("bad.js:2") && names("page.html:5"),
        "{warnings:?}"
    );
    assert_eq!(manifest.stats.optimize.css.kept, 1);
}

#[test]
fn a_stylesheet_that_keeps_spaces_keeps_every_pages_whitespace() {
    let dir = site();
    write(dir.path(), "code.css", "code { white-space: pre-wrap }\n");
    let manifest = compile(dir.path(), &options("")).unwrap();
    let page = served(&manifest, "/index.html");
    assert!(
        page.contains("<p>Some     text,\n       on two lines.</p>"),
        "{page}"
    );
    assert!(manifest.stats.optimize.spaces_kept);
    // Within <pre> only: pages are minified.
    write(
        dir.path(),
        "code.css",
        "pre code { white-space: pre-wrap }\n",
    );
    let manifest = compile(dir.path(), &options("")).unwrap();
    assert!(served(&manifest, "/index.html").contains("<p>Some text,\non two lines.</p>"));
}

#[test]
fn a_content_security_policy_keeps_the_pages_own_styles_and_scripts() {
    let dir = site();
    let config = "[headers]\ncontent_security_policy = \"default-src 'self'\"\n";
    let manifest = compile(dir.path(), &options(config)).unwrap();
    let page = served(&manifest, "/index.html");
    assert!(
        page.contains("<style>\n      h1 { color: #ff0000; }\n    </style>"),
        "{page}"
    );
    assert!(
        page.contains("var greeting = 'hello' + ' ' + 'world';"),
        "{page}"
    );
    assert!(page.contains("<p>Some text,\non two lines.</p>"), "{page}");
    assert_ne!(served(&manifest, "/style.css"), STYLE);
    // A page's own <meta> policy too.
    write(
        dir.path(),
        "meta.html",
        "<meta http-equiv=Content-Security-Policy content=\"script-src 'sha256-x'\">\
         <script>\n  var kept = 1 + 1;\n</script>",
    );
    let manifest = compile(dir.path(), &options("")).unwrap();
    assert!(served(&manifest, "/meta.html").contains("var kept = 1 + 1;"));
}

#[test]
fn optimize_values_are_checked_with_their_line() {
    let err = Config::parse(
        "[optimize]\ncss = true\nexclude = [\"vendor/**\"]\n",
        Path::new("edgesite.toml"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("edgesite.toml:3") && err.contains("optimize.exclude"),
        "{err}"
    );
    let err = Config::parse("[optimize]\nminify = true\n", Path::new("edgesite.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("edgesite.toml:2") && err.contains("minify"),
        "{err}"
    );
}

#[test]
fn hostile_files_are_kept_with_a_warning_never_a_crash() {
    let dir = site();
    // Past each minifier's bounds: refused before it parses (crates/sitegen/src/optimize/guard.rs).
    // Many short lines: they do not look minified already.
    let deep_js = format!(
        "var a = {}1{};\n",
        "(\n".repeat(120_000),
        ")".repeat(120_000)
    );
    write(dir.path(), "deep.js", &deep_js);
    let deep_css = format!(
        "{}a{} {{ color: red }}\n",
        ":is(\n".repeat(5_000),
        ")".repeat(5_000)
    );
    write(dir.path(), "deep.css", &deep_css);
    // Within the bound but deep: shortened without the compressor (quadratic in depth).
    let ternaries = format!("var a = {}1;\n", "b ? 1 :\n".repeat(20_000));
    write(dir.path(), "ternaries.js", &ternaries);
    // Not UTF-8.
    std::fs::write(dir.path().join("latin1.css"), b"a { content: \"\xe9\" }\n").unwrap();
    let manifest = compile(dir.path(), &options("")).unwrap();
    assert_eq!(served(&manifest, "/deep.js"), deep_js);
    assert_eq!(served(&manifest, "/deep.css"), deep_css);
    let short = served(&manifest, "/ternaries.js");
    assert!(short.len() < ternaries.len() * 2 / 3, "{:?}", &short[..80]);
    let warned = |name: &str| {
        manifest.warnings.iter().any(|w| {
            w.kind == WarningKind::NotOptimized
                && w.file.as_deref().is_some_and(|f| f.ends_with(name))
        })
    };
    assert!(
        warned("deep.js") && warned("deep.css"),
        "{:?}",
        manifest.warnings
    );
    let latin1 = file(&manifest, "/latin1.css");
    assert_eq!(latin1.size, 19);
}

#[test]
fn a_broken_link_in_a_minified_file_is_named_by_the_authors_line() {
    let dir = site();
    write(
        dir.path(),
        "links.css",
        "/* a comment\n   over lines */\n\nbody {\n  margin: 0;\n  background: url(missing.png);\n}\n",
    );
    let manifest = compile(dir.path(), &options("")).unwrap();
    assert_ne!(
        served(&manifest, "/links.css").lines().count(),
        7,
        "minified"
    );
    let broken: Vec<String> = places(&manifest, WarningKind::BrokenLink);
    assert!(
        broken.iter().any(|w| w.ends_with("links.css:6")),
        "{broken:?}"
    );
}

#[test]
fn integrity_keeps_a_file_as_written_whatever_the_page_is() {
    let dir = site();
    // The page is not minified (`html = false`), not UTF-8, or excluded: still read for it.
    write(dir.path(), "sri.js", APP);
    write(dir.path(), "caf\u{e9}.js", APP);
    std::fs::write(
        dir.path().join("latin1.html"),
        b"<p>\xe9</p><script src=/sri.js integrity=sha384-x></script>\
          <script src=/caf%C3%A9.js integrity=sha384-y></script>",
    )
    .unwrap();
    for config in [
        "",
        "[optimize]\nhtml = false\n",
        "[optimize]\nexclude = [\"/latin1.html\"]\n",
    ] {
        let manifest = compile(dir.path(), &options(config)).unwrap();
        assert_eq!(served(&manifest, "/sri.js"), APP, "{config}");
        assert_eq!(served(&manifest, "/caf\u{e9}.js"), APP, "{config}");
        assert_ne!(served(&manifest, "/app.js"), APP, "{config}");
    }
    // An import map's integrity: no script is minified.
    write(
        dir.path(),
        "modules.html",
        "<script type=importmap>{\"integrity\": {\"/m.js\": \"sha384-z\"}}</script>",
    );
    let manifest = compile(dir.path(), &options("")).unwrap();
    assert_eq!(served(&manifest, "/app.js"), APP);
}

#[test]
fn a_page_a_framework_hydrates_is_served_as_written() {
    let dir = site();
    let page =
        "<div id=root>\n  <p>Count:   <!-- -->3</p>\n</div>\n<script src=/app.js></script>\n";
    write(dir.path(), "react.html", page);
    let kept = "<p>a   b</p>\n<!-- a note -->\n<script src=/app.js></script>\n";
    write(dir.path(), "scripted.html", kept);
    let manifest = compile(dir.path(), &options("")).unwrap();
    assert!(served(&manifest, "/react.html").starts_with("<div id=root>\n  <p>Count:   <!-- -->3"));
    // A page with a script keeps its comments; its whitespace still collapses.
    let scripted = served(&manifest, "/scripted.html");
    assert!(
        scripted.starts_with("<p>a b</p>\n<!-- a note -->\n"),
        "{scripted}"
    );
}

/// A rebuild with the files unchanged reads what the stage made from the build's cache: the
/// same bytes served, the same warnings said (a file kept with a warning is read again, so its
/// warning is said each build), the same stats but for `cached`; a changed file is made again.
#[test]
fn a_rebuild_reads_the_minified_files_from_the_cache() {
    let dir = site();
    write(dir.path(), "bad.js", "var a = 1;\nvar b = ;\n");
    write(
        dir.path(),
        "inline.html",
        "<p>one</p>\n\n<script>\n  var = 2;\n</script>\n",
    );
    let cache = tempfile::tempdir().unwrap();
    let mut with_cache = options("");
    with_cache.cache_dir = Some(cache.path().to_path_buf());
    let build = || compile(dir.path(), &with_cache).unwrap();
    let (first, again) = (build(), build());
    let uncached = compile(dir.path(), &options("")).unwrap();
    for path in [
        "/index.html",
        "/style.css",
        "/app.js",
        "/bad.js",
        "/inline.html",
    ] {
        assert_eq!(served(&again, path), served(&first, path), "{path}");
        assert_eq!(served(&again, path), served(&uncached, path), "{path}");
    }
    let warned = |m: &Manifest| places(m, WarningKind::NotOptimized);
    assert_eq!(warned(&again), warned(&first));
    assert_eq!(warned(&again).len(), 2, "{:?}", warned(&again));
    // index.html, style.css and app.js from the cache; bad.js and inline.html made again.
    let stats = (&first.stats.optimize, &again.stats.optimize);
    assert_eq!((stats.0.cached, stats.1.cached), (0, 3));
    assert_eq!(stats.0.js.minified_bytes, stats.1.js.minified_bytes);
    assert!(again.report().contains(" 3 from the cache; "));
    // A file changed is made again (and is served changed).
    write(dir.path(), "style.css", "p  {  color : blue  }\n");
    let changed = build();
    assert_eq!(served(&changed, "/style.css"), "p{color:#00f}");
    assert_eq!(changed.stats.optimize.cached, 2);
}
