//! A redirect's Location (RFC 9110 §10.2.2): a destination, the captures of the request's path
//! and the request's query, as deciding found them. Rendering writes the text from a
//! [`Location`] alone; nothing is re-derived from the request.
//!
//! A Location is written into an inline buffer of [`LOCATION_CAPACITY`] bytes, so nothing
//! allocates; deciding answers 414 (RFC 9110 §15.5.15) when it would be longer.

use crate::percent::{is_path_char, is_query_value_char, is_visible_ascii, percent_encode};
use crate::rule::Captures;
use crate::site::Part;

/// The longest Location edgesite writes (a redirect's destination with the request's query).
pub const LOCATION_CAPACITY: usize = 2048;

/// Where a redirect leads, before the request's captures and query are put in.
#[derive(Debug, Clone, Copy)]
pub enum Destination<'a> {
    /// Fixed text: a route's redirect (see [`crate::Redirect`]).
    Fixed {
        /// The Location without the request's query.
        location: &'a str,
        /// Where the request's query goes, if the destination has no query of its own.
        query_at: Option<usize>,
    },
    /// A `_redirects` rule's destination, in parts (see [`crate::Action::Redirect`]).
    Parts {
        /// The parts: literals and captures.
        parts: &'a [Part<'a>],
        /// The index of the part before which the request's query goes, if the destination
        /// has no query of its own.
        query_at: Option<usize>,
    },
}

/// Everything a redirect's Location is written from.
#[derive(Debug, Clone, Copy)]
pub struct Location<'a, 'r> {
    /// The destination.
    pub destination: Destination<'a>,
    /// The captures of the request's path (for [`Destination::Parts`]).
    pub captures: Captures<'r>,
    /// The request's query (without `?`), if it has a non-empty one.
    pub query: Option<&'r str>,
}

impl<'a> Location<'a, '_> {
    /// The text when it is the destination as it is (a fixed Location and no query to put in),
    /// so it can be sent without copying.
    pub fn as_fixed(&self) -> Option<&'a str> {
        match self.destination {
            Destination::Fixed { location, query_at }
                if query_at.is_none() || self.query.is_none() =>
            {
                Some(location)
            }
            _ => None,
        }
    }

    /// Writes the Location in pieces.
    pub fn write(&self, out: &mut dyn FnMut(&[u8])) {
        match self.destination {
            Destination::Fixed { location, query_at } => {
                match query_at.and_then(|at| Some((location.get(..at)?, location.get(at..)?))) {
                    Some((before, after)) => {
                        out(before.as_bytes());
                        self.write_query(out);
                        out(after.as_bytes());
                    }
                    None => out(location.as_bytes()),
                }
            }
            Destination::Parts { parts, query_at } => {
                for (i, part) in parts.iter().enumerate() {
                    if query_at == Some(i) {
                        self.write_query(out);
                    }
                    match *part {
                        Part::Literal(text) => out(text.as_bytes()),
                        Part::Capture(n) => percent_encode(self.captures.get(n), is_path_char, out),
                        Part::QueryCapture(n) => {
                            percent_encode(self.captures.get(n), is_query_value_char, out);
                        }
                    }
                }
                if query_at == Some(parts.len()) {
                    self.write_query(out);
                }
            }
        }
    }

    /// `?` and the query as the client sent it; only bytes a field value cannot carry are
    /// encoded (and `#`, which would end it).
    fn write_query(&self, out: &mut dyn FnMut(&[u8])) {
        if let Some(query) = self.query {
            out(b"?");
            percent_encode(query, |b| is_visible_ascii(b) && b != b'#', out);
        }
    }

    /// The length in bytes of the text [`Location::write`] writes.
    pub fn byte_len(&self) -> usize {
        let mut len = 0;
        self.write(&mut |piece| len += piece.len());
        len
    }
}

/// Whether a browser reads `location` (a Location field value, or a destination that becomes
/// one) as a reference to another host: once the URL parser has dropped leading C0 controls and
/// spaces and every tab and line break, and read `\` as `/` (WHATWG URL Standard, for http and
/// https), it starts with two slashes, a network-path reference (RFC 3986 §4.2). `/\x`,
/// `\\x` and `/<TAB>/x` all lead to host `x`, as `//x` does.
///
/// ```
/// use edgesite_core::is_network_path;
/// assert!(is_network_path(b"//evil.example"));
/// assert!(is_network_path(b"/\\evil.example"));
/// assert!(is_network_path(b" /\t/evil.example"));
/// assert!(!is_network_path(b"/docs//x"));
/// assert!(!is_network_path(b"https://example.com/"));
/// ```
pub fn is_network_path(location: &[u8]) -> bool {
    let mut slashes = 0;
    for &b in location.iter().skip_while(|&&b| b <= b' ') {
        match b {
            b'\t' | b'\n' | b'\r' => {}
            b'/' | b'\\' if slashes == 1 => return true,
            b'/' | b'\\' => slashes += 1,
            _ => return false,
        }
    }
    false
}

/// The query of a request target (`/p?a=1` → `a=1`), if it has a non-empty one.
pub(crate) fn query_of(target: &str) -> Option<&str> {
    let (_, query) = target.split_once('?')?;
    let query = query.split('#').next().unwrap_or("");
    (!query.is_empty()).then_some(query)
}

/// A written Location.
#[derive(Clone, Copy)]
pub(crate) struct LocationText {
    buf: [u8; LOCATION_CAPACITY],
    len: usize,
}

impl LocationText {
    /// Nothing written.
    pub(crate) const EMPTY: LocationText = LocationText {
        buf: [0; LOCATION_CAPACITY],
        len: 0,
    };

    /// Writes the text of `location` (which must fit: deciding checked it; what does not fit is
    /// cut), in place. A path that would start with `//` (a `_redirects` destination such as
    /// `/:splat/index.html` with an empty splat) starts with one `/`: browsers read `//x` as
    /// another host (RFC 3986 §4.2), which no path destination means.
    pub(crate) fn write(&mut self, location: &Location<'_, '_>) {
        self.len = 0;
        location.write(&mut |piece: &[u8]| {
            let end = (self.len + piece.len()).min(LOCATION_CAPACITY);
            self.buf[self.len..end].copy_from_slice(&piece[..end - self.len]);
            self.len = end;
        });
        let slashes = self.buf[..self.len]
            .iter()
            .take_while(|&&b| b == b'/')
            .count();
        if slashes > 1 {
            self.buf.copy_within(slashes - 1..self.len, 0);
            self.len -= slashes - 1;
        }
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
