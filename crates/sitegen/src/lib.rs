//! # edgesite-sitegen
//!
//! The build-time site compiler behind edgesite: [`compile`] turns a site folder into a
//! [`Manifest`] (every file an [`Asset`](model::Asset) with its [`Representation`](model::Representation)s, the routes, the rules),
//! which [`Manifest::write_rust`] writes as `site.rs` (static tables of `edgesite-core` types)
//! and `manifest.json`. [`build_script::run`] is what a `build.rs` calls; [`compile`] reads no
//! environment variable.
//!
//! A compile is a row of stages, each a module that takes the previous stages' output and
//! returns its own, over the types of [`model`]; this file only wires them (docs/design.md):
//! sources → routing → speculation → images → links → encode → delta → storage → fields → emit.
//!
//! ```no_run
//! use edgesite_sitegen::{compile, last_modified, Options};
//! use std::path::Path;
//!
//! let site = Path::new("public");
//! let options = Options::new(last_modified(None, site)?);
//! let manifest = compile(site, &options)?;
//! manifest.write_rust(Path::new("target/out"))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The model, and the foundations every stage may use.
mod atomic;
mod cache;
pub mod config;
mod error;
mod etag;
mod field;
mod glob;
pub mod history;
mod mime;
pub mod model;
mod modified;
mod parallel;
mod progress;
mod resolve;
mod rule;
mod uri;
// The stages, in order (`compile` below).
pub mod delta;
mod emit;
mod encode;
mod fields;
mod images;
mod links;
mod routing;
mod sources;
mod speculation;
mod storage;
// What a build.rs calls, and the fuzz targets' entry points.
pub mod build_script;
#[doc(hidden)]
pub mod fuzzing;

// The API: the compile, what it takes and returns, and the codecs usable on their own (the
// model's and the configuration's other types are in `model` and `config`).
pub use config::Config;
pub use emit::codegen::Bodies;
pub use encode::compress::encode;
pub use error::Error;
pub use mime::SPECULATION_RULES_PATH;
pub use model::{Manifest, Options};
pub use modified::last_modified;
pub use sources::HTML_DICTIONARY_PATH;
pub use storage::{bundle_bytes, warnings as budget_warnings};

use std::path::Path;
use std::time::Instant;

/// Compiles the site in `site_dir`.
///
/// # Errors
/// A missing, empty or unreadable site, a name no URL can reach, a bad option, a bad
/// `_headers` or `_redirects` file, or a bundle over its budget (see [`Error`]).
pub fn compile(site_dir: &Path, options: &Options) -> Result<Manifest, Error> {
    let (started, mut clock) = (Instant::now(), Stages::default());
    let (config, cache_dir) = (&options.config, options.cache_dir.as_deref());
    let policy = cache::Policy::of(config);
    let mut sources = clock.time("sources", || {
        let history = options.history_dir.as_deref();
        sources::read(site_dir, history, config.history.html_dictionary)
    })?;
    let mut routing = clock.time("routing", || {
        routing::route(site_dir, &config.site, config.compat.pages_limits, &sources)
    })?;
    let speculation = clock.time("speculation", || {
        speculation::announce(&sources, &routing, &config.links, policy)
    });
    if let Some(rules) = &speculation {
        let index = sources.add_made(SPECULATION_RULES_PATH, rules.bytes.clone());
        routing.add_file(SPECULATION_RULES_PATH, index);
    }
    let images = clock.time("images", || {
        images::make(&sources, &config.images, cache_dir)
    })?;
    let links = clock.time("links", || {
        links::pass(&sources, &images, &routing, &config.links, policy)
    })?;
    let settings = encode::Settings::new(config, cache_dir);
    let assets = clock.time("encode", || {
        encode::assets(&sources, images, &links, &settings)
    })?;
    let settings = delta::Settings {
        compression: &config.compression,
        cache_dir,
    };
    let assets = clock.time("delta", || delta::compute(assets, &sources, settings))?;
    let assets = clock.time("storage", || {
        storage::store(assets, &config.compression, &config.budget)
    })?;
    let mut assets = clock.time("fields", || {
        let field = speculation.as_ref().map(|rules| rules.field.as_str());
        fields::apply(assets, site_dir, &routing, field, config)
    })?;
    assets.stats.stages = clock.0;
    let stages = (sources, routing, links);
    Ok(emit::manifest(site_dir, options, stages, assets, started))
}

/// The wall time of each stage, in milliseconds (the report shows them).
#[derive(Default)]
struct Stages(Vec<(&'static str, u64)>);

impl Stages {
    fn time<T>(&mut self, stage: &'static str, run: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let out = run();
        self.0.push((stage, started.elapsed().as_millis() as u64));
        out
    }
}
