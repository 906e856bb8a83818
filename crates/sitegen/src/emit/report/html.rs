//! `report.html`: the build report as one self-contained page (no request when opened, works
//! from `file://`): the bundle as a treemap against the budget, savings by content type and by
//! encoding, the cache policy, links, deltas and kept deploys, and each stage's time. Every
//! figure is computed here from the same [`Manifest`] that `manifest.json` and `report.txt`
//! are written from, and the raw number sits in a `data-n` attribute beside the one shown
//! (the views layer compares them in Chromium).

use super::smallest;
use super::treemap::{self, Rect};
use crate::model::CacheReason;
use crate::model::{Asset, Manifest, Tier};
use crate::storage;
use crate::warning::{Warning, WarningKind};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The treemap's drawing area, in SVG units.
const MAP: Rect = Rect {
    x: 0.0,
    y: 0.0,
    w: 1000.0,
    h: 520.0,
};

/// The most rows of the per-page tables.
const MAX_ROWS: usize = 50;

impl Manifest {
    /// The report as a self-contained HTML page.
    pub fn report_html(&self) -> String {
        let mut out = String::with_capacity(64 * 1024);
        out.push_str(HEAD);
        let _ = write!(
            out,
            "<h1>edgesite build <code id=\"build-id\">{}</code></h1>\n<p>{} files from <code>{}</code>, compiled in {} ms.</p>\n",
            esc(&self.build_id),
            n("files", self.files.len() as u64),
            esc(&self.site_dir.display().to_string()),
            n("wall-time-ms", self.stats.wall_time_ms),
        );
        out.push_str(&self.budget_section());
        out.push_str(&self.treemap_section());
        out.push_str(&self.savings_section());
        out.push_str(&self.cache_section());
        out.push_str(&self.optimize_section());
        out.push_str(&self.links_section());
        out.push_str(&self.agents_section());
        out.push_str(&self.deltas_section());
        out.push_str(&self.warnings_section());
        out.push_str(&self.stages_section());
        out.push_str(SCRIPT);
        out.push_str("</body>\n</html>\n");
        out
    }

    /// The bundle against its limit (as written once the tables are, else the storage stage's
    /// estimate), and, once written, a Worker's isolate against its memory limit.
    fn budget_section(&self) -> String {
        let estimate = storage::bundle_bytes(&self.files);
        let limit = self.budget.max_bundle_bytes.max(1);
        let (bundle, what, isolate) = match self.written {
            Some(written) => {
                let worker =
                    storage::worker_bytes(&self.files, written.tables_bytes, written.decoded_bytes);
                let what = format!(
                    concat!(
                        "the site's bytes in the bundle {}, its tables as written {} and the code; ",
                        "the storage stage placed the files by an estimate from above, {} bytes"
                    ),
                    worker.files,
                    n("tables-bytes", written.tables_bytes),
                    n("bundle-estimate-bytes", estimate),
                );
                let isolate = self.isolate_paragraph(worker.isolate, written.decoded_bytes);
                (worker.bundle, what, isolate)
            }
            None => {
                let what = format!(
                    "the site's stored bytes and {} bytes of code and tables",
                    storage::code_bytes(&self.files)
                );
                (estimate, what, String::new())
            }
        };
        format!(
            concat!(
                "<section id=\"budget\"><h2>Budget</h2>\n{}",
                "<p>{} bytes of the {}-byte limit ({}%: {}), stored <b id=\"store\">{:?}</b>: {}</p>\n",
                "{}{}</section>\n"
            ),
            bar(bundle, limit),
            n("bundle-bytes", bundle),
            n("budget-bytes", limit),
            n("budget-percent", bundle * 100 / limit),
            what,
            self.store.store,
            esc(&self.store.reason),
            isolate,
            self.tiers_paragraph(),
        )
    }

