//! Size budgets: the embedded site counts against the Worker's size limit (Cloudflare documents
//! 64 MiB uncompressed; older limits were 1 MB, then 3 MB / 10 MB compressed). The build fails
//! past `[budget]`'s limits, naming the files that take the most space, and warns past 80%.

use crate::config::BudgetConfig;
use crate::error::escaped;
use crate::error::Error;
use crate::model::{Asset, Manifest, Tier, Written, CODE_ESTIMATE_BYTES, RUNTIME_MEMORY_BYTES};
use crate::warning::{Warning, WarningKind};

/// The share of a limit past which the build warns.
const WARN_PERCENT: u64 = 80;

/// The estimated bundle: every representation it keeps (not those decoded on demand, nor those
/// in the store), plus the code and the tables.
pub(crate) fn bundle_bytes(files: &[Asset]) -> u64 {
    files.iter().map(Asset::bundle_bytes).sum::<u64>() + code_bytes(files)
}

/// The Worker's code and its tables: [`CODE_ESTIMATE_BYTES`], every file's
/// [`Asset::table_bytes`] (a 20,004-file site's tables are 5 MB: they outgrow the code), and
/// the text of the pages' preload hints, each once (the tables write a string once: pages that
/// preload the same stylesheet share one).
pub(crate) fn code_bytes(files: &[Asset]) -> u64 {
    let mut seen = std::collections::HashSet::new();
    let links: usize = files
        .iter()
        .flat_map(|file| &file.fields)
        .filter(|(name, value)| name == "link" && seen.insert(value.as_str()))
        .map(|(_, value)| value.len())
        .sum();
    files.iter().map(Asset::table_bytes).sum::<u64>() + links as u64 + CODE_ESTIMATE_BYTES
}

impl Manifest {
    /// The estimated bundle of this compile: every representation the bundle keeps (not those
    /// decoded on demand, nor those in the store), plus the code and its tables.
    pub fn bundle_bytes(&self) -> u64 {
        bundle_bytes(&self.files)
    }
}

/// The largest file edgesite keeps in R2: R2's largest object, 5 GiB less than 5 TiB
/// (developers.cloudflare.com/r2/reference/limits). `make deploy` puts any of these
/// (scripts/r2-put.mjs: through R2's S3 API in up to 10,000 parts, or through `wrangler r2
/// object put` up to 300 MiB); the tables hold any length.
pub(crate) const MAX_R2_FILE_BYTES: u64 = (5 << 40) - (5 << 30);

