//! Range requests (RFC 9110 §14): parsing `Range: bytes=...` against a representation's length.
//!
//! # ABNF (§14.1.1, §14.2)
//! ```text
//! Range         = ranges-specifier
//! ranges-specifier = range-unit "=" range-set
//! range-set     = 1#range-spec
//! range-spec    = int-range / suffix-range / other-range
//! int-range     = first-pos "-" [ last-pos ]
//! suffix-range  = "-" suffix-length
//! ```
//!
//! What edgesite does:
//! - only the `bytes` unit (case-insensitive); another unit is ignored (full 200, §14.2);
//! - a malformed field (bad syntax, `last-pos` < `first-pos`) is **ignored**: the full 200
//!   (§14.2: a server MAY ignore Range), never a 400 or 416;
//! - unsatisfiable specs are dropped; if none is left: 416 with `Content-Range: bytes */LEN`
//!   (§15.5.17);
//! - overlapping and adjacent ranges are coalesced (§14.2 allows it); the parts keep the order
//!   in which the request named them (§14.6: SHOULD), a coalesced part taking the place of its
//!   first member;
//! - DoS guard (§14.2 "many small ranges", "more than two overlapping ranges"): more than
//!   [`MAX_RANGE_SPECS`] specs, or more than two overlaps, answer the full 200 instead.

use crate::ows::trim;

/// The most range-specs a request may list before the Range field is ignored.
pub const MAX_RANGE_SPECS: usize = 16;
/// The most overlapping ranges tolerated before the Range field is ignored.
const MAX_OVERLAPS: usize = 2;

/// An inclusive byte range `first..=last` of a representation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    /// Offset of the first byte.
    pub first: u64,
    /// Offset of the last byte (inclusive).
    pub last: u64,
}

impl ByteRange {
    /// The number of bytes in the range.
    pub fn len(&self) -> u64 {
        self.last - self.first + 1
    }

    /// Never true: a range holds at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Up to [`MAX_RANGE_SPECS`] disjoint, non-adjacent ranges, in the order the request named them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RangeSet {
    ranges: [ByteRange; MAX_RANGE_SPECS],
    len: usize,
}

impl RangeSet {
    /// The ranges, in request order.
    pub fn as_slice(&self) -> &[ByteRange] {
        &self.ranges[..self.len]
    }
}

/// What a Range field asks of a representation of `length` bytes.
// The range set makes one variant a few hundred bytes; boxing it would allocate, which the core
// never does. These values live briefly on the stack.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeRequest {
    /// Ignore it and send the whole representation (malformed, other unit, DoS guard).
    Ignore,
    /// No range overlaps the representation: 416.
    Unsatisfiable,
    /// Send these ranges: 206.
    Satisfiable(RangeSet),
}

/// Evaluates a Range field value against a representation of `length` bytes.
///
/// ```
/// use edgesite_core::{evaluate_range, ByteRange, RangeRequest};
/// let RangeRequest::Satisfiable(set) = evaluate_range(b"bytes=0-99, 50-149, -10", 1000) else { panic!() };
/// assert_eq!(set.as_slice(), [ByteRange { first: 0, last: 149 }, ByteRange { first: 990, last: 999 }]);
/// let RangeRequest::Satisfiable(set) = evaluate_range(b"bytes=-10, 0-9", 1000) else { panic!() };
/// assert_eq!(set.as_slice(), [ByteRange { first: 990, last: 999 }, ByteRange { first: 0, last: 9 }]);
/// assert_eq!(evaluate_range(b"bytes=1000-", 1000), RangeRequest::Unsatisfiable);
/// assert_eq!(evaluate_range(b"bytes=9-1", 1000), RangeRequest::Ignore);
/// ```
pub fn evaluate_range(value: &[u8], length: u64) -> RangeRequest {
    let Some(set) = strip_unit(value) else {
        return RangeRequest::Ignore;
    };
    let mut ranges = [ByteRange { first: 0, last: 0 }; MAX_RANGE_SPECS];
    let (mut specs, mut satisfiable) = (0, 0);
    for element in set.split(|&b| b == b',') {
        let element = trim(element);
        if element.is_empty() {
            continue;
        }
        specs += 1;
        if specs > MAX_RANGE_SPECS {
            return RangeRequest::Ignore;
        }
        match parse_spec(element, length) {
            Spec::Malformed => return RangeRequest::Ignore,
            Spec::Unsatisfiable => {}
            Spec::Range(range) => {
                ranges[satisfiable] = range;
                satisfiable += 1;
            }
        }
    }
    match (specs, satisfiable) {
        (0, _) => RangeRequest::Ignore,
        (_, 0) => RangeRequest::Unsatisfiable,
        _ => coalesce(ranges, satisfiable),
    }
}

