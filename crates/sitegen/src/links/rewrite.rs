//! Steps 3 and 5, fingerprint and navigate: the references rewritten in place, each file after
//! the files it references ([`super::graph`]), the bytes outside the changed values kept.

use super::scan::css_file_refs;
use super::{graph, html, positions, Links, Ref, Rewrite, Role, Scanned};
use crate::cache::{may_name_a_hash, Policy};
use crate::config::FingerprintMode;
use crate::hash;
use crate::images::Images;
use crate::model::Source;
use crate::resolve::Resolved;
use crate::sources::Found;
use crate::warning::{Warning, WarningKind};
use std::collections::HashMap;
use std::ops::Range;

/// The fingerprint of each file's bytes as served, computed once.
pub(super) struct Hashes<'a> {
    found: &'a [Found],
    images: &'a Images,
    policy: Policy<'a>,
    known: HashMap<usize, Option<String>>,
}

impl<'a> Hashes<'a> {
    pub(super) fn new(found: &'a [Found], images: &'a Images, policy: Policy<'a>) -> Self {
        Hashes {
            found,
            images,
            policy,
            known: HashMap::new(),
        }
    }

    /// The `v` a reference to file `index` gets: `None` when the file is not fingerprinted
    /// (excluded, `mode = "off"`, or its name already carries its hash).
    pub(super) fn of(&mut self, index: usize, rewrites: &[Option<Rewrite>]) -> Option<String> {
        if let Some(known) = self.known.get(&index) {
            return known.clone();
        }
        let file = &self.found[index];
        // An image's `v` covers its variants too (`Made::digest`); the bytes are its source's.
        let image = self.images.of(index).map(|made| made.digest.as_str());
        let path = &file.url_path;
        let fingerprint = match (&rewrites[index], &file.source) {
            (Some(rewrite), _) => self.policy.fingerprint(path, &rewrite.bytes, image),
            // A site file is read in pieces (a download may be larger than the build's memory).
            (None, Source::File(_)) if !self.policy.fingerprint.covers(path) => None,
            (None, Source::File(file)) => {
                let legacy = may_name_a_hash(path);
                let wanted = hash::Wanted { sri: false, legacy };
                let digests = hash::file_digests(file, wanted).ok()?;
                self.policy.fingerprint_by(path, &digests, image)
            }
            (None, made) => self.policy.fingerprint(path, made.in_memory()?, image),
        };
        self.known.insert(index, fingerprint.clone());
        fingerprint
    }
}

/// Rewrites the scanned files, each after the files it references.
pub(super) fn rewrite_in_order(
    found: &[Found],
    scanned: &[Scanned],
    hashes: &mut Hashes<'_>,
    outcome: &mut Links,
) {
    if hashes.policy.fingerprint.mode == FingerprintMode::Off {
        return;
    }
    let position: HashMap<usize, usize> = positions(scanned);
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
                let message = "its references to files that reference it back (a cycle) are left \
                               without ?v=";
                let warning = Warning::new(WarningKind::ReferenceCycle, message);
                outcome
                    .notes
                    .warnings
                    .push(warning.in_file(&found[file.index].source));
            }
        }
    }
}

/// The files a scanned file's rewritable references lead to: (reference, file index).
pub(super) fn targets(file: &Scanned) -> impl Iterator<Item = (usize, usize)> + '_ {
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
pub(super) fn rewrite(
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
pub(super) fn splice(text: &str, mut edits: Vec<(Range<usize>, String)>) -> Vec<u8> {
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

/// The edits that make each link to a page that the site reaches through permanent redirects
/// (a clean URL's or a folder's canonical 308, a `_redirects` 301) name the page's own URL:
/// a click then costs no redirect, and the page's speculation rules, which name pages by
/// their URL, match the link. The fragment stays.
pub(super) fn canonical_navigations(file: &Scanned) -> Vec<(Range<usize>, String)> {
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
