//! `compile` on real directories: the committed fixture site, and temporary trees for what git
//! cannot hold. Covers:
//!
//! * the walk: sorted, `/`-separated, dotfiles skipped except `.well-known/`, symbolic links
//!   followed inside the site;
//! * the tables: Content-Type, strong ETags from SHA-256, routes for folders, the 404 page;
//! * precompression: br, zstd and gzip kept only where they pay, each with its own strong ETag;
//! * the SPA fallback option and the multipart boundary;
//! * the compression cache: a rebuild of a 200-file site after touching one file encodes only
//!   that file; budgets (per file, per bundle, the 80% warning); the manifest's SRI hashes and
//!   the report;
//! * determinism: two compiles of one tree write identical `site.rs`;
//! * every error, each naming the offending path: missing or empty site, a file as the site,
//!   unreadable entry, non-UTF-8 name, backslash in a name, over-long path, symbolic link outside
//!   the site, symbolic link loop, bad `SOURCE_DATE_EPOCH`.

use edgesite_core::RedirectStatus;
use edgesite_sitegen::config::{SpeculationAction, StorageTier, Store};
use edgesite_sitegen::model::{RouteTarget, Tier};
use edgesite_sitegen::warning::WarningKind;
use edgesite_sitegen::{compile, last_modified, Bodies, Error, Manifest, Options};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

const FIXTURE_SITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/site");

fn options() -> Options {
    Options::new(UNIX_EPOCH + Duration::from_secs(1_700_000_000))
}

fn compile_ok(dir: &Path) -> Manifest {
    compile(dir, &options()).unwrap_or_else(|e| panic!("compile {}: {e}", dir.display()))
}

fn compile_err(dir: &Path) -> Error {
    compile(dir, &options()).expect_err("compile should fail")
}

/// The canonical-URL redirect: 308, keeping the request's query.
fn redirect_308(location: &str) -> RouteTarget {
    RouteTarget::Redirect {
        status: RedirectStatus::PermanentRedirect,
        location: location.into(),
        query_at: Some(location.len()),
    }
}

fn paths(manifest: &Manifest) -> Vec<&str> {
    manifest.files.iter().map(|f| f.path.as_str()).collect()
}

#[test]
fn the_walk_is_sorted_and_skips_dotfiles_but_keeps_well_known() {
    let manifest = compile_ok(Path::new(FIXTURE_SITE));
    assert_eq!(
        paths(&manifest),
        [
            "/.well-known/security.txt",
            "/404.html",
            "/café menu.txt",
            "/data.json",
            "/docs/404.html",
            "/docs/index.html",
            "/docs/page.html",
            "/hello.txt",
            "/index.html",
            // Generated: the speculation rules of its pages (speculation.rs), the Markdown
            // twins of the two pages with text in their main content, and llms.txt (agents/).
            "/_edgesite/speculation-rules.json",
            "/index.md",
            "/docs/page.md",
            "/llms.txt",
            "/llms-full.txt",
        ]
    );
}

#[test]
fn files_get_type_size_hash_and_a_strong_etag() {
    let manifest = compile_ok(Path::new(FIXTURE_SITE));
    let hello = manifest
        .files
        .iter()
        .find(|f| f.path == "/hello.txt")
        .unwrap();
    let bytes = fs::read(Path::new(FIXTURE_SITE).join("hello.txt")).unwrap();
    assert_eq!(hello.size, bytes.len() as u64);
    assert_eq!(hello.content_type, "text/plain; charset=utf-8");
    assert_eq!(hello.sha256.len(), 64);
    assert!(hello.etag.starts_with('"') && hello.etag.ends_with('"') && hello.etag.len() == 24);
    let json = manifest
        .files
        .iter()
        .find(|f| f.path == "/data.json")
        .unwrap();
    assert_eq!(json.content_type, "application/json");
    assert_eq!(manifest.last_modified, "Tue, 14 Nov 2023 22:13:20 GMT");
}

#[test]
fn routes_are_sorted_and_cover_folders_and_the_404_page() {
    let manifest = compile_ok(Path::new(FIXTURE_SITE));
    let route_paths: Vec<&str> = manifest.routes.iter().map(|r| r.path.as_str()).collect();
    let mut sorted = route_paths.clone();
    sorted.sort_unstable();
    assert_eq!(route_paths, sorted, "sorted for binary search");
    let target = |p: &str| {
        manifest
            .routes
            .iter()
            .find(|r| r.path == p)
            .map(|r| r.target.clone())
    };
    let index =
        |p: &str| RouteTarget::Asset(manifest.files.iter().position(|f| f.path == p).unwrap());
    assert_eq!(target("/"), Some(index("/index.html")));
    assert_eq!(target("/docs/"), Some(index("/docs/index.html")));
    assert_eq!(target("/docs"), Some(redirect_308("/docs/")));
    let index_of = |p: &str| manifest.files.iter().position(|f| f.path == p).unwrap();
    assert_eq!(
        manifest.not_found,
        [
            ("/".to_string(), index_of("/404.html")),
            ("/docs/".to_string(), index_of("/docs/404.html"))
        ]
    );
    // Clean URLs (the default): one URL per page.
    assert_eq!(target("/docs/page"), Some(index("/docs/page.html")));
    assert_eq!(target("/docs/page.html"), Some(redirect_308("/docs/page")));
    assert_eq!(target("/index.html"), Some(redirect_308("/")));
}

#[test]
fn two_compiles_of_one_tree_write_identical_tables() {
    // Into one folder, one after the other: site.rs names the files it embeds by their path.
    let out = tempfile::tempdir().unwrap();
    let written = || {
        compile_ok(Path::new(FIXTURE_SITE))
            .write_rust(out.path())
            .unwrap();
        ["site.rs", "manifest.json"].map(|name| fs::read(out.path().join(name)).unwrap())
    };
    let (first, second) = (written(), written());
    for (name, (a, b)) in ["site.rs", "manifest.json"]
        .iter()
        .zip(first.iter().zip(&second))
    {
        assert_eq!(a, b, "{name}");
    }
    let site_rs = String::from_utf8(first[0].clone()).unwrap();
    assert!(site_rs.contains("pub static SITE: ::edgesite_core::Site<'static>"));
    assert!(site_rs.contains("rule_index: &["));
}

#[test]
fn text_is_precompressed_and_each_encoding_has_its_own_strong_etag() {
    let dir = tempfile::tempdir().unwrap();
    let page = "<p>edgesite stores every encoding that pays for itself.</p>\n".repeat(50);
    fs::write(dir.path().join("page.html"), &page).unwrap();
    fs::write(dir.path().join("tiny.txt"), "hi").unwrap();
    fs::write(dir.path().join("image.png"), page.as_bytes()).unwrap();
    let mut manifest = compile_ok(dir.path());
    let codings = |p: &str| -> Vec<&str> {
        let file = manifest.files.iter().find(|f| f.path == p).unwrap();
        file.representations
            .iter()
            .map(|v| v.coding.token())
            .collect()
    };
    assert_eq!(codings("/page.html"), ["identity", "br", "zstd", "gzip"]);
    assert_eq!(codings("/tiny.txt"), ["identity"]);
    assert_eq!(
        codings("/image.png"),
        ["identity"],
        "already-compressed types are not tried"
    );
    let page_file = (manifest.files.iter())
        .find(|f| f.path == "/page.html")
        .unwrap()
        .clone();
    let mut etags: Vec<&str> = page_file
        .representations
        .iter()
        .map(|v| v.etag.as_str())
        .collect();
    etags.sort_unstable();
    etags.dedup();
    assert_eq!(
        etags.len(),
        4,
        "RFC 9110 §8.8.3: two encodings never share a strong ETag"
    );
    for variant in &page_file.representations[1..] {
        assert!(
            variant.size * 100 <= page_file.size * 95,
            "{:?}: {} of {}",
            variant.coding,
            variant.size,
            page_file.size
        );
    }
    let out = tempfile::tempdir().unwrap();
    manifest.write_rust(out.path()).unwrap();
    for variant in &page_file.representations[1..] {
        let stored = fs::read(out.path().join("encoded").join(&variant.sha256)).unwrap();
        assert_eq!(stored.len() as u64, variant.size);
    }
}

