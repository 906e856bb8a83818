//! The harness's bookkeeping: timed steps, named checks grouped in layers, the summary.
//!
//! A *step* is a build or a server start: timed, printed as `[time] NAME: N.N s` when it ends,
//! listed again in the closing table. A *check* is one named test of a layer (`native/http`,
//! `views/same_view demo`): a command whose output goes to `target/test-logs/checks/`, printed
//! as `ok`/`FAILED` with its time when it ends; a failing check prints its output's end and the
//! end of the log of each server it ran against. A *layer* passes when all its checks pass.
//! `cargo xtask test --layer L` runs one layer, a FILTER only the checks whose `layer/name`
//! holds it, and the arguments after `--` go to the test binaries (a test's name, `--exact`).

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Instant;

use testkit::Server;

/// What `cargo xtask test` was asked to run.
#[derive(Debug, Default)]
pub(crate) struct Selection {
    /// Layers to run (`--layer`, or the `LAYERS` variable); empty: all.
    pub(crate) layers: Vec<String>,
    /// A check runs only if its `layer/name` contains this.
    pub(crate) filter: Option<String>,
    /// Given to every test binary after its own arguments.
    pub(crate) test_args: Vec<String>,
}

/// The layers, in the order they run and are summed up.
pub(crate) const LAYERS: [&str; 8] = [
    "host", "browser", "native", "workerd", "wrangler", "example", "site", "views",
];

impl Selection {
    /// Whether layer `key` runs: chosen by `--layer`, and, with a filter that starts with a
    /// layer's name and a slash (`native/http`), that layer's.
    pub(crate) fn layer(&self, key: &str) -> bool {
        let chosen = self.layers.is_empty() || self.layers.iter().any(|l| l == key);
        let named = match self.filter.as_deref().and_then(|f| f.split_once('/')) {
            Some((layer, _)) if LAYERS.contains(&layer) => key == layer,
            _ => true,
        };
        chosen && named
    }

    /// Whether check `layer/name` runs.
    pub(crate) fn check(&self, layer: &str, name: &str) -> bool {
        self.layer(layer)
            && self
                .filter
                .as_deref()
                .is_none_or(|f| format!("{layer}/{name}").contains(f))
    }
}

/// One run of the harness: what was asked, what was built, the steps' times, the layers'
/// results. Shared by the threads the layers run on.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) root: PathBuf,
    pub(crate) logs: PathBuf,
    pub(crate) selection: Selection,
    built: Mutex<BTreeSet<&'static str>>,
    steps: Mutex<Vec<String>>,
    /// Each layer run: its key, whether it passed, its line, how many checks it ran.
    summary: Mutex<Vec<(&'static str, bool, String, usize)>>,
    /// Every check run: `layer/name`, its seconds, and its failure (the end of its output).
    checks: Mutex<Vec<(String, f64, Option<String>)>>,
    /// Held while a block of output is printed, so that two lanes' blocks never interleave.
    print: Mutex<()>,
}

/// Seconds since `start`, to a tenth.
pub(crate) fn since(start: Instant) -> String {
    format!("{:.1}", start.elapsed().as_secs_f64())
}

impl Run {
    pub(crate) fn new(root: PathBuf, selection: Selection) -> Run {
        let logs = root.join("target/test-logs");
        Run {
            root,
            logs,
            selection,
            built: Mutex::default(),
            steps: Mutex::default(),
            summary: Mutex::default(),
            checks: Mutex::default(),
            print: Mutex::new(()),
        }
    }

    /// Prints `text` as one block.
    pub(crate) fn say(&self, text: &str) {
        let _held = self.print.lock().unwrap_or_else(|e| e.into_inner());
        println!("{}", text.trim_end());
    }

    /// Runs a timed step; prints and records its time (its caller reports its error).
    pub(crate) fn step<T>(
        &self,
        name: &str,
        f: impl FnOnce() -> Result<T, String>,
    ) -> Result<T, String> {
        let start = Instant::now();
        let result = f();
        let failed = if result.is_ok() { "" } else { " (failed)" };
        let took = since(start);
        self.say(&format!("[time] {name}: {took} s{failed}"));
        lock(&self.steps).push(format!("{took:>8} s  {name}{failed}"));
        result
    }

    /// A build step: the layers that need it run only if it succeeded (its error printed).
    pub(crate) fn build(&self, name: &'static str, f: impl FnOnce() -> Result<(), String>) {
        match self.step(&format!("build: {name}"), f) {
            Ok(()) => drop(lock(&self.built).insert(name)),
            Err(e) => self.say(&format!("build: {name}: {e}")),
        }
    }