/// Merges overlapping or adjacent ranges, then restores request order; too many overlaps ignore
/// the field. Each range carries its position in the request.
fn coalesce(ranges: [ByteRange; MAX_RANGE_SPECS], len: usize) -> RangeRequest {
    let mut indexed = [(ByteRange { first: 0, last: 0 }, 0usize); MAX_RANGE_SPECS];
    for (i, slot) in indexed[..len].iter_mut().enumerate() {
        *slot = (ranges[i], i);
    }
    indexed[..len].sort_unstable_by_key(|(r, _)| (r.first, r.last));
    let (mut out, mut overlaps) = (0, 0);
    for i in 0..len {
        let (next, order) = indexed[i];
        if out > 0 && next.first <= indexed[out - 1].0.last.saturating_add(1) {
            let (current, first_order) = &mut indexed[out - 1];
            if next.first <= current.last {
                overlaps += 1;
            }
            current.last = current.last.max(next.last);
            *first_order = (*first_order).min(order);
        } else {
            indexed[out] = (next, order);
            out += 1;
        }
    }
    if overlaps > MAX_OVERLAPS {
        return RangeRequest::Ignore;
    }
    indexed[..out].sort_unstable_by_key(|&(_, order)| order);
    let mut set = RangeSet {
        ranges: [ByteRange { first: 0, last: 0 }; MAX_RANGE_SPECS],
        len: out,
    };
    for (slot, (range, _)) in set.ranges.iter_mut().zip(&indexed[..out]) {
        *slot = *range;
    }
    RangeRequest::Satisfiable(set)
}

enum Spec {
    Malformed,
    Unsatisfiable,
    Range(ByteRange),
}

fn parse_spec(spec: &[u8], length: u64) -> Spec {
    let Some(dash) = spec.iter().position(|&b| b == b'-') else {
        return Spec::Malformed;
    };
    let (first, last) = (&spec[..dash], &spec[dash + 1..]);
    match (number(first), number(last)) {
        // suffix-range: the last N bytes; N = 0 is unsatisfiable (§14.1.3).
        (None, Some(n)) if first.is_empty() => match n.min(length) {
            0 => Spec::Unsatisfiable,
            n => Spec::Range(ByteRange {
                first: length - n,
                last: length - 1,
            }),
        },
        (Some(first), last_pos) if last.is_empty() || last_pos.is_some() => {
            let last = last_pos.unwrap_or(u64::MAX);
            if last < first {
                Spec::Malformed
            } else if first >= length {
                Spec::Unsatisfiable
            } else {
                Spec::Range(ByteRange {
                    first,
                    last: last.min(length - 1),
                })
            }
        }
        _ => Spec::Malformed,
    }
}

/// Strips `bytes=` (the unit is case-insensitive, §14.1), with optional whitespace around `=`.
fn strip_unit(value: &[u8]) -> Option<&[u8]> {
    let value = trim(value);
    let eq = value.iter().position(|&b| b == b'=')?;
    trim(&value[..eq])
        .eq_ignore_ascii_case(b"bytes")
        .then(|| &value[eq + 1..])
}

