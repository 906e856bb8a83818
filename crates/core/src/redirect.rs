//! Redirects at run time: matching `_redirects` rules with placeholders and a splat, and writing
//! a Location (RFC 9110 §10.2.2) from a destination, the captures and the request's query.
//!
//! Fixed redirects are routes (sitegen resolved them at build time); only rules with `:name` or
//! `*` are matched here. A Location is written into an inline buffer of [`LOCATION_CAPACITY`]
//! bytes, so nothing allocates; a longer one is answered 414 (RFC 9110 §15.5.15).

use crate::path::{canonical_path, normalize, MAX_PATH_LEN};
use crate::site::{Action, Part, Rule, Segment};

/// The most captures a rule can have (placeholders and the splat); sitegen enforces it.
pub const MAX_CAPTURES: usize = 8;

/// The longest Location edgesite writes (a redirect's destination with the request's query).
pub const LOCATION_CAPACITY: usize = 2048;

/// The values a rule captured from a path: placeholders in source order, then the splat.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Captures<'p> {
    values: [&'p str; MAX_CAPTURES],
    len: usize,
}

impl<'p> Captures<'p> {
    fn push(&mut self, value: &'p str) -> Option<()> {
        *self.values.get_mut(self.len)? = value;
        self.len += 1;
        Some(())
    }

    fn get(&self, index: usize) -> &'p str {
        self.values[..self.len].get(index).copied().unwrap_or("")
    }
}

impl Rule<'_> {
    /// The captures when `path` (normalized) matches this rule's source: a literal segment
    /// matches itself, a placeholder any non-empty segment, the splat the rest (possibly empty).
    pub(crate) fn captures<'p>(&self, path: &'p str) -> Option<Captures<'p>> {
        let mut captures = Captures {
            values: [""; MAX_CAPTURES],
            len: 0,
        };
        let mut rest = Some(path.strip_prefix('/')?);
        for segment in self.pattern {
            let (head, tail) = match rest?.split_once('/') {
                Some((head, tail)) => (head, Some(tail)),
                None => (rest?, None),
            };
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

/// Where a redirect leads.
#[derive(Debug, Clone, Copy)]
pub enum Destination<'a> {
    /// A fixed location, with where the request's query goes (see [`crate::Redirect`]).
    Fixed {
        /// The Location without the request's query.
        location: &'a str,
        /// Where the request's query goes, if the destination has none.
        query_at: Option<usize>,
    },
    /// A rule's destination, with the captures of the request's path substituted.
    Rule(&'a Rule<'a>),
}

/// The query of a request target (`/p?a=1` → `a=1`), if it has a non-empty one.
fn query_of(target: &str) -> Option<&str> {
    let (_, query) = target.split_once('?')?;
    let query = query.split('#').next().unwrap_or("");
    (!query.is_empty()).then_some(query)
}

/// Writes the Location for `destination` in pieces: `path` is the request's normalized path
/// (for a rule's captures), `target` the request target (for its query).
pub(crate) fn write_location(
    destination: &Destination<'_>,
    path: &str,
    target: &str,
    out: &mut impl FnMut(&[u8]),
) {
    let query = query_of(target);
    let write_query = |out: &mut dyn FnMut(&[u8])| {
        if let Some(query) = query {
            out(b"?");
            // The query as the client sent it; only bytes a field value cannot carry are encoded.
            encode(query, |b| b.is_ascii_graphic() && b != b'#', out);
        }
    };
    match *destination {
        Destination::Fixed { location, query_at } => {
            match query_at.and_then(|at| Some((location.get(..at)?, location.get(at..)?))) {
                Some((before, after)) => {
                    out(before.as_bytes());
                    write_query(out);
                    out(after.as_bytes());
                }
                None => out(location.as_bytes()),
            }
        }
        Destination::Rule(rule) => {
            let Action::Redirect {
                destination,
                query_at,
                ..
            } = &rule.action
            else {
                return;
            };
            let Some(captures) = rule.captures(path) else {
                return;
            };
            for (i, part) in destination.iter().enumerate() {
                if *query_at == Some(i) {
                    write_query(out);
                }
                match *part {
                    Part::Literal(text) => out(text.as_bytes()),
                    Part::Capture(n) => encode(captures.get(n), is_path_char, out),
                    Part::QueryCapture(n) => encode(captures.get(n), is_query_char, out),
                }
            }
            if *query_at == Some(destination.len()) {
                write_query(out);
            }
        }
    }
}

/// RFC 3986 §3.3 `pchar` and `/`, without `%` (a captured `%` is data, so it is encoded).
fn is_path_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&b)
}

/// RFC 3986 §3.4, less the separators of `application/x-www-form-urlencoded` (`&`, `=`, `+`),
/// so a captured value stays one parameter value.
fn is_query_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$'()*,;:@/?".contains(&b)
}

/// Writes `text` with every byte `keep` rejects as `%XX`.
fn encode(text: &str, keep: impl Fn(u8) -> bool, out: &mut dyn FnMut(&[u8])) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let bytes = text.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !keep(b) {
            out(&bytes[start..i]);
            out(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
            start = i + 1;
        }
    }
    out(&bytes[start..]);
}

/// The length of the Location [`write_location`] writes.
pub(crate) fn location_len(destination: &Destination<'_>, path: &str, target: &str) -> usize {
    let mut len = 0;
    write_location(destination, path, target, &mut |piece: &[u8]| {
        len += piece.len();
    });
    len
}

/// A written Location.
#[derive(Clone, Copy)]
pub(crate) struct LocationText {
    buf: [u8; LOCATION_CAPACITY],
    len: usize,
}

impl LocationText {
    /// The Location for `destination` as an answer to `target`, which must fit (decide checked
    /// it with [`location_len`]); what does not fit is cut.
    pub(crate) fn new(destination: &Destination<'_>, target: &str) -> Self {
        let mut text = LocationText {
            buf: [0; LOCATION_CAPACITY],
            len: 0,
        };
        let mut path_buf = [0; MAX_PATH_LEN];
        let path = match canonical_path(target) {
            Some(path) => path,
            None => normalize(target, &mut path_buf).unwrap_or("/"),
        };
        write_location(destination, path, target, &mut |piece: &[u8]| {
            let end = (text.len + piece.len()).min(LOCATION_CAPACITY);
            text.buf[text.len..end].copy_from_slice(&piece[..end - text.len]);
            text.len = end;
        });
        text
    }

    pub(crate) fn as_str(&self) -> &str {
        // Only ASCII is written: literals sitegen checked, and encoded bytes.
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl core::fmt::Debug for LocationText {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.as_str(), f)
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
