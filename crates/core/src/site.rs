//! The compiled site: static tables that `edgesite-sitegen` generates at build time.
//!
//! Every value a response needs is precomputed here as a string or byte slice, so answering a
//! request only selects. The same types are used for the generated `'static` tables and for
//! hand-built sites in tests.

use crate::base64::{sextets, URL_SAFE};
use crate::coding::ContentCoding;

/// A compiled site: its routes, sorted for binary search, its 404 pages and fallback.
#[derive(Debug)]
pub struct Site<'a> {
    /// Every servable path, sorted by [`str::cmp`] and unique.
    pub routes: &'a [Route<'a>],
    /// The 404 pages (`404.html` files) by folder, e.g. `/` and `/docs/`; a path that matches no
    /// route gets the one of its nearest folder, with status 404.
    pub not_found: &'a [NotFoundPage<'a>],
    /// The single-page-application fallback, if configured: sent with 200 to navigation requests
    /// for extension-less paths that match no route.
    pub fallback: Option<&'a Asset<'a>>,
    /// The `multipart/byteranges` boundary, chosen at build time not to occur in any body.
    pub boundary: &'a str,
    /// `multipart/byteranges; boundary=...` (RFC 9110 §14.6).
    pub multipart_content_type: &'a str,
    /// Fields sent on every response (security headers such as `x-content-type-options`),
    /// names in lower case.
    pub fields: &'a [(&'a str, &'a str)],
    /// The `_redirects` rules with a splat or placeholders, in file order, tried (first match
    /// wins) for a path that matches no route. Rules without them are routes already.
    pub rules: &'a [Rule<'a>],
    /// An index over `rules` by their literal leading segments (node 0 is the root), so a path
    /// is tried only against the rules that can match it; empty: every rule is tried in order.
    pub rule_index: &'a [RuleNode<'a>],
    /// Cache-Control (RFC 9111 §5.2.2) of a response to a request whose query names the
    /// resource's current bytes (a `v` parameter equal to [`Asset::fingerprint`]): such a URL
    /// never names other bytes, so it can be fresh for a year and `immutable` (RFC 8246).
    pub fingerprinted_cache_control: &'a str,
    /// What the shared caches in front of the site (a CDN) are trusted to do with the Vary of
    /// answers chosen by a request field they may ignore: a dictionary delta (RFC 9842 §6.2,
    /// `Available-Dictionary`) and the SPA fallback's choice (`Sec-Fetch-Mode`, `Accept`).
    pub shared_caches: SharedCaches,
    /// The folder the build wrote the site's stored objects into ([`Content::Stored`]), where
    /// the native twin reads them unless told another; empty when nothing is stored.
    pub store: &'a str,
}

/// Whether a shared cache may store an answer that depends on a request field it may not key
/// on ([`Site::shared_caches`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedCaches {
    /// Such answers carry `CDN-Cache-Control: private` (RFC 9213; RFC 9111 §5.2.2.7) in place of
    /// any configured one: a CDN that ignores their Vary must not hand them to other clients.
    /// Browsers' caches, which honour Vary, follow `Cache-Control` as before.
    Private,
    /// The shared caches honour Vary: such answers carry the configured fields as they are.
    Vary,
}

impl<'a> Site<'a> {
    /// A site that serves nothing (every path is a 404 with no page): the base of a site built
    /// by hand, as in tests, benchmarks and examples, which name only what they have:
    /// `Site { routes: &ROUTES, ..Site::EMPTY }`. Sites compiled by `edgesite-sitegen` set every
    /// field themselves (their boundary is chosen not to occur in any body).
    pub const EMPTY: Self = Site {
        routes: &[],
        not_found: &[],
        fallback: None,
        boundary: "edgesite-boundary",
        multipart_content_type: "multipart/byteranges; boundary=edgesite-boundary",
        fields: &[],
        rules: &[],
        rule_index: &[],
        fingerprinted_cache_control: "public, max-age=31536000, immutable",
        shared_caches: SharedCaches::Private,
        store: "",
    };
}

