//! The routing stage: the site's routing, decided from its paths before any file is read. Every
//! file's routes (clean URLs, folder URLs, their canonical redirects), the `_redirects` rules
//! (fixed ones become routes, the others are matched at run time), and the SPA fallback.

pub(crate) mod redirects;
mod routes;

#[cfg(test)]
pub(crate) use routes::tests_support;

use crate::config::SiteConfig;
use crate::error::Error;
use crate::field_check::check_value;
use crate::model::{RedirectRule, Route, RouteTarget, RuleIndexNode};
use crate::sources::{read_site_file, Sources};
use crate::warning::Notes;
use std::path::Path;

/// The site's routing.
pub(crate) struct Routing {
    /// The routes of the files alone (what `_headers` matches against).
    pub(crate) served: Vec<Route>,
    /// With `_redirects` applied.
    pub(crate) routes: Vec<Route>,
    /// The `_redirects` rules matched at run time, and their index.
    pub(crate) redirects: redirects::Applied,
    /// The index of the SPA fallback's file, if one is configured.
    pub(crate) fallback: Option<usize>,
    /// `_redirects`, when the site has one (for `cargo:rerun-if-changed`), and its warnings.
    pub(crate) notes: Notes,
}

impl Routing {
    /// Adds a route from `path` to the file at `index` (a file the build made), to both
    /// tables, kept sorted for the core's binary search; a path already routed keeps its route.
    pub(crate) fn add_file(&mut self, path: &str, index: usize) {
        self.add_files(&[(path.to_string(), index)]);
    }

    /// [`Routing::add_file`] for each of `files` (a path, and the index of its file), in one
    /// pass: inserted one at a time, the agents stage's 100,000 twins moved the tables' tail
    /// 100,000 times (72 s of a rebuild, docs/benchmarks.md "Many files").
    pub(crate) fn add_files(&mut self, files: &[(String, usize)]) {
        for table in [&mut self.served, &mut self.routes] {
            let fresh: Vec<Route> = (files.iter())
                .filter(|(path, _)| {
                    (table.binary_search_by(|r| r.path.as_str().cmp(path))).is_err()
                })
                .map(|(path, index)| Route {
                    path: path.clone(),
                    target: RouteTarget::Asset(*index),
                })
                .collect();
            table.extend(fresh);
            // Stable: of one path, the route that was there, then the first given, is kept.
            table.sort_by(|a, b| a.path.cmp(&b.path));
            table.dedup_by(|later, kept| later.path == kept.path);
        }
    }

    /// Whether a route of its own (a file's, a fixed redirect's) answers `path`.
    pub(crate) fn routes_path(&self, path: &str) -> bool {
        (self.routes)
            .binary_search_by(|r| r.path.as_str().cmp(path))
            .is_ok()
    }

    /// The rules matched at run time.
    pub(crate) fn rules(&self) -> &[RedirectRule] {
        &self.redirects.rules
    }

    /// Their index.
    pub(crate) fn index(&self) -> &[RuleIndexNode] {
        &self.redirects.index
    }

