//! The route table: every request path the site answers, decided at build time.
//!
//! - every file at its own path (`/about.html`);
//! - a folder's `index.html` also at the folder's path with a trailing slash (`/docs/`, `/`);
//! - the folder's path without the slash (`/docs`) as a 308 redirect to `/docs/`, so relative
//!   links inside the page resolve against the folder (unless a file has that exact path).
//!
//! The table is sorted by path (byte order) for `edgesite_core::Site::route`'s binary search.

use crate::{File, Route, RouteTarget};
use std::collections::BTreeMap;

pub(crate) fn routes(files: &[File]) -> Vec<Route> {
    let mut table = BTreeMap::new();
    for (index, file) in files.iter().enumerate() {
        table.insert(file.path.clone(), RouteTarget::File(index));
    }
    for (index, file) in files.iter().enumerate() {
        let Some(folder) = file.path.strip_suffix("index.html") else {
            continue;
        };
        if !folder.ends_with('/') {
            continue; // e.g. /notindex.html
        }
        table
            .entry(folder.to_string())
            .or_insert(RouteTarget::File(index));
        if folder != "/" {
            let bare = folder.trim_end_matches('/').to_string();
            table
                .entry(bare)
                .or_insert_with(|| RouteTarget::Redirect(percent_encode_path(folder)));
        }
    }
    table
        .into_iter()
        .map(|(path, target)| Route { path, target })
        .collect()
}

/// A path as a URI path (RFC 3986 §3.3): unreserved characters, sub-delims, `:`, `@` and `/`
/// stay, every other byte becomes `%XX`. Used for Location, whose value must be ASCII.
pub(crate) fn percent_encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn file(path: &str) -> File {
        File {
            path: path.to_string(),
            source: PathBuf::from(path),
            content_type: "text/html; charset=utf-8",
            cache_control: "no-cache",
            size: 0,
            sha256: String::new(),
            etag: String::new(),
        }
    }

    #[test]
    fn folders_serve_their_index_and_redirect_without_the_slash() {
        let files = [
            file("/index.html"),
            file("/docs/index.html"),
            file("/docs/notindex.html"),
        ];
        let table: Vec<_> = routes(&files)
            .into_iter()
            .map(|r| (r.path, r.target))
            .collect();
        assert_eq!(
            table,
            [
                ("/".into(), RouteTarget::File(0)),
                ("/docs".into(), RouteTarget::Redirect("/docs/".into())),
                ("/docs/".into(), RouteTarget::File(1)),
                ("/docs/index.html".into(), RouteTarget::File(1)),
                ("/docs/notindex.html".into(), RouteTarget::File(2)),
                ("/index.html".into(), RouteTarget::File(0)),
            ]
        );
    }

    #[test]
    fn a_file_named_like_the_folder_wins_over_the_redirect() {
        let files = [file("/docs"), file("/docs/index.html")];
        let docs = routes(&files)
            .into_iter()
            .find(|r| r.path == "/docs")
            .unwrap();
        assert_eq!(docs.target, RouteTarget::File(0));
    }

    #[test]
    fn locations_are_percent_encoded() {
        assert_eq!(percent_encode_path("/café dir/"), "/caf%C3%A9%20dir/");
    }
}
