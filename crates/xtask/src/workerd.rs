//! The Worker under bare `workerd serve` (the production runtime, without wrangler dev's proxy),
//! and the generated configs the harness and the benchmarks run it with (`cargo xtask workerd`,
//! `scripts/workerd.sh`):
//!
//! - `build [CONFIG]`: builds a bundle, prints its folder. Without CONFIG (or `demo`): the bundle
//!   of `wrangler deploy --dry-run` (offline), in `target/workerd/demo`: exactly what `wrangler
//!   deploy` uploads, and its Static Assets beside it. With CONFIG (an edgesite.toml): the Worker
//!   built by `build-worker` with `EDGESITE_CONFIG=CONFIG`, in the same target directory (only
//!   the site's crate is rebuilt), in `target/workerd/NAME` (NAME: the config's file name).
//! - `config PORT [CONFIG] [PORT CONFIG]...`: writes a workerd config serving each built bundle
//!   on its port of 127.0.0.1, all in one process; prints its path.
//! - `config-at OUT PORT BUNDLE MAIN [PORT BUNDLE MAIN]...`: the same for any bundle folders
//!   (MAIN: the main module's name in it), written at OUT (the benchmarks' JS Workers).
//! - `build-dir [CONFIG]`: the bundle folder of a build (its store: `assets/`, `r2/`).
//! - `wrangler-toml CONFIG`: writes a wrangler config serving a built bundle and its store under
//!   `wrangler dev` (no build); prints its path.
//! - `serve PORT [CONFIG]`: builds, configures, and runs workerd in the foreground.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::config;
use crate::run::run_to;

/// The folder of a build: `target/workerd/demo`, or `target/workerd/NAME` for a config.
pub(crate) fn work_dir(root: &Path, config: Option<&Path>) -> PathBuf {
    let name = match config {
        Some(c) if c != Path::new("demo") => c
            .file_stem()
            .map_or("site".into(), |s| s.to_string_lossy().into_owned()),
        _ => "demo".to_string(),
    };
    root.join("target/workerd").join(name)
}

/// Builds the bundle of `config` (None: the deploy bundle); returns its folder. The build's
/// output is in the work folder's `build.log`, and its end in the error.
pub(crate) fn build(root: &Path, config: Option<&Path>) -> Result<PathBuf, String> {
    let work = work_dir(root, config);
    let bundle = work.join("bundle");
    fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let log = work.join("build.log");
    match config.filter(|c| *c != Path::new("demo")) {
        None => {
            let _ = fs::remove_dir_all(&bundle);
            run_to(
                Command::new("wrangler")
                    .current_dir(root)
                    .args(["deploy", "--dry-run", "--outdir"])
                    .arg(&bundle),
                Some(&log),
            )?;
            // What wrangler would upload as Static Assets beside the bundle (hard links).
            fs::create_dir_all(bundle.join("assets")).map_err(|e| e.to_string())?;
            let from = root.join("build/assets/.");
            let linked = Command::new("cp")
                .arg("-al")
                .arg(&from)
                .arg(bundle.join("assets"))
                .status();
            if !linked.is_ok_and(|s| s.success()) {
                run_to(
                    Command::new("cp")
                        .arg("-a")
                        .arg(&from)
                        .arg(bundle.join("assets")),
                    None,
                )?;
            }
        }
        Some(config) => {
            // build-worker, run by this same executable (not a nested `cargo run`), keeps its
            // output as its last build left it (a site's 100,000 objects are not linked again).
            let config =
                fs::canonicalize(config).map_err(|e| format!("{}: {e}", config.display()))?;
            let mut build = crate::build_worker::command(root, &config, &bundle)?;
            run_to(&mut build, Some(&log))?;
        }
    }
    Ok(bundle)
}

/// The entry of a built bundle: `worker.js` in wrangler's bundle, `worker.mjs` as build-worker
/// writes it.
fn main_module(bundle: &Path) -> Result<&'static str, String> {
    ["worker.js", "worker.mjs"]
        .into_iter()
        .find(|m| bundle.join(m).is_file())
        .ok_or_else(|| {
            format!(
                "no bundle in {}: run `cargo xtask workerd build` first",
                bundle.display()
            )
        })
}

/// The files of `dir` under it, relative, sorted; those under the top-level folders `skip`
/// left out.
fn files(dir: &Path, skip: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = crate::build_worker::listing(dir)
        .into_keys()
        .filter(|rel| !skip.iter().any(|s| rel.starts_with(s)))
        .collect();
    out.sort();
    out
}