/// Fails when a file or the bundle is over its limit: a file in R2 is held to R2's largest
/// object, every other file to `[budget] max_file_bytes`.
pub(super) fn check(files: &[Asset], budget: &BudgetConfig) -> Result<(), Error> {
    let limit = |f: &Asset| match f.tier {
        Tier::R2 => MAX_R2_FILE_BYTES,
        Tier::Bundle | Tier::Assets => budget.max_file_bytes,
    };
    if let Some(file) = files.iter().find(|f| f.size > limit(f)) {
        let why = match file.tier {
            Tier::R2 => "(R2's largest object, 5 GiB less than 5 TiB)".to_string(),
            Tier::Bundle | Tier::Assets => format!(
                "([budget] max_file_bytes, {} bytes: Static Assets takes files up to 25 MiB; \
                 name an R2 bucket, [storage] r2_bucket, to keep larger ones there)",
                budget.max_file_bytes
            ),
        };
        return Err(Error::Budget {
            message: format!(
                "{} is {} bytes, over the per-file limit {why}",
                file.source, file.size
            ),
        });
    }
    let total = bundle_bytes(files);
    // The tables' estimate is from above (about twice the tables of 100,000 files): past the
    // limit alone, the tables as written decide ([`check_written`]); the files' bytes are
    // counted exactly here.
    if total > budget.max_bundle_bytes && code_bytes(files) <= budget.max_bundle_bytes {
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

/// Fails when the bundle as written (the tables encoded, `tables` bytes, with the bundle's
/// files and the code) is over `[budget] max_bundle_bytes` (the tables of every file are in the
/// bundle wherever its bytes are, so past the limit no tier can help), or the Worker's isolate
/// would hold more than `[budget] max_memory_bytes` ([`check_memory`]); `decoded`: the bytes
/// of wasm memory the decoded tables take beside them. The error is of kind `FileTooLarge`.
pub(crate) fn check_written(
    files: &[Asset],
    tables: u64,
    decoded: u64,
    budget: &BudgetConfig,
) -> std::io::Result<()> {
    let worker = worker_bytes(files, tables, decoded);
    let over = if worker.bundle <= budget.max_bundle_bytes {
        check_memory(
            files.len() as u64,
            (worker.files, tables, decoded),
            worker.isolate,
            budget,
        )
    } else {
        Err(bundle_over(
            files.len(),
            worker.bundle,
            tables,
            worker.files,
            budget,
        ))
    };
    over.map_err(|message| std::io::Error::new(std::io::ErrorKind::FileTooLarge, message))
}

/// What a Worker holds of a site, in bytes ([`worker_bytes`]).
pub(crate) struct WorkerBytes {
    /// The files the bundle keeps.
    pub(crate) files: u64,
    /// The bundle: the tables, those files and the code.
    pub(crate) bundle: u64,
    /// What its isolate holds for the site at most: the runtime, the bundle's files, the tables,
    /// and beside them what they decode into, or at start, before the entry lets the data module
    /// go, their second copy.
    pub(crate) isolate: u64,
}

/// What a Worker holds of the site of `files`, for tables of `tables` bytes that decode into
/// `decoded`.
pub(crate) fn worker_bytes(files: &[Asset], tables: u64, decoded: u64) -> WorkerBytes {
    let bytes: u64 = files.iter().map(Asset::bundle_bytes).sum();
    WorkerBytes {
        files: bytes,
        bundle: tables + bytes + CODE_ESTIMATE_BYTES,
        isolate: RUNTIME_MEMORY_BYTES + bytes + tables + decoded.max(tables),
    }
}

/// Why a bundle of `total` bytes, `tables` of them the tables' and `bytes` the files', is over
/// its limit.
fn bundle_over(files: usize, total: u64, tables: u64, bytes: u64, budget: &BudgetConfig) -> String {
    format!(
        "the Worker bundle would be {total} bytes, over the limit of {} bytes ([budget] \
         max_bundle_bytes): the tables of the site's {files} files are {tables} bytes, its files in \
         the bundle {bytes}; serve fewer files from this Worker, or fewer representations of \
         each ([compression] codings, [agents] enabled)",
        budget.max_bundle_bytes,
    )
}

/// The warning for a bundle past 80% of its limit by its estimate (the tables' share from
/// above), made while the tables are not yet written; none once the store takes files (a full
/// bundle is then the plan). The written tables replace it ([`written_warnings`]).
pub(crate) fn bundle_warning(files: &[Asset], budget: &BudgetConfig) -> Option<Warning> {
    let total = bundle_bytes(files);
    let planned = files.iter().any(|f| f.tier.is_stored());
    let past = total * 100 > budget.max_bundle_bytes.saturating_mul(WARN_PERCENT);
    (!planned && past).then(|| {
        let message = format!(
            "the Worker bundle is about {total} bytes, {}% of the {}-byte limit; the largest files: {}",
            total * 100 / budget.max_bundle_bytes,
            budget.max_bundle_bytes,
            largest(files)
        );
        Warning::new(WarningKind::NearBudget, message)
    })
}

/// Warnings for the files past 80% of the per-file limit (those in R2 have R2's).
pub(super) fn file_warnings(files: &[Asset], budget: &BudgetConfig) -> Vec<Warning> {
    (files.iter())
        .filter(|f| f.tier != Tier::R2)
        .filter(|f| f.size * 100 > budget.max_file_bytes.saturating_mul(WARN_PERCENT))
        .map(|file| {
            let message = format!("{} bytes, past 80% of the per-file limit", file.size);
            Warning::new(WarningKind::NearBudget, message).in_file(escaped(&file.path))
        })
        .collect()
}

/// Warnings from the tables as written (`written`), where the storage stage had their
/// estimate: the bundle past 80% of `max_bundle_bytes` (unless the store takes files and the
/// tables and code alone are within 80%: a bundle filled with files is then the plan), and a
/// Worker's isolate past 80% of `max_memory_bytes`.
pub(crate) fn written_warnings(
    files: &[Asset],
    written: Written,
    budget: &BudgetConfig,
) -> Vec<Warning> {
    let (tables, decoded) = (written.tables_bytes, written.decoded_bytes);
    let worker = worker_bytes(files, tables, decoded);
    let past = |bytes: u64, limit: u64| bytes * 100 > limit.saturating_mul(WARN_PERCENT);
    let planned = files.iter().any(|f| f.tier.is_stored());
    let mut out = Vec::new();
    let max_bundle = budget.max_bundle_bytes;
    if past(worker.bundle, max_bundle)
        && (!planned || past(tables + CODE_ESTIMATE_BYTES, max_bundle))
    {
        // Files stored elsewhere are no help to name: the tables fill the bundle then.
        let largest = match planned {
            true => String::new(),
            false => format!("; the largest: {}", largest(files)),
        };
        let message = format!(
            "the Worker bundle is {} bytes as written, {}% of the {max_bundle}-byte limit \
             ([budget] max_bundle_bytes): the tables of the site's {} files {tables}, its files \
             in the bundle {}{largest}",
            worker.bundle,
            worker.bundle * 100 / max_bundle.max(1),
            files.len(),
            worker.files,
        );
        out.push(Warning::new(WarningKind::NearBudget, message));
    }
    let max_memory = budget.max_memory_bytes;
    if past(worker.isolate, max_memory) {
        let message = format!(
            "a Worker's isolate would hold {} bytes, {}% of the {max_memory}-byte limit \
             ([budget] max_memory_bytes): the tables of the site's {} files {tables}, with \
             {decoded} more decoded beside them, its files in the bundle {}, the runtime \
             {RUNTIME_MEMORY_BYTES}",
            worker.isolate,
            worker.isolate * 100 / max_memory.max(1),
            files.len(),
            worker.files
        );
        out.push(Warning::new(WarningKind::NearBudget, message));
    }
    out
}

/// The least a Worker's isolate holds for each file's decoded entries, in bytes, where the
/// tables are Rust (a library-mode Worker's) and their decoded size is not known: the decoded
/// tables' share of wasm memory was measured at 282 bytes a file (200,008 files, two
/// representations each) and at 402 (40,009 files, four each), under bare workerd through its
/// inspector (docs/benchmarks.md, "With Markdown twins").
pub(crate) const DECODED_LEAST_PER_FILE: u64 = 200;

/// Fails when the Worker's isolate would hold more than `[budget] max_memory_bytes` (128 MiB,
/// Cloudflare's limit, with wasm memory and ArrayBuffers counted) for the site and the runtime
/// ([`RUNTIME_MEMORY_BYTES`]): `isolate` bytes ([`worker_bytes`]) of the bundle's files
/// (`bundle_files`, the entry's data modules), the tables (`tables`, copied into wasm memory at
/// start; the entry then lets the data module's copy go) and what they decode into (`decoded`,
/// their wasm32 size: `edgesite_tables::decode_measured`; measured: a 40,009-file site's wasm
/// memory was its tables, their decoded size and 1.3 MB, to the 64 KiB page). Such a Worker
/// builds and serves under bare workerd, which sets no limit; Cloudflare holds an isolate to
/// 128 MB. The native twin's build is held to it too, as to the bundle's limit: it serves what
/// the Worker would.
fn check_memory(
    files: u64,
    (bundle_files, tables, decoded): (u64, u64, u64),
    isolate: u64,
    budget: &BudgetConfig,
) -> Result<(), String> {
    if isolate <= budget.max_memory_bytes {
        return Ok(());
    }
    Err(format!(
        "the Worker would hold {isolate} bytes, over the limit of {} bytes ([budget] \
         max_memory_bytes, a Worker isolate's memory): the tables of the site's {files} files \
         are {tables} bytes, with {decoded} more decoded beside them in wasm memory (or, at \
         start, their second copy), its files in the bundle {bundle_files}, and the runtime \
         {RUNTIME_MEMORY_BYTES}; serve \
         fewer files from this Worker, or fewer representations of each ([compression] \
         codings, [agents] enabled)",
        budget.max_memory_bytes
    ))
}

/// The five files that take the most space, with their stored bytes.
fn largest(files: &[Asset]) -> String {
    let mut by_size: Vec<&Asset> = files.iter().collect();
    by_size.sort_by_cached_key(|f| std::cmp::Reverse(f.bundle_bytes()));
    by_size
        .iter()
        .take(5)
        .map(|f| format!("{} ({} bytes)", f.path, f.bundle_bytes()))
        .collect::<Vec<_>>()
        .join(", ")
}
