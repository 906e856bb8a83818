//! CSS, minified by lightningcss (the parser and printer of Parcel, the field's CSS minifier).

use super::guard;
use lightningcss::stylesheet::{ParserOptions, PrinterOptions, StyleSheet};
use lightningcss::targets::{Browsers, Features, Targets};

/// The browsers whose syntax the printer keeps to (`super::BASELINE`): where two forms mean
/// the same, the one they read (`(min-width:40em)`, not the range form `(width>=40em)`; no
/// `inset` for the four sides). Nothing the author wrote is lowered for them and no prefix is
/// added: every feature is excluded from compiling but the media query forms, which
/// lightningcss otherwise prints in the newer syntax whatever was written.
fn targets() -> Targets {
    const fn version(major: u32) -> Option<u32> {
        Some(major << 16)
    }
    let printed_as_written = Features::MediaRangeSyntax | Features::MediaIntervalSyntax;
    Targets {
        browsers: Some(Browsers {
            chrome: version(super::BASELINE.chrome),
            edge: version(super::BASELINE.chrome),
            android: version(super::BASELINE.chrome),
            firefox: version(super::BASELINE.firefox),
            safari: version(super::BASELINE.safari),
            ios_saf: version(super::BASELINE.safari),
            ..Browsers::default()
        }),
        include: printed_as_written,
        exclude: Features::all() - printed_as_written,
    }
}

/// Why a stylesheet could not be minified: what the parser said, and at which line (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotParsed {
    pub(crate) line: Option<usize>,
    pub(crate) message: String,
}

/// `text` minified: its rules as the browser reads them, printed without what it does not
/// need (comments, whitespace, redundant values), in syntax the baseline browsers read
/// ([`targets`]). A parse error (lightningcss's error recovery off: a stylesheet it would
/// have to drop a rule of is kept as written) is `Err`.
pub(crate) fn minify(text: &str) -> Result<String, NotParsed> {
    let depth = guard::css_depth(text);
    if depth > guard::MAX_CSS_DEPTH {
        return Err(NotParsed {
            line: None,
            message: format!(
                "nested {depth} deep, past the {} the minifier is given",
                guard::MAX_CSS_DEPTH
            ),
        });
    }
    guard::isolated(|| print(text)).unwrap_or_else(|message| {
        Err(NotParsed {
            line: None,
            message,
        })
    })
}

/// [`minify`]'s work, on its own thread.
fn print(text: &str) -> Result<String, NotParsed> {
    let options = ParserOptions {
        error_recovery: false,
        ..ParserOptions::default()
    };
    let sheet = StyleSheet::parse(text, options).map_err(|e| NotParsed {
        line: e.loc.as_ref().map(|loc| loc.line as usize + 1),
        message: e.kind.to_string(),
    })?;
    // Printed only: `StyleSheet::minify` would also merge rules and longhands into shorthands
    // newer than the baseline (the four sides into `inset`, Safari 14.1) whatever the targets
    // say once compiling is excluded; each declaration and rule stays the author's.
    let targets = targets();
    let printer = PrinterOptions {
        minify: true,
        targets,
        ..PrinterOptions::default()
    };
    let printed = sheet.to_css(printer).map_err(|e| NotParsed {
        line: None,
        message: e.kind.to_string(),
    })?;
    Ok(printed.code)
}

/// Whether the stylesheet `printed` (as [`minify`] prints it: no comments, no whitespace
/// around `{`, `:` and `;`) may keep spaces in text outside `<pre>` and `<textarea>`: a
/// `white-space` or `white-space-collapse` that keeps spaces (`pre`, `pre-wrap`,
/// `break-spaces`, `preserve`, `preserve-spaces`; not `pre-line` or `preserve-breaks`, which
/// keep only line breaks) in a rule whose selectors do not all end in or inside `<pre>` or
/// `<textarea>`.
pub(crate) fn keeps_spaces(printed: &str) -> bool {
    let css = printed.to_ascii_lowercase();
    let mut from = 0;
    while let Some(found) = css[from..].find("white-space") {
        let at = from + found;
        from = at + 1;
        // A declaration's name starts a block or follows a `;`.
        if !matches!(css[..at].bytes().last(), Some(b'{' | b';')) {
            continue;
        }
        let end = css[at..].find([';', '}']).map_or(css.len(), |e| at + e);
        let Some((_, value)) = css[at..end].split_once(':') else {
            continue;
        };
        let keeps = value.split_ascii_whitespace().any(|word| {
            let word = word.trim_end_matches("!important");
            matches!(
                word,
                "pre" | "pre-wrap" | "break-spaces" | "preserve" | "preserve-spaces"
            )
        });
        if keeps && !within_pre(selector_before(&css, at)) {
            return true;
        }
    }
    false
}

