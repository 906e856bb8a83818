//! `_headers` in the site's root folder: extra response fields per URL pattern, in Cloudflare
//! Pages syntax, compiled into each file's fields at build time (nothing is matched at run time).
//!
//! ```text
//! # a comment
//! /assets/*
//!   Cache-Control: public, max-age=604800
//!   X-Robots-Tag: noindex
//! /docs/:page
//!   Link: </docs/:page.pdf>; rel="alternate"
//!   ! Referrer-Policy
//! ```
//! - A line that starts at column 0 is a URL pattern (it must start with `/`); the indented lines
//!   under it are its fields: `Name: value` adds a field, `! Name` removes one, whether set by an
//!   earlier rule or by edgesite's defaults (`[headers]`, `cache.cdn`).
//! - `*` matches any characters (a splat, also across `/`), `:name` one path segment; both can
//!   be used in values as `:splat` and `:name`.
//! - Every rule that matches a file's URL applies, in file order; a field set by several rules
//!   gets their values joined with `, `. `Cache-Control` replaces the caching policy's value.
//! - Build errors naming file and line: a field before any pattern, a pattern that does not start
//!   with `/`, a malformed field line or name, a value that fails the field check of `field_check.rs`
//!   (controls, line breaks, non-ASCII, over 8 KiB; also after substitution and joining), and
//!   fields edgesite computes itself (Content-Type, Content-Length, Content-Encoding, ETag, ...).
//!   A rule that matches no file is reported as a warning.
//! - No cap on the number of rules; `[compat] pages_limits` restores Cloudflare Pages' 100.

use crate::error::{escaped, excerpt, Error};
use crate::field_check::{check_name, check_value};
use std::path::Path;

/// Cloudflare Pages' limit on the rules of a `_headers` file, with `[compat] pages_limits`.
const PAGES_MAX_RULES: usize = 100;

/// Fields edgesite computes for every response; `_headers` may not set or remove them.
const MANAGED: [&str; 13] = [
    "accept-ranges",
    "allow",
    "connection",
    "content-encoding",
    "content-length",
    "content-range",
    "content-type",
    "date",
    "etag",
    "last-modified",
    "location",
    "transfer-encoding",
    "vary",
];

/// The parsed rules of a `_headers` file.
#[derive(Debug, Default)]
pub(crate) struct HeaderRules {
    rules: Vec<Rule>,
}

#[derive(Debug)]
struct Rule {
    line: usize,
    pattern: String,
    edits: Vec<Edit>,
}

#[derive(Debug)]
enum Edit {
    Set { name: String, value: String },
    Remove { name: String },
}

impl HeaderRules {
    /// Parses the text of `path`.
    pub(crate) fn parse(text: &str, path: &Path, pages_limits: bool) -> Result<Self, Error> {
        let error = |line: usize, message: String| Error::Config {
            path: path.to_path_buf(),
            line,
            message,
        };
        let mut rules: Vec<Rule> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let trimmed = raw.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if !raw.starts_with([' ', '\t']) {
                if !trimmed.starts_with('/') {
                    return Err(error(
                        line,
                        format!(
                            "{} is not a URL pattern; patterns start with `/`",
                            excerpt(trimmed)
                        ),
                    ));
                }
                if let Err(message) = check_pattern(trimmed) {
                    return Err(error(line, message));
                }
                if pages_limits && rules.len() == PAGES_MAX_RULES {
                    return Err(error(line, format!("more than {PAGES_MAX_RULES} rules (Cloudflare Pages' limit, [compat] pages_limits)")));
                }
                rules.push(Rule {
                    line,
                    pattern: trimmed.to_string(),
                    edits: Vec::new(),
                });
                continue;
            }
            let rule = rules
                .last_mut()
                .ok_or_else(|| error(line, "a field line before any URL pattern".into()))?;
            rule.edits
                .push(parse_edit(trimmed).map_err(|message| error(line, message))?);
        }
        Ok(HeaderRules { rules })
    }

    /// Applies every rule matching one of `paths` (the URLs a file is served at) to `fields`
    /// and `cache_control`; returns the lines of the rules that applied, or the line and problem
    /// of a value that a substitution made invalid.
    pub(crate) fn apply(
        &self,
        paths: &[&str],
        fields: &mut Vec<(String, String)>,
        cache_control: &mut String,
    ) -> Result<Vec<usize>, (usize, String)> {
        let mut applied = Vec::new();
        for rule in &self.rules {
            let Some(captures) = paths.iter().find_map(|path| capture(&rule.pattern, path)) else {
                continue;
            };
            applied.push(rule.line);
            let mut set_here: Vec<&str> = Vec::new();
            for edit in &rule.edits {
                match edit {
                    Edit::Remove { name } => fields.retain(|(n, _)| n != name),
                    Edit::Set { name, value } => {
                        // RFC 9110 §5.5: a field value has no leading or trailing whitespace
                        // (an empty capture can leave some).
                        let value = substitute(value, &captures);
                        let value = value.trim_matches([' ', '\t']).to_string();
                        let set = set_field(fields, cache_control, name, value, &set_here);
                        set.map_err(|m| {
                            let (path, name) = (escaped(paths[0]), escaped(name));
                            (rule.line, format!("for {path}, {name}: {m}"))
                        })?;
                        set_here.push(name);
                        check_bounds(fields)
                            .map_err(|m| (rule.line, format!("for {}: {m}", escaped(paths[0]))))?;
                    }
                }
            }
        }
        Ok(applied)
    }

    /// The line and pattern of every rule.
    pub(crate) fn rules(&self) -> impl Iterator<Item = (usize, &str)> {
        self.rules.iter().map(|r| (r.line, r.pattern.as_str()))
    }
}