/// A node of [`Site::rule_index`]: a trie over the literal leading segments of the rules'
/// sources (`/blog/:year/*` sits under `blog`, `/:lang/*` at the root).
#[derive(Debug)]
pub struct RuleNode<'a> {
    /// [`segment_key`](crate::segment_key) of each child's segment, ascending: what a lookup
    /// searches (integers, not strings).
    pub keys: &'a [u32],
    /// The next literal segment and the index of its node, in the order of `keys` (segments with
    /// the same key by segment).
    pub children: &'a [(&'a str, u32)],
    /// Indexes into [`Site::rules`], ascending (file order), of the rules whose literal leading
    /// segments are exactly the path from the root to this node.
    pub rules: &'a [u32],
}

/// A folder's 404 page.
#[derive(Debug)]
pub struct NotFoundPage<'a> {
    /// The folder, with both slashes: `/`, `/docs/`.
    pub folder: &'a str,
    /// Its `404.html`.
    pub page: &'a Asset<'a>,
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
    /// A redirect: a `_redirects` rule, or the canonical spelling of a URL (`/docs` → `/docs/`,
    /// 308).
    Redirect(Redirect<'a>),
}

/// A redirect with a fixed destination (RFC 9110 §15.4).
#[derive(Debug, Clone, Copy)]
pub struct Redirect<'a> {
    /// The status.
    pub status: RedirectStatus,
    /// The Location field value (RFC 9110 §10.2.2): a percent-encoded path or absolute URL.
    pub location: &'a str,
    /// Where the request's query goes into `location` (before its fragment), when the
    /// destination has no query of its own; `None` when it has one, which replaces the request's.
    pub query_at: Option<usize>,
}

/// The status of a redirect (RFC 9110 §15.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectStatus {
    /// 301 (§15.4.2).
    MovedPermanently,
    /// 302 (§15.4.3).
    Found,
    /// 303 (§15.4.4).
    SeeOther,
    /// 307 (§15.4.8).
    TemporaryRedirect,
    /// 308 (§15.4.9).
    PermanentRedirect,
}

impl RedirectStatus {
    /// Every redirect status.
    pub const ALL: [RedirectStatus; 5] = [
        RedirectStatus::MovedPermanently,
        RedirectStatus::Found,
        RedirectStatus::SeeOther,
        RedirectStatus::TemporaryRedirect,
        RedirectStatus::PermanentRedirect,
    ];

    /// The redirect status with this code, if it is one edgesite sends.
    pub fn from_code(code: u16) -> Option<RedirectStatus> {
        RedirectStatus::ALL.into_iter().find(|s| s.code() == code)
    }

    /// The status code.
    pub const fn code(self) -> u16 {
        match self {
            RedirectStatus::MovedPermanently => 301,
            RedirectStatus::Found => 302,
            RedirectStatus::SeeOther => 303,
            RedirectStatus::TemporaryRedirect => 307,
            RedirectStatus::PermanentRedirect => 308,
        }
    }
}

/// A `_redirects` rule with placeholders or a splat, matched at run time.
#[derive(Debug)]
pub struct Rule<'a> {
    /// The source's segments after its leading `/`, percent-decoded like a request path.
    pub pattern: &'a [Segment<'a>],
    /// Whether the source ends with `/*`: the splat captures the rest of the path (possibly
    /// empty; `/blog/*` also matches `/blog`).
    pub splat: bool,
    /// What a match leads to.
    pub action: Action<'a>,
}

/// One segment of a rule's source.
#[derive(Debug)]
pub enum Segment<'a> {
    /// Exactly this text.
    Literal(&'a str),
    /// `:name`: any non-empty segment, captured.
    Placeholder,
}

/// What a matching rule does.
#[derive(Debug)]
pub enum Action<'a> {
    /// A redirect to the destination with the captures substituted (percent-encoded).
    Redirect {
        /// The status.
        status: RedirectStatus,
        /// The destination.
        destination: &'a [Part<'a>],
        /// The index of the part before which the request's query goes (the fragment's first
        /// part, or `destination.len()`), when the destination has no query of its own.
        query_at: Option<usize>,
    },
    /// A 200 rewrite: the resource at the destination path (captures substituted) is served
    /// at the request's URL.
    Rewrite {
        /// The destination path.
        destination: &'a [Part<'a>],
    },
}

