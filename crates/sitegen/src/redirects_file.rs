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
//! - Build errors naming the file and line: a malformed line, an unknown status, a bad source
//!   or destination, an undeclared placeholder, two rules for the same source, a rule that an
//!   earlier one makes unreachable, a rewrite to a path that is not a file of the site or from a
//!   path that is one, a redirect loop (followed from the rule's source, with sample values for
//!   placeholders), and more than 2,000 fixed or 100 dynamic rules or a line over 1,000
//!   characters (Cloudflare's limits, so a file works on both).

use crate::error::Error;
use crate::{Route, RouteTarget};
use edgesite_core::{
    normalize, respond, Action, Asset, ContentCoding, Part, Redirect, RedirectStatus,
    Representation, RequestHead, Rule, Segment, Site, Target, MAX_CAPTURES, MAX_PATH_LEN,
};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Cloudflare's limits on a `_redirects` file.
const MAX_FIXED_RULES: usize = 2000;
const MAX_DYNAMIC_RULES: usize = 100;
const MAX_LINE_CHARS: usize = 1000;
/// The longest redirect chain followed when looking for loops.
const MAX_HOPS: usize = 16;

/// A `_redirects` rule with placeholders or a splat, matched at run time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RedirectRule {
    /// The line of `_redirects` it comes from.
    pub line: usize,
    /// The source as written.
    pub source: String,
    /// The source's segments after its leading `/`, percent-decoded.
    pub pattern: Vec<PatternSegment>,
    /// Whether the source ends with `/*`.
    pub splat: bool,
    /// What a match does.
    pub action: RuleAction,
}

/// A segment of a rule's source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PatternSegment {
    /// Exactly this text.
    Literal(String),
    /// `:name`.
    Placeholder(String),
}

/// What a rule does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleAction {
    /// A redirect (301, 302, 303, 307, 308).
    Redirect {
        /// The status code.
        status: u16,
        /// The destination, in parts.
        destination: Vec<DestinationPart>,
        /// The part before which the request's query goes, if the destination has no query.
        query_at: Option<usize>,
    },
    /// A 200 rewrite to a path of the site.
    Rewrite {
        /// The destination path, in parts (decoded).
        destination: Vec<DestinationPart>,
    },
}

/// A piece of a rule's destination.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DestinationPart {
    /// Text as it is.
    Literal(String),
    /// A capture (placeholders in source order, then the splat) in the path.
    Capture(usize),
    /// A capture in the query.
    QueryCapture(usize),
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
    status: u16,
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
#[derive(Debug)]
pub(crate) struct Applied {
    /// The rules matched at run time.
    pub(crate) rules: Vec<RedirectRule>,
    /// Things worth a look (a redirect hiding a file).
    pub(crate) warnings: Vec<String>,
}

