//! Compiles the site (`public/`, or what `edgesite.toml` / `EDGESITE_SITE` name) into
//! `$OUT_DIR/site.rs`: see `edgesite_sitegen::build_script`, which any crate embedding a site
//! calls the same way.

fn main() -> std::process::ExitCode {
    edgesite_sitegen::build_script::run()
}
