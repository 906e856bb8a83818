//! Step 4, preload: each page's render-blocking stylesheets, synchronous head scripts and
//! preloaded fonts as one `Link` field (RFC 8288) of `rel=preload` hints.

use super::rewrite::{with_fingerprint, Hashes};
use super::{Hint, Rewrite, Scanned, MAX_PRELOADS};
use crate::resolve::Resolved;

impl Hint {
    fn link_params(self) -> &'static str {
        match self {
            Hint::Style => "; rel=preload; as=style",
            Hint::Script => "; rel=preload; as=script",
            // Fonts are fetched in CORS mode: the hint must be too, or it is not used.
            Hint::Font => "; rel=preload; as=font; crossorigin",
        }
    }
}

/// A page's `Link` field of preload hints: its render-blocking references that lead to
/// files, in document order, each at the URL the page now names (with its `v`), at most
/// [`MAX_PRELOADS`].
pub(super) fn preload(
    file: &Scanned,
    hashes: &mut Hashes<'_>,
    rewrites: &[Option<Rewrite>],
) -> Option<String> {
    let mut hints: Vec<String> = Vec::new();
    for (reference, resolved) in file.refs.iter().zip(&file.resolved) {
        let (
            Some(hint),
            Some((
                target,
                Resolved::File {
                    index,
                    redirected_to,
                    ..
                },
            )),
        ) = (reference.hint, resolved)
        else {
            continue;
        };
        let url = redirected_to.as_deref().unwrap_or(target);
        // The URL the page asks for: with `v` only where the reference was rewritten.
        let url = match hashes.of(*index, rewrites) {
            Some(v) if reference.verbatim => {
                with_fingerprint(url, None, &v, false).unwrap_or_else(|| url.to_string())
            }
            _ => url.to_string(),
        };
        // RFC 8288 §3: a URI reference between `<` and `>`; what a page may write otherwise
        // (non-ASCII, spaces) is percent-encoded, so the field passes the field check.
        let url = crate::uri::encoded(&url, |b| b.is_ascii_graphic() && !b"<>\"".contains(&b));
        let hint = format!("<{url}>{}", hint.link_params());
        if !hints.contains(&hint) {
            hints.push(hint);
        }
        if hints.len() == MAX_PRELOADS {
            break;
        }
    }
    (!hints.is_empty()).then(|| hints.join(", "))
}
