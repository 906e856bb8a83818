//! Accept (RFC 9110 §12.5.1): the media types a request names, and their weights.
//!
//! edgesite reads Accept for what a client names explicitly: `text/html` marks a page navigation
//! for browsers without Fetch Metadata, and a representation in another media type than the
//! file's own (an image's AVIF or WebP form) is for a client that names that type. A wildcard
//! (`image/*`, `*/*`) names no type: a client that names no format gets what the author
//! published. A malformed field is ignored as a whole, as a malformed Accept-Encoding is.
//! Nothing here allocates.

use crate::negotiate::{is_tchar, qvalue, MAX_QUALITY};
use crate::ows::{trim, trim_start};
use crate::site::Variant;

/// At most this many of a resource's variants are weighed (the first ones); sitegen makes at
/// most two (AVIF, WebP).
pub const MAX_VARIANTS: usize = 4;

/// What one Accept field says of a resource, from one pass over it: the weight of the
/// resource's own media type, and of each of its variants' types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Weights {
    /// The weight of the resource's own type by the most specific range that matches it
    /// (RFC 9110 §12.5.1: `type/subtype` over `type/*` over `*/*`; the first of equals); 0 when
    /// none does.
    pub(crate) own: u16,
    /// Each variant's weight by a range that names its type ([`named_quality`]'s rule): a
    /// wildcard names no type.
    pub(crate) variants: [Option<u16>; MAX_VARIANTS],
    /// The alternate's weight by the same rule ([`Asset::alternate`](crate::Asset::alternate)).
    pub(crate) alternate: Option<u16>,
}

/// The [`Weights`] the Accept field `value` gives a resource of media type `own` (parameters
/// after `;` ignored) with these variants, and an alternate of media type `alternate` (the
/// same; empty: none); `None` when the field is malformed.
pub(crate) fn weigh(
    value: &[u8],
    own: &str,
    variants: &[Variant<'_>],
    alternate: &str,
) -> Option<Weights> {
    let mut weighing = Weighing::new(own, variants, alternate);
    if let Some(ranges) = known(value) {
        // The known ranges are lowercase: against lowercase types, case needs no folding.
        weighing.exact = weighing.lowercase();
        for &(media_type, quality) in ranges {
            weighing.add(media_type, quality);
        }
    } else {
        for range in MediaRanges(value) {
            let range = range?;
            if range.plain {
                weighing.add(range.media_type, range.quality);
            }
        }
    }
    Some(weighing.weights)
}

/// Plain media ranges, parsed: (`type/subtype`, weight in thousandths).
type Ranges = &'static [(&'static [u8], u16)];

