//! The speculation rules (`[links] speculation`, WICG nav-speculation) on a site built to tempt
//! them: clean URLs and their `.html` redirects, a folder and its slash-less redirect, a name
//! with a space, a 404 page, scripts and data, a `_redirects` file whose fixed rule and splat
//! rule both shadow pages and whose rule leaves the site, a library-mode API folder behind
//! `[links] ignore`, and a folder behind `speculation_exclude`. What it checks:
//!
//! * the rules name exactly the pages the site serves as pages, percent-encoded, sorted;
//! * every HTML file, and nothing else, carries `Speculation-Rules` with the file's URL and its
//!   `v`, and the file is `application/speculationrules+json`;
//! * `prerender` and the eagerness are as configured; `off`, or a one-page site, adds nothing.

use edgesite_sitegen::config::{Eagerness, SpeculationAction};
use edgesite_sitegen::{compile, Manifest, Options, SPECULATION_RULES_PATH};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::fs;
use std::time::{Duration, UNIX_EPOCH};

fn options() -> Options {
    let mut options = Options::new(UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    options.config.links.ignore = vec!["/api/**".into()];
    options.config.links.speculation_exclude = vec!["/private/*".into()];
    options
}

/// The site described in the module docs.
fn site() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "index.html",
            "<a href=/about>about</a> <a href=/docs/>docs</a>",
        ),
        ("about.html", "<p>about</p>"),
        ("docs/index.html", "<p>docs</p>"),
        ("docs/guide.html", "<p>guide</p>"),
        ("notes/a b.html", "<p>a note</p>"),
        ("404.html", "<p>not here</p>"),
        ("app.js", "console.log(1)"),
        ("data.json", "{}"),
        ("moved.html", "<p>shadowed by a fixed rule</p>"),
        ("legacy/page.html", "<p>shadowed by a splat rule</p>"),
        ("api/index.html", "<p>the Worker answers /api/ itself</p>"),
        ("private/account.html", "<p>has side effects</p>"),
        (
            "_redirects",
            "/moved /about 301\n/legacy/* /docs/:splat 301\n/out https://example.com/ 302\n",
        ),
    ];
    for (path, text) in files {
        let path = dir.path().join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    dir
}

/// The rules file's bytes, parsed.
fn rules(manifest: &Manifest) -> Value {
    let file = manifest
        .files
        .iter()
        .find(|f| f.path == SPECULATION_RULES_PATH)
        .expect("the rules file");
    serde_json::from_slice(&file.source.read().unwrap()).unwrap()
}

fn field<'m>(manifest: &'m Manifest, path: &str) -> Option<&'m str> {
    let file = manifest.files.iter().find(|f| f.path == path).unwrap();
    file.fields
        .iter()
        .find(|(name, _)| name == "speculation-rules")
        .map(|(_, value)| value.as_str())
}

#[test]
fn the_rules_name_exactly_the_pages_the_site_serves() {
    let site = site();
    let manifest = compile(site.path(), &options()).unwrap();
    assert_eq!(
        rules(&manifest),
        json!({"prefetch": [{
            "source": "list",
            "urls": ["/", "/about", "/docs/", "/docs/guide", "/notes/a%20b"],
            "eagerness": "moderate",
        }]})
    );
}

#[test]
fn every_page_and_nothing_else_announces_the_rules_by_their_fingerprinted_url() {
    let site = site();
    let manifest = compile(site.path(), &options()).unwrap();
    let file = manifest
        .files
        .iter()
        .find(|f| f.path == SPECULATION_RULES_PATH)
        .unwrap();
    assert_eq!(file.content_type, "application/speculationrules+json");
    // Made by the build and kept in memory, never written to be read back.
    let bytes = file.source.made().expect("bytes the build made");
    let sha = Sha256::digest(bytes);
    let v: String = sha[..5].iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(file.fingerprint, v);
    // A structured-field string (RFC 8941 §3.3.3) in a list of one.
    let expected = format!("\"{SPECULATION_RULES_PATH}?v={v}\"");
    for asset in &manifest.files {
        let html = asset.content_type.starts_with("text/html");
        let announced = field(&manifest, &asset.path);
        assert_eq!(
            announced,
            html.then_some(expected.as_str()),
            "{}",
            asset.path
        );
    }
}

#[test]
fn prerender_and_the_eagerness_are_as_configured() {
    let site = site();
    let mut options = options();
    options.config.links.speculation = SpeculationAction::Prerender;
    options.config.links.speculation_eagerness = Eagerness::Conservative;
    let rules = rules(&compile(site.path(), &options).unwrap());
    assert_eq!(rules["prerender"][0]["eagerness"], "conservative");
    assert!(rules.get("prefetch").is_none());
}

#[test]
fn off_or_a_single_page_adds_neither_the_file_nor_the_field() {
    let site = site();
    let mut options = options();
    options.config.links.speculation = SpeculationAction::Off;
    let off = compile(site.path(), &options).unwrap();
    let one = tempfile::tempdir().unwrap();
    fs::write(one.path().join("index.html"), "<p>alone</p>").unwrap();
    fs::write(one.path().join("style.css"), "p{}").unwrap();
    let single = compile(one.path(), &self::options()).unwrap();
    for manifest in [&off, &single] {
        assert!(manifest
            .files
            .iter()
            .all(|f| f.path != SPECULATION_RULES_PATH && field(manifest, &f.path).is_none()));
    }
}

#[test]
fn a_site_with_its_own_rules_file_keeps_it_unannounced() {
    let site = site();
    let own = site.path().join("_edgesite/speculation-rules.json");
    fs::create_dir_all(own.parent().unwrap()).unwrap();
    fs::write(&own, r#"{"prefetch":[]}"#).unwrap();
    let manifest = compile(site.path(), &options()).unwrap();
    assert_eq!(rules(&manifest), json!({"prefetch": []}));
    assert_eq!(field(&manifest, "/index.html"), None);
}