    /// An error naming the first of `builds` that did not succeed.
    pub(crate) fn needs(&self, builds: &[&str]) -> Result<(), String> {
        let built = lock(&self.built);
        match builds.iter().find(|b| !built.contains(**b)) {
            Some(missing) => Err(format!("not run: {missing} was not built")),
            None => Ok(()),
        }
    }

    pub(crate) fn is_built(&self, build: &str) -> bool {
        lock(&self.built).contains(build)
    }

    /// Runs layer `key` (when selected): `f` runs its checks; it passes when `f` returns Ok
    /// and no check failed.
    pub(crate) fn layer(
        &self,
        key: &'static str,
        title: &str,
        f: impl FnOnce(&mut Layer<'_>) -> Result<(), String>,
    ) {
        if !self.selection.layer(key) {
            return;
        }
        self.say(&format!("\n=== {title}"));
        let start = Instant::now();
        let mut layer = Layer {
            run: self,
            key,
            failed: 0,
            ran: 0,
        };
        let result = f(&mut layer);
        if let Err(e) = &result {
            self.say(&format!("layer {key}: {e}"));
            let failure = Some(e.clone());
            lock(&self.checks).push((format!("{key}/(the layer)"), 0.0, failure));
        }
        let passed = result.is_ok() && layer.failed == 0;
        let word = if passed { "PASS" } else { "FAIL" };
        let line = format!(
            "{word}  {title}  ({} s, {} checks)",
            since(start),
            layer.ran
        );
        lock(&self.summary).push((key, passed, line, layer.ran));
    }

    /// The closing table of steps and the summary (in the layers' order, whichever lane ended
    /// first); whether every layer passed, and a filter ran at least one check.
    pub(crate) fn finish(&self) -> bool {
        let steps = lock(&self.steps).join("\n");
        self.say(&format!("\n=== make test: the time of each step\n{steps}"));
        let mut summary = lock(&self.summary);
        summary.sort_by_key(|(key, ..)| LAYERS.iter().position(|l| l == key));
        let passed = summary.iter().filter(|(_, ok, ..)| *ok).count();
        let lines: Vec<&str> = summary
            .iter()
            .map(|(_, _, line, _)| line.as_str())
            .collect();
        let failed = summary.len() - passed;
        self.say(&format!(
            "\n=== make test summary\n{}\nlayers: {passed} passed, {failed} failed",
            lines.join("\n")
        ));
        let junit = self.logs.join("junit.xml");
        match fs::write(&junit, junit_xml(&lock(&self.checks))) {
            Ok(()) => self.say(&format!("(each check in JUnit's XML: {})", junit.display())),
            Err(e) => self.say(&format!("{}: {e}", junit.display())),
        }
        let checks: usize = summary.iter().map(|(.., ran)| ran).sum();
        if let (Some(filter), 0) = (&self.selection.filter, checks) {
            self.say(&format!(
                "no check's name (layer/name, as printed) holds {filter:?}"
            ));
            return false;
        }
        failed == 0
    }

    /// A command of the project, run from the root (in the environment
    /// [`clean_process_env`] left).
    pub(crate) fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.current_dir(&self.root);
        command
    }
}

/// A lane of a layer's checks ([`Layer::lanes`]).
pub(crate) type Lane<'a> = Box<dyn FnOnce(&mut Layer<'_>) + Send + 'a>;

/// A layer being run: its checks.
#[derive(Debug)]
pub(crate) struct Layer<'r> {
    pub(crate) run: &'r Run,
    key: &'static str,
    failed: usize,
    ran: usize,
}

