//! `[storage]`: where each file's representations are kept: in the Worker's bundle, or in the
//! platform's store (Workers Static Assets, read through the Worker's `ASSETS` binding, and an
//! R2 bucket, through its `EDGESITE_R2` binding, for files larger than Static Assets takes; the
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
    /// The R2 bucket that holds the files larger than Static Assets takes (over `[budget]
    /// max_file_bytes`) and those `r2` names; none (the default): such a file fails the build.
    #[serde(default)]
    pub r2_bucket: Option<String>,
    /// URL path globs of files always kept in the R2 bucket (over `assets`; `bundle` over both).
    #[serde(default)]
    pub r2: Vec<String>,
    /// With `tier = "auto"`, when the whole site does not fit the bundle: the most bytes of its
    /// files that `auto` keeps there, the hottest (default 2 MiB; a value past the bundle's
    /// room fills it). A Worker loads its whole bundle each time an isolate starts, so the
    /// bytes past what a first view needs cost every launch (docs/benchmarks.md, "A site of any
    /// size": a bundle filled to 64 MiB launched 14 times slower than the demo), while a file
    /// in the store costs a subrequest for each 200 and nothing at launch. Without an R2 bucket,
    /// the room past it takes files back when Static Assets would hold more than
    /// `max_asset_files` objects.
    #[serde(default = "default_auto_bundle_bytes")]
    pub auto_bundle_bytes: u64,
}

/// `[storage] tier`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageTier {
    /// The bundle while the whole site fits its budget; past it, the hottest files
    /// (stylesheets, scripts, pages nearest the root, fonts, small images) stay in the bundle
    /// up to `auto_bundle_bytes`, and the rest go to the store, every representation in full.
    #[default]
    Auto,
    /// Everything in the bundle: compact storage and image variants left out to fit, as
    /// `[compression] store` says (a Worker without an `ASSETS` binding: library mode).
    Bundle,
    /// Everything in the store; the bundle holds the tables only.
    Assets,
    /// Everything in the R2 bucket (`r2_bucket`); the bundle holds the tables only.
    R2,
}

impl Default for StorageConfig {
    fn default() -> Self {
        StorageConfig {
            tier: StorageTier::Auto,
            assets: Vec::new(),
            bundle: Vec::new(),
            max_asset_files: default_max_asset_files(),
            r2_bucket: None,
            r2: Vec::new(),
            auto_bundle_bytes: default_auto_bundle_bytes(),
        }
    }
}

fn default_max_asset_files() -> u64 {
    FREE_ASSET_FILES
}

fn default_auto_bundle_bytes() -> u64 {
    2 * 1024 * 1024
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
        if let Some(problem) = self.r2_bucket.as_deref().and_then(invalid_bucket_name) {
            let message = format!(
                "{} {problem}",
                crate::error::excerpt(self.r2_bucket.as_deref().unwrap_or_default())
            );
            return Some((Key::new(&["storage", "r2_bucket"]), message));
        }
        if self.r2_bucket.is_none() && (self.tier == StorageTier::R2 || !self.r2.is_empty()) {
            let key = if self.tier == StorageTier::R2 {
                "tier"
            } else {
                "r2"
            };
            let message = "asks for R2, and no r2_bucket is named".to_string();
            return Some((Key::new(&["storage", key]), message));
        }
        first_invalid_glob("storage", "assets", &self.assets)
            .or_else(|| first_invalid_glob("storage", "bundle", &self.bundle))
            .or_else(|| first_invalid_glob("storage", "r2", &self.r2))
    }

    /// Where the file at `path` must be kept, when a glob or the tier says so; `None`: the
    /// storage stage chooses (`auto`).
    pub(crate) fn required(&self, path: &str) -> Option<StorageTier> {
        let named = |globs: &[String]| globs.iter().any(|g| crate::glob::matches(g, path));
        if named(&self.bundle) {
            Some(StorageTier::Bundle)
        } else if named(&self.r2) {
            Some(StorageTier::R2)
        } else if named(&self.assets) {
            Some(StorageTier::Assets)
        } else {
            Some(self.tier).filter(|&tier| tier != StorageTier::Auto)
        }
    }
}

/// What is wrong with an R2 bucket name, if anything: R2 takes 3 to 63 lowercase letters,
/// digits and hyphens, starting and ending with a letter or digit.
fn invalid_bucket_name(name: &str) -> Option<&'static str> {
    let allowed = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-';
    if !(3..=63).contains(&name.len()) {
        Some("is not 3 to 63 characters long (R2's bucket names)")
    } else if !name.bytes().all(allowed) || name.starts_with('-') || name.ends_with('-') {
        Some("is not lowercase letters, digits and inner hyphens (R2's bucket names)")
    } else {
        None
    }
}
