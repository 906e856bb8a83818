//! `cargo xtask test`: the builds, the servers the layers share, and the eight layers with their
//! checks (docs/testing.md lists every check).
//!
//! Builds, one target folder, one compile per configuration:
//! - `host`: `cargo test --no-run`: every test binary of the workspace, edgesite-native and the
//!   examples (`serve_site`, sitegen's `delta`); the executables read from cargo's messages;
//! - `server binaries`: those three copied to target/test-bin (the site layer rebuilds
//!   target/debug/edgesite-native);
//! - `worker (deploy bundle)`, `(configured)`, `(compact)`, `(stored)`: the demo's `wrangler
//!   deploy --dry-run` and the Worker built with each fixture config (crate::workerd);
//! - `worker (example)`: examples/api-worker, by the same build-worker.
//!
//! Layers: `host` first (its limits tests run target/debug/edgesite-native, which `site`
//! rebuilds); then the native twin and one workerd serving four Workers start, shared; then two
//! lanes side by side: `site` (real builds of the workspace with other sites, with the root
//! package's `site-layer` feature: a build of their own, which leaves the demo's build script
//! run, its served copy of the pages the suites compare bodies with, and the test binaries
//! that embed it as they were; then the demo built again, which puts its binaries back in
//! target/debug), and `browser` (a wasm32 compile, then Chromium) with the server layers
//! (`native`, `workerd`, `wrangler`, `example`); `views` last, in lanes of its own
//! ([`crate::views`]).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use testkit::{free_port, Server};

use crate::run::{lock, run_to, Layer, Run};
use crate::workerd;

/// The HTTP suites in tests/ that run against every runtime.
const HTTP_SUITES: [&str; 10] = [
    "http",
    "conditional",
    "negotiation",
    "ranges",
    "paths",
    "redirects",
    "malformed",
    "deltas",
    "images",
    "shared_caches",
];

/// The build `make report` and the site layer's last step make (testkit's, shared with
/// tests/site_layer.rs).
pub(crate) const DEMO_BUILD: [&str; 7] = testkit::HOST_BUILD;

/// `make report`: the build `make test` leaves (DEMO_BUILD), and its report in
/// target/edgesite/, where every build of the package writes its own (a Worker built with a
/// fixture's config after it would have left that one's): copied there from the build's
/// `$OUT_DIR`, found in cargo's messages. Returns report.html's path.
pub(crate) fn demo_report(root: &Path) -> Result<PathBuf, String> {
    let output = Command::new("cargo")
        .current_dir(root)
        .args(DEMO_BUILD)
        .arg("--message-format=json-render-diagnostics")
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!("cargo build failed ({})", output.status));
    }
    let messages = String::from_utf8_lossy(&output.stdout);
    let (_, out_dir) = crate::build_worker::module_and_out_dir(&messages, "edgesite");
    let out_dir = out_dir.ok_or("cargo's messages name no build script output of edgesite")?;
    let dir = root.join("target/edgesite");
    for name in ["manifest.json", "report.txt", "report.html"] {
        fs::copy(out_dir.join(name), dir.join(name)).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(dir.join("report.html"))
}

/// `cargo test` of the workspace but edgesite-bench (its benches are `make bench`'s; it has no
/// tests).
const TEST_WORKSPACE: [&str; 5] = ["test", "-q", "--workspace", "--exclude", "edgesite-bench"];

/// How many host test binaries run at once.
const HOST_JOBS: usize = 2;

/// The fixture configs built as Workers, served by the one workerd after the deploy bundle.
const FIXTURES: [&str; 3] = ["configured", "compact", "stored"];

/// A test executable of the host build.
#[derive(Debug, Clone)]
pub(crate) struct TestBinary {
    /// The target's name (`http`, `edgesite_core`).
    name: String,
    /// Its package's folder (the binary runs there, as under `cargo test`).
    dir: PathBuf,
    exe: PathBuf,
}

/// The one workerd and its ports: the deploy bundle's, then the FIXTURES' Workers'.
pub(crate) type Workerd = (Server, Vec<u16>);

