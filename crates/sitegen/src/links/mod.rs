//! The link pass: the build reads the site's HTML and CSS for references to its own files.
//!
//! 1. **Scan** every HTML page (an HTML tokenizer: [`html`]) and stylesheet (a CSS tokenizer:
//!    [`css`]) for references, with their exact byte spans.
//! 2. **Resolve** each local one against the page's URL and `<base href>` (RFC 3986 §5.2),
//!    then through edgesite-core's own answer over the compiled routes, `_redirects` and SPA
//!    fallback ([`resolve`]). One that leads nowhere is a **broken link** (`file:line`).
//! 3. **Fingerprint**: each subresource reference to a file gets `v=` the first 10 hex digits
//!    of the SHA-256 of the bytes served (before the fragment, beside any query of its own),
//!    so the URL names those bytes and the core can answer it `immutable`. A file's hash is
//!    taken after its own references are rewritten, so files are rewritten in dependency order
//!    ([`graph`]); references inside a cycle keep their text (a warning says which). Bytes
//!    outside the changed values stay as they were.
//! 4. **Preload**: each page's render-blocking stylesheets, synchronous head scripts and
//!    preloaded fonts become one `Link` field (RFC 8288) of `rel=preload` hints.
//!
//! 5. **Navigate**: a link to a page that the site reaches only through permanent redirects (a
//!    clean URL's or a folder's canonical 308, a `_redirects` 301) names the page's URL instead:
//!    a click costs no redirect, and the speculation rules (which name pages) match it.
//!
//! Not rewritten: other navigations (links between pages), module scripts and `modulepreload`
//! (a module is keyed by its URL), `<meta>` URLs (checked only), references with escapes or character references other
//! than `&amp;` in their text, files some page loads with `integrity` (their bytes must stay),
//! and files already named by their hash or excluded by `[fingerprint] exclude`.

mod css;
mod graph;
mod html;
mod url;

use crate::cache;
use crate::config::{BrokenLinks, FingerprintMode};
use crate::error::Error;
use crate::error::{escaped, excerpt, ShowPath as _};
use crate::etag;
use crate::images::{Images, Made};
use crate::mime;
use crate::model::{Asset, LinkStats, Options, Route, RouteTarget};
use crate::resolve::{self, Resolved};
use crate::routing::Routing;
use crate::rule::indexed_assets;
use crate::sources::{Found, Sources};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The most preload hints per page.
pub(crate) const MAX_PRELOADS: usize = 8;

/// A reference in a file.
#[derive(Debug, Clone)]
pub(crate) struct Ref {
    /// Where its text is, in bytes of the file.
    pub span: Range<usize>,
    /// The URL, character references and escapes resolved.
    pub url: String,
    /// Whether the text at `span` can be rewritten in place.
    pub verbatim: bool,
    pub role: Role,
    /// A preload hint it makes, if it is render-blocking.
    pub hint: Option<Hint>,
    /// Its element has `integrity`: the target's bytes must not change.
    pub integrity: bool,
    /// In HTML markup (a query separator is written `&amp;`), not in CSS text.
    pub amp: bool,
}

/// What a reference does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Loads a subresource: checked and fingerprinted.
    Subresource,
    /// A link to a page: checked only.
    Navigation,
    /// Loads something whose URL must stay as written: checked only (a module script or
    /// `modulepreload`, keyed by its URL in the module map; a `<meta>` image that other sites
    /// fetch).
    Checked,
}

/// A `rel=preload` destination (Fetch's `as`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hint {
    Style,
    Script,
    Font,
}

impl Hint {
    fn link_params(self) -> &'static str {
        match self {
            Hint::Style => "; rel=preload; as=style",
            Hint::Script => "; rel=preload; as=script",
            // Fonts are fetched in CORS mode: the hint must be too, or it is not used.
            Hint::Font => "; rel=preload; as=font; crossorigin",
        }
    }
}

