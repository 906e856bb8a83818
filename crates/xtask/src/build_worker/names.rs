//! The names the Worker's build shares with cargo, wasm-bindgen and build.rs. (Kept in a file
//! of their own: `../shared/tools/longfns.py` reads a string literal ending in `r"` as the start
//! of a raw string and then miscounts the lengths of the functions after it.)

/// The cargo profile of the Worker (Cargo.toml), and the folder of `$OUT_DIR` its build script
/// writes the site's blobs to.
pub(super) const WORKER: &str = "worker";
/// The field of cargo's `build-script-executed` message naming the build script's `$OUT_DIR`.
pub(super) const OUT_DIR: &str = "out_dir";
/// wasm-bindgen's flags: the JS glue for a bundler (wrangler's esbuild), written to a folder.
pub(super) const BINDGEN_FLAGS: [&str; 4] = ["--target", "bundler", "--no-typescript", "--out-dir"];
/// This build's `cargo xtask` subcommand.
pub(super) const SUBCOMMAND: &str = "build-worker";