/// The servers several layers share, started on first use, stopped when the run ends.
#[derive(Debug, Default)]
struct Shared {
    native: Mutex<Option<Arc<Server>>>,
    /// One workerd: the deploy bundle, then the FIXTURES' Workers, each on its port.
    workerd: Mutex<Option<Arc<Workerd>>>,
}

/// The harness: a run, its test binaries, its shared servers.
#[derive(Debug)]
pub(crate) struct Harness {
    pub(crate) run: Run,
    binaries: OnceLock<Vec<TestBinary>>,
    shared: Shared,
}

impl Harness {
    pub(crate) fn new(run: Run) -> Harness {
        Harness {
            run,
            binaries: OnceLock::new(),
            shared: Shared::default(),
        }
    }

    /// Builds what the selected layers need, runs them, prints the summary.
    pub(crate) fn test(&self) -> bool {
        let run = &self.run;
        let _ = fs::create_dir_all(&run.logs);
        // The suites' deploy history, which builds read and no check may write (a deploy
        // recorded there changes what the next build serves).
        let history = run.root.join("tests/fixtures/demo-history");
        let before = crate::build_worker::listing(&history);
        self.builds();
        self.layers();
        *lock(&self.shared.native) = None;
        *lock(&self.shared.workerd) = None;
        let kept = crate::build_worker::listing(&history) == before;
        if !kept {
            let changed = history.display();
            run.say(&format!(
                "FAILED: a check changed {changed} (git status shows what; git checkout it)"
            ));
        }
        run.finish() && kept
    }

    /// The layers, in the order and the lanes the module's documentation gives.
    fn layers(&self) {
        let run = &self.run;
        run.layer("host", "host (test binaries, doctests)", |l| self.host(l));
        // Started once for their layers and views (what fails here fails those layers).
        let wants = |k| run.selection.layer(k);
        if run.is_built("server binaries") && (wants("native") || wants("views")) {
            let _ = self.native();
        }
        if run.is_built("worker (stored)") && (wants("workerd") || wants("views")) {
            let _ = self.workerd();
        }
        std::thread::scope(|scope| {
            let browser = "browser (wasm-pack test --headless --chrome)";
            let site = "site: EDGESITE_SITE and rebuild tracking";
            scope.spawn(|| run.layer("site", site, |l| self.site(l)));
            run.layer("browser", browser, |l| self.browser(l));
            run.layer("native", "e2e: edgesite-native binary", |l| {
                self.native_layer(l)
            });
            let workerd = "e2e: four Workers under one bare workerd serve";
            run.layer("workerd", workerd, |l| self.workerd_layer(l));
            run.layer("wrangler", "e2e: Worker under wrangler dev", |l| {
                self.wrangler(l)
            });
            let example = "e2e: example Worker (API + site) under wrangler dev";
            run.layer("example", example, |l| self.example(l));
        });
        let views = "views: repeat views in headless Chromium (DevTools network log)";
        run.layer("views", views, |l| self.views(l));
    }

    // ---- builds --------------------------------------------------------------------------

    fn builds(&self) {
        let run = &self.run;
        let wants = |keys: &[&str]| keys.iter().any(|k| run.selection.layer(k));
        if wants(&[
            "host", "native", "workerd", "wrangler", "example", "site", "views",
        ]) {
            run.build("host", || self.host_build());
            if run.is_built("host") {
                run.build("server binaries", || self.server_binaries());
            }
        }
        if wants(&["workerd", "views"]) {
            run.build("worker (deploy bundle)", || {
                workerd::build(&run.root, None).map(drop)
            });
            run.build("worker (configured)", || self.fixture_build("configured"));
            run.build("worker (compact)", || self.fixture_build("compact"));
        }
        if wants(&["workerd", "wrangler", "views"]) {
            run.build("worker (stored)", || self.fixture_build("stored"));
        }
        if wants(&["example"]) {
            run.build("worker (example)", || self.example_build());
        }
    }

    fn fixture(&self, name: &str) -> PathBuf {
        self.run.root.join(format!("tests/fixtures/{name}.toml"))
    }

