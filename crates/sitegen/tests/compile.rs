//! `compile` on real directories: the committed fixture site, and temporary trees for what git
//! cannot hold. Covers:
//!
//! * the walk: sorted, `/`-separated, dotfiles skipped except `.well-known/`, symbolic links
//!   followed inside the site;
//! * the tables: Content-Type, strong ETags from SHA-256, routes for folders, the 404 page;
//! * determinism: two compiles of one tree write identical `site.rs`;
//! * every error, each naming the offending path: missing or empty site, a file as the site,
//!   unreadable entry, non-UTF-8 name, backslash in a name, over-long path, symbolic link outside
//!   the site, symbolic link loop, bad `SOURCE_DATE_EPOCH`.

use edgesite_sitegen::{compile, last_modified, Error, Manifest, Options, RouteTarget};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

const FIXTURE_SITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/site");

fn options() -> Options {
    Options {
        last_modified: UNIX_EPOCH + Duration::from_secs(1_700_000_000),
    }
}

fn compile_ok(dir: &Path) -> Manifest {
    compile(dir, &options()).unwrap_or_else(|e| panic!("compile {}: {e}", dir.display()))
}

fn compile_err(dir: &Path) -> Error {
    compile(dir, &options()).expect_err("compile should fail")
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
            "/docs/index.html",
            "/docs/page.html",
            "/hello.txt",
            "/index.html",
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
        |p: &str| RouteTarget::File(manifest.files.iter().position(|f| f.path == p).unwrap());
    assert_eq!(target("/"), Some(index("/index.html")));
    assert_eq!(target("/docs/"), Some(index("/docs/index.html")));
    assert_eq!(
        target("/docs"),
        Some(RouteTarget::Redirect("/docs/".into()))
    );
    assert_eq!(
        manifest.not_found,
        manifest.files.iter().position(|f| f.path == "/404.html")
    );
}

#[test]
fn two_compiles_of_one_tree_write_identical_tables() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    compile_ok(Path::new(FIXTURE_SITE))
        .write_rust(a.path())
        .unwrap();
    compile_ok(Path::new(FIXTURE_SITE))
        .write_rust(b.path())
        .unwrap();
    for name in ["site.rs", "manifest.json"] {
        assert_eq!(
            fs::read(a.path().join(name)).unwrap(),
            fs::read(b.path().join(name)).unwrap(),
            "{name}"
        );
    }
    let site_rs = fs::read_to_string(a.path().join("site.rs")).unwrap();
    assert!(site_rs.contains("pub static SITE: ::edgesite_core::Site<'static>"));
    assert!(site_rs.contains("pub static FILES: ::include_dir::Dir<'static>"));
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
