//! The emit stage: the compile as a [`Manifest`], and what a build writes of it: `site.rs`
//! (`codegen`), `manifest.json`, `report.txt` and `report.html` (`report`), the served copy of
//! the site's pages; and the compile served from memory (`leak`).

mod boundary;
pub(crate) mod codegen;
mod leak;
mod objects;
mod report;
mod tables;

use crate::config::Config;
use crate::model::{Asset, Assets, Manifest, Source, Written};
use crate::routing::Routing;
use crate::warning::Notes;
use codegen::Bodies;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The manifest of a compile: the assets, with the routing, what every stage counted, and what
/// they noticed (`notes`: the warnings, the files read); every file's Last-Modified is
/// `last_modified`.
pub(crate) fn manifest(
    site_dir: &Path,
    config: &Config,
    last_modified: SystemTime,
    routing: Routing,
    assets: Assets,
    notes: Notes,
) -> Manifest {
    let (last_modified, last_modified_unix) = last_modified_fields(last_modified);
    // The bundle past 80% by its estimate, from the files as they are kept: the tables as
    // written replace it ([`Manifest::settle`]).
    let mut warnings = notes.warnings;
    warnings.extend(crate::storage::bundle_warning(&assets.list, &config.budget));
    Manifest {
        site_dir: site_dir.to_path_buf(),
        last_modified,
        last_modified_unix,
        boundary: boundary::choose(&assets.list),
        fields: assets.fields,
        fingerprinted_cache_control: config
            .fingerprint
            .fingerprinted_cache_control(&config.cache),
        shared_caches: config.cache.shared_caches,
        build_id: assets.build_id,
        stats: assets.stats,
        budget: config.budget.clone(),
        storage: config.storage.clone(),
        store: assets.store,
        warnings,
        not_found: not_found_pages(&assets.list),
        files: assets.list,
        routes: routing.routes,
        rules: routing.redirects.rules,
        rule_index: routing.redirects.index,
        fallback: routing.fallback,
        tracked: notes.tracked,
        written: None,
    }
}

/// Where `file` is written as served under `dir` (its bytes there, if they were not), if it is a
/// page or a stylesheet, or bytes the build changed.
fn served_page(file: &Asset, dir: &Path) -> std::io::Result<Option<std::path::PathBuf>> {
    let text =
        file.content_type.starts_with("text/html") || file.content_type.starts_with("text/css");
    // Changed bytes: a source the build rewrote or re-encoded, not a file it made.
    let changed = file.identity_bytes().is_some() && file.source.made().is_none();
    if !text && !changed {
        return Ok(None);
    }
    let to = dir.join(file.path.trim_start_matches('/'));
    let bytes = match file.identity_bytes() {
        Some(bytes) => std::borrow::Cow::Borrowed(bytes),
        None => std::borrow::Cow::Owned(read(&file.source)?),
    };
    if std::fs::read(&to).ok().as_deref() != Some(&bytes[..]) {
        let (Some(parent), Some(name)) = (to.parent(), to.file_name()) else {
            return Ok(None);
        };
        crate::atomic::write_atomically(parent, &name.to_string_lossy(), &bytes)?;
    }
    Ok(Some(to))
}

/// Last-Modified (RFC 9110 §8.8.2) of every file: the IMF-fixdate and the Unix seconds.
fn last_modified_fields(last_modified: SystemTime) -> (String, u64) {
    let since_epoch = last_modified.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since_epoch.as_secs();
    (
        httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(seconds)),
        seconds,
    )
}

/// Each folder that has a `404.html`, with the file's index.
fn not_found_pages(files: &[Asset]) -> Vec<(String, usize)> {
    files
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            f.path
                .strip_suffix("404.html")
                .filter(|d| d.ends_with('/'))
                .map(|d| (d.to_string(), i))
        })
        .collect()
}

impl Manifest {
    /// Writes `site.rs` with the bytes embedded ([`Bodies::Embedded`]; the encoded ones in
    /// `encoded/<sha256>`), `manifest.json`, `report.txt` and `report.html` into `out_dir`.
    ///
    /// # Errors
    /// When a file cannot be written.
    pub fn write_rust(&mut self, out_dir: &Path) -> std::io::Result<()> {
        self.write_rust_with(out_dir, Bodies::Embedded).map(|_| ())
    }

