//! Step 4, preload: each page's render-blocking stylesheets, synchronous head scripts and
//! preloaded fonts as one `Link` field (RFC 8288) of `rel=preload` hints, then what those
//! stylesheets make a browser fetch only once it has them ([`super::sheet`]): their `@import`s,
//! the fonts of the body text and headings, the root's or body's background image. A browser
//! finds those a round trip after the stylesheet; named in the first response (an Early Hint
//! on Cloudflare), they are fetched beside it.

use super::rewrite::{with_fingerprint, Hashes};
use super::sheet::{self, Element, FontRule, Sheet};
use super::{positions, url, Hint, Rewrite, Scanned, MAX_PRELOADS};
use crate::mime;
use crate::resolve::Resolved;
use crate::sources::Found;
use std::collections::{HashMap, HashSet};

impl Hint {
    fn link_params(self) -> &'static str {
        match self {
            Hint::Style => "; rel=preload; as=style",
            Hint::Script => "; rel=preload; as=script",
            // Fonts are fetched in CORS mode: the hint must be too, or it is not used.
            Hint::Font => "; rel=preload; as=font; crossorigin",
            Hint::Image => "; rel=preload; as=image",
        }
    }
}

/// A page's `Link` field of preload hints: its render-blocking references that lead to
/// files, in document order, each at the URL the page now names (with its `v`), then its
/// likely LCP image's (`image`: [`super::priority`]), then what its stylesheets fetch late
/// ([`Styles::late`]), at most [`MAX_PRELOADS`] in all.
pub(super) fn preload(
    file: &Scanned,
    hashes: &mut Hashes<'_>,
    rewrites: &[Option<Rewrite>],
    styles: &Styles<'_>,
    inlined: &[usize],
    image: Option<&str>,
) -> Option<String> {
    let mut own = own_hints(file, hashes, rewrites, inlined);
    let mut late: Vec<(String, Hint)> = Vec::new();
    for hint in styles.late(file) {
        if !own.contains(&hint) && !late.contains(&hint) {
            late.push(hint);
        }
    }
    // Past the cap, the page's own scripts give way, the last first: a browser's preload
    // scanner finds them in the first bytes of the page anyway, where each late hint saves a
    // round trip.
    while own.len() + usize::from(image.is_some()) + late.len() > MAX_PRELOADS {
        let Some(last_script) = own.iter().rposition(|(_, hint)| *hint == Hint::Script) else {
            break;
        };
        own.remove(last_script);
    }
    let format =
        |(url, hint): (String, Hint)| format!("<{}>{}", field_url(&url), hint.link_params());
    let own = own.into_iter().map(format);
    let late = late.into_iter().map(format);
    let mut hints: Vec<String> = Vec::new();
    for hint in own.chain(image.map(str::to_string)).chain(late) {
        if hints.len() < MAX_PRELOADS && !hints.contains(&hint) {
            hints.push(hint);
        }
    }
    (!hints.is_empty()).then(|| hints.join(", "))
}

/// A URL as a `Link` field carries it: RFC 8288 §3, a URI reference between `<` and `>`; what
/// a page may write otherwise (non-ASCII, spaces) is percent-encoded, so the field passes the
/// field check.
pub(super) fn field_url(url: &str) -> String {
    crate::uri::encoded(url, |b| b.is_ascii_graphic() && !b"<>\"".contains(&b))
}

/// The page's render-blocking references that lead to files, in document order, each once, at
/// the URL the page now names; not the stylesheets it now holds inline (`inlined`).
fn own_hints(
    file: &Scanned,
    hashes: &mut Hashes<'_>,
    rewrites: &[Option<Rewrite>],
    inlined: &[usize],
) -> Vec<(String, Hint)> {
    let mut own: Vec<(String, Hint)> = Vec::new();
    for (reference, resolved) in file.refs.iter().zip(&file.resolved) {
        let (Some(hint), Some(resolved)) = (reference.hint, resolved) else {
            continue;
        };
        let Some((index, url)) = served_url(reference, resolved, hashes, rewrites) else {
            continue;
        };
        if !inlined.contains(&index) && !own.contains(&(url.clone(), hint)) {
            own.push((url, hint));
        }
    }
    own
}

/// The file a reference leads to and the URL the page now asks for it at: where it leads
/// (past a redirect), with `v` only where the reference was rewritten.
pub(super) fn served_url(
    reference: &super::Ref,
    (target, resolved): &(String, Resolved),
    hashes: &mut Hashes<'_>,
    rewrites: &[Option<Rewrite>],
) -> Option<(usize, String)> {
    let Resolved::File {
        index,
        redirected_to,
        ..
    } = resolved
    else {
        return None;
    };
    let url = redirected_to.as_deref().unwrap_or(target);
    let url = match hashes.of(*index, rewrites) {
        Some(v) if reference.verbatim => {
            with_fingerprint(url, None, &v, false).unwrap_or_else(|| url.to_string())
        }
        _ => url.to_string(),
    };
    Some((*index, url))
}

