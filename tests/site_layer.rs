//! The site layer of `make test` (docs/testing.md): real cargo builds of the native twin in the
//! one target folder, each served by the binary it built, over loopback. That build.rs follows
//! `EDGESITE_SITE` and every file of the site (a file added, changed, removed rebuilds), that
//! 10,000 `_headers` and 20,000 `_redirects` rules build and serve, that `make deploy` records a
//! deploy only once its upload succeeded, that a bad site or configuration fails the build
//! naming file and line, and that a large site's first build draws its progress bar.
//!
//! Each test builds the workspace's binaries (`cargo build`, as a user's rebuild does), so they
//! are ignored by a plain `cargo test` and run one at a time by the site layer:
//! `site_layer -- --ignored --test-threads=1`. A server is a [`Served`] guard (crates/testkit):
//! stopped when it goes out of scope, also when the test panics, and then its log's end is
//! printed.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use sha2::{Digest, Sha256};
use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::{request_to, Reply};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The target folder the builds share with the rest of `make test`.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| Path::new(ROOT).join("target"), PathBuf::from)
}

/// The cargo that built this test.
const CARGO: &str = match option_env!("CARGO") {
    Some(cargo) => cargo,
    None => "cargo",
};

/// `cargo build` of the workspace's binaries and examples (testkit's, shared with the harness),
/// with the root package's `site-layer` feature: a build of its own (Cargo.toml says why), so
/// that the demo's, which `make test` shares between its layers, stays as it was.
fn build_args() -> Vec<&'static str> {
    let mut args = testkit::HOST_BUILD.to_vec();
    args.extend(["--features", "edgesite/site-layer"]);
    args
}