/// A piece of a rule's destination.
#[derive(Debug)]
pub enum Part<'a> {
    /// Text as it is.
    Literal(&'a str),
    /// The capture with this index (placeholders in source order, then the splat), in the
    /// destination's path.
    Capture(usize),
    /// The same in the destination's query, where `&`, `=`, `+` are encoded too.
    QueryCapture(usize),
}

/// A resource: one file of the site with all its stored representations.
#[derive(Debug, Clone, Copy)]
pub struct Asset<'a> {
    /// Content-Type field value (RFC 9110 §8.3), with `charset=utf-8` for text.
    pub content_type: &'a str,
    /// Last-Modified field value (RFC 9110 §8.8.2) as an IMF-fixdate.
    pub last_modified: &'a str,
    /// The same instant in seconds since the Unix epoch, for If-Modified-Since and friends.
    pub last_modified_unix: u64,
    /// Cache-Control field value (RFC 9111 §5.2).
    pub cache_control: &'a str,
    /// The first 10 hex digits of the SHA-256 of the identity representation's bytes: a request
    /// whose query has `v=` this value is for exactly these bytes, and gets
    /// [`Site::fingerprinted_cache_control`]. Empty: the resource is not fingerprinted.
    pub fingerprint: &'a str,
    /// More fields for this resource's 2xx and 304 responses (e.g. `cdn-cache-control`), names
    /// in lower case.
    pub fields: &'a [(&'a str, &'a str)],
    /// The stored representations; the first is always the identity one.
    pub representations: &'a [Representation<'a>],
    /// Deltas (RFC 9842 §5): representations in a dictionary coding, each against an earlier
    /// version of this resource that a client may hold. Empty for most resources.
    pub deltas: &'a [Delta<'a>],
    /// The resource in other media types than [`Asset::content_type`] (an image's AVIF and WebP
    /// forms), each sent to a client whose Accept names its type (RFC 9110 §12.5.1,
    /// [`choose`](crate::choose)). Empty for most resources.
    pub variants: &'a [Variant<'a>],
    /// The resource in another media type with representations, validators and fields of its
    /// own (a page's Markdown twin, also served at its own URL), sent instead of this one to a
    /// request whose Accept names its type above this one's ([`prefers_alternate`]): every
    /// answer at this resource's URL then varies by Accept. `None` for most resources; an
    /// alternate has none of its own.
    ///
    /// [`prefers_alternate`]: crate::prefers_alternate
    pub alternate: Option<&'a Asset<'a>>,
}

/// The resource in another media type: the same picture as an AVIF or WebP, made at build time.
/// Stored in the identity coding (image formats compress themselves).
#[derive(Debug)]
pub struct Variant<'a> {
    /// Its Content-Type, `type/subtype` without parameters (`image/avif`): also the media type an
    /// Accept field must name for the variant to be sent.
    pub content_type: &'a str,
    /// Its bytes, length and strong ETag.
    pub representation: Representation<'a>,
}

/// A representation whose bytes decode only with a dictionary the client holds (RFC 9842):
/// sent when the request's Available-Dictionary is [`Delta::available_dictionary`] and
/// Accept-Encoding accepts its coding.
#[derive(Debug)]
pub struct Delta<'a> {
    /// The SHA-256 of the dictionary (an earlier version's bytes) as Available-Dictionary names
    /// it (§2.2): `:` standard base64 with its padding `:`. Requests are matched against this
    /// text, so none is decoded per request ([`crate::dictionary_hash`] gives the bytes).
    pub available_dictionary: &'a str,
    /// The delta: its coding is `dcb` or `dcz`.
    pub representation: Representation<'a>,
}

impl<'a> Asset<'a> {
    /// Whether the resource has more than one representation, so responses vary by the fields
    /// that choose one (RFC 9110 §12.5.5).
    pub fn is_negotiable(&self) -> bool {
        self.vary().is_some()
    }

