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

/// If-Match (RFC 9110 §13.1.1): the **strong** comparison; `*` holds for any current
/// representation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IfMatch;

impl IfMatch {
    /// Whether the precondition passes for the current representation's `etag`, validating and
    /// comparing in one pass over the field value: `Some(true)` when it is `*` or lists a tag
    /// strongly equal to `etag`, `Some(false)` otherwise (412), `None` when the value is
    /// malformed or an empty list (the field is ignored).
    ///
    /// ```
    /// use edgesite_core::IfMatch;
    /// assert_eq!(IfMatch::evaluate(b"\"a\", \"x\"", "\"x\""), Some(true));
    /// assert_eq!(IfMatch::evaluate(b"W/\"x\"", "\"x\""), Some(false));
    /// assert_eq!(IfMatch::evaluate(b"unquoted", "\"x\""), None);
    /// ```
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
pub struct IfNoneMatch;

impl IfNoneMatch {
    /// Whether the precondition passes for the current representation's `etag`, in one pass:
    /// `Some(false)` when the value is `*` or lists a tag weakly equal to `etag` (GET and HEAD
    /// then get 304), `Some(true)` otherwise, `None` when malformed or empty (ignored).
    ///
    /// ```
    /// use edgesite_core::IfNoneMatch;
    /// assert_eq!(IfNoneMatch::evaluate(b"\"a\", W/\"x\"", "\"x\""), Some(false));
    /// assert_eq!(IfNoneMatch::evaluate(b"*", "\"x\""), Some(false));
    /// assert_eq!(IfNoneMatch::evaluate(b"\"y\"", "\"x\""), Some(true));
    /// ```
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

    /// The reference the one-pass evaluation is checked against: parse the whole list first
    /// (`None` when malformed or empty), then compare.
    fn parse(value: &[u8]) -> Option<Vec<&[u8]>> {
        if trim(value) == b"*" {
            return Some(std::vec![&b"*"[..]]);
        }
        let tags: Option<Vec<&[u8]>> = EntityTags(value).collect();
        tags.filter(|t| !t.is_empty())
    }

    fn listed(list: &[&[u8]], etag: &str, eq: fn(&[u8], &[u8]) -> bool) -> bool {
        list == [b"*"] || list.iter().any(|t| eq(t, etag.as_bytes()))
    }

    proptest! {
        /// The one-pass evaluation agrees with parsing then comparing.
        #[test]
        fn evaluate_is_parse_then_compare(value in "[ ,*W/\"a-c]{0,24}", etag in "(W/)?\"[a-c]{0,2}\"") {
            let parsed = parse(value.as_bytes());
            prop_assert_eq!(
                IfMatch::evaluate(value.as_bytes(), &etag),
                parsed.as_ref().map(|l| listed(l, &etag, strong_eq))
            );
            prop_assert_eq!(
                IfNoneMatch::evaluate(value.as_bytes(), &etag),
                parsed.as_ref().map(|l| !listed(l, &etag, weak_eq))
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
            assert_eq!(IfMatch::evaluate(bad.as_bytes(), "\"a\""), None, "{bad:?}");
            assert_eq!(
                IfNoneMatch::evaluate(bad.as_bytes(), "\"a\""),
                None,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn if_none_match_star_matches_any_representation() {
        assert_eq!(IfNoneMatch::evaluate(b" * ", "\"x\""), Some(false));
    }

    #[test]
    fn if_none_match_fails_when_any_listed_tag_weakly_matches() {
        assert_eq!(
            IfNoneMatch::evaluate(b"\"a\", W/\"x\"", "\"x\""),
            Some(false)
        );
        assert_eq!(
            IfNoneMatch::evaluate(b"\"a\", W/\"x\"", "\"y\""),
            Some(true)
        );
    }

    #[test]
    fn if_match_uses_the_strong_comparison() {
        // RFC 9110 §13.1.1: a weak tag in If-Match never matches.
        assert_eq!(IfMatch::evaluate(b"\"a\", \"x\"", "\"x\""), Some(true));
        assert_eq!(IfMatch::evaluate(b"W/\"x\"", "\"x\""), Some(false));
        assert_eq!(IfMatch::evaluate(b"*", "\"x\""), Some(true));
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
            let _ = IfNoneMatch::evaluate(&value, "\"x\"");
            let _ = IfMatch::evaluate(&value, "\"x\"");
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
            prop_assert_eq!(IfNoneMatch::evaluate(value.as_bytes(), "\"cur\""), Some(false));
        }
    }
}