/// The longest pattern, in bytes (a request path is at most 1,023), and the most `*` and
/// `:name` in one: the matcher's depth and work grow with both.
const MAX_PATTERN_BYTES: usize = 2048;
const MAX_WILDCARDS: usize = 32;

/// `Err(why)` for a pattern longer than [`MAX_PATTERN_BYTES`] or with more than
/// [`MAX_WILDCARDS`] wildcards.
fn check_pattern(pattern: &str) -> Result<(), String> {
    let wildcards = pattern.bytes().filter(|&b| b == b'*' || b == b':').count();
    if pattern.len() > MAX_PATTERN_BYTES {
        Err(format!(
            "the pattern {} is longer than {MAX_PATTERN_BYTES} bytes",
            excerpt(pattern)
        ))
    } else if wildcards > MAX_WILDCARDS {
        Err(format!(
            "the pattern {} has more than {MAX_WILDCARDS} `*` and `:name`",
            excerpt(pattern)
        ))
    } else {
        Ok(())
    }
}

/// The most fields `_headers` may leave a file with, and the most bytes their names and values
/// may take together: far above any real use, and below what a runtime accepts in one answer
/// (hyper's table holds 32,768 fields; Cloudflare's edge refuses answers past 128 KiB of them).
pub(crate) const MAX_FIELDS: usize = 64;
/// See [`MAX_FIELDS`].
pub(crate) const MAX_FIELD_BYTES: usize = 32 * 1024;

/// `Err(why)` when `fields` are more than [`MAX_FIELDS`] or [`MAX_FIELD_BYTES`].
fn check_bounds(fields: &[(String, String)]) -> Result<(), String> {
    let bytes: usize = fields.iter().map(|(n, v)| n.len() + v.len()).sum();
    if fields.len() > MAX_FIELDS {
        Err(format!("more than {MAX_FIELDS} fields"))
    } else if bytes > MAX_FIELD_BYTES {
        Err(format!("fields of more than {MAX_FIELD_BYTES} bytes"))
    } else {
        Ok(())
    }
}

/// Sets `name` to `value` (a `_headers` rule's, captures substituted): Cache-Control replaces
/// the policy's value; a field an earlier rule (or a default) set gets the value appended, unless
/// this rule set it (`set_here`). The result passes the field check.
fn set_field(
    fields: &mut Vec<(String, String)>,
    cache_control: &mut String,
    name: &str,
    value: String,
    set_here: &[&str],
) -> Result<(), String> {
    check_value(&value)?;
    if name == "cache-control" {
        *cache_control = value;
        return Ok(());
    }
    let existing = fields
        .iter_mut()
        .find(|(n, _)| n == name)
        .filter(|_| !set_here.contains(&name));
    match existing {
        Some(existing) => {
            let joined = format!("{}, {value}", existing.1);
            check_value(&joined)?;
            existing.1 = joined;
        }
        None => fields.push((name.to_string(), value)),
    }
    Ok(())
}