    /// What a Worker's isolate holds for the site (`isolate` bytes, of which `decoded` the
    /// tables decoded) against `[budget] max_memory_bytes`: a bar and a line.
    fn isolate_paragraph(&self, isolate: u64, decoded: u64) -> String {
        let memory = self.budget.max_memory_bytes.max(1);
        format!(
            concat!(
                "{}<p>A Worker's isolate holds at most {} bytes of the {}-byte limit ({}%: the ",
                "tables, {} bytes more as they decode, the bundle's files and the runtime).</p>\n"
            ),
            bar(isolate, memory),
            n("isolate-bytes", isolate),
            n("memory-limit-bytes", memory),
            n("memory-percent", isolate * 100 / memory),
            decoded,
        )
    }

    /// The files of each tier, and the store's objects against their limit.
    fn tiers_paragraph(&self) -> String {
        let held = storage::held(&self.files);
        let limit = self.storage.max_asset_files.max(1);
        format!(
            "<p id=\"tiers\">The bundle: {} files. The store (Static Assets): {} files, {} \
             objects, {} bytes, of {limit} objects at most ({}%). R2: {} files, {} objects, {} \
             bytes.</p>\n",
            n("bundle-files", held.bundle_files),
            n("store-files", held.store_files),
            n("store-objects", held.objects),
            n("store-bytes", held.bytes),
            held.objects * 100 / limit,
            n("r2-files", held.r2[0]),
            n("r2-objects", held.r2[1]),
            n("r2-bytes", held.r2[2]),
        )
    }

