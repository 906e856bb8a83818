//! `[history] html_dictionary`: a zstd dictionary trained on the site's pages, served as a file
//! of the site; the deltas stage gives the pages deltas against it.

use super::Found;
use crate::error::Error;
use crate::hash;
use crate::mime::HTML_DICTIONARY_PATH;
use crate::model::Source;
use std::sync::Arc;

/// The size zstd's trainer aims at: a dictionary browsers fetch once, at idle.
const HTML_DICTIONARY_BYTES: usize = 64 * 1024;

/// The fewest pages the trainer is given (it fails on too few samples).
const HTML_DICTIONARY_PAGES: usize = 8;

/// A trained site-wide HTML dictionary.
pub(crate) struct HtmlDictionary {
    /// Its bytes (the file's too).
    pub(crate) bytes: Arc<[u8]>,
    /// Their SHA-256, lower-case hex.
    pub(crate) sha256: String,
}

/// `[history] html_dictionary`: trains a zstd dictionary on the site's pages (the first
/// `current` of `found`, as the optimize stage left them, before the link pass) and adds it
/// to `found` at [`HTML_DICTIONARY_PATH`]. `None` when off, when the site has a file at that
/// path, or when it has fewer than 8 pages (or the trainer fails).
pub(super) fn add(
    on: bool,
    found: &mut Vec<Found>,
    current: usize,
) -> Result<Option<HtmlDictionary>, Error> {
    if !on || found.iter().any(|f| f.url_path == HTML_DICTIONARY_PATH) {
        return Ok(None);
    }
    let pages = found[..current]
        .iter()
        .filter(|f| crate::mime::content_type(&f.url_path).starts_with("text/html"))
        .map(|f| f.source.read().map(|bytes| bytes.into_owned()))
        .collect::<Result<Vec<_>, _>>()?;
    if pages.len() < HTML_DICTIONARY_PAGES {
        return Ok(None);
    }
    let Ok(bytes) = zstd::dict::from_samples(&pages, HTML_DICTIONARY_BYTES) else {
        return Ok(None);
    };
    let sha256 = hash::hex(&hash::sha256(&bytes));
    let bytes: Arc<[u8]> = bytes.into();
    found.push(Found {
        url_path: HTML_DICTIONARY_PATH.into(),
        source: Source::Made(bytes.clone()),
    });
    Ok(Some(HtmlDictionary { bytes, sha256 }))
}
