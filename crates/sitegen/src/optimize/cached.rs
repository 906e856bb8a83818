//! What the stage made, kept in the build's cache (`cache_dir/optimize/`): a rebuild with a
//! file unchanged reads its minified bytes (and a page's survey) instead of making them again.
//!
//! An entry is named by the SHA-256 of what was read, of how it was read (the kind, the page's
//! allowances) and of the stage itself: its own source and the crate's manifest (which names
//! the minifiers' versions), so that a change of the stage or of a minifier's version misses
//! every entry it could have changed. An entry holds the SHA-256 of its content, then the
//! content: one damaged or edited is not used (and is made again). Only what is made without a
//! warning is kept: a file kept as written with a warning is read again each build, so the
//! warning is said each build.

use super::html::Survey;
use crate::hash;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The stage's own text: what makes an entry.
const STAGE: [&str; 7] = [
    include_str!("mod.rs"),
    include_str!("cached.rs"),
    include_str!("css.rs"),
    include_str!("js.rs"),
    include_str!("html.rs"),
    include_str!("guard.rs"),
    include_str!("../../Cargo.toml"),
];

/// The cache's folder, if the build has one.
pub(super) struct Cache {
    dir: Option<PathBuf>,
}

impl Cache {
    pub(super) fn new(cache_dir: Option<&Path>) -> Cache {
        Cache {
            dir: cache_dir.map(|dir| dir.join("optimize")),
        }
    }

    /// The bytes kept for `key` (what was read and how), if whole.
    pub(super) fn get(&self, key: &[&[u8]]) -> Option<Vec<u8>> {
        read(&self.dir.as_ref()?.join(name(key)))
    }

    /// Keeps `bytes` for `key`.
    pub(super) fn put(&self, key: &[&[u8]], bytes: &[u8]) {
        let Some(dir) = &self.dir else { return };
        let mut entry = hash::sha256(bytes).to_vec();
        entry.extend_from_slice(bytes);
        // A failed cache write only costs the work again next build.
        let _ = crate::atomic::write_atomically(dir, &name(key), &entry);
    }
}

/// A page's survey as an entry: its four answers, then each name it loads with `integrity`
/// after a line break; `None` if a name holds one.
pub(super) fn survey_bytes(survey: &Survey) -> Option<Vec<u8>> {
    let flags = [
        survey.import_integrity,
        survey.scripts,
        survey.hydrated,
        survey.foreign_styles,
    ];
    let mut out: Vec<u8> = flags.iter().map(|&f| if f { b'1' } else { b'0' }).collect();
    for name in &survey.integrity {
        if name.contains('\n') {
            return None;
        }
        out.push(b'\n');
        out.extend_from_slice(name.as_bytes());
    }
    Some(out)
}

/// A survey read back from [`survey_bytes`].
pub(super) fn survey_of(bytes: &[u8]) -> Option<Survey> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut lines = text.split('\n');
    let flags: Vec<bool> = lines.next()?.bytes().map(|b| b == b'1').collect();
    let [import_integrity, scripts, hydrated, foreign_styles] = flags[..] else {
        return None;
    };
    Some(Survey {
        integrity: lines.map(str::to_string).collect(),
        import_integrity,
        scripts,
        hydrated,
        foreign_styles,
    })
}

/// An entry's name: the SHA-256 of the stage and of each part of the key (each with its length,
/// so that no two keys run together), in hex.
fn name(key: &[&[u8]]) -> String {
    static STAGE_SHA256: OnceLock<[u8; 32]> = OnceLock::new();
    let stage = STAGE_SHA256.get_or_init(|| hash::sha256(STAGE.concat().as_bytes()));
    let mut all = stage.to_vec();
    for part in key {
        all.extend_from_slice(&(part.len() as u64).to_le_bytes());
        all.extend_from_slice(part);
    }
    hash::hex(&hash::sha256(&all))
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
        let cache = Cache::new(Some(dir.path()));
        let key: [&[u8]; 2] = [b"css", b"a { b: c }"];
        assert_eq!(cache.get(&key), None);
        cache.put(&key, b"a{b:c}");
        assert_eq!(cache.get(&key), Some(b"a{b:c}".to_vec()));
        // Another kind, or parts that would run together, are other entries.
        assert_eq!(cache.get(&[b"js", b"a { b: c }"]), None);
        assert_eq!(cache.get(&[b"cssa", b" { b: c }"]), None);
        // A damaged entry is not used.
        let entry = dir.path().join("optimize").join(name(&key));
        let mut bytes = std::fs::read(&entry).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&entry, bytes).unwrap();
        assert_eq!(cache.get(&key), None);
        // Without a cache folder, nothing is kept.
        let none = Cache::new(None);
        none.put(&key, b"a{b:c}");
        assert_eq!(none.get(&key), None);
    }

    #[test]
    fn a_survey_reads_back_as_it_was() {
        let survey = Survey {
            integrity: vec!["/a.js".into(), "b c.css".into()],
            import_integrity: false,
            scripts: true,
            hydrated: false,
            foreign_styles: true,
        };
        assert_eq!(survey_of(&survey_bytes(&survey).unwrap()), Some(survey));
        let none = Survey::default();
        assert_eq!(survey_of(&survey_bytes(&none).unwrap()), Some(none));
        let broken = Survey {
            integrity: vec!["a\nb".into()],
            ..Survey::default()
        };
        assert_eq!(survey_bytes(&broken), None);
    }
}
