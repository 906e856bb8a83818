//! The store's objects: each representation of a file kept in the store ([`Tier::Assets`],
//! [`Tier::R2`]), written once under the store's root as [`Representation::object_key`] names
//! it. A Worker's build copies the Static Assets folder to what wrangler uploads and the R2
//! folder to what `make deploy` puts in the bucket; the native twin reads the objects from it.

use crate::model::{Body, Representation, Source, Tier, OBJECT_FOLDER, R2_FOLDER};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The objects of one build, being written.
pub(crate) struct Objects {
    root: PathBuf,
    written: HashSet<String>,
}

impl Objects {
    /// The store under `root` (made if missing).
    pub(crate) fn new(root: &Path) -> std::io::Result<Objects> {
        std::fs::create_dir_all(root.join(OBJECT_FOLDER))?;
        std::fs::create_dir_all(root.join(R2_FOLDER))?;
        Ok(Objects {
            root: root.to_path_buf(),
            written: HashSet::new(),
        })
    }

    /// The store's root, as written into the site for the native twin.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Writes `r` (whose bytes are its own, or `source`'s when it has none) as its object in
    /// `tier`, unless this build or an earlier one wrote it (the name is the bytes' hash; an
    /// object of another length is written again).
    pub(crate) fn put(
        &mut self,
        r: &Representation,
        tier: Tier,
        source: &Source,
    ) -> std::io::Result<()> {
        let key = r.object_key(tier);
        if self.written.contains(&key) {
            return Ok(());
        }
        let path = self.root.join(&key);
        let present = std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() == r.size);
        if !present {
            let name = key.rsplit('/').next().unwrap_or(&key);
            let folder = self.root.join(tier.object_folder());
            let body = r
                .bytes
                .as_deref()
                .map_or_else(|| source.body(), Body::Bytes);
            match body {
                // In place: an object part-written (a crash) has another length, and is
                // written again by the next build.
                Body::Bytes(bytes) => crate::atomic::write_checked(&folder, name, bytes)?,
                Body::File(file) => {
                    // A copy, not a link: an edit of the site file in place must not change
                    // what the store holds under this hash.
                    crate::atomic::copy_atomically(file, &folder, name, |copied| {
                        if copied == r.size {
                            return Ok(());
                        }
                        Err(std::io::Error::other(format!(
                            "{} changed during the build ({} bytes, {} when it was read): build again",
                            file.display(),
                            copied,
                            r.size
                        )))
                    })?;
                }
            }
        }
        self.written.insert(key);
        Ok(())
    }

    /// Removes the objects this build did not write (an earlier build's): the folder holds
    /// exactly this build's, which is what a deploy uploads.
    pub(crate) fn finish(self) -> std::io::Result<()> {
        for folder in [OBJECT_FOLDER, R2_FOLDER] {
            for entry in std::fs::read_dir(self.root.join(folder))? {
                let entry = entry?;
                let key = format!("{folder}/{}", entry.file_name().to_string_lossy());
                if !self.written.contains(&key) {
                    std::fs::remove_file(entry.path())?;
                }
            }
        }
        Ok(())
    }
}
