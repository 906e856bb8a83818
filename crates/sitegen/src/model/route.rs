//! Where requests lead: the route table ([`Route`]) and the `_redirects` rules matched at run
//! time ([`RedirectRule`]), with their index.

use edgesite_core::{segment_key, RedirectStatus};
use serde::{Serialize, Serializer};

/// A route: a request path and what it leads to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Route {
    /// The normalized request path.
    pub path: String,
    /// Where it leads.
    pub target: RouteTarget,
}

/// Where a route leads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RouteTarget {
    /// The asset at this index of [`Manifest::files`](super::Manifest::files).
    #[serde(rename = "file")]
    Asset(usize),
    /// A redirect: a fixed `_redirects` rule, one resolved for this path, or the canonical
    /// spelling of a URL (308).
    Redirect {
        /// The status (written as its code).
        #[serde(serialize_with = "serialize_status")]
        status: RedirectStatus,
        /// The Location, percent-encoded.
        location: String,
        /// Where the request's query goes into `location`, if the destination has no query.
        query_at: Option<usize>,
    },
}

/// Writes a redirect status as its code in `manifest.json`.
pub(crate) fn serialize_status<S: Serializer>(
    status: &RedirectStatus,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.serialize_u16(status.code())
}

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
        /// The status.
        #[serde(serialize_with = "serialize_status")]
        status: RedirectStatus,
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

/// A node of the rules' trie over literal leading segments (see
/// [`edgesite_core::Site::rule_index`]); node 0 is the root.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RuleIndexNode {
    /// The next literal segment and its node, in core's order: by [`segment_key`], then segment.
    pub children: Vec<(String, u32)>,
    /// The rules (indexes, ascending) whose literal leading segments end at this node.
    pub rules: Vec<u32>,
}

impl RuleIndexNode {
    /// The keys of the children, in their order.
    pub fn keys(&self) -> Vec<u32> {
        self.children.iter().map(|(s, _)| segment_key(s)).collect()
    }
}

impl RedirectRule {
    /// The literal segments the source starts with.
    pub(crate) fn literal_prefix(&self) -> impl Iterator<Item = &str> {
        self.pattern.iter().map_while(|segment| match segment {
            PatternSegment::Literal(text) => Some(text.as_str()),
            PatternSegment::Placeholder(_) => None,
        })
    }

    /// Whether every path `later` matches is matched by this (earlier) rule.
    pub(crate) fn subsumes(&self, later: &RedirectRule) -> bool {
        for (i, segment) in later.pattern.iter().enumerate() {
            match self.pattern.get(i) {
                None => return self.splat,
                Some(PatternSegment::Literal(text)) => {
                    if !matches!(segment, PatternSegment::Literal(t) if t == text) {
                        return false;
                    }
                }
                Some(PatternSegment::Placeholder(_)) => {
                    if matches!(segment, PatternSegment::Literal(t) if t.is_empty()) {
                        return false;
                    }
                }
            }
        }
        self.pattern.len() <= later.pattern.len() && (!later.splat || self.splat)
    }
}
