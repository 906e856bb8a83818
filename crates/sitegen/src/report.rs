//! The build report: every file's stored sizes and savings, the totals, the time the compile
//! took (and how much came from the compression cache), and the bundle estimate against the
//! limit. Printed by `build.rs` at every build and written next to the manifest.

use crate::{budget, Manifest};
use std::fmt::Write as _;

/// The most file rows printed; larger sites show the largest files and a count of the rest.
const MAX_ROWS: usize = 40;

impl Manifest {
    /// The report as text (one table, then totals).
    pub fn report(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<44} {:>9} {:>9} {:>9} {:>9} {:>6}  cache",
            "file", "identity", "br", "zstd", "gzip", "saved"
        );
        let mut rows: Vec<&crate::File> = self.files.iter().collect();
        if rows.len() > MAX_ROWS {
            rows.sort_by_key(|f| std::cmp::Reverse(f.size));
            rows.truncate(MAX_ROWS);
        }
        for file in &rows {
            let size = |coding: &str| {
                file.representations
                    .iter()
                    .find(|v| v.coding == coding)
                    .map_or("-".to_string(), |v| v.size.to_string())
            };
            let best = file
                .representations
                .iter()
                .map(|v| v.size)
                .min()
                .unwrap_or(file.size);
            let _ = writeln!(
                out,
                "{:<44} {:>9} {:>9} {:>9} {:>9} {:>5}%  {:?}",
                truncate(&file.path, 44),
                file.size,
                size("br"),
                size("zstd"),
                size("gzip"),
                percent_saved(file.size, best),
                file.cache_reason
            );
        }
        if self.files.len() > rows.len() {
            let _ = writeln!(
                out,
                "... and {} smaller files",
                self.files.len() - rows.len()
            );
        }
        let identity: u64 = self.files.iter().map(|f| f.size).sum();
        let best: u64 = self
            .files
            .iter()
            .map(|f| {
                f.representations
                    .iter()
                    .map(|v| v.size)
                    .min()
                    .unwrap_or(f.size)
            })
            .sum();
        let stats = &self.stats;
        let _ = writeln!(
            out,
            "{} files, {identity} bytes; smallest encodings {best} bytes ({}% saved); compiled in {} ms \
             ({} encodings computed, {} from the cache)",
            stats.files,
            percent_saved(identity, best),
            stats.wall_time_ms,
            stats.encodings.encoded,
            stats.encodings.cached
        );
        let redirects = self
            .routes
            .iter()
            .filter(|r| matches!(r.target, crate::RouteTarget::Redirect { .. }))
            .count();
        let _ = writeln!(
            out,
            "{} routes ({redirects} redirects, canonical URLs and fixed _redirects rules included); {} _redirects rules matched at run time",
            self.routes.len(),
            self.rules.len()
        );
        let _ = writeln!(out, "build id {}", self.build_id);
        let bundle = budget::bundle_bytes(&self.files);
        let _ = writeln!(
            out,
            "bundle estimate {bundle} bytes (site + {} bytes of code) of the {}-byte limit: {}%",
            budget::CODE_ESTIMATE_BYTES,
            self.budget.max_bundle_bytes,
            bundle * 100 / self.budget.max_bundle_bytes.max(1)
        );
        out
    }
}

fn percent_saved(identity: u64, best: u64) -> u64 {
    ((identity - best.min(identity)) * 100)
        .checked_div(identity)
        .unwrap_or(0)
}

fn truncate(path: &str, width: usize) -> String {
    if path.chars().count() <= width {
        return path.to_string();
    }
    let tail: String = path
        .chars()
        .rev()
        .take(width - 1)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("…{tail}")
}
