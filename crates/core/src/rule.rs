//! Matching `_redirects` rules with placeholders and a splat against a path.
//!
//! Fixed rules are routes (sitegen resolved them at build time); only rules with `:name` or `*`
//! are matched here, first match in file order. [`Site::rule_index`] is a trie over the rules'
//! literal leading segments, so a path is tried only against rules whose literal prefix it has:
//! with 10,000 rules spread over prefixes, a lookup tries a handful. This is the one matcher of
//! rule sources: sitegen checks reachability, loops and chains with it too.

use crate::site::{Part, Rule, RuleNode, Segment, Site};

/// The most captures a rule can have (placeholders and the splat); sitegen enforces it.
pub const MAX_CAPTURES: usize = 8;

/// The values a rule captured from a path: placeholders in source order, then the splat, kept
/// as spans of the path (small: a decision carries them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Captures<'p> {
    path: &'p str,
    spans: [(u16, u16); MAX_CAPTURES],
    len: u8,
}

impl<'p> Captures<'p> {
    /// No captures.
    pub const fn none() -> Self {
        Captures {
            path: "",
            spans: [(0, 0); MAX_CAPTURES],
            len: 0,
        }
    }

    /// Captures `value`, which must be a slice of `self.path`.
    fn push(&mut self, value: &'p str) -> Option<()> {
        let start = (value.as_ptr() as usize).checked_sub(self.path.as_ptr() as usize)?;
        let span = (
            u16::try_from(start).ok()?,
            u16::try_from(start + value.len()).ok()?,
        );
        *self.spans.get_mut(usize::from(self.len))? = span;
        self.len += 1;
        Some(())
    }

    /// The capture with this index (`""` past the last).
    pub fn get(&self, index: usize) -> &'p str {
        self.spans[..usize::from(self.len)]
            .get(index)
            .and_then(|&(start, end)| self.path.get(usize::from(start)..usize::from(end)))
            .unwrap_or("")
    }
}

impl Rule<'_> {
    /// The captures when `path` (normalized) matches this rule's source: a literal segment
    /// matches itself, a placeholder any non-empty segment, the splat the rest (possibly empty).
    ///
    /// ```
    /// use edgesite_core::{Action, Part, Rule, Segment};
    /// let rule = Rule {
    ///     pattern: &[Segment::Literal("blog"), Segment::Placeholder],
    ///     splat: true,
    ///     action: Action::Rewrite { destination: &[Part::Literal("/")] },
    /// };
    /// let captures = rule.captures("/blog/2024/a/b").unwrap();
    /// assert_eq!((captures.get(0), captures.get(1)), ("2024", "a/b"));
    /// assert!(rule.captures("/blog").is_none());
    /// ```
    pub fn captures<'p>(&self, path: &'p str) -> Option<Captures<'p>> {
        let mut captures = Captures {
            path,
            ..Captures::none()
        };
        let mut rest = Some(path.strip_prefix('/')?);
        for segment in self.pattern {
            let (head, tail) = split_segment(rest?);
            match segment {
                Segment::Literal(literal) if head == *literal => {}
                Segment::Placeholder if !head.is_empty() => captures.push(head)?,
                _ => return None,
            }
            rest = tail;
        }
        match (self.splat, rest) {
            // An empty splat: the empty slice at the path's end.
            (true, rest) => captures.push(rest.unwrap_or(&path[path.len()..]))?,
            (false, Some(_)) => return None,
            (false, None) => {}
        }
        Some(captures)
    }
}

/// The first segment of `rest` (a path after a `/`) and what follows its `/`, if anything.
fn split_segment(rest: &str) -> (&str, Option<&str>) {
    match rest.split_once('/') {
        Some((head, tail)) => (head, Some(tail)),
        None => (rest, None),
    }
}

impl<'a> Site<'a> {
    /// The first rule, in file order, whose source matches `path` (normalized), with its
    /// captures. Uses [`Site::rule_index`] when the site has one.
    pub fn matching_rule<'p>(&self, path: &'p str) -> Option<(&'a Rule<'a>, Captures<'p>)> {
        let rules: &'a [Rule<'a>] = self.rules;
        if self.rule_index.is_empty() {
            return rules
                .iter()
                .find_map(|rule| Some((rule, rule.captures(path)?)));
        }
        let mut best: Option<(usize, Captures<'p>)> = None;
        let mut node = self.rule_index.first()?;
        let mut rest = path.strip_prefix('/');
        loop {
            // This node's rules share the literal prefix walked so far; only an earlier rule
            // than the best one found can still win.
            for &i in node.rules {
                let i = i as usize;
                if best.as_ref().is_some_and(|(b, _)| i >= *b) {
                    break;
                }
                if let Some(captures) = rules.get(i).and_then(|r| r.captures(path)) {
                    best = Some((i, captures));
                    break;
                }
            }
            let Some((segment, tail)) = rest.map(split_segment) else {
                break;
            };
            let Some(child) = node.child(segment).and_then(|i| self.rule_index.get(i)) else {
                break;
            };
            node = child;
            rest = tail;
        }
        best.and_then(|(i, captures)| Some((rules.get(i)?, captures)))
    }
}

