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
//! It reads the routes, and returns the rules' bytes and field: the wiring adds the file to the
//! sources and its route to the routing, before the stages that index the files (images, links).

use crate::cache::Policy;
use crate::config::{LinksConfig, SpeculationAction};
use crate::mime::{self, SPECULATION_RULES_PATH};
use crate::model::RouteTarget;
use crate::resolve::{self, Resolved};
use crate::routing::Routing;
use crate::rule::indexed_assets;
use crate::sources::Sources;
use edgesite_core::is_path_char;
use std::sync::Arc;

/// The site's rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Speculation {
    /// The file's bytes, served at [`SPECULATION_RULES_PATH`].
    pub(crate) bytes: Arc<[u8]>,
    /// The `Speculation-Rules` field value: the file's URL as a structured-field string.
    pub(crate) field: String,
}

/// The site's rules ([`announce`]), added as a file of the site at [`SPECULATION_RULES_PATH`]
/// with its route.
pub(crate) fn add(
    sources: &mut Sources,
    routing: &mut Routing,
    links: &LinksConfig,
    policy: Policy<'_>,
) -> Option<Speculation> {
    let rules = announce(sources, routing, links, policy)?;
    let index = sources.add_made(SPECULATION_RULES_PATH, rules.bytes.clone());
    routing.add_file(SPECULATION_RULES_PATH, index);
    Some(rules)
}

/// The site's rules: `None` when `[links] speculation = "off"`, when the site has fewer than
/// two pages to speculate on, or when the site has its own file at [`SPECULATION_RULES_PATH`]
/// (served as it is, unannounced).
pub(crate) fn announce(
    sources: &Sources,
    routing: &Routing,
    links: &LinksConfig,
    policy: Policy<'_>,
) -> Option<Speculation> {
    let action = match links.speculation {
        SpeculationAction::Off => return None,
        SpeculationAction::Prefetch => "prefetch",
        SpeculationAction::Prerender => "prerender",
    };
    if sources
        .files
        .iter()
        .any(|f| f.url_path == SPECULATION_RULES_PATH)
    {
        return None;
    }
    let urls = pages(sources, routing, links);
    if urls.len() < 2 {
        return None;
    }
    let rules = serde_json::json!({
        action: [{
            "source": "list",
            "urls": urls,
            "eagerness": links.speculation_eagerness.as_str(),
        }]
    });
    let bytes = serde_json::to_vec(&rules).expect("a JSON value serializes");
    // The rules' `v`, as the encode stage will decide it (`[fingerprint]` may not cover them).
    let url = match policy.fingerprint(SPECULATION_RULES_PATH, &bytes, None) {
        Some(v) => format!("{SPECULATION_RULES_PATH}?v={v}"),
        None => SPECULATION_RULES_PATH.to_string(),
    };
    Some(Speculation {
        bytes: bytes.into(),
        field: format!("\"{url}\""),
    })
}

/// The request targets of the site's pages (see the module docs), sorted.
fn pages(sources: &Sources, routing: &Routing, links: &LinksConfig) -> Vec<String> {
    let excluded = |path: &str| {
        links
            .ignore
            .iter()
            .chain(&links.speculation_exclude)
            .any(|glob| crate::glob::matches(glob, path))
    };
    site_pages(sources, routing, &excluded)
        .into_iter()
        .map(|page| page.target)
        .collect()
}

/// A page of the site ([`site_pages`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SitePage {
    /// Its URL path, as routes hold it, and as a request target (percent-encoded).
    pub path: String,
    pub target: String,
    /// Its file.
    pub index: usize,
}

/// The site's own pages at their canonical URLs: each HTML file of the site (not a 404 page)
/// with the request target that serves it without a redirect, unless `excluded` says so of
/// that URL path; sorted by path.
pub(crate) fn site_pages(
    sources: &Sources,
    routing: &Routing,
    excluded: &dyn Fn(&str) -> bool,
) -> Vec<SitePage> {
    let candidates: Vec<SitePage> = routing
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
        .map(|(route, index)| SitePage {
            path: route.path.clone(),
            target: crate::uri::encoded(&route.path, is_path_char),
            index,
        })
        .collect();
    let assets = indexed_assets(sources.files.len());
    routing.with_core_site(&assets, |site| {
        candidates
            .into_iter()
            .filter(|page| {
                resolve::resolve(site, &page.target, true)
                    == Resolved::File {
                        index: page.index,
                        redirected_to: None,
                        permanent: true,
                    }
            })
            .collect()
    })
}
