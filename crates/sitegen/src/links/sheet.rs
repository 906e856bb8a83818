//! What a render-blocking stylesheet makes a browser fetch only once it has it, read at build
//! so that the page's first response can name it (issue 34; [`super::preload`] turns it into
//! hints): the stylesheet's `@import`s, the `@font-face` sources of the fonts that the page's
//! body text and headings are set in, and the root's or body's background image.
//!
//! Read with cssparser's tokenizer (CSS Syntax Level 3) at the top level of the stylesheet
//! only: rules inside `@media`, `@supports` or `@layer` blocks apply under conditions the build
//! cannot know (a viewport, a feature), so what they would fetch is left for the browser to
//! find. A URL is named by where its text starts in the stylesheet, the key of the reference
//! the scan found there ([`super::Ref::span`]).

use super::boxes::BoxRule;
use super::css;
use cssparser::{Parser, ParserInput, Token};

/// An element that every page paints on its first view, as a selector names it alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Element {
    /// `html` or `:root`.
    Root,
    Body,
    /// `*`.
    Any,
    /// `h1` to `h6`.
    Heading(u8),
}

impl Element {
    fn of(selector: &str) -> Option<Element> {
        match selector {
            "html" | ":root" => Some(Element::Root),
            "body" => Some(Element::Body),
            "*" => Some(Element::Any),
            _ => match selector.as_bytes() {
                [b'h', level @ b'1'..=b'6'] => Some(Element::Heading(level - b'0')),
                _ => None,
            },
        }
    }
}

/// What a style rule sets of an [`Element`]'s font (`None`: not set by this rule). The `font`
/// shorthand sets all three (what it leaves out, to their initial values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FontRule {
    pub element: Element,
    /// Lower-case, quotes removed, in order.
    pub families: Option<Vec<String>>,
    pub weight: Option<u16>,
    pub italic: Option<bool>,
}

/// An `@font-face` for Latin text: its family (lower-case), the weights it covers, its style,
/// and where the URL of the source a browser fetches for it is (`None` when that is not known:
/// a `local()` source first, the reader's own copy of the font, may serve; a `tech()` source
/// may or may not be used).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Face {
    pub family: String,
    pub weights: (u16, u16),
    pub italic: bool,
    pub url: Option<usize>,
}

/// A `background` or `background-image` of the root or the body: where its one image's URL
/// is, or `None` when the declaration sets none (it still overrides an earlier one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Background {
    pub element: Element,
    pub url: Option<usize>,
}

/// One stylesheet's reading, each list in the stylesheet's order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Sheet {
    /// Where the URL of each `@import` that applies (before any rule, as CSS requires) starts.
    pub imports: Vec<usize>,
    pub faces: Vec<Face>,
    pub fonts: Vec<FontRule>,
    pub backgrounds: Vec<Background>,
    /// The rules that may set an `<img>`'s box, wherever they are.
    pub boxes: Vec<BoxRule>,
    /// Elements whose font a rule may set otherwise than the top-level rules say: a rule in a
    /// conditional block (`@media`, `@supports`, a layer...) or with a compound selector
    /// (`body.dark`, `.hero h1`). No font hint follows for them.
    pub font_overridden: Vec<Element>,
    /// The same for backgrounds.
    pub background_overridden: Vec<Element>,
}