/// Parses `text` (the contents of `path`) and applies it to `routes`: fixed rules become
/// routes, dynamic redirects are resolved at build time for every route they match (so they
/// win over files there), the rest are returned for run time.
pub(crate) fn apply(text: &str, path: &Path, routes: &mut Vec<Route>) -> Result<Applied, Error> {
    let error = |line: usize, message: String| Error::Config {
        path: path.to_path_buf(),
        line,
        message,
    };
    let lines = parse(text).map_err(|(line, message)| error(line, message))?;
    let mut table: BTreeMap<String, RouteTarget> = routes
        .drain(..)
        .map(|route| (route.path, route.target))
        .collect();
    let files = table.clone();
    let mut warnings = Vec::new();
    let mut fixed_sources: BTreeMap<String, usize> = BTreeMap::new();
    let (mut fixed_count, mut dynamic_count) = (0, 0);
    let mut rules = Vec::new();
    for line in &lines {
        if line.is_dynamic() {
            dynamic_count += 1;
            if dynamic_count > MAX_DYNAMIC_RULES {
                return Err(error(line.line, format!("more than {MAX_DYNAMIC_RULES} rules with placeholders or a splat (Cloudflare's limit); use fewer, broader rules")));
            }
            let rule = dynamic_rule(line).map_err(|m| error(line.line, m))?;
            if let Some(earlier) = rules.iter().find(|r: &&RedirectRule| subsumes(r, &rule)) {
                return Err(error(
                    line.line,
                    format!(
                        "this rule is unreachable: every path it matches is matched first by {} on line {}",
                        earlier.source, earlier.line
                    ),
                ));
            }
            if let RuleAction::Rewrite { destination } = &rule.action {
                if destination
                    .iter()
                    .all(|p| matches!(p, DestinationPart::Literal(_)))
                {
                    rewrite_target(&files, &literal_text(destination))
                        .map_err(|m| error(line.line, m))?;
                }
            }
            rules.push(rule);
            continue;
        }
        if let Some(name) = first_placeholder(&line.destination) {
            return Err(error(
                line.line,
                format!(
                    "the destination uses :{name}, which the source {} does not capture",
                    line.source
                ),
            ));
        }
        fixed_count += 1;
        if fixed_count > MAX_FIXED_RULES {
            return Err(error(
                line.line,
                format!("more than {MAX_FIXED_RULES} fixed rules (Cloudflare's limit)"),
            ));
        }
        if let Some(first) = fixed_sources.insert(line.normalized.clone(), line.line) {
            return Err(error(
                line.line,
                format!(
                    "{} already has a rule on line {first}; the first rule would always win",
                    line.source
                ),
            ));
        }
        if line.status == 200 {
            let target = checked_rewrite(&line.destination)
                .and_then(|destination| rewrite_target(&files, &destination))
                .map_err(|m| error(line.line, m))?;
            if matches!(files.get(&line.normalized), Some(RouteTarget::File(_))) {
                return Err(error(
                    line.line,
                    format!("this rewrite is unreachable: {} is a file of the site, which is served first; remove the rule or the file", line.source),
                ));
            }
            table.insert(line.normalized.clone(), target);
        } else {
            check_destination(&line.destination).map_err(|m| error(line.line, m))?;
            let (location, query_at) = fixed_location(&line.destination);
            if let Some(RouteTarget::File(_)) = table.get(&line.normalized) {
                warnings.push(format!(
                    "{}:{}: the redirect from {} hides the file at that path",
                    path.display(),
                    line.line,
                    line.source
                ));
            }
            table.insert(
                line.normalized.clone(),
                RouteTarget::Redirect {
                    status: line.status,
                    location,
                    query_at,
                },
            );
        }
    }
    // Dynamic redirects win over files and canonical-URL redirects: resolve them now for every
    // route they match (a rewrite never replaces a route). Fixed rules were matched first.
    let paths: Vec<String> = table
        .keys()
        .filter(|p| !fixed_sources.contains_key(*p))
        .cloned()
        .collect();
    for (route_path, status, location) in redirects_of(&rules, &paths) {
        if let Some(RouteTarget::File(_)) = table.get(&route_path) {
            let rule = rules
                .iter()
                .find(|r| matches_rule(r, &route_path))
                .map_or(0, |r| r.line);
            warnings.push(format!(
                "{}:{rule}: the redirect from {route_path} hides the file at that path",
                path.display()
            ));
        }
        // The location is the rule's destination with this path's captures (encoded, so a
        // `?` or `#` in it is the destination's own).
        let before_fragment = location.find('#').unwrap_or(location.len());
        let query_at = (!location[..before_fragment].contains('?')).then_some(before_fragment);
        table.insert(
            route_path,
            RouteTarget::Redirect {
                status,
                location,
                query_at,
            },
        );
    }
    *routes = table
        .into_iter()
        .map(|(path, target)| Route { path, target })
        .collect();
    check_loops(&lines, routes, &rules).map_err(|(line, m)| error(line, m))?;
    Ok(Applied { rules, warnings })
}

