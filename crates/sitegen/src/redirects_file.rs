//! `_redirects` in the site's root folder: redirects and rewrites in Cloudflare Pages syntax,
//! compiled and checked at build time.
//!
//! ```text
//! # source            destination                         status (default 302)
//! /home               /                                   301
//! /blog/:year/*       https://blog.example.com/:year/:splat 301
//! /search/:term       /find?q=:term#results
//! /app/*              /app/index.html                     200
//! ```
//! - One rule per line: `source destination [status]`; `#` starts a comment line. Statuses:
//!   301, 302, 303, 307, 308 (redirects, RFC 9110 §15.4) and 200 (a rewrite: the file at the
//!   destination path is served at the request's URL).
//! - The source is a path, percent-decoded like a request path; `:name` matches one non-empty
//!   segment, a final `/*` (the splat) the rest of the path, possibly empty (`/blog/*` matches
//!   `/blog`, `/blog/` and `/blog/a/b`). Queries in sources are not matched.
//! - The destination is a path or an `http(s)://` URL (a rewrite's must be a path of the site,
//!   without query or fragment); `:name` and `:splat` are replaced by the captures, which are
//!   percent-encoded. A redirect keeps the request's query unless the destination has one.
//! - Precedence (as Cloudflare: "redirects are always followed"): a redirect wins over a file at
//!   its source; a rewrite only applies where no file is (`/* /index.html 200` does not hide
//!   `/app.js`). Rules without placeholders or a splat are exact routes and win over the others;
//!   among those, the first matching rule in the file wins.
//! - No cap on the number of rules: fixed rules are routes (binary search), dynamic ones are
//!   indexed by their literal leading segments (a trie, see `rule.rs`). `[compat] pages_limits`
//!   restores Cloudflare Pages' caps (2,000 fixed rules, 100 dynamic ones, 1,000 characters a
//!   line) for a file that must also deploy on Pages.
//! - Build errors naming the file and line: a malformed line, an unknown status, a bad source
//!   or destination, an undeclared placeholder, two rules for the same source, a rule that an
//!   earlier one makes unreachable, a rewrite to a path that is not a file of the site or from a
//!   path that is one, a redirect loop or a chain of more than 16 redirects (followed from the
//!   rule's source through edgesite-core, with sample values for placeholders).

use crate::error::Error;
use crate::rule::{
    earlier_candidates, index_rule, with_core_site, DestinationPart, PatternSegment, RedirectRule,
    RuleAction, RuleIndexNode,
};
use crate::uri::encoded;
use crate::{Route, RouteTarget};
use edgesite_core::{
    is_path_char, is_visible_ascii, normalize, respond, RedirectStatus, RequestHead, Site,
    MAX_CAPTURES, MAX_PATH_LEN,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Cloudflare Pages' limits on a `_redirects` file, enforced with `[compat] pages_limits`.
const PAGES_MAX_FIXED_RULES: usize = 2000;
const PAGES_MAX_DYNAMIC_RULES: usize = 100;
const PAGES_MAX_LINE_CHARS: usize = 1000;
/// The longest redirect chain followed when looking for loops.
const MAX_HOPS: usize = 16;

/// What a line's status asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// 200: serve the destination's file at the source.
    Rewrite,
    /// A redirect.
    Redirect(RedirectStatus),
}

/// A parsed line.
#[derive(Debug)]
struct Line {
    line: usize,
    source: String,
    /// The normalized source (literal text; placeholders and `*` kept as written).
    normalized: String,
    pattern: Vec<PatternSegment>,
    splat: bool,
    status: Status,
    destination: String,
}

impl Line {
    fn is_dynamic(&self) -> bool {
        self.splat
            || self
                .pattern
                .iter()
                .any(|s| matches!(s, PatternSegment::Placeholder(_)))
    }
}

/// The result of applying `_redirects` to the route table.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    /// The rules matched at run time.
    pub(crate) rules: Vec<RedirectRule>,
    /// Their index by literal leading segments.
    pub(crate) index: Vec<RuleIndexNode>,
    /// Things worth a look (a redirect hiding a file).
    pub(crate) warnings: Vec<String>,
}

/// A line number and what is wrong with it.
type LineError = (usize, String);

