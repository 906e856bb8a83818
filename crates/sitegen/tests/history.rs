//! The deploy history (`history.rs`): what a deploy served, kept across builds for RFC 9842
//! deltas and skew protection; a real site compiled three times into a real folder.

use edgesite_sitegen::delta::{dcz, DCZ_MAGIC};
use edgesite_sitegen::history::History;
use edgesite_sitegen::{compile, Error, Manifest, Options};
use std::fs;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

fn build(site: &Path) -> Manifest {
    let options = Options::new(UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    compile(site, &options).unwrap()
}

fn sha_of<'a>(manifest: &'a Manifest, path: &str) -> &'a str {
    &manifest
        .files
        .iter()
        .find(|f| f.path == path)
        .unwrap()
        .sha256
}

fn body_count(dir: &Path) -> usize {
    fs::read_dir(dir.join("bodies")).unwrap().count()
}

#[test]
fn three_deploys_keep_two_share_bodies_and_drop_what_no_kept_deploy_served() {
    let site = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let history_dir = dir.path().join("history");
    fs::write(site.path().join("style.css"), "body { color: red }\n").unwrap();
    let mut manifests = Vec::new();
    for version in 1..=3 {
        let script = format!("console.log('version {version}');\n").repeat(20);
        fs::write(site.path().join("app.js"), script).unwrap();
        let manifest = build(site.path());
        let mut history = History::open(&history_dir).unwrap();
        let recorded = history.record(&manifest, 2).unwrap();
        // app.js is new each time; style.css is written once, by the first deploy.
        assert_eq!(recorded.bodies_written, if version == 1 { 2 } else { 1 });
        assert_eq!(recorded.deploys, version.min(2));
        assert_eq!(recorded.bodies_removed, usize::from(version == 3));
        manifests.push(manifest);
    }
    // Two deploys kept, newest first; version 1's script is gone, the shared stylesheet stays.
    let history = History::open(&history_dir).unwrap();
    let ids: Vec<&str> = history
        .deploys
        .iter()
        .map(|d| d.build_id.as_str())
        .collect();
    assert_eq!(ids, [&manifests[2].build_id, &manifests[1].build_id]);
    assert_eq!(body_count(&history_dir), 3);
    let (v2, v3) = (
        sha_of(&manifests[1], "/app.js"),
        sha_of(&manifests[2], "/app.js"),
    );
    assert_eq!(history.versions("/app.js", v3), [v2]);
    assert!(history
        .versions("/style.css", sha_of(&manifests[2], "/style.css"))
        .is_empty());
    assert!(history.body(sha_of(&manifests[0], "/app.js")).is_none());
    // The kept body is the exact bytes served: a delta against it decodes (RFC 9842 §5.2).
    let old = history.body(v2).unwrap();
    assert_eq!(old, "console.log('version 2');\n".repeat(20).as_bytes());
    let new = fs::read(site.path().join("app.js")).unwrap();
    assert_eq!(dcz(&new, &old, 19).unwrap()[..8], DCZ_MAGIC);
    // Recording the same build again replaces its entry instead of adding one.
    let mut again = History::open(&history_dir).unwrap();
    assert_eq!(again.record(&manifests[2], 2).unwrap().deploys, 2);
}

#[test]
fn a_damaged_body_is_never_used_and_a_damaged_index_is_an_error_naming_its_line() {
    let site = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    fs::write(site.path().join("a.txt"), "served bytes\n").unwrap();
    let manifest = build(site.path());
    History::open(dir.path())
        .unwrap()
        .record(&manifest, 3)
        .unwrap();
    let sha = sha_of(&manifest, "/a.txt");
    fs::write(dir.path().join("bodies").join(sha), "other bytes\n").unwrap();
    assert!(History::open(dir.path()).unwrap().body(sha).is_none());

    fs::write(
        dir.path().join("deploys.json"),
        "{\n  \"deploys\": [\n    {\"build_id\": 7}\n  ]\n}\n",
    )
    .unwrap();
    let err = History::open(dir.path()).unwrap_err();
    assert!(matches!(err, Error::Config { line: 3, .. }), "{err}");
    assert!(err.to_string().contains("deploys.json"), "{err}");
    // No folder at all is a first deploy.
    assert!(History::open(&dir.path().join("none"))
        .unwrap()
        .deploys
        .is_empty());
}
