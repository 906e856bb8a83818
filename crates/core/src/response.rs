//! The rendered answer: a status, header fields and a body, all borrowed or `'static`.
//!
//! Adapters copy a [`Response`] into their runtime's response type field by field; this is the
//! one place that says which fields each status carries.

/// The methods every resource allows, as sent in Allow (RFC 9110 §10.2.1).
pub const ALLOW: &str = "GET, HEAD, OPTIONS";

/// How many header fields a response can carry.
const CAPACITY: usize = 12;

/// A fixed-capacity list of header fields (lower-case names), built without allocating.
#[derive(Debug, Clone, Copy)]
pub struct HeaderList<'a> {
    fields: [(&'static str, &'a str); CAPACITY],
    len: usize,
}

impl<'a> HeaderList<'a> {
    pub(crate) const fn new() -> Self {
        HeaderList {
            fields: [("", ""); CAPACITY],
            len: 0,
        }
    }

    /// Appends a field. The capacity covers every combination `Decision::response` produces.
    pub(crate) fn push(&mut self, name: &'static str, value: &'a str) {
        debug_assert!(self.len < CAPACITY, "HeaderList capacity");
        if let Some(slot) = self.fields.get_mut(self.len) {
            *slot = (name, value);
            self.len += 1;
        }
    }

    /// The fields in the order they were added.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&'static str, &'a str)> + '_ {
        self.fields[..self.len].iter().copied()
    }

    /// The value of the first field named `name` (lower case).
    pub fn get(&self, name: &str) -> Option<&'a str> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
}

/// A rendered response.
#[derive(Debug, Clone, Copy)]
pub struct Response<'a> {
    /// The status code (RFC 9110 §15).
    pub status: u16,
    /// The header fields, names in lower case.
    pub headers: HeaderList<'a>,
    /// The content; empty for HEAD, 204 and 304.
    pub body: &'a [u8],
}

impl<'a> Response<'a> {
    /// The value of the header field `name` (lower case), if present.
    pub fn header(&self, name: &str) -> Option<&'a str> {
        self.headers.get(name)
    }
}