#[test]
fn the_spa_fallback_must_name_a_file_of_the_site() {
    let mut with_fallback = options();
    with_fallback.config.site.spa_fallback = Some("/index.html".into());
    let manifest = compile(Path::new(FIXTURE_SITE), &with_fallback).unwrap();
    assert_eq!(
        manifest.fallback,
        manifest.files.iter().position(|f| f.path == "/index.html")
    );
    with_fallback.config.site.spa_fallback = Some("/app.html".into());
    let err = compile(Path::new(FIXTURE_SITE), &with_fallback).unwrap_err();
    assert!(matches!(err, Error::MissingFallback { .. }));
    assert!(err.to_string().contains("/app.html"), "{err}");
}

#[test]
fn the_multipart_boundary_occurs_in_no_body() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "x").unwrap();
    let first = compile_ok(dir.path()).boundary;
    // A file that contains the boundary forces another one.
    fs::write(dir.path().join("a.txt"), format!("--{first}--")).unwrap();
    let manifest = compile_ok(dir.path());
    let body = fs::read_to_string(dir.path().join("a.txt")).unwrap();
    assert!(
        !body.contains(&manifest.boundary),
        "{} in {body}",
        manifest.boundary
    );
}

#[test]
fn symbolic_links_inside_the_site_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("real.txt"), "real").unwrap();
    symlink("real.txt", dir.path().join("alias.txt")).unwrap();
    assert_eq!(paths(&compile_ok(dir.path())), ["/alias.txt", "/real.txt"]);
}

#[test]
fn a_missing_site_is_an_error_naming_it() {
    let err = compile_err(Path::new("/no/such/site"));
    assert!(matches!(err, Error::NotADirectory { .. }));
    assert!(err.to_string().contains("/no/such/site"), "{err}");
}

#[test]
fn a_file_is_not_a_site() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("index.html");
    fs::write(&file, "x").unwrap();
    assert!(matches!(compile_err(&file), Error::NotADirectory { .. }));
}

#[test]
fn a_site_with_nothing_to_serve_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("empty-folder")).unwrap();
    fs::write(dir.path().join(".only-a-dotfile"), "x").unwrap();
    let err = compile_err(dir.path());
    assert!(matches!(err, Error::EmptySite { .. }), "{err}");
    assert!(
        err.to_string().contains(&dir.path().display().to_string()),
        "{err}"
    );
}

#[test]
fn an_unreadable_entry_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("index.html"), "x").unwrap();
    symlink("nowhere.txt", dir.path().join("dangling.txt")).unwrap();
    let err = compile_err(dir.path());
    assert!(matches!(err, Error::Read { .. }), "{err}");
    assert!(err.to_string().contains("dangling.txt"), "{err}");
}

#[test]
fn a_name_that_is_not_utf8_is_an_error_naming_it() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join(std::ffi::OsStr::from_bytes(b"bad\xff.txt")),
        "x",
    )
    .unwrap();
    let err = compile_err(dir.path());
    assert!(matches!(err, Error::NotUtf8 { .. }), "{err}");
    assert!(err.to_string().contains("bad"), "{err}");
}

#[test]
fn a_backslash_in_a_name_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a\\b.txt"), "x").unwrap();
    let err = compile_err(dir.path());
    assert!(matches!(err, Error::Unservable { .. }), "{err}");
    assert!(err.to_string().contains("a\\b.txt"), "{err}");
}

#[test]
fn a_path_longer_than_any_request_can_name_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut deep = dir.path().to_path_buf();
    for _ in 0..6 {
        deep.push("d".repeat(200));
    }
    fs::create_dir_all(&deep).unwrap();
    fs::write(deep.join("file.txt"), "x").unwrap();
    assert!(matches!(compile_err(dir.path()), Error::Unservable { .. }));
}

#[test]
fn a_symbolic_link_outside_the_site_is_an_error() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.txt"), "x").unwrap();
    let dir = tempfile::tempdir().unwrap();
    symlink(
        outside.path().join("secret.txt"),
        dir.path().join("leak.txt"),
    )
    .unwrap();
    let err = compile_err(dir.path());
    assert!(matches!(err, Error::SymlinkOutside { .. }), "{err}");
    assert!(err.to_string().contains("leak.txt"), "{err}");
}

#[test]
fn a_symbolic_link_loop_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    fs::write(dir.path().join("sub/page.html"), "x").unwrap();
    symlink("..", dir.path().join("sub/up")).unwrap();
    let err = compile_err(dir.path());
    assert!(matches!(err, Error::SymlinkLoop { .. }), "{err}");
    assert!(err.to_string().contains("up"), "{err}");
}

#[test]
fn a_bad_source_date_epoch_is_an_error() {
    let err = last_modified(Some("not-a-number"), Path::new(FIXTURE_SITE)).unwrap_err();
    assert!(matches!(err, Error::SourceDateEpoch { .. }));
}

/// A site of `n` compressible text files.
fn generated_site(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..n {
        let text =
            format!("<p>page {i}: edgesite compiles, compresses and caches every file.</p>\n")
                .repeat(20);
        fs::write(dir.path().join(format!("page-{i:03}.html")), text).unwrap();
    }
    dir
}

#[test]
fn a_rebuild_after_touching_one_file_encodes_only_that_file() {
    let site = generated_site(200);
    let cache = tempfile::tempdir().unwrap();
    let mut options = options();
    options.cache_dir = Some(cache.path().to_path_buf());
    // Light settings keep the test fast; the cache does not depend on them.
    options.config.compression.brotli_quality = 5;
    // The site's files alone (not the speculation rules nor the Markdown twins, files of the
    // build's own).
    options.config.links.speculation = SpeculationAction::Off;
    options.config.agents.enabled = Some(false);
    let cold = compile(site.path(), &options).unwrap();
    assert_eq!(
        (cold.stats.encodings.encoded, cold.stats.encodings.cached),
        (600, 0),
        "3 encodings x 200 files"
    );
    fs::write(
        site.path().join("page-042.html"),
        "<p>changed</p>\n".repeat(40),
    )
    .unwrap();
    let warm = compile(site.path(), &options).unwrap();
    assert_eq!(
        (warm.stats.encodings.encoded, warm.stats.encodings.cached),
        (3, 597)
    );
    let report = warm.report();
    assert!(
        report.contains("3 encodings computed, 597 from the cache"),
        "{report}"
    );
    eprintln!(
        "cold {} ms, warm {} ms",
        cold.stats.wall_time_ms, warm.stats.wall_time_ms
    );
}