    /// The Vary field value of every response about this resource (RFC 9110 §12.5.5): what
    /// selected its representation. `None` when nothing does.
    pub fn vary(&self) -> Option<&'static str> {
        vary_field(self.selected_by(false))
    }

    /// What selects among this resource's representations: [`Selectors`], with `navigation`
    /// when the answer was also chosen by whether the request is a navigation (the SPA
    /// fallback).
    pub(crate) fn selected_by(&self, navigation: bool) -> Selectors {
        Selectors {
            accept: !self.variants.is_empty() || self.alternate.is_some(),
            // RFC 9842 §6.2: a delta depends on the dictionary the client names, and on
            // Accept-Encoding naming its coding.
            encoding: self.representations.len() > 1 || !self.deltas.is_empty(),
            dictionary: !self.deltas.is_empty(),
            navigation,
        }
    }

    /// The Content-Type of `representation`, one of this resource's: its variant's when it is
    /// one of [`Asset::variants`] (found by address: representations are only ever borrowed
    /// from their asset), else [`Asset::content_type`].
    pub fn content_type_of(&self, representation: &Representation<'_>) -> &'a str {
        self.variants
            .iter()
            .find(|v| core::ptr::addr_eq(&v.representation, representation))
            .map_or(self.content_type, |v| v.content_type)
    }

    /// Whether `query` (a request target's, without the `?`) has a `v` parameter equal to this
    /// resource's [`fingerprint`](Asset::fingerprint): the URL names these bytes and no others.
    /// Any of several `v` parameters may match (a generator's own `?v=...` stays beside the one
    /// sitegen adds); names and values are compared as they are, without percent-decoding
    /// (sitegen writes both in plain ASCII).
    ///
    /// ```
    /// # use edgesite_core::{Asset, ContentCoding, Content, Representation};
    /// # static R: [Representation<'static>; 1] = [Representation { coding: ContentCoding::Identity,
    /// #     etag: "\"e\"", content_length: "0", content: Content::Bytes(b"") }];
    /// # static ASSET: Asset<'static> = Asset { content_type: "text/css", last_modified: "",
    /// #     last_modified_unix: 0, cache_control: "no-cache", fingerprint: "0123456789",
    /// #     fields: &[], representations: &R, deltas: &[], variants: &[], alternate: None };
    /// assert!(ASSET.has_fingerprint("v=0123456789"));
    /// assert!(ASSET.has_fingerprint("v=2022.1&v=0123456789"));
    /// assert!(!ASSET.has_fingerprint("v=012345678"));
    /// assert!(!ASSET.has_fingerprint("x=1&vv=0123456789"));
    /// ```
    pub fn has_fingerprint(&self, query: &str) -> bool {
        !self.fingerprint.is_empty()
            && query
                .split('&')
                .any(|pair| pair.strip_prefix("v=") == Some(self.fingerprint))
    }

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
    /// The content coding of the bytes (RFC 9110 §8.4.1).
    pub coding: ContentCoding,
    /// A strong entity tag, quoted (RFC 9110 §8.8.3), derived from the SHA-256 of the bytes.
    pub etag: &'a str,
    /// The length in decimal, precomputed for the Content-Length field (RFC 9110 §8.6).
    pub content_length: &'a str,
    /// Where the bytes are.
    pub content: Content<'a>,
}

/// How many decoded bytes (compact storage, [`Content::Decoded`]) each runtime keeps, the most
/// recently used first: the native twin per process, the Worker per isolate (outside wasm
/// memory; a representation is kept once all of it was inflated for an answer). No decoded
/// representation is larger than half of it.
pub const DECODED_CACHE_BYTES: usize = 32 * 1024 * 1024;

