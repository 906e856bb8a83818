//! The fields stage: the fields of every response. The build id (`X-Edgesite-Build`, when
//! `[headers] build_id` asks for it), the fields sent on every answer, `Speculation-Rules` on
//! every page, and the site's `_headers` file applied to each asset at the URLs it is served at.

mod headers_file;

pub(crate) use headers_file::fuzz_check as fuzz_check_headers;

use crate::config::{Config, HeadersConfig, SharedCaches};
use crate::error::ShowPath as _;
use crate::error::{escaped, Error};
use crate::field_check::{check_name, check_value};
use crate::hash;
use crate::model::CacheReason;
use crate::model::{Asset, Assets, RouteTarget};
use crate::routing::Routing;
use crate::sources::read_site_file;
use crate::warning::{Warning, WarningKind};
use std::path::Path;

/// Adds the build id, the fields of every response (`[headers]`) and the speculation rules'
/// field (`speculation`, the `Speculation-Rules` value), keeps image variants from shared
/// caches (`images.shared_caches`), then applies `_headers` (which may remove any of them for
/// some files); `_headers`, when the site has one, is read and tracked.
pub(crate) fn apply(
    mut assets: Assets,
    site_dir: &Path,
    routing: &Routing,
    speculation: Option<&str>,
    config: &Config,
) -> Result<Assets, Error> {
    assets.build_id = build_id(&assets.list);
    assets.fields = site_fields(&config.headers, &assets.build_id, &mut assets.list);
    if let Some(speculation) = speculation {
        add_speculation_rules(speculation, &mut assets.list);
    }
    if config.images.shared_caches == SharedCaches::Private {
        keep_variants_from_shared_caches(&mut assets.list);
    }
    let path = site_dir.join("_headers");
    if let Some(text) = read_site_file(site_dir, "_headers")? {
        let pages_limits = config.compat.pages_limits;
        let warnings = apply_headers_file(&text, &path, pages_limits, &mut assets.list, routing)?;
        assets.notes.warnings.extend(warnings);
        assets.notes.tracked.push(path);
    }
    check_fields(&assets)?;
    Ok(assets)
}

/// Every field value of every file, made from its name (`Use-As-Dictionary`), its page's
/// references (`Link`) or configured, passes the one field check (`field_check.rs`), so no runtime
/// is handed a value it refuses (under workerd, a 500 for every answer of the file).
fn check_fields(assets: &Assets) -> Result<(), Error> {
    for file in &assets.list {
        let fields = file.fields.iter().map(|(n, v)| (n.as_str(), v.as_str()));
        for (name, value) in fields.chain([("cache-control", file.cache_control.as_str())]) {
            check_name(name)
                .and_then(|()| check_value(value))
                .map_err(|message| Error::Field {
                    path: file.path.clone(),
                    name: name.to_string(),
                    message,
                })?;
        }
    }
    Ok(())
}

/// The site's fields (sent on every answer that is not a resource's own), and `X-Edgesite-Build`
/// on every file too when `headers.build_id` asks for it (before `_headers`, which may remove
/// it for some files).
fn site_fields(
    headers: &HeadersConfig,
    build_id: &str,
    files: &mut [Asset],
) -> Vec<(&'static str, String)> {
    let mut fields = headers.fields();
    if headers.build_id {
        for file in files.iter_mut() {
            file.fields
                .push(("x-edgesite-build".to_string(), build_id.to_string()));
        }
        fields.push(("x-edgesite-build", build_id.to_string()));
    }
    fields
}

/// `Speculation-Rules: "<the rules' URL>"` on every HTML file (nav-speculation, "The
/// Speculation-Rules header"): its 200s and 304s (a 404 carries the site's fields, not its
/// page's).
fn add_speculation_rules(field: &str, files: &mut [Asset]) {
    for file in files
        .iter_mut()
        .filter(|f| f.content_type.starts_with("text/html"))
    {
        file.fields
            .push(("speculation-rules".to_string(), field.to_string()));
    }
}

/// `CDN-Cache-Control: private` (RFC 9213, RFC 9111 §5.2.2.7) on the responses of every file
/// with variants, in place of `cache.cdn`: CDNs that ignore `Vary: Accept` (Cloudflare's, below
/// its "Vary for images") must not hand one client's AVIF to a client that cannot show it.
/// Browsers cache as `Cache-Control` says (their caches honour Vary). `_headers` may override it.
fn keep_variants_from_shared_caches(files: &mut [Asset]) {
    for file in files.iter_mut().filter(|f| !f.variants.is_empty()) {
        file.fields.retain(|(name, _)| name != "cdn-cache-control");
        file.fields
            .push(("cdn-cache-control".to_string(), "private".to_string()));
    }
}

/// The build id of `files`: changes exactly when a path or a byte of the site changes.
fn build_id(files: &[Asset]) -> String {
    let mut listing = String::new();
    for file in files {
        listing.push_str(&file.path);
        listing.push('\0');
        listing.push_str(&file.sha256);
        for variant in &file.variants {
            listing.push(' ');
            listing.push_str(&variant.representation.sha256);
        }
        listing.push('\n');
    }
    hash::hex(&hash::sha256(listing.as_bytes()))[..16].to_string()
}

/// Applies the site's `_headers`, if it has one, to every file, matched against the URLs the
/// file is served at (not `_redirects` rewrites' sources); returns a warning for each rule
/// that matched nothing.
fn apply_headers_file(
    text: &str,
    path: &Path,
    pages_limits: bool,
    files: &mut [Asset],
    routing: &Routing,
) -> Result<Vec<Warning>, Error> {
    let routes = &routing.served;
    let rules = headers_file::HeaderRules::parse(text, path, pages_limits)?;
    let mut used = std::collections::BTreeSet::new();
    for (i, file) in files.iter_mut().enumerate() {
        let mut paths: Vec<&str> = routes
            .iter()
            .filter(|r| r.target == RouteTarget::Asset(i))
            .map(|r| r.path.as_str())
            .collect();
        if paths.is_empty() {
            paths.push(&file.path);
        }
        let mut cache_control = file.cache_control.clone();
        let applied = rules
            .apply(&paths, &mut file.fields, &mut cache_control)
            .map_err(|(line, message)| Error::Config {
                path: path.to_path_buf(),
                line,
                message,
            })?;
        used.extend(applied);
        if cache_control != file.cache_control {
            file.cache_control = cache_control;
            file.cache_reason = CacheReason::Rule;
        }
    }
    let unused: Vec<(usize, &str)> = rules
        .rules()
        .filter(|(line, _)| !used.contains(line))
        .collect();
    // A warning each for the first few; a count for the rest (a generated `_headers` of
    // thousands of rules would otherwise bury every other warning).
    let unused_rule = |message: String| {
        Warning::new(WarningKind::UnusedHeaderRule, message).in_file(path.shown())
    };
    let mut warnings: Vec<Warning> = unused
        .iter()
        .take(MAX_UNUSED_WARNINGS)
        .map(|(line, pattern)| {
            let message = format!("the rule {} matches no file", escaped(pattern));
            unused_rule(message).at_line(*line)
        })
        .collect();
    if unused.len() > MAX_UNUSED_WARNINGS {
        warnings.push(unused_rule(format!(
            "{} more rules match no file",
            unused.len() - MAX_UNUSED_WARNINGS
        )));
    }
    Ok(warnings)
}

/// How many `_headers` rules that match nothing get a warning of their own.
const MAX_UNUSED_WARNINGS: usize = 20;
