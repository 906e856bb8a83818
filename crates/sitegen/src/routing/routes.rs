//! The route table: every request path the site answers, decided at build time.
//!
//! - every file at its own path (`/app.js`);
//! - a folder's `index.html` at the folder's path with a trailing slash (`/docs/`, `/`), and the
//!   folder's path without the slash (`/docs`) as a 308 redirect to it, so relative links in the
//!   page resolve against the folder; with `trailing_slash = "never"` the other way round
//!   (`/docs` serves, `/docs/` redirects);
//! - with clean URLs (the default): `/about` serves `about.html`, and `/about.html` redirects
//!   (308) to `/about`; `/docs/index.html` redirects to `/docs/`. One URL per page, as Cloudflare
//!   Pages does. An exact file always wins over a redirect or a clean URL.
//!
//! Redirect locations are percent-encoded. The table is sorted by path (byte order) for
//! `edgesite_core::Site::route`'s binary search.

use crate::config::TrailingSlash;
use crate::model::{Route, RouteTarget};
use crate::uri::encoded;
use edgesite_core::{is_path_char, RedirectStatus};
use std::collections::{BTreeMap, BTreeSet};

pub(crate) fn routes(
    paths: &[&str],
    clean_urls: bool,
    trailing_slash: TrailingSlash,
) -> Vec<Route> {
    let mut table = BTreeMap::new();
    let exact: BTreeSet<&str> = paths.iter().copied().collect();
    // Files whose own path became a redirect to their clean URL.
    let mut canonicalized = BTreeSet::new();
    // Folders and clean URLs first, so a file with the same path replaces them below.
    for (index, &path) in paths.iter().enumerate() {
        if let Some(folder) = path.strip_suffix("index.html").filter(|f| f.ends_with('/')) {
            let bare = folder.trim_end_matches('/');
            // The canonical folder URL serves the index; the other spelling redirects to it.
            let canonical = match trailing_slash {
                TrailingSlash::Never if folder != "/" => {
                    table.insert(bare.to_string(), RouteTarget::Asset(index));
                    table.insert(folder.to_string(), canonical_redirect(bare));
                    bare
                }
                _ => {
                    table.insert(folder.to_string(), RouteTarget::Asset(index));
                    if folder != "/" {
                        table.insert(bare.to_string(), canonical_redirect(folder));
                    }
                    folder
                }
            };
            if clean_urls {
                table.insert(path.to_string(), canonical_redirect(canonical));
                canonicalized.insert(index);
            }
        } else if let Some(clean) = path.strip_suffix(".html").filter(|_| clean_urls) {
            // A file under `clean/`: the first path from `clean/` on in the sorted set (one
            // lookup, where asking every path made the stage quadratic in the site's files).
            let folder = format!("{clean}/");
            let folder_exists = exact
                .range::<&str, _>(folder.as_str()..)
                .next()
                .is_some_and(|p| p.starts_with(&folder));
            if !exact.contains(clean) && !folder_exists {
                table.insert(clean.to_string(), RouteTarget::Asset(index));
                table.insert(path.to_string(), canonical_redirect(clean));
                canonicalized.insert(index);
            }
        }
    }
    for (index, &path) in paths.iter().enumerate() {
        if !canonicalized.contains(&index) {
            table.insert(path.to_string(), RouteTarget::Asset(index));
        }
    }
    table
        .into_iter()
        .map(|(path, target)| Route { path, target })
        .collect()
}

/// A 308 to the canonical spelling of a URL (RFC 9110 §15.4.9), keeping the request's query.
/// The Location is the path as a URI path (RFC 3986 §3.3, [`is_path_char`]): ASCII.
fn canonical_redirect(path: &str) -> RouteTarget {
    let location = encoded(path, is_path_char);
    RouteTarget::Redirect {
        status: RedirectStatus::PermanentRedirect,
        query_at: Some(location.len()),
        location,
    }
}

