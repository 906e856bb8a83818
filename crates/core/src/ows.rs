//! Optional whitespace (RFC 9110 §5.6.3): `OWS = *( SP / HTAB )`, around list elements,
//! parameters and field values. Shared by every field parser.

/// `s` without leading OWS.
pub(crate) fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| matches!(b, b' ' | b'\t')).count();
    &s[n..]
}

/// `s` without leading or trailing OWS.
pub(crate) fn trim(s: &[u8]) -> &[u8] {
    let s = trim_start(s);
    let n = s
        .iter()
        .rev()
        .take_while(|&&b| matches!(b, b' ' | b'\t'))
        .count();
    &s[..s.len() - n]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_spaces_and_tabs_are_trimmed() {
        assert_eq!(trim(b" \t a b \t"), b"a b");
        assert_eq!(trim(b"\r\na\n"), b"\r\na\n");
        assert_eq!(trim(b"   "), b"");
        assert_eq!(trim_start(b"\t x "), b"x ");
    }
}