/// Parses `text` (the contents of `path`) and applies it to `routes`: fixed rules become
/// routes, dynamic redirects are resolved at build time for every route they match (so they
/// win over files there), the rest are returned for run time.
pub(crate) fn apply(
    text: &str,
    path: &Path,
    routes: &mut Vec<Route>,
    pages_limits: bool,
) -> Result<Applied, Error> {
    let error = |(line, message): LineError| Error::Config {
        path: path.to_path_buf(),
        line,
        message,
    };
    let lines = parse(text, pages_limits).map_err(error)?;
    let files: BTreeMap<String, RouteTarget> = routes
        .drain(..)
        .map(|route| (route.path, route.target))
        .collect();
    let mut compiled = Compiled {
        table: files.clone(),
        files,
        ..Compiled::default()
    };
    for line in &lines {
        compiled.add(line, path).map_err(error)?;
    }
    compiled.resolve_dynamic_redirects(path);
    *routes = std::mem::take(&mut compiled.table)
        .into_iter()
        .map(|(path, target)| Route { path, target })
        .collect();
    check_loops(&lines, routes, &compiled.rules, &compiled.index).map_err(error)?;
    Ok(Applied {
        rules: compiled.rules,
        index: compiled.index,
        warnings: compiled.warnings,
    })
}

/// The rules compiled so far.
#[derive(Default)]
struct Compiled {
    /// The routes before `_redirects` (files and canonical URLs).
    files: BTreeMap<String, RouteTarget>,
    /// The routes with the fixed rules applied.
    table: BTreeMap<String, RouteTarget>,
    /// The source of each fixed rule, with its line.
    fixed_sources: BTreeMap<String, usize>,
    rules: Vec<RedirectRule>,
    index: Vec<RuleIndexNode>,
    warnings: Vec<String>,
}

impl Compiled {
    fn add(&mut self, line: &Line, path: &Path) -> Result<(), LineError> {
        if line.is_dynamic() {
            let rule = dynamic_rule(line).map_err(|m| (line.line, m))?;
            self.add_dynamic(rule)
        } else {
            self.add_fixed(line, path).map_err(|m| (line.line, m))
        }
    }

    /// A rule with placeholders or a splat: kept for run time, unless an earlier one makes it
    /// unreachable.
    fn add_dynamic(&mut self, rule: RedirectRule) -> Result<(), LineError> {
        let earlier =
            earlier_candidates(&self.rules, &self.index, &rule).find(|e| e.subsumes(&rule));
        if let Some(earlier) = earlier {
            return Err((
                rule.line,
                format!(
                    "this rule is unreachable: every path it matches is matched first by {} on line {}",
                    earlier.source, earlier.line
                ),
            ));
        }
        if let RuleAction::Rewrite { destination } = &rule.action {
            if let Some(literal) = all_literal(destination) {
                rewrite_target(&self.files, &literal).map_err(|m| (rule.line, m))?;
            }
        }
        index_rule(&mut self.index, &rule, self.rules.len());
        self.rules.push(rule);
        Ok(())
    }

    /// A rule without placeholders or splat: a route.
    fn add_fixed(&mut self, line: &Line, path: &Path) -> Result<(), String> {
        if let Some(name) = first_placeholder(&line.destination) {
            return Err(format!(
                "the destination uses :{name}, which the source {} does not capture",
                line.source
            ));
        }
        if let Some(first) = self
            .fixed_sources
            .insert(line.normalized.clone(), line.line)
        {
            return Err(format!(
                "{} already has a rule on line {first}; the first rule would always win",
                line.source
            ));
        }
        let target = match line.status {
            Status::Rewrite => self.fixed_rewrite(line)?,
            Status::Redirect(status) => {
                check_destination(&line.destination)?;
                if let Some(RouteTarget::File(_)) = self.table.get(&line.normalized) {
                    self.warnings.push(format!(
                        "{}:{}: the redirect from {} hides the file at that path",
                        path.display(),
                        line.line,
                        line.source
                    ));
                }
                fixed_redirect(status, &encoded(&line.destination, is_visible_ascii))
            }
        };
        self.table.insert(line.normalized.clone(), target);
        Ok(())
    }