/// The cache is checked, not trusted: a cached encoding whose bytes were damaged or replaced
/// does not match the digest kept with it and is encoded again; what is served is the true
/// encoding.
#[test]
fn a_damaged_cache_entry_is_never_served() {
    let site = generated_site(3);
    let cache = tempfile::tempdir().unwrap();
    let mut options = options();
    options.cache_dir = Some(cache.path().to_path_buf());
    options.config.compression.brotli_quality = 5;
    options.config.links.speculation = SpeculationAction::Off;
    let cold = compile(site.path(), &options).unwrap();
    let encoded = cold.stats.encodings.encoded;
    for entry in fs::read_dir(cache.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let mut bytes = fs::read(&path).unwrap();
            let last = bytes.len() - 1;
            bytes[last] ^= 0x55;
            fs::write(&path, bytes).unwrap();
        }
    }
    let warm = compile(site.path(), &options).unwrap();
    assert_eq!(
        (warm.stats.encodings.encoded, warm.stats.encodings.cached),
        (encoded, 0)
    );
    for (a, b) in cold.files.iter().zip(&warm.files) {
        assert_eq!(
            format!("{:?}", a.representations),
            format!("{:?}", b.representations)
        );
    }
}

#[test]
fn a_file_over_the_per_file_budget_fails_the_build_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("big.bin"), vec![7u8; 5000]).unwrap();
    let mut options = options();
    options.config.budget.max_file_bytes = 4096;
    let err = compile(dir.path(), &options).unwrap_err().to_string();
    assert!(
        err.contains("big.bin") && err.contains("max_file_bytes"),
        "{err}"
    );
}

#[test]
fn a_bundle_over_budget_fails_naming_the_largest_files_and_80_percent_warns() {
    let site = generated_site(20);
    let mut options = options();
    // Everything in the bundle: `tier = "auto"` would put what does not fit in the store.
    options.config.storage.tier = StorageTier::Bundle;
    options.config.budget.max_bundle_bytes = edgesite_sitegen::model::CODE_ESTIMATE_BYTES + 1000;
    let err = compile(site.path(), &options).unwrap_err().to_string();
    assert!(
        err.contains("over the limit") && err.contains("/page-"),
        "{err}"
    );
    let near = |manifest: &Manifest| -> Vec<String> {
        let warnings = manifest.warnings.iter();
        let near = warnings.filter(|w| w.kind == WarningKind::NearBudget);
        near.map(ToString::to_string).collect()
    };
    let manifest = compile_ok(site.path());
    assert_eq!(near(&manifest), Vec::<String>::new());
    options.config.budget.max_bundle_bytes = manifest.bundle_bytes() * 100 / 90;
    let tight = compile(site.path(), &options).unwrap();
    let warnings = near(&tight);
    assert!(
        warnings.len() == 1 && (warnings[0].contains("90%") || warnings[0].contains("89%")),
        "{warnings:?}"
    );
    assert!(warnings[0].starts_with("budget: the Worker bundle is about"));
}

#[test]
fn the_manifest_lists_sizes_etags_and_sri_and_the_report_has_a_row_per_file() {
    let manifest = compile_ok(Path::new(FIXTURE_SITE));
    let json: serde_json::Value = serde_json::from_str(&manifest.to_json()).unwrap();
    let index = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "/index.html")
        .unwrap();
    assert!(index["integrity"].as_str().unwrap().starts_with("sha384-"));
    assert_eq!(index["representations"][0]["coding"], "identity");
    assert!(index["representations"][0]["etag"]
        .as_str()
        .unwrap()
        .starts_with('"'));
    let report = manifest.report();
    for file in &manifest.files {
        assert!(
            report.contains(&file.path),
            "{} missing from\n{report}",
            file.path
        );
    }
    assert!(report.contains("bundle estimate"), "{report}");
}

/// The figure with this `id` in report.html (its `data-n`).
fn figure(html: &str, id: &str) -> u64 {
    let at = html
        .find(&format!("id=\"{id}\" data-n=\""))
        .unwrap_or_else(|| panic!("no figure {id}"));
    let rest = &html[at + id.len() + 14..];
    rest[..rest.find('"').unwrap()].parse().unwrap()
}

#[test]
fn the_html_report_is_self_contained_and_says_what_the_manifest_and_report_say() {
    let manifest = compile_ok(Path::new(FIXTURE_SITE));
    let html = manifest.report_html();
    let report = manifest.report();
    // Nothing to fetch: no URL of any scheme in an attribute, no external script or style.
    for needle in ["src=", "href=", "http://", "https://", "url(", "@import"] {
        assert!(!html.contains(needle), "{needle} in report.html");
    }
    let bundle = manifest.bundle_bytes();
    assert_eq!(figure(&html, "bundle-bytes"), bundle);
    // All of it in the bundle: the map coloured by content type first.
    assert!(html.contains("<svg id=\"treemap\" class=\"by-type\""));
    assert!(html.contains("value=\"type\" checked"));
    // The Markdown twins, as the stats and report.txt count them (two pages have text).
    let agents = &manifest.stats.agents;
    assert_eq!(figure(&html, "twins"), 2);
    assert_eq!(figure(&html, "twins-skipped"), agents.skipped.len() as u64);
    assert_eq!(
        figure(&html, "twins-markdown-tokens"),
        agents.markdown_tokens
    );
    assert!(report.contains(&format!(
        "agents: 2 Markdown twins, {} pages without",
        agents.skipped.len()
    )));
    assert!(
        html.contains("<tr><td><code>/</code></td>"),
        "the root's twin's row"
    );
    for (path, why) in &agents.skipped {
        assert!(html.contains(&format!("<li><code>{path}</code>: {why}</li>")));
    }
    assert!(report.contains(&format!("bundle estimate {bundle} bytes")));
    assert_eq!(figure(&html, "files"), manifest.files.len() as u64);
    let stored: Vec<u64> = manifest.files.iter().map(|f| f.stored_bytes()).collect();
    assert_eq!(
        figure(&html, "site-bytes"),
        stored.iter().sum::<u64>(),
        "the treemap holds every stored byte"
    );
    // One rectangle per file with bytes, each with the file's stored bytes.
    for (file, bytes) in manifest.files.iter().zip(&stored) {
        let rect = format!("data-path=\"{}\" data-n=\"{bytes}\"", file.path);
        assert_eq!(
            html.matches(&rect).count(),
            usize::from(*bytes > 0),
            "{rect}"
        );
    }
    // Each stage's time, as report.txt says it.
    for (stage, ms) in &manifest.stats.stages {
        assert!(report.contains(&format!("{stage} {ms} ms")), "{stage}");
        assert!(html.contains(&format!(
            "data-stage=\"{stage}\"><td>{stage}</td><td class=\"n\" data-n=\"{ms}\""
        )));
    }
    assert_eq!(
        manifest
            .stats
            .stages
            .iter()
            .map(|(s, _)| *s)
            .collect::<Vec<_>>(),
        [
            "sources",
            "optimize",
            "dictionary",
            "routing",
            "speculation",
            "agents",
            "images",
            "links",
            "encode-made",
            "encode",
            "delta",
            "storage",
            "fields"
        ]
    );
}

