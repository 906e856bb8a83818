//! The optimize stage: the site's HTML, CSS and JavaScript minified at build, as `[optimize]`
//! says, before any later stage reads them (the link pass fingerprints, inlines and hints the
//! minified files; the encodings, ETags and deltas are theirs). A file minified becomes a
//! [`Source::Optimized`]: its bytes in memory, its path still naming it.
//!
//! Per kind, one well-kept minifier of the field ([`css`]: lightningcss; [`js`]: oxc) and the
//! HTML rules of [`html`], each behind the bounds of [`guard`]. A file is served as written
//! when `[optimize] exclude` names it, when it looks minified already (`.min.` in its name,
//! long lines, a name with its hash), when any page loads it with
//! `integrity` (every page is surveyed for that, minified or not), when it is not UTF-8, when
//! a framework hydrates it (a page), when its minifier cannot read it or it is past the
//! bounds (a warning with file and line), or when minifying saves less than
//! [`MIN_SAVING_PERCENT`] (a warning for a stylesheet or script; a page whose text is already
//! tight is just counted).

mod cached;
mod css;
mod guard;
mod html;
mod js;

use crate::config::OptimizeConfig;
use crate::hash;
use crate::model::{OptimizeStats, Source};
use crate::sources::{Found, Sources};
use crate::stage_cache::StageCache as Cache;
use crate::warning::{Notes, Warning, WarningKind};
use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

/// A minified file is served only if it is at least this much smaller (in percent of the file).
pub(crate) const MIN_SAVING_PERCENT: usize = 1;

/// A stylesheet or script over this many bytes whose lines average more than
/// [`MINIFIED_LINE_BYTES`] is minified already (a bundler's output).
const MINIFIED_MIN_BYTES: usize = 512;
const MINIFIED_LINE_BYTES: usize = 250;

/// The oldest browsers whose syntax minified files keep to (the browsers of 2020: Chrome and
/// Edge 80, Firefox 78 ESR, Safari 13): where the minifiers have two forms of the same thing,
/// they print the one these read, and never one only newer browsers do. A file keeps the
/// syntax its author wrote: nothing is lowered for them.
pub(crate) struct Baseline {
    pub(crate) chrome: u32,
    pub(crate) firefox: u32,
    pub(crate) safari: u32,
}

pub(crate) const BASELINE: Baseline = Baseline {
    chrome: 80,
    firefox: 78,
    safari: 13,
};

/// What the stage did.
#[derive(Debug, Default)]
pub(crate) struct Optimized {
    pub(crate) stats: OptimizeStats,
    pub(crate) notes: Notes,
}

/// The kinds of file the stage minifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    Html,
    Css,
    Js(js::Kind),
}

/// What became of one file: its new bytes (`None`: served as written), whether it was looked
/// at, what its minifiers could not read or gain, and (a page's) what it loads with
/// `integrity`: the names of the files, and whether an import map names some.
#[derive(Default)]
struct Outcome {
    bytes: Option<Vec<u8>>,
    skipped: bool,
    warnings: Vec<Warning>,
    integrity: Vec<String>,
    import_integrity: bool,
    /// Its minified bytes came from the build's cache.
    cached: bool,
}

impl Outcome {
    /// Not looked at: excluded, minified already, named by its hash, loaded with `integrity`,
    /// not UTF-8, hydrated by a framework.
    fn skipped() -> Outcome {
        Outcome {
            skipped: true,
            ..Outcome::default()
        }
    }
}