fn parse(text: &str) -> Result<Vec<Line>, (usize, String)> {
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if trimmed.chars().count() > MAX_LINE_CHARS {
            return Err((
                line,
                format!("the rule is longer than {MAX_LINE_CHARS} characters (Cloudflare's limit)"),
            ));
        }
        let fields: Vec<&str> = trimmed.split_whitespace().collect();
        let (source, destination, status) = match fields[..] {
            [source, destination] => (source, destination, 302),
            [source, destination, status] => (
                source,
                destination,
                parse_status(status).map_err(|m| (line, m))?,
            ),
            _ => {
                return Err((
                    line,
                    format!(
                        "expected `source destination [status]`, found {} fields{}",
                        fields.len(),
                        if fields.len() > 3 {
                            " (conditions such as Country= are not supported; spaces in paths are written %20)"
                        } else {
                            ""
                        }
                    ),
                ))
            }
        };
        let (normalized, pattern, splat) = parse_source(source).map_err(|m| (line, m))?;
        lines.push(Line {
            line,
            source: source.to_string(),
            normalized,
            pattern,
            splat,
            status,
            destination: destination.to_string(),
        });
    }
    Ok(lines)
}

fn parse_status(text: &str) -> Result<u16, String> {
    match text.parse::<u16>() {
        Ok(status @ (200 | 301 | 302 | 303 | 307 | 308)) => Ok(status),
        _ => Err(format!(
            "status {text:?} is not supported: redirects are 301, 302, 303, 307 or 308, rewrites 200"
        )),
    }
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
            None if segment.contains(':') && segment.find(':').is_some_and(|i| i > 0) => {
                // `/blog-:year` is a literal to Cloudflare too; say so rather than guess.
                return Err(format!("in {source:?}, a placeholder must be a whole segment (`/blog/:year`, not `/blog-:year`)"));
            }
            None => pattern.push(PatternSegment::Literal(segment.to_string())),
        }
    }
    if names.len() + usize::from(splat) > MAX_CAPTURES {
        return Err(format!(
            "{source:?} has more than {MAX_CAPTURES} placeholders and splats"
        ));
    }
    Ok((normalized, pattern, splat))
}