#[test]
fn headers_file_rules_apply_at_build_time() {
    let manifest = compile_ok(Path::new(FIXTURE_SITE));
    let file = |p: &str| manifest.files.iter().find(|f| f.path == p).unwrap();
    let field = |f: &edgesite_sitegen::model::Asset, name: &str| {
        f.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let page = file("/docs/page.html");
    assert_eq!(
        field(page, "x-docs-page"),
        Some("page".into()),
        "matched at its clean URL /docs/page"
    );
    assert_eq!(
        field(page, "referrer-policy"),
        None,
        "! Referrer-Policy removes the default"
    );
    assert_eq!(
        field(page, "x-content-type-options"),
        Some("nosniff".into())
    );
    let data = file("/data.json");
    assert_eq!(field(data, "x-data-file"), Some("data".into()));
    assert_eq!(data.cache_control, "public, max-age=30");
    assert_eq!(
        field(file("/hello.txt"), "referrer-policy"),
        Some("strict-origin-when-cross-origin".into())
    );
    assert!(manifest.warnings.is_empty(), "{:?}", manifest.warnings);
}

#[test]
fn a_headers_rule_that_matches_nothing_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "a").unwrap();
    fs::write(
        dir.path().join("_headers"),
        "/a.txt\n  X-A: 1\n/nothing/*\n  X-B: 2\n",
    )
    .unwrap();
    let manifest = compile_ok(dir.path());
    assert_eq!(manifest.warnings.len(), 1, "{:?}", manifest.warnings);
    let warning = &manifest.warnings[0];
    assert_eq!(
        (warning.kind, warning.line),
        (WarningKind::UnusedHeaderRule, Some(3))
    );
    assert!(warning
        .file
        .as_deref()
        .is_some_and(|f| f.ends_with("_headers")));
    assert!(
        warning
            .to_string()
            .ends_with("_headers:3: the rule /nothing/* matches no file"),
        "{warning}"
    );
    assert!(
        !manifest.files.iter().any(|f| f.path == "/_headers"),
        "_headers is not served"
    );
}

#[test]
fn a_bad_headers_file_fails_the_build_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "a").unwrap();
    fs::write(dir.path().join("_headers"), "/a.txt\n  ETag: \"mine\"\n").unwrap();
    let err = compile_err(dir.path()).to_string();
    assert!(
        err.contains("_headers:2:") && err.contains("computed by edgesite"),
        "{err}"
    );
}

#[test]
fn the_fixture_redirects_compile_into_routes_and_run_time_rules() {
    let mut manifest = compile_ok(Path::new(FIXTURE_SITE));
    assert!(
        !manifest.files.iter().any(|f| f.path == "/_redirects"),
        "_redirects is not served"
    );
    let target = |p: &str| {
        manifest
            .routes
            .iter()
            .find(|r| r.path == p)
            .map(|r| r.target.clone())
    };
    assert_eq!(
        target("/old-hello"),
        Some(RouteTarget::Redirect {
            status: RedirectStatus::MovedPermanently,
            location: "/hello.txt".into(),
            query_at: Some(10)
        })
    );
    let sources: Vec<(usize, &str)> = manifest
        .rules
        .iter()
        .map(|r| (r.line, r.source.as_str()))
        .collect();
    assert_eq!(
        sources,
        [(4, "/docs/v1/*"), (5, "/hi/:name"), (6, "/data/*")]
    );
    // The generated code holds them as edgesite-core rules.
    let out = tempfile::tempdir().unwrap();
    manifest.write_rust(out.path()).unwrap();
    let code = fs::read_to_string(out.path().join("site.rs")).unwrap();
    assert!(code.contains("// _redirects:5: /hi/:name"), "{code}");
    assert!(code.contains("::edgesite_core::Part::QueryCapture(0)"));
    assert!(code.contains("status: ::edgesite_core::RedirectStatus::MovedPermanently, location: \"/hello.txt\", query_at: Some(10)"));
}

#[test]
fn a_bad_redirects_file_fails_the_build_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "a").unwrap();
    fs::write(
        dir.path().join("_redirects"),
        "/old /a.txt 301\n/a.txt /old 301\n",
    )
    .unwrap();
    let err = compile_err(dir.path()).to_string();
    assert!(
        err.contains("_redirects:1:") && err.contains("redirect loop: /old -> /a.txt -> /old"),
        "{err}"
    );
    fs::write(dir.path().join("_redirects"), "/old /a.txt 404\n").unwrap();
    let err = compile_err(dir.path()).to_string();
    assert!(err.contains("_redirects:1: status \"404\""), "{err}");
}

#[test]
fn the_build_id_names_the_content_and_is_sent_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "one").unwrap();
    let first = compile_ok(dir.path());
    assert_eq!(first.build_id.len(), 16);
    assert_eq!(
        compile_ok(dir.path()).build_id,
        first.build_id,
        "deterministic"
    );
    assert!(
        !first.fields.iter().any(|(n, _)| *n == "x-edgesite-build"),
        "off by default"
    );
    fs::write(dir.path().join("a.txt"), "two").unwrap();
    let changed = compile_ok(dir.path());
    assert_ne!(changed.build_id, first.build_id);
    let mut options = options();
    options.config.headers.build_id = true;
    let manifest = compile(dir.path(), &options).unwrap();
    let field = ("x-edgesite-build".to_string(), manifest.build_id.clone());
    assert!(manifest.files[0].fields.contains(&field));
    assert!(manifest
        .fields
        .iter()
        .any(|(n, v)| *n == "x-edgesite-build" && *v == manifest.build_id));
}

/// `[compression] store = "auto"`: full while it fits, else compact (identity decoded from
/// gzip, zstd dropped), and the budget counts what is stored.
#[test]
fn auto_storage_goes_compact_when_full_does_not_fit() {
    let site = generated_site(20);
    let full = compile_ok(site.path());
    assert_eq!(full.store.store, Store::Full, "{}", full.store.reason);
    let full_bytes = full.bundle_bytes();
    let mut options = options();
    options.config.storage.tier = StorageTier::Bundle;
    options.config.budget.max_bundle_bytes = full_bytes - 1;
    let mut compact = compile(site.path(), &options).unwrap();
    assert_eq!(
        compact.store.store,
        Store::Compact,
        "{}",
        compact.store.reason
    );
    assert!(
        compact.store.reason.contains(&full_bytes.to_string()),
        "{}",
        compact.store.reason
    );
    let page = compact
        .files
        .iter()
        .find(|f| f.path == "/page-000.html")
        .unwrap();
    let codings: Vec<&str> = page
        .representations
        .iter()
        .map(|v| v.coding.token())
        .collect();
    assert_eq!(codings, ["identity", "br", "gzip"]);
    assert_eq!(page.representations[0].decoded_from, Some(2), "from gzip");
    // The identity keeps the ETag full storage gives it: it names the same bytes.
    let full_page = full
        .files
        .iter()
        .find(|f| f.path == "/page-000.html")
        .unwrap();
    assert_eq!(
        page.representations[0].etag,
        full_page.representations[0].etag
    );
    assert!(compact.bundle_bytes() < options.config.budget.max_bundle_bytes);
    // site.rs says so: the identity is decoded, not embedded.
    let out = tempfile::tempdir().unwrap();
    compact.write_rust(out.path()).unwrap();
    let site_rs = fs::read_to_string(out.path().join("site.rs")).unwrap();
    assert!(
        site_rs.contains("::edgesite_core::Content::Decoded { id: "),
        "{site_rs}"
    );
}

