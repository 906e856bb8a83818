//! [`run`]: everything a `build.rs` does to embed a site, for edgesite's own Worker and for any
//! crate that embeds a site as a library (see `examples/api-worker`):
//!
//! ```no_run
//! // build.rs
//! fn main() -> std::process::ExitCode {
//!     edgesite_sitegen::build_script::run()
//! }
//! ```
//! and in the crate, `edgesite_core::include_site!();` defines `SITE`. The site's bytes are in
//! the module ([`Bodies::Embedded`]); a Worker with its own JS entry that imports them as data
//! modules calls [`run_with`]`(Bodies::External)` instead (edgesite's own Worker does): for
//! wasm32 builds the bytes then go to blobs in `$OUT_DIR/worker/` (listed in `blobs.txt`, found
//! through cargo's `build-script-executed` message), and `$OUT_DIR/blobs.rs` lists them as
//! `include_bytes!` for tests that must hand them over themselves.
//!
//! The only part of sitegen that reads the environment: `EDGESITE_CONFIG` (default
//! `edgesite.toml` in the crate's folder; a missing file means the defaults), `EDGESITE_SITE`
//! (overrides the config's `site.dir`, default `public/`), `EDGESITE_HISTORY` (overrides the
//! config's `[history] dir`; these three count as unset when empty), `SOURCE_DATE_EPOCH` and
//! `EDGESITE_RECORD_DEPLOY` (`1`: stage this build's deploy in `target/edgesite/staged-deploy`
//! for the history, which `make deploy` records once the upload succeeded) and
//! `EDGESITE_PROGRESS` (when a long stage shows its progress: `auto`, the default, once it has
//! run two seconds; `always`; `never`; as cargo's `term.progress.when`) and
//! `EDGESITE_ENCODINGS` (`quick`, what `make dev` sets: an encoding the cache does not hold at
//! the configured settings is made at quick ones; [`effort_from_env`]). A bad
//! configuration or site fails the build with a message naming the file (and line). At every
//! build it prints the build report and writes it, with the integrity manifest, to
//! `target/edgesite/`; `cargo:rustc-env=EDGESITE_SITE_DIR` names the folder it embedded, and
//! `EDGESITE_SERVED_DIR` a folder of its HTML and CSS files as served (after the link pass).

use crate::compile;
use crate::config::{Config, StorageTier};
use crate::emit::codegen::Bodies;
use crate::error::Error;
use crate::model::{Effort, Manifest, Options, PageDates};
use crate::modified::last_modified;

use crate::error::ShowPath as _;
use std::env;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

/// Compiles the site into `$OUT_DIR/site.rs` with its bytes embedded and prints the `cargo:`
/// lines; call it from `build.rs` and return its exit code.
pub fn run() -> ExitCode {
    run_with(Bodies::Embedded)
}

