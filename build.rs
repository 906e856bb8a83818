//! Compiles the site (`public/`, or `EDGESITE_SITE`) into `$OUT_DIR/site.rs` with edgesite-sitegen.
//! The only place that reads the environment; a bad site fails the build with a message naming
//! the path.

use std::env;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let root =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-env-changed=EDGESITE_SITE");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    // Absolute, or relative to the project root (join keeps an absolute path as it is).
    let site_dir = root.join(env::var_os("EDGESITE_SITE").unwrap_or_else(|| "public".into()));
    // Track the folder itself even if compiling fails, so fixing it triggers a rebuild.
    println!("cargo:rerun-if-changed={}", site_dir.display());

    let source_date_epoch = env::var("SOURCE_DATE_EPOCH").ok();
    let manifest = edgesite_sitegen::last_modified(source_date_epoch.as_deref(), &site_dir)
        .and_then(|last_modified| {
            edgesite_sitegen::compile(&site_dir, &edgesite_sitegen::Options::new(last_modified))
        });
    let manifest = match manifest {
        Ok(manifest) => manifest,
        Err(error) => {
            eprintln!("error: edgesite: {error}");
            return ExitCode::FAILURE;
        }
    };
    // Every folder (its mtime changes when an entry is added or removed) and every file.
    for path in &manifest.tracked {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    if let Err(error) = manifest.write_rust(&out_dir) {
        eprintln!(
            "error: edgesite: cannot write {}: {error}",
            out_dir.display()
        );
        return ExitCode::FAILURE;
    }
    println!("cargo:rustc-env=EDGESITE_SITE_DIR={}", site_dir.display());
    ExitCode::SUCCESS
}