/// The Accept fields browsers send for images (`<img>`, CSS) and for navigations, with their
/// media ranges as [`MediaRanges`] reads them (each plain: no parameter but the weight; a range
/// with one is left out, as the parser leaves it). Most image and page requests carry one of
/// them byte for byte, and one is weighed without parsing it again: a comparison instead of a
/// parse of four to ten ranges. The test `known_fields_are_read_as_the_parser_reads_them` holds
/// every entry to the parser.
static KNOWN: [(&[u8], Ranges); 7] = [
    // Chromium 156's, for images (with JPEG XL).
    (
        b"image/jxl,image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
        &[
            (b"image/jxl", 1000),
            (b"image/avif", 1000),
            (b"image/webp", 1000),
            (b"image/apng", 1000),
            (b"image/svg+xml", 1000),
            (b"image/*", 1000),
            (b"*/*", 800),
        ],
    ),
    // Chromium 156's, for a navigation.
    (
        b"text/html,application/xhtml+xml,application/xml;q=0.9,image/jxl,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
        &[
            (b"text/html", 1000),
            (b"application/xhtml+xml", 1000),
            (b"application/xml", 900),
            (b"image/jxl", 1000),
            (b"image/avif", 1000),
            (b"image/webp", 1000),
            (b"image/apng", 1000),
            (b"*/*", 800),
        ],
    ),
    // Chromium's before JPEG XL, for a navigation (a page with a Markdown alternate is weighed
    // on each).
    (
        b"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
        &[
            (b"text/html", 1000),
            (b"application/xhtml+xml", 1000),
            (b"application/xml", 900),
            (b"image/avif", 1000),
            (b"image/webp", 1000),
            (b"image/apng", 1000),
            (b"*/*", 800),
        ],
    ),
    // Firefox's and Safari's, for a navigation.
    (
        b"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        &[
            (b"text/html", 1000),
            (b"application/xhtml+xml", 1000),
            (b"application/xml", 900),
            (b"*/*", 800),
        ],
    ),
    // Chromium's before JPEG XL, for images.
    (
        b"image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
        &[
            (b"image/avif", 1000),
            (b"image/webp", 1000),
            (b"image/apng", 1000),
            (b"image/svg+xml", 1000),
            (b"image/*", 1000),
            (b"*/*", 800),
        ],
    ),
    // Firefox's (its `image.http.accept` preference).
    (
        b"image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5",
        &[
            (b"image/avif", 1000),
            (b"image/webp", 1000),
            (b"image/png", 1000),
            (b"image/svg+xml", 1000),
            (b"image/*", 800),
            (b"*/*", 500),
        ],
    ),
    // Safari's, for images.
    (
        b"image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5",
        &[
            (b"image/webp", 1000),
            (b"image/avif", 1000),
            (b"image/jxl", 1000),
            (b"image/heic", 1000),
            (b"image/heic-sequence", 1000),
            (b"video/*", 800),
            (b"image/png", 1000),
            (b"image/svg+xml", 1000),
            (b"image/*", 800),
            (b"*/*", 500),
        ],
    ),
];

/// Whether `value`, when it is one of the [`KNOWN`] fields (a browser's), names `media_type`
/// (parameters after `;` ignored) in a range; `None` for any other field. What a browser's
/// request for a page with a Markdown alternate is answered by, without weighing the field.
pub(crate) fn known_names(value: &[u8], media_type: &str) -> Option<bool> {
    let ranges = known(value)?;
    let name = bare(media_type);
    Some(
        ranges
            .iter()
            .any(|(range, _)| range.eq_ignore_ascii_case(name)),
    )
}

/// `type/subtype` of a Content-Type value: what comes before its parameters, trimmed. (A byte
/// loop: `str::split`'s searcher cost a page's answer a tenth of its time in the decide bench.)
fn bare(media_type: &str) -> &[u8] {
    let bytes = media_type.as_bytes();
    let end = bytes.iter().position(|&b| b == b';').unwrap_or(bytes.len());
    trim(&bytes[..end])
}

/// The ranges of `value` when it is one of the [`KNOWN`] fields.
fn known(value: &[u8]) -> Option<Ranges> {
    KNOWN
        .iter()
        .find(|(field, _)| *field == value)
        .map(|(_, ranges)| *ranges)
}

/// [`Weights`] being gathered, one plain media range at a time.
struct Weighing<'a> {
    own: &'a [u8],
    own_kind: &'a [u8],
    variants: &'a [Variant<'a>],
    /// The alternate's type without parameters; empty: none.
    alternate: &'a [u8],
    /// The specificity of the range that gave `weights.own` (0: none yet).
    specificity: u8,
    /// Whether types are compared byte for byte (else ASCII case-insensitively, RFC 9110
    /// §8.3.1): for lowercase ranges against lowercase types, the same answer.
    exact: bool,
    weights: Weights,
}

impl<'a> Weighing<'a> {
    fn new(own: &'a str, variants: &'a [Variant<'a>], alternate: &'a str) -> Weighing<'a> {
        let own = bare(own);
        Weighing {
            own,
            own_kind: own.split(|&b| b == b'/').next().unwrap_or_default(),
            variants,
            alternate: bare(alternate),
            specificity: 0,
            exact: false,
            weights: Weights {
                own: 0,
                variants: [None; MAX_VARIANTS],
                alternate: None,
            },
        }
    }

