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
use crate::hash;
use crate::model::{Body, Manifest};
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
        (hash::hex(&hash::sha256(&bytes)) == sha256).then_some(bytes)
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
    /// the newest `keep`, writes the bodies a later build can read (files offered as
    /// dictionaries, names that may carry a hash) and deletes those no kept deploy references.
    pub fn record(&mut self, manifest: &Manifest, keep: usize) -> std::io::Result<Recorded> {
        let bodies: Vec<(&str, Body<'_>)> = manifest
            .files
            .iter()
            .filter(|file| used_later(file))
            .map(|file| (file.sha256.as_str(), file.identity_body()))
            .collect();
        self.add(deploy_of(manifest), keep, &bodies)
    }

    /// Adds `deploy` as the newest, keeping `keep`: the bodies first (each written whole), then
    /// `deploys.json` (renamed into place, so it names only bodies that are there), then the
    /// bodies no kept deploy references are deleted.
    fn add(
        &mut self,
        deploy: Deploy,
        keep: usize,
        bodies: &[(&str, Body<'_>)],
    ) -> std::io::Result<Recorded> {
        self.deploys.retain(|d| d.build_id != deploy.build_id);
        self.deploys.insert(0, deploy);
        self.deploys.truncate(keep.max(1));
        let folder = self.dir.join("bodies");
        std::fs::create_dir_all(&folder)?;
        let mut recorded = Recorded {
            deploys: self.deploys.len(),
            ..Recorded::default()
        };
        for (sha256, body) in bodies {
            let to = folder.join(sha256);
            if to.exists() {
                continue;
            }
            write_body(*body, &to)?;
            recorded.bodies_written += 1;
        }
        let index = Index {
            deploys: self.deploys.clone(),
        };
        let json = serde_json::to_string_pretty(&index).map_err(std::io::Error::other)?;
        crate::atomic::write_atomically(&self.dir, "deploys.json", json.as_bytes())?;
        let kept: BTreeSet<&str> = self
            .deploys
            .iter()
            .flat_map(|d| d.files.values().map(String::as_str))
            .collect();
        for entry in std::fs::read_dir(&folder)? {
            let entry = entry?;
            let name = entry.file_name();
            if kept.contains(name.to_string_lossy().as_ref()) {
                recorded.bytes += entry.metadata()?.len();
            } else {
                std::fs::remove_file(entry.path())?;
                recorded.bodies_removed += 1;
            }
        }
        Ok(recorded)
    }
}

/// Whether a later build can read `file`'s body: an earlier deploy's file is served again only
/// when its name carries a hash of its bytes (skew protection, `sources/kept.rs`; a name that
/// may carry one is kept, and checked when read), and a delta is made only against an earlier
/// version of a file offered as a dictionary (RFC 9842 §2, `delta`). No other body is ever
/// read: it is not kept (a site's media and downloads would be copied at every deploy).
fn used_later(file: &crate::model::Asset) -> bool {
    crate::cache::may_name_a_hash(&file.path)
        || file
            .fields
            .iter()
            .any(|(name, _)| name == "use-as-dictionary")
}

/// What a deploy of `manifest` serves.
fn deploy_of(manifest: &Manifest) -> Deploy {
    Deploy {
        build_id: manifest.build_id.clone(),
        files: manifest
            .files
            .iter()
            .map(|f| (f.path.clone(), f.sha256.clone()))
            .collect(),
    }
}

/// A deploy staged by a build (`EDGESITE_RECORD_DEPLOY=1`), recorded by [`commit`] only once the
/// upload succeeded: `staged.json` and the bodies the history does not hold yet, in a folder
/// of the build's (`target/edgesite/staged-deploy`), never in the history itself.
#[derive(Debug, Serialize, Deserialize)]
struct Staged {
    /// The history folder it is for.
    history: PathBuf,
    /// `[history] keep`.
    keep: usize,
    deploy: Deploy,
}

/// Stages `manifest`'s deploy in `staged` for the history in `history_dir` (what a build with
/// `EDGESITE_RECORD_DEPLOY=1` does): the history is not touched; [`commit`] records it. An
/// earlier stage in `staged` is replaced.
///
/// # Errors
/// When `staged` cannot be written or a site file read.
pub fn stage(
    manifest: &Manifest,
    history_dir: &Path,
    keep: usize,
    staged: &Path,
) -> std::io::Result<()> {
    match std::fs::remove_dir_all(staged) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let bodies = staged.join("bodies");
    std::fs::create_dir_all(&bodies)?;
    let held = history_dir.join("bodies");
    for file in manifest.files.iter().filter(|file| used_later(file)) {
        if held.join(&file.sha256).exists() || bodies.join(&file.sha256).exists() {
            continue;
        }
        write_body(file.identity_body(), &bodies.join(&file.sha256))?;
    }
    let history = std::path::absolute(history_dir)?;
    let json = serde_json::to_string_pretty(&Staged {
        history,
        keep,
        deploy: deploy_of(manifest),
    })
    .map_err(std::io::Error::other)?;
    // Last: a stage without it is no stage.
    crate::atomic::write_atomically(staged, "staged.json", json.as_bytes())
}

/// Records the deploy staged in `staged` (see [`stage`]) in its history and removes the stage;
/// `Ok(None)` when nothing is staged (a build whose deploy was recorded already). Each staged
/// body is checked against its name before it is kept.
///
/// # Errors
/// A stage or history that cannot be read or written, or a staged body that does not match its
/// hash.
pub fn commit(staged: &Path) -> Result<Option<(PathBuf, String, Recorded)>, Error> {
    let index = staged.join("staged.json");
    let text = match std::fs::read_to_string(&index) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(Error::Read {
                path: index,
                source,
            })
        }
    };
    let stage: Staged = serde_json::from_str(&text).map_err(|e| Error::Config {
        path: index.clone(),
        line: e.line(),
        message: format!("not a staged deploy ({e})"),
    })?;
    let mut history = History::open(&stage.history)?;
    let read_error = |path: PathBuf| move |source| Error::Read { path, source };
    // Each checked as it is read, a piece at a time, and copied: never held whole.
    let mut paths = Vec::new();
    for sha256 in stage.deploy.files.values() {
        let path = staged.join("bodies").join(sha256);
        if !path.exists() {
            continue;
        }
        let read =
            hash::file_digests(&path, hash::Wanted::default()).map_err(read_error(path.clone()))?;
        if hash::hex(&read.sha256) != *sha256 {
            return Err(Error::Config {
                path,
                line: 1,
                message: "a staged body whose bytes do not match its name; build again".into(),
            });
        }
        paths.push((sha256.clone(), path));
    }
    let bodies: Vec<(&str, Body<'_>)> = paths
        .iter()
        .map(|(sha, path)| (sha.as_str(), Body::File(path)))
        .collect();
    let build_id = stage.deploy.build_id.clone();
    let recorded = history
        .add(stage.deploy, stage.keep, &bodies)
        .map_err(read_error(stage.history.clone()))?;
    std::fs::remove_dir_all(staged).map_err(read_error(staged.to_path_buf()))?;
    Ok(Some((stage.history, build_id, recorded)))
}

/// Copies the file `from` to the path `to` as [`write_into`] writes.
fn copy_into(to: &Path, from: &Path) -> std::io::Result<()> {
    let (Some(dir), Some(name)) = (to.parent(), to.file_name().and_then(|n| n.to_str())) else {
        return std::fs::copy(from, to).map(drop);
    };
    crate::atomic::copy_atomically(from, dir, name, |_| Ok(()))
}

/// Writes `body` at `to` (a file copied, never read whole: it may be larger than memory).
fn write_body(body: Body<'_>, to: &Path) -> std::io::Result<()> {
    match body {
        Body::Bytes(bytes) => write_into(to, bytes),
        Body::File(path) => copy_into(to, path),
    }
}

/// [`write_atomically`](crate::atomic::write_atomically) to the path `to`.
fn write_into(to: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (Some(dir), Some(name)) = (to.parent(), to.file_name().and_then(|n| n.to_str())) else {
        return std::fs::write(to, bytes);
    };
    crate::atomic::write_atomically(dir, name, bytes)
}