/// Minifies the site's own files of `sources` as `config` says (never a `<style>` or
/// `<script>` in a page when `csp`: the site sends a Content-Security-Policy, whose hashes
/// name their bytes). A file that cannot be read or minified is served as written (the encode
/// stage reports one that cannot be read). What is made is kept in `cache_dir` ([`cached`]).
pub(crate) fn minify(
    sources: &mut Sources,
    config: &OptimizeConfig,
    csp: bool,
    cache_dir: Option<&Path>,
) -> Optimized {
    let started = Instant::now();
    let cache = cached::cache(cache_dir);
    let mut done = Optimized::default();
    let own = sources.own.min(sources.files.len());
    let files = &sources.files[..own];
    let kinds: Vec<Option<FileKind>> = files
        .iter()
        .map(|f| kind_of(&f.url_path).filter(|kind| wanted(*kind, config)))
        .collect();
    if kinds.iter().all(Option::is_none) {
        return done;
    }
    // Stylesheets and scripts first: whether the site's CSS keeps spaces decides the pages'.
    let code = crate::parallel::map(own, |i| match kinds[i]? {
        FileKind::Html => None,
        _ if config.excludes(&files[i].url_path) => Some(Outcome::skipped()),
        kind => Some(minify_code(&files[i], kind, &cache)),
    });
    let keeps_spaces = config.html && site_keeps_spaces(files, &code);
    // Every page, minified or not: what it loads with `integrity` stays as written.
    let pages = crate::parallel::map(own, |i| {
        let page = kind_of(&files[i].url_path) == Some(FileKind::Html);
        page.then(|| minify_page(&files[i], (config, csp, keeps_spaces), &cache))
    });
    let integrity: HashSet<String> = pages
        .iter()
        .flatten()
        .flat_map(|page| page.integrity.iter().map(|url| file_name(url)))
        .collect();
    let import_integrity = pages.iter().flatten().any(|page| page.import_integrity);
    let named = |i: usize| integrity.contains(&file_name(&files[i].url_path));
    let outcomes: Vec<Option<Outcome>> = code
        .into_iter()
        .zip(pages)
        .enumerate()
        .map(|(i, (code, page))| match (code, kinds[i]) {
            (Some(_), Some(FileKind::Js(_))) if import_integrity => Some(Outcome::skipped()),
            (Some(_), _) if named(i) => Some(Outcome::skipped()),
            (Some(code), _) => Some(code),
            (None, Some(FileKind::Html)) => page,
            (None, _) => None,
        })
        .collect();
    serve(sources, &kinds, outcomes, &mut done);
    done.stats.spaces_kept = keeps_spaces;
    done.stats.wall_time_ms = started.elapsed().as_millis() as u64;
    done
}

/// Puts what each file became in `sources` (a minified file becomes a [`Source::Optimized`]),
/// its warnings and figures in `done`.
fn serve(
    sources: &mut Sources,
    kinds: &[Option<FileKind>],
    outcomes: Vec<Option<Outcome>>,
    done: &mut Optimized,
) {
    for (i, outcome) in outcomes.into_iter().enumerate() {
        let (Some(outcome), Some(kind)) = (outcome, kinds[i]) else {
            continue;
        };
        done.stats.cached += usize::from(outcome.cached);
        let file = &mut sources.files[i];
        let before = file.source.len().unwrap_or(0);
        let stats = done.stats.of(kind_name(kind));
        stats.files += 1;
        stats.bytes += before;
        done.notes.warnings.extend(outcome.warnings);
        match (outcome.bytes, file.source.path()) {
            (Some(bytes), Some(path)) => {
                stats.minified += 1;
                stats.minified_bytes += bytes.len() as u64;
                file.source = Source::Optimized {
                    path: path.to_path_buf(),
                    bytes: bytes.into(),
                };
            }
            _ => {
                stats.minified_bytes += before;
                match outcome.skipped {
                    true => stats.skipped += 1,
                    false => stats.kept += 1,
                }
            }
        }
    }
}

/// The kind of file at `path`, if the stage minifies its kind.
fn kind_of(path: &str) -> Option<FileKind> {
    let content_type = crate::mime::content_type(path);
    if content_type.starts_with("text/html") {
        return Some(FileKind::Html);
    }
    if content_type.starts_with("text/css") {
        return Some(FileKind::Css);
    }
    if content_type.starts_with("text/javascript") {
        let module = path.ends_with(".mjs");
        let kind = if module {
            js::Kind::Module
        } else {
            js::Kind::Either
        };
        return Some(FileKind::Js(kind));
    }
    None
}

fn wanted(kind: FileKind, config: &OptimizeConfig) -> bool {
    match kind {
        FileKind::Html => config.html,
        FileKind::Css => config.css,
        FileKind::Js(_) => config.js,
    }
}

fn kind_name(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Html => "html",
        FileKind::Css => "css",
        FileKind::Js(_) => "js",
    }
}

/// The name of the file a URL or URL path names, percent-decoded (what an `integrity`
/// reference is matched by: any file of that name stays as written, whatever the page's base).
fn file_name(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let name = path.rsplit('/').next().unwrap_or(path);
    let mut buf = [0; edgesite_core::MAX_PATH_LEN];
    edgesite_core::percent_decode(name, &mut buf).map_or_else(|_| name.to_string(), str::to_string)
}

/// Whether `text` (a page, a script) may set `white-space` itself: a `style` attribute or
/// element, a script's `el.style.whiteSpace`.
fn names_white_space(text: &str) -> bool {
    text.contains("whiteSpace") || contains_ignoring_case(text, "white-space")
}

