//! Accept-Encoding and the choice of a stored representation (RFC 9110 §12.5.3).
//!
//! # ABNF
//! ```text
//! Accept-Encoding = #( codings [ weight ] )
//! codings         = content-coding / "identity" / "*"
//! weight          = OWS ";" OWS "q=" qvalue
//! qvalue          = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
//! ```
//!
//! The rules edgesite applies:
//! - coding names are case-insensitive; `x-gzip` is `gzip` (§8.4.1.3);
//! - a coding's quality is its own entry's, else that of `*`, else 0; `identity` is acceptable
//!   unless excluded by `identity;q=0`, or by `*;q=0` with no `identity` entry. An `identity`
//!   that is neither listed nor covered by `*` gets the lowest non-zero quality (0.001): it is
//!   acceptable, but any coding the client did list is preferred to it;
//! - no Accept-Encoding, an empty one, or a malformed one: identity only (a malformed field
//!   is treated as absent; edgesite then sends what every client can read);
//! - among the stored representations with quality > 0, the highest quality wins, and among equal
//!   qualities the fewest bytes (browsers send no weights, so this is the smallest body);
//! - nothing acceptable: 406 Not Acceptable.

use crate::base64::{sextets, STANDARD};
use crate::coding::ContentCoding;
use crate::ows::trim;
use crate::site::{Asset, Representation};

/// The highest quality, 1.000, in thousandths.
pub(crate) const MAX_QUALITY: u16 = 1000;
/// The quality of an identity the field does not mention: acceptable, least preferred.
const IMPLICIT_IDENTITY: u16 = 1;

/// The qualities an Accept-Encoding field gives each coding edgesite stores, from one pass over
/// the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcceptEncoding {
    /// Indexed by [`ContentCoding::index`], in thousandths.
    qualities: [u16; ContentCoding::COUNT],
}

impl AcceptEncoding {
    /// Parses a field value; `None` when malformed (then treated as absent).
    ///
    /// ```
    /// use edgesite_core::{AcceptEncoding, ContentCoding};
    /// let ae = AcceptEncoding::parse(b"gzip;q=0.8, BR, *;q=0").unwrap();
    /// assert_eq!(ae.quality(ContentCoding::Br), 1000);
    /// assert_eq!(ae.quality(ContentCoding::Gzip), 800);
    /// assert_eq!(ae.quality(ContentCoding::Zstd), 0);
    /// assert_eq!(ae.quality(ContentCoding::Identity), 0);
    /// assert_eq!(AcceptEncoding::parse(b"gzip;q=0.5").unwrap().quality(ContentCoding::Identity), 1);
    /// assert_eq!(AcceptEncoding::parse(b"gzip;q=2"), None);
    /// ```
    pub fn parse(value: &[u8]) -> Option<Self> {
        let mut explicit: [Option<u16>; ContentCoding::COUNT] = [None; ContentCoding::COUNT];
        let mut star = None;
        for element in Elements(value) {
            let (name, q) = element?;
            if name == b"*" {
                star.get_or_insert(q);
            } else if let Some(coding) = ContentCoding::from_token(name) {
                explicit[coding.index()].get_or_insert(q);
            }
        }
        let qualities = ContentCoding::ALL.map(|coding| match (explicit[coding.index()], star) {
            // RFC 9842 §5: a dictionary coding only when listed by name, never through `*`.
            (Some(q), _) => q,
            (None, Some(q)) if !coding.needs_dictionary() => q,
            (None, None) if coding == ContentCoding::Identity => IMPLICIT_IDENTITY,
            (None, _) => 0,
        });
        Some(AcceptEncoding { qualities })
    }

    /// The quality of `coding`, in thousandths (0 = not acceptable).
    pub fn quality(&self, coding: ContentCoding) -> u16 {
        self.qualities[coding.index()]
    }
}

/// Chooses the representation of `asset` to send (RFC 9110 §12.5.3), or `None` for 406.
/// `accept_encoding` is the raw field value, if the request had one. Deltas are not
/// considered: see [`negotiate`].
pub fn select<'a>(
    asset: &'a Asset<'a>,
    accept_encoding: Option<&[u8]>,
) -> Option<&'a Representation<'a>> {
    negotiate(asset, accept_encoding, None)
}

