//! URL-path globs for configuration rules: `*` matches within one segment, `**` across
//! segments, `?` one character; everything else literally. `/assets/**` matches every file under
//! `/assets/`; `/*.html` only the top-level pages.

/// Whether `path` matches `pattern`.
pub(crate) fn matches(pattern: &str, path: &str) -> bool {
    let mut failed = std::collections::HashSet::new();
    matches_at(pattern.as_bytes(), path.as_bytes(), (0, 0), &mut failed)
}

/// Whether `pattern[pi..]` matches `path[ti..]`; every position pair that failed is kept in
/// `failed` and not tried again, so many `*` cost pattern × path steps, not exponential time.
fn matches_at(
    pattern: &[u8],
    path: &[u8],
    (pi, ti): (usize, usize),
    failed: &mut std::collections::HashSet<(usize, usize)>,
) -> bool {
    if failed.contains(&(pi, ti)) {
        return false;
    }
    let rest = &path[ti..];
    let mut at = |p: usize, t: usize| matches_at(pattern, path, (p, t), failed);
    let found = match &pattern[pi..] {
        [] => rest.is_empty(),
        [b'*', b'*', ..] => (ti..=path.len()).any(|i| at(pi + 2, i)),
        [b'*', ..] => {
            let segment = rest.iter().position(|&b| b == b'/').unwrap_or(rest.len());
            (ti..=ti + segment).any(|i| at(pi + 1, i))
        }
        [b'?', ..] => matches!(rest, [c, ..] if *c != b'/') && at(pi + 1, ti + 1),
        [c, ..] => rest.first() == Some(c) && at(pi + 1, ti + 1),
    };
    if !found {
        failed.insert((pi, ti));
    }
    found
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
