//! Entity tags and If-None-Match (RFC 9110 §8.8.3, §13.1.2).
//!
//! edgesite sends a **strong** ETag for every representation, computed at build time from the
//! SHA-256 of the exact bytes sent, so two encodings of one file never share a tag
//! (RFC 9110 §8.8.3: a strong validator changes whenever the representation data changes).
//!
//! If-None-Match uses the **weak** comparison (RFC 9110 §13.1.2: "A recipient MUST use the weak
//! comparison function when comparing entity tags for If-None-Match"), so `W/"x"` matches `"x"`.
//! This also covers intermediaries that weaken our tags when they re-encode a body.
//!
//! # ABNF (RFC 9110 §8.8.3, §13.1.2)
//! ```text
//! If-None-Match = "*" / #entity-tag
//! entity-tag    = [ weak ] opaque-tag
//! weak          = %s"W/"
//! opaque-tag    = DQUOTE *etagc DQUOTE
//! etagc         = %x21 / %x23-7E / obs-text
//! ```
//! A field value that does not match this grammar is ignored, as if it were absent.

/// A parsed If-None-Match field value (RFC 9110 §13.1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IfNoneMatch<'a> {
    /// `*`: matches any current representation.
    Any,
    /// A syntactically valid, non-empty list of entity-tags, kept as the raw field value.
    Tags(&'a [u8]),
}

impl<'a> IfNoneMatch<'a> {
    /// Parses a field value; `None` when it is malformed or an empty list (treated as absent).
    ///
    /// ```
    /// use edgesite_core::IfNoneMatch;
    /// assert_eq!(IfNoneMatch::parse(b" * "), Some(IfNoneMatch::Any));
    /// assert!(IfNoneMatch::parse(b"\"a,b\", W/\"c\"").is_some());
    /// assert_eq!(IfNoneMatch::parse(b"unquoted"), None);
    /// ```
    pub fn parse(value: &'a [u8]) -> Option<Self> {
        if trim_ows(value) == b"*" {
            return Some(IfNoneMatch::Any);
        }
        let mut count = 0;
        for tag in EntityTags(value) {
            tag?;
            count += 1;
        }
        (count > 0).then_some(IfNoneMatch::Tags(value))
    }

    /// Whether the condition holds for a resource whose current representation has `etag`:
    /// false when `*` or any listed tag weakly matches (then GET/HEAD get 304, RFC 9110 §13.1.2).
    pub fn precondition_passes(&self, etag: &str) -> bool {
        match self {
            IfNoneMatch::Any => false,
            IfNoneMatch::Tags(value) => !EntityTags(value)
                .flatten()
                .any(|t| weak_eq(t, etag.as_bytes())),
        }
    }
}

/// The weak comparison (RFC 9110 §8.8.3.2): the opaque-tags are equal, whether or not either is
/// marked weak.
///
/// | a      | b      | weak_eq |
/// |--------|--------|---------|
/// | W/"1"  | W/"1"  | true    |
/// | W/"1"  | W/"2"  | false   |
/// | W/"1"  | "1"    | true    |
/// | "1"    | "1"    | true    |
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
        let after = trim_ows_start(after);
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

fn trim_ows_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| matches!(b, b' ' | b'\t')).count();
    &s[n..]
}

fn trim_ows(s: &[u8]) -> &[u8] {
    let s = trim_ows_start(s);
    let n = s
        .iter()
        .rev()
        .take_while(|&&b| matches!(b, b' ' | b'\t'))
        .count();
    &s[..s.len() - n]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    fn tags(value: &str) -> Vec<Option<&[u8]>> {
        EntityTags(value.as_bytes()).collect()
    }

    #[test]
    fn weak_comparison_table_of_rfc_9110_8_8_3_2() {
        assert!(weak_eq(b"W/\"1\"", b"W/\"1\""));
        assert!(!weak_eq(b"W/\"1\"", b"W/\"2\""));
        assert!(weak_eq(b"W/\"1\"", b"\"1\""));
        assert!(weak_eq(b"\"1\"", b"\"1\""));
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
        ] {
            assert_eq!(IfNoneMatch::parse(bad.as_bytes()), None, "{bad:?}");
        }
    }

    #[test]
    fn star_matches_any_representation() {
        assert!(!IfNoneMatch::Any.precondition_passes("\"x\""));
    }

    #[test]
    fn precondition_fails_when_any_listed_tag_weakly_matches() {
        let inm = IfNoneMatch::parse(b"\"a\", W/\"x\"").unwrap();
        assert!(!inm.precondition_passes("\"x\""));
        assert!(inm.precondition_passes("\"y\""));
    }

    proptest! {
        /// Totality: any bytes parse to Some or None without panicking.
        #[test]
        fn parse_is_total(value in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Some(inm) = IfNoneMatch::parse(&value) {
                let _ = inm.precondition_passes("\"x\"");
            }
        }

        /// The weak comparison is symmetric.
        #[test]
        fn weak_eq_is_symmetric(a in "(W/)?\"[a-c]{0,3}\"", b in "(W/)?\"[a-c]{0,3}\"") {
            prop_assert_eq!(weak_eq(a.as_bytes(), b.as_bytes()), weak_eq(b.as_bytes(), a.as_bytes()));
        }

        /// A list that contains the current tag, in any position and weakness, fails the condition.
        #[test]
        fn a_listed_tag_always_matches(before in "(W/)?\"[a-c]{1,3}\"", weak in any::<bool>()) {
            let listed = if weak { "W/\"cur\"" } else { "\"cur\"" };
            let value = std::format!("{before}, {listed}");
            prop_assert!(!IfNoneMatch::parse(value.as_bytes()).unwrap().precondition_passes("\"cur\""));
        }
    }
}
