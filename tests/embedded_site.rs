//! The embedded site is the site on disk: `edgesite::SITE` agrees with an in-memory compile (by
//! edgesite-sitegen) of the folder the build embedded, route by route and byte by byte.
#![cfg(not(target_arch = "wasm32"))]

use edgesite::SITE;
use edgesite_core::Target;
use edgesite_sitegen::model::RouteTarget;
use edgesite_sitegen::{compile, Config, Options};
use sha2::{Digest, Sha256};
use std::path::Path;

/// The demo compiled as build.rs compiles it: edgesite.toml, its deploy history included (the
/// earlier deploy's kept files and the deltas; the fixture EDGESITE_HISTORY names, set by
/// .cargo/config.toml for every build and test of the workspace).
fn compiled() -> edgesite_sitegen::Manifest {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = Config::load(&root.join("edgesite.toml")).expect("the demo's edgesite.toml");
    // The build's Last-Modified and the pages' dates, as build.rs takes them: the Markdown twins
    // hold a date in their bytes (each page's own, or with SOURCE_DATE_EPOCH the build's).
    let epoch = build_epoch();
    let site = Path::new(edgesite::SITE_DIR);
    let last_modified =
        edgesite_sitegen::last_modified(epoch.as_deref(), site).expect("a Last-Modified");
    let mut options = Options::from_config(config.clone(), last_modified);
    options.page_dates = edgesite_sitegen::PageDates::for_epoch(epoch.as_deref());
    let history = history_override().unwrap_or_else(|| config.history.dir.clone());
    options.history_dir = Some(root.join(history));
    compile(Path::new(edgesite::SITE_DIR), &options).expect("the embedded site compiles")
}

/// The `SOURCE_DATE_EPOCH` the build was given: this process's, or cargo's for this binary.
fn build_epoch() -> Option<String> {
    (std::env::var("SOURCE_DATE_EPOCH").ok())
        .or_else(|| option_env!("SOURCE_DATE_EPOCH").map(String::from))
}

/// The deploy history the build read in place of the config's: `EDGESITE_HISTORY` as cargo set
/// it for this test binary's compile (.cargo/config.toml), or in this process's environment;
/// `cargo xtask test` runs the binaries itself, outside cargo's environment.
fn history_override() -> Option<std::path::PathBuf> {
    edgesite_sitegen::build_script::history_from_env()
        .or_else(|| option_env!("EDGESITE_HISTORY").map(std::path::PathBuf::from))
}

#[test]
fn every_route_of_the_compiled_site_is_embedded_with_the_same_target() {
    let manifest = compiled();
    assert_eq!(SITE.routes.len(), manifest.routes.len());
    for (embedded, compiled) in SITE.routes.iter().zip(&manifest.routes) {
        assert_eq!(embedded.path, compiled.path);
        match (&embedded.target, &compiled.target) {
            (Target::Asset(asset), RouteTarget::Asset(i)) => {
                let file = &manifest.files[*i];
                let identity = asset.identity();
                assert_eq!(identity.etag, file.etag, "{}", file.path);
                assert_eq!(
                    identity.content_length,
                    file.size.to_string(),
                    "{}",
                    file.path
                );
                assert_eq!(asset.content_type, file.content_type, "{}", file.path);
                // The strong ETag is derived from the exact bytes sent (RFC 9110 §8.8.3).
                assert_eq!(
                    hex(&Sha256::digest(bytes(identity))),
                    file.sha256,
                    "{}",
                    file.path
                );
            }
            (
                Target::Redirect(redirect),
                RouteTarget::Redirect {
                    status,
                    location,
                    query_at,
                },
            ) => {
                assert_eq!(
                    (redirect.status, redirect.location, redirect.query_at),
                    (*status, location.as_str(), *query_at)
                );
            }
            (embedded, compiled) => {
                panic!("{}: {embedded:?} vs {compiled:?}", compiled_path(compiled))
            }
        }
    }
}

/// The bytes of a representation of the native build, which embeds them all.
fn bytes<'a>(representation: &'a edgesite_core::Representation<'a>) -> &'a [u8] {
    match representation.content {
        edgesite_core::Content::Bytes(bytes) => bytes,
        other => panic!("the host build embeds its bytes: {other:?}"),
    }
}

fn compiled_path(target: &RouteTarget) -> String {
    format!("{target:?}")
}

