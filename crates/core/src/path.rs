//! Request-target → lookup key: percent-decoding, dot-segment removal, `//` collapsing.
//!
//! The key is what a route in the [`Site`](crate::Site) table is stored under: `/` followed by
//! the percent-decoded UTF-8 segments, joined by single slashes, with a trailing slash kept when
//! the request had one. The rules:
//!
//! - the query and fragment are not part of the path (RFC 9110 §4.2.4, RFC 3986 §3.4);
//! - `%XX` is decoded (RFC 3986 §2.1); a `%` not followed by two hex digits is a 400;
//! - `.` and `..` segments, also when written `%2e`, are removed as RFC 3986 §5.2.4 says, so a
//!   `..` at the root stays at the root: nothing above the site can be named;
//! - empty segments (`//`) are dropped;
//! - a decoded NUL, a backslash, or an encoded slash (`%2F`, which would make a segment look like
//!   two) is a 400; so is a path that is not valid UTF-8 after decoding;
//! - a path longer than [`MAX_PATH_LEN`] bytes cannot name a route (sitegen refuses longer ones),
//!   so it is a 404.

/// The longest lookup key, in bytes; `edgesite-sitegen` refuses sites with longer paths.
pub const MAX_PATH_LEN: usize = 1024;

/// A stack buffer that [`normalize`] writes the lookup key into.
pub type PathBuf = [u8; MAX_PATH_LEN];

/// Why a request target has no lookup key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathError {
    /// Malformed: broken percent-encoding, NUL, backslash, encoded slash, not UTF-8, not
    /// origin-form (RFC 9110 §15.5.1, 400 Bad Request).
    BadRequest,
    /// Longer than any route can be (404 Not Found).
    TooLong,
}

/// The lookup key of `target` when it is already canonical, without copying: an absolute path
/// with no `%`, backslash, empty segment or dot segment (what browsers send for site links).
/// `None` means [`normalize`] must do the work.
///
/// ```
/// use edgesite_core::canonical_path;
/// assert_eq!(canonical_path("/guide/intro?x=1"), Some("/guide/intro"));
/// assert_eq!(canonical_path("/a/../b"), None);
/// assert_eq!(canonical_path("/caf%C3%A9"), None);
/// ```
pub fn canonical_path(target: &str) -> Option<&str> {
    let end = target.find(['?', '#']).unwrap_or(target.len());
    let path = &target[..end];
    let rest = path.strip_prefix('/')?;
    if path.len() > MAX_PATH_LEN || path.contains(['%', '\\', '\0']) {
        return None;
    }
    let mut segments = rest.split('/').peekable();
    while let Some(segment) = segments.next() {
        let last = segments.peek().is_none();
        if matches!(segment, "." | "..") || (segment.is_empty() && !last) {
            return None;
        }
    }
    Some(path)
}

/// Normalizes `target` (origin form, percent-encoded) into `buf` and returns the lookup key.
///
/// ```
/// use edgesite_core::{normalize, PathError, MAX_PATH_LEN};
/// let mut buf = [0; MAX_PATH_LEN];
/// assert_eq!(normalize("/a//b/./c/../caf%C3%A9.html?x=1", &mut buf), Ok("/a/b/café.html"));
/// assert_eq!(normalize("/../../etc/passwd", &mut buf), Ok("/etc/passwd"));
/// assert_eq!(normalize("/a%2Fb", &mut buf), Err(PathError::BadRequest));
/// ```
pub fn normalize<'b>(target: &str, buf: &'b mut PathBuf) -> Result<&'b str, PathError> {
    let end = target.find(['?', '#']).unwrap_or(target.len());
    let path = &target.as_bytes()[..end];
    let Some(rest) = path.strip_prefix(b"/") else {
        return Err(PathError::BadRequest);
    };
    let mut len = 0; // buf[..len] is the key so far, "" or "/seg(/seg)*", never a trailing slash
    let mut trailing_slash = false;
    let mut segments = rest.split(|&b| b == b'/').peekable();
    while let Some(raw) = segments.next() {
        let is_last = segments.peek().is_none();
        let seg_end = decode_segment(raw, buf, len)?;
        match &buf[len + 1..seg_end] {
            b"" | b"." => {}
            b".." => len = buf[..len].iter().rposition(|&b| b == b'/').unwrap_or(0),
            _ => {
                len = seg_end;
                if is_last {
                    return finish(buf, len, false);
                }
                continue;
            }
        }
        trailing_slash = is_last;
    }
    finish(buf, len, trailing_slash || len == 0)
}

