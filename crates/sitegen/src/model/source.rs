//! Where a file's bytes come from: a path, or bytes the build made.

use crate::error::{read_bytes, Error, ShowPath as _};
use serde::{Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a file's bytes come from: a file on disk (the site's own, or a body the deploy history
/// kept for skew protection), a site file the build minified, or bytes the build made (the
/// speculation rules, the HTML dictionary). What the build makes stays in memory: nothing is
/// written to disk to be read back within the same build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A file, read when its bytes are needed.
    File(PathBuf),
    /// A site file whose bytes the optimize stage minified.
    Optimized {
        /// The file, as `File`'s: what warnings and the manifest name.
        path: PathBuf,
        /// What the build serves.
        bytes: Arc<[u8]>,
    },
    /// Bytes the build made.
    Made(Arc<[u8]>),
}

impl Source {
    /// Its bytes.
    ///
    /// # Errors
    /// A file that cannot be read, naming it.
    pub fn read(&self) -> Result<Cow<'_, [u8]>, Error> {
        match self {
            Source::File(path) => read_bytes(path).map(Cow::Owned),
            Source::Optimized { bytes, .. } | Source::Made(bytes) => Ok(Cow::Borrowed(bytes)),
        }
    }

    /// The file's path (`None`: made by the build). An optimised file's bytes are not its.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::File(path) | Source::Optimized { path, .. } => Some(path),
            Source::Made(_) => None,
        }
    }

    /// The bytes in memory, the build's own (`None`: a file, read when needed).
    pub fn in_memory(&self) -> Option<&[u8]> {
        match self {
            Source::File(_) => None,
            Source::Optimized { bytes, .. } | Source::Made(bytes) => Some(bytes),
        }
    }

    /// The file's bytes as the site has them, before the optimize stage (where a warning finds
    /// the author's line).
    ///
    /// # Errors
    /// A file that cannot be read, naming it.
    pub fn original(&self) -> Result<Cow<'_, [u8]>, Error> {
        match self {
            Source::Optimized { path, .. } => read_bytes(path).map(Cow::Owned),
            other => other.read(),
        }
    }

    /// The bytes the build made (`None`: a file).
    pub fn made(&self) -> Option<&[u8]> {
        match self {
            Source::File(_) | Source::Optimized { .. } => None,
            Source::Made(bytes) => Some(bytes),
        }
    }

    /// Where its bytes are: in memory, or its file (not read).
    pub(crate) fn body(&self) -> Body<'_> {
        match self {
            Source::File(path) => Body::File(path),
            Source::Optimized { bytes, .. } | Source::Made(bytes) => Body::Bytes(bytes),
        }
    }

    /// Its length in bytes without reading a file (`None`: a file whose metadata cannot be read).
    pub(crate) fn len(&self) -> Option<u64> {
        match self {
            Source::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
            Source::Optimized { bytes, .. } | Source::Made(bytes) => Some(bytes.len() as u64),
        }
    }
}

/// Where a body's bytes are: in memory, or a file on disk, which the stages that may meet one
/// larger than memory (the deploy history, the boundary's search, the store's objects) read a
/// piece at a time or copy, never whole.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Body<'a> {
    Bytes(&'a [u8]),
    File(&'a Path),
}

/// As errors and warnings show it: a file's path escaped (see `error::shown`), or what made it.
impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::File(path) | Source::Optimized { path, .. } => path.shown().fmt(f),
            Source::Made(_) => f.write_str("(made by the build)"),
        }
    }
}

/// In `manifest.json`: a file's path, or `null` for bytes the build made.
impl Serialize for Source {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Source::File(path) | Source::Optimized { path, .. } => path.serialize(serializer),
            Source::Made(_) => serializer.serialize_none(),
        }
    }
}

/// Whether the walk leaves out the file or folder named `name`: a dotfile (an editor's, the
/// system's, a repository's), but `.well-known` (RFC 8615).
pub(crate) fn hidden(name: &str) -> bool {
    name.starts_with('.') && name != ".well-known"
}