    fn treemap_section(&self) -> String {
        let sizes: Vec<(&str, u64)> = self
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.stored_bytes()))
            .collect();
        let root = treemap::tree(&sizes);
        let mut rects = Vec::new();
        treemap::layout(&root, MAP, &mut rects);
        let by = self.treemap_colour();
        let mut svg = format!(
            "<svg id=\"treemap\" class=\"by-{by}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"stored bytes by folder and file\">\n",
            MAP.w, MAP.h
        );
        for (rect, node) in &rects {
            let (class, title, attrs) = match node.file {
                Some(i) => {
                    let file = &self.files[i];
                    let (where_, tier, class) = match file.tier {
                        Tier::Bundle => ("", "bundle", ""),
                        Tier::Assets => (", in the store (Static Assets)", "assets", "stored"),
                        Tier::R2 => (", in the store (R2)", "r2", "stored r2"),
                    };
                    let title = format!(
                        "{} ({}): {} bytes{where_}",
                        file.path, file.content_type, node.bytes
                    );
                    let attrs = format!(
                        " data-path=\"{}\" data-n=\"{}\" data-tier=\"{tier}\"",
                        esc(&file.path),
                        node.bytes,
                    );
                    let class = format!("{} {class}", family(file.content_type));
                    (class, title, attrs)
                }
                None => (
                    "folder".to_string(),
                    format!("{}/: {} bytes", node.name, node.bytes),
                    String::new(),
                ),
            };
            let _ = writeln!(
                svg,
                "<rect class=\"{class}\" x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{:.2}\"{attrs}><title>{}</title></rect>",
                rect.x, rect.y, rect.w, rect.h, esc(&title)
            );
            if node.file.is_some() && rect.w > 60.0 && rect.h > 14.0 {
                let _ = writeln!(
                    svg,
                    "<text x=\"{:.2}\" y=\"{:.2}\">{}</text>",
                    rect.x + 3.0,
                    rect.y + 12.0,
                    esc(&node.name)
                );
            }
        }
        svg.push_str("</svg>\n");
        format!(
            "<section><h2>The site: {} bytes stored, by folder and file</h2>\n{}{svg}</section>\n",
            n("site-bytes", root.bytes),
            treemap_legend(by),
        )
    }

    /// What the treemap is coloured by first: the tier where the site has more than the bundle
    /// (issue 33: where its bytes are is then what the map is read for), else the content type.
    fn treemap_colour(&self) -> &'static str {
        if self.files.iter().any(|f| f.tier != Tier::Bundle) {
            "tier"
        } else {
            "type"
        }
    }

    fn savings_section(&self) -> String {
        format!(
            "<section id=\"savings\"><h2>Savings</h2>\n{}{}</section>\n",
            self.savings_by_type(),
            self.savings_by_coding()
        )
    }

    /// Per content type: files, identity bytes, stored bytes, the smallest a file is sent in (an
    /// encoding or an image variant), saved.
    fn savings_by_type(&self) -> String {
        let mut by_type: BTreeMap<&str, [u64; 4]> = BTreeMap::new();
        for file in &self.files {
            let row = by_type.entry(file.content_type).or_default();
            row[0] += 1;
            row[1] += file.size;
            row[2] += file.stored_bytes();
            // What the file can be sent in at its smallest: an encoding, or an image variant
            // (AVIF, WebP), counted in the row of the file's own type.
            let variants = file.variants.iter().map(|v| v.representation.size);
            row[3] += variants.fold(smallest(file), u64::min);
        }
        let mut out = String::from(
            "<table class=\"sortable\" id=\"by-type\"><thead><tr><th>content type</th><th>files</th><th>identity bytes</th><th>stored bytes</th><th>smallest sent (encoding or variant)</th><th>bytes saved</th></tr></thead><tbody>\n",
        );
        for (kind, [files, identity, stored, best]) in &by_type {
            let _ = writeln!(
                out,
                "<tr data-type=\"{}\"><td>{}</td>{}{}{}{}{}</tr>",
                esc(kind),
                esc(kind),
                td(*files),
                td(*identity),
                td(*stored),
                td(*best),
                td(identity - best.min(identity))
            );
        }
        out.push_str("</tbody></table>\n");
        out
    }

    /// Per encoding, delta coding and variant type: representations, their bytes, the identity
    /// bytes of their files, saved.
    fn savings_by_coding(&self) -> String {
        let mut by_coding: BTreeMap<String, [u64; 3]> = BTreeMap::new();
        for file in &self.files {
            let deltas = file.deltas.iter().map(|d| {
                let r = &d.representation;
                (format!("delta {}", r.coding.token()), r.size)
            });
            let variants = file
                .variants
                .iter()
                .map(|v| (format!("variant {}", v.content_type), v.representation.size));
            let all = file
                .representations
                .iter()
                .map(|r| (r.coding.token().to_string(), r.size))
                .chain(deltas)
                .chain(variants);
            for (coding, size) in all {
                let row = by_coding.entry(coding).or_default();
                row[0] += 1;
                row[1] += size;
                row[2] += file.size;
            }
        }
        let mut out = String::from("<table class=\"sortable\" id=\"by-coding\"><thead><tr><th>encoding</th><th>representations</th><th>bytes</th><th>identity bytes of those files</th><th>bytes saved</th></tr></thead><tbody>\n");
        for (coding, [count, bytes, identity]) in &by_coding {
            let _ = writeln!(
                out,
                "<tr data-coding=\"{}\"><td>{}</td>{}{}{}{}</tr>",
                esc(coding),
                esc(coding),
                td(*count),
                td(*bytes),
                td(*identity),
                td(identity.saturating_sub(*bytes))
            );
        }
        out.push_str("</tbody></table>\n");
        out
    }

    fn cache_section(&self) -> String {
        let mut groups: BTreeMap<&str, Vec<&Asset>> = BTreeMap::new();
        for file in &self.files {
            let group = match (file.cache_reason, file.fingerprint.is_empty()) {
                (CacheReason::Fingerprinted, _) => "immutable: the name carries its verified hash",
                (_, false) => "immutable at its ?v= URL, revalidated at its plain URL",
                (CacheReason::Rule, true) => "set by a rule ([[cache.rules]] or _headers)",
                (CacheReason::Html, true) => "revalidated: a page",
                (CacheReason::Default, true) => "revalidated: the default",
            };
            groups.entry(group).or_default().push(file);
        }
        let mut out = String::from("<section id=\"cache\"><h2>Cache policy</h2>\n");
        for (i, (group, files)) in groups.iter().enumerate() {
            let _ = write!(
                out,
                "<details><summary>{}: {} files</summary><ul>",
                esc(group),
                n(&format!("cache-{i}"), files.len() as u64)
            );
            for file in files.iter().take(MAX_ROWS * 4) {
                let _ = write!(
                    out,
                    "<li><code>{}</code>: {}</li>",
                    esc(&file.path),
                    esc(&file.cache_control)
                );
            }
            out.push_str("</ul></details>\n");
        }
        out.push_str("</section>\n");
        out
    }

    /// What the optimize stage minified, per kind, and what it kept as written and why.
    fn optimize_section(&self) -> String {
        let stats = &self.stats.optimize;
        let mut out = String::from(
            "<section id=\"optimize\"><h2>Minified</h2>\n<table><thead><tr><th>kind</th>\
             <th>files</th><th>minified</th><th>bytes</th><th>served</th><th>kept as written</th>\
             <th>skipped</th></tr></thead><tbody>\n",
        );
        for (name, kind) in [
            ("html", &stats.html),
            ("css", &stats.css),
            ("js", &stats.js),
        ] {
            let _ = writeln!(
                out,
                "<tr data-kind=\"{name}\"><td>{name}</td>{}{}{}{}{}{}</tr>",
                td(kind.files as u64),
                td(kind.minified as u64),
                td(kind.bytes),
                td(kind.minified_bytes),
                td(kind.kept as u64),
                td(kind.skipped as u64),
            );
        }
        out.push_str("</tbody></table>\n");
        if stats.spaces_kept {
            out.push_str("<p>Whitespace kept: a stylesheet keeps spaces outside <code>&lt;pre&gt;</code>.</p>\n");
        }
        let kept = self
            .warnings
            .iter()
            .filter(|w| w.kind == WarningKind::NotOptimized);
        out.push_str("<ul id=\"not-optimized\">");
        for warning in kept {
            let _ = write!(out, "<li>{}</li>", esc(&warning.to_string()));
        }
        out.push_str("</ul></section>\n");
        out
    }

    fn links_section(&self) -> String {
        let broken: Vec<&Warning> = self
            .warnings
            .iter()
            .filter(|w| w.kind == WarningKind::BrokenLink)
            .collect();
        let mut out = format!(
            "<section id=\"links\"><h2>Links</h2>\n<p>{} local references in {} HTML and CSS files; {} given <code>?v=</code>; {} links to pages led past a redirect; {} broken; {} preload hints.</p>\n<ul id=\"broken\">",
            n("references", self.stats.links.references as u64),
            self.stats.links.files,
            n("fingerprinted", self.stats.links.fingerprinted as u64),
            self.stats.links.navigations,
            n("broken", self.stats.links.broken as u64),
            n("preload-hints", self.stats.links.preload_hints as u64),
        );
        for warning in &broken {
            let _ = write!(out, "<li><code>{}</code></li>", esc(&warning.to_string()));
        }
        out.push_str("</ul>\n<table class=\"sortable\" id=\"blocking\"><thead><tr><th>page</th><th>render-blocking resources preloaded</th><th>the Link field</th></tr></thead><tbody>\n");
        let mut pages: Vec<(&Asset, usize, &str)> = self
            .files
            .iter()
            .filter_map(|f| {
                let link = f.fields.iter().find(|(k, _)| k == "link")?;
                let hints = link.1.matches("rel=preload").count();
                (hints > 0).then_some((f, hints, link.1.as_str()))
            })
            .collect();
        pages.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.path.cmp(&b.0.path)));
        for (file, hints, link) in pages.iter().take(MAX_ROWS) {
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code></td>{}<td><code>{}</code></td></tr>",
                esc(&file.path),
                td(*hints as u64),
                esc(link)
            );
        }
        out.push_str("</tbody></table></section>\n");
        out
    }

    /// The Markdown twins: totals, each page's bytes and tokens against its twin's (the most
    /// tokens first), the pages without one and why.
    fn agents_section(&self) -> String {
        let a = &self.stats.agents;
        let mut out = format!(
            "<section id=\"agents\"><h2>Pages for agents</h2>\n<p>{} Markdown twins, {} pages \
             without; HTML {} bytes, Markdown {} bytes; tokens (estimated: characters / 4) {} in \
             the HTML, {} in the twins; {} (<code>/llms-full.txt</code>: {} twins).</p>\n\
             <table class=\"sortable\" id=\"twins\"><thead><tr><th>page</th><th>HTML bytes</th>\
             <th>Markdown bytes</th><th>HTML tokens</th><th>Markdown tokens</th></tr></thead>\
             <tbody>\n",
            n("twins", a.twins as u64),
            n("twins-skipped", a.skipped.len() as u64),
            n("twins-html-bytes", a.html_bytes),
            n("twins-markdown-bytes", a.markdown_bytes),
            n("twins-html-tokens", a.html_tokens),
            n("twins-markdown-tokens", a.markdown_tokens),
            match a.llms.is_empty() {
                true => "no llms.txt made".to_string(),
                false => a
                    .llms
                    .iter()
                    .map(|p| format!("<code>{}</code>", esc(p)))
                    .collect::<Vec<_>>()
                    .join(", "),
            },
            a.full_pages,
        );
        let mut pages: Vec<&crate::model::TwinFigures> = a.pages.iter().collect();
        pages.sort_by(|x, y| y.html_tokens.cmp(&x.html_tokens).then(x.path.cmp(&y.path)));
        for page in pages.iter().take(MAX_ROWS) {
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code></td>{}{}{}{}</tr>",
                esc(&page.path),
                td(page.html_bytes),
                td(page.markdown_bytes),
                td(page.html_tokens),
                td(page.markdown_tokens),
            );
        }
        out.push_str("</tbody></table>\n<ul id=\"without-twins\">");
        for (path, why) in a.skipped.iter().take(MAX_ROWS) {
            let _ = write!(out, "<li><code>{}</code>: {}</li>", esc(path), esc(why));
        }
        out.push_str("</ul></section>\n");
        out
    }

    fn deltas_section(&self) -> String {
        let d = &self.stats.deltas;
        let mut out = format!(
            "<section id=\"deltas\"><h2>Deltas and kept deploys</h2>\n<p>{} deltas in {} files ({} bytes) against {} earlier deploys; {} files of earlier deploys kept ({} bytes).</p>\n\
             <table class=\"sortable\"><thead><tr><th>file</th><th>br bytes</th><th>smallest delta bytes</th><th>bytes saved</th></tr></thead><tbody>\n",
            n("deltas", d.deltas as u64),
            d.files,
            n("delta-bytes", d.bytes),
            d.deploys,
            n("kept-files", d.kept.files as u64),
            d.kept.bytes,
        );
        for file in self
            .files
            .iter()
            .filter(|f| !f.deltas.is_empty())
            .take(MAX_ROWS * 4)
        {
            let br = file
                .representations
                .iter()
                .find(|r| r.coding.token() == "br")
                .map_or(file.size, |r| r.size);
            let delta = file
                .deltas
                .iter()
                .map(|d| d.representation.size)
                .min()
                .unwrap_or(br);
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code></td>{}{}{}</tr>",
                esc(&file.path),
                td(br),
                td(delta),
                td(br.saturating_sub(delta))
            );
        }
        out.push_str("</tbody></table></section>\n");
        out
    }

    /// Every warning, by kind, file and line (a sortable table).
    fn warnings_section(&self) -> String {
        let mut out = format!(
            "<section id=\"warnings\"><h2>Warnings</h2>\n<p>{} warnings.</p>\n",
            n("warnings", self.warnings.len() as u64)
        );
        if self.warnings.is_empty() {
            out.push_str("</section>\n");
            return out;
        }
        out.push_str("<table class=\"sortable\"><thead><tr><th>kind</th><th>file</th><th>line</th><th>message</th></tr></thead><tbody>\n");
        for warning in &self.warnings {
            let line = warning.line.map_or(String::new(), |l| l.to_string());
            let _ = writeln!(
                out,
                "<tr data-kind=\"{kind}\"><td>{kind}</td><td><code>{}</code></td><td class=\"n\" data-n=\"{line}\">{line}</td><td>{}</td></tr>",
                esc(warning.file.as_deref().unwrap_or_default()),
                esc(&warning.message),
                kind = warning.kind.name(),
            );
        }
        out.push_str("</tbody></table></section>\n");
        out
    }

    fn stages_section(&self) -> String {
        let total: u64 = self
            .stats
            .stages
            .iter()
            .map(|(_, ms)| ms)
            .sum::<u64>()
            .max(1);
        let mut out =
            String::from("<section id=\"stages\"><h2>Build time by stage</h2>\n<table><tbody>\n");
        for (stage, ms) in &self.stats.stages {
            let _ = writeln!(
                out,
                "<tr data-stage=\"{stage}\"><td>{stage}</td><td class=\"n\" data-n=\"{ms}\">{ms} ms</td><td><div class=\"bar small\"><div style=\"width:{}%\"></div></div></td></tr>",
                ms * 100 / total
            );
        }
        out.push_str("</tbody></table></section>\n");
        out
    }
}