/// Writes `/` and the decoded `raw` segment at `buf[at..]`; returns where it ends.
fn decode_segment(raw: &[u8], buf: &mut PathBuf, at: usize) -> Result<usize, PathError> {
    let mut out = at;
    push(buf, &mut out, b'/')?;
    decode_into(raw, buf, out)
}

/// Writes `raw` percent-decoded at `buf[at..]` by a request path's rules (a bad escape, NUL,
/// backslash or encoded slash is a 400); returns where it ends.
fn decode_into(raw: &[u8], buf: &mut PathBuf, mut out: usize) -> Result<usize, PathError> {
    let mut i = 0;
    while i < raw.len() {
        let byte = match raw[i] {
            b'%' => {
                let hi = raw.get(i + 1).and_then(|&b| hex(b));
                let lo = raw.get(i + 2).and_then(|&b| hex(b));
                let (Some(hi), Some(lo)) = (hi, lo) else {
                    return Err(PathError::BadRequest);
                };
                i += 2;
                match hi << 4 | lo {
                    0 | b'/' => return Err(PathError::BadRequest),
                    decoded => decoded,
                }
            }
            other => other,
        };
        if byte == b'\\' || byte == 0 {
            return Err(PathError::BadRequest);
        }
        push(buf, &mut out, byte)?;
        i += 1;
    }
    Ok(out)
}

/// `text` (a piece of a path) percent-decoded into `buf` by the rules [`normalize`] decodes a
/// request path with, without removing dot segments: a bad escape, a NUL, a backslash, an
/// encoded slash or invalid UTF-8 is an error. What `edgesite-sitegen` decodes a `_redirects`
/// rewrite's destination with, so the build and the request path agree.
///
/// ```
/// use edgesite_core::{percent_decode, PathError, MAX_PATH_LEN};
/// let mut buf = [0; MAX_PATH_LEN];
/// assert_eq!(percent_decode("/caf%C3%A9/", &mut buf), Ok("/café/"));
/// assert_eq!(percent_decode("a%2Fb", &mut buf), Err(PathError::BadRequest));
/// assert_eq!(percent_decode("a%5Cb", &mut buf), Err(PathError::BadRequest));
/// ```
pub fn percent_decode<'b>(text: &str, buf: &'b mut PathBuf) -> Result<&'b str, PathError> {
    let len = decode_into(text.as_bytes(), buf, 0)?;
    core::str::from_utf8(&buf[..len]).map_err(|_| PathError::BadRequest)
}

fn finish(buf: &mut PathBuf, mut len: usize, trailing_slash: bool) -> Result<&str, PathError> {
    if trailing_slash {
        push(buf, &mut len, b'/')?;
    }
    core::str::from_utf8(&buf[..len]).map_err(|_| PathError::BadRequest)
}

fn push(buf: &mut PathBuf, len: &mut usize, byte: u8) -> Result<(), PathError> {
    let slot = buf.get_mut(*len).ok_or(PathError::TooLong)?;
    *slot = byte;
    *len += 1;
    Ok(())
}