/// Reads `text`, a stylesheet.
pub(super) fn read(text: &str) -> Sheet {
    let mut input = ParserInput::new(text);
    let mut parser = Parser::new(&mut input);
    let mut sheet = Sheet::default();
    // The statement being read: where it starts, and its at-keyword if it is an at-rule.
    let mut statement: Option<(usize, Option<String>)> = None;
    // CSS Cascading 4 §2.1: an `@import` after any rule but `@charset` and `@layer` statements
    // is invalid, and ignored.
    let mut imports_allowed = true;
    loop {
        let before = parser.position().byte_index();
        let Ok(token) = parser.next().cloned() else {
            break;
        };
        let (start, keyword) = statement.get_or_insert_with(|| match &token {
            Token::AtKeyword(name) => (before, Some(name.to_ascii_lowercase())),
            _ => (before, None),
        });
        let (start, keyword) = (*start, keyword.clone());
        // Where this token starts, if it is a `;` or a `{`: one byte before the position after
        // it (the position before it may be inside a function or block the tokenizer skipped
        // only as it read this token).
        let at = parser.position().byte_index().saturating_sub(1).max(start);
        match token {
            // At the top level a `;` ends an at-rule; a qualified rule's prelude runs on to its
            // block (CSS Syntax §5.4.3).
            Token::Semicolon if keyword.is_some() => {
                match keyword.as_deref() {
                    Some("import") if imports_allowed => {
                        sheet
                            .imports
                            .extend(import(&text[start..at]).map(|u| start + u));
                    }
                    Some("charset" | "layer" | "import") => {}
                    _ => imports_allowed = false,
                }
                statement = None;
            }
            Token::CurlyBracketBlock => {
                let _ = parser.parse_nested_block(
                    |block| -> Result<(), cssparser::ParseError<'_, ()>> {
                        match keyword.as_deref() {
                            None => top_level_rule(block, &text[start..at], &mut sheet),
                            Some("font-face") => sheet.faces.extend(face(&declarations(block))),
                            Some(_) => nested_rules(block, text, &mut sheet, 1),
                        }
                        Ok(())
                    },
                );
                imports_allowed = false;
                statement = None;
            }
            _ => {}
        }
    }
    sheet
}

/// The rules inside a conditional or layer block (`@media`, `@supports`, `@layer`,
/// `@container`...): each may or may not apply, so what they set of the elements
/// [`FontRule`]s and [`Background`]s describe is an override ([`overrides`]).
fn nested_rules(block: &mut Parser<'_, '_>, text: &str, sheet: &mut Sheet, depth: usize) {
    let mut statement: Option<(usize, bool)> = None;
    loop {
        let before = block.position().byte_index();
        let Ok(token) = block.next().cloned() else {
            return;
        };
        let (start, at_rule) =
            *statement.get_or_insert((before, matches!(token, Token::AtKeyword(_))));
        let at = block.position().byte_index().saturating_sub(1).max(start);
        match token {
            Token::Semicolon if at_rule => statement = None,
            Token::CurlyBracketBlock => {
                let _ = block.parse_nested_block(
                    |inner| -> Result<(), cssparser::ParseError<'_, ()>> {
                        if !at_rule {
                            let (declarations, nested) = rule_block(inner);
                            if nested {
                                sheet.boxes.push(BoxRule::unknown());
                            }
                            boxes(&text[start..at], &declarations, sheet, false);
                            overrides(&text[start..at], &declarations, sheet, true);
                        } else if depth < MAX_NESTING {
                            nested_rules(inner, text, sheet, depth + 1);
                        } else {
                            let every = [Element::Root, Element::Body, Element::Any];
                            let every = every.into_iter().chain((1..=6).map(Element::Heading));
                            sheet.font_overridden.extend(every.clone());
                            sheet.background_overridden.extend(every);
                        }
                        Ok(())
                    },
                );
                statement = None;
            }
            _ => {}
        }
    }
}

/// Conditional blocks nested deeper than this are not read (what they set is not known: the
/// hints of every element are dropped).
const MAX_NESTING: usize = 16;