/// [`select`], with the request's Available-Dictionary (RFC 9842 §2.2): when it names the
/// dictionary of one of the asset's deltas and Accept-Encoding lists that delta's coding
/// (`dcb`, `dcz`) at a quality no lower than the best ordinary choice's, the delta is chosen
/// (the smallest, among equals). A malformed or unknown Available-Dictionary is ignored.
pub fn negotiate<'a>(
    asset: &'a Asset<'a>,
    accept_encoding: Option<&[u8]>,
    available_dictionary: Option<&[u8]>,
) -> Option<&'a Representation<'a>> {
    negotiate_parsed(
        asset,
        parsed(accept_encoding).as_ref(),
        available_dictionary,
    )
}

/// An Accept-Encoding field as [`negotiate`] reads it: `None` (identity only) when absent, empty
/// (§12.5.3: wants no coding) or malformed.
pub(crate) fn parsed(accept_encoding: Option<&[u8]>) -> Option<AcceptEncoding> {
    match accept_encoding {
        Some(value) if !value.iter().all(|b| matches!(b, b' ' | b'\t')) => {
            AcceptEncoding::parse(value)
        }
        _ => None,
    }
}

/// [`negotiate`] with the field already [`parsed`].
pub(crate) fn negotiate_parsed<'a>(
    asset: &'a Asset<'a>,
    accept: Option<&AcceptEncoding>,
    available_dictionary: Option<&[u8]>,
) -> Option<&'a Representation<'a>> {
    // Absent, empty or malformed: identity only.
    let Some(accept) = accept else {
        return Some(asset.identity());
    };
    let best = best_of(asset.representations.iter(), accept);
    let delta = available_dictionary.and_then(|value| {
        let value = trim(value);
        let matching = asset
            .deltas
            .iter()
            .filter(|d| names(value, d.available_dictionary));
        best_of(matching.map(|d| &d.representation), accept)
    });
    match (best, delta) {
        (Some((_, q)), Some((delta, delta_q))) if delta_q >= q => Some(delta),
        (None, Some((delta, _))) => Some(delta),
        (best, _) => best.map(|(representation, _)| representation),
    }
}

/// The acceptable representation of highest quality, the fewest bytes among equals.
fn best_of<'a>(
    representations: impl Iterator<Item = &'a Representation<'a>>,
    accept: &AcceptEncoding,
) -> Option<(&'a Representation<'a>, u16)> {
    let mut best: Option<(&'a Representation<'a>, u16)> = None;
    for representation in representations {
        let q = accept.quality(representation.coding);
        let better = match best {
            _ if q == 0 => false,
            None => true,
            Some((chosen, best_q)) => {
                q > best_q || (q == best_q && representation.length() < chosen.length())
            }
        };
        if better {
            best = Some((representation, q));
        }
    }
    best
}

/// Whether an Available-Dictionary value (without OWS) names the dictionary whose field value is
/// `stored` (`:base64=:`, canonical): the same text, or the same without the padding. The same
/// as comparing [`dictionary_hash`]es, without decoding.
fn names(value: &[u8], stored: &str) -> bool {
    let stored = stored.as_bytes();
    value == stored
        || (value.len() + 1 == stored.len()
            && stored.len() >= 3
            && value[..value.len() - 1] == stored[..stored.len() - 2]
            && value.last() == Some(&b':')
            && stored[stored.len() - 2] == b'=')
}

/// The SHA-256 an Available-Dictionary field value names (RFC 9842 §2.2): an RFC 8941 §3.3.5
/// byte sequence, `:` base64 `:`, of exactly 32 bytes, with optional whitespace around it and
/// the base64 padding optional. Anything else is `None` (the field is ignored).
///
/// ```
/// use edgesite_core::dictionary_hash;
/// let hash = dictionary_hash(b" :AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=: ").unwrap();
/// assert_eq!(hash[..4], [0, 1, 2, 3]);
/// assert_eq!(hash[31], 31);
/// assert_eq!(dictionary_hash(b":AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8:"), Some(hash));
/// assert_eq!(dictionary_hash(b"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="), None);
/// assert_eq!(dictionary_hash(b":AAEC:"), None);
/// ```
pub fn dictionary_hash(value: &[u8]) -> Option<[u8; 32]> {
    let inner = trim(value).strip_prefix(b":")?.strip_suffix(b":")?;
    let inner = inner.strip_suffix(b"=").unwrap_or(inner);
    // 32 bytes: ten groups of four characters (30 bytes), then three characters (2 bytes).
    let (groups, tail) = (inner.get(..40)?, inner.get(40..)?);
    if tail.len() != 3 {
        return None;
    }
    let mut out = [0u8; 32];
    for (chunk, bytes) in groups.chunks_exact(4).zip(out.chunks_exact_mut(3)) {
        let n = sextets(&STANDARD, chunk)?;
        bytes.copy_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
    }
    // The last three characters carry 18 bits: 16 of data, then 2 that must be zero
    // (canonical encoding, RFC 4648 §3.5).
    let n = sextets(&STANDARD, &[tail[0], tail[1], tail[2], b'A'])? >> 6;
    if n & 0b11 != 0 {
        return None;
    }
    out[30] = (n >> 10) as u8;
    out[31] = (n >> 2) as u8;
    Some(out)
}