    fn fixture_build(&self, name: &str) -> Result<(), String> {
        workerd::build(&self.run.root, Some(&self.fixture(name))).map(drop)
    }

    /// Every test binary of the workspace (edgesite-bench has none: its benches are `make
    /// bench`'s), read from cargo's JSON messages.
    fn host_build(&self) -> Result<(), String> {
        let messages = self.run.logs.join("host-build.json");
        let out = fs::File::create(&messages).map_err(|e| e.to_string())?;
        let status = self
            .run
            .command("cargo")
            .args(TEST_WORKSPACE)
            .arg("--no-run")
            .arg("--message-format=json-render-diagnostics")
            .stdout(out)
            .status()
            .map_err(|e| format!("cargo: {e}"))?;
        if !status.success() {
            return Err(format!("cargo test --no-run failed ({status})"));
        }
        let text = fs::read_to_string(&messages).map_err(|e| e.to_string())?;
        let _ = self.binaries.set(test_binaries(&text));
        Ok(())
    }

    /// The binaries the layers run, copied: the site layer rebuilds target/debug/edgesite-native.
    fn server_binaries(&self) -> Result<(), String> {
        let bin = self.run.root.join("target/test-bin");
        fs::create_dir_all(&bin).map_err(|e| e.to_string())?;
        for file in ["edgesite-native", "examples/serve_site", "examples/delta"] {
            let from = self.run.root.join("target/debug").join(file);
            let to = bin.join(Path::new(file).file_name().unwrap_or_default());
            // Removed first: a running copy's file cannot be written ("text file busy").
            let _ = fs::remove_file(&to);
            fs::copy(&from, &to).map_err(|e| format!("{}: {e}", from.display()))?;
        }
        Ok(())
    }

    fn test_bin(&self, name: &str) -> PathBuf {
        self.run.root.join("target/test-bin").join(name)
    }