/// Whether `text` holds `needle` (lower-case ASCII) in any case, without a lower-case copy of
/// `text` (a page is searched for two such words).
fn contains_ignoring_case(text: &str, needle: &str) -> bool {
    text.as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// One page surveyed ([`html::survey`]) and, unless `[optimize] html` is off, it is excluded,
/// not UTF-8 or hydrated by a framework, minified: whitespace unless the site's CSS or scripts
/// (`keeps_spaces`), the page's own text or a stylesheet from elsewhere may keep spaces;
/// comments when it has no script; its styles and scripts unless a Content-Security-Policy
/// (the site's, `csp`, or the page's own `<meta>`) may name their hashes.
fn minify_page(
    file: &Found,
    (config, csp, keeps_spaces): (&OptimizeConfig, bool, bool),
    cache: &Cache,
) -> Outcome {
    let Ok(bytes) = file.source.read() else {
        return Outcome::skipped();
    };
    let text = String::from_utf8_lossy(&bytes);
    let survey = survey(&bytes, &text, cache);
    let mut outcome = Outcome {
        skipped: true,
        integrity: survey.integrity,
        import_integrity: survey.import_integrity,
        ..Outcome::default()
    };
    let utf8 = matches!(text, std::borrow::Cow::Borrowed(_));
    if !config.html || config.excludes(&file.url_path) || !utf8 || survey.hydrated {
        return outcome;
    }
    let csp = csp || contains_ignoring_case(&text, "content-security-policy");
    let allowed = html::Allowed {
        whitespace: !keeps_spaces && !names_white_space(&text) && !survey.foreign_styles,
        comments: !survey.scripts,
        css: config.css && !csp,
        js: config.js && !csp,
    };
    outcome.skipped = false;
    let Some((minified, warnings, cached)) = minified_page(file, (&bytes, &text), allowed, cache)
    else {
        return outcome;
    };
    (outcome.warnings, outcome.cached) = (warnings, cached);
    outcome.bytes = smaller_enough(bytes.len(), minified.len()).then_some(minified);
    outcome
}

/// A page minified as `allowed` ([`html::minify`]): its bytes, a warning for each `<style>` or
/// `<script>` kept as written, and whether the bytes came from the cache (which keeps a page
/// only when it had no such warning, so that they are said each build); `None` if its
/// tokenizer gave up.
fn minified_page(
    file: &Found,
    (bytes, text): (&[u8], &str),
    allowed: html::Allowed,
    cache: &Cache,
) -> Option<(Vec<u8>, Vec<Warning>, bool)> {
    let how = [
        allowed.whitespace,
        allowed.comments,
        allowed.css,
        allowed.js,
    ]
    .map(u8::from);
    let key: [&[u8]; 3] = [b"html", &how, bytes];
    if let Some(minified) = cache.get(&key) {
        return Some((minified, Vec::new(), true));
    }
    let minified = html::minify(text, allowed).ok()?;
    if minified.kept.is_empty() {
        cache.put(&key, &minified.bytes);
    }
    let warnings = minified.kept.iter().map(|kept| {
        let message = format!(
            "this <{}> kept as written (the minifier cannot read it: {})",
            kept.element, kept.message
        );
        let warning = Warning::new(WarningKind::NotOptimized, message);
        warning.in_file(&file.source).at_line(kept.line)
    });
    Some((minified.bytes, warnings.collect(), false))
}

/// A page's survey ([`html::survey`]), from the cache when it holds it.
fn survey(bytes: &[u8], text: &str, cache: &Cache) -> html::Survey {
    let key: [&[u8]; 2] = [b"survey", bytes];
    if let Some(survey) = cache.get(&key).and_then(|b| cached::survey_of(&b)) {
        return survey;
    }
    let survey = html::survey(text);
    if let Some(entry) = cached::survey_bytes(&survey) {
        cache.put(&key, &entry);
    }
    survey
}

/// One stylesheet or script minified (or its minified bytes from the cache).
fn minify_code(file: &Found, kind: FileKind, cache: &Cache) -> Outcome {
    let Ok(bytes) = file.source.read() else {
        return Outcome::skipped();
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Outcome::skipped();
    };
    let digest = hash::sha256(&bytes);
    if looks_minified(&file.url_path, text)
        || crate::cache::is_fingerprinted(&file.url_path, &bytes, &digest)
    {
        return Outcome::skipped();
    }
    let how: &[u8] = match kind {
        FileKind::Css => b"css",
        FileKind::Js(js::Kind::Classic) => b"js-classic",
        FileKind::Js(js::Kind::Module) => b"js-module",
        FileKind::Js(js::Kind::Either) => b"js-either",
        FileKind::Html => return Outcome::skipped(),
    };
    let key: [&[u8]; 2] = [how, &bytes];
    if let Some(minified) = cache.get(&key) {
        let outcome = code_outcome(file, bytes.len(), Ok(minified));
        return Outcome {
            cached: true,
            ..outcome
        };
    }
    let minified = match kind {
        FileKind::Css => css::minify(text).map_err(|e| (e.line, e.message)),
        FileKind::Js(kind) => js::minify(text, kind).map_err(|e| (Some(e.line), e.message)),
        FileKind::Html => return Outcome::skipped(),
    };
    let minified = minified.map(String::into_bytes);
    if let Ok(minified) = &minified {
        cache.put(&key, minified);
    }
    code_outcome(file, bytes.len(), minified)
}

/// What a stylesheet or script of `before` bytes became: its minified text, or why it is kept.
fn code_outcome(
    file: &Found,
    before: usize,
    minified: Result<Vec<u8>, (Option<usize>, String)>,
) -> Outcome {
    let warning = |message: String| Warning::new(WarningKind::NotOptimized, message);
    let kept = |warning: Warning| Outcome {
        warnings: vec![warning],
        ..Outcome::default()
    };
    match minified {
        Ok(min) if smaller_enough(before, min.len()) => Outcome {
            bytes: Some(min),
            ..Outcome::default()
        },
        Ok(min) => {
            let message = format!(
                "kept as written (minified it would be {} bytes of {}: less than \
                 {MIN_SAVING_PERCENT}% smaller)",
                min.len(),
                before
            );
            kept(warning(message).in_file(&file.source))
        }
        Err((line, message)) => {
            let message = format!("kept as written (the minifier cannot read it: {message})");
            let warning = warning(message).in_file(&file.source);
            kept(match line {
                Some(line) => warning.at_line(line),
                None => warning,
            })
        }
    }
}

/// Whether `after` bytes are at least [`MIN_SAVING_PERCENT`] fewer than `before`.
fn smaller_enough(before: usize, after: usize) -> bool {
    after < before && (before - after) * 100 >= before * MIN_SAVING_PERCENT
}

/// A stylesheet or script a tool minified: `.min.` in its name, or long lines. A source map
/// comment alone is not that: a bundler's unminified output carries one too (Debian's
/// `underscore.js`, 68 KB that Lighthouse flags as unminified); minified, the file loses the
/// comment with the others (its map named positions in the unminified text).
fn looks_minified(path: &str, text: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name.contains(".min.") {
        return true;
    }
    let lines = text.lines().count().max(1);
    text.len() > MINIFIED_MIN_BYTES && text.len() / lines > MINIFIED_LINE_BYTES
}

/// Whether any stylesheet or script of the site could keep spaces in text outside `<pre>` and
/// `<textarea>` (`white-space: pre`, `pre-wrap`, `break-spaces`, a `var()`, or
/// `white-space-collapse` keeping spaces, on any other element; a script that names
/// `whiteSpace` or `white-space`): then no page's whitespace is collapsed. Read from each
/// stylesheet as minified (lightningcss's printing: one form per rule), or from its text when
/// it cannot be (any mention of `white-space` counts).
fn site_keeps_spaces(files: &[Found], code: &[Option<Outcome>]) -> bool {
    files.iter().zip(code).any(|(file, outcome)| {
        let kind = kind_of(&file.url_path);
        // Only a script is read here (the tuple read every file of the site, whole).
        if let Some(FileKind::Js(_)) = kind {
            return file
                .source
                .read()
                .is_ok_and(|bytes| names_white_space(&String::from_utf8_lossy(&bytes)));
        }
        if kind != Some(FileKind::Css) {
            return false;
        }
        if let Some(bytes) = outcome.as_ref().and_then(|o| o.bytes.as_deref()) {
            return css::keeps_spaces(&String::from_utf8_lossy(bytes));
        }
        // Not minified (excluded, minified already, `css = false`): printed for the check.
        file.source.read().map_or(true, |bytes| {
            let text = String::from_utf8_lossy(&bytes);
            match css::minify(&text) {
                Ok(printed) => css::keeps_spaces(&printed),
                Err(_) => names_white_space(&text),
            }
        })
    })
}