    /// A fixed 200 rewrite: the destination's file, where no file is.
    fn fixed_rewrite(&self, line: &Line) -> Result<RouteTarget, String> {
        let target = checked_rewrite(&line.destination)
            .and_then(|destination| rewrite_target(&self.files, &destination))?;
        if matches!(self.files.get(&line.normalized), Some(RouteTarget::File(_))) {
            return Err(format!("this rewrite is unreachable: {} is a file of the site, which is served first; remove the rule or the file", line.source));
        }
        Ok(target)
    }

    /// Dynamic redirects win over files and canonical-URL redirects: resolve them now, through
    /// edgesite-core, for every route they match (a rewrite never replaces a route). Fixed
    /// rules were matched first.
    fn resolve_dynamic_redirects(&mut self, path: &Path) {
        if self.rules.is_empty() {
            return;
        }
        let paths: Vec<String> = self
            .table
            .keys()
            .filter(|p| !self.fixed_sources.contains_key(*p))
            .cloned()
            .collect();
        let resolved = with_core_site(&[], &self.rules, &self.index, |site| {
            redirects_of(site, &paths)
        });
        for (route_path, rule, status, location) in resolved {
            if let Some(RouteTarget::File(_)) = self.table.get(&route_path) {
                self.warnings.push(format!(
                    "{}:{}: the redirect from {route_path} hides the file at that path",
                    path.display(),
                    self.rules[rule].line
                ));
            }
            // The Location is the rule's destination with this path's captures (encoded, so a
            // `?` or `#` in it is the destination's own).
            self.table
                .insert(route_path, fixed_redirect(status, &location));
        }
    }
}

/// The paths among `paths` that `site`'s rules redirect: each with its rule's index, status and
/// Location, as edgesite-core answers a GET of it.
fn redirects_of(site: &Site<'_>, paths: &[String]) -> Vec<(String, usize, RedirectStatus, String)> {
    let mut redirects = Vec::new();
    for path in paths {
        let Some((rule, _)) = site.matching_rule(path) else {
            continue;
        };
        let (status, location) = get(site, path);
        if let Some(status) = RedirectStatus::from_code(status) {
            let index = site
                .rules
                .iter()
                .position(|r| std::ptr::eq(r, rule))
                .unwrap_or(0);
            redirects.push((path.clone(), index, status, location));
        }
    }
    redirects
}

/// A fixed redirect to `location` (encoded), keeping the request's query unless the location
/// has one (it goes before a fragment).
fn fixed_redirect(status: RedirectStatus, location: &str) -> RouteTarget {
    let before_fragment = location.find('#').unwrap_or(location.len());
    let query_at = (!location[..before_fragment].contains('?')).then_some(before_fragment);
    RouteTarget::Redirect {
        status,
        location: location.to_string(),
        query_at,
    }
}

fn parse(text: &str, pages_limits: bool) -> Result<Vec<Line>, LineError> {
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
        "status {text:?} is not supported: redirects are 301, 302, 303, 307 or 308, rewrites 200"
    )
    })
}

/// The source's normalized text, segments and splat.
fn parse_source(source: &str) -> Result<(String, Vec<PatternSegment>, bool), String> {
    if !source.starts_with('/') {
        return Err(format!(
            "the source {source:?} must be a path starting with `/` (domain-level rules are not supported)"
        ));
    }
    if source.contains(['?', '#']) {
        return Err(format!(
            "the source {source:?} has a query or fragment; sources match the path only"
        ));
    }
    let mut buf = [0; MAX_PATH_LEN];
    let normalized = normalize(source, &mut buf)
        .map_err(|e| format!("the source {source:?} is not a valid path ({e:?})"))?
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
            "{source:?} has more than {MAX_CAPTURES} placeholders and splats"
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
                "in {source:?}, `*` must be the whole last segment (`/blog/*`)"
            ));
        }
        match segment.strip_prefix(':') {
            Some(name) => {
                if !is_name(name) {
                    return Err(format!("in {source:?}, {segment:?} is not a placeholder: `:` and a name of letters, digits and `_`"));
                }
                if name == "splat" || !names.insert(name.to_string()) {
                    return Err(format!(
                        "in {source:?}, the placeholder :{name} is used twice or is reserved"
                    ));
                }
                pattern.push(PatternSegment::Placeholder(name.to_string()));
            }
            None if segment.find(':').is_some_and(|i| i > 0) => {
                // `/blog-:year` is a literal to Cloudflare too; say so rather than guess.
                return Err(format!("in {source:?}, a placeholder must be a whole segment (`/blog/:year`, not `/blog-:year`)"));
            }
            None => pattern.push(PatternSegment::Literal(segment.to_string())),
        }
    }
    Ok(pattern)
}