/// The build stops before compressing everything when even compact storage cannot fit: files
/// that are not compressed count whole from the start.
#[test]
fn a_site_that_cannot_fit_fails_before_compressing_everything() {
    let site = generated_site(50);
    for i in 0..3 {
        let noise: Vec<u8> = (0..40_000u32)
            .map(|n| (n.wrapping_mul(2_654_435_761) >> 13) as u8 ^ i)
            .collect();
        fs::write(site.path().join(format!("photo-{i}.png")), noise).unwrap();
    }
    let mut options = options();
    options.config.storage.tier = StorageTier::Bundle;
    options.config.budget.max_bundle_bytes = edgesite_sitegen::model::CODE_ESTIMATE_BYTES + 100_000;
    let started = std::time::Instant::now();
    let err = compile(site.path(), &options).unwrap_err().to_string();
    assert!(
        err.contains("stopped before compressing everything"),
        "{err}"
    );
    assert!(err.contains("at least"), "{err}");
    assert!(
        err.contains("/photo-0.png (40000 bytes)"),
        "the largest files are named: {err}"
    );
    // With the photos alone over the budget, not one page needs compressing first.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

/// A Worker's layout: bytes in blobs beside site.rs, each stored representation once (files
/// with the same bytes share), listed in blobs.txt; site.rs holds offsets.
#[test]
fn external_bodies_are_packed_into_blobs_once() {
    let site = tempfile::tempdir().unwrap();
    let page = "<p>the same page</p>\n".repeat(40);
    fs::write(site.path().join("a.html"), &page).unwrap();
    fs::write(site.path().join("b.html"), &page).unwrap();
    fs::write(site.path().join("c.txt"), "tiny").unwrap();
    let mut options = options();
    options.config.links.speculation = SpeculationAction::Off;
    options.config.agents.enabled = Some(false);
    let mut manifest = compile(site.path(), &options).unwrap();
    let out = tempfile::tempdir().unwrap();
    manifest
        .write_rust_with(out.path(), Bodies::External)
        .unwrap();
    let names = fs::read_to_string(out.path().join("worker/blobs.txt")).unwrap();
    assert_eq!(names, "site-0.bin\n");
    let blob = fs::read(out.path().join("worker/site-0.bin")).unwrap();
    // a.html and b.html share their four representations; c.txt has one.
    let per_page: u64 = manifest.files[0]
        .representations
        .iter()
        .map(|v| v.size)
        .sum();
    assert_eq!(blob.len() as u64, per_page + 4);
    let site_rs = fs::read_to_string(out.path().join("site.rs")).unwrap();
    assert!(site_rs.contains("::edgesite_core::Content::External { id: 0, blob: 0, offset: 0,"));
    assert!(
        !site_rs.contains("include_bytes!"),
        "no byte of the site in the module"
    );
    assert!(fs::read_to_string(out.path().join("blobs.rs"))
        .unwrap()
        .contains("as &[u8]"));
}

/// The site is a boundary for its configuration files too: a `_headers` that is a link to the
/// build machine's environment is refused, naming the link, and nothing of the environment
/// reaches the error (a CI secret would be printed in the log).
#[test]
fn a_headers_file_linked_outside_the_site_is_refused_without_its_content() {
    // The test's own environment holds the canary: /proc/self/environ is this process's.
    std::env::set_var("EDGESITE_CANARY_SECRET", "canary-3f9a1c");
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("index.html"), "<p>x</p>").unwrap();
    for name in ["_headers", "_redirects"] {
        let link = dir.path().join(name);
        symlink("/proc/self/environ", &link).unwrap();
        let err = compile_err(dir.path());
        let text = err.to_string();
        assert!(matches!(err, Error::SymlinkOutside { .. }), "{text}");
        assert!(text.contains(name), "{text}");
        assert!(!text.contains("canary-3f9a1c"), "{text}");
        assert!(!text.contains("PATH="), "{text}");
        fs::remove_file(&link).unwrap();
    }
}

/// A `_headers` that is a FIFO would block the build for ever: an error naming it.
#[test]
fn a_configuration_file_that_is_not_a_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("index.html"), "<p>x</p>").unwrap();
    let fifo = dir.path().join("_redirects");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let err = compile_err(dir.path());
    assert!(matches!(err, Error::Unservable { .. }), "{err}");
    assert!(err.to_string().contains("_redirects"), "{err}");
    fs::remove_file(&fifo).unwrap();
    // The same FIFO among the site's files.
    let fifo = dir.path().join("pipe.txt");
    std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    let err = compile_err(dir.path());
    assert!(matches!(err, Error::Unservable { .. }), "{err}");
    assert!(err.to_string().contains("pipe.txt"), "{err}");
}

/// A name with a control character is skipped with a warning that shows it escaped (a name
/// with a line break would otherwise forge a log line).
#[test]
fn a_name_with_a_control_character_is_skipped_with_an_escaped_warning() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("index.html"), "<p>x</p>").unwrap();
    fs::write(dir.path().join("evil\nwarning: forged.txt"), "x").unwrap();
    fs::write(dir.path().join("Icon\r"), "x").unwrap();
    let manifest = compile_ok(dir.path());
    assert_eq!(paths(&manifest), ["/index.html"]);
    let skipped: Vec<String> = manifest
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::SkippedName)
        .map(ToString::to_string)
        .collect();
    assert_eq!(skipped.len(), 2, "{:?}", manifest.warnings);
    assert!(skipped
        .iter()
        .all(|w| !w.contains('\n') && !w.contains('\r')));
    assert!(
        skipped.iter().any(|w| w.contains("evil\\u{a}warning")),
        "{skipped:?}"
    );
}

/// `_headers` with a byte order mark, CRLF line ends and tabs reads as the same rules.
#[test]
fn a_headers_file_with_bom_crlf_and_tabs_is_read() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("index.html"), "<p>x</p>").unwrap();
    fs::write(
        dir.path().join("_headers"),
        "\u{feff}/*\r\n\tX-Robots-Tag:\tnoindex\r\n",
    )
    .unwrap();
    let manifest = compile_ok(dir.path());
    let index = manifest
        .files
        .iter()
        .find(|f| f.path == "/index.html")
        .unwrap();
    assert!(
        index
            .fields
            .iter()
            .any(|(n, v)| n == "x-robots-tag" && v == "noindex"),
        "{:?}",
        index.fields
    );
}

/// A line of site text quoted in an error is escaped and cut short: an error never carries a
/// control character or a whole overlong line.
#[test]
fn an_error_quotes_a_bounded_escaped_excerpt() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("index.html"), "<p>x</p>").unwrap();
    let line = format!("/a \u{1b}[31m{} 301", "b".repeat(10_000));
    fs::write(dir.path().join("_redirects"), line).unwrap();
    let text = compile_err(dir.path()).to_string();
    assert!(text.contains("_redirects"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(text.len() < 600, "{} bytes: {text}", text.len());
}

/// A site folder that holds the project (its edgesite.toml, Cargo.toml or wrangler.toml, or
/// the crate's folder) would publish the configuration and the sources: an error, unless
/// `site.allow_project_files = true` says it is meant.
#[test]
fn a_site_folder_holding_the_project_is_an_error_unless_allowed() {
    use edgesite_sitegen::build_script::Build;
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("index.html"), "<p>x</p>").unwrap();
    let config = dir.path().join("edgesite.toml");
    let build = |text: &str| {
        fs::write(&config, text).unwrap();
        Build {
            root: dir.path(),
            config_path: &config,
            config_named: true,
            site: None,
            history: None,
            source_date_epoch: Some("1700000000"),
            page_dates: edgesite_sitegen::PageDates::Build,
            cache_dir: None,
            effort: edgesite_sitegen::Effort::Configured,
        }
        .compile()
    };
    let err = build("[site]\ndir = \".\"\n").expect_err("the project folder as the site");
    assert!(matches!(err, Error::ProjectFolder { .. }), "{err}");
    assert!(err.to_string().contains("allow_project_files"), "{err}");
    let (manifest, _) = build("[site]\ndir = \".\"\nallow_project_files = true\n").unwrap();
    assert!(paths(&manifest).contains(&"/edgesite.toml"));
}

