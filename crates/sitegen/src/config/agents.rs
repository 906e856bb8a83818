//! `[agents]`: pages for agents (issue 35): a Markdown twin of every page, made at build, and
//! `/llms.txt` and `/llms-full.txt` (the agents stage, `crate::agents`).
//!
//! ```toml
//! [agents]
//! # Twins and llms.txt: unset (default) makes them for a site of more than one page.
//! # enabled = true
//! # The page's main content, converted: the first element this selector list matches (a
//! # list of compounds of a type, `#id`, `.class` and `[attr]` / `[attr=value]`). Unset: the
//! # first of `main`, `[role=main]`, `article`, else the body.
//! # content = ".document"
//! # URL path globs of pages without a twin (and left out of llms.txt).
//! exclude = []
//! # The Content-Signal field of every twin (default none: the author decides).
//! # content_signal = "ai-train=no, search=yes, ai-input=yes"
//! # The most bytes of /llms-full.txt (whole twins, in llms.txt's order, until the next would
//! # pass it).
//! full_bytes = 4194304
//! ```

use super::key::{check_field_value, first_invalid_glob, Key};
use serde::Deserialize;

/// `[agents]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentsConfig {
    /// `true`, `false`, or unset: on for a site with more than one page.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// The main content's selector list (see the module docs); unset: the defaults.
    #[serde(default)]
    pub content: Option<String>,
    /// Globs over URL paths of pages without a twin.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// The `Content-Signal` field value of every twin; empty: none.
    #[serde(default)]
    pub content_signal: String,
    /// The most bytes of `/llms-full.txt`.
    #[serde(default = "default_full_bytes")]
    pub full_bytes: u64,
}

fn default_full_bytes() -> u64 {
    4 << 20
}

impl Default for AgentsConfig {
    fn default() -> Self {
        AgentsConfig {
            enabled: None,
            content: None,
            exclude: Vec::new(),
            content_signal: String::new(),
            full_bytes: default_full_bytes(),
        }
    }
}

impl AgentsConfig {
    pub(super) fn first_invalid(&self) -> Option<(Key, String)> {
        if let Some(content) = &self.content {
            if let Err(why) = crate::selector::Selector::parse(content) {
                return Some((Key::new(&["agents", "content"]), why));
            }
        }
        first_invalid_glob("agents", "exclude", &self.exclude).or_else(|| {
            let key = Key::new(&["agents", "content_signal"]);
            check_field_value(key, &self.content_signal, false)
        })
    }

    /// Whether `path` has no twin.
    pub(crate) fn excludes(&self, path: &str) -> bool {
        self.exclude
            .iter()
            .any(|glob| crate::glob::matches(glob, path))
    }
}