/// The modules of a bundle (its main module first, other .js/.mjs as ES modules, .wasm as wasm
/// modules, .bin as data modules), as a workerd module list embedding paths relative to
/// `config_dir`. Module names are paths inside the bundle.
fn modules(config_dir: &Path, bundle: &Path, main: &str) -> Vec<String> {
    let mut out = Vec::new();
    for rel in files(bundle, &["assets", "r2"]) {
        let name = rel.to_string_lossy();
        let kind = match rel.extension().and_then(|e| e.to_str()) {
            Some("js" | "mjs") => "esModule",
            Some("wasm") => "wasm",
            Some("bin") => "data",
            _ => continue,
        };
        let embed = config::relative(config_dir, &bundle.join(&rel));
        let module = format!(
            "(name = \"{name}\", {kind} = embed \"{}\")",
            embed.display()
        );
        if name == main {
            out.insert(0, module);
        } else {
            out.push(module);
        }
    }
    out
}

/// Writes a workerd config at `out` serving each `(port, bundle)` on 127.0.0.1:PORT, all in one
/// process. The store: a disk service over the bundle's `assets/` stands in for the Static
/// Assets binding (it also answers Range, which Static Assets does not: the Worker never asks
/// it). A bundle with objects in `r2/` gets `tests/fixtures/r2-stand-in.js` as its main module,
/// over a second disk service, for its R2 bucket.
pub(crate) fn write_config(
    root: &Path,
    out: &Path,
    workers: &[(u16, PathBuf, String)],
) -> Result<(), String> {
    let config_dir = out.parent().unwrap_or(Path::new("."));
    let date = config::compat_date(root)?;
    let (mut services, mut sockets, mut consts) = (Vec::new(), Vec::new(), String::new());
    for (n, (port, bundle, main)) in workers.iter().enumerate() {
        let assets = bundle.join("assets");
        fs::create_dir_all(&assets).map_err(|e| format!("{}: {e}", assets.display()))?;
        let mut modules = modules(config_dir, bundle, main);
        let mut bindings = format!("(name = \"ASSETS\", service = \"store{n}\")");
        services.push(format!("(name = \"worker{n}\", worker = .worker{n})"));
        services.push(format!(
            "(name = \"store{n}\", disk = (path = \"{}\", writable = false))",
            assets.display()
        ));
        if !files(&bundle.join("r2"), &[]).is_empty() {
            let stand_in =
                config::relative(config_dir, &root.join("tests/fixtures/r2-stand-in.js"));
            modules.insert(
                0,
                format!(
                    "(name = \"r2-stand-in.js\", esModule = embed \"{}\")",
                    stand_in.display()
                ),
            );
            services.push(format!(
                "(name = \"r2-{n}\", disk = (path = \"{}\", writable = false))",
                bundle.join("r2").display()
            ));
            bindings.push_str(&format!(", (name = \"R2_DISK\", service = \"r2-{n}\")"));
        }
        sockets.push(format!("(name = \"http{n}\", address = \"127.0.0.1:{port}\", http = (), service = \"worker{n}\")"));
        consts.push_str(&format!(
            "\nconst worker{n} :Workerd.Worker = (\n  modules = [{}],\n  compatibilityDate = \"{date}\",\n  bindings = [{bindings}],\n);\n",
            modules.join(", ")
        ));
    }
    let text = format!(
        "# Generated by cargo xtask workerd (crates/xtask/src/workerd.rs).\nusing Workerd = import \"/workerd/workerd.capnp\";\n\n\
         const config :Workerd.Config = (\n  services = [{}],\n  sockets = [{}],\n);\n{consts}",
        services.join(", "),
        sockets.join(", ")
    );
    fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))
}

