//! The walk: every file of the site, in a deterministic order, with `/`-separated URL paths.
//!
//! - Entries are sorted by name (bytes), so two builds of one tree emit identical tables.
//! - Dotfiles and dot-directories are skipped, except `.well-known/` (RFC 8615), and so are the
//!   root's `_headers` and `_redirects` files, which configure the site.
//! - Symbolic links are followed only when they lead inside the site; a link outside it, or one
//!   that leads back to a parent directory (a loop), is a build error.

use crate::error::Error;
use std::fs;
use std::path::{Path, PathBuf};

/// One file found by the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The URL path, e.g. `/docs/index.html`.
    pub(crate) url_path: String,
    /// Where to read it.
    pub(crate) source: PathBuf,
}

/// What the walk saw: the files, and every directory (for `cargo:rerun-if-changed`).
#[derive(Debug, Default)]
pub(crate) struct Walk {
    pub(crate) files: Vec<Found>,
    pub(crate) dirs: Vec<PathBuf>,
}

/// Walks `root`, which must be a directory.
pub(crate) fn walk(root: &Path) -> Result<Walk, Error> {
    let canonical_root = fs::canonicalize(root).map_err(|_| Error::NotADirectory {
        path: root.to_path_buf(),
    })?;
    if !canonical_root.is_dir() {
        return Err(Error::NotADirectory {
            path: root.to_path_buf(),
        });
    }
    let mut walk = Walk::default();
    let mut ancestors = vec![canonical_root.clone()];
    visit(root, "", &canonical_root, &mut ancestors, &mut walk)?;
    Ok(walk)
}

fn visit(
    dir: &Path,
    url_dir: &str,
    root: &Path,
    ancestors: &mut Vec<PathBuf>,
    walk: &mut Walk,
) -> Result<(), Error> {
    walk.dirs.push(dir.to_path_buf());
    let read_error = |source| Error::Read {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries = fs::read_dir(dir)
        .map_err(read_error)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(read_error)?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry
            .file_name()
            .into_string()
            .map_err(|_| Error::NotUtf8 { path: path.clone() })?;
        if name.starts_with('.') && name != ".well-known" {
            continue;
        }
        // Configuration files in the site's root (Cloudflare Pages conventions), not content.
        if url_dir.is_empty() && (name == "_headers" || name == "_redirects") {
            continue;
        }
        if name.contains(['\\', '\0']) {
            return Err(Error::Unservable {
                path,
                reason: "its name contains a backslash or NUL, which edgesite rejects in URLs",
            });
        }
        let url_path = format!("{url_dir}/{name}");
        let target = resolve(&path, root)?;
        if target.is_dir() {
            if ancestors.contains(&target) {
                return Err(Error::SymlinkLoop { path });
            }
            ancestors.push(target);
            visit(&path, &url_path, root, ancestors, walk)?;
            ancestors.pop();
        } else {
            walk.files.push(Found {
                url_path,
                source: path,
            });
        }
    }
    Ok(())
}

/// The canonical path `path` stands for, which must be inside `root`.
fn resolve(path: &Path, root: &Path) -> Result<PathBuf, Error> {
    let target = fs::canonicalize(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    if !target.starts_with(root) {
        return Err(Error::SymlinkOutside {
            path: path.to_path_buf(),
            target,
        });
    }
    Ok(target)
}