/// A file's new bytes.
#[derive(Debug, Clone)]
pub(crate) struct Rewrite {
    pub bytes: Vec<u8>,
    pub references: usize,
    /// Of them, links to pages made to name the page's URL (not a redirect to it).
    pub navigations: usize,
    pub source_sha256: String,
}

/// What the pass gives the rest of the build.
#[derive(Debug, Default)]
pub(crate) struct Links {
    /// By file index: the bytes to serve instead of the source's.
    pub rewrites: Vec<Option<Rewrite>>,
    /// By file index: a `Link` field value.
    pub preload: Vec<Option<String>>,
    pub warnings: Vec<String>,
    pub stats: LinkStats,
}

/// One scanned file.
struct Scanned {
    index: usize,
    text: String,
    /// SHA-256 of `text`, lower-case hex.
    sha256: String,
    /// A page's first `<base href>`, character references decoded.
    base: Option<String>,
    refs: Vec<Ref>,
    /// Where each reference leads (`None`: not local, or relative to another site's base).
    resolved: Vec<Option<(String, Resolved)>>,
}

/// Runs the pass over the walked files.
///
/// # Errors
/// A file that cannot be read, or broken links with `[links] broken = "error"`.
/// Only the first `scanned` files are read for references (and may be rewritten); the rest (an
/// earlier deploy's files, kept for skew protection) are served as they were.
pub(crate) fn pass(
    sources: &Sources,
    images: &Images,
    routing: &Routing,
    options: &Options,
) -> Result<Links, Error> {
    let (found, scanned) = (&sources.files[..], sources.own);
    let started = Instant::now();
    let mut outcome = Links {
        rewrites: vec![None; found.len()],
        preload: vec![None; found.len()],
        ..Links::default()
    };
    let urls = page_urls(found, &routing.served);
    let mut scanned = scan_all(&found[..scanned.min(found.len())], &mut outcome.warnings)?;
    let assets = indexed_assets(found.len());
    routing.with_core_site(&assets, |site| {
        for file in &mut scanned {
            file.resolved = resolve_all(site, file, &urls[file.index]);
        }
    });
    outcome.stats.files = scanned.len();
    report_broken(found, &scanned, options, &mut outcome)?;
    let mut hashes = Hashes::new(found, images, options);
    rewrite_in_order(found, &scanned, options, &mut hashes, &mut outcome);
    if options.config.links.preload {
        for file in &scanned {
            outcome.preload[file.index] = preload(file, &mut hashes, &outcome.rewrites);
        }
    }
    outcome.stats.preload_hints = outcome
        .preload
        .iter()
        .flatten()
        .map(|v| v.split(", <").count())
        .sum();
    outcome.stats.wall_time_ms = started.elapsed().as_millis() as u64;
    Ok(outcome)
}

/// Adds each page's preload hints to its fields (before `_headers`, which may remove them).
pub(crate) fn add_preload(files: &mut [Asset], preload: &[Option<String>]) {
    for (file, link) in files.iter_mut().zip(preload) {
        if let Some(link) = link {
            file.fields.push(("link".to_string(), link.clone()));
        }
    }
}

/// The URL each file is served at: a route to it (its own path if that serves it), else its
/// path.
fn page_urls(found: &[Found], routes: &[Route]) -> Vec<String> {
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

/// One file's scan: skipped (not HTML or CSS), scanned, or a warning why not.
type ScanResult = Result<Result<Option<Scanned>, String>, Error>;

/// Reads and scans every HTML and CSS file, on all cores, in walk order (text that is not
/// UTF-8 is skipped, with a warning).
fn scan_all(found: &[Found], warnings: &mut Vec<String>) -> Result<Vec<Scanned>, Error> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<ScanResult>>> = found.iter().map(|_| Mutex::new(None)).collect();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(file) = found.get(index) else { break };
                let result = scan_file(index, file);
                *slots[index].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
            });
        }
    });
    let mut scanned = Vec::new();
    for slot in slots {
        // Every slot was filled: no thread stops early.
        let result = slot.into_inner().unwrap_or_else(|e| e.into_inner());
        match result.transpose()? {
            Some(Ok(Some(file))) => scanned.push(file),
            Some(Err(warning)) => warnings.push(warning),
            Some(Ok(None)) | None => {}
        }
    }
    Ok(scanned)
}