/// [`run`], with the bytes kept as `on_wasm32` says when building for wasm32 (a Worker);
/// always embedded on other targets (the native twin, tests on the host), as Rust or, when
/// `on_wasm32` is [`Bodies::Tables`], as tables with the blobs in the binary.
pub fn run_with(on_wasm32: Bodies) -> ExitCode {
    let bodies = match (env::var("CARGO_CFG_TARGET_ARCH").as_deref(), on_wasm32) {
        (Ok("wasm32"), _) => on_wasm32,
        (_, Bodies::Tables { .. }) => Bodies::Tables { in_binary: true },
        _ => Bodies::Embedded,
    };
    let (Some(root), Some(out_dir)) = (env::var_os("CARGO_MANIFEST_DIR"), env::var_os("OUT_DIR"))
    else {
        eprintln!(
            "error: edgesite: run from a build script (CARGO_MANIFEST_DIR and OUT_DIR unset)"
        );
        return ExitCode::FAILURE;
    };
    let (root, out_dir) = (PathBuf::from(root), PathBuf::from(out_dir));
    for variable in ["EDGESITE_CONFIG", "EDGESITE_SITE", "SOURCE_DATE_EPOCH"] {
        println!("cargo:rerun-if-env-changed={variable}");
    }
    // Absolute, or relative to the crate's folder (join keeps an absolute path as it is).
    let config_path = root.join(set("EDGESITE_CONFIG").unwrap_or_else(|| "edgesite.toml".into()));
    println!("cargo:rerun-if-changed={}", config_path.display());
    match build(&root, &config_path, &out_dir, bodies) {
        Ok(site_dir) => {
            println!("cargo:rustc-env=EDGESITE_SITE_DIR={}", site_dir.display());
            println!(
                "cargo:rustc-env=EDGESITE_SERVED_DIR={}",
                out_dir.join("served").display()
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: edgesite: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Compiles the site, writes the tables and the report; returns the site folder.
fn build(
    root: &Path,
    config_path: &Path,
    out_dir: &Path,
    bodies: Bodies,
) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let progress = env::var_os("EDGESITE_PROGRESS");
    crate::progress::set_when(crate::progress::When::from_env(progress.as_deref())?);
    let source_date_epoch = env::var("SOURCE_DATE_EPOCH").ok();
    println!("cargo:rerun-if-env-changed=EDGESITE_ENCODINGS");
    let effort = effort_from_env(env::var_os("EDGESITE_ENCODINGS").as_deref())?;
    let site_override = set("EDGESITE_SITE").map(PathBuf::from);
    println!("cargo:rerun-if-env-changed=EDGESITE_HISTORY");
    let history_override = history_from_env();
    let build = Build {
        root,
        config_path,
        config_named: set("EDGESITE_CONFIG").is_some(),
        site: site_override.as_deref(),
        history: history_override.as_deref(),
        source_date_epoch: source_date_epoch.as_deref(),
        page_dates: PageDates::for_epoch(source_date_epoch.as_deref()),
        // Encodings are cached across builds and profiles, keyed by content and settings.
        cache_dir: Some(edgesite_dir(out_dir).join("cache")),
        effort,
    };
    let (site_dir, config_dir) = build.site_and_config_dir()?;
    // Track the folder itself even if compiling fails, so fixing it triggers a rebuild.
    println!("cargo:rerun-if-changed={}", site_dir.display());
    let (mut manifest, config) = build.compile_for(bodies)?;
    // A deploy recorded (or the folder replaced) changes the deltas. Only an existing file is
    // tracked: cargo reruns a build script at every build while a path it tracks is missing
    // (the first recorded deploy is EDGESITE_RECORD_DEPLOY's build, which is tracked).
    let history_dir = build.history_dir(&config, &config_dir);
    let deploys = history_dir.join("deploys.json");
    if deploys.is_file() {
        println!("cargo:rerun-if-changed={}", deploys.display());
    }
    // Every folder (its mtime changes when an entry is added or removed) and every file.
    for path in &manifest.tracked {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    manifest
        .write_rust_with(out_dir, bodies)
        .and_then(|_| manifest.write_served_pages(&out_dir.join("served")))
        .map_err(|e| match e.kind() {
            // The bundle with its tables as encoded is over the budget (`[budget]`).
            std::io::ErrorKind::FileTooLarge => e.to_string(),
            _ => format!("cannot write {}: {e}", out_dir.display()),
        })?;
    report(&manifest, out_dir);
    history(&manifest, &config, &history_dir, out_dir)?;
    Ok(site_dir)
}

/// What a build compiles, named without reading the environment: [`run`] fills it in from
/// `EDGESITE_CONFIG`, `EDGESITE_SITE`, `SOURCE_DATE_EPOCH` and the target directory; a tool or
/// test that serves a folder as a build would ([`Manifest::leak_site`]) fills it in itself.
#[derive(Debug, Clone)]
pub struct Build<'a> {
    /// The crate's folder: relative paths (`site`, the config's `site.dir`) start here.
    pub root: &'a Path,
    /// The configuration file.
    pub config_path: &'a Path,
    /// Whether the configuration was named (`EDGESITE_CONFIG`): then it must exist; otherwise
    /// a missing file means the defaults.
    pub config_named: bool,
    /// The site folder, overriding the config's `site.dir` (`EDGESITE_SITE`).
    pub site: Option<&'a Path>,
    /// The deploy history's folder, overriding the config's `[history] dir`
    /// (`EDGESITE_HISTORY`; [`history_from_env`]), relative to `root`.
    pub history: Option<&'a Path>,
    /// `SOURCE_DATE_EPOCH`, for Last-Modified.
    pub source_date_epoch: Option<&'a str>,
    /// The dates the pages' Markdown twins name: [`PageDates::for_epoch`] of what the build
    /// was given (each page's own unless `SOURCE_DATE_EPOCH` is set).
    pub page_dates: PageDates,
    /// Where encodings are cached between builds.
    pub cache_dir: Option<PathBuf>,
    /// How hard the encoders try for what that cache does not hold (`EDGESITE_ENCODINGS`:
    /// [`effort_from_env`]).
    pub effort: Effort,
}

impl Build<'_> {
    /// The configuration (the defaults when its file is missing and was not named).
    ///
    /// # Errors
    /// A configuration that cannot be read or is not valid, naming the file and line.
    pub fn config(&self) -> Result<Config, Error> {
        if self.config_path.is_file() || self.config_named {
            Config::load(self.config_path)
        } else {
            Ok(Config::default())
        }
    }

    /// The site folder and the configuration's folder (where its relative paths start).
    ///
    /// # Errors
    /// As [`Build::config`].
    pub fn site_and_config_dir(&self) -> Result<(PathBuf, PathBuf), Error> {
        let config = self.config()?;
        let config_dir = self.config_path.parent().unwrap_or(self.root).to_path_buf();
        let site_dir = match self.site {
            Some(dir) => self.root.join(dir),
            None => config_dir.join(&config.site.dir),
        };
        Ok((site_dir, config_dir))
    }

    /// The deploy history's folder: the override, or the config's `[history] dir`.
    pub fn history_dir(&self, config: &Config, config_dir: &Path) -> PathBuf {
        match self.history {
            Some(dir) => self.root.join(dir),
            None => config_dir.join(&config.history.dir),
        }
    }

    /// Compiles the site as the build would, the deploy history's deltas included.
    ///
    /// # Errors
    /// A bad configuration or site (see [`Error`]).
    pub fn compile(&self) -> Result<(Manifest, Config), Error> {
        self.compile_with_store(true)
    }

    /// [`Build::compile`] for a module that keeps its site's bytes as `bodies` says: a Worker
    /// in library mode ([`run`] on wasm32) has no store to read.
    fn compile_for(&self, bodies: Bodies) -> Result<(Manifest, Config), Error> {
        let library = bodies == Bodies::Embedded
            && env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32");
        self.compile_with_store(!library)
    }

    /// [`Build::compile`], with a store to keep files in or (`store` false: a library-mode
    /// Worker) without: then `[storage] tier = "auto"` is `"bundle"`, and asking for the store
    /// is an error.
    fn compile_with_store(&self, store: bool) -> Result<(Manifest, Config), Error> {
        let mut config = self.config()?;
        if !store {
            let storage = &mut config.storage;
            let stored = matches!(storage.tier, StorageTier::Assets | StorageTier::R2);
            if stored || !storage.assets.is_empty() || storage.r2_bucket.is_some() {
                return Err(Error::Budget {
                    message: "[storage] asks for the store, and this Worker keeps its site in \
                              its module (library mode: build_script::run), which has no store \
                              to read: set tier = \"bundle\", no assets globs and no r2_bucket, or serve the \
                              site with edgesite's own Worker"
                        .into(),
                });
            }
            storage.tier = StorageTier::Bundle;
        }
        let (site_dir, config_dir) = self.site_and_config_dir()?;
        if !config.site.allow_project_files {
            check_not_the_project(&site_dir, &[self.root, &config_dir])?;
        }
        let last_modified = self.last_modified(&site_dir)?;
        let mut options = Options::from_config(config.clone(), last_modified);
        options.page_dates = self.page_dates;
        options.cache_dir.clone_from(&self.cache_dir);
        options.effort = self.effort;
        options.history_dir = Some(self.history_dir(&config, &config_dir));
        Ok((compile(&site_dir, &options)?, config))
    }
}

impl Build<'_> {
    /// The build's Last-Modified ([`last_modified`]), and never earlier than the configuration's
    /// own date (its last commit, where git holds it unchanged, else its modification time):
    /// `[optimize]`, `[links]`, `[headers]` and others change what is served too, and a build
    /// must not be dated before them (RFC 9110 §13.1.3). `SOURCE_DATE_EPOCH` still decides alone.
    fn last_modified(&self, site_dir: &Path) -> Result<SystemTime, Error> {
        let site = last_modified(self.source_date_epoch, site_dir)?;
        if self.source_date_epoch.is_some() {
            return Ok(site);
        }
        let Some(folder) = self.config_path.parent() else {
            return Ok(site);
        };
        let dates = crate::modified::own_dates(folder, &[self.config_path]);
        let config = dates
            .get(self.config_path)
            .map(|&date| date.min(SystemTime::now()));
        Ok(site.max(config.unwrap_or(site)))
    }
}

/// The files whose presence says a folder is a project rather than a site's output.
const PROJECT_FILES: [&str; 3] = ["edgesite.toml", "Cargo.toml", "wrangler.toml"];

/// A site folder that is, or holds, one of `projects` (the crate's folder, the
/// configuration's), or that holds a project's files ([`PROJECT_FILES`]), would publish the
/// project: an error unless `site.allow_project_files` says it is meant.
fn check_not_the_project(site_dir: &Path, projects: &[&Path]) -> Result<(), Error> {
    let error = |because: String| Error::ProjectFolder {
        path: site_dir.to_path_buf(),
        because,
    };
    // A missing folder is the walk's error to give.
    let Ok(site) = std::fs::canonicalize(site_dir) else {
        return Ok(());
    };
    for project in projects {
        if let Ok(project) = std::fs::canonicalize(project) {
            if project.starts_with(&site) {
                return Err(error(format!(
                    "it holds the project folder {}",
                    project.shown()
                )));
            }
        }
    }
    match PROJECT_FILES.iter().find(|name| site.join(name).exists()) {
        Some(name) => Err(error(format!("it holds {name}"))),
        None => Ok(()),
    }
}

/// Adds `manifest` to the deploy history `[history]` names at once (serve_site's
/// `--record-deploy`; a Worker's deploy stages it instead, see [`crate::history::stage`]).
///
/// # Errors
/// When the history cannot be read or written.
pub fn record_deploy(
    manifest: &Manifest,
    config: &Config,
    dir: &Path,
) -> Result<crate::history::Recorded, Error> {
    let dir = dir.to_path_buf();
    // Read again: the compile only read it.
    let mut history = crate::history::History::open(&dir)?;
    history
        .record(manifest, config.history.keep)
        .map_err(|source| Error::Read { path: dir, source })
}

/// `EDGESITE_HISTORY`, when set and not empty: the deploy history to read instead of the
/// config's (edgesite's own `.cargo/config.toml` points the demo's builds at the test suites'
/// fixture history, so that `make deploy` alone writes the demo's own).
pub fn history_from_env() -> Option<PathBuf> {
    set("EDGESITE_HISTORY").map(PathBuf::from)
}

/// Variable `name` when set and not empty: an empty one counts as unset, as a shell's `X= cmd`
/// or a Makefile's empty variable means (an empty `EDGESITE_SITE` named the crate's own folder
/// as the site; an empty `EDGESITE_CONFIG` failed the build reading a folder).
fn set(name: &str) -> Option<std::ffi::OsString> {
    env::var_os(name).filter(|value| !value.is_empty())
}

/// `EDGESITE_RECORD_DEPLOY=1` (set by `make deploy`): stages this build's deploy for the
/// history in `target/edgesite/staged-deploy`, which `make deploy` records
/// ([`crate::history::commit`], the `edgesite-history` tool) only once the upload succeeded:
/// a deploy that failed or was interrupted leaves the history as it was. Other builds (tests,
/// `wrangler dev`) only say what the history holds.
fn history(manifest: &Manifest, config: &Config, dir: &Path, out_dir: &Path) -> Result<(), Error> {
    println!("cargo:rerun-if-env-changed=EDGESITE_RECORD_DEPLOY");
    if env::var("EDGESITE_RECORD_DEPLOY").as_deref() == Ok("1") {
        let staged = report_dir(out_dir).join("staged-deploy");
        // Tracked while it exists, and missing once recorded: cargo reruns a build script while
        // a path it tracks is missing, so every deploy after a recorded one stages again.
        println!(
            "cargo:rerun-if-changed={}",
            staged.join("staged.json").display()
        );
        crate::history::stage(manifest, dir, config.history.keep, &staged).map_err(|source| {
            Error::Read {
                path: staged.clone(),
                source,
            }
        })?;
        println!(
            "cargo:warning=history: staged build {} for {} in {} (recorded once the deploy succeeds)",
            manifest.build_id,
            dir.shown(),
            staged.shown()
        );
    } else if manifest.stats.deltas.deploys > 0 {
        println!(
            "cargo:warning=history: {} earlier deploys in {} (not recorded: EDGESITE_RECORD_DEPLOY is not 1)",
            manifest.stats.deltas.deploys,
            dir.shown()
        );
    }
    Ok(())
}

/// `EDGESITE_ENCODINGS`: `quick` (what `make dev` sets) makes what the encoding cache does not
/// hold at quick settings ([`Effort::Quick`]); unset, empty or `configured`, at the
/// configured ones; another value is an error naming the variable.
///
/// # Errors
/// Any other value.
pub fn effort_from_env(value: Option<&std::ffi::OsStr>) -> Result<Effort, String> {
    match value.map(|v| v.to_str()) {
        None | Some(Some("" | "configured")) => Ok(Effort::Configured),
        Some(Some("quick")) => Ok(Effort::Quick),
        Some(value) => Err(format!(
            "EDGESITE_ENCODINGS={}: expected quick or configured",
            value.unwrap_or("(not UTF-8)")
        )),
    }
}

/// The build report, its warnings last, at every build: as cargo warnings (the only
/// build-script output cargo shows without -vv), and written with the integrity manifest to
/// target/edgesite/.
fn report(manifest: &Manifest, out_dir: &Path) {
    let dir = report_dir(out_dir);
    // `write_rust_with` wrote all three into OUT_DIR: copied, not made again (seconds for a
    // site of 100,000 files: docs/benchmarks.md, "100,000 files with twins").
    let names = ["manifest.json", "report.txt", "report.html"];
    let copy = |name: &&str| std::fs::copy(out_dir.join(name), dir.join(name)).map(drop);
    let written = std::fs::create_dir_all(&dir).and_then(|()| names.iter().try_for_each(copy));
    let report =
        std::fs::read_to_string(out_dir.join("report.txt")).unwrap_or_else(|_| manifest.report());
    for line in report.lines() {
        println!("cargo:warning={line}");
    }
    match written {
        Ok(()) => println!(
            "cargo:warning=manifest.json, report.txt and report.html in {}",
            dir.shown()
        ),
        Err(e) => println!("cargo:warning=cannot write {}: {e}", dir.shown()),
    }
}

/// `target/edgesite`, shared by host and wasm32 builds. OUT_DIR is
/// `<target>[/<triple>]/<profile>/build/<package>-<hash>/out`; the triple's folder is there when
/// the build names its target (`--target`, cargo's TARGET). Not CACHEDIR.TAG: cargo writes none
/// in a target folder that already existed (a fresh clone whose setup logged into `target/`
/// first), which put the report in OUT_DIR and split the encoding cache. `OUT_DIR/edgesite`
/// when the layout is not cargo's.
fn edgesite_dir(out_dir: &Path) -> PathBuf {
    target_dir(out_dir, env::var("TARGET").ok().as_deref())
        .unwrap_or(out_dir)
        .join("edgesite")
}

/// The target folder of an OUT_DIR built for `triple` (see [`edgesite_dir`]).
fn target_dir<'p>(out_dir: &'p Path, triple: Option<&str>) -> Option<&'p Path> {
    let build = out_dir
        .ancestors()
        .find(|dir| dir.file_name().is_some_and(|name| name == "build"))?;
    let above_profile = build.parent()?.parent()?;
    match (above_profile.file_name(), triple) {
        (Some(name), Some(triple)) if name == triple => above_profile.parent(),
        _ => Some(above_profile),
    }
}

