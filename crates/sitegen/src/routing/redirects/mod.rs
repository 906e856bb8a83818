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

mod check;
mod compile;
mod parse;

use crate::error::Error;
use crate::model::{RedirectRule, RuleIndexNode};
use crate::model::{Route, RouteTarget};
use crate::warning::Warning;
use compile::RuleSet;
use parse::{parse, LineError};
use std::collections::BTreeMap;
use std::path::Path;

/// The result of applying `_redirects` to the route table.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    /// The rules matched at run time.
    pub(crate) rules: Vec<RedirectRule>,
    /// Their index by literal leading segments.
    pub(crate) index: Vec<RuleIndexNode>,
    /// Things worth a look (a redirect hiding a file).
    pub(crate) warnings: Vec<Warning>,
}

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
    let mut set = RuleSet::new(files);
    for line in &lines {
        set.add(line, path).map_err(error)?;
    }
    set.resolve_dynamic_redirects(path);
    *routes = std::mem::take(&mut set.table)
        .into_iter()
        .map(|(path, target)| Route { path, target })
        .collect();
    check::check_loops(&lines, routes, &set.rules, &set.index).map_err(error)?;
    Ok(Applied {
        rules: set.rules,
        index: set.index,
        warnings: set.warnings,
    })
}

/// For fuzzing (`crate::fuzzing`): parses `text` as `_redirects` and checks that an error
/// names a line of the text, without control characters, at a bounded length, and that no
/// accepted redirect leads to another host by a path a browser reads as one (`//`, `/\`) or
/// holds a control character. Panics when one does not hold.
pub(crate) fn fuzz_check(text: &str) {
    let lines = text.lines().count();
    match parse::parse(text, false) {
        Err((line, message)) => {
            assert!((1..=lines).contains(&line), "line {line} of {lines}");
            assert!(message.len() < 2000, "{} bytes", message.len());
            assert!(!message.chars().any(char::is_control), "{message:?}");
        }
        Ok(rules) => {
            for rule in rules {
                let destination = rule.destination.as_bytes();
                assert!(
                    !edgesite_core::is_network_path(destination),
                    "{}",
                    rule.destination
                );
                assert!(!rule.destination.chars().any(char::is_control));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DestinationPart, PatternSegment, RuleAction};
    use crate::warning::WarningKind;
    use edgesite_core::RedirectStatus;
    use parse::{PAGES_MAX_DYNAMIC_RULES, PAGES_MAX_FIXED_RULES, PAGES_MAX_LINE_CHARS};

    fn file_routes() -> Vec<Route> {
        let file = |path: &str, i| Route {
            path: path.into(),
            target: RouteTarget::Asset(i),
        };
        vec![
            file("/", 0),
            file("/about", 1),
            file("/app.js", 2),
            Route {
                path: "/docs".into(),
                target: crate::routing::tests_support::canonical("/docs/"),
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
        let warning = &applied.warnings[0];
        assert_eq!(
            (warning.kind, warning.line),
            (WarningKind::RedirectHidesFile, Some(8))
        );
        assert!(
            warning
                .to_string()
                .contains("_redirects:8: the redirect from /about hides the file"),
            "{warning}"
        );
        // A fixed rewrite serves the destination's file at the source.
        assert_eq!(target(&routes, "/start"), Some(&RouteTarget::Asset(4)));
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
        assert_eq!(target(&routes, "/docs/"), Some(&RouteTarget::Asset(3)));
        let warning = &applied.warnings[0];
        assert_eq!(
            (warning.kind, warning.line),
            (WarningKind::RedirectHidesFile, Some(1))
        );
        assert!(warning
            .to_string()
            .contains("_redirects:1: the redirect from /docs/intro hides"));
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
            ("/a //evil.example/\n", 1, "leads to another host"),
            // Browsers read `\` as `/` and drop tabs inside a URL (WHATWG URL): each of these
            // is `//evil.example` to them.
            ("/a /\\evil.example\n", 1, "leads to another host"),
            ("/a \\\\evil.example\n", 1, "leads to another host"),
            ("/a /\\/evil.example 301\n", 1, "leads to another host"),
            ("/a/* /\\:splat 302\n", 1, "leads to another host"),
            ("/a /\u{1}/evil.example\n", 1, "control character"),
            ("/c /\\evil 200\n", 1, "must be a path starting with `/`"),
            (
                "/a/:x /b/:y\n",
                1,
                "uses :y, which the source \"/a/:x\" does not capture",
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
                "this rewrite is unreachable: \"/app.js\" is a file",
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