/// Warnings are values with a kind, a file and a line; report.txt and report.html render each
/// of them, and report.html's broken-link list is the typed list's broken links.
#[test]
fn the_reports_render_every_warning_with_its_kind_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let page = "<p>ok</p>\n<img src=\"/missing.png\">\n";
    fs::write(dir.path().join("index.html"), page).unwrap();
    fs::write(dir.path().join("_headers"), "/nothing/*\n  X-B: 2\n").unwrap();
    let manifest = compile_ok(dir.path());
    let kinds: Vec<(WarningKind, Option<usize>)> =
        manifest.warnings.iter().map(|w| (w.kind, w.line)).collect();
    assert_eq!(
        kinds,
        [
            (WarningKind::BrokenLink, Some(2)),
            (WarningKind::UnusedHeaderRule, Some(1))
        ]
    );
    let report = manifest.report();
    assert!(
        report.contains("warnings: 2 (1 broken_link, 1 unused_header_rule)\n"),
        "{report}"
    );
    let html = manifest.report_html();
    assert_eq!(figure(&html, "warnings"), 2);
    for warning in &manifest.warnings {
        assert!(report.contains(&format!("  {warning}\n")), "{warning}");
        let row = format!(
            "<tr data-kind=\"{kind}\"><td>{kind}</td>",
            kind = warning.kind.name()
        );
        assert!(html.contains(&row), "{row}");
    }
    let broken = &manifest.warnings[0];
    let listed = html.split("<ul id=\"broken\">").nth(1).unwrap();
    let listed = &listed[..listed.find("</ul>").unwrap()];
    assert_eq!(listed.matches("<li>").count(), 1, "{listed}");
    assert!(listed.contains("the site serves nothing at /missing.png"));
    assert!(broken.file.as_deref().unwrap().ends_with("index.html"));
}

use sha2::Digest as _;

/// `[storage] tier = "auto"` past the budget: pages stay in the bundle while they fit, the rest
/// go to the store, each representation an object named by its bytes (written once, checked
/// here byte for byte), `Content::Stored` in site.rs; the store's limit is counted.
#[test]
fn past_the_budget_the_rest_goes_to_the_store_as_objects_named_by_their_bytes() {
    let site = generated_site(20);
    let big: Vec<u8> = (0..50_000u32)
        .map(|n| (n.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    fs::write(site.path().join("download.bin"), &big).unwrap();
    let mut options = options();
    // Room for about half the pages.
    let all = compile_ok(site.path());
    let page = all
        .files
        .iter()
        .find(|f| f.path == "/page-000.html")
        .unwrap()
        .stored_bytes();
    // The code and the tables (every file's, wherever its bytes are): all of the site fits.
    let site_bytes: u64 = all.files.iter().map(|f| f.stored_bytes()).sum();
    let code = all.bundle_bytes() - site_bytes;
    options.config.budget.max_bundle_bytes = code + 10 * page + page / 2;
    let mut manifest = compile(site.path(), &options).unwrap();
    let tier = |path: &str| manifest.files.iter().find(|f| f.path == path).unwrap().tier;
    assert_eq!(
        tier("/download.bin"),
        Tier::Assets,
        "the largest, coldest file"
    );
    let in_bundle = manifest
        .files
        .iter()
        .filter(|f| f.tier == Tier::Bundle)
        .count();
    let pages_in_bundle = manifest
        .files
        .iter()
        .filter(|f| f.tier == Tier::Bundle && f.path.ends_with(".html"))
        .count();
    assert_eq!(pages_in_bundle, 10, "the pages that fit");
    // The speculation rules, smaller than what is left, fit after the pages that did not.
    assert_eq!(
        tier("/_edgesite/speculation-rules.json"),
        Tier::Bundle,
        "{}",
        manifest.report()
    );
    assert!(manifest.bundle_bytes() <= options.config.budget.max_bundle_bytes);
    let in_store = manifest.files.len() - in_bundle;
    let line = format!("tiers: bundle {in_bundle} files; store (Static Assets) {in_store} files");
    assert!(manifest.report().contains(&line), "{}", manifest.report());
    let html = manifest.report_html();
    let files = format!("<span id=\"store-files\" data-n=\"{in_store}\">");
    assert!(
        html.contains(&files),
        "report.html counts the store's files"
    );
    let stored_rects = html.matches("data-tier=\"assets\"").count();
    assert_eq!(
        stored_rects, in_store,
        "a hatched rectangle per file in the store"
    );
    // A site in more than one tier: its map coloured by tier first (issue 33).
    assert!(html.contains("<svg id=\"treemap\" class=\"by-tier\""));
    assert!(html.contains("value=\"tier\" checked"));
    assert!(html.contains("<div class=\"bar near\">") || html.contains("<div class=\"bar full\">"));

    let out = tempfile::tempdir().unwrap();
    let stale = out.path().join("store/_edgesite/b/stale.bin");
    fs::create_dir_all(stale.parent().unwrap()).unwrap();
    fs::write(&stale, b"an earlier build's").unwrap();
    manifest
        .write_rust_with(out.path(), Bodies::External)
        .unwrap();
    assert!(!stale.exists(), "the store holds this build's objects only");
    let site_rs = fs::read_to_string(out.path().join("site.rs")).unwrap();
    let mut objects = 0;
    for file in manifest.files.iter().filter(|f| f.tier == Tier::Assets) {
        for r in file.kept() {
            let key = r.object_key(Tier::Assets);
            let length = format!(
                "Store::Assets, length: ::edgesite_core::ObjectLength::new({}) }}",
                r.size
            );
            assert!(site_rs.contains(&length), "{length}");
            assert!(site_rs.contains(&format!("etag: {:?}", r.etag)));
            assert!(
                key.contains(&r.sha256[..32]),
                "{key}: named by the ETag's digest"
            );
            let object = fs::read(out.path().join("store").join(&key)).unwrap();
            assert_eq!(object.len() as u64, r.size);
            let digest: [u8; 32] = sha2::Sha256::digest(&object).into();
            let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(hex, r.sha256, "{key} holds the bytes its name says");
            objects += 1;
        }
    }
    assert!(
        objects > 10 * 4,
        "the download, four codings of each page, ..."
    );
    let written = fs::read_dir(out.path().join("store/_edgesite/b"))
        .unwrap()
        .count();
    assert_eq!(
        written, objects,
        "one object per representation (all distinct here)"
    );
    // A Worker reads its binding: its module names no folder of the build machine.
    assert!(site_rs.contains("store: \"\","), "{site_rs}");
    manifest
        .write_rust_with(out.path(), Bodies::Embedded)
        .unwrap();
    let site_rs = fs::read_to_string(out.path().join("site.rs")).unwrap();
    let folder = format!(
        "store: {:?}",
        out.path().join("store").display().to_string()
    );
    assert!(
        site_rs.contains(&folder),
        "the native twin reads the folder"
    );

    options.config.storage.max_asset_files = objects as u64 - 1;
    let err = compile(site.path(), &options).unwrap_err().to_string();
    let count = format!("{objects} objects");
    assert!(
        err.contains(&count) && err.contains("max_asset_files"),
        "{err}"
    );
}

/// A site whose tables alone pass the bundle's limit (they are in the bundle wherever its
/// bytes are kept): the error says so and what helps, rather than list files of 0 bytes. The
/// tables as encoded decide, not their estimate, which is from above: a site between the two
/// builds.
#[test]
fn tables_past_the_budget_are_named_as_the_cause() {
    use edgesite_sitegen::model::CODE_ESTIMATE_BYTES;
    let site = generated_site(40);
    let mut options = options();
    options.config.storage.tier = StorageTier::Assets;
    let mut all_stored = compile(site.path(), &options).unwrap();
    assert!(
        all_stored.files.iter().all(|f| f.tier == Tier::Assets),
        "every file in the store"
    );
    let tables = Bodies::Tables { in_binary: false };
    let out = tempfile::tempdir().unwrap();
    all_stored.write_rust_with(out.path(), tables).unwrap();
    let written = fs::metadata(out.path().join("tables.bin")).unwrap().len();
    let exact = written + CODE_ESTIMATE_BYTES;
    assert!(
        all_stored.bundle_bytes() > exact,
        "the estimate is from above"
    );

    options.config.budget.max_bundle_bytes = exact;
    let mut fits = compile(site.path(), &options).expect("over the estimate, within the tables");
    fits.write_rust_with(out.path(), tables).unwrap();

    // As Rust (a library-mode Worker's tables), only the estimate is known: it decides.
    let error = fits
        .write_rust_with(out.path(), Bodies::Embedded)
        .unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::FileTooLarge, "{error}");

    options.config.budget.max_bundle_bytes = exact - 1;
    let mut over = compile(site.path(), &options).expect("the tables as written decide");
    // Over the folder of the build that fitted: its tables are removed with the error.
    fits.write_rust_with(out.path(), tables).unwrap();
    let error = over.write_rust_with(out.path(), tables).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::FileTooLarge);
    let files = all_stored.files.len();
    let error = error.to_string();
    assert!(
        error.contains(&format!(
            "the tables of the site's {files} files are {written} bytes"
        )) && error.contains("[compression] codings"),
        "{error}"
    );
    assert!(!out.path().join("tables.bin").exists(), "{error}");

    // The isolate's memory: the bundle's files, the tables and the tables decoded, at their
    // size on wasm32; every file stored here, then every file in the bundle.
    options.config.budget.max_bundle_bytes = exact;
    memory_limit_is_held(site.path(), &mut options, 0);
    options.config.storage.tier = StorageTier::Auto;
    options.config.budget.max_bundle_bytes = 64 << 20;
    let bundled = compile(site.path(), &options).unwrap();
    let in_bundle: u64 = bundled.files.iter().map(|f| f.bundle_bytes()).sum();
    assert!(in_bundle > 0, "files in the bundle");
    memory_limit_is_held(site.path(), &mut options, in_bundle);
}

