//! Compiles the site into `$OUT_DIR/site.rs` with edgesite-sitegen. The only place that reads the
//! environment: `EDGESITE_CONFIG` (default `edgesite.toml`), `EDGESITE_SITE` (overrides the
//! config's `site.dir`, default `public/`) and `SOURCE_DATE_EPOCH`. A bad configuration or site
//! fails the build with a message naming the file (and line).

use edgesite_sitegen::{compile, last_modified, Config, Error, Manifest, Options};
use std::env;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let root =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for variable in ["EDGESITE_CONFIG", "EDGESITE_SITE", "SOURCE_DATE_EPOCH"] {
        println!("cargo:rerun-if-env-changed={variable}");
    }
    // Absolute, or relative to the project root (join keeps an absolute path as it is).
    let config_path =
        root.join(env::var_os("EDGESITE_CONFIG").unwrap_or_else(|| "edgesite.toml".into()));
    println!("cargo:rerun-if-changed={}", config_path.display());
    match build(&root, &config_path, &out_dir) {
        Ok(site_dir) => {
            println!("cargo:rustc-env=EDGESITE_SITE_DIR={}", site_dir.display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: edgesite: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Compiles the site and writes the tables; returns the site folder.
fn build(
    root: &Path,
    config_path: &Path,
    out_dir: &Path,
) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let config = Config::load(config_path)?;
    let config_dir = config_path.parent().unwrap_or(root);
    let site_dir = match env::var_os("EDGESITE_SITE") {
        Some(dir) => root.join(dir),
        None => config_dir.join(&config.site.dir),
    };
    // Track the folder itself even if compiling fails, so fixing it triggers a rebuild.
    println!("cargo:rerun-if-changed={}", site_dir.display());
    let manifest = compile_site(&site_dir, &config)?;
    // Every folder (its mtime changes when an entry is added or removed) and every file.
    for path in &manifest.tracked {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    manifest
        .write_rust(out_dir)
        .map_err(|e| format!("cannot write {}: {e}", out_dir.display()))?;
    Ok(site_dir)
}

fn compile_site(site_dir: &Path, config: &Config) -> Result<Manifest, Error> {
    let source_date_epoch = env::var("SOURCE_DATE_EPOCH").ok();
    let options = Options::from_config(
        config,
        last_modified(source_date_epoch.as_deref(), site_dir)?,
    );
    compile(site_dir, &options)
}
