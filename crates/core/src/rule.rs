//! Matching `_redirects` rules with placeholders and a splat against a path.
//!
//! Fixed rules are routes (sitegen resolved them at build time); only rules with `:name` or `*`
//! are matched here, first match in file order. [`Site::rule_index`] is a trie over the rules'
//! literal leading segments, so a path is tried only against rules whose literal prefix it has:
//! with 10,000 rules spread over prefixes, a lookup tries a handful. This is the one matcher of
//! rule sources: sitegen checks reachability, loops and chains with it too.

use crate::path::MAX_PATH_LEN;
use crate::site::{Part, Rule, Segment, Site};

/// The most captures a rule can have (placeholders and the splat); sitegen enforces it.
pub const MAX_CAPTURES: usize = 8;

/// The values a rule captured from a path: placeholders in source order, then the splat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Captures<'p> {
    values: [&'p str; MAX_CAPTURES],
    len: usize,
}

impl<'p> Captures<'p> {
    /// No captures.
    pub const fn none() -> Self {
        Captures {
            values: [""; MAX_CAPTURES],
            len: 0,
        }
    }

    fn push(&mut self, value: &'p str) -> Option<()> {
        *self.values.get_mut(self.len)? = value;
        self.len += 1;
        Some(())
    }

    /// The capture with this index (`""` past the last).
    pub fn get(&self, index: usize) -> &'p str {
        self.values[..self.len].get(index).copied().unwrap_or("")
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
        let mut captures = Captures::none();
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
            (true, rest) => captures.push(rest.unwrap_or(""))?,
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
            let Ok(k) = node.children.binary_search_by(|(s, _)| (*s).cmp(segment)) else {
                break;
            };
            let Some(child) = self.rule_index.get(node.children[k].1 as usize) else {
                break;
            };
            node = child;
            rest = tail;
        }
        best.and_then(|(i, captures)| Some((rules.get(i)?, captures)))
    }
}

/// Writes a rewrite's destination path (captures as they are: both sides are decoded paths) into
/// `buf`; `None` if it does not fit.
pub(crate) fn rewrite_path<'b>(
    destination: &[Part<'_>],
    captures: &Captures<'_>,
    buf: &'b mut [u8; MAX_PATH_LEN],
) -> Option<&'b str> {
    let mut len = 0;
    for part in destination {
        let piece = match *part {
            Part::Literal(text) => text,
            Part::Capture(n) | Part::QueryCapture(n) => captures.get(n),
        };
        buf.get_mut(len..len + piece.len())?
            .copy_from_slice(piece.as_bytes());
        len += piece.len();
    }
    core::str::from_utf8(&buf[..len]).ok()
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
            routes: &[],
            not_found: &[],
            fallback: None,
            boundary: "b",
            multipart_content_type: "multipart/byteranges; boundary=b",
            headers: &[],
            rules: &RULES,
            rule_index,
        }
    }

    /// The trie sitegen builds for `RULES`: root (rules 0, 4) → blog (1, 2) → news (3).
    static INDEX: [RuleNode<'static>; 3] = [
        RuleNode {
            children: &[("blog", 1)],
            rules: &[0, 4],
        },
        RuleNode {
            children: &[("news", 2)],
            rules: &[1, 2],
        },
        RuleNode {
            children: &[],
            rules: &[3],
        },
    ];

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
