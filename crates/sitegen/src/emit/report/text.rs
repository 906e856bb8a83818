//! `report.txt`: every file's stored sizes and savings, the totals, the time the compile
//! took (and how much came from the compression cache), the bundle estimate against the
//! limit, and the warnings. Printed by `build.rs` at every build and written next to the
//! manifest.

use super::smallest;
use crate::model::{Asset, Manifest, RouteTarget, Written};
use crate::storage;
use edgesite_core::ContentCoding;
use std::fmt::Write as _;

/// The most file rows printed; larger sites show the largest files and a count of the rest.
const MAX_ROWS: usize = 40;

impl Manifest {
    /// The bundle with its tables as written, and what a Worker's isolate holds for the site,
    /// each against its limit (`[budget] max_bundle_bytes`, `max_memory_bytes`): what the build
    /// held them to, where the bundle estimate is from above.
    pub fn written_line(&self, written: &Written) -> String {
        let (tables, decoded) = (written.tables_bytes, written.decoded_bytes);
        let storage::WorkerBytes {
            bundle, isolate, ..
        } = storage::worker_bytes(&self.files, tables, decoded);
        let budget = &self.budget;
        format!(
            "as written: bundle {bundle} bytes (tables {tables}) of the {}-byte limit: {}%; a \
             Worker's isolate holds at most {isolate} bytes (the tables, {decoded} more decoded \
             or their second copy at start, the bundle's files, the runtime) of the {}-byte \
             limit: {}%\n",
            budget.max_bundle_bytes,
            bundle * 100 / budget.max_bundle_bytes.max(1),
            budget.max_memory_bytes,
            isolate * 100 / budget.max_memory_bytes.max(1),
        )
    }

    /// The report as text (one table, then totals).
    pub fn report(&self) -> String {
        let mut out = table_header();
        let mut rows: Vec<&Asset> = self.files.iter().collect();
        if rows.len() > MAX_ROWS {
            rows.sort_by_key(|f| std::cmp::Reverse(f.size));
            rows.truncate(MAX_ROWS);
        }
        for file in &rows {
            out.push_str(&row(file));
        }
        if self.files.len() > rows.len() {
            let _ = writeln!(
                out,
                "... and {} smaller files",
                self.files.len() - rows.len()
            );
        }
        out.push_str(&self.totals());
        out.push_str(&self.stage_times());
        out.push_str(&self.images());
        out.push_str(&self.warnings_text());
        out
    }

    /// The warnings: how many of each kind, then each on a line of its own (what the
    /// terminal shows). Empty when there is none.
    fn warnings_text(&self) -> String {
        if self.warnings.is_empty() {
            return String::new();
        }
        let mut kinds = std::collections::BTreeMap::new();
        for warning in &self.warnings {
            *kinds.entry(warning.kind).or_insert(0) += 1;
        }
        let kinds: Vec<String> = kinds
            .iter()
            .map(|(kind, count)| format!("{count} {}", kind.name()))
            .collect();
        let mut out = format!("warnings: {} ({})\n", self.warnings.len(), kinds.join(", "));
        for warning in &self.warnings {
            let _ = writeln!(out, "  {warning}");
        }
        out
    }

    /// One line: each stage's wall time.
    fn stage_times(&self) -> String {
        let stages: Vec<String> = self
            .stats
            .stages
            .iter()
            .map(|(stage, ms)| format!("{stage} {ms} ms"))
            .collect();
        format!("stages: {}\n", stages.join(", "))
    }

    /// The image stage: per image, every candidate with its bytes, score and fate; then totals
    /// per format. Empty when the site has no image the stage read.
    fn images(&self) -> String {
        let images: Vec<&Asset> = self.files.iter().filter(|f| f.image.is_some()).collect();
        if images.is_empty() {
            return String::new();
        }
        let s = &self.stats.images;
        let mut out = format!(
            "images: {} read ({} made now, the rest from the cache), {} bytes as published, {} as \
             served; {} variants kept ({} bytes), {} left out to fit the budget; {} ms\n",
            s.images,
            s.encoded,
            s.original_bytes,
            s.served_bytes,
            s.variants,
            s.variant_bytes,
            s.left_out,
            s.wall_time_ms
        );
        let mut per_format: std::collections::BTreeMap<&str, (usize, u64)> = Default::default();
        for file in images.iter().take(MAX_ROWS) {
            let Some(report) = &file.image else { continue };
            let (w, h) = report.dimensions;
            let _ = write!(
                out,
                "  {} {w}x{h}: {} bytes, served {}",
                file.path, report.original_bytes, file.size
            );
            match &report.left_as_is {
                Some(why) => {
                    let _ = writeln!(out, "; {why}");
                }
                None => out.push('\n'),
            }
            for c in &report.candidates {
                let score = c.score.map_or(String::new(), |s| format!(", score {s:.1}"));
                let fate = if c.kept { "kept" } else { "dropped" };
                let _ = writeln!(
                    out,
                    "    {}: {} bytes{score}: {fate}, {}",
                    c.kind, c.bytes, c.why
                );
            }
        }
        if images.len() > MAX_ROWS {
            let _ = writeln!(out, "  ... and {} more images", images.len() - MAX_ROWS);
        }
        for file in &images {
            for variant in &file.variants {
                let entry = per_format.entry(variant.content_type).or_default();
                entry.0 += 1;
                entry.1 += variant.representation.size;
            }
        }
        for (format, (count, bytes)) in per_format {
            let _ = writeln!(out, "  {format}: {count} variants, {bytes} bytes");
        }
        out
    }