/// The elements of the list: `Some((coding, quality))`, or `None` for a malformed element.
/// Empty elements are skipped (RFC 9110 §5.6.1.2).
struct Elements<'a>(&'a [u8]);

impl<'a> Iterator for Elements<'a> {
    type Item = Option<(&'a [u8], u16)>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (element, rest) = match self.0.iter().position(|&b| b == b',') {
                Some(i) => (&self.0[..i], &self.0[i + 1..]),
                None if self.0.is_empty() => return None,
                None => (self.0, &b""[..]),
            };
            self.0 = rest;
            let element = trim(element);
            if !element.is_empty() {
                return Some(parse_element(element));
            }
        }
    }
}

fn parse_element(element: &[u8]) -> Option<(&[u8], u16)> {
    let (name, weight) = match element.iter().position(|&b| b == b';') {
        Some(i) => (trim(&element[..i]), Some(trim(&element[i + 1..]))),
        None => (element, None),
    };
    if name.is_empty() || !name.iter().all(|&b| is_tchar(b)) {
        return None;
    }
    let q = match weight {
        None => MAX_QUALITY,
        Some(weight) => {
            let value = weight
                .strip_prefix(b"q=")
                .or_else(|| weight.strip_prefix(b"Q="))?;
            qvalue(value)?
        }
    };
    Some((name, q))
}

/// `qvalue` in thousandths.
pub(crate) fn qvalue(s: &[u8]) -> Option<u16> {
    let (int, frac) = match s.iter().position(|&b| b == b'.') {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, &b""[..]),
    };
    if frac.len() > 3 || !frac.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let thousandths = frac
        .iter()
        .chain(core::iter::repeat(&b'0'))
        .take(3)
        .fold(0u16, |n, &d| n * 10 + u16::from(d - b'0'));
    match int {
        b"0" => Some(thousandths),
        b"1" if thousandths == 0 => Some(MAX_QUALITY),
        _ => None,
    }
}

/// tchar (RFC 9110 §5.6.2).
pub(crate) fn is_tchar(b: u8) -> bool {
    TCHAR[usize::from(b)]
}

