//! Entity tags, If-Match, If-None-Match and If-Range (RFC 9110 §8.8.3, §13.1.1, §13.1.2, §13.1.5).
//!
//! edgesite sends a **strong** ETag for every representation, computed at build time from the
//! SHA-256 of the exact bytes sent, so two encodings of one file never share a tag
//! (RFC 9110 §8.8.3: a strong validator changes whenever the representation data changes).
//!
//! If-None-Match uses the **weak** comparison (RFC 9110 §13.1.2: "A recipient MUST use the weak
//! comparison function when comparing entity tags for If-None-Match"), so `W/"x"` matches `"x"`.
//! This also covers intermediaries that weaken our tags when they re-encode a body. If-Match and
//! If-Range use the **strong** comparison (§13.1.1, §13.1.5): only an unchanged strong tag matches.
//!
//! # ABNF (RFC 9110 §8.8.3, §13.1.1, §13.1.2, §13.1.5)
//! ```text
//! If-Match      = "*" / #entity-tag
//! If-None-Match = "*" / #entity-tag
//! If-Range      = entity-tag / HTTP-date
//! entity-tag    = [ weak ] opaque-tag
//! weak          = %s"W/"
//! opaque-tag    = DQUOTE *etagc DQUOTE
//! etagc         = %x21 / %x23-7E / obs-text
//! ```
//! A field value that does not match this grammar is ignored, as if it were absent.

use crate::ows::{trim, trim_start};

/// A list of entity-tags or `*`, as If-Match and If-None-Match carry (RFC 9110 §13.1.1-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityTagList<'a> {
    /// `*`: any current representation.
    Any,
    /// A syntactically valid, non-empty list of entity-tags, kept as the raw field value.
    Tags(&'a [u8]),
}

impl<'a> EntityTagList<'a> {
    /// Parses a field value; `None` when it is malformed or an empty list (treated as absent).
    ///
    /// ```
    /// use edgesite_core::EntityTagList;
    /// assert_eq!(EntityTagList::parse(b" * "), Some(EntityTagList::Any));
    /// assert!(EntityTagList::parse(b"\"a,b\", W/\"c\"").is_some());
    /// assert_eq!(EntityTagList::parse(b"unquoted"), None);
    /// ```
    pub fn parse(value: &'a [u8]) -> Option<Self> {
        if trim(value) == b"*" {
            return Some(EntityTagList::Any);
        }
        let mut count = 0;
        for tag in EntityTags(value) {
            tag?;
            count += 1;
        }
        (count > 0).then_some(EntityTagList::Tags(value))
    }

    /// Whether `*` or any listed tag equals `etag` under `eq`.
    fn matches(&self, etag: &str, eq: fn(&[u8], &[u8]) -> bool) -> bool {
        match self {
            EntityTagList::Any => true,
            EntityTagList::Tags(value) => {
                EntityTags(value).flatten().any(|t| eq(t, etag.as_bytes()))
            }
        }
    }
}

/// If-Match (RFC 9110 §13.1.1): the **strong** comparison; `*` holds for any current
/// representation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IfMatch<'a>(pub EntityTagList<'a>);

impl IfMatch<'_> {
    /// True when `*`, or a listed tag is strongly equal to `etag`; false answers 412.
    pub fn precondition_passes(&self, etag: &str) -> bool {
        self.0.matches(etag, strong_eq)
    }

    /// [`EntityTagList::parse`] and [`IfMatch::precondition_passes`] in one pass over the field
    /// value: `None` when it is malformed or empty (the field is ignored).
    pub fn evaluate(value: &[u8], etag: &str) -> Option<bool> {
        evaluate(value, etag, strong_eq)
    }
}

/// One pass over an If-Match / If-None-Match value: `None` when it is malformed or an empty list,
/// else whether `*` or a listed tag equals `etag` under `eq`. Every tag is still checked, so a
/// malformed list is ignored even after a match.
fn evaluate(value: &[u8], etag: &str, eq: fn(&[u8], &[u8]) -> bool) -> Option<bool> {
    if trim(value) == b"*" {
        return Some(true);
    }
    let (mut matched, mut count) = (false, 0);
    for tag in EntityTags(value) {
        matched |= eq(tag?, etag.as_bytes());
        count += 1;
    }
    (count > 0).then_some(matched)
}

/// If-None-Match (RFC 9110 §13.1.2): the **weak** comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IfNoneMatch<'a>(pub EntityTagList<'a>);

