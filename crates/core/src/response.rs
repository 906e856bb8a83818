//! The rendered answer: a status, header fields and a body, borrowed from the site.
//!
//! Adapters copy a [`Response`] into their runtime's response type field by field; which fields
//! each status carries is [`crate::render`]'s to say. Numbers (Content-Length of a part,
//! Content-Range) are formatted on demand into a small inline buffer, so nothing allocates.

use crate::location::{Location, LocationText};
use crate::range::{ByteRange, RangeSet};
use crate::site::Representation;
use core::ops::Deref;

/// How many header fields a response can carry.
const CAPACITY: usize = 12;

/// A field value as the core knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value<'a> {
    Str(&'a str),
    Int(u64),
    /// `bytes first-last/complete` (RFC 9110 §14.4)
    ContentRange(ByteRange, u64),
    /// `bytes */complete` (RFC 9110 §14.4, for 416)
    Unsatisfied(u64),
    /// The list's own written Location.
    Location,
    /// `lookup;dur=.., negotiation;dur=.., total;dur=..` (W3C Server Timing), in nanoseconds.
    ServerTiming(u64, u64, u64),
}

/// A fixed-capacity list of header fields (lower-case names), built without allocating, followed
/// by one borrowed slice of configured fields (the resource's own, or the site's).
#[derive(Debug, Clone, Copy)]
pub struct FieldList<'a> {
    fields: [(&'static str, Value<'a>); CAPACITY],
    len: usize,
    configured: &'a [(&'a str, &'a str)],
    /// A configured field left out (its name): one the list carries a value of its own for.
    withheld: Option<&'static str>,
    /// A Location written for this response (a redirect whose destination is not fixed text).
    location: Option<LocationText>,
}

impl<'a> FieldList<'a> {
    pub(crate) const fn new() -> Self {
        FieldList {
            fields: [("", Value::Int(0)); CAPACITY],
            len: 0,
            configured: &[],
            withheld: None,
            location: None,
        }
    }

    /// Empties the list (without touching the field slots, which `len` guards, or a written
    /// Location's room, which only `push_location` makes visible again).
    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.configured = &[];
        self.withheld = None;
    }

    /// Sets the configured fields sent after the list's own: a resource's (which include the
    /// site's defaults, less what `_headers` removed) or the site's.
    pub(crate) fn set_configured(&mut self, fields: &'a [(&'a str, &'a str)]) {
        self.configured = fields;
    }

    /// Leaves the configured field `name` out: the list has pushed a value of its own for it.
    pub(crate) fn withhold(&mut self, name: &'static str) {
        self.withheld = Some(name);
    }

    fn push_value(&mut self, name: &'static str, value: Value<'a>) {
        debug_assert!(self.len < CAPACITY, "FieldList capacity");
        if let Some(slot) = self.fields.get_mut(self.len) {
            *slot = (name, value);
            self.len += 1;
        }
    }

    /// Appends a field with a string value.
    pub(crate) fn push(&mut self, name: &'static str, value: &'a str) {
        self.push_value(name, Value::Str(value));
    }

    /// Appends a field with a decimal value.
    pub(crate) fn push_int(&mut self, name: &'static str, value: u64) {
        self.push_value(name, Value::Int(value));
    }

    /// Appends `Content-Range: bytes first-last/complete`.
    pub(crate) fn push_content_range(&mut self, range: ByteRange, complete: u64) {
        self.push_value("content-range", Value::ContentRange(range, complete));
    }

    /// Appends the text of `location`, written into the list itself. Out of line: only
    /// redirects with a query or captures get here.
    #[cold]
    #[inline(never)]
    pub(crate) fn push_location(&mut self, location: &Location<'_, '_>) {
        // Written in place: the text is 2 KiB of room, not to be moved around.
        self.location
            .get_or_insert(LocationText::EMPTY)
            .write(location);
        self.push_value("location", Value::Location);
    }

    /// Appends `Server-Timing` with these durations in nanoseconds: lookup, negotiation, total.
    pub(crate) fn push_server_timing(&mut self, lookup: u64, negotiation: u64, total: u64) {
        self.push_value(
            "server-timing",
            Value::ServerTiming(lookup, negotiation, total),
        );
    }

    /// Appends `Content-Range: bytes */complete`.
    pub(crate) fn push_unsatisfied_range(&mut self, complete: u64) {
        self.push_value("content-range", Value::Unsatisfied(complete));
    }

    /// The fields in the order they were added, then the configured ones.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, FieldText<'a, '_>)> + '_ {
        let location = self.location.as_ref().map_or("", LocationText::as_str);
        let own = self.fields[..self.len]
            .iter()
            .map(move |&(name, value)| (name, FieldText::new(value, location)));
        let withheld = self.withheld;
        let configured = self
            .configured
            .iter()
            .filter(move |(name, _)| Some(*name) != withheld);
        own.chain(configured.map(|&(name, value)| (name, FieldText::new(Value::Str(value), ""))))
    }

    /// How many fields there are.
    pub fn len(&self) -> usize {
        let withheld = match self.withheld {
            Some(name) => self.configured.iter().filter(|(n, _)| *n == name).count(),
            None => 0,
        };
        self.len + self.configured.len() - withheld
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of the first field named `name` (lower case).
    pub fn get(&self, name: &str) -> Option<FieldText<'a, '_>> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
}