fn hex(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::format;
    use std::string::String;

    fn norm(target: &str) -> Result<String, PathError> {
        let mut buf = [0; MAX_PATH_LEN];
        normalize(target, &mut buf).map(String::from)
    }

    #[test]
    fn a_raw_nul_is_400_on_the_fast_path_too() {
        // Found by `make fuzz` (target `path`): the fast path took `/a\0b` as canonical, so it
        // was looked up (404) where the decoded `/a%00b` is a 400.
        assert_eq!(canonical_path("/a\0b"), None);
        assert_eq!(norm("/a\0b"), Err(PathError::BadRequest));
    }

    #[test]
    fn root_and_trailing_slashes_are_kept() {
        assert_eq!(norm("/").unwrap(), "/");
        assert_eq!(norm("/docs/").unwrap(), "/docs/");
        assert_eq!(norm("/docs").unwrap(), "/docs");
    }

    #[test]
    fn query_and_fragment_are_not_part_of_the_path() {
        // RFC 9110 §4.2.4: the query is not part of the path.
        assert_eq!(norm("/a.html?x=/../b#f").unwrap(), "/a.html");
        assert_eq!(norm("/?").unwrap(), "/");
    }

    #[test]
    fn dot_segments_are_removed_and_never_climb_above_the_root() {
        // RFC 3986 §5.2.4 remove_dot_segments.
        assert_eq!(norm("/a/b/../c/./d").unwrap(), "/a/c/d");
        assert_eq!(norm("/a/..").unwrap(), "/");
        assert_eq!(norm("/a/b/..").unwrap(), "/a/");
        assert_eq!(norm("/a/.").unwrap(), "/a/");
        assert_eq!(norm("/../../../etc/passwd").unwrap(), "/etc/passwd");
        assert_eq!(norm("/%2e%2E/%2e/x").unwrap(), "/x");
        assert_eq!(norm("/..%2f..%2fetc"), Err(PathError::BadRequest));
    }

    #[test]
    fn empty_segments_collapse() {
        assert_eq!(norm("//a///b//").unwrap(), "/a/b/");
    }

    #[test]
    fn percent_decoding_is_utf8() {
        assert_eq!(norm("/caf%C3%A9.html").unwrap(), "/café.html");
        assert_eq!(
            norm("/file%20with%20space.txt").unwrap(),
            "/file with space.txt"
        );
        assert_eq!(norm("/%ff"), Err(PathError::BadRequest));
    }

    #[test]
    fn malformed_targets_are_bad_requests() {
        for bad in [
            "", "*", "a/b", "/%", "/%4", "/%zz", "/%00", "/a%2Fb", "/a%2fb", "/a\\b", "/a%5Cb",
        ] {
            assert_eq!(norm(bad), Err(PathError::BadRequest), "{bad:?}");
        }
    }

    #[test]
    fn overlong_paths_cannot_name_a_route() {
        let long = format!("/{}", "a".repeat(MAX_PATH_LEN));
        assert_eq!(norm(&long), Err(PathError::TooLong));
        let fits = format!("/{}", "a".repeat(MAX_PATH_LEN - 1));
        assert_eq!(norm(&fits).unwrap().len(), MAX_PATH_LEN);
    }

    #[test]
    fn the_fast_path_agrees_with_normalize() {
        for target in [
            "/",
            "/a",
            "/a/",
            "/a/b.html?q",
            "/a//b",
            "/a/./b",
            "/a/../b",
            "/%61",
            "/a\\b",
            "//",
            "/.",
            "a",
        ] {
            if let Some(key) = canonical_path(target) {
                assert_eq!(norm(target).as_deref(), Ok(key), "{target:?}");
            }
        }
        assert_eq!(canonical_path("/docs/"), Some("/docs/"));
        assert_eq!(canonical_path("//"), None);
    }

    proptest! {
        /// The fast path, when it answers, gives exactly what `normalize` gives.
        #[test]
        fn canonical_path_is_normalize_when_it_answers(target in "/[a-z./%?]{0,24}") {
            if let Some(key) = canonical_path(&target) {
                prop_assert_eq!(norm(&target), Ok(key.into()));
            }
        }

        /// Totality: any string yields Ok or Err, never a panic.
        #[test]
        fn normalize_is_total(target in ".{0,64}") {
            let _ = norm(&target);
        }

        /// The key is canonical: it starts with `/`, has no `//`, no dot segment, and normalizing
        /// it again (re-encoding `%`) gives itself.
        #[test]
        fn normalize_is_idempotent(target in "/[a-z./%2eE]{0,24}") {
            if let Ok(key) = norm(&target) {
                prop_assert!(key.starts_with('/'));
                prop_assert!(!key.contains("//"));
                prop_assert!(!key.split('/').any(|s| s == "." || s == ".."));
                let again = norm(&key.replace('%', "%25")).unwrap();
                prop_assert_eq!(again, key);
            }
        }
    }
}
