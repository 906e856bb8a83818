//! Reading `_redirects`: each line's source, destination and status, checked for what a line
//! alone can get wrong; nothing about the site yet.

use crate::error::excerpt;
use crate::model::PatternSegment;
use edgesite_core::{normalize, RedirectStatus, MAX_CAPTURES, MAX_PATH_LEN};
use std::collections::BTreeSet;

/// Cloudflare Pages' limits on a `_redirects` file, enforced with `[compat] pages_limits`.
pub(super) const PAGES_MAX_FIXED_RULES: usize = 2000;
pub(super) const PAGES_MAX_DYNAMIC_RULES: usize = 100;
pub(super) const PAGES_MAX_LINE_CHARS: usize = 1000;

/// What a line's status asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    /// 200: serve the destination's file at the source.
    Rewrite,
    /// A redirect.
    Redirect(RedirectStatus),
}

/// A parsed line.
#[derive(Debug)]
pub(super) struct Line {
    pub(super) line: usize,
    pub(super) source: String,
    /// The normalized source (literal text; placeholders and `*` kept as written).
    pub(super) normalized: String,
    pub(super) pattern: Vec<PatternSegment>,
    pub(super) splat: bool,
    pub(super) status: Status,
    pub(super) destination: String,
}

impl Line {
    pub(super) fn is_dynamic(&self) -> bool {
        self.splat
            || self
                .pattern
                .iter()
                .any(|s| matches!(s, PatternSegment::Placeholder(_)))
    }
}

/// A line number and what is wrong with it.
pub(super) type LineError = (usize, String);

/// The rules of `text`, in order; `pages_limits`: Cloudflare Pages' caps apply.
pub(super) fn parse(text: &str, pages_limits: bool) -> Result<Vec<Line>, LineError> {
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if pages_limits && trimmed.chars().count() > PAGES_MAX_LINE_CHARS {
            return Err((
                i + 1,
                format!("the rule is longer than {PAGES_MAX_LINE_CHARS} characters (Cloudflare Pages' limit, [compat] pages_limits)"),
            ));
        }
        lines.push(parse_line(i + 1, trimmed).map_err(|m| (i + 1, m))?);
    }
    if pages_limits {
        check_pages_limits(&lines)?;
    }
    Ok(lines)
}

/// One rule: `source destination [status]`.
fn parse_line(line: usize, text: &str) -> Result<Line, String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let (source, destination, status) = match fields[..] {
        [source, destination] => (source, destination, Status::Redirect(RedirectStatus::Found)),
        [source, destination, status] => (source, destination, parse_status(status)?),
        _ => {
            return Err(format!(
                "expected `source destination [status]`, found {} fields{}",
                fields.len(),
                if fields.len() > 3 {
                    " (conditions such as Country= are not supported; spaces in paths are written %20)"
                } else {
                    ""
                }
            ))
        }
    };
    let (normalized, pattern, splat) = parse_source(source)?;
    match status {
        Status::Rewrite => check_rewrite_destination(destination)?,
        Status::Redirect(_) => check_destination(destination)?,
    }
    Ok(Line {
        line,
        source: source.to_string(),
        normalized,
        pattern,
        splat,
        status,
        destination: destination.to_string(),
    })
}

/// Cloudflare Pages' caps on the number of rules.
fn check_pages_limits(lines: &[Line]) -> Result<(), LineError> {
    let mut dynamic = lines.iter().filter(|l| l.is_dynamic());
    if let Some(line) = dynamic.nth(PAGES_MAX_DYNAMIC_RULES) {
        return Err((line.line, format!("more than {PAGES_MAX_DYNAMIC_RULES} rules with placeholders or a splat (Cloudflare Pages' limit, [compat] pages_limits); use fewer, broader rules")));
    }
    let mut fixed = lines.iter().filter(|l| !l.is_dynamic());
    if let Some(line) = fixed.nth(PAGES_MAX_FIXED_RULES) {
        return Err((
            line.line,
            format!("more than {PAGES_MAX_FIXED_RULES} fixed rules (Cloudflare Pages' limit, [compat] pages_limits)"),
        ));
    }
    Ok(())
}

fn parse_status(text: &str) -> Result<Status, String> {
    match text.parse::<u16>() {
        Ok(200) => Some(Status::Rewrite),
        Ok(code) => RedirectStatus::from_code(code).map(Status::Redirect),
        Err(_) => None,
    }
    .ok_or_else(|| {
        format!(
            "status {} is not supported: redirects are 301, 302, 303, 307 or 308, rewrites 200",
            excerpt(text)
        )
    })
}