fn scan_file(index: usize, file: &Found) -> ScanResult {
    let content_type = mime::content_type(&file.url_path);
    let is_html = content_type.starts_with("text/html");
    if !is_html && !content_type.starts_with("text/css") {
        return Ok(Ok(None));
    }
    let bytes = crate::error::read_bytes(&file.source)?;
    let Ok(text) = String::from_utf8(bytes) else {
        return Ok(Err(format!(
            "{}: not UTF-8, so its links are not checked or fingerprinted",
            file.source.shown()
        )));
    };
    let page = if is_html {
        match html::scan(&text) {
            Ok(page) => page,
            Err(why) => {
                return Ok(Err(format!(
                    "{}: links not read: {why}",
                    file.source.shown()
                )))
            }
        }
    } else {
        html::Page {
            refs: css_file_refs(&text),
            base: None,
        }
    };
    Ok(Ok(Some(Scanned {
        index,
        sha256: etag::hex(&etag::sha256(text.as_bytes())),
        text,
        base: page.base,
        refs: page.refs,
        resolved: Vec::new(),
    })))
}

fn css_file_refs(text: &str) -> Vec<Ref> {
    css::urls(text)
        .into_iter()
        .map(|u| Ref {
            span: u.span,
            url: u.url.trim().to_string(),
            // Rewritten in place only when the text is the URL itself: `url(" a.png ")` with
            // `?v=` after its space would name another file.
            verbatim: u.verbatim && u.url.trim() == u.url,
            role: Role::Subresource,
            hint: None,
            integrity: false,
            amp: false,
        })
        .collect()
}

/// Resolves every reference of `file`, served at `url`.
fn resolve_all(
    site: &edgesite_core::Site<'_>,
    file: &Scanned,
    url: &str,
) -> Vec<Option<(String, Resolved)>> {
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
        let resolved = resolve::resolve(site, &target, reference.role == Role::Navigation);
        out.push(Some((target, resolved)));
    }
    out
}

/// Warns of (or, with `broken = "error"`, fails on) each reference that leads nowhere.
fn report_broken(
    found: &[Found],
    scanned: &[Scanned],
    options: &Options,
    outcome: &mut Links,
) -> Result<(), Error> {
    let mut broken = Vec::new();
    for file in scanned {
        for (reference, resolved) in file.refs.iter().zip(&file.resolved) {
            let Some((target, resolved)) = resolved else {
                continue;
            };
            outcome.stats.references += 1;
            let path = url::split(target).0;
            if *resolved == Resolved::Missing && !options.config.links.ignores(path) {
                broken.push(format!(
                    "{}:{}: broken link {}: the site serves nothing at {}",
                    found[file.index].source.shown(),
                    url::line_of(file.text.as_bytes(), reference.span.start),
                    excerpt(&reference.url),
                    escaped(target)
                ));
            }
        }
    }
    outcome.stats.broken = broken.len();
    match options.config.links.broken {
        BrokenLinks::Error if !broken.is_empty() => Err(Error::BrokenLinks { links: broken }),
        BrokenLinks::Ignore => Ok(()),
        _ => {
            outcome.warnings.extend(broken);
            Ok(())
        }
    }
}

/// The fingerprint of each file's bytes as served, computed once.
struct Hashes<'a> {
    found: &'a [Found],
    images: &'a Images,
    options: &'a Options,
    known: HashMap<usize, Option<String>>,
}

impl<'a> Hashes<'a> {
    fn new(found: &'a [Found], images: &'a Images, options: &'a Options) -> Self {
        Hashes {
            found,
            images,
            options,
            known: HashMap::new(),
        }
    }

