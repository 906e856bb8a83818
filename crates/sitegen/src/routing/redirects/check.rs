//! Checking the compiled rules through edgesite-core as a request would meet them: every
//! redirect followed from its source must end, within [`MAX_HOPS`] hops.

use super::parse::{Line, LineError, Status};
use crate::model::{PatternSegment, RedirectRule, Route, RuleIndexNode};
use crate::rule::with_core_site;
use crate::uri::encoded;
use edgesite_core::{is_path_char, normalize, respond, RequestHead, Site, MAX_PATH_LEN};

/// The longest redirect chain followed when looking for loops.
const MAX_HOPS: usize = 16;

/// Status and Location of a GET of `path` (percent-encoded as a request would be).
pub(super) fn get(site: &Site<'_>, path: &str) -> (u16, String) {
    let target = encoded(path, is_path_char);
    let response = respond(site, &RequestHead::new("GET", &target));
    let location = response
        .field("location")
        .map(|l| l.to_string())
        .unwrap_or_default();
    (response.status, location)
}

/// Follows every redirect rule from its source (placeholders `p1`, `p2`..., splat `s`) through
/// the compiled routes and rules, as edgesite-core answers; a path seen twice is a loop, more
/// than [`MAX_HOPS`] a chain too long.
pub(super) fn check_loops(
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