/// [`build_args`] with `env` set and the build's own variables otherwise unset.
fn build(env: &[(&str, &str)]) -> Output {
    let started = Instant::now();
    let mut cargo = Command::new(CARGO);
    cargo.current_dir(ROOT).args(build_args());
    for name in [
        "EDGESITE_SITE",
        "EDGESITE_CONFIG",
        "EDGESITE_RECORD_DEPLOY",
        "EDGESITE_ENCODINGS",
    ] {
        cargo.env_remove(name);
    }
    cargo.envs(env.iter().copied());
    let output = cargo.output().expect("run cargo");
    eprintln!(
        "[time] cargo build {env:?}: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    output
}

/// [`build`], which must succeed.
fn build_ok(env: &[(&str, &str)]) {
    let output = build(env);
    assert!(
        output.status.success(),
        "cargo build {env:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A running server (a `testkit::Server` in this test's process group, so that a Ctrl-C stops
/// it with the test: stopped on drop; its log's end printed when a test panics with it up).
struct Served {
    server: testkit::Server,
}

impl Served {
    /// The native twin the last build made, on a free port, once it answers (30 s at most).
    fn start(name: &str) -> Served {
        let port = testkit::free_port();
        let mut command = Command::new(target_dir().join("debug/edgesite-native"));
        command.args(["--listen", &format!("127.0.0.1:{port}")]);
        let logs = target_dir().join("test-logs");
        let server = testkit::Server::start_in_our_group(
            name,
            port,
            Duration::from_secs(30),
            &logs,
            &mut command,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        Served { server }
    }

    fn get(&self, target: &str) -> Reply {
        request_to(
            &format!("127.0.0.1:{}", self.server.port()),
            "GET",
            target,
            &[],
        )
    }

    /// GET `target` answers `status` (and `body`, when given).
    fn expect(&self, target: &str, status: u16, body: Option<&str>) {
        let reply = self.get(target);
        let text = String::from_utf8_lossy(&reply.body);
        assert_eq!(reply.status, status, "GET {target}: {text:.200}");
        if let Some(body) = body {
            assert_eq!(text.trim_end(), body, "GET {target}");
        }
    }
}

/// `EDGESITE_SITE` serves another folder, and build.rs tracks its every file: one added,
/// changed, then removed rebuilds what is served; the fixture site again by a relative path.
#[test]
#[ignore = "real cargo builds: the site layer runs it"]
fn a_site_folder_is_served_and_its_changes_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&Path::new(ROOT).join("tests/fixtures/site"), dir.path());
    let site = dir.path().to_str().unwrap();
    build_ok(&[("EDGESITE_SITE", site)]);
    let served = Served::start("site-override");
    served.expect("/hello.txt", 200, Some("hello from the fixture site"));
    served.expect("/about.html", 404, None);
    drop(served);
    fs::write(dir.path().join("new.txt"), "added\n").unwrap();
    fs::write(dir.path().join("hello.txt"), "changed\n").unwrap();
    build_ok(&[("EDGESITE_SITE", site)]);
    let served = Served::start("site-override");
    served.expect("/new.txt", 200, Some("added"));
    served.expect("/hello.txt", 200, Some("changed"));
    drop(served);
    fs::remove_file(dir.path().join("new.txt")).unwrap();
    build_ok(&[("EDGESITE_SITE", site)]);
    Served::start("site-override").expect("/new.txt", 404, None);
    build_ok(&[("EDGESITE_SITE", "tests/fixtures/site")]);
    let served = Served::start("site-override");
    served.expect("/hello.txt", 200, Some("hello from the fixture site"));
}

/// A site with 10,000 `_headers` rules, 10,000 fixed and 10,000 dynamic `_redirects` rules (no
/// cap without `[compat] pages_limits`): it builds (sitegen, then the tables), and the rules
/// take effect over HTTP.
#[test]
#[ignore = "real cargo builds: the site layer runs it"]
fn ten_thousand_rules_of_each_kind_build_and_serve() {
    let site = target_dir().join("many-rules-site");
    let _ = fs::remove_dir_all(&site);
    fs::create_dir_all(site.join("h")).unwrap();
    for j in 0..100 {
        fs::write(site.join(format!("h/f{j}.txt")), format!("file {j}\n")).unwrap();
    }
    fs::write(site.join("index.html"), "<p>many rules</p>\n").unwrap();
    let headers: String = (0..10_000)
        .map(|i| format!("/h/f{}.txt\n  X-Rule: {i}\n", i % 100))
        .collect();
    fs::write(site.join("_headers"), headers).unwrap();
    let fixed = (0..10_000).map(|i| format!("/old/{i} /h/f{}.txt 301\n", i % 100));
    let dynamic = (0..10_000).map(|i| format!("/d/{i}/:x /h/:x 302\n"));
    fs::write(
        site.join("_redirects"),
        fixed.chain(dynamic).collect::<String>(),
    )
    .unwrap();
    build_ok(&[("EDGESITE_SITE", site.to_str().unwrap())]);
    let served = Served::start("site-override");
    let old = served.get("/old/9999");
    assert_eq!(
        (old.status, old.header("location")),
        (301, Some("/h/f99.txt"))
    );
    let dynamic = served.get("/d/9999/f1.txt");
    assert_eq!(
        (dynamic.status, dynamic.header("location")),
        (302, Some("/h/f1.txt"))
    );
    served.expect("/d/5000/x/y", 404, None);
    served.expect("/h/f42.txt", 200, Some("file 42"));
    // Every rule of the path applies, in order: their values joined.
    let rules: Vec<String> = (42..10_000).step_by(100).map(|i| i.to_string()).collect();
    let file = served.get("/h/f42.txt");
    assert_eq!(file.header("x-rule"), Some(rules.join(", ").as_str()));
}

/// `make deploy` (scripts/deploy.sh) records a deploy in the history only once its upload
/// command succeeded: one that fails and one that is killed leave the history byte for byte as
/// it was (the build only staged the deploy); one that succeeds records it, and the stage goes.
#[test]
#[ignore = "real cargo builds: the site layer runs it"]
fn a_deploy_is_recorded_only_when_its_upload_succeeded() {
    let work = tempfile::tempdir().unwrap();
    let history = work.path().join("history");
    copy_dir(
        &Path::new(ROOT).join("tests/fixtures/demo-history"),
        &history,
    );
    let config = work.path().join("edgesite.toml");
    let site = Path::new(ROOT).join("tests/fixtures/site");
    let text = format!("[site]\ndir = {site:?}\n[history]\ndir = {history:?}\n");
    fs::write(&config, text).unwrap();
    let staged = target_dir().join("edgesite/staged-deploy");
    let before = digest(&history);
    // Upload commands that run the build, then fail or are killed.
    let fails = script(work.path(), "fails", "#!/bin/bash\n\"$@\" && exit 1\n");
    let killed = script(
        work.path(),
        "killed",
        "#!/bin/bash\n\"$@\" && kill -KILL $$\n",
    );
    let deploy = |upload: Option<&Path>| {
        let started = Instant::now();
        let mut command = Command::new(Path::new(ROOT).join("scripts/deploy.sh"));
        command.current_dir(ROOT).env("EDGESITE_CONFIG", &config);
        command
            .env_remove("EDGESITE_SITE")
            .env_remove("EDGESITE_RECORD_DEPLOY");
        let status = command
            .args(upload)
            .arg(CARGO)
            .args(build_args())
            .status()
            .unwrap();
        let took = started.elapsed().as_secs_f64();
        eprintln!("[time] deploy.sh, upload {upload:?}: {took:.1} s");
        status.success()
    };
    assert!(
        !deploy(Some(&fails)),
        "an upload that fails fails the deploy"
    );
    assert_eq!(
        digest(&history),
        before,
        "a failed deploy changed the history"
    );
    assert!(
        staged.join("staged.json").is_file(),
        "the build staged the deploy"
    );
    assert!(
        !deploy(Some(&killed)),
        "an upload that is killed fails the deploy"
    );
    assert_eq!(
        digest(&history),
        before,
        "a killed deploy changed the history"
    );
    assert!(deploy(None), "a deploy without an upload command succeeds");
    assert!(!staged.exists(), "the stage is gone once recorded");
    let index: serde_json::Value =
        serde_json::from_slice(&fs::read(history.join("deploys.json")).unwrap()).unwrap();
    assert_eq!(
        index["deploys"].as_array().map(Vec::len),
        Some(2),
        "{index}"
    );
}

/// A missing site folder, an unknown configuration key, a field value with a line break, a
/// bad `EDGESITE_PROGRESS` and a bad `EDGESITE_ENCODINGS` each fail the build, naming the
/// folder, the file and line, or the variable.
#[test]
#[ignore = "real cargo builds: the site layer runs it"]
fn a_bad_site_or_configuration_fails_the_build_naming_it() {
    for (env, says) in [
        (
            &[("EDGESITE_SITE", "/no/such/site")][..],
            "the site directory /no/such/site does not exist",
        ),
        (
            &[("EDGESITE_CONFIG", "tests/fixtures/bad.toml")],
            "tests/fixtures/bad.toml:3: unknown field `cleanurls`",
        ),
        (
            &[("EDGESITE_CONFIG", "tests/fixtures/bad-value.toml")],
            "tests/fixtures/bad-value.toml:4: headers.content_security_policy: the value contains",
        ),
        (
            // Read when the build script runs (a failed one runs again; the variable alone
            // does not rebuild).
            &[
                ("EDGESITE_CONFIG", "tests/fixtures/bad.toml"),
                ("EDGESITE_PROGRESS", "sometimes"),
            ],
            "EDGESITE_PROGRESS=sometimes: expected auto, always or never",
        ),
        (
            &[("EDGESITE_ENCODINGS", "fast")],
            "EDGESITE_ENCODINGS=fast: expected quick or configured",
        ),
    ] {
        let output = build(env);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "building with {env:?} succeeded");
        assert!(
            stderr.contains(says),
            "{env:?}: the error does not say {says:?}:\n{stderr}"
        );
    }
}

/// A site's first build, as a user runs it in a terminal (`script`: a pseudo-terminal): the
/// build script draws the compression's progress bar on it (issue 24); built as `make dev`
/// builds (`EDGESITE_ENCODINGS=quick`), its encodings are made at quick settings. A new seed each run, so
/// that nothing comes from the encoding cache; `EDGESITE_PROGRESS=always`, so that a small
/// site shows it (by default a stage shows its progress once it has run two seconds, which
/// the 160-page site this test built before took to compress here; it might not on a faster
/// machine).
#[test]
#[ignore = "real cargo builds: the site layer runs it"]
fn a_sites_first_build_shows_its_progress_on_the_terminal() {
    let site = tempfile::tempdir().unwrap();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
        .to_string();
    let generated = Command::new("python3")
        .current_dir(ROOT)
        .args(["bench/gensite.py", site.path().to_str().unwrap()])
        .args([
            "--pages",
            "16",
            "--page-kb",
            "24",
            "--images",
            "1",
            "--image-kb",
            "1",
        ])
        .args(["--seed", &seed])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(generated.success(), "bench/gensite.py failed");
    let log = site.path().join("terminal.log");
    let command = format!("{CARGO} {}", build_args().join(" "));
    let started = Instant::now();
    let status = Command::new("script")
        .current_dir(ROOT)
        .args(["-qec", &command, log.to_str().unwrap()])
        .env("EDGESITE_SITE", site.path())
        .env("EDGESITE_PROGRESS", "always")
        .env("EDGESITE_ENCODINGS", "quick")
        .env_remove("EDGESITE_CONFIG")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    eprintln!(
        "[time] the build in a terminal: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let mut terminal = Vec::new();
    fs::File::open(&log)
        .unwrap()
        .read_to_end(&mut terminal)
        .unwrap();
    let terminal = String::from_utf8_lossy(&terminal);
    assert!(status.success(), "the build failed: {}", tail(&terminal));
    assert!(
        terminal
            .split("edgesite: compress [")
            .skip(1)
            .any(is_progress),
        "the build's terminal shows no progress bar; its end: {}",
        tail(&terminal)
    );
    // As `make dev` builds (EDGESITE_ENCODINGS=quick): what the cache did not hold (the pages,
    // new) was made at quick settings, and the build's report counts them (with those the
    // cache held at quick settings: the generator's stylesheet and script are the same in
    // every run).
    let report = fs::read_to_string(target_dir().join("edgesite/report.txt")).unwrap();
    let counted = |after: &str| -> Option<u64> {
        let end = report.find(after)?;
        let start = report[..end].rfind(|c: char| !c.is_ascii_digit())? + 1;
        report[start..end].parse().ok()
    };
    let computed = counted(" encodings computed, ");
    let quick = counted(" of them at quick settings, as make dev asks");
    assert!(
        computed.is_some_and(|n| n > 0) && quick >= computed,
        "computed {computed:?}, quick {quick:?}: {}",
        tail(&report)
    );
}

/// Whether `rest` (what follows `edgesite: compress [`) is the bar and its figures: `[=> ]+`,
/// `] `, files done `/` of all ` files, `, megabytes ` MB, `, seconds `s left`.
fn is_progress(rest: &str) -> bool {
    let Some(bar_end) = rest.find("] ") else {
        return false;
    };
    let (bar, figures) = (&rest[..bar_end], &rest[bar_end + 2..]);
    let parsed = (|| {
        let rest = after_number(figures, "")?.strip_prefix('/')?;
        let rest = after_number(rest, "")?.strip_prefix(" files, ")?;
        let rest = after_number(rest, ".")?.strip_prefix(" MB, ")?;
        after_number(rest, "")?.strip_prefix("s left")
    })();
    !bar.is_empty() && bar.chars().all(|c| "=> ".contains(c)) && parsed.is_some()
}

/// What follows the digits (and characters of `also`) that `s` starts with; `None` if none.
fn after_number<'a>(s: &'a str, also: &str) -> Option<&'a str> {
    let end = s
        .find(|c: char| !c.is_ascii_digit() && !also.contains(c))
        .unwrap_or(s.len());
    (end > 0).then(|| &s[end..])
}

