//! Hostile sites: files an author may have downloaded, built as a site. Each build either
//! succeeds (with a warning naming the file when something was left as it is) or fails with an
//! error naming file and line: never a panic, an abort, an exhausted memory or content from
//! outside the site. What it holds:
//!
//! * decompression bombs (`tests/fixtures/hostile/`): a 35-byte GIF whose logical screen is
//!   65535x65535, a PNG that declares 100000x100000, one within `max_pixels` but over
//!   `max_memory_mb`, a JPEG whose frame header says 65500x65500, a WebP that declares
//!   16383x16383; images with truncated data or a lying checksum. All of them together build
//!   with a peak resident set under 1 GiB (this test binary's own, `VmHWM`);
//! * file names with a leading `-`, spaces, `%`, non-ASCII and a 255-byte component;
//! * HTML with unclosed tags, `<base href>`, srcset edge cases, `<template>`, CDATA and bytes
//!   that are not UTF-8; CSS with unterminated strings and escaped `url()`s;
//! * `_headers` and `_redirects` of 100,000 rules, and lines of a megabyte.
//!
//! A link to a folder out of the site is here; links to files and loops, FIFOs, names with control characters and configuration files
//! with CRLF, a BOM and tabs are in `compile.rs`.

use edgesite_core::ContentCoding;
use edgesite_sitegen::model::Asset;
use edgesite_sitegen::warning::{Warning, WarningKind};
use edgesite_sitegen::{compile, Manifest, Options};
use std::fs;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

const HOSTILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/hostile");

fn options() -> Options {
    Options::new(UNIX_EPOCH + Duration::from_secs(1_700_000_000))
}

fn file<'m>(manifest: &'m Manifest, path: &str) -> &'m Asset {
    manifest
        .files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("{path} is not served"))
}

/// The SHA-256 (hex) of what `asset` serves as identity.
fn identity(asset: &Asset) -> &str {
    &asset
        .representations
        .iter()
        .find(|r| r.coding == ContentCoding::Identity)
        .expect("an identity")
        .sha256
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// This process's peak resident set (Linux's `VmHWM`), in bytes.
fn peak_rss() -> u64 {
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

#[test]
fn bombs_and_broken_images_are_served_as_published_with_a_warning_in_little_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for entry in fs::read_dir(HOSTILE).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
        names.push(entry.file_name().into_string().unwrap());
    }
    let imgs: String = names.iter().map(|n| format!("<img src=\"{n}\">")).collect();
    fs::write(dir.path().join("index.html"), format!("<p>{imgs}</p>")).unwrap();
    let manifest = compile(dir.path(), &options()).unwrap();
    let warned = |name: &str, says: &[&str]| {
        let warning = manifest
            .warnings
            .iter()
            .find(|w| w.file.as_deref() == Some(&format!("/{name}")))
            .unwrap_or_else(|| panic!("no warning names {name}: {:?}", manifest.warnings));
        assert_eq!(warning.kind, WarningKind::ImageNotRead, "{name}");
        for part in says {
            assert!(warning.message.contains(part), "{name}: {warning}");
        }
    };
    warned("screen-bomb.gif", &["65535x65535", "max_pixels"]);
    warned("pixels-bomb.png", &["100000x100000", "max_pixels"]);
    warned("memory-bomb.png", &["6000x6000", "max_memory_mb"]);
    warned("lying-header.jpg", &["65500x65500", "max_pixels"]);
    warned("bad-crc.png", &["cannot decode", "CRC"]);
    for name in &names {
        let asset = file(&manifest, &format!("/{name}"));
        let source = fs::read(dir.path().join(name)).unwrap();
        // Truncated data decodes as far as it goes (the decoders fill the rest): such an image
        // may get variants of what it shows.
        if !name.starts_with("truncated") {
            // Served as published: its own bytes, no variant.
            assert_eq!(identity(asset), sha256(&source), "{name}");
            assert!(asset.variants.is_empty(), "{name}");
        }
    }
    // The WebP is not read by the stage at all (only PNG, JPEG and GIF are).
    assert!(!manifest
        .warnings
        .iter()
        .any(|w| w.to_string().contains("pixels-bomb.webp")));
    let peak = peak_rss();
    assert!(peak < 1 << 30, "peak resident set {peak} bytes");
}

#[test]
fn unusual_names_are_served() {
    let dir = tempfile::tempdir().unwrap();
    let long = format!("{}.txt", "n".repeat(251));
    let names = [
        "-leading-dash.txt",
        "with space.txt",
        "100%.txt",
        "%41 not an escape.txt",
        "café – ünïcödé.txt",
        "日本語.txt",
        long.as_str(),
    ];
    for name in names {
        fs::write(dir.path().join(name), name).unwrap();
    }
    fs::write(dir.path().join("index.html"), "<p>names</p>").unwrap();
    let manifest = compile(dir.path(), &options()).unwrap();
    for name in names {
        let asset = file(&manifest, &format!("/{name}"));
        assert_eq!(identity(asset), sha256(name.as_bytes()));
    }
}