/// Where the report and manifest go: `target/edgesite/` for edgesite's own Worker,
/// `target/edgesite/<package>/` for another crate embedding a site in the same target dir.
fn report_dir(out_dir: &Path) -> PathBuf {
    let dir = edgesite_dir(out_dir);
    match env::var("CARGO_PKG_NAME") {
        Ok(name) if name != "edgesite" => dir.join(name),
        _ => dir,
    }
}

#[cfg(test)]
mod tests {
    use super::{effort_from_env, set, target_dir, Build, Effort};

    #[test]
    fn an_empty_variable_counts_as_unset() {
        // Names of this test's own: the test binary's threads read no others.
        std::env::set_var("EDGESITE_TEST_EMPTY_VARIABLE", "");
        std::env::set_var("EDGESITE_TEST_SET_VARIABLE", "site");
        assert_eq!(set("EDGESITE_TEST_EMPTY_VARIABLE"), None);
        assert_eq!(set("EDGESITE_TEST_SET_VARIABLE"), Some("site".into()));
        assert_eq!(set("EDGESITE_TEST_UNSET_VARIABLE"), None);
    }
    use crate::model::Tier;
    use std::path::Path;

    /// A library-mode Worker has no store: past the budget its files stay in the bundle (as
    /// compact storage allows, or the build fails on the budget), and a configuration that
    /// asks for the store fails naming `[storage]`.
    #[test]
    fn a_worker_without_a_store_keeps_every_file_in_its_module() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        std::fs::create_dir(&site).unwrap();
        std::fs::write(site.join("a.bin"), vec![7u8; 4096]).unwrap();
        let config = dir.path().join("edgesite.toml");
        let build = Build {
            root: dir.path(),
            config_path: &config,
            config_named: true,
            site: None,
            history: None,
            source_date_epoch: Some("1700000000"),
            page_dates: crate::PageDates::Build,
            cache_dir: None,
            effort: Effort::Configured,
        };
        std::fs::write(
            &config,
            "[site]\ndir = \"site\"\n[storage]\ntier = \"assets\"\n",
        )
        .unwrap();
        let (stored, _) = build.compile_with_store(true).unwrap();
        assert!(stored.files.iter().all(|f| f.tier == Tier::Assets));
        let error = build.compile_with_store(false).unwrap_err().to_string();
        assert!(
            error.contains("[storage]") && error.contains("library mode"),
            "{error}"
        );
        std::fs::write(
            &config,
            "[site]\ndir = \"site\"\n[storage]\nassets = [\"/a.bin\"]\n",
        )
        .unwrap();
        assert!(
            build.compile_with_store(false).is_err(),
            "an assets glob asks for the store"
        );
        std::fs::write(&config, "[site]\ndir = \"site\"\n").unwrap();
        let (bundled, config) = build.compile_with_store(false).unwrap();
        assert!(bundled.files.iter().all(|f| f.tier == Tier::Bundle));
        assert_eq!(config.storage.tier, crate::config::StorageTier::Bundle);
    }

    /// RFC 9110 §13.1.3: the configuration changes what is served too, so its date counts.
    #[test]
    fn a_build_is_never_dated_before_its_configuration() {
        use crate::modified::tests::{commit_all, repo_with_site, touch};
        let (repo, site) = repo_with_site("");
        std::fs::write(site.join("index.html"), "<p>hi</p>").unwrap();
        let config = repo.path().join("edgesite.toml");
        let commit = |at: u64| commit_all(repo.path(), at);
        commit(1_700_000_000);
        std::fs::write(&config, "[site]\ndir = \"site\"\n").unwrap();
        commit(1_710_000_000);
        let build = |epoch| Build {
            root: repo.path(),
            config_path: &config,
            config_named: true,
            site: None,
            history: None,
            source_date_epoch: epoch,
            page_dates: crate::PageDates::Build,
            cache_dir: None,
            effort: Effort::Configured,
        };
        let dated = |epoch| {
            build(epoch)
                .compile_with_store(true)
                .unwrap()
                .0
                .last_modified_unix
        };
        assert_eq!(
            dated(None),
            1_710_000_000,
            "the configuration's commit, the later"
        );
        std::fs::write(
            &config,
            "[site]\ndir = \"site\"\n[links]\npreload = false\n",
        )
        .unwrap();
        touch(&config, 1_720_000_000);
        assert_eq!(dated(None), 1_720_000_000, "an edit of it, not committed");
        touch(&config, 1_600_000_000);
        assert_eq!(dated(None), 1_700_000_000, "the site's commit, the later");
        assert_eq!(
            dated(Some("1500000000")),
            1_500_000_000,
            "SOURCE_DATE_EPOCH decides"
        );
    }

    #[test]
    fn the_target_folder_is_found_above_the_profile_and_the_triple() {
        let host = Path::new("/w/target/debug/build/edgesite-0123/out");
        assert_eq!(
            target_dir(host, Some("x86_64-unknown-linux-gnu")),
            Some(Path::new("/w/target"))
        );
        let wasm = Path::new("/w/target/wasm32-unknown-unknown/worker/build/edgesite-4567/out");
        assert_eq!(
            target_dir(wasm, Some("wasm32-unknown-unknown")),
            Some(Path::new("/w/target"))
        );
        // Another build's TARGET does not name this layout's folder.
        let other = Path::new("/w/target/wasm32-unknown-unknown/debug/build/p-1/out");
        assert_eq!(
            target_dir(other, Some("x86_64-unknown-linux-gnu")),
            Some(Path::new("/w/target/wasm32-unknown-unknown"))
        );
        assert_eq!(target_dir(Path::new("/tmp/out"), None), None);
    }

    #[test]
    fn edgesite_encodings_is_quick_or_configured_and_anything_else_is_named() {
        use std::ffi::OsStr;
        assert_eq!(effort_from_env(None), Ok(Effort::Configured));
        assert_eq!(
            effort_from_env(Some(OsStr::new(""))),
            Ok(Effort::Configured)
        );
        let configured = effort_from_env(Some(OsStr::new("configured")));
        assert_eq!(configured, Ok(Effort::Configured));
        assert_eq!(
            effort_from_env(Some(OsStr::new("quick"))),
            Ok(Effort::Quick)
        );
        let error = effort_from_env(Some(OsStr::new("fast"))).unwrap_err();
        assert!(error.contains("EDGESITE_ENCODINGS=fast"), "{error}");
    }
}