    /// The example's build shares the deploy bundle's host crates (Cargo.toml's
    /// build-dependencies): after that build it must not compile sitegen and its codecs again
    /// (minutes of a cold run).
    fn example_build(&self) -> Result<(), String> {
        let run = &self.run;
        let started = std::time::SystemTime::now();
        run_to(
            run.command(run.root.join("scripts/build-worker.sh"))
                .args([
                    "--package",
                    "edgesite-example-api-worker",
                    "--entry",
                    "examples/api-worker/entry.js",
                ])
                .arg("examples/api-worker/build"),
            Some(&run.logs.join("example-build.log")),
        )?;
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| run.root.join("target"), PathBuf::from);
        let deps = target.join("worker/deps");
        let again = fs::read_dir(&deps)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.starts_with("libedgesite_sitegen-")
                    && name.ends_with(".rlib")
                    && e.metadata()
                        .and_then(|m| m.modified())
                        .is_ok_and(|t| t > started)
            });
        if again && run.is_built("worker (deploy bundle)") {
            return Err("the example's build compiled sitegen again: its host crates' features differ \
                        from the deploy bundle's (cargo tree -e features -i syn --target wasm32-unknown-unknown)"
                .into());
        }
        Ok(())
    }

    // ---- running test binaries -----------------------------------------------------------

    /// Test binary `name` of the root package, as a command run from its folder, with the
    /// run's arguments after `args`.
    fn suite(&self, name: &str, args: &[&str]) -> Result<Command, String> {
        let root = &self.run.root;
        let binary = self
            .binaries
            .get()
            .into_iter()
            .flatten()
            .find(|b| b.name == name && b.dir == *root)
            .ok_or_else(|| format!("no test binary {name} in the host build"))?;
        Ok(self.binary_command(binary, args))
    }

    fn binary_command(&self, binary: &TestBinary, args: &[&str]) -> Command {
        let mut command = self.run.command(&binary.exe);
        command
            .current_dir(&binary.dir)
            .env("CARGO_MANIFEST_DIR", &binary.dir)
            .arg("-q")
            .args(args)
            .args(&self.run.selection.test_args);
        command
    }

    /// Runs the suites named against `server` as `runtime` (EDGESITE_BASE_URL), each a check of
    /// its name (`prefix` before it when given), with `env` set.
    fn suites_against(
        &self,
        l: &mut Layer<'_>,
        server: &Server,
        port: u16,
        runtime: &str,
        suites: &[&str],
        env: &[(&str, PathBuf)],
    ) -> Result<(), String> {
        for suite in suites {
            if !l.wants(suite) {
                continue;
            }
            let mut command = match self.suite(suite, &[]) {
                Ok(command) => command,
                Err(e) => {
                    l.fail(suite, &e);
                    continue;
                }
            };
            command
                .env("EDGESITE_BASE_URL", format!("http://127.0.0.1:{port}"))
                .env("EDGESITE_RUNTIME", runtime);
            for (key, value) in env {
                command.env(key, value);
            }
            l.check(suite, &mut command, &[server]);
        }
        Ok(())
    }

    // ---- shared servers ------------------------------------------------------------------

    pub(crate) fn native(&self) -> Result<Arc<Server>, String> {
        let mut native = lock(&self.shared.native);
        if let Some(server) = &*native {
            return Ok(server.clone());
        }
        let port = free_port();
        let server = self.run.step("start: edgesite-native", || {
            Server::start(
                "native",
                port,
                Duration::from_secs(30),
                &self.run.logs,
                self.run
                    .command(self.test_bin("edgesite-native"))
                    .args(["--listen", &format!("127.0.0.1:{port}")]),
            )
        })?;
        Ok(native.insert(Arc::new(server)).clone())
    }

    /// One workerd process: the deploy bundle, then the configured, compact and stored Workers.
    pub(crate) fn workerd(&self) -> Result<Arc<Workerd>, String> {
        let mut shared = lock(&self.shared.workerd);
        if let Some(server) = &*shared {
            return Ok(server.clone());
        }
        let root = &self.run.root;
        let mut workers = vec![(free_port(), None)];
        workers.extend(
            FIXTURES
                .iter()
                .map(|f| (free_port(), Some(self.fixture(f)))),
        );
        let ports: Vec<u16> = workers.iter().map(|(p, _)| *p).collect();
        let capnp = workerd::config(root, &workers)?;
        let server = self.run.step("start: workerd (4 Workers)", || {
            let mut server = Server::start(
                "workerd",
                ports[0],
                Duration::from_secs(60),
                &self.run.logs,
                self.run.command("workerd").arg("serve").arg(&capnp),
            )?;
            for port in &ports[1..] {
                server.wait_for(*port, Duration::from_secs(30))?;
            }
            Ok(server)
        })?;
        Ok(shared.insert(Arc::new((server, ports))).clone())
    }

    /// Starts a server of one layer (not shared), timed as `start: NAME`.
    pub(crate) fn start_server(
        &self,
        title: &str,
        name: &str,
        port: u16,
        wait: u64,
        command: &mut Command,
    ) -> Result<Server, String> {
        self.run.step(&format!("start: {title}"), || {
            Server::start(
                name,
                port,
                Duration::from_secs(wait),
                &self.run.logs,
                command,
            )
        })
    }

    // ---- layers --------------------------------------------------------------------------

    /// Every test binary of the workspace and the doctests, two at a time (the machine's two
    /// cores; each binary runs its tests on threads of its own too), the slowest of the last
    /// run first (so that none starts last and runs alone).
    fn host(&self, l: &mut Layer<'_>) -> Result<(), String> {
        self.run.needs(&["host"])?;
        let mut checks = Vec::new();
        for binary in self.binaries.get().into_iter().flatten() {
            let package = binary.dir.file_name().unwrap_or_default().to_string_lossy();
            let package = if binary.dir == self.run.root {
                "edgesite".into()
            } else {
                package
            };
            checks.push((
                format!("{package}/{}", binary.name),
                self.binary_command(binary, &[]),
            ));
        }
        let mut doctests = self.run.command("cargo");
        doctests.args(TEST_WORKSPACE).arg("--doc");
        checks.push(("doctests".to_string(), doctests));
        let last = crate::run::last_times(&self.run.logs.join("junit.xml"), "host");
        let seconds = |name: &String| last.get(name).copied().unwrap_or(0.0);
        checks.sort_by(|(a, _), (b, _)| seconds(b).total_cmp(&seconds(a)));
        l.checks(HOST_JOBS, checks);
        Ok(())
    }

    /// wasm-pack builds every test target for wasm32 (timed on its own line), then runs the
    /// Worker's fetch path in Chromium.
    fn browser(&self, l: &mut Layer<'_>) -> Result<(), String> {
        if !l.wants("worker_in_browser") {
            return Ok(());
        }
        self.run.step(
            "cargo build --tests --target wasm32-unknown-unknown",
            || {
                run_to(
                    self.run.command("cargo").args([
                        "build",
                        "-q",
                        "--tests",
                        "--target",
                        "wasm32-unknown-unknown",
                    ]),
                    Some(&self.run.logs.join("browser-build.log")),
                )
            },
        )?;
        l.check(
            "worker_in_browser",
            self.run.command("wasm-pack").args([
                "test",
                "--headless",
                "--chrome",
                "--",
                "--test",
                "worker_in_browser",
            ]),
            &[],
        );
        Ok(())
    }

    fn native_layer(&self, l: &mut Layer<'_>) -> Result<(), String> {
        self.run.needs(&["host", "server binaries"])?;
        if !l.wants_any(HTTP_SUITES) {
            return Ok(());
        }
        let server = self.native()?;
        self.suites_against(l, &server, server.port(), "native", &HTTP_SUITES, &[])
    }

    fn workerd_layer(&self, l: &mut Layer<'_>) -> Result<(), String> {
        let run = &self.run;
        run.needs(&[
            "host",
            "worker (deploy bundle)",
            "worker (configured)",
            "worker (compact)",
            "worker (stored)",
        ])?;
        let shared = self.workerd()?;
        let (server, ports) = (&shared.0, &shared.1);
        self.suites_against(l, server, ports[0], "workerd", &HTTP_SUITES, &[])?;
        self.suites_against(l, server, ports[1], "workerd", &["configured"], &[])?;
        self.suites_against(l, server, ports[2], "workerd", &["compact"], &[])?;
        self.suites_against(l, server, ports[3], "workerd", &["stored"], &[])?;
        let stored = workerd::work_dir(&run.root, Some(&self.fixture("stored"))).join("bundle");
        let env = [
            ("EDGESITE_STORE_DIR", stored.join("assets")),
            ("EDGESITE_R2_DIR", stored.join("r2")),
        ];
        self.suites_against(l, server, ports[3], "workerd", &["stored_failures"], &env)?;
        // A store that never answers, stops mid-way or answers slowly: the entry in Node
        // (tests/fixtures/store-timeouts.mjs), where the store's timing can be made.
        l.check(
            "store timeouts",
            run.command("node")
                .args([
                    "--disable-warning=MODULE_TYPELESS_PACKAGE_JSON",
                    "tests/fixtures/store-timeouts.mjs",
                ])
                .arg(&stored),
            &[],
        );
        // The entry's fresh instance after a trap answers (tests/fixtures/reinstantiate.mjs).
        let configured =
            workerd::work_dir(&run.root, Some(&self.fixture("configured"))).join("bundle");
        l.check(
            "reinstantiate",
            run.command("node")
                .args([
                    "--disable-warning=MODULE_TYPELESS_PACKAGE_JSON",
                    "tests/fixtures/reinstantiate.mjs",
                ])
                .arg(configured),
            &[],
        );
        Ok(())
    }

    fn wrangler(&self, l: &mut Layer<'_>) -> Result<(), String> {
        self.run.needs(&["host"])?;
        if l.wants_any(HTTP_SUITES.iter().copied().chain(["request log"])) {
            if let Err(e) = self.wrangler_demo(l) {
                l.fail("wrangler dev", &e);
            }
        }
        if l.wants_any(["stored", "stored_failures"]) {
            self.wrangler_stored(l)?;
        }
        Ok(())
    }

    /// The demo's Worker under wrangler dev: the HTTP suites and its request log.
    fn wrangler_demo(&self, l: &mut Layer<'_>) -> Result<(), String> {
        {
            let port = free_port();
            let server = self.start_server(
                "wrangler dev",
                "wrangler-dev",
                port,
                900,
                self.run.command("wrangler").args([
                    "dev",
                    "--ip",
                    "127.0.0.1",
                    "--port",
                    &port.to_string(),
                    "--var",
                    "EDGESITE_LOG:1",
                ]),
            )?;
            self.suites_against(l, &server, port, "wrangler-dev", &HTTP_SUITES, &[])?;
            // EDGESITE_LOG: the Worker's own request log line (method path status coding
            // bytes), for a GET of /about (wrangler writes its log a moment later).
            let log = server.log().to_path_buf();
            l.check_with("request log", || {
                let status = testkit::get_status(port, "/about")?;
                for _ in 0..50 {
                    let text = fs::read_to_string(&log).unwrap_or_default();
                    if text.lines().any(is_request_log_line) {
                        return Ok(());
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(format!(
                    "GET /about answered {status}, and no `edgesite: GET /about 200 CODING BYTES` line from the Worker in {}",
                    log.display()
                ))
            });
        }
        Ok(())
    }

    /// The Worker built with tests/fixtures/stored.toml under wrangler dev: its store in
    /// wrangler's local Static Assets and local R2 (a generated config: the built bundle, no
    /// build; the R2 objects put in a fresh local state first).
    fn wrangler_stored(&self, l: &mut Layer<'_>) -> Result<(), String> {
        let run = &self.run;
        run.needs(&["worker (stored)"])?;
        let fixture = self.fixture("stored");
        let toml = workerd::wrangler_toml(&run.root, &fixture)?;
        let bundle = workerd::work_dir(&run.root, Some(&fixture)).join("bundle");
        let state = toml.with_file_name("wrangler-state");
        let _ = fs::remove_dir_all(&state);
        run.step("r2: put the stored fixture's objects", || {
            run_to(
                run.command("node")
                    .args(["scripts/r2-put.mjs", "--bucket", "edgesite-test", "--from"])
                    .arg(bundle.join("r2"))
                    .arg("--local")
                    .arg(&state),
                Some(&run.logs.join("r2-put.log")),
            )
        })?;
        let port = free_port();
        let server = self.start_server(
            "wrangler dev (stored)",
            "wrangler-dev-stored",
            port,
            120,
            run.command("wrangler")
                .args(["dev", "-c"])
                .arg(&toml)
                .arg("--persist-to")
                .arg(&state)
                .args(["--ip", "127.0.0.1", "--port", &port.to_string()]),
        )?;
        self.suites_against(l, &server, port, "wrangler-dev", &["stored"], &[])?;
        let env = [("EDGESITE_STORE_DIR", bundle.join("assets"))];
        self.suites_against(l, &server, port, "wrangler-dev", &["stored_failures"], &env)
    }

    /// The example Worker (library mode) under wrangler dev, from its own folder.
    fn example(&self, l: &mut Layer<'_>) -> Result<(), String> {
        self.run.needs(&["host", "worker (example)"])?;
        if !l.wants("example_api") {
            return Ok(());
        }
        let port = free_port();
        let server = self.start_server(
            "wrangler dev (example)",
            "example",
            port,
            900,
            self.run
                .command("wrangler")
                .current_dir(self.run.root.join("examples/api-worker"))
                .args(["dev", "--ip", "127.0.0.1", "--port", &port.to_string()]),
        )?;
        let mut command = self.suite("example_api", &["--ignored"])?;
        command
            .env("EDGESITE_BASE_URL", server.url())
            .env("EDGESITE_RUNTIME", "wrangler-dev");
        l.check("example_api", &mut command, &[&server]);
        Ok(())
    }

    /// tests/site_layer.rs: real cargo builds of the native twin in the one target folder, one
    /// at a time, each served by the binary it built; then the demo built again, so the next
    /// `make test` finds its build as it left it.
    fn site(&self, l: &mut Layer<'_>) -> Result<(), String> {
        self.run.needs(&["host", "server binaries"])?;
        if !l.wants("site_layer") {
            return Ok(());
        }
        l.check(
            "site_layer",
            &mut self.suite(
                "site_layer",
                &["--ignored", "--test-threads=1", "--nocapture"],
            )?,
            &[],
        );
        let mut build = self.run.command("cargo");
        let build = build.args(DEMO_BUILD);
        self.run
            .step("cargo build (the demo again)", || run_to(build, None))
    }
}

/// A line of the Worker's request log for `GET /about`: `edgesite: GET /about 200 CODING BYTES`
/// (CODING in letters, BYTES a number).
fn is_request_log_line(line: &str) -> bool {
    let Some((_, rest)) = line.split_once("edgesite: GET /about 200 ") else {
        return false;
    };
    let mut words = rest.split_whitespace();
    let coding = words.next().unwrap_or("");
    let bytes = words.next().unwrap_or("");
    !coding.is_empty()
        && coding.bytes().all(|b| b.is_ascii_lowercase())
        && !bytes.is_empty()
        && bytes.bytes().all(|b| b.is_ascii_digit())
}

/// The test executables cargo's messages name (`compiler-artifact` with an executable, of a
/// test profile); lines that are not JSON (cargo prints none, but a wrapper may) are skipped.
pub(crate) fn test_binaries(messages: &str) -> Vec<TestBinary> {
    let mut out = Vec::new();
    for line in messages.lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let is_test = message["profile"]["test"].as_bool() == Some(true);
        let (Some(name), Some(manifest), Some(exe)) = (
            message["target"]["name"].as_str(),
            message["manifest_path"].as_str(),
            message["executable"].as_str(),
        ) else {
            continue;
        };
        if message["reason"] != "compiler-artifact" || !is_test {
            continue;
        }
        let dir = Path::new(manifest)
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        out.push(TestBinary {
            name: name.to_string(),
            dir,
            exe: exe.into(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_executables_are_listed_and_the_rest_left_out() {
        let messages = [
            r#"{"reason":"compiler-artifact","target":{"name":"http"},"profile":{"test":true},"manifest_path":"/w/Cargo.toml","executable":"/w/target/debug/deps/http-1"}"#,
            // A library built for the tests: no executable.
            r#"{"reason":"compiler-artifact","target":{"name":"core"},"profile":{"test":false},"manifest_path":"/w/crates/core/Cargo.toml","executable":null}"#,
            // A binary of a non-test profile.
            r#"{"reason":"compiler-artifact","target":{"name":"serve"},"profile":{"test":false},"manifest_path":"/w/Cargo.toml","executable":"/w/target/debug/serve"}"#,
            r#"{"reason":"build-finished","success":true}"#,
            "warning: not JSON",
            r#"{"reason":"compiler-artifact","target":{"name":"core"},"profile":{"test":true},"manifest_path":"/w/crates/core/Cargo.toml","executable":"/w/target/debug/deps/core-2"}"#,
        ]
        .join("\n");
        let found: Vec<(String, PathBuf, PathBuf)> = test_binaries(&messages)
            .into_iter()
            .map(|b| (b.name, b.dir, b.exe))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "http".into(),
                    "/w".into(),
                    "/w/target/debug/deps/http-1".into()
                ),
                (
                    "core".into(),
                    "/w/crates/core".into(),
                    "/w/target/debug/deps/core-2".into()
                ),
            ]
        );
    }

    #[test]
    fn the_request_log_line_is_read_as_the_worker_writes_it() {
        assert!(is_request_log_line(
            "[wrangler:info] edgesite: GET /about 200 br 1234"
        ));
        assert!(!is_request_log_line("edgesite: GET /about 200 br"));
        assert!(!is_request_log_line("edgesite: GET /about 304 br 0"));
        assert!(!is_request_log_line("edgesite: GET /about 200 BR 12x"));
    }
}