/// Writes the config serving the built bundles of `(port, config)`, each on its port; returns
/// its path: the work folder's `config.capnp` for one, `target/workerd/NAME1+NAME2....capnp`
/// for several.
pub(crate) fn config(root: &Path, workers: &[(u16, Option<PathBuf>)]) -> Result<PathBuf, String> {
    let dirs: Vec<PathBuf> = workers
        .iter()
        .map(|(_, c)| work_dir(root, c.as_deref()))
        .collect();
    let out = match &dirs[..] {
        [one] => one.join("config.capnp"),
        _ => {
            let names: Vec<String> = dirs
                .iter()
                .map(|d| {
                    d.file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect();
            root.join("target/workerd")
                .join(format!("{}.capnp", names.join("+")))
        }
    };
    let mut bundles = Vec::new();
    for ((port, _), dir) in workers.iter().zip(&dirs) {
        let bundle = dir.join("bundle");
        let main = main_module(&bundle)?.to_string();
        bundles.push((*port, bundle, main));
    }
    write_config(root, &out, &bundles)?;
    Ok(out)
}

/// A wrangler config for the bundle built with `config`: its entry, its blobs as data modules
/// and its store as Static Assets, as the project's wrangler.toml has them, without a `[build]`
/// command; and the config's R2 bucket (`[storage] r2_bucket`) as EDGESITE_R2.
pub(crate) fn wrangler_toml(root: &Path, config: &Path) -> Result<PathBuf, String> {
    let work = work_dir(root, Some(config));
    let out = work.join("wrangler.toml");
    let bucket = config::r2_bucket(config)?;
    let name = work
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let text = format!(
        "# Generated by cargo xtask workerd wrangler-toml for the bundle built with {}.\n\
         name = \"edgesite-{name}\"\nmain = \"bundle/worker.mjs\"\ncompatibility_date = \"{}\"\n\n{}",
        config.display(),
        config::compat_date(root)?,
        config::wrangler_sections(root, "bundle/assets", bucket.as_deref())?
    );
    fs::write(&out, text).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(out)
}

/// `cargo xtask workerd ...` (the module's documentation); what it prints goes to stdout.
pub(crate) fn main(root: &Path, args: &[String]) -> Result<(), String> {
    let arg = |i: usize| args.get(i).map(PathBuf::from);
    let port = |s: &String| s.parse::<u16>().map_err(|_| format!("not a port: {s}"));
    match args.first().map(String::as_str) {
        Some("build") => println!("{}", build(root, arg(1).as_deref())?.display()),
        Some("build-dir") => println!("{}", work_dir(root, arg(1).as_deref()).join("bundle").display()),
        Some("wrangler-toml") if args.len() == 2 => {
            println!("{}", wrangler_toml(root, Path::new(&args[1]))?.display());
        }
        Some("config") if args.len() >= 2 => {
            let mut workers = Vec::new();
            for pair in args[1..].chunks(2) {
                workers.push((port(&pair[0])?, pair.get(1).map(PathBuf::from)));
            }
            println!("{}", config(root, &workers)?.display());
        }
        Some("config-at") if args.len() >= 5 && (args.len() - 2) % 3 == 0 => {
            let mut workers = Vec::new();
            for triple in args[2..].chunks(3) {
                let bundle = std::path::absolute(&triple[1]).map_err(|e| e.to_string())?;
                workers.push((port(&triple[0])?, bundle, triple[2].clone()));
            }
            let out = std::path::absolute(&args[1]).map_err(|e| e.to_string())?;
            write_config(root, &out, &workers)?;
        }
        Some("serve") if args.len() >= 2 => {
            build(root, arg(2).as_deref())?;
            let capnp = config(root, &[(port(&args[1])?, arg(2))])?;
            run_to(Command::new("workerd").arg("serve").arg(capnp), None)?;
        }
        _ => {
            return Err("usage: cargo xtask workerd build [CONFIG] | build-dir [CONFIG] | \
                        config PORT [CONFIG] [PORT CONFIG]... | config-at OUT PORT BUNDLE MAIN... | wrangler-toml CONFIG | serve PORT [CONFIG]"
                .into())
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_made_relative_to_the_configs_folder() {
        assert_eq!(
            config::relative(
                Path::new("/t/workerd"),
                Path::new("/t/workerd/demo/bundle/w.js")
            ),
            Path::new("demo/bundle/w.js")
        );
        assert_eq!(
            config::relative(Path::new("/t/workerd/demo"), Path::new("/t/tests/f.js")),
            Path::new("../../tests/f.js")
        );
    }

    #[test]
    fn a_config_names_each_module_and_the_store() {
        let dir = std::env::temp_dir().join(format!("xtask-workerd-{}", std::process::id()));
        let bundle = dir.join("w/bundle");
        for file in [
            "index.wasm",
            "worker.mjs",
            "site/site-0.bin",
            "assets/_edgesite/b/x.br",
            "r2/_edgesite/r/y",
            "notes.txt",
        ] {
            fs::create_dir_all(bundle.join(file).parent().unwrap()).unwrap();
            fs::write(bundle.join(file), "x").unwrap();
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let out = dir.join("w/config.capnp");
        write_config(&root, &out, &[(8111, bundle.clone(), "worker.mjs".into())]).unwrap();
        let text = fs::read_to_string(&out).unwrap();
        // The R2 stand-in first, then the entry, then the rest; nothing of assets/ or r2/.
        let stand_in = text.find("r2-stand-in.js").unwrap();
        let entry = text
            .find("(name = \"worker.mjs\", esModule = embed \"bundle/worker.mjs\")")
            .unwrap();
        let wasm = text
            .find("(name = \"index.wasm\", wasm = embed \"bundle/index.wasm\")")
            .unwrap();
        assert!(stand_in < entry && entry < wasm, "{text}");
        assert!(
            text.contains("(name = \"site/site-0.bin\", data = embed \"bundle/site/site-0.bin\")")
        );
        assert!(!text.contains("x.br") && !text.contains("notes.txt"));
        assert!(text.contains("address = \"127.0.0.1:8111\""));
        assert!(text.contains("(name = \"R2_DISK\", service = \"r2-0\")"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
