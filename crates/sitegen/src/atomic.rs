//! Writing a file so that a concurrent reader (the host and wasm builds run at once; encode
//! threads share the caches) sees either the old file or nothing, or the whole new one; or,
//! for a file checked when it is read, in place ([`write_checked`]).

use std::path::Path;

/// Writes `dir/name`: a temporary file in the same folder (named by process and thread), then a
/// rename. Creates `dir` if needed.
pub(crate) fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = temporary(dir, name);
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, dir.join(name))
}

/// Writes `dir/name` in place when no file has that name: one entry added to the folder, where
/// [`write_atomically`] adds a temporary one and renames it (about four times the system time
/// in a folder of 100,000 entries; docs/benchmarks.md, "The cold build, taken apart"). A
/// concurrent reader may see the file part-written, and so may a build after a crash: this is
/// only for files checked when read (sealed cache entries, `stage_cache::unsealed`; the store's
/// objects, by their length). A file already there (one that failed its check) is replaced as
/// [`write_atomically`] replaces it. Creates `dir` if needed.
pub(crate) fn write_checked(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{ErrorKind, Write as _};
    let path = dir.join(name);
    let create = || {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
    };
    let created = match create() {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            std::fs::create_dir_all(dir)?;
            create()
        }
        created => created,
    };
    let mut file = match created {
        Ok(file) => file,
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {
            return write_atomically(dir, name, bytes)
        }
        Err(e) => return Err(e),
    };
    let written = file.write_all(bytes);
    if written.is_err() {
        // Emptied through this handle, not removed by name: another writer may have replaced
        // the name with its whole file since. An empty file fails its check when read.
        let _ = file.set_len(0);
    }
    written
}

/// Copies the file `from` to `dir/name` as [`write_atomically`] writes (a file is copied, never
/// read whole: it may be larger than memory). `check` is given the bytes copied before the
/// rename: an error from it leaves `dir/name` as it was.
pub(crate) fn copy_atomically(
    from: &Path,
    dir: &Path,
    name: &str,
    check: impl FnOnce(u64) -> std::io::Result<()>,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = temporary(dir, name);
    let checked = std::fs::copy(from, &tmp).and_then(check);
    if let Err(e) = checked {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, dir.join(name))
}

/// A temporary file's path beside `dir/name`, named by process and thread.
fn temporary(dir: &Path, name: &str) -> std::path::PathBuf {
    dir.join(format!(
        "{name}.{}.{:?}.tmp",
        std::process::id(),
        std::thread::current().id()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checked_write_creates_in_place_and_replaces_a_file_by_a_rename() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("a/b");
        // The folder made, the file written.
        write_checked(&folder, "x", b"first").unwrap();
        assert_eq!(std::fs::read(folder.join("x")).unwrap(), b"first");
        // A file already there (say, part-written before a crash) is replaced, not written
        // through: a hard link to it (a bundle's mirror of the store) keeps its own bytes.
        std::fs::hard_link(folder.join("x"), dir.path().join("link")).unwrap();
        write_checked(&folder, "x", b"second").unwrap();
        assert_eq!(std::fs::read(folder.join("x")).unwrap(), b"second");
        assert_eq!(std::fs::read(dir.path().join("link")).unwrap(), b"first");
        // Nothing else is left in the folder (no temporary file).
        assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 1);
        // A folder that cannot be made is an error.
        std::fs::write(dir.path().join("file"), b"").unwrap();
        assert!(write_checked(&dir.path().join("file/c"), "x", b"").is_err());
    }
}