impl IfNoneMatch<'_> {
    /// False when `*` or any listed tag weakly matches `etag` (then GET/HEAD get 304).
    pub fn precondition_passes(&self, etag: &str) -> bool {
        !self.0.matches(etag, weak_eq)
    }

    /// [`EntityTagList::parse`] and [`IfNoneMatch::precondition_passes`] in one pass over the
    /// field value: `None` when it is malformed or empty (the field is ignored).
    pub fn evaluate(value: &[u8], etag: &str) -> Option<bool> {
        evaluate(value, etag, weak_eq).map(|matched| !matched)
    }
}

/// If-Range (RFC 9110 §13.1.5): one entity-tag or one HTTP-date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IfRange<'a> {
    /// An entity-tag, compared strongly (a weak tag never matches).
    EntityTag(&'a [u8]),
    /// An HTTP-date, seconds since the epoch, which must equal Last-Modified exactly.
    Date(u64),
}

impl<'a> IfRange<'a> {
    /// Parses a field value; `None` when it is neither one entity-tag nor a valid HTTP-date.
    pub fn parse(value: &'a [u8]) -> Option<Self> {
        let value = trim(value);
        if value.starts_with(b"\"") || value.starts_with(b"W/") {
            return (entity_tag_len(value) == Some(value.len()))
                .then_some(IfRange::EntityTag(value));
        }
        crate::date::parse_http_date(value).map(IfRange::Date)
    }

    /// Whether the range request may be honoured: the validator names the current representation.
    pub fn matches(&self, etag: &str, last_modified: u64) -> bool {
        match *self {
            IfRange::EntityTag(tag) => strong_eq(tag, etag.as_bytes()),
            IfRange::Date(date) => date == last_modified,
        }
    }
}

/// The strong comparison (RFC 9110 §8.8.3.2): both tags are strong and their opaque-tags equal.
pub fn strong_eq(a: &[u8], b: &[u8]) -> bool {
    !a.starts_with(b"W/") && !b.starts_with(b"W/") && a == b
}

/// The weak comparison (RFC 9110 §8.8.3.2): the opaque-tags are equal, whether or not either is
/// marked weak.
///
/// | a      | b      | strong_eq | weak_eq |
/// |--------|--------|-----------|---------|
/// | W/"1"  | W/"1"  | false     | true    |
/// | W/"1"  | W/"2"  | false     | false   |
/// | W/"1"  | "1"    | false     | true    |
/// | "1"    | "1"    | true      | true    |
pub fn weak_eq(a: &[u8], b: &[u8]) -> bool {
    opaque_tag(a) == opaque_tag(b)
}

fn opaque_tag(tag: &[u8]) -> &[u8] {
    tag.strip_prefix(b"W/").unwrap_or(tag)
}

/// The entity-tags of a list, each `Some(tag)` or `None` where the list is malformed (after which
/// iteration stops). Empty list elements are skipped (RFC 9110 §5.6.1.2).
struct EntityTags<'a>(&'a [u8]);

impl<'a> Iterator for EntityTags<'a> {
    type Item = Option<&'a [u8]>;

    fn next(&mut self) -> Option<Self::Item> {
        let rest = skip_separators(self.0);
        if rest.is_empty() {
            return None;
        }
        let Some(len) = entity_tag_len(rest) else {
            self.0 = b"";
            return Some(None);
        };
        let (tag, after) = rest.split_at(len);
        let after = trim_start(after);
        if !(after.is_empty() || after[0] == b',') {
            self.0 = b"";
            return Some(None);
        }
        self.0 = after;
        Some(Some(tag))
    }
}

/// The length of the entity-tag at the start of `s`, if one is there.
fn entity_tag_len(s: &[u8]) -> Option<usize> {
    let start = if s.starts_with(b"W/") { 2 } else { 0 };
    if s.get(start) != Some(&b'"') {
        return None;
    }
    let body = &s[start + 1..];
    let close = body.iter().position(|&b| !is_etagc(b))?;
    (body[close] == b'"').then_some(start + 1 + close + 1)
}

fn is_etagc(b: u8) -> bool {
    b == 0x21 || (0x23..=0x7e).contains(&b) || b >= 0x80
}

