//! The sources stage: what the site serves, before any file is read for its bytes. The site's
//! own files (the walk), the files of earlier deploys still served (skew protection, from the
//! deploy history), and the site-wide HTML dictionary when `[history] html_dictionary` asks
//! for one. Each later stage works from this list.

mod html_dictionary;
mod kept;
mod walk;

pub(crate) use html_dictionary::HtmlDictionary;
pub(crate) use walk::{read_site_file, Found};

use crate::error::Error;
use crate::history::History;
use crate::model::{Kept, Source};
use crate::warning::Notes;
use std::path::Path;
use std::sync::Arc;

/// What the site serves, and what was read to find it.
pub(crate) struct Sources {
    /// The site's own files (sorted), then the kept files of earlier deploys, then what the
    /// build made (the HTML dictionary, the speculation rules: [`Sources::add_made`]).
    pub(crate) files: Vec<Found>,
    /// How many of `files` are the site's own: the link pass reads and rewrites only those.
    pub(crate) own: usize,
    /// The deploy history (`[history] dir`), read once for the kept files and the deltas.
    pub(crate) history: Option<History>,
    /// Skew protection: the kept files.
    pub(crate) kept: Kept,
    /// The site-wide HTML dictionary, when there is one.
    pub(crate) html_dictionary: Option<HtmlDictionary>,
    /// Every folder and file read (for `cargo:rerun-if-changed`), and a warning for each entry
    /// the walk skipped.
    pub(crate) notes: Notes,
}

impl Sources {
    /// Whether the file at `index` is an earlier deploy's, kept for skew protection.
    pub(crate) fn is_kept(&self, index: usize) -> bool {
        (self.own..self.own + self.kept.files).contains(&index)
    }

    /// `[history] html_dictionary` (`on`): trains the site-wide HTML dictionary on the site's
    /// pages as the build serves them (after the optimize stage) and adds it as a file.
    ///
    /// # Errors
    /// A page that cannot be read.
    pub(crate) fn add_html_dictionary(&mut self, on: bool) -> Result<(), Error> {
        self.html_dictionary = html_dictionary::add(on, &mut self.files, self.own)?;
        Ok(())
    }

    /// Adds a file the build made, at `url_path`; returns its index.
    pub(crate) fn add_made(&mut self, url_path: &str, bytes: Arc<[u8]>) -> usize {
        self.files.push(Found {
            url_path: url_path.to_string(),
            source: Source::Made(bytes),
        });
        self.files.len() - 1
    }
}

/// The sources of the site in `site_dir` (none is an error), with the deploy history in
/// `history_dir` (`None`: no history); the HTML dictionary comes later
/// ([`Sources::add_html_dictionary`]).
pub(crate) fn read(site_dir: &Path, history_dir: Option<&Path>) -> Result<Sources, Error> {
    let walked = walk::walk(site_dir)?;
    if walked.files.is_empty() {
        return Err(Error::EmptySite {
            path: site_dir.to_path_buf(),
        });
    }
    let mut tracked = walked.dirs;
    tracked.extend(
        walked
            .files
            .iter()
            .filter_map(|f| f.source.path())
            .map(Path::to_path_buf),
    );
    let mut files = walked.files;
    let own = files.len();
    let history = history_dir.map(History::open).transpose()?;
    let kept = kept::add_kept_files(history.as_ref(), &mut files);
    Ok(Sources {
        files,
        own,
        history,
        kept,
        html_dictionary: None,
        notes: Notes {
            warnings: walked.warnings,
            tracked,
        },
    })
}