    /// [`Manifest::write_rust`], with the bytes kept as `bodies` says; returns the tables'
    /// figures where they are data (`Bodies::Tables`), which the manifest then keeps
    /// ([`Manifest::written`]) and the reports give, with the warnings made from them.
    ///
    /// # Errors
    /// When a file cannot be read or written.
    pub fn write_rust_with(
        &mut self,
        out_dir: &Path,
        bodies: Bodies,
    ) -> std::io::Result<Option<Written>> {
        let mut written = None;
        if let Bodies::Tables { in_binary } = bodies {
            written = Some(tables::write(self, out_dir, in_binary)?);
        } else if bodies == Bodies::Embedded {
            let encoded = out_dir.join("encoded");
            std::fs::create_dir_all(&encoded)?;
            let deltas = self
                .files
                .iter()
                .flat_map(|f| f.deltas.iter().map(|d| &d.representation));
            let variants = self
                .files
                .iter()
                .flat_map(|f| f.variants.iter().map(|v| &v.representation));
            for representation in self
                .files
                .iter()
                .flat_map(|f| &f.representations)
                .chain(deltas)
                .chain(variants)
            {
                if let Some(bytes) = &representation.bytes {
                    std::fs::write(encoded.join(&representation.sha256), bytes)?;
                }
            }
        }
        if !matches!(bodies, Bodies::Tables { .. }) {
            // The tables as Rust: their estimate (from above) is what is known of their size,
            // and of their decoded size a floor below what was measured. Both are in the wasm
            // module's data and in the linear memory it is copied into, and so are the bodies
            // when the bytes are embedded: counted twice.
            let tables =
                crate::storage::code_bytes(&self.files) - crate::model::CODE_ESTIMATE_BYTES;
            let bodies_in_module: u64 = match bodies {
                Bodies::Embedded => self.files.iter().map(Asset::bundle_bytes).sum(),
                _ => 0,
            };
            let decoded = crate::storage::DECODED_LEAST_PER_FILE * self.files.len() as u64
                + tables
                + bodies_in_module;
            crate::storage::check_written(&self.files, tables, decoded, &self.budget)?;
            codegen::write(self, out_dir, bodies)?;
        }
        self.settle(written);
        self.write_reports(out_dir)?;
        Ok(written)
    }

    /// `manifest.json`, `report.txt` and `report.html` into `out_dir`, each made on a core of
    /// its own (each takes a second or so on a site of many files).
    fn write_reports(&self, out_dir: &Path) -> std::io::Result<()> {
        let (json, (text, html)) = std::thread::scope(|scope| {
            let json = scope.spawn(|| self.to_json());
            let text = scope.spawn(|| self.report());
            let html = self.report_html();
            let joined =
                |r: std::thread::Result<String>| r.unwrap_or_else(|p| std::panic::resume_unwind(p));
            (joined(json.join()), (joined(text.join()), html))
        });
        std::fs::write(out_dir.join("manifest.json"), json)?;
        std::fs::write(out_dir.join("report.txt"), text)?;
        std::fs::write(out_dir.join("report.html"), html)
    }

    /// Keeps the tables' figures (`written`: `None` where they are Rust, whose size only the
    /// estimate knows), and warns from them: the bundle's warning by its estimate, if
    /// [`manifest`] made one, gives way to the bundle's and the isolate's as written
    /// ([`crate::storage::written_warnings`]), after the stages' warnings. Written again, the
    /// warnings of the earlier figures give way to the new ones.
    fn settle(&mut self, written: Option<Written>) {
        let (files, budget) = (&self.files, &self.budget);
        let warnings = |written: Option<Written>| match written {
            Some(written) => crate::storage::written_warnings(files, written, budget),
            None => crate::storage::bundle_warning(files, budget)
                .into_iter()
                .collect(),
        };
        let (earlier, now) = (warnings(self.written), warnings(written));
        self.warnings.retain(|w| !earlier.contains(w));
        self.warnings.extend(now);
        self.written = written;
    }

    /// Writes every HTML and CSS file as it is served (the link pass may have rewritten it), and
    /// every other file whose bytes the build changed (a PNG the image stage re-encoded), into
    /// `dir`, at its URL path: what tests compare served bodies with. A file already there with
    /// those bytes is left as it is, and files of earlier builds are removed: a rebuild of a
    /// 100,000-page site after one edit writes one page, not 100,000 (deleting and creating
    /// them all cost tens of seconds of system time).
    ///
    /// # Errors
    /// When a file cannot be read or written.
    pub fn write_served_pages(&self, dir: &Path) -> std::io::Result<()> {
        if self.update_served_pages(dir).is_ok() {
            return Ok(());
        }
        // What an earlier build left in the way (a file where a folder now goes, or the
        // reverse): written again from nothing (another error comes back as it was).
        if dir.exists() {
            std::fs::remove_dir_all(dir)?;
        }
        self.update_served_pages(dir)
    }

    /// [`Manifest::write_served_pages`] over what `dir` holds, on every core (every page is read
    /// back and compared).
    fn update_served_pages(&self, dir: &Path) -> std::io::Result<()> {
        let files = &self.files;
        let kept = crate::parallel::map(files.len(), |i| served_page(&files[i], dir).transpose());
        let mut held = std::collections::HashSet::new();
        for page in kept.into_iter().flatten() {
            held.insert(page?);
        }
        remove_others(dir, &held)
    }

    /// The integrity manifest: every file with its path, sizes and ETags per encoding, SHA-256
    /// and SRI `sha384-` hash, as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a Manifest always serializes")
    }
}

/// Removes every file under `dir` that is not in `kept`, and the folders that leaves empty.
fn remove_others(
    dir: &Path,
    kept: &std::collections::HashSet<std::path::PathBuf>,
) -> std::io::Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries {
        let entry = entry?;
        let path = entry.path();
        // The entry itself, not where a link leads: a link is removed, never followed.
        if entry.file_type()?.is_dir() {
            remove_others(&path, kept)?;
            // Empty now: gone (a folder with files left keeps them: the error is ignored).
            let _ = std::fs::remove_dir(&path);
        } else if !kept.contains(&path) {
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// The bytes of `source`, for what emit writes (an I/O error names the file).
fn read(source: &Source) -> std::io::Result<Vec<u8>> {
    Ok(source.read().map_err(std::io::Error::other)?.into_owned())
}