/// The site's stylesheets as the pass read and rewrote them.
pub(super) struct Styles<'a> {
    scanned: &'a [Scanned],
    /// By file index: its position in `scanned`.
    position: HashMap<usize, usize>,
    /// By position in `scanned`: a stylesheet's reading, and the URLs of its references as
    /// served (after the rewrite), in the order of its `refs`.
    sheets: Vec<Option<(Sheet, Vec<String>)>>,
    /// By file index: the URL the file is served at.
    urls: &'a [String],
}

impl<'a> Styles<'a> {
    pub(super) fn new(
        found: &[Found],
        scanned: &'a [Scanned],
        urls: &'a [String],
        rewrites: &[Option<Rewrite>],
    ) -> Self {
        let sheets = scanned
            .iter()
            .map(|file| {
                if !mime::content_type(&found[file.index].url_path).starts_with("text/css") {
                    return None;
                }
                let served = match &rewrites[file.index] {
                    Some(rewrite) => String::from_utf8_lossy(&rewrite.bytes).into_owned(),
                    None => file.text.clone(),
                };
                let served: Vec<String> = super::scan::css_file_refs(&served)
                    .into_iter()
                    .map(|r| r.url)
                    .collect();
                // A rewrite changes values, never how many there are.
                (served.len() == file.refs.len()).then(|| (sheet::read(&file.text), served))
            })
            .collect();
        Styles {
            scanned,
            position: positions(scanned),
            sheets,
            urls,
        }
    }

    /// What `page`'s render-blocking stylesheets make a browser fetch once it has them: the
    /// sheets they import, then the faces of the fonts its body text and headings are set in
    /// (unless the page sets fonts itself), then the root's or body's background image (unless
    /// the page sets a background itself): each at the URL the browser will ask for.
    pub(super) fn late(&self, page: &Scanned) -> Vec<(String, Hint)> {
        let mut out = Vec::new();
        // The stylesheets in the cascade's order (CSS Cascading 4 §6.4: an imported sheet's
        // rules before those of the sheet that imports it), each once (an import cycle ends).
        let (mut order, mut visited) = (Vec::new(), HashSet::new());
        for (i, (reference, resolved)) in page.refs.iter().zip(&page.resolved).enumerate() {
            // A stylesheet for some screens only (`media="(prefers-color-scheme: dark)"`):
            // what it fetches is not every visitor's.
            let every_screen = page
                .style_links
                .iter()
                .find(|link| link.reference == i)
                .and_then(|link| link.media.as_deref())
                .is_none_or(|media| {
                    matches!(
                        media.trim().to_ascii_lowercase().as_str(),
                        "" | "all" | "screen"
                    )
                });
            if let (Some(Hint::Style), Some((_, Resolved::File { index, .. })), true) =
                (reference.hint, resolved, every_screen)
            {
                self.visit(*index, &mut visited, &mut order, &mut out);
            }
        }
        let lower = page.text.to_ascii_lowercase();
        if !lower.contains("font-family") && !lower.contains("font:") {
            out.extend(self.fonts(&order, &lower));
        }
        if !lower.contains("background") {
            out.extend(self.background(&order));
        }
        out
    }

    /// Adds the stylesheet of file `index` to `order` after those it imports, and each
    /// import to `out`.
    fn visit(
        &self,
        index: usize,
        visited: &mut HashSet<usize>,
        order: &mut Vec<usize>,
        out: &mut Vec<(String, Hint)>,
    ) {
        let Some(&at) = self.position.get(&index) else {
            return;
        };
        let Some((sheet, _)) = &self.sheets[at] else {
            return;
        };
        if !visited.insert(index) {
            return;
        }
        for &start in &sheet.imports {
            if let Some((url, target)) = self.reference(at, start) {
                out.push((url, Hint::Style));
                self.visit(target, visited, order, out);
            }
        }
        order.push(at);
    }

    /// The reference whose text starts at `start` in the stylesheet at `at`: the URL a browser
    /// asks for (the served text resolved against the stylesheet's URL), and the file it leads
    /// to.
    fn reference(&self, at: usize, start: usize) -> Option<(String, usize)> {
        let file = &self.scanned[at];
        let (_, served) = self.sheets[at].as_ref()?;
        let i = file.refs.iter().position(|r| r.span.start == start)?;
        let Some((_, Resolved::File { index, .. })) = &file.resolved[i] else {
            return None;
        };
        let served = &served[i];
        if !url::is_local(served) {
            return None;
        }
        let (path, query, _) = url::split(served);
        let mut target = url::as_target(&url::resolve(&self.urls[file.index], path));
        if let Some(query) = query {
            target.push('?');
            target.push_str(&url::as_target(query));
        }
        Some((target, *index))
    }

