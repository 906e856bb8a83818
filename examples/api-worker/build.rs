//! Compiles `site/` (named in edgesite.toml) into the Worker, as edgesite's own build.rs does.

fn main() -> std::process::ExitCode {
    edgesite_sitegen::build_script::run()
}
