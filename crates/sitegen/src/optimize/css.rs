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

impl NotParsed {
    /// About the stylesheet as a whole (no line).
    fn whole(message: String) -> NotParsed {
        NotParsed {
            line: None,
            message,
        }
    }
}

/// `text` minified: its rules as the browser reads them, printed without what it does not
/// need (comments, whitespace, redundant values), in syntax the baseline browsers read
/// ([`targets`]). A parse error (lightningcss's error recovery off: a stylesheet it would
/// have to drop a rule of is kept as written) is `Err`.
pub(crate) fn minify(text: &str) -> Result<String, NotParsed> {
    let (openers, depth) = (guard::css_openers(text), guard::css_depth(text));
    if openers > guard::MAX_CSS_OPENERS {
        return Err(NotParsed::whole(format!(
            "{openers} brackets, past the {} the minifier is given",
            guard::MAX_CSS_OPENERS
        )));
    }
    if let Some(number) = too_precise(text) {
        return Err(NotParsed::whole(format!(
            "{number} has more digits than lightningcss keeps (it stores numbers as 32-bit \
             floats and prints 6 significant digits)"
        )));
    }
    if depth > guard::MAX_CSS_DEPTH {
        return Err(NotParsed::whole(format!(
            "nested {depth} deep, past the {} the minifier is given",
            guard::MAX_CSS_DEPTH
        )));
    }
    guard::isolated(|| print(text)).unwrap_or_else(|message| Err(NotParsed::whole(message)))
}

/// The first number in `text` with more than 6 significant digits (`33.33333333%`,
/// `1.428571429`) or an integer past 2^24, which lightningcss would print rounded: a layout a
/// unit apart. Digits in names (`h1`, `col-12`, `#a1b2c3`) are not numbers.
fn too_precise(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'#';
    let mut i = 0;
    while i < bytes.len() {
        let starts = (bytes[i].is_ascii_digit() || bytes[i] == b'.')
            && !(i > 0 && word(bytes[i - 1]))
            && !(i > 1 && bytes[i - 1] == b'-' && word(bytes[i - 2]));
        if !starts {
            i += 1;
            continue;
        }
        let end = bytes[i..]
            .iter()
            .position(|b| !(b.is_ascii_digit() || *b == b'.'))
            .map_or(bytes.len(), |n| i + n);
        let number = &text[i..end];
        let digits: String = number.chars().filter(char::is_ascii_digit).collect();
        // An integer a 32-bit float holds exactly (up to 2^24) prints as written.
        let rounded = match number.contains('.') {
            true => digits.trim_start_matches('0').trim_end_matches('0').len() > 6,
            false => digits.parse::<u64>().map_or(true, |n| n > 1 << 24),
        };
        if rounded {
            return Some(number);
        }
        i = end.max(i + 1);
    }
    None
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
    let printed = sheet
        .to_css(printer)
        .map_err(|e| NotParsed::whole(e.kind.to_string()))?;
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
    let bytes = css.as_bytes();
    // One pass: the selector of the block the scan is in, and where the next one starts.
    let (mut selector, mut next_start) = (0..0, 0);
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => selector = next_start..i,
            b'}' | b';' => next_start = i + 1,
            _ => continue,
        }
        // A declaration's name starts a block or follows a `;`.
        let rest = &css[i + 1..];
        if !rest.starts_with("white-space") {
            continue;
        }
        let end = rest.find([';', '}']).unwrap_or(rest.len());
        let Some((_, value)) = rest[..end].split_once(':') else {
            continue;
        };
        if keeps(value) && !within_pre(&css[selector.clone()]) {
            return true;
        }
    }
    false
}

/// Whether a `white-space` or `white-space-collapse` value may keep spaces: anything but the
/// values known to collapse them (a `var()` or a value this build does not know counts).
fn keeps(value: &str) -> bool {
    let value = value.trim().trim_end_matches("!important");
    !value.split_ascii_whitespace().all(|word| {
        matches!(
            word,
            "normal"
                | "nowrap"
                | "pre-line"
                | "collapse"
                | "preserve-breaks"
                | "wrap"
                | "initial"
                | "inherit"
                | "unset"
                | "revert"
                | "revert-layer"
        )
    })
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
        assert!(keeps(":root { --ws: pre } p { white-space: var(--ws) }"));
        assert!(!keeps(
            "p { white-space: nowrap !important; white-space: inherit }"
        ));
    }

    #[test]
    fn a_number_lightningcss_would_round_keeps_the_file_as_written() {
        for css in [
            ".a { width: 33.33333333% }",
            "p { line-height: 1.428571429 }",
        ] {
            assert!(
                minify(css).unwrap_err().message.contains("more digits"),
                "{css}"
            );
        }
        let fine = ".col-1234567 h1 { width: 33.3333%; color: #123456; margin: 1000000px }";
        assert!(minify(fine).is_ok());
    }

    #[test]
    fn deep_input_is_refused_and_a_panic_is_caught() {
        let deep = format!("{}a{} {{ color: red }}", ":is(".repeat(65), ")".repeat(65));
        assert!(minify(&deep)
            .unwrap_err()
            .message
            .contains("nested 65 deep"));
        // Openers hidden from the depth scan (a comment opened in an unquoted url()) count.
        let hidden = format!(".a{{b:url(/*)}}{}.c{{d:url(*/)}}", ":is(".repeat(25_000));
        assert!(minify(&hidden).unwrap_err().message.contains("brackets"));
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