#[test]
fn every_representation_is_embedded_byte_for_byte() {
    let manifest = compiled();
    for (route, compiled) in SITE.routes.iter().zip(&manifest.routes) {
        let (Target::Asset(asset), RouteTarget::Asset(i)) = (&route.target, &compiled.target)
        else {
            continue;
        };
        let file = &manifest.files[*i];
        let on_disk = file.source.read().unwrap();
        assert_eq!(
            asset.representations.len(),
            file.representations.len(),
            "{}",
            file.path
        );
        for (embedded, variant) in asset.representations.iter().zip(&file.representations) {
            assert_eq!(
                (embedded.coding, embedded.etag),
                (variant.coding, variant.etag.as_str())
            );
            let expected = variant.bytes.as_deref().unwrap_or(&on_disk);
            assert!(
                bytes(embedded) == expected,
                "{} {:?}",
                file.path,
                variant.coding
            );
        }
        // The RFC 9842 deltas, with the dictionary each names.
        assert_eq!(asset.deltas.len(), file.deltas.len(), "{}", file.path);
        for (embedded, delta) in asset.deltas.iter().zip(&file.deltas) {
            let r = &embedded.representation;
            // The text requests are matched against names the dictionary's hash (RFC 9842 §2.2,
            // RFC 8941 §3.3.5).
            assert_eq!(
                edgesite_core::dictionary_hash(embedded.available_dictionary.as_bytes()),
                Some(delta.dictionary)
            );
            assert_eq!(
                (r.coding, r.etag),
                (
                    delta.representation.coding,
                    delta.representation.etag.as_str()
                )
            );
            assert!(
                bytes(r) == delta.representation.bytes.as_deref().unwrap(),
                "{}",
                file.path
            );
        }
    }
    // The demo's history gives app.js, style.css and the photo captions' stylesheet deltas
    // (tests/fixtures/demo-history).
    let with_deltas = manifest
        .files
        .iter()
        .filter(|f| !f.deltas.is_empty())
        .count();
    assert_eq!(with_deltas, 3);
}

#[test]
fn the_404_pages_are_embedded() {
    let manifest = compiled();
    let embedded: Vec<_> = SITE
        .not_found
        .iter()
        .map(|p| (p.folder, p.page.identity().etag))
        .collect();
    let compiled: Vec<_> = manifest
        .not_found
        .iter()
        .map(|(folder, i)| (folder.as_str(), manifest.files[*i].etag.as_str()))
        .collect();
    assert_eq!(embedded, compiled);
}

#[test]
fn the_demo_site_is_precompressed() {
    let index = match &SITE.route("/").unwrap().target {
        Target::Asset(asset) => asset,
        Target::Redirect(_) => panic!("/ is a page"),
    };
    let codings: Vec<&str> = index
        .representations
        .iter()
        .map(|r| r.coding.token())
        .collect();
    assert_eq!(codings, ["identity", "br", "zstd", "gzip"]);
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What the tests serve a fixture configuration with (`Manifest::leak_site`, a compile served
/// from memory) is what the build generates: the demo compiled as build.rs compiles it (at the
/// build's Last-Modified, which outside a git work tree is the time of the build), then leaked,
/// equals the generated `SITE` field by field, bytes included.
#[test]
fn the_compile_served_from_memory_is_the_generated_site() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let built_at = SITE
        .routes
        .iter()
        .find_map(|route| match route.target {
            Target::Asset(asset) => Some(asset.last_modified_unix.to_string()),
            Target::Redirect(_) => None,
        })
        .expect("the demo has files");
    let history = history_override();
    let build = edgesite_sitegen::build_script::Build {
        root,
        config_path: &root.join("edgesite.toml"),
        config_named: false,
        site: None,
        history: history.as_deref(),
        source_date_epoch: Some(&built_at),
        // As the build dated the pages (it was given no SOURCE_DATE_EPOCH, or one).
        page_dates: edgesite_sitegen::PageDates::for_epoch(build_epoch().as_deref()),
        cache_dir: None,
        effort: edgesite_sitegen::Effort::Configured,
    };
    let (manifest, _) = build.compile().expect("the demo compiles");
    let leaked = format!(
        "{:#?}",
        manifest.leak_site().expect("the demo's files are readable")
    );
    let generated = format!("{:#?}", *SITE);
    let (leaked, generated): (Vec<&str>, Vec<&str>) =
        (leaked.lines().collect(), generated.lines().collect());
    if let Some(line) =
        (0..leaked.len().max(generated.len())).find(|&i| leaked.get(i) != generated.get(i))
    {
        let context =
            |lines: &[&str]| lines[line.saturating_sub(8)..(line + 3).min(lines.len())].join("\n");
        panic!(
            "the leaked site differs from SITE at line {line} of their Debug forms:\n--- leaked\n{}\n--- SITE\n{}",
            context(&leaked),
            context(&generated)
        );
    }
}

/// A page's Markdown twin, named by the page as its alternate and routed at its `.md` URL, is in
/// the tables once: the two share its representations (the leaked site the tables are written
/// from names a copy of the twin's asset, issue 35).
#[test]
fn a_pages_twin_is_embedded_once() {
    let asset = |path: &str| match &SITE.route(path).unwrap().target {
        Target::Asset(asset) => *asset,
        Target::Redirect(_) => panic!("{path} is a file"),
    };
    for (page, twin) in [("/", "/index.md"), ("/about", "/about.md")] {
        let alternate = asset(page).alternate.expect("the page has its twin");
        let twin = asset(twin);
        assert!(std::ptr::eq(
            alternate.representations,
            twin.representations
        ));
        assert_eq!(alternate.content_type, "text/markdown; charset=utf-8");
        assert!(twin.alternate.is_none());
    }
}