/// 1*DIGIT; saturates at u64::MAX (such a position is past any representation).
fn number(s: &[u8]) -> Option<u64> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0u64, |n, &d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    fn ranges(value: &str, length: u64) -> Vec<(u64, u64)> {
        match evaluate_range(value.as_bytes(), length) {
            RangeRequest::Satisfiable(set) => {
                set.as_slice().iter().map(|r| (r.first, r.last)).collect()
            }
            other => panic!("{value:?}: {other:?}"),
        }
    }

    #[test]
    fn the_three_forms_of_rfc_9110_14_1_2() {
        assert_eq!(ranges("bytes=0-499", 10_000), [(0, 499)]);
        assert_eq!(ranges("bytes=9500-", 10_000), [(9500, 9999)]);
        assert_eq!(ranges("bytes=-500", 10_000), [(9500, 9999)]);
        assert_eq!(ranges("bytes=0-0,-1", 10_000), [(0, 0), (9999, 9999)]);
    }

    #[test]
    fn last_pos_and_suffixes_are_clamped_to_the_length() {
        assert_eq!(ranges("bytes=5-999999", 10), [(5, 9)]);
        assert_eq!(ranges("bytes=-999999", 10), [(0, 9)]);
        assert_eq!(ranges("bytes=0-99999999999999999999999", 10), [(0, 9)]);
    }

    #[test]
    fn unit_and_whitespace_are_lenient() {
        assert_eq!(ranges(" Bytes = 0-1 ,  3-4 ", 10), [(0, 1), (3, 4)]);
        assert_eq!(ranges("bytes=, 0-1,,", 10), [(0, 1)]);
    }

    #[test]
    fn overlapping_and_adjacent_ranges_are_coalesced_in_request_order() {
        // RFC 9110 §14.6: parts SHOULD keep the order of the range-specs.
        assert_eq!(ranges("bytes=10-19,0-4,5-9", 100), [(0, 19)]);
        assert_eq!(ranges("bytes=50-60,0-10,55-70", 100), [(50, 70), (0, 10)]);
        assert_eq!(
            ranges("bytes=90-99,0-0,50-50", 100),
            [(90, 99), (0, 0), (50, 50)]
        );
    }

    #[test]
    fn unsatisfiable_is_416() {
        // RFC 9110 §15.5.17.
        for value in ["bytes=10-", "bytes=10-20", "bytes=-0", "bytes=10-, 20-30"] {
            assert_eq!(
                evaluate_range(value.as_bytes(), 10),
                RangeRequest::Unsatisfiable,
                "{value}"
            );
        }
        assert_eq!(evaluate_range(b"bytes=0-", 0), RangeRequest::Unsatisfiable);
        assert_eq!(ranges("bytes=10-20, 2-3", 10), [(2, 3)]);
    }

    #[test]
    fn malformed_or_foreign_units_are_ignored() {
        for value in [
            "",
            "bytes",
            "bytes=",
            "bytes=a-b",
            "bytes=5-1",
            "bytes=--1",
            "bytes=1",
            "items=0-1",
            "bytes=0-1;x",
        ] {
            assert_eq!(
                evaluate_range(value.as_bytes(), 100),
                RangeRequest::Ignore,
                "{value:?}"
            );
        }
    }

    #[test]
    fn too_many_specs_or_overlaps_are_ignored() {
        let many: Vec<_> = (0..=MAX_RANGE_SPECS)
            .map(|i| std::format!("{}-{}", i * 10, i * 10 + 1))
            .collect();
        let value = std::format!("bytes={}", many.join(","));
        assert_eq!(
            evaluate_range(value.as_bytes(), 10_000),
            RangeRequest::Ignore
        );
        assert_eq!(
            evaluate_range(b"bytes=0-9,0-9,0-9,0-9", 100),
            RangeRequest::Ignore
        );
        assert_eq!(ranges("bytes=0-9,0-9,0-9", 100), [(0, 9)]);
    }

    proptest! {
        /// Totality: any bytes and length evaluate without panicking.
        #[test]
        fn evaluate_is_total(value in proptest::collection::vec(any::<u8>(), 0..48), length in any::<u64>()) {
            let _ = evaluate_range(&value, length);
        }

        /// The coalesced set is disjoint, non-adjacent, inside the representation, covers exactly
        /// the bytes the satisfiable specs asked for, and keeps the order of first request.
        #[test]
        fn coalescing_keeps_exactly_the_requested_bytes(
            specs in proptest::collection::vec((0u64..120, 0u64..40), 1..6),
            length in 1u64..100,
        ) {
            let value = std::format!(
                "bytes={}",
                specs.iter().map(|(a, n)| std::format!("{a}-{}", a + n)).collect::<Vec<_>>().join(",")
            );
            let mut wanted = std::collections::BTreeSet::new();
            for (a, n) in &specs {
                wanted.extend((*a..=a + n).filter(|&b| b < length));
            }
            match evaluate_range(value.as_bytes(), length) {
                RangeRequest::Satisfiable(set) => {
                    let got: std::collections::BTreeSet<u64> =
                        set.as_slice().iter().flat_map(|r| r.first..=r.last).collect();
                    prop_assert_eq!(got, wanted);
                    let mut sorted = set.as_slice().to_vec();
                    sorted.sort_by_key(|r| r.first);
                    for pair in sorted.windows(2) {
                        prop_assert!(pair[0].last + 1 < pair[1].first);
                    }
                    prop_assert!(set.as_slice().iter().all(|r| r.last < length));
                    // The part holding each spec's first byte appears no later than the part of
                    // any later spec.
                    let part_of = |byte: u64| set.as_slice().iter().position(|r| r.first <= byte && byte <= r.last);
                    let firsts: Vec<usize> = specs.iter().filter(|(a, _)| *a < length).filter_map(|(a, _)| part_of(*a)).collect();
                    for (i, part) in firsts.iter().enumerate() {
                        prop_assert!(firsts[..i].iter().any(|p| p == part) || firsts[..i].iter().all(|p| p < part));
                    }
                }
                RangeRequest::Unsatisfiable => prop_assert!(wanted.is_empty()),
                RangeRequest::Ignore => {} // the overlap guard
            }
        }
    }
}