/// Once the tables are written, the reports give the bundle and the isolate as written, and
/// warn from them, where the storage stage had only the tables' estimate (from above): a
/// bundle past 80% by the estimate alone is no warning, and one past 80% as written is one,
/// as is an isolate past 80% of `max_memory_bytes`; report.html's bars say the same.
#[test]
fn the_reports_warn_from_the_tables_as_written() {
    use edgesite_sitegen::model::{CODE_ESTIMATE_BYTES, RUNTIME_MEMORY_BYTES};
    let site = generated_site(40);
    let mut options = options();
    options.config.storage.tier = StorageTier::Bundle;
    let tables = Bodies::Tables { in_binary: false };
    let out = tempfile::tempdir().unwrap();
    let mut manifest = compile(site.path(), &options).unwrap();
    let figures = manifest
        .write_rust_with(out.path(), tables)
        .unwrap()
        .unwrap();
    let files: u64 = manifest.files.iter().map(|f| f.bundle_bytes()).sum();
    let bundle = figures.tables_bytes + files + CODE_ESTIMATE_BYTES;
    let estimate = manifest.bundle_bytes();
    let isolate = RUNTIME_MEMORY_BYTES
        + files
        + figures.tables_bytes
        + figures.decoded_bytes.max(figures.tables_bytes);
    let near = |manifest: &Manifest| -> Vec<String> {
        let warnings = manifest.warnings.iter();
        let near = warnings.filter(|w| w.kind == WarningKind::NearBudget && w.file.is_none());
        near.map(ToString::to_string).collect()
    };
    // The budget section's bars, in order (the bundle's, the isolate's), and its text.
    let bars = |dir: &Path| -> (Vec<String>, String) {
        let html = fs::read_to_string(dir.join("report.html")).unwrap();
        let start = html.find("<section id=\"budget\">").unwrap();
        let section = &html[start..start + html[start..].find("</section>").unwrap()];
        let classes = section.split("<div class=\"bar").skip(1);
        let classes = classes.map(|c| c[..c.find('"').unwrap()].trim().to_string());
        (classes.collect(), html)
    };

    // At 79% as written and past 80% by the estimate: no warning once written.
    options.config.budget.max_bundle_bytes = bundle * 100 / 79;
    assert!(estimate * 100 > options.config.budget.max_bundle_bytes * 80);
    let mut quiet = compile(site.path(), &options).unwrap();
    let warned = near(&quiet);
    assert!(
        warned.len() == 1 && warned[0].starts_with("budget: the Worker bundle is about"),
        "the estimate's warning before the tables are written: {warned:?}"
    );
    quiet.write_rust_with(out.path(), tables).unwrap();
    assert_eq!(near(&quiet), Vec::<String>::new());
    let report = fs::read_to_string(out.path().join("report.txt")).unwrap();
    assert!(!report.contains("budget: the Worker bundle"), "{report}");
    let (classes, html) = bars(out.path());
    assert_eq!(classes, ["", ""], "the bundle's bar, then the isolate's");
    assert_eq!(figure(&html, "bundle-bytes"), bundle);
    assert_eq!(figure(&html, "bundle-estimate-bytes"), estimate);
    assert_eq!(figure(&html, "tables-bytes"), figures.tables_bytes);
    assert_eq!(figure(&html, "isolate-bytes"), isolate);

    // At 90% as written: warned, from the figure as written, in both reports; the bar amber.
    options.config.budget.max_bundle_bytes = bundle * 100 / 90;
    options.config.budget.max_memory_bytes = isolate * 100 / 97;
    let mut tight = compile(site.path(), &options).unwrap();
    tight.write_rust_with(out.path(), tables).unwrap();
    let warned = near(&tight);
    let as_written = format!("budget: the Worker bundle is {bundle} bytes as written, ");
    let held = format!("budget: a Worker's isolate would hold {isolate} bytes, ");
    assert!(
        warned.len() == 2 && warned[0].starts_with(&as_written) && warned[1].starts_with(&held),
        "{warned:?}"
    );
    assert!(
        warned[0].contains("90%") || warned[0].contains("89%"),
        "{warned:?}"
    );
    let report = fs::read_to_string(out.path().join("report.txt")).unwrap();
    assert!(
        report.contains(&as_written) && report.contains(&held),
        "{report}"
    );
    let (classes, _) = bars(out.path());
    assert_eq!(classes, ["near", "full"], "amber past 80%, red past 95%");
    // Written again: the same warnings, once; as Rust (only the estimate known): the
    // estimate's again, which is past 80% too.
    tight.write_rust_with(out.path(), tables).unwrap();
    assert_eq!(near(&tight), warned);
    tight.write_rust_with(out.path(), Bodies::External).unwrap();
    let estimated = near(&tight);
    assert!(
        estimated.len() == 1 && estimated[0].starts_with("budget: the Worker bundle is about"),
        "{estimated:?}"
    );
    assert_eq!(tight.written, None);

    // Every file in the store, and the tables with the code at 90% of the limit: warned, naming
    // no file (none of them is in the bundle).
    options.config.storage.tier = StorageTier::Assets;
    options.config.budget = Default::default();
    let mut stored = compile(site.path(), &options).unwrap();
    let figures = stored.write_rust_with(out.path(), tables).unwrap().unwrap();
    let tables_and_code = figures.tables_bytes + CODE_ESTIMATE_BYTES;
    options.config.budget.max_bundle_bytes = tables_and_code * 100 / 90;
    let mut stored = compile(site.path(), &options).unwrap();
    stored.write_rust_with(out.path(), tables).unwrap();
    let warned = near(&stored);
    assert!(
        warned.len() == 1
            && warned[0].starts_with(&format!(
                "budget: the Worker bundle is {tables_and_code} bytes"
            ))
            && warned[0].ends_with("its files in the bundle 0"),
        "{warned:?}"
    );
}

