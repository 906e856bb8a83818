//! The caching policy (RFC 9111 §5.2.2): which Cache-Control each file is sent with.
//!
//! In order, the first that applies:
//! 1. a `[[cache.rules]]` entry whose `pattern` (a glob over the URL path) matches;
//! 2. **fingerprinted** files: the name carries a content hash that sitegen verified against the
//!    bytes (a dot- or dash-separated token of 8 or more characters that is a prefix of the
//!    SHA-256, SHA-1 or MD5 of the file in hex, or of its SHA-256 in base64url): such a name
//!    never changes content, so `public, max-age=31536000, immutable`;
//! 3. HTML: `no-cache` (always revalidated, which the strong ETag makes a cheap 304);
//! 4. everything else: the configured default, `public, max-age=0, must-revalidate`.
//!
//! A name that looks hashed but does not verify (e.g. a bundler that hashes something other than
//! the output bytes) is not trusted; a `[[cache.rules]]` entry can opt such a folder in.

use crate::config::{CacheConfig, Config, FingerprintConfig};
use crate::hash;
use crate::mime;
use crate::model::CacheReason;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use md5::Md5;
use sha1::Sha1;
use sha2::Digest;

/// The policy `[cache]` and `[fingerprint]` configure: what the stages that decide a file's
/// Cache-Control or its `v` ask (speculation, links, encode), so that they cannot disagree.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Policy<'c> {
    pub(crate) cache: &'c CacheConfig,
    pub(crate) fingerprint: &'c FingerprintConfig,
}

impl<'c> Policy<'c> {
    /// The policy `config` sets.
    pub(crate) fn of(config: &'c Config) -> Policy<'c> {
        Policy {
            cache: &config.cache,
            fingerprint: &config.fingerprint,
        }
    }

    /// The Cache-Control of the file at `path` with these bytes (whose SHA-256 the caller
    /// already has), and why.
    pub(crate) fn cache_control(
        self,
        path: &str,
        bytes: &[u8],
        sha256: &[u8; 32],
    ) -> (&'c str, CacheReason) {
        let fingerprinted = || is_fingerprinted(path, bytes, sha256);
        cache_control(self.cache, path, mime::content_type(path), fingerprinted)
    }

    /// [`Policy::cache_control`] of a file read in pieces (`digests`: with SHA-1 and MD5 when
    /// [`may_name_a_hash`] says its name may carry one).
    pub(crate) fn cache_control_by(
        self,
        path: &str,
        digests: &hash::FileDigests,
    ) -> (&'c str, CacheReason) {
        let fingerprinted = || is_fingerprinted_by(path, &digests.sha256, digests.legacy);
        cache_control(self.cache, path, mime::content_type(path), fingerprinted)
    }

    /// The `v` of a file at `path` whose digest is `digest` (hex) and whose Cache-Control
    /// came from `reason`: its first 10 hex digits, unless `[fingerprint]` does not cover the
    /// file or its name already carries a verified hash. The one rule for references and for
    /// the core.
    pub(crate) fn fingerprint_of<'s>(
        self,
        path: &str,
        reason: CacheReason,
        digest: &'s str,
    ) -> Option<&'s str> {
        (reason != CacheReason::Fingerprinted && self.fingerprint.covers(path))
            .then(|| &digest[..10])
    }

    /// [`Policy::fingerprint`] of a file read in pieces (`digests`, with SHA-1 and MD5 when
    /// [`may_name_a_hash`] says its name may carry one).
    pub(crate) fn fingerprint_by(
        self,
        path: &str,
        digests: &hash::FileDigests,
        digest: Option<&str>,
    ) -> Option<String> {
        if !self.fingerprint.covers(path) {
            return None;
        }
        let (_, reason) = self.cache_control_by(path, digests);
        let hex = hash::hex(&digests.sha256);
        self.fingerprint_of(path, reason, digest.unwrap_or(&hex))
            .map(str::to_string)
    }

    /// The `v` of a file at `path` with these bytes: [`Policy::fingerprint_of`] with the
    /// Cache-Control they get, over their SHA-256, or over `digest` when given (an image's
    /// digest, which covers its variants too).
    pub(crate) fn fingerprint(
        self,
        path: &str,
        bytes: &[u8],
        digest: Option<&str>,
    ) -> Option<String> {
        if !self.fingerprint.covers(path) {
            return None;
        }
        let digests = hash::FileDigests::of(bytes, may_name_a_hash(path));
        self.fingerprint_by(path, &digests, digest)
    }
}

/// The Cache-Control for the file at `path` with this content type; `fingerprinted`: whether
/// its name carries a hash of its bytes (asked only when no rule matches).
fn cache_control<'c>(
    config: &'c CacheConfig,
    path: &str,
    content_type: &str,
    fingerprinted: impl FnOnce() -> bool,
) -> (&'c str, CacheReason) {
    if let Some(rule) = config
        .rules
        .iter()
        .find(|rule| crate::glob::matches(&rule.pattern, path))
    {
        return (&rule.cache_control, CacheReason::Rule);
    }
    if fingerprinted() {
        return (&config.fingerprinted, CacheReason::Fingerprinted);
    }
    if content_type.starts_with("text/html") {
        return (&config.html, CacheReason::Html);
    }
    (&config.default, CacheReason::Default)
}

/// Whether the file name carries a hash of `bytes` (see the module docs); `sha256` is theirs.
pub(crate) fn is_fingerprinted(path: &str, bytes: &[u8], sha256: &[u8; 32]) -> bool {
    may_name_a_hash(path)
        && is_fingerprinted_by(
            path,
            sha256,
            Some((Sha1::digest(bytes).into(), Md5::digest(bytes).into())),
        )
}