/// What a rule that may override the top-level ones sets: for each element its selectors name
/// (alone, in a conditional block; or in a compound anywhere), whether it sets a font or a
/// background.
fn overrides(
    prelude: &str,
    declarations: &[Declaration<'_>],
    sheet: &mut Sheet,
    conditional: bool,
) {
    let font = declarations.iter().any(|d| {
        matches!(
            d.name.as_str(),
            "font" | "font-family" | "font-weight" | "font-style"
        )
    });
    let background = declarations
        .iter()
        .any(|d| matches!(d.name.as_str(), "background" | "background-image"));
    if !font && !background {
        return;
    }
    for selector in prelude.split(',') {
        let selector = selector.trim().to_ascii_lowercase();
        if !conditional && Element::of(&selector).is_some() {
            continue;
        }
        for element in mentioned(&selector) {
            if font && !sheet.font_overridden.contains(&element) {
                sheet.font_overridden.push(element);
            }
            if background && !sheet.background_overridden.contains(&element) {
                sheet.background_overridden.push(element);
            }
        }
    }
}

/// The elements a selector names as type selectors (`html`, `:root`, `body`, `h1`-`h6`) or
/// matches with `*`, anywhere in it.
fn mentioned(selector: &str) -> Vec<Element> {
    let mut out = Vec::new();
    if selector.contains(":root") {
        out.push(Element::Root);
    }
    if selector.contains('*') {
        out.extend([Element::Root, Element::Body]);
        out.extend((1..=6).map(Element::Heading));
    }
    // A type selector starts the selector or follows a combinator or an opening parenthesis.
    let mut rest = selector;
    while let Some(i) = rest.find(|c: char| c.is_ascii_alphanumeric()) {
        let starts = i == 0 || rest[..i].ends_with([' ', '>', '+', '~', '(', '\t', '\n']);
        let word_end = rest[i..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .map_or(rest.len(), |e| i + e);
        if starts {
            if let Some(element) = Element::of(&rest[i..word_end]).filter(|e| *e != Element::Any) {
                out.push(element);
            }
        }
        rest = &rest[word_end..];
    }
    out
}

/// A declaration: its name (lower-case), its value (`!important` removed, trimmed), and where
/// the value starts in the stylesheet.
struct Declaration<'i> {
    name: String,
    value: &'i str,
    at: usize,
}

/// The declarations of a block (nested blocks in a value are part of it; anything else that is
/// not `name: value` is skipped to the next `;`, as CSS Syntax §5.4.6 does).
fn declarations<'i>(block: &mut Parser<'i, '_>) -> Vec<Declaration<'i>> {
    let mut out = Vec::new();
    loop {
        let Ok(token) = block.next().cloned() else {
            return out;
        };
        let Token::Ident(name) = token else {
            skip_to_semicolon(block);
            continue;
        };
        if !matches!(block.next(), Ok(Token::Colon)) {
            skip_to_semicolon(block);
            continue;
        }
        let start = block.position();
        // To the `;` or the block's end; a function or block in the value is skipped whole as
        // the token after it is read, so the value is sliced once that token is.
        let ended_by_semicolon = loop {
            match block.next_including_whitespace_and_comments() {
                Ok(Token::Semicolon) => break true,
                Err(_) => break false,
                Ok(_) => {}
            }
        };
        let raw = block.slice_from(start);
        let raw = match ended_by_semicolon {
            true => raw.strip_suffix(';').unwrap_or(raw),
            false => raw,
        };
        let value = raw.trim_start();
        let at = start.byte_index() + (raw.len() - value.len());
        let value = strip_important(value.trim_end());
        out.push(Declaration {
            name: name.to_ascii_lowercase(),
            value,
            at,
        });
    }
}

fn skip_to_semicolon(block: &mut Parser<'_, '_>) {
    while let Ok(token) = block.next() {
        if matches!(token, Token::Semicolon) {
            return;
        }
    }
}

fn strip_important(value: &str) -> &str {
    match value.rfind('!') {
        Some(i) if value[i + 1..].trim().eq_ignore_ascii_case("important") => value[..i].trim_end(),
        _ => value,
    }
}

/// A style rule: what it sets of the fonts and backgrounds of the elements its selectors name
/// alone (`body`, `h1, h2`; a compound such as `body.dark` may not match, and is left).
fn style_rule(prelude: &str, declarations: &[Declaration<'_>], sheet: &mut Sheet) {
    let selectors: Vec<String> = prelude
        .split(',')
        .map(|s| s.trim().to_ascii_lowercase())
        .collect();
    overrides(prelude, declarations, sheet, false);
    boxes(prelude, declarations, sheet, true);
    let elements: Vec<Element> = selectors.iter().filter_map(|s| Element::of(s)).collect();
    if elements.is_empty() {
        return;
    }
    let mut font = FontRule {
        element: Element::Any,
        families: None,
        weight: None,
        italic: None,
    };
    let mut background = None;
    for d in declarations {
        match d.name.as_str() {
            "font" => {
                if let Some((families, weight, italic)) = font_shorthand(d.value) {
                    font.families = Some(families);
                    font.weight = Some(weight);
                    font.italic = Some(italic);
                }
            }
            "font-family" => font.families = Some(families(d.value)),
            "font-weight" => font.weight = weight(d.value).or(font.weight),
            "font-style" => font.italic = Some(is_italic(d.value)),
            "background" | "background-image" => {
                background = Some(one_image(d.value).map(|start| d.at + start));
            }
            _ => {}
        }
    }
    for element in elements {
        if font.families.is_some() || font.weight.is_some() || font.italic.is_some() {
            sheet.fonts.push(FontRule {
                element,
                ..font.clone()
            });
        }
        if let (Some(url), Element::Root | Element::Body) = (background, element) {
            sheet.backgrounds.push(Background { element, url });
        }
    }
}

/// A style rule at the top level: its [`style_rule`], and a [`BoxRule::unknown`] if its block
/// holds a nested rule.
fn top_level_rule(block: &mut Parser<'_, '_>, prelude: &str, sheet: &mut Sheet) {
    let (declarations, nested) = rule_block(block);
    if nested {
        sheet.boxes.push(BoxRule::unknown());
    }
    style_rule(prelude, &declarations, sheet);
}

/// A style rule's declarations, and whether its block holds a nested rule (CSS Nesting: what
/// that sets and of which element is not read here, and a nested rule hides the declarations
/// after it from [`declarations`]).
fn rule_block<'i>(block: &mut Parser<'i, '_>) -> (Vec<Declaration<'i>>, bool) {
    let start = block.position();
    let declarations = declarations(block);
    let nested = block.slice_from(start).contains('{');
    (declarations, nested)
}

/// A rule that may set an `<img>`'s box, kept ([`super::boxes`]).
fn boxes(prelude: &str, declarations: &[Declaration<'_>], sheet: &mut Sheet, top_level: bool) {
    let pairs = declarations.iter().map(|d| (d.name.as_str(), d.value));
    sheet.boxes.extend(BoxRule::of(prelude, pairs, top_level));
}

/// The declarations of a `style` attribute, as `(name, value)` (names lower-case, values
/// without `!important`).
pub(super) fn style_attribute(text: &str) -> Vec<(String, String)> {
    let mut input = ParserInput::new(text);
    let mut parser = Parser::new(&mut input);
    declarations(&mut parser)
        .into_iter()
        .map(|d| (d.name, d.value.to_string()))
        .collect()
}

/// Where the URL of an `@import` statement starts, if it applies on every screen: one with a
/// media query or a `supports()` condition may not apply, and is left to the browser (a
/// cascade layer is kept: it applies).
fn import(statement: &str) -> Option<usize> {
    let url = css::urls(statement).into_iter().next()?;
    let after = statement[url.span.end..]
        .trim_start()
        .trim_start_matches(['"', '\'', ')'])
        .trim();
    // A cascade layer (`layer` or `layer(name)`) applies; anything after it is a condition.
    let lower = after.to_ascii_lowercase();
    let rest = match lower.strip_prefix("layer") {
        Some(named) if named.starts_with('(') => named.find(')').map_or("", |i| &named[i + 1..]),
        Some(bare) if bare.is_empty() || bare.starts_with(char::is_whitespace) => bare,
        _ => lower.as_str(),
    };
    rest.trim().is_empty().then_some(url.span.start)
}

/// Where the URL of a background's one image starts in `value`: `None` for no image, several
/// (layers) or an `image-set()` (its choice depends on the screen).
fn one_image(value: &str) -> Option<usize> {
    if value.to_ascii_lowercase().contains("image-set(") {
        return None;
    }
    match css::urls(value).as_slice() {
        [one] => Some(one.span.start),
        _ => None,
    }
}

/// A `font-family` list: lower-case, quotes removed, white space collapsed.
fn families(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(|f| {
            let f = f.trim().trim_matches(|c| c == '"' || c == '\'');
            f.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_ascii_lowercase()
        })
        .filter(|f| !f.is_empty())
        .collect()
}

/// `font-weight`: a number from 1 to 1000, `normal` or `bold` (`bolder` and `lighter` depend
/// on the parent's: not followed).
fn weight(value: &str) -> Option<u16> {
    match value.trim().to_ascii_lowercase().as_str() {
        "normal" => Some(400),
        "bold" => Some(700),
        number => number
            .parse::<f32>()
            .ok()
            .filter(|w| (1.0..=1000.0).contains(w))
            .map(|w| w as u16),
    }
}

fn is_italic(value: &str) -> bool {
    let value = value.trim().to_ascii_lowercase();
    value.starts_with("italic") || value.starts_with("oblique")
}

/// The `font` shorthand (CSS Fonts 4 §2.8): `[style || variant || weight || stretch]? size
/// [/ line-height]? family-list`; its families, weight and style (what it omits is reset:
/// 400, normal). `None` for a system font keyword or anything without a size.
fn font_shorthand(value: &str) -> Option<(Vec<String>, u16, bool)> {
    let (mut weight_set, mut italic) = (400, false);
    let mut rest = value.trim_start();
    loop {
        let word_end = rest
            .find(|c: char| c.is_whitespace() || c == '/')
            .unwrap_or(rest.len());
        let word = rest[..word_end].to_ascii_lowercase();
        if word.is_empty() {
            return None;
        }
        if is_size(&word) {
            rest = rest[word_end..].trim_start();
            if let Some(after) = rest.strip_prefix('/') {
                let after = after.trim_start();
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                rest = after[end..].trim_start();
            }
            let families = families(rest);
            return (!families.is_empty()).then_some((families, weight_set, italic));
        }
        match word.as_str() {
            "italic" | "oblique" => italic = true,
            w => {
                if let Some(w) = weight(w).filter(|_| w != "normal") {
                    weight_set = w;
                }
            }
        }
        rest = rest[word_end..].trim_start();
    }
}

/// A `font-size` value: a keyword or a number with a unit or `%`.
fn is_size(word: &str) -> bool {
    const KEYWORDS: [&str; 10] = [
        "xx-small",
        "x-small",
        "small",
        "medium",
        "large",
        "x-large",
        "xx-large",
        "xxx-large",
        "larger",
        "smaller",
    ];
    if KEYWORDS.contains(&word) || word.starts_with("calc(") || word.starts_with("clamp(") {
        return true;
    }
    let digits = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    digits.len() < word.len() && !digits.is_empty()
}

/// An `@font-face` with a family, unless its `unicode-range` leaves out Latin capitals.
fn face(declarations: &[Declaration<'_>]) -> Option<Face> {
    let mut family = None;
    let mut url = None;
    let mut weights = (400, 400);
    let mut italic = false;
    for d in declarations {
        match d.name.as_str() {
            "font-family" => family = families(d.value).into_iter().next(),
            "src" => url = source(d.value).map(|start| d.at + start),
            "font-weight" => {
                let mut each = d.value.split_whitespace().filter_map(weight);
                if let Some(low) = each.next() {
                    weights = (low, each.next().unwrap_or(low).max(low));
                }
            }
            "font-style" => italic = is_italic(d.value),
            // A face for other scripts (a subset such as Google Fonts' `latin-ext`) is fetched
            // only for text with those characters: not one for Latin text.
            "unicode-range" if !covers(d.value, 'A') => return None,
            _ => {}
        }
    }
    Some(Face {
        family: family?,
        weights,
        italic,
        url,
    })
}

/// Where the URL of the source a browser fetches starts in a `src` value: the first `url()`
/// in a format it reads (WOFF2, WOFF, TrueType, OpenType, a collection, or none given), past
/// those in formats Chromium does not read (Embedded OpenType, SVG). `None` when that is not
/// known: a `local()` source before it (the reader's own copy of the font may serve), a
/// `tech()` or an unknown format (it may or may not be used).
fn source(value: &str) -> Option<usize> {
    const READ: [&str; 9] = [
        "woff2",
        "woff",
        "truetype",
        "opentype",
        "collection",
        "woff2-variations",
        "woff-variations",
        "truetype-variations",
        "opentype-variations",
    ];
    const NOT_READ: [&str; 2] = ["embedded-opentype", "svg"];
    let mut at = 0;
    for part in css::split_top_level(value) {
        let start = at + (part.len() - part.trim_start().len());
        at += part.len() + 1;
        let lower = part.trim().to_ascii_lowercase();
        if lower.starts_with("local(") || lower.contains("tech(") {
            return None;
        }
        if let Some(format) = lower.split("format(").nth(1) {
            let format = format
                .trim_start()
                .trim_start_matches(['"', '\''])
                .split(['"', '\'', ')'])
                .next()
                .unwrap_or("")
                .trim();
            if NOT_READ.contains(&format) {
                continue;
            }
            if !READ.contains(&format) {
                return None;
            }
        }
        let trimmed = part.trim_start();
        if let Some(u) = css::urls(trimmed).first() {
            return Some(start + u.span.start);
        }
    }
    None
}

/// Whether a `unicode-range` list covers `c` (ranges `U+0-7F`, single points, `U+4??`).
fn covers(value: &str, c: char) -> bool {
    let c = u32::from(c);
    value.split(',').any(|range| {
        let range = range.trim();
        let Some(hex) = range
            .strip_prefix("U+")
            .or_else(|| range.strip_prefix("u+"))
        else {
            return false;
        };
        let parse = |h: &str| u32::from_str_radix(h, 16).ok();
        let (low, high) = match hex.split_once('-') {
            Some((low, high)) => (parse(low), parse(high)),
            None if hex.contains('?') => {
                (parse(&hex.replace('?', "0")), parse(&hex.replace('?', "F")))
            }
            None => (parse(hex), parse(hex)),
        };
        matches!((low, high), (Some(low), Some(high)) if low <= c && c <= high)
    })
}

/// Of faces (one family, one style) covering the `weights` given, the one a browser picks for
/// `weight`, by index: the one that covers it, else by CSS Fonts 4 §5.2's order: for 400 to
/// 500, heavier up to 500, then lighter, then heavier; below 400, lighter then heavier; above
/// 500, heavier then lighter.
pub(super) fn nearest(weights: &[(u16, u16)], weight: u16) -> Option<usize> {
    // Of faces that match alike, the one defined last wins (CSS Fonts 4 §4.5): searched from
    // the end, and the first of equals kept.
    let indexed = || weights.iter().copied().enumerate().rev();
    if let Some((i, _)) = indexed().find(|(_, (low, high))| *low <= weight && weight <= *high) {
        return Some(i);
    }
    let heavier = |limit: u16| {
        indexed()
            .filter(|(_, (low, _))| *low > weight && *low <= limit)
            .min_by_key(|(_, (low, _))| *low)
            .map(|(i, _)| i)
    };
    let lighter = || {
        indexed()
            .filter(|(_, (_, high))| *high < weight)
            .fold(
                None,
                |best: Option<(usize, u16)>, (i, (_, high))| match best {
                    Some((_, b)) if b >= high => best,
                    _ => Some((i, high)),
                },
            )
            .map(|(i, _)| i)
    };
    match weight {
        400..=500 => heavier(500).or_else(lighter).or_else(|| heavier(u16::MAX)),
        0..=399 => lighter().or_else(|| heavier(u16::MAX)),
        _ => heavier(u16::MAX).or_else(lighter),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The URL text at `start` in `css`, as far as its closing quote or parenthesis.
    fn at(css: &str, start: usize) -> &str {
        let rest = &css[start..];
        &rest[..rest.find(['"', '\'', ')']).unwrap_or(rest.len())]
    }

    #[test]
    fn imports_count_before_any_rule_and_on_every_screen_only() {
        // CSS Cascading 4 §2.1: after a rule an @import is ignored; one with a media query or
        // a supports() condition may not apply.
        let css = r#"@charset "utf-8";
@import "base.css";
@import url(layered.css) layer(base);
@import url("print.css") print;
@import "wide.css" (min-width: 80em);
@import "grid.css" supports(display: grid);
@import "layered-print.css" layer(base) print;
@import "bare-layer.css" layer;
@import "layerish.css" layers;
@layer base, theme;
@IMPORT url( upper.css );
@import url("quoted.css");
body { color: black }
@import "late.css";"#;
        let sheet = read(css);
        let found: Vec<&str> = sheet.imports.iter().map(|&s| at(css, s)).collect();
        assert_eq!(
            found,
            [
                "base.css",
                "layered.css",
                "bare-layer.css",
                "upper.css ",
                "quoted.css"
            ]
        );
    }

    #[test]
    fn a_font_face_names_the_first_source_a_browser_uses() {
        let css = r#"
@font-face { font-family: "Lato"; src: url(lato.eot?#iefix) format("embedded-opentype"), url(lato.woff2) format("woff2"), url(lato.woff) format("woff"); font-weight: bold; }
@font-face { font-family: Lato; font-style: italic; src: url('lato-i.woff2') format('woff2') tech(variations), url(lato-i.ttf) format(truetype); }
@font-face { font-family: Mono; src: url(mono.woff2); font-weight: 100 900 }
@font-face { font-family: Local; src: local("Local Sans"), url(local.woff2) }
@font-face { font-family: Greek; src: url(greek.woff2); unicode-range: U+0370-03FF, U+1F00-1FFF }
@font-face { font-family: Latin; src: url(latin.woff2); unicode-range: U+0000-00FF, U+0131 }
@font-face { font-family: Wild; src: url(wild.woff2); unicode-range: U+00?? }
@font-face { src: url(nameless.woff2) }
@font-face { font-family: Odd; src: url(odd.font) format("x-odd"), url(odd.woff2) format(woff2) }
@media print { @font-face { font-family: Print; src: url(print.woff2) } }"#;
        // A face whose source is not known (a `local()` first, a `tech()`, an unknown format)
        // still takes part in matching: its weight and style may be the ones a browser picks.
        type Row<'c> = (String, (u16, u16), bool, Option<&'c str>);
        let faces: Vec<Row<'_>> = read(css)
            .faces
            .into_iter()
            .map(|f| (f.family, f.weights, f.italic, f.url.map(|u| at(css, u))))
            .collect();
        assert_eq!(
            faces,
            [
                ("lato".into(), (700, 700), false, Some("lato.woff2")),
                ("lato".into(), (400, 400), true, None),
                ("mono".into(), (100, 900), false, Some("mono.woff2")),
                ("local".into(), (400, 400), false, None),
                ("latin".into(), (400, 400), false, Some("latin.woff2")),
                ("wild".into(), (400, 400), false, Some("wild.woff2")),
                ("odd".into(), (400, 400), false, None),
            ]
        );
    }

    #[test]
    fn fonts_and_backgrounds_of_the_elements_every_page_paints() {
        let css = r#"
html { font: italic 600 16px/1.5 "Open Sans", sans-serif; background: #fff url(../img/bg.png) repeat }
body, .x { font-family: Lato , 'Helvetica Neue', Arial !important; font-weight: bold }
h1, h2 { font-family: "Roboto Slab"; font-style: normal }
:is(h3, h4) { font-family: Is }
body.dark { font-family: Dark }
.sidebar { background: url(side.png) }
:root { background-image: image-set("a.png" 1x, "a@2x.png" 2x) }
body { background: none; font: menu }
* { font-weight: 300 }
@media (min-width: 40em) { body { font-family: Wide } }"#;
        let sheet = read(css);
        let rule = |element, families: Option<&[&str]>, weight, italic| FontRule {
            element,
            families: families.map(|f| f.iter().map(|s| s.to_string()).collect()),
            weight,
            italic,
        };
        assert_eq!(
            sheet.fonts,
            [
                rule(
                    Element::Root,
                    Some(&["open sans", "sans-serif"]),
                    Some(600),
                    Some(true)
                ),
                rule(
                    Element::Body,
                    Some(&["lato", "helvetica neue", "arial"]),
                    Some(700),
                    None
                ),
                rule(
                    Element::Heading(1),
                    Some(&["roboto slab"]),
                    None,
                    Some(false)
                ),
                rule(
                    Element::Heading(2),
                    Some(&["roboto slab"]),
                    None,
                    Some(false)
                ),
                rule(Element::Any, None, Some(300), None),
            ]
        );
        let backgrounds: Vec<(Element, Option<&str>)> = sheet
            .backgrounds
            .iter()
            .map(|b| (b.element, b.url.map(|u| at(css, u))))
            .collect();
        assert_eq!(
            backgrounds,
            [
                (Element::Root, Some("../img/bg.png")),
                (Element::Root, None),
                (Element::Body, None),
            ]
        );
    }

    #[test]
    fn rules_that_may_apply_instead_of_the_top_level_ones_are_overrides() {
        let css = r#"
body { font-family: Lato; background: url(small.jpg) }
@media (min-width: 800px) { body { background: url(large.jpg) } @supports (x: y) { h2 { font: 12px Y } } }
body.dark, .hero > h1 { font-family: Dark }
.x html { color: red }
main * { font-weight: 700 }
@layer base { :root { font-family: Base } }"#;
        let sheet = read(css);
        assert_eq!(
            sheet.background_overridden,
            [Element::Body],
            "the media query's body"
        );
        let mut fonts = sheet.font_overridden.clone();
        fonts.sort_by_key(|e| format!("{e:?}"));
        fonts.dedup();
        let expected = [
            Element::Body,
            Element::Heading(1),
            Element::Heading(2),
            Element::Heading(3),
            Element::Heading(4),
            Element::Heading(5),
            Element::Heading(6),
            Element::Root,
        ];
        let mut expected = expected.to_vec();
        expected.sort_by_key(|e| format!("{e:?}"));
        assert_eq!(fonts, expected);
        // The top-level rules are read as before.
        assert_eq!(sheet.fonts[0].element, Element::Body);
        assert_eq!(sheet.backgrounds.len(), 1);
    }

    #[test]
    fn the_font_shorthand_needs_a_size_and_resets_what_it_omits() {
        assert_eq!(
            font_shorthand("bold 12px Lato"),
            Some((vec!["lato".to_string()], 700, false))
        );
        assert_eq!(
            font_shorthand("oblique 1.2em / 2 'A B', serif"),
            Some((vec!["a b".to_string(), "serif".to_string()], 400, true))
        );
        assert_eq!(font_shorthand("menu"), None);
        assert_eq!(font_shorthand("700 Lato"), None);
    }

    #[test]
    fn the_nearest_weight_follows_css_fonts_order() {
        // CSS Fonts 4 §5.2, font-weight.
        let faces = [(300, 300), (500, 500), (700, 700)];
        assert_eq!(nearest(&faces, 500), Some(1));
        assert_eq!(nearest(&faces, 400), Some(1)); // heavier up to 500 first
        assert_eq!(nearest(&[(300, 300), (600, 600)], 400), Some(0)); // then lighter
        assert_eq!(nearest(&faces, 200), Some(0)); // lighter, else heavier
        assert_eq!(nearest(&faces, 600), Some(2)); // heavier first
        assert_eq!(nearest(&faces, 800), Some(2)); // then lighter
        assert_eq!(nearest(&[(100, 900)], 450), Some(0));
        assert_eq!(nearest(&[], 400), None);
        // Faces that match alike: the one defined last (CSS Fonts 4 §4.5).
        assert_eq!(nearest(&[(400, 400), (400, 400)], 400), Some(1));
        assert_eq!(nearest(&[(300, 300), (300, 300)], 400), Some(1));
        assert_eq!(nearest(&[(700, 700), (700, 700)], 400), Some(1));
    }

    #[test]
    fn broken_css_yields_what_it_can_without_panicking() {
        for css in [
            "@import",
            "@import url(",
            "@font-face { src: url(",
            "body { font: ; background: url( }",
            "@font-face { font-family: ; src: , , }",
            "body { font-family",
            "} } ; @import 'x.css';",
        ] {
            let _ = read(css);
        }
        let css = "a; @import 'x.css'; b { } body { background: url(y.png) }";
        let sheet = read(css);
        assert!(sheet.imports.is_empty());
        assert_eq!(sheet.backgrounds.len(), 1);
    }
}