/// The key a [`RuleNode`] orders its children by: FNV-1a of the segment (32 bits). Sitegen
/// orders the tables by it, and a lookup compares integers until it finds the segment.
pub fn segment_key(segment: &str) -> u32 {
    segment.bytes().fold(0x811c_9dc5, |h: u32, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

impl RuleNode<'_> {
    /// The index of the node under `segment`, if there is one.
    fn child(&self, segment: &str) -> Option<usize> {
        let key = segment_key(segment);
        let first = self.keys.partition_point(|&k| k < key);
        self.keys[first..]
            .iter()
            .take_while(|&&k| k == key)
            .zip(self.children.get(first..)?)
            .find(|(_, (s, _))| *s == segment)
            .map(|(_, &(_, node))| node as usize)
    }
}

impl<'a> Site<'a> {
    /// The route for a rewrite's destination: the parts with the captures put in (as they are:
    /// both sides are decoded paths), found without writing the path out.
    pub(crate) fn route_of_parts(
        &self,
        destination: &[Part<'_>],
        captures: &Captures<'_>,
    ) -> Option<&crate::site::Route<'a>> {
        let pieces = || {
            destination.iter().map(|part| match *part {
                Part::Literal(text) => text,
                Part::Capture(n) | Part::QueryCapture(n) => captures.get(n),
            })
        };
        let key = || pieces().flat_map(str::bytes);
        self.routes
            .binary_search_by(|route| route.path.bytes().cmp(key()))
            .ok()
            .map(|i| &self.routes[i])
    }
}

#[cfg(test)]
mod tests {
    use crate::site::{Action, Part, Rule, RuleNode, Segment, Site};
    use proptest::prelude::*;
    use std::vec::Vec;

    const TO_ROOT: Action<'static> = Action::Rewrite {
        destination: &[Part::Literal("/")],
    };

    /// `/:lang/docs/*`, `/blog/:year`, `/blog/*`, `/blog/news/:id`, `/*`
    static RULES: [Rule<'static>; 5] = [
        Rule {
            pattern: &[Segment::Placeholder, Segment::Literal("docs")],
            splat: true,
            action: TO_ROOT,
        },
        Rule {
            pattern: &[Segment::Literal("blog"), Segment::Placeholder],
            splat: false,
            action: TO_ROOT,
        },
        Rule {
            pattern: &[Segment::Literal("blog")],
            splat: true,
            action: TO_ROOT,
        },
        Rule {
            pattern: &[
                Segment::Literal("blog"),
                Segment::Literal("news"),
                Segment::Placeholder,
            ],
            splat: false,
            action: TO_ROOT,
        },
        Rule {
            pattern: &[],
            splat: true,
            action: TO_ROOT,
        },
    ];

    fn site(rule_index: &'static [RuleNode<'static>]) -> Site<'static> {
        Site {
            rules: &RULES,
            rule_index,
            ..Site::EMPTY
        }
    }

    /// The trie sitegen builds for `RULES`: root (rules 0, 4) → blog (1, 2) → news (3).
    static INDEX: [RuleNode<'static>; 3] = [
        RuleNode {
            keys: &[0x60bc_abf1],
            children: &[("blog", 1)],
            rules: &[0, 4],
        },
        RuleNode {
            keys: &[0x4bc7_bc46],
            children: &[("news", 2)],
            rules: &[1, 2],
        },
        RuleNode {
            keys: &[],
            children: &[],
            rules: &[3],
        },
    ];

    #[test]
    fn the_index_keys_are_fnv_1a_of_the_segments() {
        // The keys written above by hand, as sitegen writes them.
        assert_eq!(super::segment_key("blog"), 0x60bc_abf1);
        assert_eq!(super::segment_key("news"), 0x4bc7_bc46);
        assert_eq!(super::segment_key(""), 0x811c_9dc5);
    }

    fn first_match(site: &Site<'_>, path: &str) -> Option<usize> {
        let (rule, _) = site.matching_rule(path)?;
        RULES.iter().position(|r| core::ptr::eq(r, rule))
    }

    #[test]
    fn the_index_finds_the_first_rule_in_file_order() {
        let indexed = site(&INDEX);
        assert_eq!(first_match(&indexed, "/en/docs/a"), Some(0));
        assert_eq!(first_match(&indexed, "/blog/2024"), Some(1));
        assert_eq!(
            first_match(&indexed, "/blog/news/7"),
            Some(2),
            "/blog/* comes first"
        );
        assert_eq!(first_match(&indexed, "/blog/news/7/x"), Some(2));
        assert_eq!(first_match(&indexed, "/blog"), Some(2));
        assert_eq!(first_match(&indexed, "/other"), Some(4));
        assert_eq!(first_match(&indexed, "/"), Some(4));
    }

    proptest! {
        /// The index changes nothing but speed: for any path, the indexed lookup and the
        /// linear scan pick the same rule with the same captures.
        #[test]
        fn the_index_agrees_with_a_linear_scan(
            segments in proptest::collection::vec("(blog|news|docs|en|x|)", 0..5),
            trailing in proptest::bool::ANY,
        ) {
            let mut path: std::string::String = segments.iter().map(|s| std::format!("/{s}")).collect();
            if path.is_empty() || trailing {
                path.push('/');
            }
            let (indexed, linear) = (site(&INDEX), site(&[]));
            let a = indexed.matching_rule(&path).map(|(r, c)| (r as *const Rule<'_>, (0..3).map(|i| c.get(i)).collect::<Vec<_>>()));
            let b = linear.matching_rule(&path).map(|(r, c)| (r as *const Rule<'_>, (0..3).map(|i| c.get(i)).collect::<Vec<_>>()));
            prop_assert_eq!(a, b, "{}", path);
        }
    }
}
