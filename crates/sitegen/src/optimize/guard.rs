//! What keeps a hostile file from turning the minifiers against the build. lightningcss and
//! oxc parse, transform and print by recursion without a depth limit, and one of oxc's
//! compressor passes is quadratic in nesting (measured in a test build: 10,000 nested `?:`
//! took 45 s and 2.3 GB). A stack overflow aborts the process (no panic to catch), so input
//! that could nest deeply is refused before a minifier sees it, and what a minifier does runs
//! on a thread of its own with a large stack, where a panic is caught:
//!
//! * CSS: at most [`MAX_CSS_OPENERS`] `{`, `(` and `[` in the file, wherever they are (a
//!   bound on the depth whatever strings, comments and unquoted `url(` hide), and honest
//!   nesting (read past strings and comments) at most [`MAX_CSS_DEPTH`];
//! * JavaScript: at most [`MAX_JS_NESTING`] tokens that can open a level (every bracket,
//!   prefix, binary, member and conditional operator, `:`, `,`, a backtick (tagged templates
//!   chain), and the keywords that nest without a bracket), counted anywhere in the file: a
//!   bound on the depth whatever the strings,
//!   comments and regular expressions around them (which JavaScript cannot tell apart without
//!   parsing). With a [`STACK_BYTES`] stack, 100,000 levels of each shape (brackets, `!`,
//!   `new`, labels, member chains, `function` bodies: 50,000) parse, print and shorten in a
//!   test build; the compressor runs only on a tree at most [`MAX_COMPRESSED_DEPTH`] deep.

use std::any::Any;

/// The stack a minifier runs on: reserved, and only as much of it used as the input nests.
pub(crate) const STACK_BYTES: usize = 512 << 20;

/// The deepest nesting of `{`, `(` and `[` a stylesheet may have (real ones: under 10).
pub(crate) const MAX_CSS_DEPTH: usize = 64;

/// The most `{`, `(` and `[` a stylesheet may have (Bootstrap 5's 280 KB: about 9,000). The
/// most stack-hungry shape, nested `:is(`, needed 256 MiB at 30,000 levels in a test build.
pub(crate) const MAX_CSS_OPENERS: usize = 20_000;

/// The most tokens that can open a level a script may have (jQuery 3.6, 290 KB unminified:
/// 24,000).
pub(crate) const MAX_JS_NESTING: usize = 100_000;

/// The deepest syntax tree oxc's compressor is given; a deeper one is shortened and printed
/// without it.
pub(crate) const MAX_COMPRESSED_DEPTH: usize = 256;

/// Runs `work` on a thread of its own with a [`STACK_BYTES`] stack: its result, or `Err` with
/// the panic's message when it panicked (or the thread could not start).
pub(crate) fn isolated<T: Send>(work: impl FnOnce() -> T + Send) -> Result<T, String> {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("edgesite-minify".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, work)
            .map_err(|e| format!("no thread for the minifier: {e}"))?;
        thread.join().map_err(|panic| panicked(&*panic))
    })
}

fn panicked(panic: &(dyn Any + Send)) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    format!("the minifier failed: {what}")
}

/// How many `{`, `(` and `[` the stylesheet `text` has, wherever they are.
pub(crate) fn css_openers(text: &str) -> usize {
    text.bytes().filter(|b| b"{([".contains(b)).count()
}

/// The deepest nesting of `{`, `(` and `[` in the stylesheet `text`, past its strings and
/// comments (a closer that matches nothing is ignored): the honest depth, for a clear message
/// ([`css_openers`] is the bound).
pub(crate) fn css_depth(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut depth, mut deepest, mut i) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = find(bytes, i + 2, b"*/").map_or(bytes.len(), |end| end + 2);
                continue;
            }
            quote @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\\' => i += 1,
            b'{' | b'(' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    deepest
}

fn find(bytes: &[u8], from: usize, what: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(what.len())
        .position(|w| w == what)
        .map(|at| from + at)
}

/// The keywords that nest without a bracket (`new new X`, `typeof typeof x`, `a in b in c`,
/// `else` chains, `do` bodies, `return`/`throw` operands).
const NESTING_WORDS: [&str; 13] = [
    "new",
    "typeof",
    "void",
    "delete",
    "await",
    "yield",
    "in",
    "instanceof",
    "else",
    "do",
    "return",
    "throw",
    "case",
];

/// How many tokens of the script `text` can open a level of its syntax tree, wherever they
/// are: an upper bound on its depth.
pub(crate) fn js_nesting(text: &str) -> usize {
    let operators = text
        .bytes()
        .filter(|b| b"([{?!~+-=.*/%&|^<>:`,".contains(b))
        .count();
    let words = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .filter(|word| NESTING_WORDS.contains(word))
        .count();
    operators + words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn css_depth_reads_past_strings_and_comments() {
        assert_eq!(css_depth("a { b: c(d(e)) }"), 3);
        assert_eq!(css_depth("a { content: \"((((\" } /* [[[[ */"), 1);
        assert_eq!(
            css_depth(&format!("{}x{}", ":is(".repeat(500), ")".repeat(500))),
            500
        );
        assert_eq!(css_depth("))) (a)"), 1);
    }

    #[test]
    fn js_nesting_counts_every_opener_wherever_it_is() {
        assert_eq!(js_nesting("if (a) b = !c;"), 3);
        assert_eq!(js_nesting("f``````"), 6);
        assert_eq!(js_nesting("x = new new Y; z = 'new (';"), 6);
    }

    #[test]
    fn a_panic_is_caught_and_told() {
        let err = isolated(|| -> usize { panic!("boom") }).unwrap_err();
        assert!(err.contains("boom"), "{err}");
        assert_eq!(isolated(|| 1 + 1), Ok(2));
    }
}
