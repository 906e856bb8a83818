//! The request as the core sees it: borrowed slices of what the client sent.

use crate::accept::named_quality;

/// The parts of a request that decide the response. Adapters fill it from their runtime's request
/// without interpreting anything.
#[derive(Debug, Clone, Copy)]
pub struct RequestHead<'a> {
    /// The method token, case-sensitive (RFC 9110 §9.1).
    pub method: &'a str,
    /// The request target in origin form: the absolute path and optional query (RFC 9112 §3.2.1),
    /// still percent-encoded.
    pub target: &'a str,
    /// Accept-Encoding (RFC 9110 §12.5.3). On Workers, the client's own list
    /// (`request.cf.clientAcceptEncoding`), since the runtime rewrites the header.
    pub accept_encoding: Option<&'a [u8]>,
    /// If-Match (RFC 9110 §13.1.1).
    pub if_match: Option<&'a [u8]>,
    /// If-None-Match (RFC 9110 §13.1.2).
    pub if_none_match: Option<&'a [u8]>,
    /// If-Modified-Since (RFC 9110 §13.1.3).
    pub if_modified_since: Option<&'a [u8]>,
    /// If-Unmodified-Since (RFC 9110 §13.1.4).
    pub if_unmodified_since: Option<&'a [u8]>,
    /// If-Range (RFC 9110 §13.1.5).
    pub if_range: Option<&'a [u8]>,
    /// Range (RFC 9110 §14.2).
    pub range: Option<&'a [u8]>,
    /// Sec-Fetch-Mode (Fetch Metadata): `navigate` marks a page navigation.
    pub sec_fetch_mode: Option<&'a [u8]>,
    /// Accept (RFC 9110 §12.5.1): `text/html` marks a page navigation for older browsers.
    pub accept: Option<&'a [u8]>,
    /// Available-Dictionary (RFC 9842 §2.2): the SHA-256 of a dictionary the client holds, as
    /// a structured-field byte sequence (`:base64:`).
    pub available_dictionary: Option<&'a [u8]>,
    /// The Host field lines the transport counted, where it leaves RFC 9112 §3.2's check to the
    /// core (the native twin); `None` where the runtime enforces it itself (Workers).
    pub host: Option<HostFieldLines>,
}

/// How many Host field lines a request had, and whether it was HTTP/1.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostFieldLines {
    /// The number of Host field lines.
    pub count: usize,
    /// Whether the request is HTTP/1.1, which must carry Host.
    pub http_1_1: bool,
}

impl HostFieldLines {
    /// RFC 9112 §3.2: "A server MUST respond with a 400 (Bad Request) status code to any
    /// HTTP/1.1 request message that lacks a Host header field and to any request message that
    /// contains more than one Host header field line". HTTP/1.0 may omit it.
    ///
    /// ```
    /// use edgesite_core::HostFieldLines;
    /// assert!(HostFieldLines { count: 1, http_1_1: true }.are_valid());
    /// assert!(!HostFieldLines { count: 0, http_1_1: true }.are_valid());
    /// assert!(HostFieldLines { count: 0, http_1_1: false }.are_valid());
    /// assert!(!HostFieldLines { count: 2, http_1_1: false }.are_valid());
    /// ```
    pub fn are_valid(self) -> bool {
        self.count == 1 || (self.count == 0 && !self.http_1_1)
    }
}

/// Every field [`RequestHead`] reads, in lower case, for adapters to copy.
pub const REQUEST_FIELDS: [&str; 10] = [
    "accept-encoding",
    "if-match",
    "if-none-match",
    "if-modified-since",
    "if-unmodified-since",
    "if-range",
    "range",
    "sec-fetch-mode",
    "accept",
    "available-dictionary",
];

impl<'a> RequestHead<'a> {
    /// A request with this method and target and no conditional header fields.
    pub const fn new(method: &'a str, target: &'a str) -> Self {
        RequestHead {
            method,
            target,
            accept_encoding: None,
            if_match: None,
            if_none_match: None,
            if_modified_since: None,
            if_unmodified_since: None,
            if_range: None,
            range: None,
            sec_fetch_mode: None,
            accept: None,
            available_dictionary: None,
            host: None,
        }
    }

    /// Sets the field `name` (one of [`REQUEST_FIELDS`], lower case) to `value`; other names are
    /// ignored. Lets adapters fill the head from their header map in one loop.
    pub fn set_field(&mut self, name: &str, value: &'a [u8]) {
        let slot = match name {
            "accept-encoding" => &mut self.accept_encoding,
            "if-match" => &mut self.if_match,
            "if-none-match" => &mut self.if_none_match,
            "if-modified-since" => &mut self.if_modified_since,
            "if-unmodified-since" => &mut self.if_unmodified_since,
            "if-range" => &mut self.if_range,
            "range" => &mut self.range,
            "sec-fetch-mode" => &mut self.sec_fetch_mode,
            "accept" => &mut self.accept,
            "available-dictionary" => &mut self.available_dictionary,
            _ => return,
        };
        *slot = Some(value);
    }

    /// The value of the field `name` (one of [`REQUEST_FIELDS`]), as [`set_field`](Self::set_field)
    /// set it; `None` for other names.
    pub fn field(&self, name: &str) -> Option<&'a [u8]> {
        match name {
            "accept-encoding" => self.accept_encoding,
            "if-match" => self.if_match,
            "if-none-match" => self.if_none_match,
            "if-modified-since" => self.if_modified_since,
            "if-unmodified-since" => self.if_unmodified_since,
            "if-range" => self.if_range,
            "range" => self.range,
            "sec-fetch-mode" => self.sec_fetch_mode,
            "accept" => self.accept,
            "available-dictionary" => self.available_dictionary,
            _ => None,
        }
    }

    /// Whether this is a page navigation: `Sec-Fetch-Mode: navigate`, or (for browsers without
    /// Fetch Metadata) an Accept field that names `text/html` with a weight above 0 (RFC 9110
    /// §12.5.1; `*/*` names no type).
    pub fn is_navigation(&self) -> bool {
        match self.sec_fetch_mode {
            Some(mode) => mode.eq_ignore_ascii_case(b"navigate"),
            None => self
                .accept
                .and_then(|accept| named_quality(accept, "text/html"))
                .is_some_and(|q| q > 0),
        }
    }
}

/// The methods edgesite implements (RFC 9110 §9.3); anything else is answered 405.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// GET (RFC 9110 §9.3.1).
    Get,
    /// HEAD (RFC 9110 §9.3.2): the same header fields as GET, no content.
    Head,
    /// OPTIONS (RFC 9110 §9.3.7): which methods the resource supports.
    Options,
}

impl Method {
    /// Parses a method token. Method names are case-sensitive (RFC 9110 §9.1): `get` is not GET.
    pub fn from_token(token: &str) -> Option<Method> {
        match token {
            "GET" => Some(Method::Get),
            "HEAD" => Some(Method::Head),
            "OPTIONS" => Some(Method::Options),
            _ => None,
        }
    }
}