/// The treemap's toggle (report.js: by tier or by content type, `by` checked) and the legends of
/// both (report.css shows the one of the colouring drawn).
fn treemap_legend(by: &str) -> String {
    let types: String = ["html", "css", "js", "image", "font", "other"]
        .iter()
        .map(|c| format!("<span class=\"key {c}\"></span>{c} "))
        .collect();
    let checked = |mode: &str| if mode == by { " checked" } else { "" };
    format!(
        "<p>Area is stored bytes (every representation kept); colour: <span role=\"radiogroup\" aria-label=\"colour the map by\">\
         <label><input type=\"radio\" name=\"colour\" value=\"tier\"{}> the tier</label> \
         <label><input type=\"radio\" name=\"colour\" value=\"type\"{}> the content type</label></span>.</p>\n\
         <p class=\"legend by-tier\"><span class=\"key tier-bundle\"></span>the bundle <span class=\"key tier-assets\"></span>the store (Static Assets) <span class=\"key tier-r2\"></span>the store (R2)</p>\n\
         <p class=\"legend by-type\">{types}; outlined: <span class=\"key other stored\"></span>in the store (Static Assets), <span class=\"key other stored r2\"></span>in R2, the rest in the bundle</p>\n",
        checked("tier"),
        checked("type"),
    )
}