    /// The `v` a reference to file `index` gets: `None` when the file is not fingerprinted
    /// (excluded, `mode = "off"`, or its name already carries its hash).
    fn of(&mut self, index: usize, rewrites: &[Option<Rewrite>]) -> Option<String> {
        if let Some(known) = self.known.get(&index) {
            return known.clone();
        }
        let file = &self.found[index];
        let bytes = match &rewrites[index] {
            Some(rewrite) => rewrite.bytes.clone(),
            None => std::fs::read(&file.source).ok()?,
        };
        let image = self.images.of(index);
        let fingerprint = fingerprint_of_bytes(&file.url_path, &bytes, image, self.options);
        self.known.insert(index, fingerprint.clone());
        fingerprint
    }
}

/// The `v` of a file at `path` with these bytes (what the encode stage puts in the manifest);
/// for an image the image stage read, `bytes` are its source's and the `v` is taken from
/// [`Made::digest`], so that it covers the variants too.
pub(crate) fn fingerprint_of_bytes(
    path: &str,
    bytes: &[u8],
    image: Option<&Made>,
    options: &Options,
) -> Option<String> {
    if !options.config.fingerprint.covers(path) {
        return None;
    }
    let digest = etag::sha256(bytes);
    let content_type = mime::content_type(path);
    let (_, reason) =
        cache::cache_control(&options.config.cache, path, content_type, bytes, &digest);
    let hex = etag::hex(&digest);
    let digest = image.map_or(&hex, |made| &made.digest);
    cache::fingerprint_of(path, reason, digest, &options.config.fingerprint).map(str::to_string)
}

/// Rewrites the scanned files, each after the files it references.
fn rewrite_in_order(
    found: &[Found],
    scanned: &[Scanned],
    options: &Options,
    hashes: &mut Hashes<'_>,
    outcome: &mut Links,
) {
    if options.config.fingerprint.mode == FingerprintMode::Off {
        return;
    }
    let position: HashMap<usize, usize> = scanned
        .iter()
        .enumerate()
        .map(|(i, f)| (f.index, i))
        .collect();
    // Files some page loads with `integrity`: their bytes stay as they are.
    let frozen: Vec<usize> = scanned
        .iter()
        .flat_map(|f| f.refs.iter().zip(&f.resolved))
        .filter(|(r, _)| r.integrity)
        .filter_map(|(_, resolved)| match resolved {
            Some((_, Resolved::File { index, .. })) => Some(*index),
            _ => None,
        })
        .collect();
    let edges: Vec<Vec<usize>> = scanned
        .iter()
        .map(|f| {
            targets(f)
                .filter_map(|(_, index)| position.get(&index).copied())
                .collect()
        })
        .collect();
    let order = graph::order(&edges);
    for (component, in_cycle) in order {
        for &i in &component {
            let file = &scanned[i];
            if frozen.contains(&file.index) {
                continue;
            }
            let cyclic = |index: usize| {
                in_cycle && position.get(&index).is_some_and(|p| component.contains(p))
            };
            let rewrite = rewrite(file, hashes, &cyclic, outcome);
            if let Some(rewrite) = rewrite {
                outcome.stats.fingerprinted += rewrite.references - rewrite.navigations;
                outcome.stats.navigations += rewrite.navigations;
                outcome.stats.rewritten_files += 1;
                outcome.rewrites[file.index] = Some(rewrite);
            }
            if in_cycle {
                outcome.warnings.push(format!(
                    "{}: its references to files that reference it back (a cycle) are left without ?v=",
                    found[file.index].source.shown()
                ));
            }
        }
    }
}

/// The files a scanned file's rewritable references lead to: (reference, file index).
fn targets(file: &Scanned) -> impl Iterator<Item = (usize, usize)> + '_ {
    file.refs
        .iter()
        .zip(&file.resolved)
        .enumerate()
        .filter(|(_, (r, _))| r.verbatim && r.role == Role::Subresource)
        .filter_map(|(i, (_, resolved))| match resolved {
            Some((_, Resolved::File { index, .. })) => Some((i, *index)),
            _ => None,
        })
}

