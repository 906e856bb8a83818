//! Deploy history: what earlier deploys served, kept between builds so a build can compute
//! deltas against bytes returning visitors hold (RFC 9842) and keep serving the previous
//! deploys' fingerprinted files (skew protection).
//!
//! A history folder (`[history] dir`, default `.edgesite/history`) holds:
//! - `deploys.json`: the kept deploys, newest first, each `{"build_id", "files": {URL path:
//!   SHA-256 of the identity bytes served}}`;
//! - `bodies/<SHA-256>`: each body once, whichever deploys and paths share it.
//!
//! No folder is an empty history (a first deploy). A body whose bytes no longer match its name
//! is never used: [`History::body`] checks the hash.

use crate::error::Error;
use crate::etag;
use crate::model::{Manifest, Options};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One deploy: its build id and, per URL path, the SHA-256 (hex) of the bytes it served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deploy {
    /// The build's id (`Manifest::build_id`).
    pub build_id: String,
    /// URL path -> SHA-256 of the identity bytes served there.
    pub files: BTreeMap<String, String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Index {
    /// Newest first.
    deploys: Vec<Deploy>,
}

/// The kept deploys of a history folder, newest first.
#[derive(Debug)]
pub struct History {
    dir: PathBuf,
    /// Newest first.
    pub deploys: Vec<Deploy>,
}

/// What [`History::record`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Recorded {
    /// Deploys kept (the new one included).
    pub deploys: usize,
    /// Bodies written now (not already in the folder).
    pub bodies_written: usize,
    /// Bodies no kept deploy references any more, deleted.
    pub bodies_removed: usize,
    /// Bytes of all kept bodies.
    pub bytes: u64,
}

impl History {
    /// The history at `options.history_dir`, if one is configured (see [`History::open`]): one
    /// read per build, for skew protection's kept files and the deltas.
    pub(crate) fn open_configured(options: &Options) -> Result<Option<History>, Error> {
        options
            .history_dir
            .as_deref()
            .map(History::open)
            .transpose()
    }

    /// Reads the history in `dir`; a missing folder is an empty history. A `deploys.json` that
    /// is not valid is an error naming it and the line.
    pub fn open(dir: &Path) -> Result<History, Error> {
        let index = dir.join("deploys.json");
        let deploys = match std::fs::read_to_string(&index) {
            Ok(text) => {
                serde_json::from_str::<Index>(&text)
                    .map_err(|e| Error::Config {
                        path: index.clone(),
                        line: e.line(),
                        message: format!(
                            "not a deploy history ({e}); delete the folder to start a new one"
                        ),
                    })?
                    .deploys
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(source) => {
                return Err(Error::Read {
                    path: index,
                    source,
                })
            }
        };
        Ok(History {
            dir: dir.to_path_buf(),
            deploys,
        })
    }

    /// Where the body with this SHA-256 (hex) is kept.
    pub fn body_path(&self, sha256: &str) -> PathBuf {
        self.dir.join("bodies").join(sha256)
    }

    /// The bytes with this SHA-256 (hex), if the folder holds them intact.
    pub fn body(&self, sha256: &str) -> Option<Vec<u8>> {
        let bytes = std::fs::read(self.body_path(sha256)).ok()?;
        (etag::hex(&etag::sha256(&bytes)) == sha256).then_some(bytes)
    }

    /// The distinct earlier versions of `path` (SHA-256 hex), newest deploy first, other than
    /// `current`.
    pub fn versions<'a>(&'a self, path: &str, current: &str) -> Vec<&'a str> {
        let mut seen = BTreeSet::new();
        self.deploys
            .iter()
            .filter_map(|deploy| deploy.files.get(path))
            .map(String::as_str)
            .filter(|sha| *sha != current && seen.insert(*sha))
            .collect()
    }

    /// Adds `manifest`'s deploy as the newest (replacing an entry with the same build id), keeps
    /// the newest `keep`, writes its bodies and deletes those no kept deploy references.
    pub fn record(&mut self, manifest: &Manifest, keep: usize) -> std::io::Result<Recorded> {
        let deploy = Deploy {
            build_id: manifest.build_id.clone(),
            files: manifest
                .files
                .iter()
                .map(|f| (f.path.clone(), f.sha256.clone()))
                .collect(),
        };
        self.deploys.retain(|d| d.build_id != deploy.build_id);
        self.deploys.insert(0, deploy);
        self.deploys.truncate(keep.max(1));
        let bodies = self.dir.join("bodies");
        std::fs::create_dir_all(&bodies)?;
        let mut recorded = Recorded {
            deploys: self.deploys.len(),
            ..Recorded::default()
        };
        for file in &manifest.files {
            let to = bodies.join(&file.sha256);
            if to.exists() {
                continue;
            }
            let bytes = match file.identity_bytes() {
                Some(bytes) => bytes.to_vec(),
                None => std::fs::read(&file.source)?,
            };
            write_into(&to, &bytes)?;
            recorded.bodies_written += 1;
        }
        let kept: BTreeSet<&str> = self
            .deploys
            .iter()
            .flat_map(|d| d.files.values().map(String::as_str))
            .collect();
        for entry in std::fs::read_dir(&bodies)? {
            let entry = entry?;
            let name = entry.file_name();
            if kept.contains(name.to_string_lossy().as_ref()) {
                recorded.bytes += entry.metadata()?.len();
            } else {
                std::fs::remove_file(entry.path())?;
                recorded.bodies_removed += 1;
            }
        }
        let index = Index {
            deploys: self.deploys.clone(),
        };
        let json = serde_json::to_string_pretty(&index).map_err(std::io::Error::other)?;
        crate::atomic::write_atomically(&self.dir, "deploys.json", json.as_bytes())?;
        Ok(recorded)
    }
}

/// [`write_atomically`](crate::atomic::write_atomically) to the path `to`.
fn write_into(to: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (Some(dir), Some(name)) = (to.parent(), to.file_name().and_then(|n| n.to_str())) else {
        return std::fs::write(to, bytes);
    };
    crate::atomic::write_atomically(dir, name, bytes)
}
