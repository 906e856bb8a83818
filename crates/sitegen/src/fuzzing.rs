//! Entry points for the fuzz targets (`fuzz/`) and the corpus replay (`tests/fuzz_corpus.rs`):
//! each parses or scans one input with the build's own code and panics when a property the
//! build relies on does not hold. Not part of the API.

/// `_headers` (`fields/headers_file.rs`).
pub fn headers_file(text: &str) {
    crate::fields::fuzz_check_headers(text);
}

/// `_redirects` (`routing/redirects/parse.rs`).
pub fn redirects_file(text: &str) {
    crate::routing::redirects::fuzz_check(text);
}

/// The HTML reference scanner and the rewriter (`links/html.rs`, `links/mod.rs`).
pub fn html_references(text: &str) {
    crate::links::fuzz_check(text, true);
}

/// The CSS reference scanner and the rewriter (`links/css.rs`, `links/mod.rs`).
pub fn css_references(text: &str) {
    crate::links::fuzz_check(text, false);
}
