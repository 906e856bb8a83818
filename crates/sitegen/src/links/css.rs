//! References in CSS (a stylesheet, a `<style>` element, a `style` attribute), found with a
//! CSS tokenizer (cssparser, CSS Syntax Level 3): `url(...)` unquoted and quoted, `src(...)`,
//! the strings of `image-set(...)`, and `@import "..."`, at any depth of blocks.

use cssparser::{Parser, ParserInput, Token};
use std::ops::Range;

/// A URL in CSS text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CssUrl {
    /// Where the URL's text is, in bytes of the scanned text.
    pub span: Range<usize>,
    /// The URL, escapes resolved.
    pub url: String,
    /// Whether the text at `span` is `url` itself (no escapes): only then is it rewritten.
    pub verbatim: bool,
}

/// Every URL in `text`, in order.
pub(crate) fn urls(text: &str) -> Vec<CssUrl> {
    let mut input = ParserInput::new(text);
    let mut parser = Parser::new(&mut input);
    let mut out = Vec::new();
    scan(&mut parser, false, &mut out, 0);
    out
}

/// Blocks nested deeper than this are skipped, not scanned: the scanner recurses once per
/// level, and a stylesheet of a hundred thousand `(` must not exhaust the build's stack (no
/// real stylesheet nests a URL so deep; one there is left as written).
const MAX_DEPTH: usize = 64;

/// Scans one block; `strings_are_urls` inside `url()`, `src()` and `image-set()`.
fn scan(parser: &mut Parser<'_, '_>, strings_are_urls: bool, out: &mut Vec<CssUrl>, depth: usize) {
    let mut after_import = false;
    loop {
        let start = parser.position();
        let Ok(token) = parser.next_including_whitespace_and_comments().cloned() else {
            return;
        };
        let at = start.byte_index();
        let raw = parser.slice_from(start);
        let import = matches!(&token, Token::AtKeyword(k) if k.eq_ignore_ascii_case("import"));
        match token {
            Token::WhiteSpace(_) | Token::Comment(_) => continue,
            Token::UnquotedUrl(url) => out.push(unquoted(at, raw, &url)),
            Token::QuotedString(url) if strings_are_urls || after_import => {
                out.push(quoted(at, raw, &url));
            }
            Token::Function(name) => {
                let urls = ["url", "src", "image-set", "-webkit-image-set"]
                    .iter()
                    .any(|f| name.eq_ignore_ascii_case(f));
                nested(parser, urls, out, depth + 1);
            }
            Token::ParenthesisBlock | Token::SquareBracketBlock | Token::CurlyBracketBlock => {
                nested(parser, false, out, depth + 1);
            }
            _ => {}
        }
        after_import = import;
    }
}

fn nested(
    parser: &mut Parser<'_, '_>,
    strings_are_urls: bool,
    out: &mut Vec<CssUrl>,
    depth: usize,
) {
    // Past the bound the block is not entered: the parser skips it as the next token is read
    // (cssparser skips a block by counting, without recursion).
    if depth > MAX_DEPTH {
        return;
    }
    let _ = parser.parse_nested_block(|p| -> Result<(), cssparser::ParseError<'_, ()>> {
        scan(p, strings_are_urls, out, depth);
        Ok(())
    });
}

/// `url( a.png )`: the value between the parentheses, whitespace trimmed.
fn unquoted(at: usize, raw: &str, url: &str) -> CssUrl {
    let open = raw.find('(').map_or(0, |i| i + 1);
    let inner = raw[open..].strip_suffix(')').unwrap_or(&raw[open..]);
    let trimmed = inner.trim_start_matches(is_css_space);
    let start = open + inner.len() - trimmed.len();
    let trimmed = trimmed.trim_end_matches(is_css_space);
    CssUrl {
        span: at + start..at + start + trimmed.len(),
        url: url.to_string(),
        verbatim: trimmed == url,
    }
}

/// `"a.png"`: the text between the quotes (an unterminated string ends at the end of input).
fn quoted(at: usize, raw: &str, url: &str) -> CssUrl {
    let quote = raw.chars().next().unwrap_or('"');
    let inner = &raw[1.min(raw.len())..];
    let inner = inner.strip_suffix(quote).unwrap_or(inner);
    CssUrl {
        span: at + 1..at + 1 + inner.len(),
        url: url.to_string(),
        verbatim: inner == url,
    }
}

/// Where in `text` the characters `wanted` accepts stand outside strings, parentheses and
/// brackets (a selector's or a value's own level).
pub(super) fn top_level(text: &str, wanted: impl Fn(char) -> bool) -> Vec<usize> {
    let (mut out, mut depth, mut quote) = (Vec::new(), 0usize, None);
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth = depth.saturating_sub(1),
            (None, _) if depth == 0 && wanted(c) => out.push(i),
            _ => {}
        }
    }
    out
}

/// `text` split at its top-level commas ([`top_level`]).
pub(super) fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut from = 0;
    for comma in top_level(text, |c| c == ',') {
        parts.push(&text[from..comma]);
        from = comma + 1;
    }
    parts.push(&text[from..]);
    parts
}

fn is_css_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hundred thousand nested blocks neither exhaust the stack (the scan stops descending
    /// at MAX_DEPTH) nor hide the URLs before and after them.
    #[test]
    fn deep_nesting_is_skipped_not_recursed_into() {
        let deep = format!(
            "a{{background:url(x.png)}}{}{}b{{background:url(y.png)}}",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        let found: Vec<String> = urls(&deep).into_iter().map(|u| u.url).collect();
        assert_eq!(found, ["x.png", "y.png"]);
    }

    fn found(text: &str) -> Vec<(&str, String, bool)> {
        urls(text)
            .into_iter()
            .map(|u| (&text[u.span], u.url, u.verbatim))
            .collect()
    }

    #[test]
    fn urls_quoted_unquoted_imports_and_image_sets_are_found() {
        let css = r#"@import "base.css" screen;
@IMPORT url(print.css) print;
/* url(commented.png) */
.a { background: url( a.png ) no-repeat, URL("b.png"); }
@media (min-width: 10em) { .b { background-image: url('c d.png'); } }
.c { background: image-set("e.png" 1x, url(f.png) 2x); content: "not-a-url.png"; }
@font-face { font-family: X; src: url(x.woff2?#iefix) format("woff2"); }
.d { background: url(g\.png); }"#;
        assert_eq!(
            found(css),
            [
                ("base.css", "base.css".into(), true),
                ("print.css", "print.css".into(), true),
                ("a.png", "a.png".into(), true),
                ("b.png", "b.png".into(), true),
                ("c d.png", "c d.png".into(), true),
                ("e.png", "e.png".into(), true),
                ("f.png", "f.png".into(), true),
                ("x.woff2?#iefix", "x.woff2?#iefix".into(), true),
                (r"g\.png", "g.png".into(), false),
            ]
        );
    }

    #[test]
    fn broken_css_still_yields_what_it_can() {
        assert_eq!(
            found("a { background: url(a.png) ; } } ] ) b { x: url(\"b.png"),
            [
                ("a.png", "a.png".into(), true),
                ("b.png", "b.png".into(), true)
            ]
        );
    }
}
