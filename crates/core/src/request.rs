//! The request as the core sees it: borrowed slices of what the client sent.

/// The parts of a request that decide the response. Adapters fill it from their runtime's request
/// without interpreting anything.
#[derive(Debug, Clone, Copy)]
pub struct RequestHead<'a> {
    /// The method token, case-sensitive (RFC 9110 §9.1).
    pub method: &'a str,
    /// The request target in origin form: the absolute path and optional query (RFC 9112 §3.2.1),
    /// still percent-encoded.
    pub target: &'a str,
    /// The If-None-Match field value (RFC 9110 §13.1.2); several field lines joined by commas.
    pub if_none_match: Option<&'a [u8]>,
}

impl<'a> RequestHead<'a> {
    /// A request with this method and target and no conditional header fields.
    pub const fn new(method: &'a str, target: &'a str) -> Self {
        RequestHead {
            method,
            target,
            if_none_match: None,
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