/// `file` with its subresource references fingerprinted, or `None` when none changed.
fn rewrite(
    file: &Scanned,
    hashes: &mut Hashes<'_>,
    cyclic: &dyn Fn(usize) -> bool,
    outcome: &Links,
) -> Option<Rewrite> {
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for (i, index) in targets(file) {
        if cyclic(index) {
            continue;
        }
        let Some(v) = hashes.of(index, &outcome.rewrites) else {
            continue;
        };
        let reference = &file.refs[i];
        let Some((_, Resolved::File { redirected_to, .. })) = &file.resolved[i] else {
            continue;
        };
        let raw = &file.text[reference.span.clone()];
        if let Some(text) = with_fingerprint(raw, redirected_to.as_deref(), &v, reference.amp) {
            edits.push((reference.span.clone(), text));
        }
    }
    let fingerprinted = edits.len();
    edits.extend(canonical_navigations(file));
    if edits.is_empty() {
        return None;
    }
    let (references, navigations) = (edits.len(), edits.len() - fingerprinted);
    Some(Rewrite {
        bytes: splice(&file.text, edits),
        references,
        navigations,
        source_sha256: file.sha256.clone(),
    })
}

/// `text` with each edit's span replaced by its text, in the order of the spans: the bytes
/// between them are copied as they are. The scanners report spans in order and apart (the
/// fuzz targets check it); an edit that would overlap the one before is dropped, never
/// applied over it.
fn splice(text: &str, mut edits: Vec<(Range<usize>, String)>) -> Vec<u8> {
    edits.sort_by_key(|(span, _)| span.start);
    let mut bytes = Vec::with_capacity(text.len() + edits.len() * 14);
    let mut at = 0;
    for (span, replacement) in &edits {
        if span.start < at || span.end > text.len() {
            continue;
        }
        bytes.extend_from_slice(&text.as_bytes()[at..span.start]);
        bytes.extend_from_slice(replacement.as_bytes());
        at = span.end;
    }
    bytes.extend_from_slice(&text.as_bytes()[at..]);
    bytes
}

/// For fuzzing (`crate::fuzzing`): scans `text` as HTML (`html`) or CSS and checks what the
/// rewriter relies on: every reference it may rewrite in place (`verbatim`) has its span in the
/// text on character boundaries and its URL as its text, no two such spans overlap, and
/// fingerprinting every such reference changes no byte outside their spans.
/// Panics when one does not hold.
pub(crate) fn fuzz_check(text: &str, html: bool) {
    let mut refs: Vec<Ref> = if html {
        match html::scan(text) {
            Ok(page) => page.refs,
            Err(_) => return,
        }
    } else {
        css_file_refs(text)
    };
    // The rewriter edits the verbatim references, in the order of their spans.
    refs.retain(|r| r.verbatim);
    refs.sort_by_key(|r| r.span.start);
    let mut end = 0;
    for r in &refs {
        let span = r.span.clone();
        let in_text = span.start <= span.end && span.end <= text.len();
        assert!(in_text, "{span:?} of {}", text.len());
        let on_boundaries = text.is_char_boundary(span.start) && text.is_char_boundary(span.end);
        assert!(on_boundaries, "{span:?}");
        assert!(
            span.start >= end,
            "{span:?} overlaps the one before (ends at {end})"
        );
        end = span.end;
        let raw = &text[span];
        let raw = if r.amp {
            raw.replace("&amp;", "&")
        } else {
            raw.to_string()
        };
        assert_eq!(raw, r.url, "a verbatim reference's text is its URL");
    }
    let edits: Vec<(Range<usize>, String)> = refs
        .iter()
        .filter(|r| r.verbatim)
        .filter_map(|r| {
            with_fingerprint(&text[r.span.clone()], None, "0123456789", r.amp)
                .map(|t| (r.span.clone(), t))
        })
        .collect();
    let out = splice(text, edits.clone());
    // Outside the spans, the same bytes in the same order.
    let (mut from, mut to) = (0, 0);
    for (span, replacement) in &edits {
        let kept = &text.as_bytes()[from..span.start];
        assert_eq!(
            &out[to..to + kept.len()],
            kept,
            "bytes before {span:?} changed"
        );
        to += kept.len() + replacement.len();
        from = span.end;
    }
    assert_eq!(
        &out[to..],
        &text.as_bytes()[from..],
        "bytes after the last reference changed"
    );
}

