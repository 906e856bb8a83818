//! Writing a file so that a concurrent reader (the host and wasm builds run at once; encode
//! threads share the caches) sees either the old file or nothing, or the whole new one.

use std::path::Path;

/// Writes `dir/name`: a temporary file in the same folder (named by process and thread), then a
/// rename. Creates `dir` if needed.
pub(crate) fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = temporary(dir, name);
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, dir.join(name))
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
