//! The walk: every file of the site, in a deterministic order, with `/`-separated URL paths.
//!
//! - Entries are sorted by name (bytes), so two builds of one tree emit identical tables.
//! - Dotfiles and dot-directories are skipped, except `.well-known/` (RFC 8615), and so are the
//!   root's `_headers` and `_redirects` files, which configure the site.
//! - Symbolic links are followed only when they lead inside the site; a link outside it, or one
//!   that leads back to a parent directory (a loop), is a build error. So is anything that is
//!   neither a file nor a folder (a FIFO, a device, a socket): reading one could block or never
//!   end.
//! - A name with a control character (a line break, a tab, macOS's `Icon\r`) is skipped with a
//!   warning: no URL should carry one, and every log line that names it could be forged by it.
//! - The site's configuration files (`_headers`, `_redirects`) are read through
//!   [`read_site_file`], which holds them to the same boundary.

use crate::error::{shown, Error};
use crate::model::Source;
use crate::warning::{Warning, WarningKind};
use std::fs;
use std::path::{Path, PathBuf};

/// One file found by the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The URL path, e.g. `/docs/index.html`.
    pub(crate) url_path: String,
    /// Where its bytes come from.
    pub(crate) source: Source,
}

/// What the walk saw: the files, every directory (for `cargo:rerun-if-changed`), and a warning
/// for each entry skipped.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    pub(crate) files: Vec<Found>,
    pub(crate) dirs: Vec<PathBuf>,
    pub(crate) warnings: Vec<Warning>,
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
    entries.sort_by_cached_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry
            .file_name()
            .into_string()
            .map_err(|_| Error::NotUtf8 { path: path.clone() })?;
        if skipped(&name, url_dir, &path, walk)? {
            continue;
        }
        let url_path = format!("{url_dir}/{name}");
        let target = resolve(&path, root)?;
        let kind = fs::metadata(&target).map_err(|source| Error::Read {
            path: path.clone(),
            source,
        })?;
        if !kind.is_dir() && !kind.is_file() {
            return Err(Error::Unservable {
                path,
                reason: "it is neither a file nor a folder (a FIFO, a device or a socket)",
            });
        }
        if kind.is_dir() {
            if ancestors.contains(&target) {
                return Err(Error::SymlinkLoop { path });
            }
            ancestors.push(target);
            visit(&path, &url_path, root, ancestors, walk)?;
            ancestors.pop();
        } else {
            walk.files.push(Found {
                url_path,
                source: Source::File(path),
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

/// Whether the entry `name` (at `path`, in the folder served at `url_dir`) is left out:
/// dotfiles but `.well-known`, the root's configuration files, and names with a control
/// character (with a warning); a name with a backslash or NUL is an error.
fn skipped(name: &str, url_dir: &str, path: &Path, walk: &mut Walk) -> Result<bool, Error> {
    if crate::model::hidden(name) {
        return Ok(true);
    }
    // Configuration files in the site's root (Cloudflare Pages conventions), not content.
    if url_dir.is_empty() && (name == "_headers" || name == "_redirects") {
        return Ok(true);
    }
    if name.contains(['\\', '\0']) {
        return Err(Error::Unservable {
            path: path.to_path_buf(),
            reason: "its name contains a backslash or NUL, which edgesite rejects in URLs",
        });
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        let message =
            format!("skipped: its name has the control character {c:?}, which no URL should carry");
        let warning = Warning::new(WarningKind::SkippedName, message).in_file(shown(path));
        walk.warnings.push(warning);
        return Ok(true);
    }
    Ok(false)
}

/// The most bytes a configuration file of the site (`_headers`, `_redirects`) may have: far
/// above any real one (100,000 rules fit), far below what could exhaust the build's memory.
pub(crate) const MAX_SITE_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// The text of the file `name` in the site's root folder (`_headers`, `_redirects`), if it has
/// one: held to the walk's boundary (a symbolic link must lead inside the site, and to a file,
/// never a FIFO or a device), at most [`MAX_SITE_FILE_BYTES`], UTF-8 (a byte order mark is
/// dropped). An error names the file, never what a link leads to holds.
pub(crate) fn read_site_file(site_dir: &Path, name: &str) -> Result<Option<String>, Error> {
    let path = site_dir.join(name);
    if fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let root = fs::canonicalize(site_dir).map_err(|source| Error::Read {
        path: site_dir.to_path_buf(),
        source,
    })?;
    let target = resolve(&path, &root)?;
    let read_error = |source| Error::Read {
        path: path.clone(),
        source,
    };
    let metadata = fs::metadata(&target).map_err(read_error)?;
    if !metadata.is_file() {
        return Err(Error::Unservable {
            path,
            reason: "it is not a file (a folder, a FIFO, a device or a socket)",
        });
    }
    if metadata.len() > MAX_SITE_FILE_BYTES {
        return Err(Error::Unservable {
            path,
            reason: "it is larger than 32 MiB",
        });
    }
    let bytes = fs::read(&target).map_err(read_error)?;
    let text = String::from_utf8(bytes).map_err(|e| Error::Config {
        path: path.clone(),
        line: line_of_byte(e.as_bytes(), e.utf8_error().valid_up_to()),
        message: "not UTF-8 text".into(),
    })?;
    Ok(Some(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    }))
}

/// The 1-based line of byte `at` of `bytes`.
fn line_of_byte(bytes: &[u8], at: usize) -> usize {
    1 + bytes[..at].iter().filter(|&&b| b == b'\n').count()
}
