//! Where a file's bytes come from: a path, or bytes the build made.

use crate::error::{read_bytes, Error, ShowPath as _};
use serde::{Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a file's bytes come from: a file on disk (the site's own, or a body the deploy history
/// kept for skew protection), or bytes the build made (the speculation rules, the HTML
/// dictionary). What the build makes stays in memory: nothing is written to disk to be read
/// back within the same build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A file, read when its bytes are needed.
    File(PathBuf),
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
            Source::Made(bytes) => Ok(Cow::Borrowed(bytes)),
        }
    }

    /// The file's path (`None`: made by the build).
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::File(path) => Some(path),
            Source::Made(_) => None,
        }
    }

    /// The bytes the build made (`None`: a file).
    pub fn made(&self) -> Option<&[u8]> {
        match self {
            Source::File(_) => None,
            Source::Made(bytes) => Some(bytes),
        }
    }

    /// Its length in bytes without reading a file (`None`: a file whose metadata cannot be read).
    pub(crate) fn len(&self) -> Option<u64> {
        match self {
            Source::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
            Source::Made(bytes) => Some(bytes.len() as u64),
        }
    }
}

/// As errors and warnings show it: a file's path escaped (see `error::shown`), or what made it.
impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::File(path) => path.shown().fmt(f),
            Source::Made(_) => f.write_str("(made by the build)"),
        }
    }
}

/// In `manifest.json`: a file's path, or `null` for bytes the build made.
impl Serialize for Source {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Source::File(path) => path.serialize(serializer),
            Source::Made(_) => serializer.serialize_none(),
        }
    }
}