/// The first `:name` in a destination (`https://host:8080` has none: a name starts with a
/// letter or `_`).
fn first_placeholder(destination: &str) -> Option<String> {
    destination
        .match_indices(':')
        .find_map(|(i, _)| placeholder_at(destination, i))
}

/// The name of the placeholder whose `:` is at byte `i` of `text`, if one is there.
fn placeholder_at(text: &str, i: usize) -> Option<String> {
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

fn check_destination(destination: &str) -> Result<(), String> {
    let lower = destination.to_ascii_lowercase();
    if (destination.starts_with('/') && !destination.starts_with("//"))
        || lower.starts_with("https://")
        || lower.starts_with("http://")
    {
        Ok(())
    } else {
        Err(format!(
            "the destination {destination:?} must be a path starting with `/` or an http(s):// URL"
        ))
    }
}

/// A rewrite serves a file of this site: its destination is a path, without query or fragment.
fn check_rewrite_destination(destination: &str) -> Result<(), String> {
    if !destination.starts_with('/') || destination.starts_with("//") {
        return Err(format!("a rewrite (200) serves a file of this site: {destination:?} must be a path starting with `/` (proxying to other hosts is not supported)"));
    }
    if destination.contains(['?', '#']) {
        return Err(format!(
            "a rewrite's destination {destination:?} cannot have a query or fragment"
        ));
    }
    Ok(())
}

/// A rewrite's destination path, normalized; it must be a path without query or fragment.
fn checked_rewrite(destination: &str) -> Result<String, String> {
    check_rewrite_destination(destination)?;
    let mut buf = [0; MAX_PATH_LEN];
    normalize(destination, &mut buf)
        .map(str::to_string)
        .map_err(|e| format!("the destination {destination:?} is not a valid path ({e:?})"))
}

/// What a rewrite to `destination` serves: the file there (through one canonical redirect is
/// an error that names the URL to write).
fn rewrite_target(
    files: &BTreeMap<String, RouteTarget>,
    destination: &str,
) -> Result<RouteTarget, String> {
    match files.get(destination) {
        Some(target @ RouteTarget::File(_)) => Ok(target.clone()),
        Some(RouteTarget::Redirect { location, .. }) => Err(format!(
            "the rewrite's destination {destination} is a redirect to {location}; write that instead"
        )),
        None => Err(format!(
            "the rewrite's destination {destination} is not a file of the site"
        )),
    }
}

/// The text of a destination with no captures.
fn all_literal(parts: &[DestinationPart]) -> Option<String> {
    parts
        .iter()
        .map(|p| match p {
            DestinationPart::Literal(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// A rule with placeholders or a splat, its destination split into literals and captures.
fn dynamic_rule(line: &Line) -> Result<RedirectRule, String> {
    let action = match line.status {
        Status::Rewrite => {
            check_rewrite_destination(&line.destination)?;
            let (parts, _) = destination_parts(line, &line.destination, true)?;
            RuleAction::Rewrite {
                destination: decoded_rewrite(line, parts)?,
            }
        }
        Status::Redirect(status) => {
            check_destination(&line.destination)?;
            let text = encoded(&line.destination, is_visible_ascii);
            let (destination, query_at) = destination_parts(line, &text, false)?;
            RuleAction::Redirect {
                status,
                destination,
                query_at,
            }
        }
    };
    Ok(RedirectRule {
        line: line.line,
        source: line.source.clone(),
        pattern: line.pattern.clone(),
        splat: line.splat,
        action,
    })
}

/// The index of the capture `:name` stands for in `line`'s source (placeholders in order, then
/// the splat).
fn capture_index(line: &Line, name: &str) -> Result<usize, String> {
    let mut placeholders = line.pattern.iter().filter_map(|s| match s {
        PatternSegment::Placeholder(name) => Some(name.as_str()),
        PatternSegment::Literal(_) => None,
    });
    if name == "splat" && line.splat {
        return Ok(placeholders.count());
    }
    placeholders.position(|n| n == name).ok_or_else(|| {
        format!(
            "the destination uses :{name}, which the source {} does not capture",
            line.source
        )
    })
}

/// `text` split into literals and captures, and the part before which the request's query goes
/// (none when the destination has a query; before a fragment). In a rewrite, `#` and `?` are
/// not special (the destination was checked to have neither).
fn destination_parts(
    line: &Line,
    text: &str,
    rewrite: bool,
) -> Result<(Vec<DestinationPart>, Option<usize>), String> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let (mut in_query, mut in_fragment, mut query_at) = (false, false, None);
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        if let Some(name) = (c == ':').then(|| placeholder_at(text, i)).flatten() {
            let index = capture_index(line, &name)?;
            flush(&mut parts, &mut literal);
            parts.push(if in_query && !in_fragment {
                DestinationPart::QueryCapture(index)
            } else {
                DestinationPart::Capture(index)
            });
            chars.nth(name.len() - 1);
            continue;
        }
        if c == '#' && !in_fragment && !rewrite {
            in_fragment = true;
            flush(&mut parts, &mut literal);
            if !in_query {
                query_at = Some(parts.len());
            }
        }
        in_query |= c == '?' && !in_fragment;
        literal.push(c);
    }
    flush(&mut parts, &mut literal);
    if !in_query && !in_fragment {
        query_at = Some(parts.len());
    }
    Ok((parts, query_at))
}

/// Ends the literal being collected, if any.
fn flush(parts: &mut Vec<DestinationPart>, literal: &mut String) {
    if !literal.is_empty() {
        parts.push(DestinationPart::Literal(std::mem::take(literal)));
    }
}

/// A rewrite's destination parts with the literals decoded: both sides of a rewrite are
/// decoded paths.
fn decoded_rewrite(
    line: &Line,
    parts: Vec<DestinationPart>,
) -> Result<Vec<DestinationPart>, String> {
    let decoded = parts
        .into_iter()
        .map(|part| match part {
            DestinationPart::Literal(text) => percent_decode(&text)
                .map(DestinationPart::Literal)
                .ok_or_else(|| {
                    format!(
                        "the destination {:?} has a bad percent-encoding or an encoded `/`",
                        line.destination
                    )
                }),
            other => Ok(other),
        })
        .collect::<Result<Vec<_>, String>>()?;
    let literal: String = decoded
        .iter()
        .map(|p| match p {
            DestinationPart::Literal(text) => text.as_str(),
            _ => "",
        })
        .collect();
    if literal.split('/').any(|s| s == "." || s == "..") {
        return Err(format!(
            "a rewrite's destination {:?} cannot have `.` or `..` segments",
            line.destination
        ));
    }
    Ok(decoded)
}

/// `text` with `%XX` decoded; `None` for a bad escape, an encoded `/`, or invalid UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            let b = u8::from_str_radix(hex, 16).ok()?;
            if b == b'/' {
                return None;
            }
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Status and Location of a GET of `path` (percent-encoded as a request would be).
fn get(site: &Site<'_>, path: &str) -> (u16, String) {
    let target = encoded(path, is_path_char);
    let response = respond(site, &RequestHead::new("GET", &target));
    let location = response
        .header("location")
        .map(|l| l.to_string())
        .unwrap_or_default();
    (response.status, location)
}

/// Follows every redirect rule from its source (placeholders `p1`, `p2`..., splat `s`) through
/// the compiled routes and rules, as edgesite-core answers; a path seen twice is a loop, more
/// than [`MAX_HOPS`] a chain too long.
fn check_loops(
    lines: &[Line],
    routes: &[Route],
    rules: &[RedirectRule],
    index: &[RuleIndexNode],
) -> Result<(), LineError> {
    with_core_site(routes, rules, index, |site| {
        lines
            .iter()
            .filter(|l| l.status != Status::Rewrite)
            .try_for_each(|line| follow(site, line).map_err(|m| (line.line, m)))
    })
}

/// The path a rule's source stands for, with sample values for its captures.
fn sample_path(line: &Line) -> String {
    let mut n = 0;
    let mut path: String = line
        .pattern
        .iter()
        .map(|s| match s {
            PatternSegment::Literal(text) => format!("/{text}"),
            PatternSegment::Placeholder(_) => {
                n += 1;
                format!("/p{n}")
            }
        })
        .collect();
    if line.splat {
        path.push_str("/s");
    }
    if path.is_empty() {
        path.push('/');
    }
    path
}

/// Follows the redirects from `line`'s source until a non-redirect, another host, a loop or
/// [`MAX_HOPS`].
fn follow(site: &Site<'_>, line: &Line) -> Result<(), String> {
    let start = sample_path(line);
    let mut seen = vec![start.clone()];
    let mut path = start;
    for _ in 0..MAX_HOPS {
        let (status, location) = get(site, &path);
        if !(300..400).contains(&status) || !location.starts_with('/') || location.starts_with("//")
        {
            return Ok(()); // an answer, or another host
        }
        let mut buf = [0; MAX_PATH_LEN];
        let Ok(next) = normalize(&location, &mut buf) else {
            return Ok(());
        };
        let next = next.to_string();
        let looped = seen.contains(&next);
        seen.push(next.clone());
        if looped {
            return Err(format!(
                "redirect loop: {} (canonical URLs of the site included; placeholders shown as p1, p2, splat as s)",
                seen.join(" -> ")
            ));
        }
        path = next;
    }
    Err(format!(
        "a chain of more than {MAX_HOPS} redirects: {} -> ... -> {}",
        seen[..3].join(" -> "),
        seen[seen.len() - 1]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_routes() -> Vec<Route> {
        let file = |path: &str, i| Route {
            path: path.into(),
            target: RouteTarget::File(i),
        };
        vec![
            file("/", 0),
            file("/about", 1),
            file("/app.js", 2),
            Route {
                path: "/docs".into(),
                target: crate::routes::tests_support::canonical("/docs/"),
            },
            file("/docs/", 3),
            file("/docs/intro", 4),
        ]
    }

    fn apply_with(text: &str, pages_limits: bool) -> Result<(Vec<Route>, Applied), String> {
        let mut routes = file_routes();
        apply(
            text,
            Path::new("public/_redirects"),
            &mut routes,
            pages_limits,
        )
        .map(|applied| (routes, applied))
        .map_err(|e| e.to_string())
    }

    fn apply_text(text: &str) -> Result<(Vec<Route>, Applied), String> {
        apply_with(text, false)
    }

    fn target<'r>(routes: &'r [Route], path: &str) -> Option<&'r RouteTarget> {
        routes.iter().find(|r| r.path == path).map(|r| &r.target)
    }

    fn redirect(status: u16, location: &str, query_at: Option<usize>) -> RouteTarget {
        RouteTarget::Redirect {
            status: RedirectStatus::from_code(status).unwrap(),
            location: location.into(),
            query_at,
        }
    }

    #[test]
    fn fixed_rules_become_routes_with_their_status_and_query_position() {
        let (routes, applied) = apply_text(
            "# comment\n\n/home / 301\n/old-about /about\n/q /search?x=1 308\n/frag /docs/#top 307\n/caf%C3%A9 https://example.com/caf\u{e9} 303\n/about /docs/ 301\n/start /docs/intro 200\n",
        )
        .unwrap();
        assert!(applied.rules.is_empty());
        assert_eq!(target(&routes, "/home"), Some(&redirect(301, "/", Some(1))));
        // The default status is 302 (Cloudflare's).
        assert_eq!(
            target(&routes, "/old-about"),
            Some(&redirect(302, "/about", Some(6)))
        );
        // A destination with a query keeps its own; the request's goes before a fragment.
        assert_eq!(
            target(&routes, "/q"),
            Some(&redirect(308, "/search?x=1", None))
        );
        assert_eq!(
            target(&routes, "/frag"),
            Some(&redirect(307, "/docs/#top", Some(6)))
        );
        // Sources are decoded like request paths; destinations are encoded for Location.
        assert_eq!(
            target(&routes, "/caf\u{e9}"),
            Some(&redirect(303, "https://example.com/caf%C3%A9", Some(29)))
        );
        // A redirect wins over the file at its source, with a warning.
        assert_eq!(
            target(&routes, "/about"),
            Some(&redirect(301, "/docs/", Some(6)))
        );
        assert!(
            applied.warnings[0].contains("_redirects:8: the redirect from /about hides the file"),
            "{:?}",
            applied.warnings
        );
        // A fixed rewrite serves the destination's file at the source.
        assert_eq!(target(&routes, "/start"), Some(&RouteTarget::File(4)));
    }

    #[test]
    fn dynamic_rules_are_kept_for_run_time_and_resolved_where_a_route_matches() {
        let (routes, applied) = apply_text(
            "/docs/:page/* https://new.example/:page?from=:splat 301\n/blog/:year/:slug /posts/:year-:slug#c\n/docs/* /docs/intro 200\n/app/* /:splat 200\n",
        )
        .unwrap();
        assert_eq!(
            applied.rules[0],
            RedirectRule {
                line: 1,
                source: "/docs/:page/*".into(),
                pattern: vec![
                    PatternSegment::Literal("docs".into()),
                    PatternSegment::Placeholder("page".into())
                ],
                splat: true,
                action: RuleAction::Redirect {
                    status: RedirectStatus::MovedPermanently,
                    destination: vec![
                        DestinationPart::Literal("https://new.example/".into()),
                        DestinationPart::Capture(0),
                        DestinationPart::Literal("?from=".into()),
                        DestinationPart::QueryCapture(1),
                    ],
                    query_at: None,
                },
            }
        );
        assert_eq!(
            applied.rules[1].action,
            RuleAction::Redirect {
                status: RedirectStatus::Found,
                destination: vec![
                    DestinationPart::Literal("/posts/".into()),
                    DestinationPart::Capture(0),
                    DestinationPart::Literal("-".into()),
                    DestinationPart::Capture(1),
                    DestinationPart::Literal("#c".into()),
                ],
                query_at: Some(4),
            }
        );
        assert_eq!(
            applied.rules[3].action,
            RuleAction::Rewrite {
                destination: vec![
                    DestinationPart::Literal("/".into()),
                    DestinationPart::Capture(0)
                ]
            }
        );
        // `/docs/intro` is a file, and the first rule matches it: the redirect wins, resolved
        // now with its captures. `/docs/` has an empty segment where :page needs one.
        assert_eq!(
            target(&routes, "/docs/intro"),
            Some(&redirect(301, "https://new.example/intro?from=", None))
        );
        assert_eq!(target(&routes, "/docs/"), Some(&RouteTarget::File(3)));
        assert!(applied.warnings[0].contains("_redirects:1: the redirect from /docs/intro hides"));
    }

    #[test]
    fn every_malformed_or_conflicting_rule_is_an_error_naming_the_line() {
        let cases = [
            ("/a\n", 1, "expected `source destination [status]`"),
            ("/a /b 301 Country=au\n", 1, "conditions such as Country="),
            ("/a /b 404\n", 1, "status \"404\" is not supported"),
            ("/a /b 30x\n", 1, "is not supported"),
            ("a /b\n", 1, "must be a path starting with `/`"),
            ("https://x.example/a /b\n", 1, "domain-level rules"),
            ("/a?x=1 /b\n", 1, "sources match the path only"),
            ("/a%2Fb /b\n", 1, "not a valid path"),
            ("/a/*/b /b\n", 1, "`*` must be the whole last segment"),
            ("/a* /b\n", 1, "`*` must be the whole last segment"),
            (
                "/blog-:year /b\n",
                1,
                "a placeholder must be a whole segment",
            ),
            ("/:a/:a /b\n", 1, "used twice"),
            ("/:1x /b\n", 1, "is not a placeholder"),
            (
                "/a b\n",
                1,
                "must be a path starting with `/` or an http(s):// URL",
            ),
            (
                "/a //evil.example/\n",
                1,
                "must be a path starting with `/` or an http(s)",
            ),
            (
                "/a/:x /b/:y\n",
                1,
                "uses :y, which the source /a/:x does not capture",
            ),
            ("/a /b/:splat\n", 1, "does not capture"),
            (
                "\n/a /b\n/a/ /c\n/a /d\n",
                4,
                "already has a rule on line 2",
            ),
            (
                "/a/* /b\n/a/:x /c\n",
                2,
                "unreachable: every path it matches is matched first by /a/* on line 1",
            ),
            ("/:x/* /b\n/a/b/c /c\n/a/:y /c\n", 3, "unreachable"),
            (
                "/y https://other.example/ 200\n",
                1,
                "proxying to other hosts is not supported",
            ),
            ("/x /nothing 200\n", 1, "is not a file of the site"),
            (
                "/x /docs 200\n",
                1,
                "is a redirect to /docs/; write that instead",
            ),
            ("/x /docs/?a 200\n", 1, "cannot have a query or fragment"),
            (
                "/app.js /about 200\n",
                1,
                "this rewrite is unreachable: /app.js is a file",
            ),
            ("/p/* /nothing 200\n", 1, "is not a file of the site"),
            (
                "/p/* /../:splat 200\n",
                1,
                "cannot have `.` or `..` segments",
            ),
            ("/a /b 301\n/b /a 301\n", 1, "redirect loop: /a -> /b -> /a"),
            (
                "/docs/ /docs 301\n",
                1,
                "redirect loop: /docs/ -> /docs -> /docs/",
            ),
            (
                "/a/* /a/:splat/x 301\n",
                1,
                "a chain of more than 16 redirects: /a/s -> /a/s/x -> /a/s/x/x -> ...",
            ),
            ("/a/* /a/:splat 301\n", 1, "redirect loop: /a/s -> /a/s"),
            (
                "/u/:id /v/:id 302\n/v/:id /u/:id 302\n",
                1,
                "redirect loop: /u/p1 -> /v/p1 -> /u/p1",
            ),
        ];
        for (text, line, needle) in cases {
            let Err(err) = apply_text(text) else {
                panic!("{text:?} was accepted")
            };
            assert!(
                err.starts_with(&format!("public/_redirects:{line}:")) && err.contains(needle),
                "{text:?}: {err}"
            );
        }
    }

    #[test]
    fn pages_limits_restore_cloudflares_caps_and_nothing_else_caps_the_rules() {
        let long = format!("/a /{}\n", "b".repeat(PAGES_MAX_LINE_CHARS));
        assert!(apply_with(&long, true)
            .unwrap_err()
            .contains("longer than 1000 characters"));
        let many: String = (0..=PAGES_MAX_DYNAMIC_RULES)
            .map(|i| format!("/d{i}/* /\n"))
            .collect();
        assert!(apply_with(&many, true)
            .unwrap_err()
            .starts_with("public/_redirects:101: more than 100 rules"));
        let fixed: String = (0..=PAGES_MAX_FIXED_RULES)
            .map(|i| format!("/f{i} /\n"))
            .collect();
        assert!(apply_with(&fixed, true)
            .unwrap_err()
            .starts_with("public/_redirects:2001: more than 2000 fixed rules"));
        // Without the compat switch: 10,000 of each, and a long line.
        let (_, applied) = apply_text(&long).unwrap();
        assert!(applied.rules.is_empty());
        let many: String = (0..10_000)
            .map(|i| format!("/d{i}/:x/* /to/:x 301\n"))
            .collect();
        let fixed: String = (0..10_000).map(|i| format!("/f{i} /\n")).collect();
        let (routes, applied) = apply_text(&format!("{many}{fixed}")).unwrap();
        assert_eq!(applied.rules.len(), 10_000);
        assert!(routes.len() >= 10_000);
        // The index holds every rule once, under its literal prefix.
        let indexed: usize = applied.index.iter().map(|n| n.rules.len()).sum();
        assert_eq!(indexed, 10_000);
    }

    #[test]
    fn reachable_rules_and_external_chains_are_not_errors() {
        // A placeholder does not match everything a splat does: both are reachable.
        apply_text("/a/:x /b 301\n/a/* /c 301\n").unwrap();
        // A literal after a placeholder in the earlier rule: the later one matches more.
        apply_text("/a/:x/b /c 301\n/a/:x/* /d 301\n").unwrap();
        // Redirects to other hosts end the chain; a rewrite is not followed.
        apply_text("/a https://a.example/a 301\n/* /docs/intro 200\n").unwrap();
    }
}