#[cfg(test)]
pub(crate) mod tests_support {
    /// The canonical-URL redirect `routes` makes, for other modules' tests.
    pub(crate) fn canonical(path: &str) -> crate::model::RouteTarget {
        super::canonical_redirect(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str) -> &str {
        path
    }

    fn table(files: &[&str], clean_urls: bool) -> Vec<(String, RouteTarget)> {
        routes(files, clean_urls, TrailingSlash::Always)
            .into_iter()
            .map(|r| (r.path, r.target))
            .collect()
    }

    fn redirect(to: &str) -> RouteTarget {
        canonical_redirect(to)
    }

    #[test]
    fn without_clean_urls_folders_serve_their_index_and_redirect_without_the_slash() {
        let files = [
            file("/index.html"),
            file("/docs/index.html"),
            file("/docs/page.html"),
        ];
        assert_eq!(
            table(&files, false),
            [
                ("/".into(), RouteTarget::Asset(0)),
                ("/docs".into(), redirect("/docs/")),
                ("/docs/".into(), RouteTarget::Asset(1)),
                ("/docs/index.html".into(), RouteTarget::Asset(1)),
                ("/docs/page.html".into(), RouteTarget::Asset(2)),
                ("/index.html".into(), RouteTarget::Asset(0)),
            ]
        );
    }

    #[test]
    fn clean_urls_give_each_page_one_url() {
        let files = [
            file("/about.html"),
            file("/docs/index.html"),
            file("/index.html"),
        ];
        assert_eq!(
            table(&files, true),
            [
                ("/".into(), RouteTarget::Asset(2)),
                ("/about".into(), RouteTarget::Asset(0)),
                ("/about.html".into(), redirect("/about")),
                ("/docs".into(), redirect("/docs/")),
                ("/docs/".into(), RouteTarget::Asset(1)),
                ("/docs/index.html".into(), redirect("/docs/")),
                ("/index.html".into(), redirect("/")),
            ]
        );
    }

    #[test]
    fn a_clean_url_yields_to_a_file_or_folder_of_that_name() {
        let files = [
            file("/a"),
            file("/a.html"),
            file("/b.html"),
            file("/b/x.txt"),
        ];
        let t = table(&files, true);
        assert!(t.contains(&("/a".into(), RouteTarget::Asset(0))));
        assert!(t.contains(&("/a.html".into(), RouteTarget::Asset(1))));
        assert!(t.contains(&("/b.html".into(), RouteTarget::Asset(2))));
        assert!(!t.iter().any(|(p, _)| p == "/b"));
    }

    #[test]
    fn only_a_folder_of_that_very_name_stops_a_clean_url() {
        // Folders whose names sort right before and after `c/` (`-` < `/` < `0`): neither is `c/`.
        let files = [file("/c-/x.txt"), file("/c.html"), file("/c0/y.txt")];
        let t = table(&files, true);
        assert!(t.contains(&("/c".into(), RouteTarget::Asset(1))));
    }

    #[test]
    fn trailing_slash_never_makes_the_bare_folder_canonical() {
        let files = [file("/docs/index.html"), file("/index.html")];
        let table: Vec<_> = routes(&files, true, TrailingSlash::Never)
            .into_iter()
            .map(|r| (r.path, r.target))
            .collect();
        assert_eq!(
            table,
            [
                ("/".into(), RouteTarget::Asset(1)),
                ("/docs".into(), RouteTarget::Asset(0)),
                ("/docs/".into(), redirect("/docs")),
                ("/docs/index.html".into(), redirect("/docs")),
                ("/index.html".into(), redirect("/")),
            ]
        );
    }

    #[test]
    fn a_file_named_like_the_folder_wins_over_the_redirect() {
        let files = [file("/docs"), file("/docs/index.html")];
        let docs = routes(&files, true, TrailingSlash::Always)
            .into_iter()
            .find(|r| r.path == "/docs")
            .unwrap();
        assert_eq!(docs.target, RouteTarget::Asset(0));
    }

    #[test]
    fn locations_are_percent_encoded() {
        let RouteTarget::Redirect { location, .. } = canonical_redirect("/café dir/") else {
            panic!("a redirect")
        };
        assert_eq!(location, "/caf%C3%A9%20dir/");
    }
}