/// `tchar`'s bytes as a table: every field parser checks every byte of a token with it.
static TCHAR: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'!' | b'#'
                    | b'$'
                    | b'%'
                    | b'&'
                    | b'\''
                    | b'*'
                    | b'+'
                    | b'-'
                    | b'.'
                    | b'^'
                    | b'_'
                    | b'`'
                    | b'|'
                    | b'~'
            );
        b += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::Content;
    use crate::site::Delta;
    use proptest::prelude::*;
    use ContentCoding::{Br, Gzip, Identity, Zstd};

    fn q(value: &str, coding: ContentCoding) -> u16 {
        AcceptEncoding::parse(value.as_bytes())
            .unwrap()
            .quality(coding)
    }

    static ASSET: Asset<'static> = Asset {
        deltas: &[],
        variants: &[],
        alternate: None,
        content_type: "text/html; charset=utf-8",
        last_modified: "Thu, 01 Jan 1970 00:00:00 GMT",
        last_modified_unix: 0,
        cache_control: "no-cache",
        fingerprint: "",
        fields: &[],
        representations: &[
            Representation {
                coding: Identity,
                etag: "\"i\"",
                content_length: "10",
                content: Content::Bytes(b"0123456789"),
            },
            Representation {
                coding: Br,
                etag: "\"b\"",
                content_length: "3",
                content: Content::Bytes(b"bbb"),
            },
            Representation {
                coding: Zstd,
                etag: "\"z\"",
                content_length: "4",
                content: Content::Bytes(b"zzzz"),
            },
            Representation {
                coding: Gzip,
                etag: "\"g\"",
                content_length: "5",
                content: Content::Bytes(b"ggggg"),
            },
        ],
    };

    fn chosen(value: Option<&str>) -> Option<ContentCoding> {
        select(&ASSET, value.map(str::as_bytes)).map(|r| r.coding)
    }

    /// The table is RFC 9110 §5.6.2's tchar, byte for byte.
    #[test]
    fn tchar_is_rfc_9110s() {
        for b in 0..=255u8 {
            let rfc = b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
            assert_eq!(is_tchar(b), rfc, "{b}");
        }
    }

    #[test]
    fn qvalues_names_and_whitespace() {
        assert_eq!(q("gzip;q=0.5", Gzip), 500);
        assert_eq!(q(" GZIP ; q=0.25 , br", Gzip), 250);
        assert_eq!(q("x-gzip", Gzip), 1000);
        assert_eq!(q("gzip;q=1.000", Gzip), 1000);
        assert_eq!(q("gzip;q=0", Gzip), 0);
        assert_eq!(q("br", Gzip), 0);
    }

    #[test]
    fn star_and_identity_defaults() {
        // RFC 9110 §12.5.3: identity is acceptable unless excluded.
        assert_eq!(q("br", Identity), IMPLICIT_IDENTITY);
        assert_eq!(q("identity;q=0", Identity), 0);
        assert_eq!(q("*;q=0", Identity), 0);
        assert_eq!(q("*;q=0, identity", Identity), 1000);
        assert_eq!(q("*;q=0.3", Zstd), 300);
    }

    #[test]
    fn malformed_values_are_rejected() {
        for bad in [
            "gzip;q=2",
            "gzip;q=1.5",
            "gzip;q=0.1234",
            "gzip;level=1",
            "gz ip",
            "gzip;q=",
            "gzip;q=.5",
        ] {
            assert_eq!(AcceptEncoding::parse(bad.as_bytes()), None, "{bad:?}");
        }
    }

    #[test]
    fn the_smallest_acceptable_representation_wins() {
        assert_eq!(chosen(Some("gzip, deflate, br, zstd")), Some(Br));
        assert_eq!(chosen(Some("gzip, zstd")), Some(Zstd));
        assert_eq!(chosen(Some("gzip")), Some(Gzip));
        assert_eq!(chosen(Some("deflate")), Some(Identity));
    }

    #[test]
    fn a_higher_weight_beats_a_smaller_body() {
        assert_eq!(chosen(Some("br;q=0.5, gzip")), Some(Gzip));
    }

    #[test]
    fn any_listed_coding_beats_an_unlisted_identity() {
        assert_eq!(chosen(Some("br;q=0.1, gzip;q=0.9")), Some(Gzip));
        assert_eq!(chosen(Some("gzip;q=0.001")), Some(Gzip));
        assert_eq!(chosen(Some("gzip;q=0.5, identity")), Some(Identity));
    }

    #[test]
    fn no_empty_or_malformed_header_means_identity() {
        assert_eq!(chosen(None), Some(Identity));
        assert_eq!(chosen(Some("")), Some(Identity));
        assert_eq!(chosen(Some("br;q=9")), Some(Identity));
    }

    #[test]
    fn nothing_acceptable_is_none() {
        // RFC 9110 §12.5.3 and §15.5.7: 406.
        assert_eq!(chosen(Some("identity;q=0")), None);
        assert_eq!(chosen(Some("deflate, *;q=0")), None);
        assert_eq!(chosen(Some("br;q=0, identity;q=0")), None);
    }

    proptest! {
        /// Totality: any bytes parse and select without panicking.
        #[test]
        fn select_is_total(value in proptest::collection::vec(any::<u8>(), 0..48)) {
            let _ = select(&ASSET, Some(&value));
        }

        /// The choice is a representation whose coding is acceptable, and no acceptable one
        /// has a higher quality or, at equal quality, fewer bytes.
        #[test]
        fn the_choice_is_optimal(
            weights in proptest::collection::vec((0usize..5, 0u16..=1000), 0..6)
        ) {
            let names = ["identity", "br", "zstd", "gzip", "*"];
            let value = weights
                .iter()
                .map(|(n, q)| std::format!("{};q={}.{:03}", names[*n], q / 1000, q % 1000))
                .collect::<std::vec::Vec<_>>()
                .join(", ");
            let accept = AcceptEncoding::parse(value.as_bytes()).unwrap();
            match select(&ASSET, Some(value.as_bytes())) {
                Some(choice) => {
                    let key = |r: &Representation<'_>| (accept.quality(r.coding), core::cmp::Reverse(r.length()));
                    prop_assert!(accept.quality(choice.coding) > 0 || value.is_empty());
                    for other in ASSET.representations {
                        prop_assert!(accept.quality(other.coding) == 0 || key(other) <= key(choice));
                    }
                }
                None => prop_assert!(ASSET.representations.iter().all(|r| accept.quality(r.coding) == 0)),
            }
        }
    }

    /// The asset of the tests above with two deltas (RFC 9842): dcz and dcb against the
    /// dictionary whose SHA-256 is 0, 1, ..., 31.
    static WITH_DELTAS: Asset<'static> = Asset {
        deltas: &[
            Delta {
                available_dictionary: AVAILABLE,
                representation: Representation {
                    coding: ContentCoding::Dcz,
                    etag: "\"dz\"",
                    content_length: "2",
                    content: Content::Bytes(b"dz"),
                },
            },
            Delta {
                available_dictionary: AVAILABLE,
                representation: Representation {
                    coding: ContentCoding::Dcb,
                    etag: "\"db\"",
                    content_length: "1",
                    content: Content::Bytes(b"d"),
                },
            },
        ],
        ..ASSET
    };
    /// The SHA-256 0, 1, ..., 31 as Available-Dictionary sends it.
    const AVAILABLE: &str = ":AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=:";
    const CHROME: &str = "gzip, deflate, br, zstd, dcb, dcz";

    fn with_dictionary(accept_encoding: &str, available: Option<&str>) -> Option<&'static str> {
        negotiate(
            &WITH_DELTAS,
            Some(accept_encoding.as_bytes()),
            available.map(str::as_bytes),
        )
        .map(|r| r.etag)
    }

    #[test]
    fn a_named_dictionary_selects_the_smallest_acceptable_delta() {
        // RFC 9842 §2.2 and §5: the hash matches and both codings are listed.
        assert_eq!(with_dictionary(CHROME, Some(AVAILABLE)), Some("\"db\""));
        assert_eq!(with_dictionary("br, dcz", Some(AVAILABLE)), Some("\"dz\""));
        // Optional whitespace around the field value, padding omitted.
        let unpadded = "  :AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8:\t";
        assert_eq!(with_dictionary(CHROME, Some(unpadded)), Some("\"db\""));
    }

    #[test]
    fn no_unknown_or_malformed_dictionary_or_unlisted_coding_means_ordinary_negotiation() {
        let br = Some("\"b\"");
        assert_eq!(with_dictionary(CHROME, None), br);
        // Another dictionary (the last byte differs).
        let other = ":AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh4=:";
        assert_eq!(with_dictionary(CHROME, Some(other)), br);
        for malformed in [
            "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
            ":AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
            ":AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=:, :AA==:",
            ":AAEC:",
            ":AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh*=:",
            // Non-canonical: the last character's unused bits are not zero.
            ":AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9=:",
            "",
        ] {
            assert_eq!(
                with_dictionary(CHROME, Some(malformed)),
                br,
                "{malformed:?}"
            );
        }
        // The delta's coding must be listed by name: not implied by `*`.
        assert_eq!(with_dictionary("br, *", Some(AVAILABLE)), br);
        assert_eq!(with_dictionary("br, dcz;q=0, dcb;q=0", Some(AVAILABLE)), br);
        // A lower weight than the best ordinary choice's.
        assert_eq!(with_dictionary("br, dcz;q=0.5", Some(AVAILABLE)), br);
        // Only deltas acceptable: still a choice, not 406.
        assert_eq!(
            with_dictionary("dcz, identity;q=0", Some(AVAILABLE)),
            Some("\"dz\"")
        );
    }

    #[test]
    fn deltas_add_available_dictionary_to_vary() {
        // RFC 9842 §6.2.
        assert_eq!(
            WITH_DELTAS.vary(),
            Some("accept-encoding, available-dictionary")
        );
        assert_eq!(ASSET.vary(), Some("accept-encoding"));
    }

    proptest! {
        /// Totality: any Available-Dictionary bytes parse without panicking, and a parsed hash
        /// is 32 bytes that encode back to the same characters.
        #[test]
        fn dictionary_hash_is_total(value in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = negotiate(&WITH_DELTAS, Some(CHROME.as_bytes()), Some(&value));
            let _ = dictionary_hash(&value);
        }

        #[test]
        fn every_hash_round_trips(hash in proptest::array::uniform32(any::<u8>())) {
            use base64::Engine as _;
            let value = std::format!(":{}:", base64::engine::general_purpose::STANDARD.encode(hash));
            prop_assert_eq!(dictionary_hash(value.as_bytes()), Some(hash));
        }
    }
}