    /// The totals: sizes and savings, build time, routes and rules, build id, bundle estimate
    /// (and, once the tables are written, the bundle and the isolate as written).
    fn totals(&self) -> String {
        let identity: u64 = self.files.iter().map(|f| f.size).sum();
        let best: u64 = self.files.iter().map(smallest).sum();
        let stats = &self.stats;
        let redirects = self
            .routes
            .iter()
            .filter(|r| matches!(r.target, RouteTarget::Redirect { .. }))
            .count();
        let bundle = storage::bundle_bytes(&self.files);
        let d = &stats.deltas;
        format!(
            "{} files, {identity} bytes; smallest encodings {best} bytes ({}% saved); compiled in {} ms \
             ({} encodings computed, {} from the cache{})\n\
             {} routes ({redirects} redirects, canonical URLs and fixed _redirects rules included); {} _redirects rules matched at run time\n\
             {}\n\
             {}\n\
             links: {} local references in {} HTML and CSS files, {} given ?v= and {} links to pages led past a redirect in {} rewritten files, {} broken, {} preload hints, {} pages with their stylesheets inline, {} images given their size, {} likely LCP images given priority, {} images made lazy; {} ms\n\
             deltas (RFC 9842): {} in {} files, {} bytes, against {} earlier deploys ({} computed, {} from the cache); {} files offered as dictionaries; html dictionary: {} bytes, {} pages with deltas; skew protection: {} files of earlier deploys kept ({} bytes); {} ms\n\
             build id {}\n\
             storage: {}\n\
             {}\n\
             bundle estimate {bundle} bytes (site + {} bytes of code and tables) of the {}-byte limit: {}%\n",
            stats.files,
            percent_saved(identity, best),
            stats.wall_time_ms,
            stats.encodings.encoded,
            stats.encodings.cached,
            quick_note(stats.encodings.quick),
            self.routes.len(),
            self.rules.len(),
            optimize_line(&stats.optimize),
            agents_line(&stats.agents),
            stats.links.references,
            stats.links.files,
            stats.links.fingerprinted,
            stats.links.navigations,
            stats.links.rewritten_files,
            stats.links.broken,
            stats.links.preload_hints,
            stats.links.inlined_css,
            stats.links.sized_images,
            stats.links.lcp_images,
            stats.links.lazy_images,
            stats.links.wall_time_ms,
            d.deltas,
            d.files,
            d.bytes,
            d.deploys,
            d.encoded,
            d.cached,
            d.dictionaries,
            d.html_dictionary_bytes,
            d.html_pages,
            d.kept.files,
            d.kept.bytes,
            d.wall_time_ms,
            self.build_id,
            self.store.reason,
            self.tiers(),
            storage::code_bytes(&self.files),
            self.budget.max_bundle_bytes,
            bundle * 100 / self.budget.max_bundle_bytes.max(1)
        ) + &self.written.map_or(String::new(), |w| self.written_line(&w))
    }
}

impl Manifest {
    /// The tiers line: the files of each, and the store's objects against their limit.
    fn tiers(&self) -> String {
        let held = storage::held(&self.files);
        let [r2_files, r2_objects, r2_bytes] = held.r2;
        format!(
            "tiers: bundle {} files; store (Static Assets) {} files, {} objects, {} bytes, {}% \
             of the {}-object limit; R2 {r2_files} files, {r2_objects} objects, {r2_bytes} bytes",
            held.bundle_files,
            held.store_files,
            held.objects,
            held.bytes,
            held.objects * 100 / self.storage.max_asset_files.max(1),
            self.storage.max_asset_files
        )
    }
}

