//! `_redirects` rules with placeholders or a splat: the owned form of edgesite-core's
//! [`Rule`](edgesite_core::Rule), built once from a parsed line, written by codegen as a core
//! literal, and checked (reachability, loops, chains) with edgesite-core's own matcher over one
//! [`with_core_site`] view, so build time and run time cannot disagree.

use crate::model::{
    DestinationPart, Manifest, PatternSegment, RedirectRule, Route, RouteTarget, RuleAction,
    RuleIndexNode,
};
use edgesite_core::{
    segment_key, Action, Asset, Content, ContentCoding, Part, Redirect, Representation, Rule,
    RuleNode, Segment, Site, Target,
};

/// The trie over `rules`' literal leading segments, every rule at the node where its literal
/// prefix ends, in file order.
#[cfg(test)]
pub(crate) fn rule_index(rules: &[RedirectRule]) -> Vec<RuleIndexNode> {
    let mut nodes = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        index_rule(&mut nodes, rule, i);
    }
    nodes
}

/// How a node's children are ordered (edgesite-core searches the keys, then the segments).
fn order(child: &str, segment: &str) -> std::cmp::Ordering {
    (segment_key(child), child).cmp(&(segment_key(segment), segment))
}

/// Adds `rule`, the `i`th, to the trie `nodes` (rules are added in file order).
pub(crate) fn index_rule(nodes: &mut Vec<RuleIndexNode>, rule: &RedirectRule, i: usize) {
    if nodes.is_empty() {
        nodes.push(RuleIndexNode::default());
    }
    let mut node = 0;
    for segment in rule.literal_prefix() {
        node = match nodes[node]
            .children
            .binary_search_by(|(s, _)| order(s, segment))
        {
            Ok(k) => nodes[node].children[k].1 as usize,
            Err(k) => {
                let child = nodes.len();
                nodes[node]
                    .children
                    .insert(k, (segment.to_string(), child as u32));
                nodes.push(RuleIndexNode::default());
                child
            }
        };
    }
    nodes[node].rules.push(i as u32);
}

/// The rules already in `index` that could make `rule` unreachable: only those on the trie path
/// of its literal prefix can (a rule with a literal where `rule` has a placeholder matches
/// less), in file order.
pub(crate) fn earlier_candidates<'r>(
    rules: &'r [RedirectRule],
    index: &'r [RuleIndexNode],
    rule: &RedirectRule,
) -> impl Iterator<Item = &'r RedirectRule> {
    let mut path = vec![0usize];
    for segment in rule.literal_prefix() {
        let Some(node) = path.last().and_then(|&n| index.get(n)) else {
            break;
        };
        match node
            .children
            .binary_search_by(|(s, _)| s.as_str().cmp(segment))
        {
            Ok(k) => path.push(node.children[k].1 as usize),
            Err(_) => break,
        }
    }
    let mut earlier: Vec<usize> = path
        .into_iter()
        .filter_map(|node| index.get(node))
        .flat_map(|node| node.rules.iter().map(|&j| j as usize))
        .collect();
    earlier.sort_unstable();
    earlier.into_iter().filter_map(move |j| rules.get(j))
}

/// Every file of the check site is this one asset: the checks look at statuses and Locations.
static PLACEHOLDER_ASSET: Asset<'static> = Asset {
    deltas: &[],
    variants: &[],
    alternate: None,
    content_type: "text/plain",
    last_modified: "",
    last_modified_unix: 0,
    cache_control: "",
    fingerprint: "",
    fields: &[],
    representations: &[Representation {
        coding: ContentCoding::Identity,
        etag: "\"\"",
        content_length: "0",
        content: Content::Bytes(b""),
    }],
};

