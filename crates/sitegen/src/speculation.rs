//! The speculation stage (`[links] speculation`): one Speculation Rules file for the whole site
//! (WICG nav-speculation, "Speculation rules"), served at [`SPECULATION_RULES_PATH`] as
//! `application/speculationrules+json`, and announced on every HTML response by a
//! `Speculation-Rules` field (nav-speculation §"The Speculation-Rules header": a structured
//! list of strings, RFC 8941) whose URL carries the file's `v=` fingerprint, so the file is
//! answered `immutable` and a new deploy's pages name the new file.
//!
//! The rules are one list rule whose `urls` are exactly the site's pages: every route that
//! serves an HTML file of the site, kept only when edgesite-core's own answer to a navigation
//! there is that file with a 200 (no redirect, no `_redirects` rule, no fallback in between),
//! and never a `404.html`, a path of `[links] ignore` (which in library mode names the Worker's
//! own routes) or of `[links] speculation_exclude`. A list rule with `moderate` eagerness acts
//! on a link to one of its URLs when the pointer rests on it: the browser only ever fetches a
//! page the site serves, and only when a visitor is about to click it.
//!
//! It runs after routing (it reads the routes) and before the images (which index the files):
//! it adds the file to the sources and its route to the routing.

use crate::cache;
use crate::config::SpeculationAction;
use crate::error::Error;
use crate::etag;
use crate::mime::{self, SPECULATION_RULES_PATH};
use crate::model::{Options, Route, RouteTarget};
use crate::resolve::{self, Resolved};
use crate::routing::Routing;
use crate::rule::indexed_assets;
use crate::sources::{Found, Sources};
use edgesite_core::is_path_char;

/// The site's rules, once added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Speculation {
    /// The `Speculation-Rules` field value: the file's URL as a structured-field string.
    pub(crate) field: String,
}

/// Builds the rules and adds their file to `sources` and its route to `routing`. `None` when
/// `[links] speculation = "off"`, when the site has fewer than two pages to speculate on, or
/// when the site has its own file at [`SPECULATION_RULES_PATH`] (served as it is, unannounced).
pub(crate) fn add(
    sources: &mut Sources,
    routing: &mut Routing,
    options: &Options,
) -> Result<Option<Speculation>, Error> {
    let links = &options.config.links;
    let action = match links.speculation {
        SpeculationAction::Off => return Ok(None),
        SpeculationAction::Prefetch => "prefetch",
        SpeculationAction::Prerender => "prerender",
    };
    if sources
        .files
        .iter()
        .any(|f| f.url_path == SPECULATION_RULES_PATH)
    {
        return Ok(None);
    }
    let urls = pages(sources, routing, options);
    if urls.len() < 2 {
        return Ok(None);
    }
    let rules = serde_json::json!({
        action: [{
            "source": "list",
            "urls": urls,
            "eagerness": links.speculation_eagerness.as_str(),
        }]
    });
    let bytes = serde_json::to_vec(&rules).expect("a JSON value serializes");
    let source = write(options, &bytes)?;
    let index = sources.files.len();
    sources.files.push(Found {
        url_path: SPECULATION_RULES_PATH.into(),
        source,
    });
    for table in [&mut routing.served, &mut routing.routes] {
        add_route(table, index);
    }
    let url = match fingerprint(&bytes, options) {
        Some(v) => format!("{SPECULATION_RULES_PATH}?v={v}"),
        None => SPECULATION_RULES_PATH.to_string(),
    };
    Ok(Some(Speculation {
        field: format!("\"{url}\""),
    }))
}

/// The request targets of the site's pages (see the module docs), sorted.
fn pages(sources: &Sources, routing: &Routing, options: &Options) -> Vec<String> {
    let links = &options.config.links;
    let excluded = |path: &str| {
        links
            .ignore
            .iter()
            .chain(&links.speculation_exclude)
            .any(|glob| crate::glob::matches(glob, path))
    };
    let candidates: Vec<(String, usize)> = routing
        .routes
        .iter()
        .filter_map(|route| match route.target {
            RouteTarget::Asset(i) if i < sources.own => Some((route, i)),
            _ => None,
        })
        .filter(|(route, i)| {
            let file = &sources.files[*i].url_path;
            mime::content_type(file).starts_with("text/html")
                && !file.ends_with("/404.html")
                && !excluded(&route.path)
        })
        .map(|(route, i)| (crate::uri::encoded(&route.path, is_path_char), i))
        .collect();
    let assets = indexed_assets(sources.files.len());
    routing.with_core_site(&assets, |site| {
        candidates
            .into_iter()
            .filter(|(target, i)| {
                resolve::resolve(site, target, true)
                    == Resolved::File {
                        index: *i,
                        redirected_to: None,
                        permanent: true,
                    }
            })
            .map(|(target, _)| target)
            .collect()
    })
}

/// The rules' `v`, as the encode stage will decide it (`[fingerprint]` may not cover them).
fn fingerprint(bytes: &[u8], options: &Options) -> Option<String> {
    let sha256 = etag::sha256(bytes);
    let path = SPECULATION_RULES_PATH;
    let config = &options.config.cache;
    let (_, reason) = cache::cache_control(config, path, mime::content_type(path), bytes, &sha256);
    let fingerprint = &options.config.fingerprint;
    cache::fingerprint_of(path, reason, &etag::hex(&sha256), fingerprint).map(str::to_string)
}

/// Writes the rules to the build cache (or the temporary folder), named by their hash, whole
/// (another build of the same site may be reading the file: a rename, never a truncation).
fn write(options: &Options, bytes: &[u8]) -> Result<std::path::PathBuf, Error> {
    let sha256 = etag::hex(&etag::sha256(bytes));
    let dir = options.cache_dir.clone().unwrap_or_else(std::env::temp_dir);
    let name = format!("speculation-rules-{sha256}.json");
    crate::atomic::write_atomically(&dir, &name, bytes).map_err(|e| Error::Read {
        path: dir.join(&name),
        source: e,
    })?;
    Ok(dir.join(name))
}

/// Adds the rules file's route to a route table, kept sorted for the core's binary search.
fn add_route(table: &mut Vec<Route>, index: usize) {
    if let Err(at) = table.binary_search_by(|r| r.path.as_str().cmp(SPECULATION_RULES_PATH)) {
        table.insert(
            at,
            Route {
                path: SPECULATION_RULES_PATH.into(),
                target: RouteTarget::Asset(index),
            },
        );
    }
}
