//! References in HTML, found with an HTML tokenizer (lol_html, which gives each attribute
//! value's exact byte span in the source): the attributes that load a subresource, those that
//! navigate, `<base href>`, and the CSS in `<style>` elements and `style` attributes.

use super::boxes::{BoxRule, Names, Sets};
use super::css;
use super::sheet;
use super::url::srcset;
use super::{Hint, Ref, Role};
use lol_html::doc_text;
use lol_html::html_content::TextType;
use lol_html::html_content::{Element, TextChunk};
use lol_html::{element, text, HtmlRewriter, Settings};
use std::cell::{Cell, RefCell};
use std::ops::Range;
use std::rc::Rc;

/// What a page refers to.
#[derive(Debug, Default)]
pub(crate) struct Page {
    /// Every reference, in document order.
    pub refs: Vec<Ref>,
    /// The first `<base href>`'s value, entities decoded.
    pub base: Option<String>,
    /// The render-blocking stylesheets' `<link>`s, in document order.
    pub style_links: Vec<StyleLink>,
    /// The `<img>` elements, in document order.
    pub images: Vec<Image>,
    /// The rules of its `<style>` elements that may set an `<img>`'s box.
    pub box_rules: Vec<BoxRule>,
}

/// An `<img>`: where its start tag is, the reference its `src` made (an index in
/// [`Page::refs`]), and what the first view's steps ([`super::sizes`], [`super::priority`])
/// read of it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Image {
    pub tag: Range<usize>,
    pub reference: Option<usize>,
    /// Its `width` and `height` attributes, when they are dimensions (HTML's rules for
    /// parsing non-negative integers: the leading digits).
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// It has a `width` or a `height` attribute, whatever its value.
    pub sized: bool,
    /// Its `srcset` and `sizes`, character references decoded.
    pub srcset: Option<String>,
    pub sizes: Option<String>,
    /// The author set `loading`, `decoding`, `fetchpriority`, `hidden`.
    pub loading: bool,
    pub decoding: bool,
    pub fetchpriority: bool,
    pub hidden: bool,
    /// In a `<picture>` (its sources may be another file, of another shape).
    pub in_picture: bool,
    /// Its id and classes, and what its `style` attribute sets of its box.
    pub names: Names,
    pub own: Sets,
    /// It has a `style` attribute: where its value ends in the source (`None`: no value).
    pub style_end: Option<Option<usize>>,
    /// Characters of the page's text before it, each run of whitespace one, not counting
    /// text that is not laid out above it: in `<nav>`, `<aside>`, `<details>`, `<select>`,
    /// `<template>`, `hidden` elements and navigation, complementary and menu roles.
    pub text_before: usize,
}

impl Image {
    /// An `<img>` of a `src` with neither `width` nor `height` and no `srcset`.
    pub(crate) fn is_unsized(&self) -> bool {
        self.reference.is_some() && !self.sized && self.srcset.is_none()
    }
}

/// A render-blocking `<link rel=stylesheet>`: where its start tag is, the reference its `href`
/// made (an index in [`Page::refs`]), its `media`, and whether it has no attribute but `rel`,
/// `href`, `type` and `media` (only then can a `<style>` stand in for it).
#[derive(Debug, Clone)]
pub(crate) struct StyleLink {
    pub tag: Range<usize>,
    pub reference: usize,
    pub media: Option<String>,
    pub plain: bool,
}

/// State while scanning: still in the head (no body content seen yet), the `<style>` text.
#[derive(Default)]
struct Scan {
    page: Page,
    in_head: bool,
    style: Option<(usize, String)>,
    /// Text characters seen so far ([`Image::text_before`]).
    text: usize,
    /// How many open elements hide their text from the count, and how many `<picture>`s are
    /// open (each closed by its end tag's handler, which must own what it changes).
    out_of_flow: Rc<Cell<usize>>,
    pictures: Rc<Cell<usize>>,
}

