//! URL-path globs for configuration rules: `*` matches within one segment, `**` across
//! segments, `?` one character; everything else literally. `/assets/**` matches every file under
//! `/assets/`; `/*.html` only the top-level pages.

/// Whether `path` matches `pattern`.
pub(crate) fn matches(pattern: &str, path: &str) -> bool {
    matches_bytes(pattern.as_bytes(), path.as_bytes())
}

fn matches_bytes(pattern: &[u8], path: &[u8]) -> bool {
    match pattern {
        [] => path.is_empty(),
        [b'*', b'*', rest @ ..] => (0..=path.len()).any(|i| matches_bytes(rest, &path[i..])),
        [b'*', rest @ ..] => {
            let segment = path.iter().position(|&b| b == b'/').unwrap_or(path.len());
            (0..=segment).any(|i| matches_bytes(rest, &path[i..]))
        }
        [b'?', rest @ ..] => {
            matches!(path, [c, tail @ ..] if *c != b'/' && matches_bytes(rest, tail))
        }
        [c, rest @ ..] => matches!(path, [p, tail @ ..] if p == c && matches_bytes(rest, tail)),
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_questions_and_literals() {
        assert!(matches("/assets/**", "/assets/a/b/c.js"));
        assert!(!matches("/assets/**", "/other/a.js"));
        assert!(matches("/*.html", "/index.html"));
        assert!(!matches("/*.html", "/guide/index.html"));
        assert!(matches("/**/*.woff2", "/fonts/x/inter.woff2"));
        assert!(matches("/**.css", "/a/b.css"));
        assert!(matches("/img/?.png", "/img/a.png"));
        assert!(!matches("/img/?.png", "/img/ab.png"));
        assert!(matches("/exact.txt", "/exact.txt"));
        assert!(!matches("/exact.txt", "/exact.txt2"));
    }
}
