//! Step 2, resolve: each local reference against the page's URL and `<base href>` (RFC 3986
//! §5.2), then through edgesite-core's own answer over the compiled routes, `_redirects` and
//! the SPA fallback ([`crate::resolve`]); one that leads nowhere is a broken link.

use super::{url, Links, Role, Scanned};
use crate::config::{BrokenLinks, LinksConfig};
use crate::error::{escaped, excerpt, Error};
use crate::model::{Route, RouteTarget};
use crate::resolve::{self, Resolved};
use crate::sources::Found;
use crate::warning::{Warning, WarningKind};
use std::collections::HashMap;

/// The URL each file is served at: a route to it (its own path if that serves it), else its
/// path.
pub(super) fn page_urls(found: &[Found], routes: &[Route]) -> Vec<String> {
    let mut urls: Vec<Option<&str>> = vec![None; found.len()];
    for route in routes {
        if let RouteTarget::Asset(i) = route.target {
            if urls[i].is_none() || route.path == found[i].url_path {
                urls[i] = Some(&route.path);
            }
        }
    }
    urls.iter()
        .zip(found)
        .map(|(url, f)| url.unwrap_or(&f.url_path).to_string())
        .collect()
}

/// Resolves every reference of every file in `files` (each served at `urls[file.index]`) into
/// its `resolved`. Each distinct target is asked of the core once: a site's pages share most
/// of their links (their navigation, stylesheets and scripts), so its references name far fewer
/// targets, and a question that follows a redirect costs two answers of the core
/// (docs/benchmarks.md, "The rebuild, taken apart").
pub(super) fn resolve_all(site: &edgesite_core::Site<'_>, files: &mut [Scanned], urls: &[String]) {
    let targets = {
        let files = &*files;
        crate::parallel::map(files.len(), |i| {
            Some(targets(&files[i], &urls[files[i].index]))
        })
    };
    let mut distinct: HashMap<(&str, bool), usize> = HashMap::new();
    let mut asked: Vec<(&str, bool)> = Vec::new();
    let mut numbered: Vec<Vec<Option<usize>>> = Vec::with_capacity(targets.len());
    for file in &targets {
        let mut numbers = Vec::new();
        for target in file.as_deref().unwrap_or_default() {
            numbers.push(target.as_ref().map(|(target, navigation)| {
                let key = (target.as_str(), *navigation);
                *distinct.entry(key).or_insert_with(|| {
                    asked.push(key);
                    asked.len() - 1
                })
            }));
        }
        numbered.push(numbers);
    }
    let answers = crate::parallel::map(asked.len(), |k| {
        Some(resolve::resolve(site, asked[k].0, asked[k].1))
    });
    for ((file, targets), numbers) in files.iter_mut().zip(targets).zip(numbered) {
        file.resolved = targets
            .unwrap_or_default()
            .into_iter()
            .zip(numbers)
            .map(|(target, number)| {
                let (target, _) = target?;
                // Every distinct target was answered (the closure above returns `Some`).
                Some((target, answers[number?].clone()?))
            })
            .collect();
    }
}

/// The request target of every reference of `file`, served at `url`, and whether it navigates;
/// `None` for one that is not local.
fn targets(file: &Scanned, url: &str) -> Vec<Option<(String, bool)>> {
    // The document's base URL (HTML, "document base URL"): its `<base href>` resolved against
    // its own URL; a base on another site leaves no reference local.
    let base = match file.base.as_deref() {
        None => Some(url.to_string()),
        Some(base) if url::is_local(base) => Some(url::resolve(url, url::split(base).0)),
        Some(_) => None,
    };
    let mut out = Vec::with_capacity(file.refs.len());
    for reference in &file.refs {
        let Some(from) = base.as_deref().filter(|_| url::is_local(&reference.url)) else {
            out.push(None);
            continue;
        };
        let (path, query, _) = url::split(&reference.url);
        let mut target = url::as_target(&url::resolve(from, path));
        if let Some(query) = query {
            target.push('?');
            target.push_str(&url::as_target(query));
        }
        out.push(Some((target, reference.role == Role::Navigation)));
    }
    out
}

/// Warns of (or, with `broken = "error"`, fails on) each reference that leads nowhere.
pub(super) fn report_broken(
    found: &[Found],
    scanned: &[Scanned],
    links: &LinksConfig,
    outcome: &mut Links,
) -> Result<(), Error> {
    let mut broken = Vec::new();
    for file in scanned {
        // A minified file's lines are not the author's: each reference's line is found in the
        // file as written (its first occurrence of the reference's text).
        let original = match &found[file.index].source {
            source @ crate::model::Source::Optimized { .. } => source.original().ok(),
            _ => None,
        };
        for (reference, resolved) in file.refs.iter().zip(&file.resolved) {
            let Some((target, resolved)) = resolved else {
                continue;
            };
            outcome.stats.references += 1;
            let path = url::split(target).0;
            if *resolved == Resolved::Missing && !links.ignores(path) {
                let (url, target) = (excerpt(&reference.url), escaped(target));
                let message = format!("broken link {url}: the site serves nothing at {target}");
                let warning = Warning::new(WarningKind::BrokenLink, message);
                let warning = warning.in_file(&found[file.index].source);
                let raw = file.text.get(reference.span.clone()).unwrap_or_default();
                let line = match &original {
                    None => Some(crate::warning::line_of(
                        file.text.as_bytes(),
                        reference.span.start,
                    )),
                    Some(text) => memchr::memmem::find(text, raw.as_bytes())
                        .map(|at| crate::warning::line_of(text, at)),
                };
                broken.push(match line {
                    Some(line) => warning.at_line(line),
                    None => warning,
                });
            }
        }
    }
    outcome.stats.broken = broken.len();
    match links.broken {
        BrokenLinks::Error if !broken.is_empty() => Err(Error::BrokenLinks { links: broken }),
        BrokenLinks::Ignore => Ok(()),
        _ => {
            outcome.notes.warnings.extend(broken);
            Ok(())
        }
    }
}