/// The edits that make each link to a page that the site reaches through permanent redirects
/// (a clean URL's or a folder's canonical 308, a `_redirects` 301) name the page's own URL:
/// a click then costs no redirect, and the page's speculation rules, which name pages by
/// their URL, match the link. The fragment stays.
fn canonical_navigations(file: &Scanned) -> Vec<(Range<usize>, String)> {
    file.refs
        .iter()
        .zip(&file.resolved)
        .filter(|(r, _)| r.verbatim && r.role == Role::Navigation)
        .filter_map(|(reference, resolved)| match resolved {
            Some((
                _,
                Resolved::File {
                    redirected_to: Some(to),
                    permanent: true,
                    ..
                },
            )) => {
                let raw = &file.text[reference.span.clone()];
                let fragment = raw.find('#').map_or("", |at| &raw[at..]);
                let to = if reference.amp {
                    to.replace('&', "&amp;")
                } else {
                    to.clone()
                };
                Some((reference.span.clone(), format!("{to}{fragment}")))
            }
            _ => None,
        })
        .collect()
}

/// The text of a reference (`raw`) naming version `v`: `v=` added to its query (before its
/// fragment), or, when it was redirected, the target it was redirected to with `v` added.
/// `None` when the query already has this `v` (a site built from its own output).
pub(crate) fn with_fingerprint(
    raw: &str,
    redirected_to: Option<&str>,
    v: &str,
    amp: bool,
) -> Option<String> {
    let (before, fragment) = match raw.find('#') {
        Some(at) => raw.split_at(at),
        None => (raw, ""),
    };
    let separator = if amp { "&amp;" } else { "&" };
    let base = match redirected_to {
        Some(target) if amp => target.replace('&', "&amp;"),
        Some(target) => target.to_string(),
        None => before.to_string(),
    };
    let query = base.split_once('?').map(|(_, q)| q);
    let mine = format!("v={v}");
    if query.is_some_and(|q| q.split(['&', ';']).any(|p| p == mine)) {
        return None;
    }
    let joiner = match query {
        None => "?",
        Some("") => "",
        Some(_) => separator,
    };
    Some(format!("{base}{joiner}{mine}{fragment}"))
}

/// A page's `Link` field of preload hints: its render-blocking references that lead to
/// files, in document order, each at the URL the page now names (with its `v`), at most
/// [`MAX_PRELOADS`].
fn preload(
    file: &Scanned,
    hashes: &mut Hashes<'_>,
    rewrites: &[Option<Rewrite>],
) -> Option<String> {
    let mut hints: Vec<String> = Vec::new();
    for (reference, resolved) in file.refs.iter().zip(&file.resolved) {
        let (
            Some(hint),
            Some((
                target,
                Resolved::File {
                    index,
                    redirected_to,
                    ..
                },
            )),
        ) = (reference.hint, resolved)
        else {
            continue;
        };
        let url = redirected_to.as_deref().unwrap_or(target);
        // The URL the page asks for: with `v` only where the reference was rewritten.
        let url = match hashes.of(*index, rewrites) {
            Some(v) if reference.verbatim => {
                with_fingerprint(url, None, &v, false).unwrap_or_else(|| url.to_string())
            }
            _ => url.to_string(),
        };
        // RFC 8288 §3: a URI reference between `<` and `>`; what a page may write otherwise
        // (non-ASCII, spaces) is percent-encoded, so the field passes the field check.
        let url = crate::uri::encoded(&url, |b| b.is_ascii_graphic() && !b"<>\"".contains(&b));
        let hint = format!("<{url}>{}", hint.link_params());
        if !hints.contains(&hint) {
            hints.push(hint);
        }
        if hints.len() == MAX_PRELOADS {
            break;
        }
    }
    (!hints.is_empty()).then(|| hints.join(", "))
}