/// The selector list of the rule whose block holds the declaration at `at`.
fn selector_before(css: &str, at: usize) -> &str {
    let open = css[..at].rfind('{').unwrap_or(0);
    let start = css[..open].rfind(['{', '}', ';']).map_or(0, |s| s + 1);
    &css[start..open]
}

/// Whether every selector of `list` matches only `<pre>` or `<textarea>` elements or their
/// descendants: a compound naming the element, then only descendant or child combinators.
/// Anything it cannot tell (functions, nesting, strings) is `false`.
fn within_pre(list: &str) -> bool {
    if list.is_empty() || list.contains(['(', '&', '"', '\'', '\\', '@']) {
        return false;
    }
    list.split(',').all(|selector| {
        let spaced = selector
            .replace('>', " > ")
            .replace('+', " + ")
            .replace('~', " ~ ");
        let mut words = spaced.split_ascii_whitespace();
        let names_pre = |compound: &str| {
            ["pre", "textarea"].iter().any(|name| {
                compound
                    .strip_prefix(name)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '#', '[', ':']))
            })
        };
        if !words.any(names_pre) {
            return false;
        }
        words.all(|word| !matches!(word, "+" | "~"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_whitespace_go_and_rules_stay() {
        let css = "/* the body */\nbody {\n  color: #ff0000;\n  margin: 0px 0px 0px 0px;\n}\n\n@media (min-width: 40em) {\n  h1 { font-size: 2em }\n}\n";
        assert_eq!(
            minify(css).unwrap(),
            "body{color:red;margin:0}@media (min-width:40em){h1{font-size:2em}}"
        );
    }

    #[test]
    fn nothing_newer_than_the_baseline_is_printed_and_nothing_is_lowered() {
        // `inset` (Safari 14.1) for the four sides, hex with alpha, prefixes added: none.
        let css = ".a { top: 0; right: 0; bottom: 0; left: 0; user-select: none }";
        assert_eq!(
            minify(css).unwrap(),
            ".a{top:0;right:0;bottom:0;left:0;user-select:none}"
        );
        // The author's own newer syntax stays (nesting, a color space).
        let css = ".a { color: oklch(70% 0.1 200); & b { color: red } }";
        let out = minify(css).unwrap();
        assert!(out.contains("oklch(") && out.contains("&"), "{out}");
    }

    #[test]
    fn vendor_prefixes_and_urls_are_kept() {
        let css =
            "a { -webkit-user-select: none; user-select: none; background: url(\"i/bg.png\") }";
        let out = minify(css).unwrap();
        assert!(out.contains("-webkit-user-select:none"), "{out}");
        assert!(out.contains("i/bg.png"), "{out}");
    }

    #[test]
    fn white_space_that_keeps_spaces_outside_pre_is_told() {
        let keeps = |css: &str| keeps_spaces(&minify(css).unwrap());
        assert!(!keeps(
            "pre { white-space: pre-wrap } p { white-space: nowrap }"
        ));
        assert!(!keeps(
            "div.highlight pre, pre > code, textarea.x { white-space: pre }"
        ));
        assert!(!keeps(
            "p { white-space: pre-line } h1 { white-space-collapse: preserve-breaks }"
        ));
        assert!(keeps("code { white-space: pre-wrap }"));
        assert!(keeps(".highlight { white-space: pre }"));
        assert!(keeps("pre + p { white-space: pre }"));
        assert!(keeps("@media print { .x { white-space: break-spaces } }"));
        assert!(keeps(":is(pre, code) { white-space: pre }"));
        assert!(keeps("p { white-space-collapse: preserve }"));
    }

    #[test]
    fn deep_input_is_refused_and_a_panic_is_caught() {
        let deep = format!("{}a{} {{ color: red }}", ":is(".repeat(65), ")".repeat(65));
        assert!(minify(&deep)
            .unwrap_err()
            .message
            .contains("nested 65 deep"));
        // lightningcss adds past a u32 in a test build on 1,000 nested rules: within the
        // depth bound nothing gets there, and a panic would be a kept file, not a crash.
        let nested = format!("{}color:red{}", "a{".repeat(60), "}".repeat(60));
        assert!(minify(&nested).is_ok());
    }

    #[test]
    fn a_parse_error_names_its_line() {
        let err = minify("a { color: red }\n\nb..c { color: red }\n").unwrap_err();
        assert_eq!(err.line, Some(3), "{err:?}");
    }
}