impl Layer<'_> {
    /// Whether check `name` of this layer is selected.
    pub(crate) fn wants(&self, name: &str) -> bool {
        self.run.selection.check(self.key, name)
    }

    /// Whether any of the checks named is selected.
    pub(crate) fn wants_any<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> bool {
        names.into_iter().any(|n| self.wants(n))
    }

    /// Runs check `name` (when selected): `command`, its output in `target/test-logs/checks/`;
    /// on failure, its output's end and the end of each of `servers`' logs.
    pub(crate) fn check(&mut self, name: &str, command: &mut Command, servers: &[&Server]) {
        if !self.wants(name) {
            return;
        }
        self.ran += 1;
        let full = format!("{}/{name}", self.key);
        if !run_check(self.run, &full, command, servers) {
            self.failed += 1;
        }
    }

    /// Runs the selected ones of `checks` (name, command), `jobs` at a time, each as
    /// [`Layer::check`] runs one (without servers).
    pub(crate) fn checks(&mut self, jobs: usize, checks: Vec<(String, Command)>) {
        let wanted: Vec<(String, Command)> = checks
            .into_iter()
            .filter(|(name, _)| self.wants(name))
            .collect();
        self.ran += wanted.len();
        let queue = Mutex::new(wanted.into_iter());
        let failed = std::sync::atomic::AtomicUsize::new(0);
        let (run, key) = (self.run, self.key);
        std::thread::scope(|scope| {
            for _ in 0..jobs.max(1) {
                scope.spawn(|| loop {
                    let Some((name, mut command)) = lock(&queue).next() else {
                        break;
                    };
                    if !run_check(run, &format!("{key}/{name}"), &mut command, &[]) {
                        failed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                });
            }
        });
        self.failed += failed.into_inner();
    }

    /// Runs `lanes` side by side, each a lane of this layer's checks in its own order (the
    /// views layer's: checks that mostly wait beside one that draws).
    pub(crate) fn lanes(&mut self, lanes: Vec<Lane<'_>>) {
        let (run, key) = (self.run, self.key);
        let counts: Vec<Option<(usize, usize)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = lanes
                .into_iter()
                .map(|lane| {
                    scope.spawn(move || {
                        let mut layer = Layer {
                            run,
                            key,
                            failed: 0,
                            ran: 0,
                        };
                        lane(&mut layer);
                        (layer.failed, layer.ran)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().ok()).collect()
        });
        for (lane, counts) in counts.into_iter().enumerate() {
            match counts {
                Some((failed, ran)) => {
                    self.failed += failed;
                    self.ran += ran;
                }
                // Its checks' results are lost with it: a failure of the layer's own.
                None => self.fail(&format!("lane {}", lane + 1), "panicked"),
            }
        }
    }

    /// A failure of the layer's own (a server that did not start, a fixture not made): counted
    /// as a failed check, and the layer goes on with the checks that do not need it.
    pub(crate) fn fail(&mut self, what: &str, error: &str) {
        self.failed += 1;
        let full = format!("{}/{what}", self.key);
        lock(&self.run.checks).push((full, 0.0, Some(error.to_string())));
        self.run
            .say(&format!("FAILED  {}: {what}: {error}", self.key));
    }

    /// A check that is not a command: `f`'s error fails it, naming it.
    pub(crate) fn check_with(&mut self, name: &str, f: impl FnOnce() -> Result<(), String>) {
        if !self.wants(name) {
            return;
        }
        self.ran += 1;
        let start = Instant::now();
        let full = format!("{}/{name}", self.key);
        let result = f();
        let failure = result.as_ref().err().cloned();
        lock(&self.run.checks).push((full.clone(), start.elapsed().as_secs_f64(), failure));
        match result {
            Ok(()) => self
                .run
                .say(&format!("ok      {full}  ({} s)", since(start))),
            Err(e) => {
                self.failed += 1;
                self.run
                    .say(&format!("FAILED  {full}  ({} s): {e}", since(start)));
            }
        }
    }
}

/// Runs check `full` (`layer/name`): `command`, its output in `target/test-logs/checks/`,
/// one line when it passes, its output's end and the end of each of `servers`' logs when it
/// fails. Whether it passed.
fn run_check(run: &Run, full: &str, command: &mut Command, servers: &[&Server]) -> bool {
    // Interrupted: a check started now would outlive the harness (it is not in the group the
    // terminal's signal reached).
    if testkit::stopping() {
        run.say(&format!(
            "FAILED  {full}: not run, the harness was interrupted"
        ));
        return false;
    }
    let dir = run.logs.join("checks");
    let log = dir.join(format!("{}.log", full.replace(['/', ' '], "-")));
    let start = Instant::now();
    let outcome = fs::create_dir_all(&dir)
        .and_then(|()| fs::File::create(&log))
        .and_then(|out| {
            let err = out.try_clone()?;
            command
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(err)
                .status()
        });
    let output = fs::read_to_string(&log).unwrap_or_default();
    let took = since(start);
    let passed = matches!(&outcome, Ok(s) if s.success());
    let mut text = match &outcome {
        Ok(_) if passed => format!("ok      {full}  ({took} s)  {}", last_words(&output)),
        Ok(status) => {
            let end = testkit::tail(&output, 60);
            format!(
                "FAILED  {full}  ({took} s, {status}); {}:\n{end}",
                log.display()
            )
        }
        Err(e) => format!("FAILED  {full}: cannot run {command:?}: {e}"),
    };
    let failure = (!passed).then(|| testkit::tail(&output, 60));
    lock(&run.checks).push((full.to_string(), start.elapsed().as_secs_f64(), failure));
    if !passed {
        for server in servers {
            text.push_str(&format!("\n{}", server.log_tail(30)));
        }
    }
    run.say(&text);
    passed
}

/// The checks as JUnit's XML (what CI systems show per test): a `testsuite` per layer, in the
/// layers' order, a `testcase` per check with its time, and its failure's text.
fn junit_xml(checks: &[(String, f64, Option<String>)]) -> String {
    let escape = |text: &str| {
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace("\"", "&quot;")
    };
    let failures = checks.iter().filter(|(.., f)| f.is_some()).count();
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"make test\" tests=\"{}\" failures=\"{failures}\">\n",
        checks.len()
    );
    for layer in LAYERS {
        let prefix = format!("{layer}/");
        let mine: Vec<_> = checks
            .iter()
            .filter(|(full, ..)| full.starts_with(&prefix))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let failed = mine.iter().filter(|(.., f)| f.is_some()).count();
        let time: f64 = mine.iter().map(|(_, t, _)| t).sum();
        xml.push_str(&format!(
            "  <testsuite name=\"{layer}\" tests=\"{}\" failures=\"{failed}\" time=\"{time:.1}\">\n",
            mine.len()
        ));
        for (full, time, failure) in mine {
            let name = escape(&full[prefix.len()..]);
            let case =
                format!("    <testcase classname=\"{layer}\" name=\"{name}\" time=\"{time:.1}\"");
            match failure {
                None => xml.push_str(&format!("{case}/>\n")),
                Some(text) => xml.push_str(&format!(
                    "{case}>\n      <failure message=\"failed\">{}</failure>\n    </testcase>\n",
                    escape(text)
                )),
            }
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

/// Each check of `layer` in the JUnit XML of the last run ([`junit_xml`] writes one
/// `<testcase>` per line), and its seconds; empty when there is none.
pub(crate) fn last_times(junit: &Path, layer: &str) -> HashMap<String, f64> {
    let text = fs::read_to_string(junit).unwrap_or_default();
    let start = format!("<testcase classname=\"{layer}\" name=\"");
    text.lines()
        .filter_map(|line| {
            let (name, rest) = line.trim().strip_prefix(&start)?.split_once('"')?;
            let time = rest.split_once("time=\"")?.1.split_once('"')?.0;
            Some((name.to_string(), time.parse().ok()?))
        })
        .collect()
}

/// What a passing check's output ends with: a test binary's counts (summed over its result
/// lines), else its last line.
fn last_words(output: &str) -> String {
    let mut counts = [0u64; 3];
    let mut any = false;
    for line in output.lines().filter(|l| l.starts_with("test result:")) {
        any = true;
        for (i, word) in ["passed;", "failed;", "ignored;"].iter().enumerate() {
            let before = line.split(word).next().unwrap_or("");
            counts[i] += before
                .split_whitespace()
                .last()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
        }
    }
    if any {
        return format!(
            "{} passed; {} failed; {} ignored",
            counts[0], counts[1], counts[2]
        );
    }
    output
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Removes from this process's environment (so from every command it runs) what `cargo run`
/// of this harness added to it, and the variables that would point a build at another site (the
/// suites check the demo): `EDGESITE_HISTORY` above all, which cargo sets from
/// `.cargo/config.toml` for what it runs. A cargo build run from the project gets it again from
/// there; a program that records deploys (`serve_site --record-deploy`, under a Chromium check)
/// would otherwise record them in the suites' fixture history. Called first, before any thread
/// starts.
pub(crate) fn clean_process_env() {
    const SET_BY_CARGO_RUN: [&str; 5] = [
        "CARGO_PKG_",
        "CARGO_CRATE_",
        "CARGO_BIN_",
        "CARGO_MANIFEST_",
        "CARGO_PRIMARY_",
    ];
    const OTHER_SITE: [&str; 4] = [
        "EDGESITE_HISTORY",
        "EDGESITE_SITE",
        "EDGESITE_CONFIG",
        "EDGESITE_RECORD_DEPLOY",
    ];
    for (key, _) in std::env::vars_os() {
        let name = key.to_string_lossy();
        if name == "CARGO"
            || SET_BY_CARGO_RUN.iter().any(|p| name.starts_with(p))
            || OTHER_SITE.contains(&&*name)
        {
            std::env::remove_var(&key);
        }
    }
}

/// A mutex's guard, also after a panic elsewhere (the data are lists of lines).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `command` to completion; its output to `log` (or inherited when `None`). An error names
/// the command, its status and the log's end.
pub(crate) fn run_to(command: &mut Command, log: Option<&Path>) -> Result<(), String> {
    if testkit::stopping() {
        return Err("not run: the harness was interrupted".into());
    }
    let status = match log {
        Some(path) => {
            let out = fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let err = out.try_clone().map_err(|e| e.to_string())?;
            command.stdout(out).stderr(err).status()
        }
        None => command.status(),
    }
    .map_err(|e| format!("cannot run {command:?}: {e}"))?;
    if status.success() {
        return Ok(());
    }
    let end = log
        .map(|p| {
            format!(
                "; {}:\n{}",
                p.display(),
                testkit::tail(&fs::read_to_string(p).unwrap_or_default(), 40)
            )
        })
        .unwrap_or_default();
    Err(format!(
        "{:?} {:?} failed ({status}){end}",
        command.get_program(),
        command.get_args().collect::<Vec<_>>()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_selects_checks_and_the_layer_it_names() {
        let all = Selection::default();
        assert!(all.check("views", "same_view demo"));
        let one = Selection {
            filter: Some("native/http".into()),
            ..Selection::default()
        };
        let host = Selection {
            filter: Some("core/edgesite_core".into()),
            ..Selection::default()
        };
        assert!(host.layer("host") && host.check("host", "core/edgesite_core"));
        assert!(!host.check("native", "http"));
        assert!(one.layer("native") && !one.layer("workerd"));
        assert!(one.check("native", "http") && !one.check("native", "ranges"));
        let word = Selection {
            filter: Some("stored".into()),
            ..Selection::default()
        };
        assert!(word.layer("workerd") && word.check("workerd", "stored_failures"));
        assert!(!word.check("workerd", "http"));
        let layers = Selection {
            layers: vec!["site".into()],
            ..Selection::default()
        };
        assert!(layers.layer("site") && !layers.layer("host"));
    }

    #[test]
    fn the_checks_are_written_as_junit_xml_by_layer() {
        let checks = [
            ("views/same_view demo".to_string(), 15.84, None),
            ("host/core/edgesite_core".to_string(), 0.3, None),
            (
                "host/edgesite/http".to_string(),
                0.1,
                Some("assertion `left == right` <503>".to_string()),
            ),
        ];
        let xml = junit_xml(&checks);
        assert!(
            xml.contains("<testsuites name=\"make test\" tests=\"3\" failures=\"1\">"),
            "{xml}"
        );
        let host = xml
            .find("<testsuite name=\"host\" tests=\"2\" failures=\"1\" time=\"0.4\">")
            .unwrap();
        let views = xml
            .find("<testsuite name=\"views\" tests=\"1\" failures=\"0\" time=\"15.8\">")
            .unwrap();
        assert!(host < views, "the layers' order: {xml}");
        assert!(
            xml.contains("<testcase classname=\"host\" name=\"core/edgesite_core\" time=\"0.3\"/>")
        );
        assert!(xml.contains(
            "<failure message=\"failed\">assertion `left == right` &lt;503&gt;</failure>"
        ));
        assert!(xml.ends_with("</testsuites>\n"));
    }

    #[test]
    fn the_last_runs_times_are_read_back_from_its_junit_xml() {
        let dir = std::env::temp_dir().join(format!("xtask-junit-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let junit = dir.join("junit.xml");
        let checks = [
            ("host/sitegen/images".to_string(), 16.6, None),
            ("host/doctests".to_string(), 4.0, Some("x < y".to_string())),
            ("views/report".to_string(), 1.5, None),
        ];
        fs::write(&junit, junit_xml(&checks)).unwrap();
        let host = last_times(&junit, "host");
        assert_eq!(host.len(), 2);
        assert_eq!(host["sitegen/images"], 16.6);
        assert_eq!(host["doctests"], 4.0);
        assert_eq!(last_times(&junit, "views")["report"], 1.5);
        assert!(last_times(&dir.join("none.xml"), "host").is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_check_ends_with_its_counts_or_its_last_line() {
        let out = "running 3 tests\ntest result: ok. 3 passed; 0 failed; 1 ignored; 0 measured\n\
                   test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured\n";
        assert_eq!(last_words(out), "5 passed; 0 failed; 1 ignored");
        assert_eq!(
            last_words("a\nall 4 views the same\n\n"),
            "all 4 views the same"
        );
    }
}