/// The source's normalized text, segments and splat.
fn parse_source(source: &str) -> Result<(String, Vec<PatternSegment>, bool), String> {
    if !source.starts_with('/') {
        return Err(format!(
            "the source {} must be a path starting with `/` (domain-level rules are not supported)",
            excerpt(source)
        ));
    }
    if source.contains(['?', '#']) {
        return Err(format!(
            "the source {} has a query or fragment; sources match the path only",
            excerpt(source)
        ));
    }
    let mut buf = [0; MAX_PATH_LEN];
    let normalized = normalize(source, &mut buf)
        .map_err(|e| format!("the source {} is not a valid path ({e:?})", excerpt(source)))?
        .to_string();
    let body = &normalized[1..];
    let mut segments: Vec<&str> = if body.is_empty() {
        Vec::new()
    } else {
        body.split('/').collect()
    };
    let splat = segments.last() == Some(&"*");
    if splat {
        segments.pop();
    }
    let pattern = source_pattern(source, &segments)?;
    let placeholders = pattern
        .iter()
        .filter(|s| matches!(s, PatternSegment::Placeholder(_)))
        .count();
    if placeholders + usize::from(splat) > MAX_CAPTURES {
        return Err(format!(
            "{} has more than {MAX_CAPTURES} placeholders and splats",
            excerpt(source)
        ));
    }
    Ok((normalized, pattern, splat))
}

/// The source's segments (without the splat) as literals and placeholders.
fn source_pattern(source: &str, segments: &[&str]) -> Result<Vec<PatternSegment>, String> {
    let mut names = BTreeSet::new();
    let mut pattern = Vec::new();
    for segment in segments {
        if segment.contains('*') {
            return Err(format!(
                "in {}, `*` must be the whole last segment (`/blog/*`)",
                excerpt(source)
            ));
        }
        match segment.strip_prefix(':') {
            Some(name) => {
                if !is_name(name) {
                    return Err(format!(
                        "in {}, {} is not a placeholder: `:` and a name of letters, digits and `_`",
                        excerpt(source),
                        excerpt(segment)
                    ));
                }
                if name == "splat" || !names.insert(name.to_string()) {
                    return Err(format!(
                        "in {}, the placeholder :{name} is used twice or is reserved",
                        excerpt(source)
                    ));
                }
                pattern.push(PatternSegment::Placeholder(name.to_string()));
            }
            None if segment.find(':').is_some_and(|i| i > 0) => {
                // `/blog-:year` is a literal to Cloudflare too; say so rather than guess.
                return Err(format!("in {}, a placeholder must be a whole segment (`/blog/:year`, not `/blog-:year`)", excerpt(source)));
            }
            None => pattern.push(PatternSegment::Literal(segment.to_string())),
        }
    }
    Ok(pattern)
}

/// The first `:name` in a destination (`https://host:8080` has none: a name starts with a
/// letter or `_`).
pub(super) fn first_placeholder(destination: &str) -> Option<String> {
    destination
        .match_indices(':')
        .find_map(|(i, _)| placeholder_at(destination, i))
}

/// The name of the placeholder whose `:` is at byte `i` of `text`, if one is there.
pub(super) fn placeholder_at(text: &str, i: usize) -> Option<String> {
    let name: String = text[i + 1..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    is_name(&name).then_some(name)
}

fn is_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A redirect's destination: a path of this site or an http(s) URL, read as a browser reads a
/// Location (WHATWG URL: `\` is `/`, tabs and line breaks are dropped), so no path that a
/// browser turns into another host (`//host`, `/\host`) passes, and no control character.
pub(super) fn check_destination(destination: &str) -> Result<(), String> {
    // The Location it becomes must fit a field value (field_check.rs), with room for a query.
    if destination.len() > crate::field_check::MAX_VALUE_LEN / 2 {
        return Err(format!(
            "the destination {} is {} bytes, over the limit of {}",
            excerpt(destination),
            destination.len(),
            crate::field_check::MAX_VALUE_LEN / 2
        ));
    }
    if let Some(c) = destination.chars().find(|c| c.is_control()) {
        return Err(format!(
            "the destination {} contains the control character {c:?}",
            excerpt(destination)
        ));
    }
    let lower = destination.to_ascii_lowercase();
    if edgesite_core::is_network_path(destination.as_bytes()) {
        return Err(format!(
            "the destination {} leads to another host (browsers read `//`, `/\\` \
             and `\\\\` at its start as a host name); write the full https:// URL if that is meant",
            excerpt(destination)
        ));
    }
    if destination.starts_with('/') || lower.starts_with("https://") || lower.starts_with("http://")
    {
        Ok(())
    } else {
        Err(format!(
            "the destination {} must be a path starting with `/` or an http(s):// URL",
            excerpt(destination)
        ))
    }
}

/// A rewrite serves a file of this site: its destination is a path, without query or fragment.
pub(super) fn check_rewrite_destination(destination: &str) -> Result<(), String> {
    if let Some(c) = destination.chars().find(|c| c.is_control()) {
        return Err(format!(
            "the destination {} contains the control character {c:?}",
            excerpt(destination)
        ));
    }
    if !destination.starts_with('/') || edgesite_core::is_network_path(destination.as_bytes()) {
        return Err(format!("a rewrite (200) serves a file of this site: {} must be a path starting with `/` (proxying to other hosts is not supported)", excerpt(destination)));
    }
    if destination.contains(['?', '#']) {
        return Err(format!(
            "a rewrite's destination {} cannot have a query or fragment",
            excerpt(destination)
        ));
    }
    Ok(())
}
