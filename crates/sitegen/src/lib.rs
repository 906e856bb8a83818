#![doc = include_str!("../README.md")]

// The model, and the foundations every stage may use.
mod atomic;
mod cache;
pub mod config;
mod error;
mod field_check;
mod glob;
mod hash;
pub mod history;
mod mime;
pub mod model;
mod modified;
mod parallel;
mod progress;
mod resolve;
mod rule;
mod selector;
mod stage_cache;
mod uri;
mod url;
pub mod warning;
// The stages, in order (`compile` below).
mod agents;
pub mod delta;
mod emit;
mod encode;
mod fields;
mod images;
mod links;
mod optimize;
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
pub use encode::compress::compress;
pub use error::Error;
pub use mime::{HTML_DICTIONARY_PATH, SPECULATION_RULES_PATH};
pub use model::{Effort, Manifest, Options, PageDates};
pub use modified::last_modified;

use cache::Policy;
use progress::Clock;
use std::mem::take;
use std::path::Path;
use warning::Notes;

/// Compiles the site in `site_dir`.
///
/// # Errors
/// A missing, empty or unreadable site, a name no URL can reach, a bad option, a bad
/// `_headers` or `_redirects` file, or a bundle over its budget (see [`Error`]).
pub fn compile(site_dir: &Path, options: &Options) -> Result<Manifest, Error> {
    let mut clock = Clock::start();
    let (config, cache_dir) = (&options.config, options.cache_dir.as_deref());
    let (policy, history) = (Policy::of(config), options.history_dir.as_deref());
    let mut sources = clock.time("sources", || sources::read(site_dir, history))?;
    let csp = !config.headers.content_security_policy.is_empty() || sets_csp(site_dir);
    let optimized = clock.time("optimize", || {
        optimize::minify(&mut sources, &config.optimize, csp, cache_dir)
    });
    clock.time("dictionary", || {
        sources.add_html_dictionary(config.history.html_dictionary)
    })?;
    let mut routing = clock.time("routing", || {
        routing::route(site_dir, &config.site, config.compat.pages_limits, &sources)
    })?;
    let speculation = clock.time("speculation", || {
        speculation::add(&mut sources, &mut routing, &config.links, policy)
    });
    let modified = options.last_modified;
    let dates = (modified, options.page_dates, site_dir);
    let agents = clock.time("agents", || {
        agents::make(&mut sources, &mut routing, config, dates, cache_dir)
    })?;
    let mut settings = encode::Settings::new(config, policy, (cache_dir, options.effort));
    (settings.file_fields, settings.alternates) = (agents.fields, agents.alternates);
    let site = (&sources, &routing, (config, csp));
    let (images, links, ahead) = images_and_links(site, &settings, &mut clock)?;
    let assets = clock.time("encode", || {
        encode::assets(&sources, (&images, &links), &settings, &ahead)
    })?;
    let settings = delta::Settings::new(&config.compression, cache_dir);
    let assets = clock.time("delta", || delta::compute(assets, &sources, settings))?;
    let assets = clock.time("storage", || storage::store(assets, config))?;
    let field = speculation.as_ref().map(|rules| rules.field.as_str());
    let mut assets = clock.time("fields", || {
        fields::apply(assets, site_dir, &routing, field, config)
    })?;
    assets.stats.optimize = optimized.stats;
    assets.stats.agents = agents.stats;
    (assets.stats.stages, assets.stats.wall_time_ms) = clock.stop();
    // What every stage noticed, in stage order (routing and assets go on to emit).
    let (routed, stored) = (take(&mut routing.notes), take(&mut assets.notes));
    let notes = [
        sources.notes,
        optimized.notes,
        routed,
        agents.notes,
        images.notes,
        links.notes,
        stored,
    ];
    let notes = Notes::gather(notes);
    Ok(emit::manifest(
        site_dir, config, modified, routing, assets, notes,
    ))
}

/// The image stage, then the link pass with the files the build made encoded beside it
/// (`encode::ahead`: the pass changes none of them, and their encodings need nothing from it),
/// timed on their own as "encode-made". Not beside the image stage, which keeps every core
/// busy and shows its own progress. A failed link pass stops the encoding ahead.
fn images_and_links(
    (sources, routing, (config, csp)): (&sources::Sources, &routing::Routing, (&Config, bool)),
    settings: &encode::Settings<'_>,
    clock: &mut Clock,
) -> Result<(images::Images, links::Links, encode::Ahead), Error> {
    let (policy, cache_dir) = (settings.policy, settings.cache_dir);
    let images = clock.time("images", || {
        images::make(sources, &config.images, cache_dir)
    })?;
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let ahead = scope.spawn(|| Clock::timed(|| encode::ahead(sources, settings, &stop)));
        let links = clock.time("links", || {
            links::pass(sources, &images, routing, &config.links, policy, csp)
        });
        stop.store(links.is_err(), std::sync::atomic::Ordering::Relaxed);
        let (ahead, ms) = (ahead.join()).unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        clock.record("encode-made", ms);
        Ok((images, links?, ahead))
    })
}

/// Whether the site's `_headers` sets a Content-Security-Policy for any path (then no
/// stylesheet is put inline: the policy may forbid inline styles).
fn sets_csp(site_dir: &Path) -> bool {
    // As the fields stage reads it (a link out of the site is refused there, and the build
    // fails then); unreadable here: as if it set one.
    match sources::read_site_file(site_dir, "_headers") {
        Ok(Some(text)) => text
            .to_ascii_lowercase()
            .contains("content-security-policy"),
        Ok(None) => false,
        Err(_) => true,
    }
}
