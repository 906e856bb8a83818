//! `[fingerprint]`: content-addressed URLs (`?v=`) for the site's own subresources, and which
//! files they cover.

use super::cache::CacheConfig;
use super::key::{first_invalid_glob, Key};
use serde::Deserialize;

/// `[fingerprint]`: content-addressed URLs for the site's own subresources.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FingerprintConfig {
    /// `query` (default): references to the site's files from its HTML and CSS get `?v=` the
    /// first 10 hex digits of the SHA-256 of the bytes served, and such a request gets
    /// `cache.fingerprinted`; `off`: nothing is rewritten and `v` means nothing.
    #[serde(default)]
    pub mode: FingerprintMode,
    /// Globs over URL paths (`*` within a segment, `**` across) of files never fingerprinted:
    /// references to them are left as they are, and their `v` means nothing.
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// `fingerprint.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FingerprintMode {
    /// `path?v=<hash>`.
    #[default]
    Query,
    /// No fingerprints.
    Off,
}

impl FingerprintConfig {
    pub(super) fn first_invalid(&self) -> Option<(Key, String)> {
        first_invalid_glob("fingerprint", "exclude", &self.exclude)
    }

    /// Cache-Control of a request whose `v` names the current bytes: `cache.fingerprinted`,
    /// or empty (no such requests) with `mode = "off"`.
    pub(crate) fn fingerprinted_cache_control(&self, cache: &CacheConfig) -> String {
        match self.mode {
            FingerprintMode::Query => cache.fingerprinted.clone(),
            FingerprintMode::Off => String::new(),
        }
    }

    /// Whether the file at `path` gets a fingerprint: not with `mode = "off"`, not an excluded
    /// one, and never a page (HTML is what a navigation loads: its URL is the site's, and
    /// stays revalidated).
    pub(crate) fn covers(&self, path: &str) -> bool {
        self.mode == FingerprintMode::Query
            && !crate::mime::content_type(path).starts_with("text/html")
            && !self
                .exclude
                .iter()
                .any(|glob| crate::glob::matches(glob, path))
    }
}