fn skip_separators(s: &[u8]) -> &[u8] {
    let n = s
        .iter()
        .take_while(|&&b| matches!(b, b' ' | b'\t' | b','))
        .count();
    &s[n..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    proptest! {
        /// The one-pass evaluation agrees with parsing then comparing.
        #[test]
        fn evaluate_is_parse_then_compare(value in "[ ,*W/\"a-c]{0,24}", etag in "(W/)?\"[a-c]{0,2}\"") {
            let parsed = EntityTagList::parse(value.as_bytes());
            prop_assert_eq!(
                IfMatch::evaluate(value.as_bytes(), &etag),
                parsed.map(|l| IfMatch(l).precondition_passes(&etag))
            );
            prop_assert_eq!(
                IfNoneMatch::evaluate(value.as_bytes(), &etag),
                parsed.map(|l| IfNoneMatch(l).precondition_passes(&etag))
            );
        }
    }

    fn tags(value: &str) -> Vec<Option<&[u8]>> {
        EntityTags(value.as_bytes()).collect()
    }

    #[test]
    fn comparison_table_of_rfc_9110_8_8_3_2() {
        let rows: [(&[u8], &[u8], bool, bool); 4] = [
            (b"W/\"1\"", b"W/\"1\"", false, true),
            (b"W/\"1\"", b"W/\"2\"", false, false),
            (b"W/\"1\"", b"\"1\"", false, true),
            (b"\"1\"", b"\"1\"", true, true),
        ];
        for (a, b, strong, weak) in rows {
            assert_eq!(strong_eq(a, b), strong);
            assert_eq!(weak_eq(a, b), weak);
        }
    }

    #[test]
    fn list_with_commas_inside_quotes_and_empty_elements() {
        assert_eq!(
            tags(" , \"a,b\" ,, W/\"c\","),
            [Some(&b"\"a,b\""[..]), Some(&b"W/\"c\""[..])]
        );
    }

    #[test]
    fn malformed_lists_are_absent() {
        for bad in [
            "a",
            "\"a",
            "\"a\" b",
            "w/\"a\"",
            "\"a\"\"b\"",
            "",
            " , ",
            "\"a b\"",
            "*, \"a\"",
        ] {
            assert_eq!(EntityTagList::parse(bad.as_bytes()), None, "{bad:?}");
        }
    }

    #[test]
    fn if_none_match_star_matches_any_representation() {
        assert!(!IfNoneMatch(EntityTagList::Any).precondition_passes("\"x\""));
    }

    #[test]
    fn if_none_match_fails_when_any_listed_tag_weakly_matches() {
        let inm = IfNoneMatch(EntityTagList::parse(b"\"a\", W/\"x\"").unwrap());
        assert!(!inm.precondition_passes("\"x\""));
        assert!(inm.precondition_passes("\"y\""));
    }

    #[test]
    fn if_match_uses_the_strong_comparison() {
        // RFC 9110 §13.1.1: a weak tag in If-Match never matches.
        assert!(
            IfMatch(EntityTagList::parse(b"\"a\", \"x\"").unwrap()).precondition_passes("\"x\"")
        );
        assert!(!IfMatch(EntityTagList::parse(b"W/\"x\"").unwrap()).precondition_passes("\"x\""));
        assert!(IfMatch(EntityTagList::Any).precondition_passes("\"x\""));
    }

    #[test]
    fn if_range_is_one_strong_tag_or_an_exact_date() {
        assert!(IfRange::parse(b"\"x\"").unwrap().matches("\"x\"", 0));
        assert!(!IfRange::parse(b"W/\"x\"").unwrap().matches("\"x\"", 0));
        let date = IfRange::parse(b"Tue, 14 Nov 2023 22:13:20 GMT").unwrap();
        assert!(date.matches("\"x\"", 1_700_000_000));
        assert!(!date.matches("\"x\"", 1_700_000_001));
        assert_eq!(IfRange::parse(b"\"a\", \"b\""), None);
        assert_eq!(IfRange::parse(b"soon"), None);
    }

    proptest! {
        /// Totality: any bytes parse to Some or None without panicking.
        #[test]
        fn parse_is_total(value in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Some(list) = EntityTagList::parse(&value) {
                let _ = IfNoneMatch(list).precondition_passes("\"x\"");
                let _ = IfMatch(list).precondition_passes("\"x\"");
            }
            if let Some(if_range) = IfRange::parse(&value) {
                let _ = if_range.matches("\"x\"", 0);
            }
        }

        /// Both comparisons are symmetric, and strong equality implies weak equality.
        #[test]
        fn comparisons_are_symmetric(a in "(W/)?\"[a-c]{0,3}\"", b in "(W/)?\"[a-c]{0,3}\"") {
            let (a, b) = (a.as_bytes(), b.as_bytes());
            prop_assert_eq!(weak_eq(a, b), weak_eq(b, a));
            prop_assert_eq!(strong_eq(a, b), strong_eq(b, a));
            prop_assert!(!strong_eq(a, b) || weak_eq(a, b));
        }

        /// A list that contains the current tag, in any position and weakness, fails If-None-Match.
        #[test]
        fn a_listed_tag_always_matches(before in "(W/)?\"[a-c]{1,3}\"", weak in any::<bool>()) {
            let listed = if weak { "W/\"cur\"" } else { "\"cur\"" };
            let value = std::format!("{before}, {listed}");
            let list = EntityTagList::parse(value.as_bytes()).unwrap();
            prop_assert!(!IfNoneMatch(list).precondition_passes("\"cur\""));
        }
    }
}