/// What a terminal shows of the bar, and what it must not take for one (not ignored: no build).
#[test]
fn the_progress_bar_is_read_as_drawn() {
    let drawn = "edgesite: compress [=====>    ] 12/160 files, 3.4 MB, 5s left";
    let rest = |line: &'static str| line.split("edgesite: compress [").nth(1).unwrap();
    assert!(is_progress(rest(drawn)));
    for broken in [
        "edgesite: compress [] 12/160 files, 3.4 MB, 5s left",
        "edgesite: compress [==x] 12/160 files, 3.4 MB, 5s left",
        "edgesite: compress [==>] 12 files, 3.4 MB, 5s left",
        "edgesite: compress [==>] 12/160 files, MB, 5s left",
        "edgesite: compress [==>] 12/160 files, 3.4 MB, left",
    ] {
        assert!(!is_progress(rest(broken)), "{broken}");
    }
}

fn tail(text: &str) -> &str {
    let mut at = text.len().saturating_sub(1500);
    while !text.is_char_boundary(at) {
        at += 1;
    }
    &text[at..]
}

/// Copies the folder `from` into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The SHA-256 of a folder: every path under it, sorted, with its bytes.
fn digest(dir: &Path) -> Vec<u8> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            out.push(path.clone());
            if path.is_dir() {
                walk(&path, out);
            }
        }
    }
    let mut paths = Vec::new();
    walk(dir, &mut paths);
    paths.sort();
    let mut sha = Sha256::new();
    for path in paths {
        sha.update(path.strip_prefix(dir).unwrap().to_string_lossy().as_bytes());
        if path.is_file() {
            sha.update(fs::read(&path).unwrap());
        }
    }
    sha.finalize().to_vec()
}

/// An executable script `name` in `dir` with `text`.
fn script(dir: &Path, name: &str, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    path
}
