//! Compiles the site (`public/`, or what `edgesite.toml` / `EDGESITE_SITE` name) into
//! `$OUT_DIR/tables.bin` and the `site.rs` that decodes it: see `edgesite_sitegen::build_script`.
//! For the Worker (wasm32) the site's bytes go to blobs outside the module, which the Worker's
//! entry imports as data modules (`scripts/build-worker.sh`); the native twin embeds them.

fn main() -> std::process::ExitCode {
    let outside = edgesite_sitegen::Bodies::Tables { in_binary: false };
    edgesite_sitegen::build_script::run_with(outside)
}
