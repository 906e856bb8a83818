//! `cargo xtask`: the project's harness in Rust (issue 36; docs/testing.md).
//!
//! - `cargo xtask test [--layer L]... [FILTER] [-- ARGS...]`: `make test`. Builds what the
//!   layers need once, runs them (crate::layers), prints every step's time and `layers: N
//!   passed, N failed`. `--layer` (repeated, or `LAYERS="a b"`) picks layers; FILTER runs only
//!   the checks whose `layer/name`, as printed, contains it (`native/http`, `same_view`,
//!   `host/core/`), and builds only what one layer needs when it starts with that layer's name
//!   and a slash; a FILTER no check matches fails the run. ARGS go to every test binary run (a
//!   test's name: `cargo xtask test native/http -- etag`).
//! - `cargo xtask setup`: `make setup` (crate::setup); `cargo xtask fuzz`: `make fuzz`
//!   (crate::fuzz); `cargo xtask report`: `make report` (the build, then report.html's path).
//! - `cargo xtask workerd ...`: Worker bundles and workerd configs (crate::workerd).
//! - `cargo xtask build-worker [--package NAME] [--entry TEMPLATE] [OUT]`: a Worker's bundle
//!   (crate::build_worker; wrangler runs it through `scripts/build-worker.sh`).
//! - `cargo xtask site-dir`, `r2-bucket [CONFIG]`, `r2-bound WRANGLER BUCKET`,
//!   `dev-config OUT SITE`, `first-view-off [CONFIG]`: what `make dev`, `make deploy` and the
//!   benchmarks read from the configs and write (crate::config).

mod build_worker;
mod config;
mod fuzz;
mod layers;
mod run;
mod setup;
mod views;
mod workerd;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = root();
    let result = match args.first().map(String::as_str) {
        Some("test") => return test(root, &args[1..]),
        Some("workerd") => workerd::main(&root, &args[1..]),
        Some("build-worker") => build_worker::main(&root, &args[1..]),
        Some("setup") => setup::main(&root),
        Some("fuzz") => fuzz::main(&root),
        Some("report") => layers::demo_report(&root).map(|path| println!("{}", path.display())),
        Some("site-dir") => {
            println!("{}", config::site_dir(&root).display());
            Ok(())
        }
        Some("r2-bucket") => {
            let config = args.get(1).map_or_else(|| config::project_config(&root), PathBuf::from);
            config::r2_bucket(&config).map(|b| println!("{}", b.unwrap_or_default()))
        }
        Some("r2-bound") if args.len() == 3 => config::r2_bound(Path::new(&args[1]), &args[2]),
        Some("dev-config") if args.len() == 3 => config::dev_config(&root, Path::new(&args[1]), Path::new(&args[2])),
        Some("first-view-off") => config::first_view_off(args.get(1).map(Path::new)).map(|t| print!("{t}")),
        _ => Err("usage: cargo xtask test [--layer L]... [FILTER] [-- ARGS] | setup | fuzz | report | workerd ... | build-worker ... | site-dir | \
                  r2-bucket [CONFIG] | r2-bound WRANGLER BUCKET | dev-config OUT SITE | first-view-off [CONFIG]"
            .into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The project's root: two folders above this crate's.
fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::canonicalize(&here).unwrap_or(here)
}

fn test(root: PathBuf, args: &[String]) -> ExitCode {
    run::clean_process_env();
    // Interrupted (Ctrl-C, or SIGTERM from CI's timeout), the servers are stopped first: they
    // run in process groups of their own, which the terminal's signal does not reach.
    let _ = ctrlc::set_handler(|| {
        testkit::stop_all();
        std::process::exit(130);
    });
    let mut selection = run::Selection::default();
    if let Ok(layers) = std::env::var("LAYERS") {
        selection.layers = layers.split_whitespace().map(String::from).collect();
    }
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--layer" => match rest.next() {
                Some(layer) => selection.layers.push(layer.clone()),
                None => return usage("--layer needs a layer"),
            },
            "--" => {
                selection.test_args = rest.by_ref().cloned().collect();
            }
            filter if !filter.starts_with('-') && selection.filter.is_none() => {
                selection.filter = Some(filter.to_string());
            }
            other => return usage(&format!("unexpected {other}")),
        }
    }
    use run::LAYERS;
    if let Some(unknown) = selection
        .layers
        .iter()
        .find(|l| !LAYERS.contains(&l.as_str()))
    {
        return usage(&format!(
            "no layer {unknown} (the layers: {})",
            LAYERS.join(", ")
        ));
    }
    let harness = layers::Harness::new(run::Run::new(root, selection));
    if harness.test() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn usage(why: &str) -> ExitCode {
    eprintln!("xtask test: {why}\nusage: cargo xtask test [--layer L]... [FILTER] [-- ARGS...]");
    ExitCode::from(2)
}
