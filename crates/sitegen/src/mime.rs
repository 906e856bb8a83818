//! Content-Type by file extension (RFC 9110 §8.3), with `charset=utf-8` for text types, and the
//! URL paths of the files the build makes.
//!
//! Text types get an explicit charset because browsers otherwise guess (and the WHATWG encoding
//! sniffing differs by type); the site's text files are served as written, which sitegen takes
//! to be UTF-8.

/// The URL path of the site's speculation rules, which the build makes (speculation.rs).
pub const SPECULATION_RULES_PATH: &str = "/_edgesite/speculation-rules.json";

/// The URL path of the site-wide HTML dictionary (`[history] html_dictionary`), which the build
/// makes (sources/html_dictionary.rs).
pub const HTML_DICTIONARY_PATH: &str = "/_edgesite/html.dict";

/// Their media type (WICG nav-speculation, "The Speculation-Rules header").
pub(crate) const SPECULATION_RULES_TYPE: &str = "application/speculationrules+json";

/// The Content-Type field value for a file name; `application/octet-stream` when unknown.
pub(crate) fn content_type(file_name: &str) -> &'static str {
    // The one file of the build whose type its extension does not say.
    if file_name == SPECULATION_RULES_PATH {
        return SPECULATION_RULES_TYPE;
    }
    let ext = file_name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" | "cjs" => "text/javascript; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "jsonld" => "application/ld+json",
        "xml" => "application/xml; charset=utf-8",
        "rss" => "application/rss+xml; charset=utf-8",
        "atom" => "application/atom+xml; charset=utf-8",
        "txt" => "text/plain; charset=utf-8",
        "md" | "markdown" => "text/markdown; charset=utf-8",
        "csv" => "text/csv; charset=utf-8",
        "ics" => "text/calendar; charset=utf-8",
        "vtt" => "text/vtt; charset=utf-8",
        "svg" => "image/svg+xml; charset=utf-8",
        "wasm" => "application/wasm",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "avif" => "image/avif",
        "ico" => "image/x-icon",
        "bmp" => "image/bmp",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "otf" => "font/otf",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        "mp4" | "m4v" => "video/mp4",
        "webm" => "video/webm",
        "ogv" => "video/ogg",
        "mp3" => "audio/mpeg",
        "ogg" | "oga" => "audio/ogg",
        "wav" => "audio/wav",
        "flac" => "audio/flac",
        "m4a" => "audio/mp4",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::content_type;

    #[test]
    fn text_types_carry_utf8_and_binary_types_do_not() {
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("app.MJS"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("logo.svg"), "image/svg+xml; charset=utf-8");
        assert_eq!(content_type("logo.png"), "image/png");
        assert_eq!(content_type("a.tar.gz"), "application/gzip");
    }

    #[test]
    fn unknown_or_missing_extensions_are_octet_streams() {
        assert_eq!(content_type("LICENSE"), "application/octet-stream");
        assert_eq!(content_type("x.unknownext"), "application/octet-stream");
    }
}