/// A field value's text: the site's (`'a`), the response's own (`'s`, a written Location), or
/// formatted into an inline buffer. Derefs to `str`.
#[derive(Clone, Copy)]
pub struct FieldText<'a, 's> {
    borrowed: Option<&'a str>,
    own: Option<&'s str>,
    inline: Inline,
}

impl<'a, 's> FieldText<'a, 's> {
    fn new(value: Value<'a>, location: &'s str) -> Self {
        let mut inline = Inline::default();
        let mut own = None;
        let borrowed = match value {
            Value::Str(s) => Some(s),
            Value::Location => {
                own = Some(location);
                None
            }
            Value::Int(n) => {
                inline.push_int(n);
                None
            }
            Value::ContentRange(range, complete) => {
                inline.push(b"bytes ");
                inline.push_int(range.first);
                inline.push(b"-");
                inline.push_int(range.last);
                inline.push(b"/");
                inline.push_int(complete);
                None
            }
            Value::Unsatisfied(complete) => {
                inline.push(b"bytes */");
                inline.push_int(complete);
                None
            }
            Value::ServerTiming(lookup, negotiation, total) => {
                inline.push(b"lookup;dur=");
                inline.push_millis(lookup);
                inline.push(b", negotiation;dur=");
                inline.push_millis(negotiation);
                inline.push(b", total;dur=");
                inline.push_millis(total);
                None
            }
        };
        FieldText {
            borrowed,
            own,
            inline,
        }
    }
}

impl<'a> FieldText<'a, '_> {
    /// The value when it is a string of the site (not formatted), with the site's lifetime.
    pub fn as_static(&self) -> Option<&'a str> {
        self.borrowed
    }
}

impl Deref for FieldText<'_, '_> {
    type Target = str;

    fn deref(&self) -> &str {
        match (self.borrowed, self.own) {
            (Some(s), _) | (None, Some(s)) => s,
            // Only ASCII digits and literals are written inline.
            (None, None) => core::str::from_utf8(self.inline.as_bytes()).unwrap_or(""),
        }
    }
}

impl core::fmt::Debug for FieldText<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&**self, f)
    }
}

impl PartialEq<&str> for FieldText<'_, '_> {
    fn eq(&self, other: &&str) -> bool {
        &**self == *other
    }
}

/// Room for `bytes u64-u64/u64`.
#[derive(Clone, Copy)]
struct Inline {
    buf: [u8; 72],
    len: usize,
}

impl Default for Inline {
    fn default() -> Self {
        Inline {
            buf: [0; 72],
            len: 0,
        }
    }
}

impl Inline {
    fn push(&mut self, bytes: &[u8]) {
        let end = (self.len + bytes.len()).min(self.buf.len());
        self.buf[self.len..end].copy_from_slice(&bytes[..end - self.len]);
        self.len = end;
    }

    fn push_int(&mut self, n: u64) {
        let mut digits = [0u8; 20];
        self.push(decimal(n, &mut digits));
    }

    /// `ns` as milliseconds with three decimals (microsecond resolution), e.g. `0.012`.
    fn push_millis(&mut self, ns: u64) {
        let micros = ns / 1000;
        self.push_int(micros / 1000);
        self.push(b".");
        let frac = micros % 1000;
        self.push(&[
            b'0' + (frac / 100) as u8,
            b'0' + (frac / 10 % 10) as u8,
            b'0' + (frac % 10) as u8,
        ]);
    }

    fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// `n` in decimal, written at the end of `buf`.
pub(crate) fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

/// The content of a response.
// The range set makes one variant a few hundred bytes; boxing it would allocate, which the core
// never does. These values live briefly on the stack.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy)]
pub enum Body<'a> {
    /// No content: HEAD, 204, 304, and redirects.
    Empty,
    /// Bytes in memory: a fixed text, or (part of) a representation held in memory.
    Bytes(&'a [u8]),
    /// Bytes `first..=last` (the whole representation for `None`) of a representation that is
    /// not in memory ([`crate::Content::External`], [`crate::Content::Stored`] or
    /// [`crate::Content::Decoded`]): the adapter fetches them.
    Representation {
        /// The representation.
        representation: &'a Representation<'a>,
        /// For [`crate::Content::Decoded`]: the stored representation to decode.
        source: Option<&'a Representation<'a>>,
        /// The part of it, if not all.
        range: Option<ByteRange>,
    },
    /// `multipart/byteranges` (RFC 9110 §14.6), assembled by [`Multipart::for_each_piece`].
    Multipart(Multipart<'a>),
}

impl Body<'_> {
    /// The length of the content in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Body::Empty => 0,
            Body::Bytes(bytes) => bytes.len() as u64,
            Body::Representation {
                range: Some(range), ..
            } => range.len(),
            Body::Representation { representation, .. } => representation.length(),
            Body::Multipart(multipart) => multipart.byte_len(),
        }
    }

    /// Whether there is no content.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A piece of a `multipart/byteranges` body: text edgesite wrote, or a range of the