/// The first `:name` in a destination (`https://host:8080` has none: a name starts with a
/// letter or `_`).
fn first_placeholder(destination: &str) -> Option<String> {
    destination.match_indices(':').find_map(|(i, _)| {
        let name: String = destination[i + 1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        is_name(&name).then_some(name)
    })
}

fn is_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A destination with bytes a field value cannot carry (space, controls, non-ASCII)
/// percent-encoded (RFC 3986 §2.1).
fn encode_destination(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if b.is_ascii_graphic() {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
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

/// A fixed redirect's Location and where the request's query goes into it.
fn fixed_location(destination: &str) -> (String, Option<usize>) {
    let location = encode_destination(destination);
    let before_fragment = location.find('#').unwrap_or(location.len());
    let query_at = (!location[..before_fragment].contains('?')).then_some(before_fragment);
    (location, query_at)
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

fn literal_text(parts: &[DestinationPart]) -> String {
    parts
        .iter()
        .map(|p| match p {
            DestinationPart::Literal(text) => text.as_str(),
            _ => "",
        })
        .collect()
}

/// A rule with placeholders or a splat, its destination split into literals and captures.
fn dynamic_rule(line: &Line) -> Result<RedirectRule, String> {
    let names: Vec<&str> = line
        .pattern
        .iter()
        .filter_map(|s| match s {
            PatternSegment::Placeholder(name) => Some(name.as_str()),
            PatternSegment::Literal(_) => None,
        })
        .collect();
    let capture_index = |name: &str| -> Result<usize, String> {
        if name == "splat" && line.splat {
            return Ok(names.len());
        }
        names.iter().position(|n| *n == name).ok_or_else(|| {
            format!(
                "the destination uses :{name}, which the source {} does not capture",
                line.source
            )
        })
    };
    let rewrite = line.status == 200;
    let text = if rewrite {
        check_rewrite_destination(&line.destination)?;
        line.destination.clone()
    } else {
        check_destination(&line.destination)?;
        encode_destination(&line.destination)
    };
    let mut parts = Vec::new();
    let mut literal = String::new();
    let (mut in_query, mut in_fragment) = (false, false);
    let mut query_at = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == ':' {
            let name: String = text[i + 1..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if is_name(&name) {
                let index = capture_index(&name)?;
                if !literal.is_empty() {
                    parts.push(DestinationPart::Literal(std::mem::take(&mut literal)));
                }
                parts.push(if in_query && !in_fragment {
                    DestinationPart::QueryCapture(index)
                } else {
                    DestinationPart::Capture(index)
                });
                for _ in 0..name.len() {
                    chars.next();
                }
                continue;
            }
        }
        if c == '#' && !in_fragment && !rewrite {
            in_fragment = true;
            if !literal.is_empty() {
                parts.push(DestinationPart::Literal(std::mem::take(&mut literal)));
            }
            if !in_query {
                query_at = Some(parts.len());
            }
        }
        if c == '?' && !in_fragment {
            in_query = true;
        }
        literal.push(c);
    }
    if !literal.is_empty() {
        parts.push(DestinationPart::Literal(literal));
    }
    if !in_query && !in_fragment {
        query_at = Some(parts.len());
    }
    let action = if rewrite {
        // Both sides of a rewrite are decoded paths: decode the literals.
        let mut decoded = Vec::new();
        for part in parts {
            decoded.push(match part {
                DestinationPart::Literal(text) => {
                    DestinationPart::Literal(percent_decode(&text).ok_or_else(|| {
                        format!(
                            "the destination {:?} has a bad percent-encoding or an encoded `/`",
                            line.destination
                        )
                    })?)
                }
                other => other,
            });
        }
        let literal = literal_text(&decoded);
        if literal.split('/').any(|s| s == "." || s == "..") {
            return Err(format!(
                "a rewrite's destination {:?} cannot have `.` or `..` segments",
                line.destination
            ));
        }
        RuleAction::Rewrite {
            destination: decoded,
        }
    } else {
        RuleAction::Redirect {
            status: line.status,
            destination: parts,
            query_at,
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

/// Whether every path `later` matches is matched by `earlier`.
fn subsumes(earlier: &RedirectRule, later: &RedirectRule) -> bool {
    for (i, segment) in later.pattern.iter().enumerate() {
        match earlier.pattern.get(i) {
            None => return earlier.splat,
            Some(PatternSegment::Literal(text)) => {
                if !matches!(segment, PatternSegment::Literal(t) if t == text) {
                    return false;
                }
            }
            Some(PatternSegment::Placeholder(_)) => match segment {
                PatternSegment::Literal(t) if !t.is_empty() => {}
                PatternSegment::Placeholder(_) => {}
                PatternSegment::Literal(_) => return false,
            },
        }
    }
    earlier.pattern.len() <= later.pattern.len() && (!later.splat || earlier.splat)
}

/// The paths among `paths` that `rules` alone redirect, with status and Location: computed by
/// edgesite-core itself over a site with no routes, so build time and run time agree.
fn redirects_of(rules: &[RedirectRule], paths: &[String]) -> Vec<(String, u16, String)> {
    let mut redirects = Vec::new();
    if rules.is_empty() {
        return redirects;
    }
    with_core_site(&BTreeMap::new(), rules, |site| {
        for path in paths {
            let (status, location) = get(site, path);
            if (300..400).contains(&status) {
                redirects.push((path.clone(), status, location));
            }
        }
    });
    redirects
}

fn matches_rule(rule: &RedirectRule, path: &str) -> bool {
    let mut matched = false;
    let one = [rule.clone()];
    with_core_site(&BTreeMap::new(), &one, |site| {
        matched = get(site, path).0 != 404;
    });
    matched
}

/// Status and Location of a GET of `target` (percent-encoded as needed).
fn get(site: &Site<'_>, target: &str) -> (u16, String) {
    let encoded = crate::routes::percent_encode_path(target);
    let head = RequestHead::new("GET", &encoded);
    let response = respond(site, &head);
    let location = response
        .header("location")
        .map(|l| l.to_string())
        .unwrap_or_default();
    (response.status, location)
}

static PLACEHOLDER_ASSET: Asset<'static> = Asset {
    content_type: "text/plain",
    last_modified: "",
    last_modified_unix: 0,
    cache_control: "",
    headers: &[],
    representations: &[Representation {
        coding: ContentCoding::Identity,
        etag: "\"\"",
        content_length: "0",
        body: b"",
    }],
};

fn redirect_status(status: u16) -> RedirectStatus {
    match status {
        301 => RedirectStatus::MovedPermanently,
        302 => RedirectStatus::Found,
        303 => RedirectStatus::SeeOther,
        307 => RedirectStatus::TemporaryRedirect,
        _ => RedirectStatus::PermanentRedirect,
    }
}

/// Calls `f` with an edgesite-core `Site` of these routes (every file the same placeholder
/// asset) and rules.
fn with_core_site(
    routes: &BTreeMap<String, RouteTarget>,
    rules: &[RedirectRule],
    f: impl FnOnce(&Site<'_>),
) {
    let segments: Vec<Vec<Segment<'_>>> = rules
        .iter()
        .map(|r| {
            r.pattern
                .iter()
                .map(|s| match s {
                    PatternSegment::Literal(text) => Segment::Literal(text),
                    PatternSegment::Placeholder(_) => Segment::Placeholder,
                })
                .collect()
        })
        .collect();
    let parts: Vec<Vec<Part<'_>>> = rules
        .iter()
        .map(|r| {
            let destination = match &r.action {
                RuleAction::Redirect { destination, .. } | RuleAction::Rewrite { destination } => {
                    destination
                }
            };
            destination.iter().map(core_part).collect()
        })
        .collect();
    let core_rules: Vec<Rule<'_>> = rules
        .iter()
        .zip(&segments)
        .zip(&parts)
        .map(|((r, pattern), destination)| Rule {
            pattern,
            splat: r.splat,
            action: match &r.action {
                RuleAction::Redirect {
                    status, query_at, ..
                } => Action::Redirect {
                    status: redirect_status(*status),
                    destination,
                    query_at: *query_at,
                },
                RuleAction::Rewrite { .. } => Action::Rewrite { destination },
            },
        })
        .collect();
    let core_routes: Vec<edgesite_core::Route<'_>> = routes
        .iter()
        .map(|(path, target)| edgesite_core::Route {
            path,
            target: match target {
                RouteTarget::File(_) => Target::Asset(&PLACEHOLDER_ASSET),
                RouteTarget::Redirect {
                    status,
                    location,
                    query_at,
                } => Target::Redirect(Redirect {
                    status: redirect_status(*status),
                    location,
                    query_at: *query_at,
                }),
            },
        })
        .collect();
    f(&Site {
        routes: &core_routes,
        not_found: &[],
        fallback: None,
        boundary: "b",
        multipart_content_type: "multipart/byteranges; boundary=b",
        headers: &[],
        rules: &core_rules,
    });
}

fn core_part(part: &DestinationPart) -> Part<'_> {
    match part {
        DestinationPart::Literal(text) => Part::Literal(text),
        DestinationPart::Capture(n) => Part::Capture(*n),
        DestinationPart::QueryCapture(n) => Part::QueryCapture(*n),
    }
}

/// Follows every rule from its source (placeholders `p1`, `p2`..., splat `s`) through the
/// compiled routes and rules, as edgesite-core answers; a path seen twice is a loop.
fn check_loops(
    lines: &[Line],
    routes: &[Route],
    rules: &[RedirectRule],
) -> Result<(), (usize, String)> {
    let table: BTreeMap<String, RouteTarget> = routes
        .iter()
        .map(|r| (r.path.clone(), r.target.clone()))
        .collect();
    let mut result = Ok(());
    with_core_site(&table, rules, |site| {
        for line in lines.iter().filter(|l| l.status != 200) {
            let mut n = 0;
            let mut start: String = line
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
                start.push_str("/s");
            }
            if start.is_empty() {
                start.push('/');
            }
            let mut seen = vec![start.clone()];
            let mut path = start;
            for _ in 0..MAX_HOPS {
                let (status, location) = get(site, &path);
                if !(300..400).contains(&status) {
                    break;
                }
                if !location.starts_with('/') || location.starts_with("//") {
                    break; // another host
                }
                let mut buf = [0; MAX_PATH_LEN];
                let Ok(next) = normalize(&location, &mut buf) else {
                    break;
                };
                let next = next.to_string();
                if seen.contains(&next) {
                    seen.push(next);
                    result = Err((
                        line.line,
                        format!(
                            "redirect loop: {} (canonical URLs of the site included; placeholders shown as p1, p2, splat as s)",
                            seen.join(" -> ")
                        ),
                    ));
                    return;
                }
                seen.push(next.clone());
                path = next;
            }
            if seen.len() > MAX_HOPS {
                result = Err((
                    line.line,
                    format!(
                        "a chain of more than {MAX_HOPS} redirects: {} -> ... -> {}",
                        seen[..3].join(" -> "),
                        seen[seen.len() - 1]
                    ),
                ));
                return;
            }
        }
    });
    result
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

    fn apply_text(text: &str) -> Result<(Vec<Route>, Applied), String> {
        let mut routes = file_routes();
        apply(text, Path::new("public/_redirects"), &mut routes)
            .map(|applied| (routes, applied))
            .map_err(|e| e.to_string())
    }

    fn target<'r>(routes: &'r [Route], path: &str) -> Option<&'r RouteTarget> {
        routes.iter().find(|r| r.path == path).map(|r| &r.target)
    }

    fn redirect(status: u16, location: &str, query_at: Option<usize>) -> RouteTarget {
        RouteTarget::Redirect {
            status,
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
                    status: 301,
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
                status: 302,
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
        let long = format!("/a /{}\n", "b".repeat(MAX_LINE_CHARS));
        assert!(apply_text(&long)
            .unwrap_err()
            .contains("longer than 1000 characters"));
        let many: String = (0..=MAX_DYNAMIC_RULES)
            .map(|i| format!("/d{i}/* /\n"))
            .collect();
        assert!(apply_text(&many)
            .unwrap_err()
            .starts_with("public/_redirects:101: more than 100 rules"));
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

    #[test]
    fn subsumption_is_exact() {
        let rule = |source: &str| {
            let (normalized, pattern, splat) = parse_source(source).unwrap();
            RedirectRule {
                line: 0,
                source: normalized,
                pattern,
                splat,
                action: RuleAction::Rewrite {
                    destination: Vec::new(),
                },
            }
        };
        let yes = [
            ("/*", "/a/:b"),
            ("/a/*", "/a"),
            ("/a/:x", "/a/:y"),
            ("/a/:x/*", "/a/b/c/*"),
            ("/:x", "/:y"),
        ];
        let no = [
            ("/a/:x", "/a/*"),
            ("/a/:x/b", "/a/:x/*"),
            ("/a/b/*", "/a/*"),
            ("/a/:x", "/a/:x/:y"),
            ("/b/*", "/a/*"),
        ];
        for (earlier, later) in yes {
            assert!(subsumes(&rule(earlier), &rule(later)), "{earlier} {later}");
        }
        for (earlier, later) in no {
            assert!(!subsumes(&rule(earlier), &rule(later)), "{earlier} {later}");
        }
    }
}