/// The colour class of a content type.
fn family(content_type: &str) -> &'static str {
    match content_type.split(';').next().unwrap_or_default() {
        "text/html" => "html",
        "text/css" => "css",
        "text/javascript" | "application/javascript" | "application/wasm" => "js",
        t if t.starts_with("image/") => "image",
        t if t.starts_with("font/") => "font",
        _ => "other",
    }
}

/// A bar of `bytes` against `limit`: amber past 80%, where the build warns (the same
/// comparison); red past 95%.
fn bar(bytes: u64, limit: u64) -> String {
    let past = |percent: u64| usize::from(bytes * 100 > limit.saturating_mul(percent));
    let level = ["", " near", " full"][past(80) + past(95)];
    format!(
        "<div class=\"bar{level}\"><div style=\"width:{:.2}%\"></div></div>\n",
        (bytes as f64 * 100.0 / limit as f64).min(100.0)
    )
}

/// A figure: shown with thousands separators, the raw number in `data-n`, found by `id`.
fn n(id: &str, value: u64) -> String {
    format!(
        "<span id=\"{id}\" data-n=\"{value}\">{}</span>",
        grouped(value)
    )
}

/// A table cell holding a figure (sorted by its raw number).
fn td(value: u64) -> String {
    format!("<td class=\"n\" data-n=\"{value}\">{}</td>", grouped(value))
}

/// 1234567 as "1,234,567".
fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// HTML text and attribute escaping.
fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page's head: no request allowed (its Content-Security-Policy), the style inline.
const HEAD: &str = concat!(
    "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; ",
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n",
    "<title>edgesite build report</title>\n<style>\n",
    include_str!("report.css"),
    "</style>\n</head>\n<body>\n"
);

/// Sorts a table by the column whose header is clicked (numbers by `data-n`), again to reverse.
const SCRIPT: &str = concat!("<script>\n", include_str!("report.js"), "</script>\n");