/// The build of the site at `site` passes with `[budget] max_memory_bytes` at the bytes its
/// Worker would hold (the runtime's own, `in_bundle` bytes of files in its bundle, its tables
/// as written, and their decoded size), and fails one byte below it, saying why.
fn memory_limit_is_held(site: &Path, options: &mut Options, in_bundle: u64) {
    use edgesite_sitegen::model::CODE_ESTIMATE_BYTES;
    let tables = Bodies::Tables { in_binary: false };
    let out = tempfile::tempdir().unwrap();
    options.config.budget.max_memory_bytes = u64::MAX;
    let mut manifest = compile(site, options).unwrap();
    let figures = manifest.write_rust_with(out.path(), tables).unwrap();
    let written: &'static [u8] = Box::leak(fs::read(out.path().join("tables.bin")).unwrap().into());
    let (decoded_site, decoded) = edgesite_tables::decode_measured(written, &[]).unwrap();
    let figures = figures.expect("the tables' figures, where they are data");
    assert_eq!(
        (figures.tables_bytes, figures.decoded_bytes),
        (written.len() as u64, decoded)
    );
    // Every route (28 bytes on wasm32) and every asset (80) at least.
    assert!(
        decoded > 28 * decoded_site.routes.len() as u64 + 80,
        "{decoded}"
    );
    let runtime = edgesite_sitegen::model::RUNTIME_MEMORY_BYTES;
    // Beside the tables, what they decode into, or at start their second copy.
    let beside = decoded.max(written.len() as u64);
    let least = runtime + in_bundle + written.len() as u64 + beside;
    // The report names both, after the bundle's estimate.
    let report = fs::read_to_string(out.path().join("report.txt")).unwrap();
    let line = format!(
        "as written: bundle {} bytes (tables {})",
        written.len() as u64 + in_bundle + CODE_ESTIMATE_BYTES,
        written.len()
    );
    let isolate =
        format!("isolate holds at most {least} bytes (the tables, {decoded} more decoded");
    assert!(
        report.contains(&line) && report.contains(&isolate),
        "{report}"
    );
    let estimate = report.find("\nbundle estimate ").unwrap();
    assert!(
        report.find("\nas written: ").unwrap() > estimate,
        "{report}"
    );
    options.config.budget.max_memory_bytes = least;
    compile(site, options)
        .unwrap()
        .write_rust_with(out.path(), tables)
        .unwrap();
    options.config.budget.max_memory_bytes = least - 1;
    let mut over = compile(site, options).unwrap();
    let error = over.write_rust_with(out.path(), tables).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::FileTooLarge);
    let error = error.to_string();
    assert!(
        error.contains(&format!("would hold {least} bytes"))
            && error.contains(&format!("with {decoded} more decoded beside them"))
            && error.contains(&format!("in the bundle {in_bundle}"))
            && error.contains("max_memory_bytes")
            && error.contains("[agents] enabled"),
        "{error}"
    );
}

/// The served pages are written as the build serves them; a rebuild rewrites only the pages
/// whose bytes changed and removes the files of pages that are gone.
#[test]
fn served_pages_are_rewritten_only_where_they_changed() {
    use std::os::unix::fs::MetadataExt;
    let site = generated_site(3);
    let out = tempfile::tempdir().unwrap();
    let served = out.path().join("served");
    compile_ok(site.path()).write_served_pages(&served).unwrap();
    let inode = |name: &str| fs::metadata(served.join(name)).unwrap().ino();
    let (same, edited) = (inode("page-000.html"), inode("page-001.html"));
    fs::write(site.path().join("page-001.html"), "<p>edited</p>").unwrap();
    fs::remove_file(site.path().join("page-002.html")).unwrap();
    fs::create_dir_all(served.join("old")).unwrap();
    fs::write(served.join("old/stale.html"), "an earlier build's").unwrap();
    compile_ok(site.path()).write_served_pages(&served).unwrap();
    assert_eq!(inode("page-000.html"), same, "unchanged: not written again");
    assert_ne!(inode("page-001.html"), edited, "changed: written");
    assert_eq!(
        fs::read_to_string(served.join("page-001.html")).unwrap(),
        "<p>edited</p>"
    );
    assert!(!served.join("page-002.html").exists(), "gone from the site");
    assert!(
        !served.join("old").exists(),
        "an earlier build's file and its folder"
    );
    // A folder where a page now goes (a path that was a folder in an earlier build): the
    // pages are written again from nothing.
    fs::remove_file(served.join("page-000.html")).unwrap();
    fs::create_dir_all(served.join("page-000.html/index.html")).unwrap();
    compile_ok(site.path()).write_served_pages(&served).unwrap();
    assert!(fs::read_to_string(served.join("page-000.html"))
        .unwrap()
        .starts_with("<p>page 0:"));
}

/// The bundle's estimate of the tables (`Asset::table_bytes` and the shared preload hints) is
/// from above and not far above: the tables as written, for pages that link a stylesheet and
/// a script (preload hints they share) and are stored in every coding.
#[test]
fn the_estimate_of_the_tables_is_from_above_and_near() {
    let site = generated_site(300);
    fs::write(
        site.path().join("site.css"),
        "body { color: #123; }\n".repeat(40),
    )
    .unwrap();
    fs::write(
        site.path().join("app.js"),
        "console.log('edgesite');\n".repeat(40),
    )
    .unwrap();
    for i in 0..300 {
        let page = site.path().join(format!("page-{i:03}.html"));
        let text = fs::read_to_string(&page).unwrap();
        let head = "<!doctype html><link rel=stylesheet href=site.css><script src=app.js></script>";
        fs::write(&page, format!("{head}\n{text}")).unwrap();
    }
    let mut manifest = compile_ok(site.path());
    assert!(manifest
        .files
        .iter()
        .any(|f| f.fields.iter().any(|(n, _)| n == "link")));
    let blobs: u64 = manifest.files.iter().map(|f| f.bundle_bytes()).sum();
    let estimate = manifest.bundle_bytes() - blobs - edgesite_sitegen::model::CODE_ESTIMATE_BYTES;
    let out = tempfile::tempdir().unwrap();
    manifest
        .write_rust_with(out.path(), Bodies::Tables { in_binary: false })
        .unwrap();
    let tables = fs::metadata(out.path().join("tables.bin")).unwrap().len();
    assert!(
        tables <= estimate,
        "tables {tables} bytes, estimate {estimate}"
    );
    assert!(
        estimate <= 3 * tables,
        "tables {tables} bytes, estimate {estimate}"
    );
}
