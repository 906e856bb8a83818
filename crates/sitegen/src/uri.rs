//! URI text at build time, through edgesite-core's one percent-encoder (so a Location decided at
//! build time is byte for byte what the core would write at run time).

/// `text` with every byte `keep` rejects percent-encoded (RFC 3986 §2.1).
pub(crate) fn encoded(text: &str, keep: fn(u8) -> bool) -> String {
    let mut out = Vec::with_capacity(text.len());
    edgesite_core::percent_encode(text, keep, &mut |piece| out.extend_from_slice(piece));
    // Encoding keeps ASCII and writes `%XX`: the output is ASCII whenever `keep` accepts only
    // ASCII, and otherwise the input's own UTF-8 untouched.
    String::from_utf8(out).expect("percent-encoding keeps UTF-8 valid")
}

/// `path` (a decoded URL path) as a URL pattern's pathname (WHATWG URL Pattern) matching the
/// path a browser requests, written as the inside of a structured-field string (RFC 8941
/// §3.3.3): what `Use-As-Dictionary: match="..."` carries (RFC 9842 §2.1.1).
///
/// - Bytes a browser percent-encodes in a path (the WHATWG URL path percent-encode set: controls,
///   space, `"`, `#`, `<`, `>`, `?`, `^`, `` ` ``, `{`, `}`, non-ASCII; and `|`, which Chromium
///   156 encodes too: `new URL("http://x/a|b").pathname` is `/a%7Cb`), and `%` (data in a
///   decoded path), are written `%XX`, as the request will carry them;
/// - the pattern syntax's own characters (`*`, `:`, `(`, `)`, `+`, `\`) are escaped with `\`,
///   which the string writes as `\\`.
pub(crate) fn url_pattern_path(path: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in path.as_bytes() {
        let encoded = b <= b' ' || b >= 0x7f || b"\"#<>?^`{|}%".contains(&b);
        if encoded {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        } else {
            if b"*:()+\\".contains(&b) {
                out.push_str("\\\\");
            }
            out.push(char::from(b));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::url_pattern_path;

    fn pattern(path: &str) -> String {
        let mut out = String::new();
        url_pattern_path(path, &mut out);
        out
    }

    #[test]
    fn a_pattern_names_the_path_as_a_browser_requests_it() {
        // Checked against Chromium 156's URLPattern: each matches the URL a link to the file
        // makes (`/café x.js` is requested as `/caf%C3%A9%20x.js`).
        assert_eq!(pattern("/café x.js"), "/caf%C3%A9%20x.js");
        assert_eq!(pattern("/100%.js"), "/100%25.js");
        assert_eq!(pattern("/a{b}#?.js"), "/a%7Bb%7D%23%3F.js");
        assert_eq!(
            pattern("/a(1)+b:c*.js"),
            "/a\\\\(1\\\\)\\\\+b\\\\:c\\\\*.js"
        );
        // What Chromium 156 sends as it is, and the two it encodes beyond `{`, `}`, `` ` ``.
        assert_eq!(pattern("/a[1]'~!.js"), "/a[1]'~!.js");
        assert_eq!(pattern("/a|b^c.js"), "/a%7Cb%5Ec.js");
        assert_eq!(pattern("/new\nline\u{7f}.js"), "/new%0Aline%7F.js");
        let all: String = (1..=127u8).map(char::from).collect();
        assert!(pattern(&all).bytes().all(|b| b.is_ascii_graphic()));
    }
}
