//! Writing a file so that a concurrent reader (the host and wasm builds run at once; encode
//! threads share the caches) sees either the old file or nothing, or the whole new one.

use std::path::Path;

/// Writes `dir/name`: a temporary file in the same folder (named by process and thread), then a
/// rename. Creates `dir` if needed.
pub(crate) fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        "{name}.{}.{:?}.tmp",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, dir.join(name))
}