    /// Whether the resource's own type, its variants' and its alternate's are lowercase.
    fn lowercase(&self) -> bool {
        let lower = |t: &[u8]| !t.iter().any(u8::is_ascii_uppercase);
        lower(self.own)
            && lower(self.alternate)
            && self
                .variants
                .iter()
                .all(|v| lower(v.content_type.as_bytes()))
    }

    /// Whether `range` (a media type of the field) and `name` (the resource's) are the same.
    fn same(&self, range: &[u8], name: &[u8]) -> bool {
        if self.exact {
            range == name
        } else {
            range.eq_ignore_ascii_case(name)
        }
    }

    /// A plain range (RFC 9110 §12.5.1: `type/subtype` over `type/*` over `*/*`, the first of
    /// equals; a variant by the first range that names its type).
    fn add(&mut self, media_type: &[u8], quality: u16) {
        let specificity = if self.same(media_type, self.own) {
            3
        } else if media_type == b"*/*" {
            1
        } else if media_type
            .strip_suffix(b"/*")
            .is_some_and(|kind| self.same(kind, self.own_kind))
        {
            2
        } else {
            0
        };
        if specificity > self.specificity {
            self.specificity = specificity;
            self.weights.own = quality;
        }
        for (i, variant) in self.variants.iter().take(MAX_VARIANTS).enumerate() {
            if self.weights.variants[i].is_none()
                && self.same(media_type, variant.content_type.as_bytes())
            {
                self.weights.variants[i] = Some(quality);
            }
        }
        if self.weights.alternate.is_none()
            && !self.alternate.is_empty()
            && self.same(media_type, self.alternate)
        {
            self.weights.alternate = Some(quality);
        }
    }
}

/// The weight, in thousandths, that the Accept field `value` gives `media_type` (`type/subtype`)
/// by naming it: the first media range equal to it (type and subtype are case-insensitive,
/// RFC 9110 §8.3.1) with no parameter but the weight. `None` when no such range names it, or
/// when the field is malformed. `Some(0)` is a type the client refuses (`q=0`).
///
/// ```
/// use edgesite_core::named_quality;
/// // Chromium's Accept for an <img>.
/// let img = b"image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
/// assert_eq!(named_quality(img, "image/avif"), Some(1000));
/// assert_eq!(named_quality(img, "image/png"), None); // only through image/*
/// assert_eq!(named_quality(b"*/*", "image/avif"), None); // curl's
/// assert_eq!(named_quality(b"Image/AVIF;Q=0.5", "image/avif"), Some(500));
/// assert_eq!(named_quality(b"image/avif;q=0", "image/avif"), Some(0));
/// assert_eq!(named_quality(b"image/avif;q=2", "image/avif"), None); // malformed: ignored
/// ```
pub fn named_quality(value: &[u8], media_type: &str) -> Option<u16> {
    let mut named = None;
    for range in MediaRanges(value) {
        let range = range?;
        if named.is_none()
            && range.plain
            && range.media_type.eq_ignore_ascii_case(media_type.as_bytes())
        {
            named = Some(range.quality);
        }
    }
    named
}

/// One media range of the field.
struct MediaRange<'a> {
    /// `type/subtype`, as sent.
    media_type: &'a [u8],
    /// Whether the range has no parameter but the weight (a range with parameters names a
    /// narrower type than a representation without them).
    plain: bool,
    /// The weight, in thousandths.
    quality: u16,
}

/// The list's elements: `Some(range)`, or `None` for a malformed one. Empty elements are skipped
/// (RFC 9110 §5.6.1.2); a comma inside a quoted parameter value does not end an element.
struct MediaRanges<'a>(&'a [u8]);

impl<'a> Iterator for MediaRanges<'a> {
    type Item = Option<MediaRange<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.0.is_empty() {
                return None;
            }
            let end = element_end(self.0);
            let element = trim(&self.0[..end]);
            self.0 = self.0.get(end + 1..).unwrap_or_default();
            if !element.is_empty() {
                return Some(media_range(element));
            }
        }
    }
}