/// Where a representation's bytes are. The core needs only their length; adapters fetch the
/// bytes a [`crate::Body`] names.
#[derive(Debug, Clone, Copy)]
pub enum Content<'a> {
    /// In memory: the native twin's embedded site, and hand-built sites.
    Bytes(&'a [u8]),
    /// Outside the module: in blob `blob` the runtime holds (a Worker's data module), at
    /// `offset`. The Worker keeps the site's bytes there, not in wasm memory.
    External {
        /// Unique within the site: what adapters key per-representation work under.
        id: u32,
        /// Which blob.
        blob: u32,
        /// Where in it.
        offset: u32,
        /// How many bytes.
        length: u32,
    },
    /// In the platform's store, outside the Worker: an object that the adapter reads from
    /// `store` (the Worker through its Static Assets or R2 binding, the native twin from a
    /// folder), named by its bytes' digest, which the representation's ETag carries:
    /// [`Representation::object_key`]. The core decides every answer from the tables alone (a
    /// 304, 412 or 416 reads nothing); only a body is fetched, and an adapter that cannot read
    /// exactly `length` bytes answers 503 rather than send others.
    Stored {
        /// Unique within the site: what adapters key per-representation work under.
        id: u32,
        /// Which of the platform's stores holds it.
        store: Store,
        /// How many bytes (R2 keeps objects past 4 GiB).
        length: ObjectLength,
    },
    /// Not stored (compact storage): the bytes are those of the asset's representation `from`
    /// (an encoded one) decoded. Adapters decode on demand and keep up to
    /// [`DECODED_CACHE_BYTES`] of decoded bytes by recency; sitegen stores a file larger than
    /// half of that whole, so any two decoded representations fit the cache together.
    Decoded {
        /// Unique within the site: what adapters key the decoded bytes under.
        id: u32,
        /// The index in [`Asset::representations`] of the stored representation to decode.
        from: u8,
        /// How many bytes decoding gives.
        length: u32,
    },
}

/// A stored object's length in bytes, any `u64`: kept as two 32-bit halves, so that
/// [`Content`] stays as large and as aligned as its other kinds (a Worker holds one per
/// representation of the site in wasm memory: at 100,000 files a `u64` there would cost
/// megabytes of padding).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ObjectLength {
    low: u32,
    high: u32,
}

impl ObjectLength {
    /// `bytes` long.
    pub const fn new(bytes: u64) -> ObjectLength {
        ObjectLength {
            low: bytes as u32,
            high: (bytes >> 32) as u32,
        }
    }

    /// How many bytes.
    pub const fn get(self) -> u64 {
        (self.high as u64) << 32 | self.low as u64
    }
}

/// The number of bytes, not its halves.
impl core::fmt::Debug for ObjectLength {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.get().fmt(f)
    }
}

/// Which of the platform's stores holds a [`Content::Stored`] object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// Workers Static Assets (the Worker's `ASSETS` binding): objects up to 25 MiB, read whole.
    Assets,
    /// An R2 bucket (the Worker's `EDGESITE_R2` binding): objects of any size, read by range.
    R2,
}

impl Store {
    /// The folder of the store's root that holds edgesite's objects.
    pub const fn folder(self) -> &'static str {
        match self {
            Store::Assets => "_edgesite/b",
            Store::R2 => "_edgesite/r",
        }
    }
}

impl<'a> Representation<'a> {
    /// The length of the representation in bytes.
    pub fn length(&self) -> u64 {
        match self.content {
            Content::Bytes(bytes) => bytes.len() as u64,
            Content::External { length, .. } | Content::Decoded { length, .. } => u64::from(length),
            Content::Stored { length, .. } => length.get(),
        }
    }

    /// The name of a stored representation's object ([`Content::Stored`]) in its store:
    /// `<folder>/<32 hex digits>.bin`, the first 128 bits of the SHA-256 of its bytes, which the
    /// ETag carries as 22 base64url digits (`"…"`, as sitegen writes every ETag). Named by the
    /// bytes, the objects of every deploy live side by side; in hex, a case-insensitive file
    /// system cannot confuse two. `None` when the representation is not stored, or its ETag is
    /// not of that form (the tables' decoder refuses such tables).
    ///
    /// ```
    /// # use edgesite_core::{Content, ContentCoding, ObjectLength, Representation, Store};
    /// let r = Representation { coding: ContentCoding::Identity, etag: "\"AAECAwQFBgcICQoLDA0ODw\"",
    ///     content_length: "3",
    ///     content: Content::Stored { id: 0, store: Store::R2, length: ObjectLength::new(3) } };
    /// let key = r.object_key().unwrap();
    /// assert_eq!(key.to_string(), "_edgesite/r/000102030405060708090a0b0c0d0e0f.bin");
    /// ```
    pub fn object_key(&self) -> Option<ObjectKey> {
        let Content::Stored { store, .. } = self.content else {
            return None;
        };
        let digits = self.etag.strip_prefix('"')?.strip_suffix('"')?.as_bytes();
        // 16 bytes: five groups of four digits (15 bytes), then two digits (1 byte).
        let (groups, tail) = (digits.get(..20)?, digits.get(20..)?);
        if tail.len() != 2 {
            return None;
        }
        let mut digest = [0u8; 16];
        for (chunk, bytes) in groups.chunks_exact(4).zip(digest.chunks_exact_mut(3)) {
            let n = sextets(&URL_SAFE, chunk)?;
            bytes.copy_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
        }
        // The last two digits carry 12 bits: 8 of data, then 4 that must be zero (canonical
        // encoding, RFC 4648 §3.5).
        let n = sextets(&URL_SAFE, &[tail[0], tail[1], b'A', b'A'])? >> 12;
        if n & 0b1111 != 0 {
            return None;
        }
        digest[15] = (n >> 4) as u8;
        Some(ObjectKey {
            folder: store.folder(),
            digest,
        })
    }
}

