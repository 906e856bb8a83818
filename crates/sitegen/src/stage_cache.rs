//! What a stage made, kept in the build's cache (`cache_dir/<stage>/`): a rebuild with an input
//! unchanged reads what was made of it instead of making it again (the optimize stage's minified
//! files, the agents stage's Markdown twins).
//!
//! An entry is named by the SHA-256 of the stage's own text (its source, the crate's manifest
//! and the workspace's lockfile, which names the versions of its crates resolved: a change of
//! any misses every entry it could have changed) and of each part of the key (what was read,
//! and how). An entry is [`sealed`]: one damaged, edited or copied under another name is not
//! used (and is made again). A failed write only costs the work again next build.
//!
//! The encoding cache (`encode/compress.rs`) keeps its entries in the same form.

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
        let name = self.name(key);
        let entry = std::fs::read(self.dir.as_ref()?.join(&name)).ok()?;
        unsealed(&name, entry).ok()
    }

    /// Keeps `bytes` for `key`.
    pub(crate) fn put(&self, key: &[&[u8]], bytes: &[u8]) {
        let Some(dir) = &self.dir else { return };
        let name = self.name(key);
        let _ = crate::atomic::write_checked(dir, &name, &sealed(&name, bytes));
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

/// What a sealed entry starts with (the encoding cache's entries were the first, hence its text).
pub(crate) const SEAL: &[u8; 16] = b"edgesite-encoded";

/// The entry that keeps `content` under `name`: [`SEAL`], then the SHA-256 of the name, a line
/// feed and the content ([`digest`]), then the content.
pub(crate) fn sealed(name: &str, content: &[u8]) -> Vec<u8> {
    let mut entry = Vec::with_capacity(SEAL.len() + 32 + content.len());
    entry.extend_from_slice(SEAL);
    entry.extend_from_slice(&digest(name, content));
    entry.extend_from_slice(content);
    entry
}

/// The content of `entry`, read under `name`, if it is whole and was sealed under that name;
/// else the entry as read, for a caller that knows an older form.
pub(crate) fn unsealed(name: &str, mut entry: Vec<u8>) -> Result<Vec<u8>, Vec<u8>> {
    let at = SEAL.len() + 32;
    if entry.len() < at
        || !entry.starts_with(SEAL)
        || digest(name, &entry[at..])[..] != entry[SEAL.len()..at]
    {
        return Err(entry);
    }
    entry.drain(..at);
    Ok(entry)
}

/// The SHA-256 of an entry's name and content: an entry damaged, edited, or copied under
/// another name does not match it.
pub(crate) fn digest(name: &str, content: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    let mut digest = sha2::Sha256::new();
    digest.update(name.as_bytes());
    digest.update(b"\n");
    digest.update(content);
    digest.finalize().into()
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
        // Kept again, it replaces the damaged file (by a rename: a hard link to the damaged
        // one keeps its bytes).
        let damaged = dir.path().join("damaged");
        std::fs::hard_link(&entry, &damaged).unwrap();
        cache.put(&key, b"a{b:c}");
        assert_eq!(cache.get(&key), Some(b"a{b:c}".to_vec()));
        assert_ne!(
            std::fs::read(&damaged).unwrap(),
            std::fs::read(&entry).unwrap()
        );
        // An entry of the form before the seals (the SHA-256 of the content, then the content)
        // is not read.
        let mut before = hash::sha256(b"a{b:c}").to_vec();
        before.extend_from_slice(b"a{b:c}");
        std::fs::write(&entry, before).unwrap();
        assert_eq!(cache.get(&key), None);
        // Another key's entry, whole, copied under this key's name is not used either.
        let other: [&[u8]; 2] = [b"css", b"b { c: d }"];
        cache.put(&other, b"b{c:d}");
        std::fs::copy(dir.path().join("stage").join(cache.name(&other)), &entry).unwrap();
        assert_eq!(cache.get(&key), None);
        assert_eq!(cache.get(&other), Some(b"b{c:d}".to_vec()));
        // Without a cache folder, nothing is kept.
        let none = StageCache::new(None, "stage", &[]);
        none.put(&key, b"a{b:c}");
        assert_eq!(none.get(&key), None);
    }
}