/// Calls `f` with an edgesite-core [`Site`] of these routes (every file the same placeholder
/// asset), rules and index: one view per check, not one per path.
pub(crate) fn with_core_site<T>(
    routes: &[Route],
    rules: &[RedirectRule],
    index: &[RuleIndexNode],
    f: impl FnOnce(&Site<'_>) -> T,
) -> T {
    with_core_site_of(routes, rules, index, &[], None, f)
}

/// [`with_core_site`], with file `i` the asset `assets[i]` (placeholders whose
/// `last_modified_unix` is `i` tell an answer's file: [`indexed_assets`]), and an SPA
/// fallback.
pub(crate) fn with_core_site_of<T>(
    routes: &[Route],
    rules: &[RedirectRule],
    index: &[RuleIndexNode],
    assets: &[Asset<'static>],
    fallback: Option<usize>,
    f: impl FnOnce(&Site<'_>) -> T,
) -> T {
    let segments: Vec<Vec<Segment<'_>>> = rules.iter().map(core_pattern).collect();
    let parts: Vec<Vec<Part<'_>>> = rules.iter().map(core_destination).collect();
    let core_rules: Vec<Rule<'_>> = rules
        .iter()
        .zip(&segments)
        .zip(&parts)
        .map(|((rule, pattern), destination)| core_rule(rule, pattern, destination))
        .collect();
    let children: Vec<Vec<(&str, u32)>> = index
        .iter()
        .map(|n| n.children.iter().map(|(s, c)| (s.as_str(), *c)).collect())
        .collect();
    let keys: Vec<Vec<u32>> = index.iter().map(RuleIndexNode::keys).collect();
    let core_index: Vec<RuleNode<'_>> = index
        .iter()
        .zip(children.iter().zip(&keys))
        .map(|(node, (children, keys))| RuleNode {
            keys,
            children,
            rules: &node.rules,
        })
        .collect();
    let core_routes: Vec<edgesite_core::Route<'_>> =
        routes.iter().map(|r| core_route(r, assets)).collect();
    f(&Site {
        routes: &core_routes,
        fallback: fallback.and_then(|i| assets.get(i)),
        rules: &core_rules,
        rule_index: &core_index,
        ..Site::EMPTY
    })
}

pub(crate) fn core_pattern(rule: &RedirectRule) -> Vec<Segment<'_>> {
    rule.pattern
        .iter()
        .map(|s| match s {
            PatternSegment::Literal(text) => Segment::Literal(text),
            PatternSegment::Placeholder(_) => Segment::Placeholder,
        })
        .collect()
}

pub(crate) fn core_destination(rule: &RedirectRule) -> Vec<Part<'_>> {
    let (RuleAction::Redirect { destination, .. } | RuleAction::Rewrite { destination }) =
        &rule.action;
    destination
        .iter()
        .map(|part| match part {
            DestinationPart::Literal(text) => Part::Literal(text),
            DestinationPart::Capture(n) => Part::Capture(*n),
            DestinationPart::QueryCapture(n) => Part::QueryCapture(*n),
        })
        .collect()
}

pub(crate) fn core_rule<'r>(
    rule: &RedirectRule,
    pattern: &'r [Segment<'r>],
    destination: &'r [Part<'r>],
) -> Rule<'r> {
    Rule {
        pattern,
        splat: rule.splat,
        action: match &rule.action {
            RuleAction::Redirect {
                status, query_at, ..
            } => Action::Redirect {
                status: *status,
                destination,
                query_at: *query_at,
            },
            RuleAction::Rewrite { .. } => Action::Rewrite { destination },
        },
    }
}

/// One placeholder asset per file, its index in `last_modified_unix`.
pub(crate) fn indexed_assets(files: usize) -> Vec<Asset<'static>> {
    (0..files)
        .map(|i| Asset {
            deltas: &[],
            variants: &[],
            alternate: None,
            last_modified_unix: i as u64,
            ..PLACEHOLDER_ASSET
        })
        .collect()
}

pub(crate) fn core_route<'a>(
    route: &'a Route,
    assets: &'a [Asset<'static>],
) -> edgesite_core::Route<'a> {
    edgesite_core::Route {
        path: &route.path,
        target: match &route.target {
            RouteTarget::Asset(i) => Target::Asset(assets.get(*i).unwrap_or(&PLACEHOLDER_ASSET)),
            RouteTarget::Redirect {
                status,
                location,
                query_at,
            } => Target::Redirect(Redirect {
                status: *status,
                location,
                query_at: *query_at,
            }),
        },
    }
}

impl Manifest {
    /// Calls `f` with edgesite-core's view of this site's routing: its routes (every file one
    /// empty placeholder asset), its `_redirects` rules and their index. What the build checks
    /// loops and reachability with; also what routing benchmarks run on.
    pub fn with_routing<T>(&self, f: impl FnOnce(&edgesite_core::Site<'_>) -> T) -> T {
        with_core_site(&self.routes, &self.rules, &self.rule_index, f)
    }

    /// Total bytes of all files.
    pub fn total_size(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(source: &str) -> RedirectRule {
        let segments = source.trim_start_matches('/').trim_end_matches("/*");
        let pattern = segments
            .split('/')
            .filter(|s| !s.is_empty() && *s != "*")
            .map(|s| match s.strip_prefix(':') {
                Some(name) => PatternSegment::Placeholder(name.into()),
                None => PatternSegment::Literal(s.into()),
            })
            .collect();
        RedirectRule {
            line: 0,
            source: source.into(),
            pattern,
            splat: source.ends_with('*'),
            action: RuleAction::Rewrite {
                destination: Vec::new(),
            },
        }
    }

    #[test]
    fn subsumption_is_exact() {
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
            assert!(rule(earlier).subsumes(&rule(later)), "{earlier} {later}");
        }
        for (earlier, later) in no {
            assert!(!rule(earlier).subsumes(&rule(later)), "{earlier} {later}");
        }
    }

    #[test]
    fn the_index_places_each_rule_at_the_end_of_its_literal_prefix() {
        let rules: Vec<RedirectRule> = [
            "/:lang/docs/*",
            "/blog/:y",
            "/blog/*",
            "/blog/news/:id",
            "/*",
        ]
        .into_iter()
        .map(rule)
        .collect();
        let index = rule_index(&rules);
        assert_eq!(index[0].rules, [0, 4]);
        assert_eq!(index[0].children, [("blog".to_string(), 1)]);
        assert_eq!(index[1].rules, [1, 2]);
        assert_eq!(index[2].rules, [3]);
        let index_of_three = rule_index(&rules[..3]);
        let candidates: Vec<usize> = earlier_candidates(&rules, &index_of_three, &rules[3])
            .map(|r| rules.iter().position(|x| std::ptr::eq(x, r)).unwrap())
            .collect();
        assert_eq!(candidates, [0, 1, 2]);
    }
}