/// The name of a stored object ([`Representation::object_key`]), written by its `Display`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectKey {
    folder: &'static str,
    digest: [u8; 16],
}

impl core::fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.folder)?;
        f.write_str("/")?;
        for byte in self.digest {
            write!(f, "{byte:02x}")?;
        }
        f.write_str(".bin")
    }
}

impl<'a> Site<'a> {
    /// The route for a normalized path, by binary search over the sorted table.
    pub fn route(&self, path: &str) -> Option<&Route<'a>> {
        self.routes
            .binary_search_by(|route| route.path.cmp(path))
            .ok()
            .map(|i| &self.routes[i])
    }

    /// The 404 page of the nearest folder of `path` that has one.
    pub fn not_found_page(&self, path: &str) -> Option<&'a Asset<'a>> {
        self.not_found
            .iter()
            .filter(|p| path.starts_with(p.folder))
            .max_by_key(|p| p.folder.len())
            .map(|p| p.page)
    }
}

/// The request fields that chose an answer, as [`vary_field`] names them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Selectors {
    /// Accept chose a media type (an image's variants).
    pub(crate) accept: bool,
    /// Accept-Encoding chose a content coding.
    pub(crate) encoding: bool,
    /// Available-Dictionary chose a delta (RFC 9842 §6.2).
    pub(crate) dictionary: bool,
    /// Whether the request is a navigation (`Sec-Fetch-Mode`, else `Accept` naming
    /// `text/html`) chose between the SPA fallback's page and a 404.
    pub(crate) navigation: bool,
}

/// The Vary field value naming `selectors` (RFC 9110 §12.5.5), lower case, in one order;
/// `None` when nothing chose. Every value is spelled out, so nothing is formatted per request.
pub(crate) fn vary_field(selectors: Selectors) -> Option<&'static str> {
    const VALUES: [Option<&str>; 16] = [
        None,
        Some("accept"),
        Some("accept-encoding"),
        Some("accept, accept-encoding"),
        Some("available-dictionary"),
        Some("accept, available-dictionary"),
        Some("accept-encoding, available-dictionary"),
        Some("accept, accept-encoding, available-dictionary"),
        Some("accept, sec-fetch-mode"),
        Some("accept, sec-fetch-mode"),
        Some("accept, accept-encoding, sec-fetch-mode"),
        Some("accept, accept-encoding, sec-fetch-mode"),
        Some("accept, available-dictionary, sec-fetch-mode"),
        Some("accept, available-dictionary, sec-fetch-mode"),
        Some("accept, accept-encoding, available-dictionary, sec-fetch-mode"),
        Some("accept, accept-encoding, available-dictionary, sec-fetch-mode"),
    ];
    let Selectors {
        accept,
        encoding,
        dictionary,
        navigation,
    } = selectors;
    // Navigation is told by Sec-Fetch-Mode, and without it by Accept: both are named.
    let index = usize::from(accept || navigation)
        | usize::from(encoding) << 1
        | usize::from(dictionary) << 2
        | usize::from(navigation) << 3;
    VALUES[index]
}