/// How many encodings were had at quick settings (`EDGESITE_ENCODINGS=quick`), when any were.
fn quick_note(quick: usize) -> String {
    match quick {
        0 => String::new(),
        _ => format!(
            "; {quick} of them at quick settings, as make dev asks (EDGESITE_ENCODINGS=quick): \
             a deploy build makes them at the configured ones"
        ),
    }
}

/// The codings with a column: every one but identity, in core's order.
fn encoded_codings() -> impl Iterator<Item = ContentCoding> {
    ContentCoding::ALL
        .into_iter()
        .filter(|c| *c != ContentCoding::Identity && !c.needs_dictionary())
}

fn table_header() -> String {
    let mut out = format!("{:<44} {:>9}", "file", "identity");
    for coding in encoded_codings() {
        let _ = write!(out, " {:>9}", coding.token());
    }
    let _ = writeln!(out, " {:>6}  cache", "saved");
    out
}

/// One file: its stored sizes, the best saving and why it got its Cache-Control.
fn row(file: &Asset) -> String {
    let mut out = format!("{:<44} {:>9}", truncate(&file.path, 44), file.size);
    for coding in encoded_codings() {
        let size = file
            .representations
            .iter()
            .find(|v| v.coding == coding)
            .map_or("-".to_string(), |v| v.size.to_string());
        let _ = write!(out, " {size:>9}");
    }
    let _ = writeln!(
        out,
        " {:>5}%  {:?}",
        percent_saved(file.size, smallest(file)),
        file.cache_reason
    );
    out
}

/// The agents stage's line: twins, their bytes and tokens against the pages', llms.txt.
pub(super) fn agents_line(stats: &crate::model::AgentStats) -> String {
    let mut line = format!(
        "agents: {} Markdown twins, {} pages without ({}); HTML {} -> Markdown {} bytes, \
         tokens (estimated) {} -> {} ({}% fewer);",
        stats.twins,
        stats.skipped.len(),
        skipped_reasons(&stats.skipped),
        stats.html_bytes,
        stats.markdown_bytes,
        stats.html_tokens,
        stats.markdown_tokens,
        percent_saved(stats.html_tokens, stats.markdown_tokens),
    );
    let mut fewer: Vec<u64> = (stats.pages.iter())
        .map(|p| percent_saved(p.html_tokens, p.markdown_tokens))
        .collect();
    fewer.sort_unstable();
    if let (Some(least), Some(most)) = (fewer.first(), fewer.last()) {
        let median = fewer[fewer.len() / 2];
        let _ = write!(
            line,
            " per page {median}% fewer (median; {least}% to {most}%);"
        );
    }
    for path in &stats.llms {
        line.push(' ');
        line.push_str(path);
    }
    if !stats.llms.is_empty() {
        let _ = write!(line, " ({} twins in the full one);", stats.full_pages);
    }
    let _ = write!(line, " {} ms", stats.wall_time_ms);
    line
}

/// How many pages were left without a twin for each reason: `2 no text in its main content`.
fn skipped_reasons(skipped: &[(String, String)]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for (_, why) in skipped {
        match counts.iter_mut().find(|(w, _)| *w == why.as_str()) {
            Some((_, n)) => *n += 1,
            None => counts.push((why, 1)),
        }
    }
    let parts: Vec<String> = counts.iter().map(|(why, n)| format!("{n} {why}")).collect();
    match parts.is_empty() {
        true => "none".to_string(),
        false => parts.join(", "),
    }
}

/// The optimize stage's line: per kind, the files minified and the bytes before and after.
pub(super) fn optimize_line(stats: &crate::model::OptimizeStats) -> String {
    let kinds = [
        ("HTML", &stats.html),
        ("CSS", &stats.css),
        ("JS", &stats.js),
    ];
    let mut line = String::from("optimize:");
    for (name, kind) in kinds {
        let _ = write!(
            line,
            " {name} {} of {} files minified, {} -> {} bytes ({}% saved; {} kept as written, {} \
             skipped);",
            kind.minified,
            kind.files,
            kind.bytes,
            kind.minified_bytes,
            percent_saved(kind.bytes, kind.minified_bytes),
            kind.kept,
            kind.skipped
        );
    }
    if stats.spaces_kept {
        line.push_str(" whitespace kept (a stylesheet keeps spaces outside <pre>);");
    }
    let _ = write!(
        line,
        " {} from the cache; {} ms",
        stats.cached, stats.wall_time_ms
    );
    line
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
