//! Compiles a site as `build.rs` would and prints what the build took: the whole compile and
//! the link pass (bench/views.sh times cold builds, rebuilds and one-page edits with it).
//!
//!     cargo run --release -p edgesite-sitegen --example compile -- SITE [CONFIG] [CACHE_DIR]
//!
//! With `EDGESITE_REPORT` set, the build report follows on stderr; with `EDGESITE_MANIFEST`, the
//! manifest is written to that file.

use edgesite_sitegen::{compile, last_modified, Config, Options};
use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(site) = args.first().map(Path::new) else {
        return Err("usage: compile SITE [CONFIG] [CACHE_DIR]".into());
    };
    let config = match args.get(1).filter(|c| !c.is_empty()) {
        Some(path) => Config::load(Path::new(path))?,
        None => Config::default(),
    };
    let mut options =
        Options::from_config(config.clone(), last_modified(Some("1700000000"), site)?);
    options.cache_dir = args.get(2).map(PathBuf::from);
    let manifest = compile(site, &options)?;
    let links = manifest.stats.links;
    println!(
        "{{\"files\": {}, \"wall_ms\": {}, \"links_ms\": {}, \"references\": {}, \"versioned\": {}, \"rewritten_files\": {}, \"broken\": {}, \"preload_hints\": {}, \"encoded\": {}, \"cached\": {}}}",
        manifest.stats.files,
        manifest.stats.wall_time_ms,
        links.wall_time_ms,
        links.references,
        links.fingerprinted,
        links.rewritten_files,
        links.broken,
        links.preload_hints,
        manifest.stats.encodings.encoded,
        manifest.stats.encodings.cached,
    );
    if std::env::var_os("EDGESITE_REPORT").is_some() {
        eprint!("{}", manifest.report());
    }
    if let Some(path) = std::env::var_os("EDGESITE_MANIFEST") {
        std::fs::write(path, manifest.to_json())?;
    }
    Ok(())
}
