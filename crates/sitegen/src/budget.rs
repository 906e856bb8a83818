//! Size budgets: the embedded site counts against the Worker's size limit (Cloudflare documents
//! 64 MiB uncompressed; older limits were 1 MB, then 3 MB / 10 MB compressed). The build fails
//! past `[budget]`'s limits, naming the files that take the most space, and warns past 80%.

use crate::config::BudgetConfig;
use crate::error::Error;
use crate::store::stored_bytes;
use crate::File;

/// The Worker's code without the site: the release wasm measured 187 KB with the 33 KB demo site
/// embedded, and the JS glue 20 KB; rounded up.
pub const CODE_ESTIMATE_BYTES: u64 = 256 * 1024;

/// The share of a limit past which the build warns.
const WARN_PERCENT: u64 = 80;

/// The estimated bundle: every stored representation (not those decoded on demand), plus the
/// code.
pub fn bundle_bytes(files: &[File]) -> u64 {
    files.iter().map(stored_bytes).sum::<u64>() + CODE_ESTIMATE_BYTES
}

/// Fails when a file or the bundle is over its limit.
pub(crate) fn check(files: &[File], budget: &BudgetConfig) -> Result<(), Error> {
    if let Some(file) = files.iter().find(|f| f.size > budget.max_file_bytes) {
        return Err(Error::Budget {
            message: format!(
                "{} is {} bytes, over the per-file limit of {} bytes ([budget] max_file_bytes); \
                 serve it from object storage, or raise the limit",
                file.source.display(),
                file.size,
                budget.max_file_bytes
            ),
        });
    }
    let total = bundle_bytes(files);
    if total > budget.max_bundle_bytes {
        return Err(Error::Budget {
            message: format!(
                "the Worker bundle would be about {total} bytes, over the limit of {} bytes \
                 ([budget] max_bundle_bytes); the largest files: {}",
                budget.max_bundle_bytes,
                largest(files)
            ),
        });
    }
    Ok(())
}

/// Warnings for what is past 80% of its limit.
pub fn warnings(files: &[File], budget: &BudgetConfig) -> Vec<String> {
    let mut out = Vec::new();
    let total = bundle_bytes(files);
    if total * 100 > budget.max_bundle_bytes * WARN_PERCENT {
        out.push(format!(
            "the Worker bundle is about {total} bytes, {}% of the {}-byte limit; the largest files: {}",
            total * 100 / budget.max_bundle_bytes,
            budget.max_bundle_bytes,
            largest(files)
        ));
    }
    for file in files
        .iter()
        .filter(|f| f.size * 100 > budget.max_file_bytes * WARN_PERCENT)
    {
        out.push(format!(
            "{} is {} bytes, past 80% of the per-file limit",
            file.path, file.size
        ));
    }
    out
}

/// The error for a bundle that cannot fit: `floor` bytes at least, with the largest of these
/// files (path, bytes stored).
pub(crate) fn over(floor: u64, budget: &BudgetConfig, mut files: Vec<(String, u64)>) -> Error {
    files.sort_by_key(|(_, size)| std::cmp::Reverse(*size));
    let largest: Vec<String> = files
        .iter()
        .take(5)
        .map(|(path, size)| format!("{path} ({size} bytes)"))
        .collect();
    Error::Budget {
        message: format!(
            "the Worker bundle would be at least {floor} bytes, over the limit of {} bytes \
             ([budget] max_bundle_bytes) with what [compression] store allows; stopped before \
             compressing everything; the largest files: {}",
            budget.max_bundle_bytes,
            largest.join(", ")
        ),
    }
}

/// The five files that take the most space, with their stored bytes.
fn largest(files: &[File]) -> String {
    let mut by_size: Vec<&File> = files.iter().collect();
    by_size.sort_by_key(|f| std::cmp::Reverse(stored_bytes(f)));
    by_size
        .iter()
        .take(5)
        .map(|f| format!("{} ({} bytes)", f.path, stored_bytes(f)))
        .collect::<Vec<_>>()
        .join(", ")
}
