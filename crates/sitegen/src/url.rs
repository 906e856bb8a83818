//! URL references as the link pass reads them: which are local, how a relative one resolves
//! against the page's URL (RFC 3986 §5.2), how `srcset` lists them (HTML's "parse a srcset
//! attribute"), and how a path becomes a request target.

use std::ops::Range;

/// Whether `url` names something on this site: not empty, not only a fragment, no scheme
/// (`https:`, `data:`, `mailto:`, `javascript:`...) and not scheme-relative (`//host/...`).
pub(crate) fn is_local(url: &str) -> bool {
    !url.is_empty() && !url.starts_with('#') && !url.starts_with("//") && !has_scheme(url)
}

/// RFC 3986 §3.1: `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` before a `:` that
/// comes before any `/`, `?` or `#`.
fn has_scheme(url: &str) -> bool {
    let end = url.find([':', '/', '?', '#']);
    match end {
        Some(colon) if url.as_bytes()[colon] == b':' => {
            let scheme = &url.as_bytes()[..colon];
            scheme.first().is_some_and(u8::is_ascii_alphabetic)
                && scheme
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        }
        _ => false,
    }
}

/// A URL's path, query (without `?`) and fragment (without `#`).
pub(crate) fn split(url: &str) -> (&str, Option<&str>, Option<&str>) {
    let (rest, fragment) = match url.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (url, None),
    };
    match rest.split_once('?') {
        Some((path, query)) => (path, Some(query), fragment),
        None => (rest, None, fragment),
    }
}

/// The path a reference's `path` names, seen from a document at `base` (an absolute path):
/// RFC 3986 §5.2.2 for a reference without scheme and authority, with §5.2.3's merge and
/// §5.2.4's dot-segment removal. An empty path is the base itself.
pub(crate) fn resolve(base: &str, path: &str) -> String {
    if path.is_empty() {
        return base.to_string();
    }
    if path.starts_with('/') {
        return remove_dot_segments(path);
    }
    let directory = &base[..base.rfind('/').map_or(0, |i| i + 1)];
    remove_dot_segments(&format!("{directory}{path}"))
}

/// RFC 3986 §5.2.4, over segments: `.` goes, `..` removes the segment before it, and the path
/// never climbs above the root.
fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *segment {
            "." | ".." => {
                if *segment == ".." {
                    out.pop();
                }
                if last {
                    out.push("");
                }
            }
            other => out.push(other),
        }
    }
    format!("/{}", out.join("/"))
}

/// `text` as a request target: bytes a URI may not hold (space, non-ASCII, `"<>\^`{|}`)
/// percent-encoded (RFC 3986 §2.1); `%XX` already there kept, as a browser does.
pub(crate) fn as_target(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &byte in text.as_bytes() {
        if byte.is_ascii_graphic() && !b"\"<>\\^`{|}".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The URLs of a `srcset` value (HTML, "parse a srcset attribute"): each candidate is a run
/// of non-whitespace (trailing commas not part of it), then descriptors up to a comma.
pub(crate) fn srcset(value: &str) -> Vec<Range<usize>> {
    let bytes = value.as_bytes();
    let mut urls = Vec::new();
    let mut i = 0;
    loop {
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b',') {
            i += 1;
        }
        if i >= bytes.len() {
            return urls;
        }
        let start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut end = i;
        let ended_with_comma = bytes[end - 1] == b',';
        while end > start && bytes[end - 1] == b',' {
            end -= 1;
        }
        if end > start {
            urls.push(start..end);
        }
        if !ended_with_comma {
            // Descriptors, up to the comma outside parentheses that ends the candidate.
            let mut depth = 0u32;
            while i < bytes.len() {
                match bytes[i] {
                    b'(' => depth += 1,
                    b')' => depth = depth.saturating_sub(1),
                    b',' if depth == 0 => break,
                    _ => {}
                }
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_references_are_the_ones_without_scheme_or_authority() {
        for local in [
            "a.png", "/a.png", "../a.png", "?x", "./a:b", "/a:b", "a/b:c",
        ] {
            assert!(is_local(local), "{local}");
        }
        for other in [
            "",
            "#top",
            "//cdn.example/a.js",
            "https://example.com/",
            "data:image/png;base64,AAAA",
            "mailto:a@b",
            "JavaScript:void(0)",
            "a:b/c",
        ] {
            assert!(!is_local(other), "{other}");
        }
    }

    /// RFC 3986 §5.4.1's normal examples, for the path-only references.
    #[test]
    fn relative_paths_resolve_as_rfc_3986_section_5_4_says() {
        let base = "/b/c/d;p";
        for (reference, expected) in [
            ("g", "/b/c/g"),
            ("./g", "/b/c/g"),
            ("g/", "/b/c/g/"),
            ("/g", "/g"),
            ("", "/b/c/d;p"),
            (".", "/b/c/"),
            ("./", "/b/c/"),
            ("..", "/b/"),
            ("../", "/b/"),
            ("../g", "/b/g"),
            ("../..", "/"),
            ("../../", "/"),
            ("../../g", "/g"),
            // §5.4.2: abnormal examples.
            ("../../../g", "/g"),
            ("/./g", "/g"),
            ("/../g", "/g"),
            ("g.", "/b/c/g."),
            ("..g", "/b/c/..g"),
            ("./../g", "/b/g"),
            ("g/./h", "/b/c/g/h"),
            ("g/../h", "/b/c/h"),
        ] {
            assert_eq!(resolve(base, reference), expected, "{reference}");
        }
    }

    #[test]
    fn srcset_lists_each_candidates_url() {
        // A URL is a run of non-whitespace: `d.png,e.png` is one, trailing commas dropped.
        let value = " a.png 1x,b%20c.png 2x , d.png,e.png,\n f(1).png 480w ";
        let urls: Vec<&str> = srcset(value).into_iter().map(|r| &value[r]).collect();
        assert_eq!(urls, ["a.png", "b%20c.png", "d.png,e.png", "f(1).png"]);
    }

    #[test]
    fn targets_are_percent_encoded_once() {
        assert_eq!(as_target("/a b/é%20.png"), "/a%20b/%C3%A9%20.png");
    }
}
