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
    let started = Instant::now();
    let mut clock = Stages::default();
    let mut sources = clock.time("sources", || sources::read(site_dir, options))?;
    let mut routing = clock.time("routing", || routing::route(site_dir, options, &sources))?;
    let speculation = clock.time("speculation", || {
        speculation::add(&mut sources, &mut routing, options)
    })?;
    let images = clock.time("images", || images::make(&sources, options))?;
    let links = clock.time("links", || {
        links::pass(&sources, &images, &routing, options)
    })?;
    let assets = clock.time("encode", || {
        encode::encode(&sources, images, &links, options)
    })?;
    let assets = clock.time("delta", || delta::add(assets, &sources, options))?;
    let assets = clock.time("storage", || storage::store(assets, options))?;
    let mut assets = clock.time("fields", || {
        fields::apply(assets, site_dir, &routing, speculation.as_ref(), options)
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
