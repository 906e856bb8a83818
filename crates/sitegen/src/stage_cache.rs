//! What a stage made, kept in the build's cache (`cache_dir/<stage>/`): a rebuild with an input
//! unchanged reads what was made of it instead of making it again (the optimize stage's minified
//! files, the agents stage's Markdown twins).
//!
//! An entry is named by the SHA-256 of the stage's own text (its source, the crate's manifest
//! and the workspace's lockfile, which names the versions of its crates resolved: a change of
//! any misses every entry it could have changed) and of each part of the key (what was read,
//! and how). An entry holds the
//! SHA-256 of its content, then the content: one damaged or edited is not used (and is made
//! again). A failed write only costs the work again next build.

use crate::hash;
use std::path::{Path, PathBuf};

/// A stage's entries, if the build has a cache folder.
pub(crate) struct StageCache {
    dir: Option<PathBuf>,
    /// The SHA-256 of the stage's own text.
    stage: [u8; 32],
}

impl StageCache {
    /// The entries of the stage `name` (its folder under `cache_dir`) whose own text is `text`.
    pub(crate) fn new(cache_dir: Option<&Path>, name: &str, text: &[&str]) -> StageCache {
        StageCache {
            dir: cache_dir.map(|dir| dir.join(name)),
            stage: hash::sha256(text.concat().as_bytes()),
        }
    }

    /// The bytes kept for `key` (what was read and how), if whole.
    pub(crate) fn get(&self, key: &[&[u8]]) -> Option<Vec<u8>> {
        read(&self.dir.as_ref()?.join(self.name(key)))
    }

    /// Keeps `bytes` for `key`.
    pub(crate) fn put(&self, key: &[&[u8]], bytes: &[u8]) {
        let Some(dir) = &self.dir else { return };
        let mut entry = hash::sha256(bytes).to_vec();
        entry.extend_from_slice(bytes);
        let _ = crate::atomic::write_atomically(dir, &self.name(key), &entry);
    }

    /// An entry's name: the SHA-256 of the stage and of each part of the key (each with its
    /// length, so that no two keys run together), in hex.
    fn name(&self, key: &[&[u8]]) -> String {
        let mut all = self.stage.to_vec();
        for part in key {
            all.extend_from_slice(&(part.len() as u64).to_le_bytes());
            all.extend_from_slice(part);
        }
        hash::hex(&hash::sha256(&all))
    }
}

/// An entry's content, if it is whole.
fn read(path: &Path) -> Option<Vec<u8>> {
    let mut entry = std::fs::read(path).ok()?;
    if entry.len() < 32 || hash::sha256(&entry[32..]) != entry[..32] {
        return None;
    }
    Some(entry.split_off(32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_kept_by_what_was_read_and_a_damaged_one_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let cache = StageCache::new(Some(dir.path()), "stage", &["fn stage() {}"]);
        let key: [&[u8]; 2] = [b"css", b"a { b: c }"];
        assert_eq!(cache.get(&key), None);
        cache.put(&key, b"a{b:c}");
        assert_eq!(cache.get(&key), Some(b"a{b:c}".to_vec()));
        // Another kind, or parts that would run together, are other entries.
        assert_eq!(cache.get(&[b"js", b"a { b: c }"]), None);
        assert_eq!(cache.get(&[b"cssa", b" { b: c }"]), None);
        // Another version of the stage reads none of this one's.
        let changed = StageCache::new(Some(dir.path()), "stage", &["fn stage() { 1 }"]);
        assert_eq!(changed.get(&key), None);
        // A damaged entry is not used.
        let entry = dir.path().join("stage").join(cache.name(&key));
        let mut bytes = std::fs::read(&entry).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&entry, bytes).unwrap();
        assert_eq!(cache.get(&key), None);
        // Without a cache folder, nothing is kept.
        let none = StageCache::new(None, "stage", &[]);
        none.put(&key, b"a{b:c}");
        assert_eq!(none.get(&key), None);
    }
}