/// Scans `html` (UTF-8).
///
/// # Errors
/// When the tokenizer gives up (it does not, in non-strict mode, on any input seen so far).
pub(crate) fn scan(html: &str) -> Result<Page, String> {
    let state = RefCell::new(Scan {
        in_head: true,
        ..Scan::default()
    });
    let settings = Settings::new()
        .append_element_content_handler(element!("*", |el| {
            element_refs(el, &mut state.borrow_mut());
            Ok(())
        }))
        .append_element_content_handler(text!("style", |chunk| {
            style_text(chunk, &mut state.borrow_mut());
            Ok(())
        }))
        .append_document_content_handler(doc_text!(|chunk| {
            count_text(chunk, &mut state.borrow_mut());
            Ok(())
        }))
        .with_strict(false);
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    rewriter.write(html.as_bytes()).map_err(|e| e.to_string())?;
    rewriter.end().map_err(|e| e.to_string())?;
    let mut state = state.into_inner();
    flush_style(&mut state);
    let mut page = state.page;
    // A reference is rewritten in place only if the source at its span is its URL (only
    // `&amp;` standing for `&`): the tokenizer's locations and decoded values do not always
    // agree (lol_html's value location leaves out a trailing U+000B, found by the fuzz target),
    // and a span that is not the URL would make the rewriter change other bytes.
    for r in &mut page.refs {
        if r.verbatim {
            r.verbatim = html.get(r.span.clone()).is_some_and(|text| match r.amp {
                true => text.replace("&amp;", "&") == r.url,
                false => text == r.url,
            });
        }
    }
    Ok(page)
}

/// Elements that may be in a document's head (HTML, "metadata content" and the like): any
/// other element starts the body.
const HEAD_ELEMENTS: [&str; 10] = [
    "html", "head", "title", "meta", "link", "style", "script", "base", "noscript", "template",
];

fn element_refs(el: &mut Element<'_, '_>, scan: &mut Scan) {
    flush_style(scan);
    let tag = el.tag_name();
    if scan.in_head && !HEAD_ELEMENTS.contains(&tag.as_str()) {
        scan.in_head = false;
    }
    track_open(el, scan);
    let integrity = el.has_attribute("integrity");
    let mut add = |name: &str, role: Role, hint: Option<Hint>| {
        if let Some((span, raw)) = value_of(el, name) {
            push(&mut scan.page.refs, span, &raw, role, hint, integrity);
        }
    };
    match tag.as_str() {
        "a" | "area" => add("href", Role::Navigation, None),
        "iframe" | "frame" => add("src", Role::Navigation, None),
        "img" => img_refs(el, scan, integrity),
        "source" => {
            add("src", Role::Subresource, None);
            srcset_refs(el, &mut scan.page.refs);
        }
        "input" if attr_is(el, "type", "image") => add("src", Role::Subresource, None),
        "video" => {
            add("poster", Role::Subresource, None);
            add("src", Role::Subresource, None);
        }
        "audio" | "track" | "embed" => add("src", Role::Subresource, None),
        "object" => add("data", Role::Subresource, None),
        "use" | "image" | "feimage" => {
            add("href", Role::Subresource, None);
            add("xlink:href", Role::Subresource, None);
        }
        "script" => {
            let (role, hint) = script_role(el, scan.in_head);
            add("src", role, hint);
        }
        "link" => link_refs(el, scan, integrity),
        "base" if scan.page.base.is_none() => {
            scan.page.base = el.get_attribute("href").map(|v| decode_entities(v.trim()));
        }
        "meta" if meta_is_url(el) => add("content", Role::Checked, None),
        "meta" => refresh_ref(el, &mut scan.page.refs),
        _ => {}
    }
    if let Some((span, raw)) = value_of(el, "style") {
        css_refs(span.start, &raw, &mut scan.page.refs, true);
    }
}

/// An `<img>`'s references, and its [`Image`].
fn img_refs(el: &Element<'_, '_>, scan: &mut Scan, integrity: bool) {
    let reference = scan.page.refs.len();
    if let Some((span, raw)) = value_of(el, "src") {
        push(
            &mut scan.page.refs,
            span,
            &raw,
            Role::Subresource,
            None,
            integrity,
        );
    }
    let dimension = |name: &str| {
        let value = el.get_attribute(name)?;
        let digits: String = value
            .trim_start_matches(|c: char| c.is_ascii_whitespace())
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    };
    let decoded = |name: &str| el.get_attribute(name).map(|v| decode_entities(&v));
    let style = decoded("style").map(|text| sheet::style_attribute(&text));
    let own = style.iter().flatten();
    scan.page.images.push(Image {
        tag: el.source_location().bytes(),
        reference: (scan.page.refs.len() > reference).then_some(reference),
        width: dimension("width"),
        height: dimension("height"),
        sized: el.has_attribute("width") || el.has_attribute("height"),
        srcset: decoded("srcset"),
        sizes: decoded("sizes"),
        loading: el.has_attribute("loading"),
        decoding: el.has_attribute("decoding"),
        fetchpriority: el.has_attribute("fetchpriority"),
        hidden: el.has_attribute("hidden"),
        in_picture: scan.pictures.get() > 0,
        names: Names::of(
            decoded("id").as_deref().map(str::trim),
            decoded("class").as_deref(),
        ),
        own: super::boxes::sets(own.map(|(name, value)| (name.as_str(), value.as_str()))),
        style_end: el
            .has_attribute("style")
            .then(|| value_of(el, "style").map(|(span, _)| span.end)),
        text_before: scan.text,
    });
    srcset_refs(el, &mut scan.page.refs);
}

