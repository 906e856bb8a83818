//! The one check every configured header field passes at build time (`[headers]`, `[cache]`,
//! `[[cache.rules]]`, `_headers`), so both runtimes can send what the site holds as it is: the
//! native twin hands it to hyper without copying, the Worker to `Headers` without a chance of a
//! TypeError (which would be a 500 on every response).
//!
//! # ABNF (RFC 9110 §5.1, §5.5, §5.6.2)
//! ```text
//! field-name    = token
//! token         = 1*tchar
//! field-value   = *field-content
//! field-content = field-vchar [ 1*( SP / HTAB / field-vchar ) field-vchar ]
//! field-vchar   = VCHAR / obs-text
//! ```
//! edgesite is stricter than the grammar in two ways: `obs-text` (bytes 0x80-0xFF) is refused,
//! because RFC 9110 §5.5 says a sender SHOULD send only visible ASCII and runtimes differ on
//! other bytes; and a value is at most [`MAX_VALUE_LEN`] bytes. CR, LF, NUL and every other
//! control are refused: they would split or end the field.

/// The longest configured field value, in bytes (a Content-Security-Policy of a few kilobytes
/// fits; servers and CDNs refuse header sections far smaller than 64 KB).
pub(crate) const MAX_VALUE_LEN: usize = 8192;

/// Checks a field name: a token (RFC 9110 §5.6.2).
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || !name.bytes().all(is_tchar) {
        return Err(format!(
            "{} is not a field name (letters, digits and !#$%&'*+-.^_`|~ only)",
            crate::error::excerpt(name)
        ));
    }
    Ok(())
}

/// Checks a field value (RFC 9110 §5.5): visible ASCII, with spaces and tabs only between
/// visible characters, at most [`MAX_VALUE_LEN`] bytes. An empty value passes (where an empty
/// value means something else, such as "off", the caller decides before).
pub(crate) fn check_value(value: &str) -> Result<(), String> {
    if value.len() > MAX_VALUE_LEN {
        return Err(format!(
            "the value is {} bytes, over the limit of {MAX_VALUE_LEN}",
            value.len()
        ));
    }
    if let Some(c) = value
        .chars()
        .find(|&c| !(c.is_ascii_graphic() || c == ' ' || c == '\t'))
    {
        return Err(format!(
            "the value contains {c:?}; values must be visible ASCII, spaces and tabs (no line breaks or controls)"
        ));
    }
    if value.starts_with([' ', '\t']) || value.ends_with([' ', '\t']) {
        return Err(format!(
            "the value {value:?} starts or ends with a space or tab; remove it"
        ));
    }
    Ok(())
}

/// tchar (RFC 9110 §5.6.2).
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_tokens() {
        assert!(check_name("x-robots-tag").is_ok());
        for bad in ["", "x y", "x:y", "é", "a\n"] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn values_are_visible_ascii_with_inner_spaces() {
        assert!(check_value("default-src 'self'; img-src *").is_ok());
        assert!(check_value("").is_ok());
        for bad in [
            "a\nX-Injected: yes",
            "a\r\nb",
            "a\0",
            "caf\u{e9}",
            " leading",
            "trailing\t",
            "\u{7f}",
        ] {
            assert!(check_value(bad).is_err(), "{bad:?}");
        }
        assert!(check_value(&"a".repeat(MAX_VALUE_LEN)).is_ok());
        assert!(check_value(&"a".repeat(MAX_VALUE_LEN + 1)).is_err());
    }
}
