//! Compiling the parsed rules against the site's routes: fixed rules become routes, dynamic
//! ones are kept for run time (indexed), dynamic redirects are resolved now for the routes they
//! match; what the site makes wrong (an unreachable rule, a rewrite to nothing) is an error.

use super::check::get;
use super::parse::{
    check_rewrite_destination, first_placeholder, placeholder_at, Line, LineError, Status,
};
use crate::error::{escaped, excerpt, ShowPath as _};
use crate::model::{
    DestinationPart, PatternSegment, RedirectRule, RouteTarget, RuleAction, RuleIndexNode,
};
use crate::rule::{earlier_candidates, index_rule, with_core_site};
use crate::uri::encoded;
use crate::warning::{Warning, WarningKind};
use edgesite_core::{
    is_visible_ascii, normalize, percent_decode, RedirectStatus, Site, MAX_PATH_LEN,
};
use std::collections::BTreeMap;
use std::path::Path;

/// The rules compiled so far, and the routes they make.
#[derive(Default)]
pub(super) struct RuleSet {
    /// The routes before `_redirects` (files and canonical URLs).
    files: BTreeMap<String, RouteTarget>,
    /// The routes with the fixed rules applied.
    pub(super) table: BTreeMap<String, RouteTarget>,
    /// The source of each fixed rule, with its line.
    fixed_sources: BTreeMap<String, usize>,
    pub(super) rules: Vec<RedirectRule>,
    pub(super) index: Vec<RuleIndexNode>,
    pub(super) warnings: Vec<Warning>,
}

impl RuleSet {
    /// No rule yet over `files`, the routes before `_redirects` (files and canonical URLs).
    pub(super) fn new(files: BTreeMap<String, RouteTarget>) -> RuleSet {
        RuleSet {
            table: files.clone(),
            files,
            ..RuleSet::default()
        }
    }

    /// Adds the rule of `line` (of `path`, for warnings).
    pub(super) fn add(&mut self, line: &Line, path: &Path) -> Result<(), LineError> {
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
                excerpt(&line.source)
            ));
        }
        if let Some(first) = self
            .fixed_sources
            .insert(line.normalized.clone(), line.line)
        {
            return Err(format!(
                "{} already has a rule on line {first}; the first rule would always win",
                excerpt(&line.source)
            ));
        }
        let target = match line.status {
            Status::Rewrite => self.fixed_rewrite(line)?,
            Status::Redirect(status) => {
                if let Some(RouteTarget::Asset(_)) = self.table.get(&line.normalized) {
                    let source = escaped(&line.source);
                    let message = format!("the redirect from {source} hides the file at that path");
                    self.warnings.push(hides_file(path, line.line, message));
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
        if matches!(
            self.files.get(&line.normalized),
            Some(RouteTarget::Asset(_))
        ) {
            return Err(format!("this rewrite is unreachable: {} is a file of the site, which is served first; remove the rule or the file", excerpt(&line.source)));
        }
        Ok(target)
    }

    /// Dynamic redirects win over files and canonical-URL redirects: resolve them now, through
    /// edgesite-core, for every route they match (a rewrite never replaces a route). Fixed
    /// rules were matched first.
    pub(super) fn resolve_dynamic_redirects(&mut self, path: &Path) {
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
            if let Some(RouteTarget::Asset(_)) = self.table.get(&route_path) {
                let message = format!("the redirect from {route_path} hides the file at that path");
                let line = self.rules[rule].line;
                self.warnings.push(hides_file(path, line, message));
            }
            // The Location is the rule's destination with this path's captures (encoded, so a
            // `?` or `#` in it is the destination's own).
            self.table
                .insert(route_path, fixed_redirect(status, &location));
        }
    }
}

/// A warning that the redirect on `line` of `path` (`_redirects`) hides a file.
fn hides_file(path: &Path, line: usize, message: String) -> Warning {
    let warning = Warning::new(WarningKind::RedirectHidesFile, message);
    warning.in_file(path.shown()).at_line(line)
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

/// A rewrite's destination path, normalized; it must be a path without query or fragment.
fn checked_rewrite(destination: &str) -> Result<String, String> {
    check_rewrite_destination(destination)?;
    let mut buf = [0; MAX_PATH_LEN];
    normalize(destination, &mut buf)
        .map(str::to_string)
        .map_err(|e| {
            format!(
                "the destination {} is not a valid path ({e:?})",
                excerpt(destination)
            )
        })
}

/// What a rewrite to `destination` serves: the file there (through one canonical redirect is
/// an error that names the URL to write).
fn rewrite_target(
    files: &BTreeMap<String, RouteTarget>,
    destination: &str,
) -> Result<RouteTarget, String> {
    match files.get(destination) {
        Some(target @ RouteTarget::Asset(_)) => Ok(target.clone()),
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
            let (parts, _) = destination_parts(line, &line.destination, true)?;
            RuleAction::Rewrite {
                destination: decoded_rewrite(line, parts)?,
            }
        }
        Status::Redirect(status) => {
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
            excerpt(&line.source)
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
            // Decoded as edgesite-core decodes a request path, so the two agree.
            DestinationPart::Literal(text) => {
                let mut buf = [0; MAX_PATH_LEN];
                percent_decode(&text, &mut buf)
                    .map(|decoded| DestinationPart::Literal(decoded.to_string()))
                    .map_err(|_| {
                        format!(
                            "the destination {} has a bad percent-encoding or an encoded `/`, NUL or `\\`",
                            excerpt(&line.destination)
                        )
                    })
            }
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
            "a rewrite's destination {} cannot have `.` or `..` segments",
            excerpt(&line.destination)
        ));
    }
    Ok(decoded)
}