/// Elements whose text is not laid out in the page's flow above what follows them (a sidebar,
/// a menu, a closed disclosure, a template), and `<picture>`s, counted while they are open.
fn track_open(el: &mut Element<'_, '_>, scan: &Scan) {
    const OUT_OF_FLOW: [&str; 6] = ["nav", "aside", "details", "select", "template", "dialog"];
    const ROLES: [&str; 5] = ["navigation", "complementary", "menu", "dialog", "search"];
    let tag = el.tag_name();
    let counter = if tag == "picture" {
        &scan.pictures
    } else if OUT_OF_FLOW.contains(&tag.as_str())
        || el.has_attribute("hidden")
        || el
            .get_attribute("role")
            .is_some_and(|r| ROLES.contains(&r.trim().to_ascii_lowercase().as_str()))
    {
        &scan.out_of_flow
    } else {
        return;
    };
    // An element written without its end tag (`<nav>` left open) stays counted: its text is
    // never counted, which only makes images look nearer the top.
    if let Some(handlers) = el.end_tag_handlers() {
        counter.set(counter.get() + 1);
        let counter = Rc::clone(counter);
        handlers.push(Box::new(move |_| {
            counter.set(counter.get().saturating_sub(1));
            Ok(())
        }));
    }
}

/// Counts the characters of text in the flow ([`Image::text_before`]): only text content
/// (not scripts, styles, titles or text areas), a run of whitespace as one.
fn count_text(chunk: &TextChunk<'_>, scan: &mut Scan) {
    if chunk.text_type() != TextType::Data || scan.out_of_flow.get() > 0 || scan.in_head {
        return;
    }
    let text = chunk.as_str();
    let words: usize = text.split_ascii_whitespace().map(str::len).sum();
    let gaps = text.split_ascii_whitespace().count();
    scan.text += words + gaps;
}

/// A `<link>`'s reference, and for a render-blocking stylesheet its [`StyleLink`].
fn link_refs(el: &Element<'_, '_>, scan: &mut Scan, integrity: bool) {
    let Some((role, hint)) = link_role(el, scan.in_head) else {
        return;
    };
    let reference = scan.page.refs.len();
    if let Some((span, raw)) = value_of(el, "href") {
        push(&mut scan.page.refs, span, &raw, role, hint, integrity);
    }
    if hint == Some(Hint::Style) && scan.page.refs.len() > reference {
        // A `type` other than CSS's makes a browser ignore the link.
        let css = el
            .get_attribute("type")
            .is_none_or(|t| t.trim().eq_ignore_ascii_case("text/css"));
        let plain = css
            && el
                .attributes()
                .iter()
                .all(|a| matches!(a.name().as_str(), "rel" | "href" | "type" | "media"));
        scan.page.style_links.push(StyleLink {
            tag: el.source_location().bytes(),
            reference,
            media: el.get_attribute("media"),
            plain,
        });
    }
}

/// A classic script loads with the page's URL map; a module script (`type=module`) is
/// keyed by its URL in the module map, so another URL for it would load it twice: checked,
/// never rewritten. A classic script in the head without `async`, `defer` or `nomodule` blocks
/// rendering.
fn script_role(el: &Element<'_, '_>, in_head: bool) -> (Role, Option<Hint>) {
    if attr_is(el, "type", "module") {
        return (Role::Checked, None);
    }
    // `nomodule`: only browsers without modules run it (and fetch it): no hint for the rest.
    let blocking = in_head
        && !el.has_attribute("async")
        && !el.has_attribute("defer")
        && !el.has_attribute("nomodule");
    (Role::Subresource, blocking.then_some(Hint::Script))
}

