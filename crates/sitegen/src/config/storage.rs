//! `[storage]`: where each file's representations are kept: in the Worker's bundle, or in the
//! platform's store (Workers Static Assets, read through the Worker's `ASSETS` binding; the
//! native twin reads the same objects from a folder).

use super::key::{first_invalid_glob, Key};
use serde::Deserialize;

/// Workers Static Assets' limit on files per version on the Free plan (the Paid plan's is
/// 100,000).
pub const FREE_ASSET_FILES: u64 = 20_000;
const PAID_ASSET_FILES: u64 = 100_000;

/// `[storage]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct StorageConfig {
    /// Where files go that no glob below names (default `auto`).
    #[serde(default)]
    pub tier: StorageTier,
    /// URL path globs of files always kept in the store.
    #[serde(default)]
    pub assets: Vec<String>,
    /// URL path globs of files always kept in the bundle (over `assets` when both match).
    #[serde(default)]
    pub bundle: Vec<String>,
    /// The most objects the store may hold (default 20,000, Static Assets' Free plan; up to
    /// 100,000, the Paid plan's). The build fails past it and warns past 80%.
    #[serde(default = "default_max_asset_files")]
    pub max_asset_files: u64,
}

/// `[storage] tier`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageTier {
    /// The bundle while the whole site fits its budget; past it, the files served most and
    /// smallest (pages, stylesheets, scripts, fonts, small images) stay in the bundle while it
    /// fits, and the rest go to the store, every representation in full.
    #[default]
    Auto,
    /// Everything in the bundle: compact storage and image variants left out to fit, as
    /// `[compression] store` says (a Worker without an `ASSETS` binding: library mode).
    Bundle,
    /// Everything in the store; the bundle holds the tables only.
    Assets,
}

impl Default for StorageConfig {
    fn default() -> Self {
        StorageConfig {
            tier: StorageTier::Auto,
            assets: Vec::new(),
            bundle: Vec::new(),
            max_asset_files: default_max_asset_files(),
        }
    }
}

fn default_max_asset_files() -> u64 {
    FREE_ASSET_FILES
}

impl StorageConfig {
    pub(super) fn first_invalid(&self) -> Option<(Key, String)> {
        if !(1..=PAID_ASSET_FILES).contains(&self.max_asset_files) {
            let message = format!(
                "{} is not in 1..={PAID_ASSET_FILES} (Static Assets' limit per version)",
                self.max_asset_files
            );
            return Some((Key::new(&["storage", "max_asset_files"]), message));
        }
        first_invalid_glob("storage", "assets", &self.assets)
            .or_else(|| first_invalid_glob("storage", "bundle", &self.bundle))
    }

    /// Where the file at `path` must be kept, when a glob or the tier says so; `None`: the
    /// storage stage chooses (`auto`).
    pub(crate) fn required(&self, path: &str) -> Option<StorageTier> {
        let named = |globs: &[String]| globs.iter().any(|g| crate::glob::matches(g, path));
        if named(&self.bundle) {
            Some(StorageTier::Bundle)
        } else if named(&self.assets) {
            Some(StorageTier::Assets)
        } else {
            Some(self.tier).filter(|&tier| tier != StorageTier::Auto)
        }
    }
}
