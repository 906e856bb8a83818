//! Content codings (RFC 9110 §8.4.1): the one list of what edgesite can store and send.
//!
//! Everything that depends on the set of codings is written over [`ContentCoding::ALL`] or an
//! exhaustive `match`, so adding a coding is a compiler-guided change: the token (here), the
//! encoder (sitegen's `compress.rs`) and nothing else by hand. Negotiation's quality table is
//! sized by [`ContentCoding::COUNT`].

/// A content coding (RFC 9110 §8.4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ContentCoding {
    /// No encoding.
    Identity,
    /// Brotli (RFC 7932).
    Br,
    /// Zstandard (RFC 8878).
    Zstd,
    /// gzip (RFC 9110 §8.4.1.3).
    Gzip,
    /// Dictionary-compressed Brotli (RFC 9842 §5.1): a delta against a dictionary the client
    /// holds, sent only when its Available-Dictionary names that dictionary.
    Dcb,
    /// Dictionary-compressed Zstandard (RFC 9842 §5.2), likewise.
    Dcz,
}

impl ContentCoding {
    /// Every coding, identity first; [`ContentCoding::index`] is the position in this list.
    pub const ALL: [ContentCoding; 6] = [
        ContentCoding::Identity,
        ContentCoding::Br,
        ContentCoding::Zstd,
        ContentCoding::Gzip,
        ContentCoding::Dcb,
        ContentCoding::Dcz,
    ];

    /// How many codings there are.
    pub const COUNT: usize = ContentCoding::ALL.len();

    /// The position of this coding in [`ContentCoding::ALL`].
    pub const fn index(self) -> usize {
        match self {
            ContentCoding::Identity => 0,
            ContentCoding::Br => 1,
            ContentCoding::Zstd => 2,
            ContentCoding::Gzip => 3,
            ContentCoding::Dcb => 4,
            ContentCoding::Dcz => 5,
        }
    }

    /// Whether the bytes need a dictionary the client holds (RFC 9842 §5): such a
    /// representation is a delta, chosen only for a request whose Available-Dictionary names
    /// its dictionary, never by Accept-Encoding alone.
    pub const fn needs_dictionary(self) -> bool {
        match self {
            ContentCoding::Dcb | ContentCoding::Dcz => true,
            ContentCoding::Identity
            | ContentCoding::Br
            | ContentCoding::Zstd
            | ContentCoding::Gzip => false,
        }
    }

    /// The token used in Content-Encoding and Accept-Encoding.
    pub const fn token(self) -> &'static str {
        match self {
            ContentCoding::Identity => "identity",
            ContentCoding::Br => "br",
            ContentCoding::Zstd => "zstd",
            ContentCoding::Gzip => "gzip",
            ContentCoding::Dcb => "dcb",
            ContentCoding::Dcz => "dcz",
        }
    }

    /// The coding a token names, case-insensitively (RFC 9110 §8.4.1); `x-gzip` is gzip
    /// (§8.4.1.3).
    ///
    /// ```
    /// use edgesite_core::ContentCoding;
    /// assert_eq!(ContentCoding::from_token(b"BR"), Some(ContentCoding::Br));
    /// assert_eq!(ContentCoding::from_token(b"x-gzip"), Some(ContentCoding::Gzip));
    /// assert_eq!(ContentCoding::from_token(b"deflate"), None);
    /// ```
    pub fn from_token(token: &[u8]) -> Option<ContentCoding> {
        if token.eq_ignore_ascii_case(b"x-gzip") {
            return Some(ContentCoding::Gzip);
        }
        ContentCoding::ALL
            .into_iter()
            .find(|coding| token.eq_ignore_ascii_case(coding.token().as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::ContentCoding;

    #[test]
    fn index_is_the_position_in_all_and_tokens_round_trip() {
        for (i, coding) in ContentCoding::ALL.into_iter().enumerate() {
            assert_eq!(coding.index(), i);
            assert_eq!(
                ContentCoding::from_token(coding.token().as_bytes()),
                Some(coding)
            );
        }
    }
}
