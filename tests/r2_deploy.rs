//! `make deploy` for a site with files in R2 (`[storage] r2_bucket`): `scripts/r2-put.mjs` puts
//! only the objects the bucket does not hold (its record of the keys put, since wrangler cannot
//! list a bucket), and `scripts/deploy.sh` refuses to upload a Worker whose wrangler.toml binds
//! no `EDGESITE_R2`, before it builds or uploads anything. (The objects' round trip through a
//! bucket is tests/stored.rs's, under wrangler dev's local R2; an account's bucket is not
//! reachable here.)
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn only_objects_not_yet_put_are_put() {
    let objects = tempfile::tempdir().unwrap();
    let folder = objects.path().join("_edgesite/r");
    std::fs::create_dir_all(&folder).unwrap();
    for name in ["a.bin", "b.bin", "c.bin"] {
        std::fs::write(folder.join(name), name).unwrap();
    }
    // The project folder the record is kept in: `a` was put by an earlier deploy.
    let project = tempfile::tempdir().unwrap();
    let record = project.path().join(".edgesite/r2");
    std::fs::create_dir_all(&record).unwrap();
    std::fs::write(record.join("site-media.txt"), "_edgesite/r/a.bin\n").unwrap();
    let output = Command::new("node")
        .arg(Path::new(ROOT).join("scripts/r2-put.mjs"))
        .args(["--bucket", "site-media", "--remote", "--dry-run", "--from"])
        .arg(objects.path())
        .current_dir(project.path())
        .output()
        .expect("node runs");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "site-media/_edgesite/r/b.bin",
            "site-media/_edgesite/r/c.bin"
        ]
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("2 of 3 objects put (dry run)"));
}

#[test]
fn a_deploy_without_the_r2_binding_is_refused_before_anything_is_uploaded() {
    // The upload command would leave a mark if it ran.
    let mark = tempfile::tempdir().unwrap();
    let marked = mark.path().join("uploaded");
    let output = Command::new(Path::new(ROOT).join("scripts/deploy.sh"))
        .args(["touch"])
        .arg(&marked)
        .env(
            "EDGESITE_CONFIG",
            Path::new(ROOT).join("tests/fixtures/stored.toml"),
        )
        .output()
        .expect("deploy.sh runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("edgesite-test") && stderr.contains("EDGESITE_R2"),
        "{stderr}"
    );
    assert!(!marked.exists(), "nothing was uploaded");
}
