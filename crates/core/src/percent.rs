//! Percent-encoding (RFC 3986 §2.1): the one encoder of the project. The core writes Locations
//! with it at run time; sitegen writes the Locations it decides at build time with it too, so
//! both agree byte for byte.

/// Writes `text` in pieces to `out`, with every byte `keep` rejects written as `%XX`
/// (upper-case hex, RFC 3986 §2.1).
///
/// ```
/// use edgesite_core::{is_path_char, percent_encode};
/// let mut out = Vec::new();
/// percent_encode("/café dir/", is_path_char, &mut |piece| out.extend_from_slice(piece));
/// assert_eq!(out, b"/caf%C3%A9%20dir/");
/// ```
pub fn percent_encode(text: &str, keep: fn(u8) -> bool, out: &mut dyn FnMut(&[u8])) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let bytes = text.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !keep(b) {
            out(&bytes[start..i]);
            out(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
            start = i + 1;
        }
    }
    out(&bytes[start..]);
}

/// RFC 3986 §3.3 `pchar` and `/`, without `%` (a `%` in a decoded path is data, so it is
/// encoded): what a decoded path keeps when written as a URI path.
pub fn is_path_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&b)
}

/// RFC 3986 §3.4, less the separators of `application/x-www-form-urlencoded` (`&`, `=`, `+`),
/// so a value written into a query stays one parameter value.
pub fn is_query_value_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$'()*,;:@/?".contains(&b)
}

/// Visible ASCII (`VCHAR`, RFC 5234): what a field value can carry as it is. Text already
/// written as a URI (a destination, a client's query) keeps everything else.
pub fn is_visible_ascii(b: u8) -> bool {
    b.is_ascii_graphic()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;

    fn encoded(text: &str, keep: fn(u8) -> bool) -> String {
        let mut out = std::vec::Vec::new();
        percent_encode(text, keep, &mut |piece| out.extend_from_slice(piece));
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn each_class_keeps_its_characters() {
        assert_eq!(encoded("/a b/%", is_path_char), "/a%20b/%25");
        assert_eq!(encoded("a&b=c+d", is_query_value_char), "a%26b%3Dc%2Bd");
        assert_eq!(encoded("/x?y=1#z é", is_visible_ascii), "/x?y=1#z%20%C3%A9");
    }

    proptest::proptest! {
        /// The output is visible ASCII whatever the input, and decodes back to it (when a `%`
        /// of the input cannot be mistaken for an escape).
        #[test]
        fn encoding_is_visible_ascii_and_reversible(text in ".{0,40}") {
            for keep in [is_path_char, is_query_value_char, is_visible_ascii] {
                let out = encoded(&text, keep);
                proptest::prop_assert!(out.bytes().all(|b| b.is_ascii_graphic()));
                if text.contains('%') && keep(b'%') {
                    continue;
                }
                let mut decoded = std::vec::Vec::new();
                let mut bytes = out.as_bytes();
                while let Some((&b, rest)) = bytes.split_first() {
                    if b == b'%' {
                        let hex = core::str::from_utf8(&rest[..2]).unwrap();
                        decoded.push(u8::from_str_radix(hex, 16).unwrap());
                        bytes = &rest[2..];
                    } else {
                        decoded.push(b);
                        bytes = rest;
                    }
                }
                proptest::prop_assert_eq!(decoded, text.as_bytes());
            }
        }
    }
}