/// What a `<link>` does, from its `rel` tokens (HTML, "link types").
fn link_role(el: &Element<'_, '_>, in_head: bool) -> Option<(Role, Option<Hint>)> {
    let rel = el.get_attribute("rel")?.to_ascii_lowercase();
    let rel: Vec<&str> = rel.split_ascii_whitespace().collect();
    let has = |t: &str| rel.contains(&t);
    if has("stylesheet") {
        let media = el.get_attribute("media").unwrap_or_default();
        let blocking = in_head
            && !has("alternate")
            && !el.has_attribute("disabled")
            && !media.trim().eq_ignore_ascii_case("print");
        return Some((Role::Subresource, blocking.then_some(Hint::Style)));
    }
    if has("modulepreload") {
        return Some((Role::Checked, None));
    }
    if has("preload") {
        let hint = match el.get_attribute("as").as_deref() {
            Some("font") if in_head => Some(Hint::Font),
            _ => None,
        };
        return Some((Role::Subresource, hint));
    }
    let subresource = [
        "icon",
        "apple-touch-icon",
        "apple-touch-icon-precomposed",
        "mask-icon",
        "manifest",
        "prefetch",
    ];
    if rel.iter().any(|t| subresource.contains(t)) {
        return Some((Role::Subresource, None));
    }
    let navigation = [
        "canonical",
        "alternate",
        "next",
        "prev",
        "help",
        "license",
        "search",
    ];
    rel.iter()
        .any(|t| navigation.contains(t))
        .then_some((Role::Navigation, None))
}

/// The `<meta>` whose `content` is a URL and nothing else (Open Graph, Twitter cards, Windows
/// tiles): checked, never rewritten (crawlers fetch and keep them).
fn meta_is_url(el: &Element<'_, '_>) -> bool {
    const URL_METAS: [&str; 10] = [
        "og:image",
        "og:image:url",
        "og:image:secure_url",
        "og:video",
        "og:audio",
        "twitter:image",
        "twitter:image:src",
        "twitter:player",
        "msapplication-tileimage",
        "msapplication-config",
    ];
    ["property", "name"].iter().any(|key| {
        el.get_attribute(key)
            .is_some_and(|v| URL_METAS.contains(&v.trim().to_ascii_lowercase().as_str()))
    })
}

/// `<meta http-equiv="refresh" content="5; url=...">`: a navigation.
fn refresh_ref(el: &Element<'_, '_>, refs: &mut Vec<Ref>) {
    if !attr_is(el, "http-equiv", "refresh") {
        return;
    }
    let Some((span, raw)) = value_of(el, "content") else {
        return;
    };
    let lower = raw.to_ascii_lowercase();
    let Some(at) = lower.find("url=") else { return };
    let url = raw[at + 4..].trim().trim_matches(['\'', '"']);
    let start = raw[at + 4..].find(url).map_or(at + 4, |i| at + 4 + i);
    let span = span.start + start..span.start + start + url.len();
    push(refs, span, url, Role::Navigation, None, false);
}

fn srcset_refs(el: &Element<'_, '_>, refs: &mut Vec<Ref>) {
    let Some((span, raw)) = value_of(el, "srcset") else {
        return;
    };
    for url in srcset(&raw) {
        let at = span.start + url.start..span.start + url.end;
        push(refs, at, &raw[url], Role::Subresource, None, false);
    }
}

/// The CSS of a `style` attribute (`in_attribute`: its text may hold entities) or element.
fn css_refs(at: usize, text: &str, refs: &mut Vec<Ref>, in_attribute: bool) {
    let decoded;
    let css_text = if in_attribute && text.contains('&') {
        decoded = decode_entities(text);
        &decoded
    } else {
        text
    };
    for url in css::urls(css_text) {
        let trimmed = url.url.trim();
        refs.push(Ref {
            span: at + url.span.start..at + url.span.end,
            url: trimmed.to_string(),
            // Offsets into decoded text are not offsets into the source; and a URL with spaces
            // around it inside its quotes would get `?v=` after them (another file).
            verbatim: url.verbatim && css_text == text && trimmed == url.url,
            role: Role::Subresource,
            hint: None,
            integrity: false,
            amp: in_attribute,
        });
    }
}

/// `<style>` text arrives in chunks; joined, then scanned at the element's end (or the next
/// element, or the end of input).
fn style_text(chunk: &mut TextChunk<'_>, scan: &mut Scan) {
    let at = chunk.source_location().bytes().start;
    match &mut scan.style {
        Some((_, text)) => text.push_str(chunk.as_str()),
        None => scan.style = Some((at, chunk.as_str().to_string())),
    }
    if chunk.last_in_text_node() {
        flush_style(scan);
    }
}

