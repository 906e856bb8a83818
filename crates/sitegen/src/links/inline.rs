//! Step 3b, inline: a page whose only render-blocking resources are small stylesheets gets them
//! as `<style>` elements where its `<link>`s were (`[links] inline_css_bytes`), so its first
//! view needs no round trip after the page's own (measured: docs/benchmarks.md, "Inline or
//! linked: a small stylesheet"). The cascade is unchanged: each `<style>` stands where its
//! `<link>` stood, with its `media`.
//!
//! Left linked, the whole page's stylesheets, when any of them is not small, or the page also
//! has a render-blocking script (the round trip stays), a `<base href>`, or a `<link>` with
//! other attributes than `rel`, `href`, `type` and `media`; or when a stylesheet imports (an
//! `@import` may be relative), holds `</style` (it would end the element), names a fragment
//! (`url(#...)` means the page's element once inline), or has a local URL that is not
//! root-relative (a page is served at more than one URL: a 404 page at any missing path, a
//! `_redirects` rewrite at another); and every page of a site that sends a
//! Content-Security-Policy (checked by the caller), or whose `<meta http-equiv>` sets one.

use super::scan::css_file_refs;
use super::{html, positions, url, Hint, Rewrite, Scanned};
use crate::mime;
use crate::resolve::Resolved;
use crate::sources::Found;
use std::collections::HashMap;

/// A page with its stylesheets inline (its position in the scanned files): its new bytes and
/// the files inlined.
pub(super) struct Inlined {
    pub at: usize,
    pub bytes: Vec<u8>,
    pub files: Vec<usize>,
}

/// Every page whose stylesheets `limit` bytes in all (as served) take inline.
pub(super) fn inline_all(
    found: &[Found],
    scanned: &[Scanned],
    rewrites: &[Option<Rewrite>],
    limit: u64,
) -> Vec<Inlined> {
    if limit == 0 {
        return Vec::new();
    }
    let position: HashMap<usize, usize> = positions(scanned);
    let page_text = |file: &Scanned| -> String {
        match &rewrites[file.index] {
            Some(rewrite) => String::from_utf8_lossy(&rewrite.bytes).into_owned(),
            None => file.text.clone(),
        }
    };
    let served = |file: &Scanned| -> String {
        let text = page_text(file);
        // A browser drops a stylesheet's byte order mark as it decodes the file; inside
        // `<style>` it would be part of the first selector.
        match text.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => text,
        }
    };
    let mut out = Vec::new();
    for (at, page) in scanned.iter().enumerate() {
        if page.style_links.is_empty() {
            continue;
        }
        let Some(sheets) = sheets_of(page, &position, found) else {
            continue;
        };
        let texts: Vec<String> = sheets.iter().map(|&at| served(&scanned[at])).collect();
        if texts.iter().map(|t| t.len() as u64).sum::<u64>() > limit {
            continue;
        }
        let fit = texts.iter().all(|text| inlinable(text));
        if let Some(bytes) = fit.then(|| replaced(&page_text(page), &texts)).flatten() {
            let files = sheets.iter().map(|&at| scanned[at].index).collect();
            out.push(Inlined { at, bytes, files });
        }
    }
    out
}

/// The positions in `scanned` of `page`'s render-blocking stylesheets, in document order, if
/// every render-blocking resource of the page is one of them, a plain `<link>` to a stylesheet
/// of the site (no redirect).
fn sheets_of(
    page: &Scanned,
    position: &HashMap<usize, usize>,
    found: &[Found],
) -> Option<Vec<usize>> {
    // A `<base href>` moves what relative URLs mean; a policy in a `<meta http-equiv>` may
    // forbid inline styles.
    if page.base.is_some() || sets_policy(page) {
        return None;
    }
    let blocking = page
        .refs
        .iter()
        .filter(|r| matches!(r.hint, Some(Hint::Style | Hint::Script)))
        .count();
    if blocking != page.style_links.len() {
        return None;
    }
    page.style_links
        .iter()
        .map(|link| {
            let Some((
                _,
                Resolved::File {
                    index,
                    redirected_to: None,
                    ..
                },
            )) = page.resolved.get(link.reference)?
            else {
                return None;
            };
            let css = mime::content_type(&found[*index].url_path).starts_with("text/css");
            (link.plain && css)
                .then(|| position.get(index).copied())
                .flatten()
        })
        .collect()
}

/// Whether the stylesheet `text` means the same inside any page: its local URLs are all
/// root-relative (`/...`), so they resolve alike from the stylesheet and from every URL the page
/// is served at (a 404 page answers any missing path under its folder, a `_redirects` rewrite
/// another path); no `@import`, no `</style`, no fragment (`url(#a)` names the page's element
/// once inline).
fn inlinable(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    if lower.contains("</style") || lower.contains("@import") {
        return false;
    }
    css_file_refs(text)
        .iter()
        .all(|r| !r.url.starts_with('#') && (!url::is_local(&r.url) || r.url.starts_with('/')))
}

/// `page` (as served) with its render-blocking stylesheet links replaced by `<style>`
/// elements holding `texts`, in order; `None` if the served page's links are not those.
fn replaced(page: &str, texts: &[String]) -> Option<Vec<u8>> {
    let links = html::scan(page).ok()?.style_links;
    if links.len() != texts.len() {
        return None;
    }
    let mut out = String::with_capacity(page.len() + texts.iter().map(String::len).sum::<usize>());
    let mut at = 0;
    for (link, text) in links.iter().zip(texts) {
        out.push_str(page.get(at..link.tag.start)?);
        out.push_str("<style");
        if let Some(media) = &link.media {
            out.push_str(" media=\"");
            // The attribute's text as written (entities kept): `"` only needs escaping.
            out.push_str(&media.replace('"', "&quot;"));
            out.push('"');
        }
        out.push('>');
        out.push_str(text);
        out.push_str("</style>");
        at = link.tag.end;
    }
    out.push_str(page.get(at..)?);
    Some(out.into_bytes())
}

/// Whether the page may set a Content-Security-Policy of its own (a `<meta http-equiv>`),
/// which may forbid inline styles and `style` attributes.
pub(super) fn sets_policy(page: &Scanned) -> bool {
    let lower = page.text.to_ascii_lowercase();
    lower.contains("http-equiv") && lower.contains("content-security-policy")
}