/// representation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'p> {
    /// Boundaries and part headers.
    Text(&'p [u8]),
    /// Bytes `first..=last` of the representation.
    Range(ByteRange),
}

/// A `multipart/byteranges` body over one representation (RFC 9110 §14.6).
#[derive(Debug, Clone, Copy)]
pub struct Multipart<'a> {
    pub(crate) boundary: &'a str,
    pub(crate) content_type: &'a str,
    pub(crate) representation: &'a Representation<'a>,
    pub(crate) source: Option<&'a Representation<'a>>,
    pub(crate) ranges: RangeSet,
}

impl<'a> Multipart<'a> {
    /// The representation the ranges are of.
    pub fn representation(&self) -> &'a Representation<'a> {
        self.representation
    }

    /// For a [`crate::Content::Decoded`] representation: the stored one to decode.
    pub fn source(&self) -> Option<&'a Representation<'a>> {
        self.source
    }

    /// Calls `piece` with each piece of the body in order: for each range, `--boundary`, its
    /// Content-Type and Content-Range and a blank line (text), then the range; the body ends
    /// with `--boundary--` (text).
    pub fn for_each_piece(&self, mut piece: impl FnMut(Piece<'_>)) {
        let mut digits = [0u8; 20];
        let complete = self.representation.length();
        for (i, range) in self.ranges.as_slice().iter().enumerate() {
            for text in [
                if i == 0 { &b"--"[..] } else { b"\r\n--" },
                self.boundary.as_bytes(),
                b"\r\nContent-Type: ",
                self.content_type.as_bytes(),
                b"\r\nContent-Range: bytes ",
            ] {
                piece(Piece::Text(text));
            }
            piece(Piece::Text(decimal(range.first, &mut digits)));
            piece(Piece::Text(b"-"));
            piece(Piece::Text(decimal(range.last, &mut digits)));
            piece(Piece::Text(b"/"));
            piece(Piece::Text(decimal(complete, &mut digits)));
            piece(Piece::Text(b"\r\n\r\n"));
            piece(Piece::Range(*range));
        }
        for text in [&b"\r\n--"[..], self.boundary.as_bytes(), b"--\r\n"] {
            piece(Piece::Text(text));
        }
    }

    /// Calls `write` with each chunk of the body in order, taking the ranges from `bytes` (the
    /// representation's bytes, however the adapter got them); the chunks concatenate to the
    /// body. A range outside `bytes` is written empty.
    pub fn for_each_chunk(&self, bytes: &[u8], mut write: impl FnMut(&[u8])) {
        self.for_each_piece(|piece| match piece {
            Piece::Text(text) => write(text),
            Piece::Range(range) => {
                write(
                    bytes
                        .get(range.first as usize..=range.last as usize)
                        .unwrap_or_default(),
                );
            }
        });
    }

    /// The body's length in bytes, counted without building it.
    pub fn byte_len(&self) -> u64 {
        let mut len = 0;
        self.for_each_piece(|piece| {
            len += match piece {
                Piece::Text(text) => text.len() as u64,
                Piece::Range(range) => range.len(),
            };
        });
        len
    }
}

/// A rendered response.
#[derive(Debug, Clone, Copy)]
pub struct Response<'a> {
    /// The status code (RFC 9110 §15).
    pub status: u16,
    /// The header fields, names in lower case.
    pub fields: FieldList<'a>,
    /// The content.
    pub body: Body<'a>,
}

impl Default for Response<'_> {
    fn default() -> Self {
        Response::new()
    }
}

impl<'a> Response<'a> {
    /// An empty response (status 0, no fields, no content), to be filled by
    /// [`crate::respond_into`] or [`crate::render`].
    pub const fn new() -> Self {
        Response {
            status: 0,
            fields: FieldList::new(),
            body: Body::Empty,
        }
    }

    /// The value of the header field `name` (lower case), if present.
    pub fn field(&self, name: &str) -> Option<FieldText<'a, '_>> {
        self.fields.get(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_ranges_are_formatted_inline() {
        let mut list = FieldList::new();
        list.push_int("content-length", 0);
        list.push_content_range(
            ByteRange {
                first: 0,
                last: u64::MAX - 1,
            },
            u64::MAX,
        );
        list.push_unsatisfied_range(1234);
        let values: [FieldText<'_, '_>; 3] = [
            list.get("content-length").unwrap(),
            list.iter().nth(1).unwrap().1,
            list.iter().nth(2).unwrap().1,
        ];
        assert_eq!(&*values[0], "0");
        assert_eq!(
            &*values[1],
            "bytes 0-18446744073709551614/18446744073709551615"
        );
        assert_eq!(&*values[2], "bytes */1234");
    }
}