#[test]
fn html_and_css_edge_cases_build() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path();
    fs::write(site.join("a.png"), b"not really a png").unwrap();
    fs::write(site.join("b.css"), "p{color:red}").unwrap();
    let pages: [(&str, &[u8]); 7] = [
        ("unclosed.html", b"<html><body><div><p>open <a href=\"b.css\"><img src=\"a.png\"<p>"),
        (
            "base.html",
            b"<base href=\"https://elsewhere.example/x/\"><link rel=stylesheet href=\"b.css\"><img src=a.png>",
        ),
        (
            "srcset.html",
            b"<img srcset=\", ,a.png 1x,, a.png 2x , a.png  ,data:image/png;base64,AAAA 3x, a.png 99999999999999999999w\" src=\"\">",
        ),
        (
            "template.html",
            b"<template><img src=a.png><link rel=stylesheet href=b.css></template><svg><![CDATA[ <img src=a.png> ]]></svg>",
        ),
        (
            "encoding.html",
            b"<meta charset=shift_jis><p>\x82\xa0 \xff\xfe\x00 <img src=\"a.png\"> \xc3\x28</p>",
        ),
        (
            "style.html",
            b"<style>p{background:url(\"a.png);}</style><style>q{background:url(a\\2e png)}</style><p style=\"background:url('a.png\">x",
        ),
        ("empty.html", b""),
    ];
    for (name, bytes) in pages {
        fs::write(site.join(name), bytes).unwrap();
    }
    fs::write(
        site.join("broken.css"),
        "a{background:url(\"a.png}\nb{background:url(a\\2e png)}\n@import url(b.css\nc{content:\"\\",
    )
    .unwrap();
    fs::write(site.join("index.html"), "<p>edge cases</p>").unwrap();
    let manifest = compile(site, &options()).unwrap();
    for (name, _) in pages {
        file(&manifest, &format!("/{name}"));
    }
}

#[test]
fn a_hundred_thousand_rules_build_or_fail_naming_a_line() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path();
    fs::write(site.join("index.html"), "<p>rules</p>").unwrap();
    let headers: String = (0..100_000)
        .map(|i| format!("/p{i}/*\r\n\tX-Rule: {i}\r\n"))
        .collect();
    fs::write(site.join("_headers"), format!("\u{feff}{headers}")).unwrap();
    let redirects: String = (0..100_000)
        .map(|i| format!("/r{i} /index.html 301\r\n"))
        .collect();
    fs::write(site.join("_redirects"), redirects).unwrap();
    let manifest = compile(site, &options()).unwrap();
    let redirects = manifest
        .routes
        .iter()
        .filter(|r| r.path.starts_with("/r"))
        .count();
    assert_eq!(redirects, 100_000);
    // Every rule of `_headers` matches nothing: 20 warnings of their own, then a count.
    let unused: Vec<&Warning> = manifest
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::UnusedHeaderRule)
        .collect();
    assert_eq!(unused.len(), 21, "{unused:?}");
    assert!(unused[..20].iter().all(|w| w.line.is_some()));
    assert_eq!(
        (unused[20].line, unused[20].message.as_str()),
        (None, "99980 more rules match no file")
    );
}

#[test]
fn a_line_of_a_megabyte_is_an_error_naming_the_line_with_a_short_excerpt() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path();
    fs::write(site.join("index.html"), "<p>long</p>").unwrap();
    let long = "x".repeat(1 << 20);
    fs::write(site.join("_headers"), format!("/*\n  X-A: a\n{long}\n")).unwrap();
    let err = compile(site, &options()).unwrap_err().to_string();
    assert!(
        err.contains("_headers:3:"),
        "{}",
        &err[..err.len().min(300)]
    );
    assert!(err.len() < 600, "{} bytes", err.len());
    fs::remove_file(site.join("_headers")).unwrap();
    fs::write(site.join("_redirects"), format!("/a /{long} 301\n")).unwrap();
    let err = compile(site, &options()).unwrap_err().to_string();
    assert!(
        err.contains("_redirects:1:"),
        "{}",
        &err[..err.len().min(300)]
    );
    assert!(err.len() < 600, "{} bytes", err.len());
}

/// Every file the walk reads is read from inside the site: a rule file that is a folder is an
/// error naming it, a site folder that is itself a link is followed (its target is the site).
#[test]
fn a_rule_file_that_is_a_folder_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("index.html"), "<p>x</p>").unwrap();
    fs::create_dir(dir.path().join("_headers")).unwrap();
    let err = compile(dir.path(), &options()).unwrap_err().to_string();
    assert!(err.contains("_headers"), "{err}");
    let link = tempfile::tempdir().unwrap();
    let site: &Path = &link.path().join("site");
    std::os::unix::fs::symlink(dir.path(), site).unwrap();
    fs::remove_dir(dir.path().join("_headers")).unwrap();
    compile(site, &options()).unwrap();
}

/// A link to a folder outside the site is refused like a link to a file, naming the link: the
/// build reads nothing from it.
#[test]
fn a_link_to_a_folder_outside_the_site_is_an_error_naming_it() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(
        outside.path().join("id_rsa"),
        "-----BEGIN OPENSSH PRIVATE KEY-----",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("index.html"), "<p>x</p>").unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("ssh")).unwrap();
    let err = compile(dir.path(), &options()).unwrap_err();
    assert!(
        matches!(err, edgesite_sitegen::Error::SymlinkOutside { .. }),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains("ssh") && !text.contains("PRIVATE KEY"),
        "{text}"
    );
}