fn flush_style(scan: &mut Scan) {
    if let Some((at, text)) = scan.style.take() {
        scan.page.box_rules.extend(sheet::read(&text).boxes);
        css_refs(at, &text, &mut scan.page.refs, false);
    }
}

/// An attribute's value and its byte span in the source (none for a valueless attribute).
fn value_of(el: &Element<'_, '_>, name: &str) -> Option<(Range<usize>, String)> {
    // `has_attribute` compares names in place; `attributes()` materializes them all.
    if !el.has_attribute(name) {
        return None;
    }
    let attribute = el
        .attributes()
        .iter()
        .find(|a| a.name().eq_ignore_ascii_case(name))?;
    Some((
        attribute.value_source_location()?.bytes(),
        attribute.value(),
    ))
}

fn attr_is(el: &Element<'_, '_>, name: &str, value: &str) -> bool {
    el.get_attribute(name)
        .is_some_and(|v| v.trim().eq_ignore_ascii_case(value))
}

/// A reference from an attribute value (`raw`, entities not decoded, at `span`): whitespace
/// around it trimmed (HTML URLs are "valid non-empty URLs potentially surrounded by spaces").
/// Rewritable in place when its only character references are `&amp;`.
fn push(
    refs: &mut Vec<Ref>,
    span: Range<usize>,
    raw: &str,
    role: Role,
    hint: Option<Hint>,
    integrity: bool,
) {
    let trimmed = raw.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let start = span.start + raw.len() - trimmed.len();
    let trimmed = trimmed.trim_end_matches(|c: char| c.is_ascii_whitespace());
    if trimmed.is_empty() {
        return;
    }
    let only_amp = trimmed
        .match_indices('&')
        .all(|(i, _)| trimmed[i..].starts_with("&amp;"));
    refs.push(Ref {
        span: start..start + trimmed.len(),
        url: decode_entities(trimmed),
        verbatim: only_amp,
        role,
        hint,
        integrity,
        amp: true,
    });
}

/// `page` with each edit's text (attributes, such as `width="1" height="2"`) added at the end
/// of the start tag at its span (the edits in document order); `None` if a span is not a
/// start tag of the page.
pub(crate) fn with_attributes(page: &str, edits: &[(Range<usize>, String)]) -> Option<String> {
    let inserts: Option<Vec<(usize, String)>> = edits
        .iter()
        .map(|(tag, text)| attributes_end(page, tag).map(|end| (end, text.clone())))
        .collect();
    with_inserted(page, &inserts?)
}

/// Where attributes can be added to the start tag at `tag`: before the `>` that ends it, or
/// the `/>` of a self-closing one (`/` after a space or a quote: in `src=a.png/>` it is the
/// value's last character). `None` if `tag` is not a start tag of the page.
pub(crate) fn attributes_end(page: &str, tag: &Range<usize>) -> Option<usize> {
    let source = page.get(tag.clone())?;
    if !source.starts_with('<') || !source.ends_with('>') {
        return None;
    }
    let self_closing = source.strip_suffix("/>").is_some_and(|rest| {
        rest.ends_with(|c: char| c.is_ascii_whitespace() || c == '"' || c == '\'')
    });
    Some(tag.end - if self_closing { 2 } else { 1 })
}

/// `page` with each text inserted at its position (the positions in ascending order), a text
/// that starts a name (an attribute) after a space; `None` if a position is out of order or
/// not in the page.
pub(crate) fn with_inserted(page: &str, inserts: &[(usize, String)]) -> Option<String> {
    let extra: usize = inserts.iter().map(|(_, text)| text.len() + 1).sum();
    let (mut out, mut at) = (String::with_capacity(page.len() + extra), 0);
    for (position, text) in inserts {
        if *position < at {
            return None;
        }
        out.push_str(page.get(at..*position)?);
        let name = text.starts_with(|c: char| c.is_ascii_alphabetic());
        if name && !out.ends_with(|c: char| c.is_ascii_whitespace()) {
            out.push(' ');
        }
        out.push_str(text);
        at = *position;
    }
    out.push_str(page.get(at..)?);
    Some(out)
}

/// The character references URLs hold in practice (`&amp;`, quotes, `&#NN;`, `&#xNN;`); an
/// unknown one stays as it is.
pub(crate) fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find(';').filter(|&e| e <= 10);
        let decoded = end.and_then(|e| entity(&rest[1..e]));
        match (end, decoded) {
            (Some(e), Some(c)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        "lt" => Some('<'),
        "gt" => Some('>'),
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}
