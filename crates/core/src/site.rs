//! The compiled site: static tables that `edgesite-sitegen` generates at build time.
//!
//! Every value a response needs is precomputed here as a string or byte slice, so answering a
//! request only selects. The same types are used for the generated `'static` tables and for
//! hand-built sites in tests.

/// A compiled site: its routes, sorted for binary search, and its 404 page.
#[derive(Debug)]
pub struct Site<'a> {
    /// Every servable path, sorted by [`str::cmp`] and unique.
    pub routes: &'a [Route<'a>],
    /// The site's `/404.html`, sent with status 404 when no route matches.
    pub not_found: Option<&'a Asset<'a>>,
}

/// One path of the site and what it leads to.
#[derive(Debug)]
pub struct Route<'a> {
    /// The normalized, percent-decoded path, e.g. `/docs/` or `/café.html`.
    pub path: &'a str,
    /// What a request for `path` gets.
    pub target: Target<'a>,
}

/// What a route leads to.
#[derive(Debug)]
pub enum Target<'a> {
    /// The resource itself.
    Asset(&'a Asset<'a>),
    /// A permanent redirect (RFC 9110 §15.4.9, 308) to this location, e.g. `/docs` → `/docs/`.
    Redirect(&'a str),
}

/// A resource: one file of the site with all its stored representations.
#[derive(Debug)]
pub struct Asset<'a> {
    /// Content-Type field value (RFC 9110 §8.3), with `charset=utf-8` for text.
    pub content_type: &'a str,
    /// Last-Modified field value (RFC 9110 §8.8.2) as an IMF-fixdate.
    pub last_modified: &'a str,
    /// Cache-Control field value (RFC 9111 §5.2).
    pub cache_control: &'a str,
    /// The stored representations; the first is always the identity one.
    pub representations: &'a [Representation<'a>],
}

impl<'a> Asset<'a> {
    /// The identity (unencoded) representation.
    ///
    /// # Panics
    /// Never for a sitegen-built site, which always stores the identity representation first.
    pub fn identity(&self) -> &'a Representation<'a> {
        &self.representations[0]
    }
}

/// One representation of a resource: its bytes in one content coding (RFC 9110 §3.2).
#[derive(Debug)]
pub struct Representation<'a> {
    /// The content coding of `body` (RFC 9110 §8.4.1).
    pub coding: ContentCoding,
    /// A strong entity tag, quoted (RFC 9110 §8.8.3), derived from the SHA-256 of `body`.
    pub etag: &'a str,
    /// `body.len()` in decimal, precomputed for the Content-Length field (RFC 9110 §8.6).
    pub content_length: &'a str,
    /// The exact bytes sent.
    pub body: &'a [u8],
}

/// A content coding (RFC 9110 §8.4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentCoding {
    /// No encoding.
    Identity,
    /// Brotli (RFC 7932).
    Br,
    /// Zstandard (RFC 8878).
    Zstd,
    /// gzip (RFC 9110 §8.4.1.3).
    Gzip,
}

impl ContentCoding {
    /// The token used in Content-Encoding and Accept-Encoding.
    pub const fn token(self) -> &'static str {
        match self {
            ContentCoding::Identity => "identity",
            ContentCoding::Br => "br",
            ContentCoding::Zstd => "zstd",
            ContentCoding::Gzip => "gzip",
        }
    }
}

impl Site<'_> {
    /// The route for a normalized path, by binary search over the sorted table.
    pub fn route(&self, path: &str) -> Option<&Route<'_>> {
        self.routes
            .binary_search_by(|route| route.path.cmp(path))
            .ok()
            .map(|i| &self.routes[i])
    }
}
