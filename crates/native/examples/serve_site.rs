//! Serves a folder as edgesite-native would after a build with it, without the build: the site
//! is compiled by sitegen when this starts ([`edgesite_sitegen::build_script::Build`], as
//! `build.rs` compiles it) and served from memory ([`edgesite_sitegen::Manifest::leak_site`]).
//! What the test layers serve a fixture configuration or a generated site with, where a cargo
//! build per site would cost seconds to minutes.
//!
//! ```text
//! serve_site --listen ADDR [--config FILE] [--site DIR] [--record-deploy]
//! ```
//! `--config` and `--site` are `EDGESITE_CONFIG` and `EDGESITE_SITE` (relative to the current
//! folder); `--record-deploy` adds the compile to the deploy history, as
//! `EDGESITE_RECORD_DEPLOY=1` does. Prints `serving N routes on http://ADDR/` when ready.

use edgesite_sitegen::build_script::{record_deploy, Build};
use std::path::PathBuf;
use std::process::ExitCode;

struct Args {
    listen: String,
    config: PathBuf,
    config_named: bool,
    site: Option<PathBuf>,
    record_deploy: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        listen: "127.0.0.1:8080".to_string(),
        config: PathBuf::from("edgesite.toml"),
        config_named: false,
        site: None,
        record_deploy: false,
    };
    let mut given = std::env::args().skip(1);
    while let Some(arg) = given.next() {
        let mut value = || given.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--listen" => args.listen = value()?,
            "--config" => {
                args.config = PathBuf::from(value()?);
                args.config_named = true;
            }
            "--site" => args.site = Some(PathBuf::from(value()?)),
            "--record-deploy" => args.record_deploy = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("serve_site: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let root = std::env::current_dir().map_err(|e| e.to_string())?;
    let source_date_epoch = std::env::var("SOURCE_DATE_EPOCH").ok();
    let history = edgesite_sitegen::build_script::history_from_env();
    let build = Build {
        root: &root,
        config_path: &root.join(&args.config),
        config_named: args.config_named,
        site: args.site.as_deref(),
        history: history.as_deref(),
        source_date_epoch: source_date_epoch.as_deref(),
        page_dates: edgesite_sitegen::PageDates::for_epoch(source_date_epoch.as_deref()),
        cache_dir: Some(root.join("target/edgesite/cache")),
        effort: edgesite_sitegen::Effort::Configured,
    };
    let (manifest, config) = build.compile().map_err(|e| e.to_string())?;
    if args.record_deploy {
        let (_, config_dir) = build.site_and_config_dir().map_err(|e| e.to_string())?;
        record_deploy(&manifest, &config, &build.history_dir(&config, &config_dir))
            .map_err(|e| e.to_string())?;
    }
    let site = manifest.leak_site().map_err(|e| e.to_string())?;
    let listener = std::net::TcpListener::bind(&args.listen).map_err(|e| e.to_string())?;
    println!(
        "serve_site: serving {} routes of {} on http://{}/",
        site.routes.len(),
        manifest.site_dir.display(),
        args.listen
    );
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let settings = edgesite_native::Settings {
        site,
        ..edgesite_native::Settings::default()
    };
    runtime
        .block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            edgesite_native::serve_with(listener, &settings, std::future::pending()).await
        })
        .map_err(|e| e.to_string())
}