    /// The faces the body text and the page's headings are set in, each the face a browser
    /// picks for the first family of the element's list (a family before it, such as a system
    /// font, may be the one used: then nothing is named).
    fn fonts(&self, order: &[usize], page: &str) -> Vec<(String, Hint)> {
        let rules: Vec<&FontRule> = order.iter().flat_map(|&at| &self.sheet(at).fonts).collect();
        let faces: Vec<(usize, &sheet::Face)> = order
            .iter()
            .flat_map(|&at| self.sheet(at).faces.iter().map(move |f| (at, f)))
            .collect();
        let overridden: Vec<Element> = order
            .iter()
            .flat_map(|&at| self.sheet(at).font_overridden.iter().copied())
            .collect();
        let mut out = Vec::new();
        for (element, families, weight, italic) in used_fonts(&rules, page) {
            // A rule that may apply instead of the top-level ones (a media query, a compound
            // selector), on the element or one it inherits from: its font is not known.
            let from = [element, Element::Body, Element::Root, Element::Any];
            if from.iter().any(|e| overridden.contains(e)) {
                continue;
            }
            let Some(family) = families.and_then(|f| f.first()) else {
                continue;
            };
            let of_family: Vec<&(usize, &sheet::Face)> =
                faces.iter().filter(|(_, f)| &f.family == family).collect();
            // CSS Fonts 4 §5.2: the style first (an italic face for italic text, where there is
            // one; else the others, synthesised), then the weight.
            let same_style: Vec<&(usize, &sheet::Face)> = of_family
                .iter()
                .filter(|(_, f)| f.italic == italic)
                .copied()
                .collect();
            let styled = if same_style.is_empty() {
                of_family
            } else {
                same_style
            };
            let weights: Vec<(u16, u16)> = styled.iter().map(|(_, f)| f.weights).collect();
            if let Some(&&(at, face)) = sheet::nearest(&weights, weight).and_then(|i| styled.get(i))
            {
                let url = face.url.and_then(|start| self.reference(at, start));
                out.extend(url.map(|(url, _)| (url, Hint::Font)));
            }
        }
        out
    }

    /// The image of the last `background` the cascade gives the body, and the root's.
    fn background(&self, order: &[usize]) -> Vec<(String, Hint)> {
        let mut out = Vec::new();
        let overridden: Vec<Element> = order
            .iter()
            .flat_map(|&at| self.sheet(at).background_overridden.iter().copied())
            .collect();
        for element in [Element::Root, Element::Body] {
            if overridden.contains(&element) {
                continue;
            }
            let last = order
                .iter()
                .flat_map(|&at| self.sheet(at).backgrounds.iter().map(move |b| (at, b)))
                .rfind(|(_, b)| b.element == element);
            if let Some((
                at,
                sheet::Background {
                    url: Some(start), ..
                },
            )) = last
            {
                out.extend(
                    self.reference(at, *start)
                        .map(|(url, _)| (url, Hint::Image)),
                );
            }
        }
        out
    }

    fn sheet(&self, at: usize) -> &Sheet {
        static EMPTY: Sheet = Sheet {
            imports: Vec::new(),
            faces: Vec::new(),
            fonts: Vec::new(),
            backgrounds: Vec::new(),
            boxes: Vec::new(),
            font_overridden: Vec::new(),
            background_overridden: Vec::new(),
        };
        self.sheets[at].as_ref().map_or(&EMPTY, |(sheet, _)| sheet)
    }
}

/// The font (families, weight, italic) of the body text and of each heading level `page`
/// (lower-case HTML) has, from the stylesheets' `rules` in the cascade's order: inherited from
/// the root to the body and from the body to a heading; `*` matches each element itself,
/// before inheritance.
fn used_fonts<'r>(
    rules: &[&'r FontRule],
    page: &str,
) -> Vec<(Element, Option<&'r Vec<String>>, u16, bool)> {
    let last = |element: Element| {
        let on = || rules.iter().filter(move |r| r.element == element);
        (
            on().rev().find_map(|r| r.families.as_ref()),
            on().rev().find_map(|r| r.weight),
            on().rev().find_map(|r| r.italic),
        )
    };
    let (root, any, body) = (last(Element::Root), last(Element::Any), last(Element::Body));
    let body = (
        body.0.or(any.0).or(root.0),
        body.1.or(any.1).or(root.1).unwrap_or(400),
        body.2.or(any.2).or(root.2).unwrap_or(false),
    );
    let mut used = vec![(Element::Body, body.0, body.1, body.2)];
    for level in 1..=6 {
        if has_element(page, &format!("h{level}")) {
            let heading = last(Element::Heading(level));
            // Headings are bold by the HTML spec's user-agent style sheet.
            used.push((
                Element::Heading(level),
                heading.0.or(any.0).or(body.0),
                heading.1.or(any.1).unwrap_or(700),
                heading.2.or(any.2).unwrap_or(body.2),
            ));
        }
    }
    used
}

/// Whether lower-case HTML `page` has a start tag `name` (`<h1>`, `<h1 class=...>`).
fn has_element(page: &str, name: &str) -> bool {
    let open = format!("<{name}");
    page.match_indices(&open).any(|(i, _)| {
        matches!(
            page.as_bytes().get(i + open.len()),
            Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/' | b'\x0c')
        )
    })
}
