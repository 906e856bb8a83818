//! Compiles the site (`public/`, or what `edgesite.toml` / `EDGESITE_SITE` name) into
//! `$OUT_DIR/site.rs`: see `edgesite_sitegen::build_script`. For the Worker (wasm32) the site's
//! bytes go to blobs outside the module, which the Worker's entry imports as data modules
//! (`scripts/build-worker.sh`); the native twin embeds them.

fn main() -> std::process::ExitCode {
    edgesite_sitegen::build_script::run_with(edgesite_sitegen::Bodies::External)
}
