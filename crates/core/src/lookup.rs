//! The lookup: request target → what the site has there, in one order, for everything that
//! asks ([`crate::decide`] and [`crate::serves`]).
//!
//! 1. the lookup key: the target's path as it is when it is canonical (no copy), else
//!    [`normalize`]d into a [`Scratch`];
//! 2. the route table (binary search): a resource, or a fixed redirect;
//! 3. the first `_redirects` rule with placeholders or a splat that matches
//!    ([`Site::matching_rule`]): a redirect, or a 200 rewrite to the resource at its destination;
//! 4. the SPA fallback, for a navigation to a path without an extension;
//! 5. nothing: the nearest folder's 404 page.

use crate::location::{query_of, Destination, Location};
use crate::path::{canonical_path, normalize, PathBuf, PathError, MAX_PATH_LEN};
use crate::request::RequestHead;
use crate::rule::Captures;
use crate::site::{Action, Asset, RedirectStatus, Site, Target};

/// Room for a request's normalized path, which a [`crate::Decision`] may borrow (a rule's
/// captures). Free to create: the buffer is only initialized for a target that is not
/// canonical already.
#[derive(Debug, Default)]
pub struct Scratch {
    path: Option<PathBuf>,
}

impl Scratch {
    /// An empty scratch.
    pub const fn new() -> Self {
        Scratch { path: None }
    }
}

/// What the site has at a path.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Found<'a, 'r> {
    /// A resource: a file or a rewrite's destination.
    Resource(&'a Asset<'a>),
    /// The SPA fallback's page, for a navigation: an answer chosen by whether the request is
    /// one, so it varies by the fields that tell (`Sec-Fetch-Mode`, `Accept`).
    App(&'a Asset<'a>),
    /// A redirect.
    Redirect {
        status: RedirectStatus,
        location: Location<'a, 'r>,
    },
    /// Nothing: 404 with this page. `claimed`: a `_redirects` rule matched (a rewrite to a
    /// path the site does not have), so the path is still the site's. `by_navigation`: a
    /// navigation would have had the SPA fallback's page instead.
    Nothing {
        page: Option<&'a Asset<'a>>,
        claimed: bool,
        by_navigation: bool,
    },
}

/// The lookup key of `target` (step 1).
fn path_of<'r>(target: &'r str, scratch: &'r mut Scratch) -> Result<&'r str, PathError> {
    // Most targets are canonical already: look them up as they are.
    match canonical_path(target) {
        Some(path) => Ok(path),
        None => normalize(target, scratch.path.insert([0; MAX_PATH_LEN])),
    }
}

/// What `site` has at `request`'s target (steps 1-5).
pub(crate) fn lookup<'a, 'r>(
    site: &'a Site<'a>,
    request: &RequestHead<'r>,
    scratch: &'r mut Scratch,
) -> Result<Found<'a, 'r>, PathError> {
    let path = path_of(request.target, scratch)?;
    let query = query_of(request.target);
    Ok(match site.route(path).map(|route| &route.target) {
        Some(Target::Asset(asset)) => Found::Resource(asset),
        Some(Target::Redirect(r)) => Found::Redirect {
            status: r.status,
            location: Location {
                destination: Destination::Fixed {
                    location: r.location,
                    query_at: r.query_at,
                },
                captures: Captures::none(),
                query,
            },
        },
        None => match site.matching_rule(path) {
            Some((rule, captures)) => by_rule(site, &rule.action, path, captures, query),
            None => fallback(site, path, request),
        },
    })
}

/// Step 3: what a matching rule leads to.
fn by_rule<'a, 'r>(
    site: &'a Site<'a>,
    action: &'a Action<'a>,
    path: &str,
    captures: Captures<'r>,
    query: Option<&'r str>,
) -> Found<'a, 'r> {
    match action {
        Action::Redirect {
            status,
            destination,
            query_at,
        } => Found::Redirect {
            status: *status,
            location: Location {
                destination: Destination::Parts {
                    parts: destination,
                    query_at: *query_at,
                },
                captures,
                query,
            },
        },
        Action::Rewrite { destination } => {
            match site
                .route_of_parts(destination, &captures)
                .map(|route| &route.target)
            {
                Some(Target::Asset(asset)) => Found::Resource(asset),
                _ => Found::Nothing {
                    page: site.not_found_page(path),
                    claimed: true,
                    by_navigation: false,
                },
            }
        }
    }
}

/// Steps 4 and 5.
fn fallback<'a, 'r>(site: &'a Site<'a>, path: &str, request: &RequestHead<'_>) -> Found<'a, 'r> {
    match site.fallback {
        Some(app) if !has_extension(path) => match request.is_navigation() {
            true => Found::App(app),
            false => Found::Nothing {
                page: site.not_found_page(path),
                claimed: false,
                by_navigation: true,
            },
        },
        _ => Found::Nothing {
            page: site.not_found_page(path),
            claimed: false,
            by_navigation: false,
        },
    }
}

/// Whether the last segment of `path` has a file extension (`/app.js`, not `/users/42`): the SPA
/// fallback never answers those, so a missing script is a 404, not HTML.
fn has_extension(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .is_some_and(|last| last.contains('.'))
}

/// Whether the site has something at the request's path, whatever the method: a route (a file
/// or a redirect), a matching `_redirects` rule, or the SPA fallback for a navigation. For a
/// Worker or server that embeds a site beside its own routes (library mode): what the site does
/// not serve goes to them. A malformed target is not the site's either.
pub fn serves(site: &Site<'_>, request: &RequestHead<'_>) -> bool {
    let mut scratch = Scratch::new();
    matches!(
        lookup(site, request, &mut scratch),
        Ok(Found::Resource(_)
            | Found::App(_)
            | Found::Redirect { .. }
            | Found::Nothing { claimed: true, .. })
    )
}