/// The tokens of a file name that could be a hash: 8 characters or more between its separators.
fn hash_tokens(path: &str) -> Vec<&str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    stem.split(['.', '-', '_', '~'])
        .filter(|t| t.len() >= 8)
        .collect()
}

/// Whether the name of the file at `path` has a token that could be a hash (only then are its
/// SHA-1 and MD5 worth computing).
pub(crate) fn may_name_a_hash(path: &str) -> bool {
    !hash_tokens(path).is_empty()
}

/// [`is_fingerprinted`] from the digests of the bytes: their SHA-256, and their SHA-1 and MD5
/// (`None`: not computed, so a name carrying either is not taken for a hash).
pub(crate) fn is_fingerprinted_by(
    path: &str,
    sha256: &[u8; 32],
    legacy: Option<([u8; 20], [u8; 16])>,
) -> bool {
    let tokens = hash_tokens(path);
    if tokens.is_empty() {
        return false;
    }
    let mut digests = vec![hash::hex(sha256), URL_SAFE_NO_PAD.encode(sha256)];
    if let Some((sha1, md5)) = legacy {
        digests.extend([hash::hex(&sha1), hash::hex(&md5)]);
    }
    tokens
        .iter()
        .any(|token| digests.iter().any(|digest| digest.starts_with(*token)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CacheRule;
    use sha2::Sha256;

    fn is_fingerprinted(path: &str, bytes: &[u8]) -> bool {
        super::is_fingerprinted(path, bytes, &Sha256::digest(bytes).into())
    }

    fn cache_control<'c>(
        config: &'c CacheConfig,
        path: &str,
        content_type: &str,
        bytes: &[u8],
    ) -> (&'c str, CacheReason) {
        super::cache_control(config, path, content_type, || is_fingerprinted(path, bytes))
    }

    const JS: &str = "text/javascript; charset=utf-8";

    fn name_for(bytes: &[u8], make: impl Fn(&str) -> String) -> String {
        make(&hash::hex(&Sha256::digest(bytes))[..10])
    }

    #[test]
    fn a_verified_content_hash_in_the_name_is_fingerprinted() {
        let bytes = b"console.log(1)";
        assert!(is_fingerprinted(
            &name_for(bytes, |h| format!("/assets/app.{h}.js")),
            bytes
        ));
        assert!(is_fingerprinted(
            &name_for(bytes, |h| format!("/assets/app-{h}.js")),
            bytes
        ));
        let b64 = URL_SAFE_NO_PAD.encode(Sha256::digest(bytes));
        assert!(is_fingerprinted(&format!("/index-{}.js", &b64[..8]), bytes));
        let md5 = hash::hex(&Md5::digest(bytes));
        assert!(is_fingerprinted(&format!("/x.{}.js", &md5[..12]), bytes));
    }

    #[test]
    fn a_file_read_in_pieces_gets_what_it_would_read_whole() {
        let bytes = b"console.log(1)";
        let config = Config::default();
        let policy = Policy::of(&config);
        let sha256: [u8; 32] = Sha256::digest(bytes).into();
        let legacy: ([u8; 20], [u8; 16]) = (Sha1::digest(bytes).into(), Md5::digest(bytes).into());
        let names = [
            name_for(bytes, |h| format!("/app.{h}.js")),
            format!("/x.{}.js", &hash::hex(&legacy.0)[..12]),
            format!("/x-{}.js", &hash::hex(&legacy.1)[..8]),
            format!("/x~{}.js", &URL_SAFE_NO_PAD.encode(sha256)[..9]),
            "/x.12345678.js".to_string(),
            "/app.js".to_string(),
        ];
        for name in &names {
            let digests = hash::FileDigests {
                sha256,
                sha384: None,
                legacy: may_name_a_hash(name).then_some(legacy),
                len: bytes.len() as u64,
            };
            let whole = policy.cache_control(name, bytes, &sha256);
            assert_eq!(policy.cache_control_by(name, &digests), whole, "{name}");
        }
        assert!(!may_name_a_hash("/app.js") && may_name_a_hash("/x.12345678.js"));
    }

    #[test]
    fn a_hash_like_name_that_does_not_match_the_bytes_is_not() {
        let bytes = b"console.log(1)";
        let other = name_for(b"console.log(2)", |h| format!("/assets/app.{h}.js"));
        assert!(!is_fingerprinted(&other, bytes));
        assert!(!is_fingerprinted("/assets/app.js", bytes));
        assert!(
            !is_fingerprinted("/a.1234567.js", bytes),
            "7 characters are too few"
        );
    }

    #[test]
    fn rules_then_fingerprints_then_html_then_the_default() {
        let mut config = CacheConfig::default();
        config.rules.push(CacheRule {
            pattern: "/fonts/**".into(),
            cache_control: "public, max-age=604800".into(),
        });
        let bytes = b"x";
        assert_eq!(
            cache_control(&config, "/fonts/a.woff2", "font/woff2", bytes),
            ("public, max-age=604800", CacheReason::Rule)
        );
        let hashed = name_for(bytes, |h| format!("/app.{h}.js"));
        assert_eq!(
            cache_control(&config, &hashed, JS, bytes),
            (
                "public, max-age=31536000, immutable",
                CacheReason::Fingerprinted
            )
        );
        assert_eq!(
            cache_control(&config, "/index.html", "text/html; charset=utf-8", bytes),
            ("no-cache", CacheReason::Html)
        );
        assert_eq!(
            cache_control(&config, "/app.js", JS, bytes),
            ("public, max-age=0, must-revalidate", CacheReason::Default)
        );
    }
}
