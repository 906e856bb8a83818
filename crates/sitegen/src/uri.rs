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