fn parse_edit(line: &str) -> Result<Edit, String> {
    if let Some(name) = line.strip_prefix('!') {
        let name = checked_name(name.trim())?;
        return Ok(Edit::Remove { name });
    }
    let (name, value) = line
        .split_once(':')
        .ok_or_else(|| format!("{} is neither `Name: value` nor `! Name`", excerpt(line)))?;
    let name = checked_name(name.trim())?;
    let value = value.trim();
    if value.is_empty() {
        return Err(format!(
            "{} has an empty value; to remove a field, write `! {}`",
            escaped(&name),
            escaped(&name)
        ));
    }
    check_value(value).map_err(|m| format!("{}: {m}", escaped(&name)))?;
    Ok(Edit::Set {
        name,
        value: value.to_string(),
    })
}

/// A field name in lower case, if it is a token (RFC 9110 §5.1) edgesite lets `_headers` set.
fn checked_name(name: &str) -> Result<String, String> {
    check_name(name)?;
    let lower = name.to_ascii_lowercase();
    if MANAGED.contains(&lower.as_str()) {
        return Err(format!(
            "{} is computed by edgesite for every response and cannot be set in _headers",
            escaped(name)
        ));
    }
    Ok(lower)
}

/// The captures when `path` matches `pattern`: `:name` one non-empty segment, `*` anything.
fn capture<'p>(pattern: &str, path: &'p str) -> Option<Vec<(String, &'p str)>> {
    let mut matcher = Matcher::new(pattern, path);
    matcher.matches(0, 0).then_some(matcher.captures)
}

/// A pattern matched against a path by backtracking, the first match (the longest captures
/// first) kept. Every (pattern position, path position) that failed is remembered and never
/// tried again: without it, a pattern of many `*` takes time exponential in their number (a
/// `_headers` of `/*a*a*a*...` would never finish building); with it, at most
/// pattern × path² steps.
struct Matcher<'a, 'p> {
    pattern: &'a [u8],
    path: &'p str,
    captures: Vec<(String, &'p str)>,
    failed: std::collections::HashSet<(usize, usize)>,
    /// Positions tried (what the memo bounds).
    steps: usize,
}

impl<'a, 'p> Matcher<'a, 'p> {
    fn new(pattern: &'a str, path: &'p str) -> Self {
        Matcher {
            pattern: pattern.as_bytes(),
            path,
            captures: Vec::new(),
            failed: std::collections::HashSet::new(),
            steps: 0,
        }
    }

    fn matches(&mut self, pi: usize, at: usize) -> bool {
        if self.failed.contains(&(pi, at)) {
            return false;
        }
        self.steps += 1;
        let found = self.step(pi, at);
        if !found {
            self.failed.insert((pi, at));
        }
        found
    }

    fn step(&mut self, pi: usize, at: usize) -> bool {
        let (pattern, path) = (self.pattern, self.path);
        let rest = &path.as_bytes()[at..];
        match &pattern[pi..] {
            [] => rest.is_empty(),
            [b'*', ..] => (at..=path.len())
                .rev()
                .filter(|&end| path.is_char_boundary(end))
                .any(|end| self.capture("splat".into(), at, end, pi + 1)),
            [b':', tail @ ..] => {
                let name_len = tail
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
                let name = String::from_utf8_lossy(&tail[..name_len]).into_owned();
                let segment = rest.iter().take_while(|&&b| b != b'/').count();
                if name.is_empty() || segment == 0 {
                    return false;
                }
                (1..=segment)
                    .rev()
                    .filter(|&len| path.is_char_boundary(at + len))
                    .any(|len| self.capture(name.clone(), at, at + len, pi + 1 + name_len))
            }
            [c, ..] => rest.first() == Some(c) && self.matches(pi + 1, at + 1),
        }
    }