/// Where the element at the start of `s` ends: its first comma outside a quoted string, or the
/// end of `s`. Most fields quote nothing: up to the first comma or quote, one plain search.
fn element_end(s: &[u8]) -> usize {
    let Some(first) = s.iter().position(|&b| b == b',' || b == b'"') else {
        return s.len();
    };
    if s[first] == b',' {
        return first;
    }
    let mut quoted = false;
    let mut escaped = false;
    for (i, &b) in s.iter().enumerate().skip(first) {
        match (quoted, escaped, b) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (_, _, b'"') => quoted = !quoted,
            (false, _, b',') => return i,
            _ => {}
        }
    }
    s.len()
}

/// `media-range [ weight ]` (RFC 9110 §12.5.1): `type "/" subtype *( OWS ";" OWS [ parameter ] )`,
/// the weight being the parameter `q`, which must come last.
fn media_range(element: &[u8]) -> Option<MediaRange<'_>> {
    let split = element
        .iter()
        .position(|&b| b == b';')
        .unwrap_or(element.len());
    let media_type = trim(&element[..split]);
    let slash = media_type.iter().position(|&b| b == b'/')?;
    let (kind, subtype) = (&media_type[..slash], &media_type[slash + 1..]);
    if !is_token(kind) || !is_token(subtype) {
        return None;
    }
    let mut rest = &element[split..];
    let mut plain = true;
    let mut quality = None;
    while let Some(after) = rest.strip_prefix(b";") {
        if quality.is_some() {
            return None; // a parameter after the weight
        }
        let after = trim_start(after);
        let (name, value, next) = parameter(after)?;
        rest = next;
        match name {
            b"" => {}
            b"q" | b"Q" => quality = Some(qvalue(value)?),
            _ => plain = false,
        }
    }
    Some(MediaRange {
        media_type,
        plain,
        quality: quality.unwrap_or(MAX_QUALITY),
    })
}

/// `[ parameter ] OWS` at the start of `s` (`name "=" ( token / quoted-string )`): its name, its
/// value (a token, or a quoted string with its quotes) and what follows. An empty parameter
/// (`;;` or a trailing `;`, RFC 9110 §5.6.6) has an empty name.
fn parameter(s: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    if s.is_empty() || s[0] == b';' {
        return Some((b"", b"", s));
    }
    let eq = s.iter().position(|&b| b == b'=')?;
    let name = &s[..eq];
    if !is_token(name) {
        return None;
    }
    let after = &s[eq + 1..];
    let len = if after.first() == Some(&b'"') {
        quoted_len(after)?
    } else {
        after.iter().take_while(|&&b| is_tchar(b)).count()
    };
    let (value, rest) = after.split_at(len);
    let rest = trim_start(rest);
    if value.is_empty() || !(rest.is_empty() || rest[0] == b';') {
        return None;
    }
    Some((name, value, rest))
}

/// The length of the quoted-string (RFC 9110 §5.6.4) at the start of `s`, quotes included.
fn quoted_len(s: &[u8]) -> Option<usize> {
    let mut i = 1;
    while i < s.len() {
        match s[i] {
            b'"' => return Some(i + 1),
            b'\\' if i + 1 < s.len() && is_quoted_char(s[i + 1]) => i += 2,
            b if is_quoted_char(b) && b != b'\\' => i += 1,
            _ => return None,
        }
    }
    None
}

/// qdtext or quoted-pair's character: HTAB, SP, visible ASCII, obs-text.
fn is_quoted_char(b: u8) -> bool {
    b == b'\t' || b == b' ' || (0x21..=0x7e).contains(&b) || b >= 0x80
}