    /// `f` run with edgesite-core's site over these routes, rules and fallback, whose assets are
    /// `assets` (the link pass and the speculation stage ask the core where a target leads).
    pub(crate) fn with_core_site<T>(
        &self,
        assets: &[edgesite_core::Asset<'static>],
        f: impl FnOnce(&edgesite_core::Site<'_>) -> T,
    ) -> T {
        crate::rule::with_core_site_of(
            &self.routes,
            self.rules(),
            self.index(),
            assets,
            self.fallback,
            f,
        )
    }
}

/// The routes of the site's files (`[site]`: clean URLs, trailing slashes), `_redirects`
/// applied (held to Cloudflare Pages' caps with `pages_limits`), and the SPA fallback.
pub(crate) fn route(
    site_dir: &Path,
    site: &SiteConfig,
    pages_limits: bool,
    sources: &Sources,
) -> Result<Routing, Error> {
    let paths: Vec<&str> = sources.files.iter().map(|f| f.url_path.as_str()).collect();
    let served = routes::routes(&paths, site.clean_urls, site.trailing_slash);
    let mut routes = served.clone();
    let file = site_dir.join("_redirects");
    let mut redirects = redirects::Applied::default();
    let mut notes = Notes::default();
    if let Some(text) = read_site_file(site_dir, "_redirects")? {
        redirects = redirects::apply(&text, &file, &mut routes, pages_limits)?;
        notes.warnings = std::mem::take(&mut redirects.warnings);
        notes.tracked.push(file);
    }
    let fallback = spa_fallback(site_dir, site, &paths)?;
    check_locations(&routes)?;
    Ok(Routing {
        served,
        routes,
        redirects,
        fallback,
        notes,
    })
}

/// Every fixed redirect's Location, made from a file's name or a `_redirects` rule, is a field
/// value (`field_check.rs`) that a browser reads as this site's path or the URL written, never as
/// another host (`edgesite_core::is_network_path`).
fn check_locations(routes: &[Route]) -> Result<(), Error> {
    for route in routes {
        let RouteTarget::Redirect { location, .. } = &route.target else {
            continue;
        };
        let checked = check_value(location).and_then(|()| {
            match edgesite_core::is_network_path(location.as_bytes()) {
                true => Err("browsers would read it as another host".to_string()),
                false => Ok(()),
            }
        });
        checked.map_err(|message| Error::Field {
            path: route.path.clone(),
            name: "location".into(),
            message,
        })?;
    }
    Ok(())
}

/// The index of the SPA fallback's file, if one is configured.
fn spa_fallback(
    site_dir: &Path,
    site: &SiteConfig,
    paths: &[&str],
) -> Result<Option<usize>, Error> {
    let Some(path) = &site.spa_fallback else {
        return Ok(None);
    };
    let index = paths.iter().position(|p| p == path);
    index.map(Some).ok_or_else(|| Error::MissingFallback {
        path: path.clone(),
        site: site_dir.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asset(path: &str, index: usize) -> Route {
        Route {
            path: path.to_string(),
            target: RouteTarget::Asset(index),
        }
    }

    /// Files added at once are routed as if added one by one: both tables sorted, a path
    /// already routed keeping its route, the first of two given for one path winning.
    #[test]
    fn files_added_at_once_are_sorted_in_and_never_replace_a_route() {
        let table = vec![asset("/a", 0), asset("/c", 1), asset("/e", 2)];
        let mut routing = Routing {
            served: table.clone(),
            routes: table,
            redirects: redirects::Applied::default(),
            fallback: None,
            notes: Notes::default(),
        };
        let files = [
            ("/d".to_string(), 3),
            ("/c".to_string(), 4),
            ("/b".to_string(), 5),
            ("/d".to_string(), 6),
            ("/f".to_string(), 7),
        ];
        routing.add_files(&files);
        let mut one_by_one = Routing {
            served: vec![asset("/a", 0), asset("/c", 1), asset("/e", 2)],
            routes: vec![asset("/a", 0), asset("/c", 1), asset("/e", 2)],
            redirects: redirects::Applied::default(),
            fallback: None,
            notes: Notes::default(),
        };
        for (path, index) in &files {
            let table = &mut one_by_one.routes;
            if let Err(at) = table.binary_search_by(|r| r.path.as_str().cmp(path)) {
                table.insert(at, asset(path, *index));
            }
        }
        let expected: Vec<Route> = [
            ("/a", 0),
            ("/b", 5),
            ("/c", 1),
            ("/d", 3),
            ("/e", 2),
            ("/f", 7),
        ]
        .iter()
        .map(|&(p, i)| asset(p, i))
        .collect();
        assert_eq!(routing.routes, expected);
        assert_eq!(routing.served, expected);
        assert_eq!(one_by_one.routes, expected);
    }
}
