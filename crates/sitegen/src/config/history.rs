//! `[history]`: the deploy history's folder, how many deploys it keeps, and the site-wide HTML
//! dictionary.

use super::key::Key;
use serde::Deserialize;
use std::path::PathBuf;

/// `[history]`: the deploy history (what earlier deploys served; see `history.rs`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryConfig {
    /// The history folder, relative to the config file (default `.edgesite/history`).
    #[serde(default = "default_history_dir")]
    pub dir: PathBuf,
    /// How many deploys it keeps, the newest included (default 3; 1 to 10).
    #[serde(default = "default_keep")]
    pub keep: usize,
    /// A site-wide dictionary for HTML (RFC 9842): zstd's trainer over the site's pages, served
    /// at `/_edgesite/html.dict`, announced on every page, and each page given `dcz`/`dcb`
    /// deltas against it (default `false`: it saves too little over br to be a default, docs/benchmarks.md).
    #[serde(default)]
    pub html_dictionary: bool,
}

impl Default for HistoryConfig {
    fn default() -> Self {
        HistoryConfig {
            dir: default_history_dir(),
            keep: default_keep(),
            html_dictionary: false,
        }
    }
}

fn default_history_dir() -> PathBuf {
    PathBuf::from(".edgesite/history")
}
fn default_keep() -> usize {
    3
}

impl HistoryConfig {
    pub(super) fn first_invalid(&self) -> Option<(Key, String)> {
        let key = |name| Key::new(&["history", name]);
        if !(1..=10).contains(&self.keep) {
            return Some((key("keep"), format!("{} is not in 1..=10", self.keep)));
        }
        if self.dir.as_os_str().is_empty() {
            return Some((key("dir"), "an empty folder name".into()));
        }
        None
    }
}