    /// Whether the rest matches with `path[at..end]` captured as `name`; the capture is kept
    /// only if it does.
    fn capture(&mut self, name: String, at: usize, end: usize, next: usize) -> bool {
        let mark = self.captures.len();
        self.captures.push((name, &self.path[at..end]));
        self.matches(next, end) || {
            self.captures.truncate(mark);
            false
        }
    }
}

/// `value` with `:name` and `:splat` replaced by their captures (longest names first).
fn substitute(value: &str, captures: &[(String, &str)]) -> String {
    let mut sorted: Vec<&(String, &str)> = captures.iter().collect();
    sorted.sort_by_key(|(name, _)| std::cmp::Reverse(name.len()));
    let mut out = value.to_string();
    for (name, text) in sorted {
        out = out.replace(&format!(":{name}"), text);
    }
    out
}

/// For fuzzing (`crate::fuzzing`): parses `text` as `_headers` and applies it to a few paths;
/// checks that an error names `_headers` and a line of the text, without control characters,
/// at a bounded length, and that what applies leaves each file at most [`MAX_FIELDS`] fields,
/// every one of which passes the field check. Panics when one does not hold.
pub(crate) fn fuzz_check(text: &str) {
    let lines = text.lines().count();
    let bounded = |message: &str| {
        assert!(message.len() < 2000, "{} bytes", message.len());
        assert!(!message.chars().any(char::is_control), "{message:?}");
    };
    let rules = match HeaderRules::parse(text, Path::new("_headers"), false) {
        Ok(rules) => rules,
        Err(error) => {
            let message = error.to_string();
            assert!(message.starts_with("_headers:"), "{message}");
            return bounded(&message);
        }
    };
    for path in ["/", "/index.html", "/a/b/c.css", "/caf\u{e9} (1).js"] {
        let mut fields = Vec::new();
        let mut cache_control = "public, max-age=0, must-revalidate".to_string();
        match rules.apply(&[path], &mut fields, &mut cache_control) {
            Ok(_) => {
                assert!(fields.len() <= MAX_FIELDS);
                for (name, value) in &fields {
                    assert!(check_name(name).is_ok(), "{name:?}");
                    assert!(check_value(value).is_ok(), "{name}: {value:?}");
                }
                assert!(check_value(&cache_control).is_ok(), "{cache_control:?}");
            }
            Err((line, message)) => {
                assert!((1..=lines).contains(&line), "line {line} of {lines}");
                bounded(&message);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<HeaderRules, Error> {
        HeaderRules::parse(text, Path::new("public/_headers"), false)
    }

    fn apply(rules: &HeaderRules, path: &str) -> (Vec<(String, String)>, String) {
        let mut fields = vec![(
            "referrer-policy".to_string(),
            "strict-origin-when-cross-origin".to_string(),
        )];
        let mut cache_control = "no-cache".to_string();
        rules
            .apply(&[path], &mut fields, &mut cache_control)
            .unwrap();
        (fields, cache_control)
    }

    #[test]
    fn splats_placeholders_removal_joining_and_cache_control() {
        let rules = parse(
            "# comment\n/assets/*\n  X-Robots-Tag: noindex\n  Cache-Control: public, max-age=60\n\n/docs/:page\n  Link: </pdf/:page.pdf>\n  ! Referrer-Policy\n/*\n  X-Robots-Tag: nosnippet\n",
        )
        .unwrap();
        let (fields, cc) = apply(&rules, "/assets/a/b.js");
        assert_eq!(cc, "public, max-age=60");
        assert!(
            fields.contains(&("x-robots-tag".into(), "noindex, nosnippet".into())),
            "{fields:?}"
        );
        let (fields, _) = apply(&rules, "/docs/intro");
        assert!(
            fields.contains(&("link".into(), "</pdf/intro.pdf>".into())),
            "{fields:?}"
        );
        assert!(
            !fields.iter().any(|(n, _)| n == "referrer-policy"),
            "removed: {fields:?}"
        );
        let (fields, _) = apply(&rules, "/docs/a/b");
        assert!(
            !fields.iter().any(|(n, _)| n == "link"),
            ":page is one segment"
        );
    }

    #[test]
    fn captures_end_on_character_boundaries() {
        let rules = parse("/:name.txt\n  X-A: 1\n/*.txt\n  X-B: 2\n").unwrap();
        let (fields, _) = apply(&rules, "/caf\u{e9} menu.txt");
        assert!(
            fields.iter().any(|(n, _)| n == "x-a") && fields.iter().any(|(n, _)| n == "x-b"),
            "{fields:?}"
        );
    }

    #[test]
    fn the_splat_can_be_used_in_values() {
        let rules = parse("/blog/*\n  X-Post: :splat\n").unwrap();
        assert!(apply(&rules, "/blog/2024/hello")
            .0
            .contains(&("x-post".into(), "2024/hello".into())));
    }

    #[test]
    fn a_substitution_that_makes_a_value_invalid_is_reported() {
        let rules = parse("/*\n  X-Path: :splat\n").unwrap();
        let (mut fields, mut cc) = (Vec::new(), String::new());
        let err = rules
            .apply(&["/caf\u{e9}"], &mut fields, &mut cc)
            .unwrap_err();
        assert_eq!(err.0, 1);
        assert!(err.1.contains("visible ASCII"), "{}", err.1);
    }

    #[test]
    fn pages_limits_cap_the_rules_and_nothing_else_does() {
        let many: String = (0..10_000)
            .map(|i| format!("/p{i}\n  X-A: {i}\n"))
            .collect();
        let rules = parse(&many).unwrap();
        assert_eq!(rules.rules().count(), 10_000);
        assert!(apply(&rules, "/p9999")
            .0
            .contains(&("x-a".into(), "9999".into())));
        let err = HeaderRules::parse(&many, Path::new("public/_headers"), true)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("public/_headers:201: more than 100 rules"),
            "{err}"
        );
    }

    #[test]
    fn a_joined_value_is_checked_too() {
        let long = "a".repeat(5000);
        let rules = parse(&format!("/*\n  X-A: {long}\n/x\n  X-A: {long}\n")).unwrap();
        let (mut fields, mut cc) = (Vec::new(), String::new());
        let err = rules.apply(&["/x"], &mut fields, &mut cc).unwrap_err();
        assert_eq!(err.0, 3);
        assert!(err.1.contains("over the limit of 8192"), "{}", err.1);
    }

    /// A pattern of many `*` that cannot match is refused after at most one try per (pattern,
    /// path) position pair, not after exponentially many (the fuzz target found a `_headers`
    /// whose build took minutes); one that can still matches.
    #[test]
    fn a_pattern_of_many_stars_tries_each_position_once() {
        // Within the bounds a pattern may have (check_pattern).
        let pattern = format!("/{}b", "*a".repeat(40));
        let path = format!("/{}", "a".repeat(60));
        let mut matcher = Matcher::new(&pattern, &path);
        assert!(!matcher.matches(0, 0));
        assert!(
            matcher.steps <= (pattern.len() + 1) * (path.len() + 1),
            "{}",
            matcher.steps
        );
        assert!(capture(&format!("/{}", "*a".repeat(40)), &path).is_some());
    }

    /// No rule set can make a file's answers carry more fields than a runtime's table holds.
    #[test]
    fn the_fields_of_a_file_are_bounded() {
        let many: String = (0..=MAX_FIELDS).map(|i| format!("  X-F{i}: v\n")).collect();
        let rules = parse(&format!("/*\n{many}")).unwrap();
        let mut fields = Vec::new();
        let err = rules
            .apply(&["/a"], &mut fields, &mut String::new())
            .unwrap_err();
        assert_eq!(err.0, 1);
        assert!(err.1.contains("more than 64 fields"), "{}", err.1);
        let long = "v".repeat(1000);
        let appended: String = (0..40).map(|_| format!("/*\n  X-Long: {long}\n")).collect();
        let err = parse(&appended)
            .unwrap()
            .apply(&["/a"], &mut Vec::new(), &mut String::new())
            .unwrap_err();
        assert!(err.1.contains("bytes"), "{}", err.1);
    }

    /// A pattern of thousands of `*` (the fuzz target's, which overflowed a test thread's
    /// stack) is an error naming its line, as is one longer than any path.
    #[test]
    fn overlong_and_overwild_patterns_are_errors() {
        let stars = format!("/{}\n  X-A: a\n", "*".repeat(7000));
        assert!(parse(&stars)
            .unwrap_err()
            .to_string()
            .contains("_headers:1:"));
        let long = format!("/a\n  X-A: a\n/{}\n  X-B: b\n", "b".repeat(3000));
        assert!(parse(&long)
            .unwrap_err()
            .to_string()
            .contains("_headers:3:"));
        let fine = format!("/{}\n  X-A: a\n", "*a".repeat(16));
        assert!(parse(&fine).is_ok());
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let cases = [
            ("  X-A: b\n", 1, "before any URL pattern"),
            ("/a\nX-A: b\n", 2, "not a URL pattern"),
            ("/a\n  X-A b\n", 2, "neither"),
            ("/a\n  X A: b\n", 2, "not a field name"),
            (
                "/a\n\n  Content-Type: text/plain\n",
                3,
                "computed by edgesite",
            ),
            ("/a\n  X-A:\n", 2, "empty value"),
            ("/a\n  X-A: caf\u{e9}\n", 2, "visible ASCII"),
            ("https://example.com/*\n  X-A: b\n", 1, "not a URL pattern"),
            ("/a\n  X-A: a\u{7}b\n", 2, "contains '\\u{7}'"),
        ];
        for (text, line, needle) in cases {
            let err = parse(text).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("public/_headers:{line}:")) && err.contains(needle),
                "{text:?}: {err}"
            );
        }
    }
}
