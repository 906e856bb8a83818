//! `[budget]`: the size limits the bundle is held to.

use serde::Deserialize;

/// `[budget]`: the build fails past these sizes, and warns past 80% of them.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetConfig {
    /// The Worker bundle limit in bytes, uncompressed (default 64 MiB, Cloudflare's limit).
    #[serde(default = "default_max_bundle_bytes")]
    pub max_bundle_bytes: u64,
    /// The largest single file in bytes (default 25 MiB).
    #[serde(default = "default_max_file_bytes")]
    pub max_file_bytes: u64,
    /// The memory of the Worker's isolate in bytes (default 128 MiB, Cloudflare's limit), which
    /// the tables must leave room in: see `storage::check_written`.
    #[serde(default = "default_max_memory_bytes")]
    pub max_memory_bytes: u64,
}

impl Default for BudgetConfig {
    fn default() -> Self {
        BudgetConfig {
            max_bundle_bytes: default_max_bundle_bytes(),
            max_file_bytes: default_max_file_bytes(),
            max_memory_bytes: default_max_memory_bytes(),
        }
    }
}

fn default_max_bundle_bytes() -> u64 {
    64 * 1024 * 1024
}
fn default_max_file_bytes() -> u64 {
    25 * 1024 * 1024
}
fn default_max_memory_bytes() -> u64 {
    128 * 1024 * 1024
}