fn is_token(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(|&b| is_tchar(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::format;
    use std::string::String;

    /// Every known field is read as the parser reads it, its ranges with a parameter left out
    /// as weighing leaves them (so skipping the parse changes nothing), and a field that
    /// differs by one byte is parsed.
    #[test]
    fn known_fields_are_read_as_the_parser_reads_them() {
        for (field, ranges) in KNOWN {
            let parsed: std::vec::Vec<(&[u8], u16)> = MediaRanges(field)
                .map(|r| r.expect("well-formed"))
                .filter(|r| r.plain)
                .map(|r| (r.media_type, r.quality))
                .collect();
            assert_eq!(&parsed[..], ranges);
            assert_eq!(known(field), Some(ranges));
            let mut other = field.to_vec();
            other.push(b' ');
            assert_eq!(known(&other), None);
        }
    }

    /// A known field weighs a resource as its parse does, whatever the case of the types.
    #[test]
    fn known_fields_weigh_as_parsed_fields_do() {
        use crate::site::{Content, Representation};
        use crate::ContentCoding;
        let variant = |content_type| Variant {
            content_type,
            representation: Representation {
                coding: ContentCoding::Identity,
                etag: "\"v\"",
                content_length: "1",
                content: Content::Bytes(b"v"),
            },
        };
        let types = [
            ("image/jpeg", &["image/avif", "image/webp"][..], ""),
            ("image/png; x=1", &["image/webp", "image/avif"][..], ""),
            ("Image/JPEG", &["image/AVIF", "IMAGE/WEBP"][..], ""),
            ("video/mp4", &["image/avif", "image/heic"][..], ""),
            ("text/html", &["image/webp", "image/jxl"][..], ""),
            (
                "text/html; charset=utf-8",
                &[],
                "text/markdown; charset=utf-8",
            ),
            ("text/html", &[], "application/xml"),
            ("Text/HTML", &[], "APPLICATION/XML"),
        ];
        for (field, _) in KNOWN {
            // The same field with a space after its last comma is parsed, not looked up.
            let comma = field.iter().rposition(|&b| b == b',').unwrap();
            let parsed = [&field[..=comma], b" ", &field[comma + 1..]].concat();
            assert_eq!(known(&parsed), None);
            for (own, names, alternate) in types {
                let variants: std::vec::Vec<_> = names.iter().map(|&n| variant(n)).collect();
                assert_eq!(
                    weigh(field, own, &variants, alternate),
                    weigh(&parsed, own, &variants, alternate),
                    "{own}"
                );
            }
        }
    }

    /// A browser's field names no Markdown: known without weighing; another field is not known.
    #[test]
    fn known_fields_say_whether_they_name_a_type() {
        for (field, _) in KNOWN {
            assert_eq!(
                known_names(field, "text/markdown; charset=utf-8"),
                Some(false)
            );
            let named = named_quality(field, "text/html").is_some();
            assert_eq!(known_names(field, "Text/HTML; charset=utf-8"), Some(named));
            let weights = weigh(field, "text/html", &[], "text/markdown").unwrap();
            assert_eq!(weights.alternate, None);
        }
        assert_eq!(known_names(b"text/markdown", "text/markdown"), None);
    }

    /// What browsers send for an `<img>` (and curl for anything): RFC 9110 §12.5.1's weights,
    /// only explicit names count.
    #[test]
    fn the_accept_fields_of_browsers_and_curl() {
        let chromium = b"image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
        let firefox = b"image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5";
        let safari = b"image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5";
        for field in [&chromium[..], firefox, safari] {
            assert_eq!(named_quality(field, "image/avif"), Some(1000));
            assert_eq!(named_quality(field, "image/webp"), Some(1000));
            assert_eq!(named_quality(field, "image/jpeg"), None);
            assert_eq!(named_quality(field, "text/html"), None);
        }
        assert_eq!(named_quality(firefox, "image/png"), Some(1000));
        assert_eq!(named_quality(b"*/*", "image/webp"), None);
        let navigation = b"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";
        assert_eq!(named_quality(navigation, "text/html"), Some(1000));
        assert_eq!(named_quality(navigation, "application/xml"), Some(900));
        // A range with another parameter names a narrower type.
        assert_eq!(
            named_quality(navigation, "application/signed-exchange"),
            None
        );
    }

    #[test]
    fn weights_whitespace_case_and_quoted_strings() {
        assert_eq!(
            named_quality(b" image/webp ; q=0.5 ,image/avif;q=0", "image/webp"),
            Some(500)
        );
        assert_eq!(
            named_quality(b"image/webp;q=0.5,image/avif;q=0", "image/avif"),
            Some(0)
        );
        assert_eq!(named_quality(b"IMAGE/Webp", "image/webp"), Some(1000));
        assert_eq!(
            named_quality(b"image/webp;q=1.000", "image/webp"),
            Some(1000)
        );
        assert_eq!(
            named_quality(b",, image/webp;q=0.25 ,", "image/webp"),
            Some(250)
        );
        // The first range that names a type gives its weight.
        assert_eq!(
            named_quality(b"image/webp;q=0.2, image/webp", "image/webp"),
            Some(200)
        );
        // Empty parameters are allowed (RFC 9110 §5.6.6).
        assert_eq!(named_quality(b"image/webp;;q=0.3", "image/webp"), Some(300));
        assert_eq!(named_quality(b"image/webp;", "image/webp"), Some(1000));
        // A comma inside a quoted value does not end the element.
        let quoted = br#"text/plain;x="a,\"b\";c", image/avif;q=0.7"#;
        assert_eq!(named_quality(quoted, "image/avif"), Some(700));
        assert_eq!(named_quality(quoted, "text/plain"), None);
    }

    #[test]
    fn a_malformed_field_is_ignored_as_a_whole() {
        for field in [
            &b"image/avif;q=2"[..],
            b"image/avif;q=0.5;level=1",
            b"image/, image/avif",
            b"image/avif, /webp",
            b"image/avif, image webp",
            b"image/avif, text/plain;x=\"unterminated",
            b"image/avif, text/plain;x",
            b"image/avif, text/plain;=1",
            b"image/avif, text/plain;x=a b",
            b"image/avif;q=",
            b"image/avif, \x01/x",
        ] {
            assert_eq!(
                named_quality(field, "image/avif"),
                None,
                "{:?}",
                String::from_utf8_lossy(field)
            );
        }
    }

    /// A media type and its weight, as a client might write them.
    fn range() -> impl Strategy<Value = (String, Option<u16>, String)> {
        (
            prop::sample::select(&["image/avif", "image/webp", "image/*", "*/*", "text/html"][..]),
            prop::option::of(0u16..=1000),
            "[ \t]{0,2}",
            any::<bool>(),
        )
            .prop_map(|(kind, q, ows, upper)| {
                let kind = if upper {
                    kind.to_ascii_uppercase()
                } else {
                    kind.into()
                };
                (kind, q, ows)
            })
    }

    proptest! {
        /// Total over any bytes, and never above 1000.
        #[test]
        fn total(value in prop::collection::vec(any::<u8>(), 0..80)) {
            if let Some(q) = named_quality(&value, "image/avif") {
                prop_assert!(q <= MAX_QUALITY);
            }
        }

        /// A well-formed field gives each type the weight of the first range that names it.
        #[test]
        fn the_first_named_weight(ranges in prop::collection::vec(range(), 0..6)) {
            let mut field = String::new();
            for (i, (kind, q, ows)) in ranges.iter().enumerate() {
                if i > 0 {
                    field.push_str(ows);
                    field.push(',');
                }
                field.push_str(ows);
                field.push_str(kind);
                if let Some(q) = q {
                    field.push_str(&format!("{ows};{ows}q={}.{:03}", q / 1000, q % 1000));
                }
            }
            for wanted in ["image/avif", "image/webp", "text/html"] {
                let expected = ranges
                    .iter()
                    .find(|(kind, ..)| kind.eq_ignore_ascii_case(wanted))
                    .map(|(_, q, _)| q.unwrap_or(MAX_QUALITY));
                prop_assert_eq!(named_quality(field.as_bytes(), wanted), expected, "{}", field);
            }
        }
    }
}
