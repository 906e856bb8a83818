//! `edgesite.toml`: the project's configuration, read with serde. Every key is optional and has
//! the default written here; an unknown key, or a value of the wrong type, is a build error that
//! names the file and line.
//!
//! ```toml
//! [site]
//! # The folder to compile, relative to edgesite.toml. EDGESITE_SITE overrides it.
//! dir = "public"
//! # Clean URLs: /about serves about.html, /about.html redirects (308) to /about.
//! clean_urls = true
//! # Single-page-application fallback: this HTML file answers (200) navigation requests for
//! # extension-less paths that match nothing. Off unless set.
//! # spa_fallback = "/index.html"
//! ```

use crate::error::Error;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The parsed `edgesite.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `[site]`
    #[serde(default)]
    pub site: SiteConfig,
    /// `[cache]`
    #[serde(default)]
    pub cache: CacheConfig,
    /// `[headers]`
    #[serde(default)]
    pub headers: HeadersConfig,
    /// `[compression]`
    #[serde(default)]
    pub compression: CompressionConfig,
    /// `[budget]`
    #[serde(default)]
    pub budget: BudgetConfig,
}

/// `[compression]`: which encodings are stored, and how hard each is tried.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct CompressionConfig {
    /// The encodings to store, of `br`, `zstd`, `gzip` (default all three).
    #[serde(default = "default_codings")]
    pub codings: Vec<String>,
    /// Brotli quality, 0-11 (default 11).
    #[serde(default = "default_brotli_quality")]
    pub brotli_quality: u32,
    /// zstd level, 1-19 (default 19; higher levels need windows browsers may refuse).
    #[serde(default = "default_zstd_level")]
    pub zstd_level: i32,
    /// zopfli iterations for gzip (default 15; more is slower and slightly smaller).
    #[serde(default = "default_zopfli_iterations")]
    pub zopfli_iterations: u64,
    /// Keep an encoding only when at least this many percent smaller (default 5).
    #[serde(default = "default_min_savings_percent")]
    pub min_savings_percent: u64,
    /// ... and at least this many bytes smaller (default 64).
    #[serde(default = "default_min_savings_bytes")]
    pub min_savings_bytes: u64,
}

impl Default for CompressionConfig {
    fn default() -> Self {
        CompressionConfig {
            codings: default_codings(),
            brotli_quality: default_brotli_quality(),
            zstd_level: default_zstd_level(),
            zopfli_iterations: default_zopfli_iterations(),
            min_savings_percent: default_min_savings_percent(),
            min_savings_bytes: default_min_savings_bytes(),
        }
    }
}

fn default_codings() -> Vec<String> {
    vec!["br".into(), "zstd".into(), "gzip".into()]
}
fn default_brotli_quality() -> u32 {
    11
}
fn default_zstd_level() -> i32 {
    19
}
fn default_zopfli_iterations() -> u64 {
    15
}
fn default_min_savings_percent() -> u64 {
    5
}
fn default_min_savings_bytes() -> u64 {
    64
}

/// `[budget]`: the build fails past these sizes, and warns past 80% of them.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetConfig {
    /// The Worker bundle limit in bytes, uncompressed (default 64 MiB, Cloudflare's limit).
    #[serde(default = "default_max_bundle_bytes")]
    pub max_bundle_bytes: u64,
    /// The largest single file in bytes (default 25 MiB).
    #[serde(default = "default_max_file_bytes")]
    pub max_file_bytes: u64,
}

impl Default for BudgetConfig {
    fn default() -> Self {
        BudgetConfig {
            max_bundle_bytes: default_max_bundle_bytes(),
            max_file_bytes: default_max_file_bytes(),
        }
    }
}

fn default_max_bundle_bytes() -> u64 {
    64 * 1024 * 1024
}
fn default_max_file_bytes() -> u64 {
    25 * 1024 * 1024
}

impl Config {
    /// Checks values serde cannot (ranges, names), naming the key.
    fn validate(self, path: &Path) -> Result<Config, Error> {
        let c = &self.compression;
        let bad = |key: &str, why: String| Error::Config {
            path: path.to_path_buf(),
            line: 0,
            message: format!("{key}: {why}"),
        };
        if let Some(coding) = c
            .codings
            .iter()
            .find(|c| !matches!(c.as_str(), "br" | "zstd" | "gzip"))
        {
            return Err(bad(
                "compression.codings",
                format!("unknown coding {coding:?}; use br, zstd or gzip"),
            ));
        }
        if c.brotli_quality > 11 {
            return Err(bad(
                "compression.brotli_quality",
                format!("{} is not in 0..=11", c.brotli_quality),
            ));
        }
        if !(1..=19).contains(&c.zstd_level) {
            return Err(bad(
                "compression.zstd_level",
                format!("{} is not in 1..=19", c.zstd_level),
            ));
        }
        if c.zopfli_iterations == 0 || c.min_savings_percent > 100 {
            return Err(bad(
                "compression",
                "zopfli_iterations must be > 0 and min_savings_percent <= 100".into(),
            ));
        }
        Ok(self)
    }
}

/// `[cache]`: the Cache-Control policy (see `cache.rs` for the order rules apply in).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// HTML pages (default `no-cache`).
    #[serde(default = "default_html")]
    pub html: String,
    /// Files whose name carries a verified content hash (default a year, `immutable`).
    #[serde(default = "default_fingerprinted")]
    pub fingerprinted: String,
    /// Everything else (default `public, max-age=0, must-revalidate`).
    #[serde(default = "default_cache")]
    pub default: String,
    /// If set, sent as `CDN-Cache-Control` with every file: the policy for Cloudflare's (and other
    /// CDNs') shared cache, e.g. `public, max-age=86400, stale-while-revalidate=60`.
    #[serde(default)]
    pub cdn: Option<String>,
    /// `[[cache.rules]]`: the first whose pattern matches wins over everything above.
    #[serde(default)]
    pub rules: Vec<CacheRule>,
}

/// `[[cache.rules]]`
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheRule {
    /// A glob over the URL path: `*` within a segment, `**` across segments.
    pub pattern: String,
    /// The Cache-Control for matching files.
    pub cache_control: String,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            html: default_html(),
            fingerprinted: default_fingerprinted(),
            default: default_cache(),
            cdn: None,
            rules: Vec::new(),
        }
    }
}

fn default_html() -> String {
    "no-cache".into()
}

fn default_fingerprinted() -> String {
    "public, max-age=31536000, immutable".into()
}

fn default_cache() -> String {
    "public, max-age=0, must-revalidate".into()
}

/// `[headers]`: fields sent on every response. An empty string turns a default off.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeadersConfig {
    /// `X-Content-Type-Options: nosniff` (default on): browsers trust our Content-Type.
    #[serde(default = "default_true")]
    pub nosniff: bool,
    /// `Referrer-Policy` (default `strict-origin-when-cross-origin`).
    #[serde(default = "default_referrer_policy")]
    pub referrer_policy: String,
    /// `Content-Security-Policy` (opt-in).
    #[serde(default)]
    pub content_security_policy: String,
    /// `Strict-Transport-Security` (opt-in), e.g. `max-age=63072000; includeSubDomains`.
    #[serde(default)]
    pub strict_transport_security: String,
    /// `Access-Control-Allow-Origin` (CORS, opt-in), e.g. `*`.
    #[serde(default)]
    pub access_control_allow_origin: String,
    /// `X-Edgesite-Build: <build id>` on every response (opt-in): which build answered, a hash
    /// of every file's path and content.
    #[serde(default)]
    pub build_id: bool,
}

impl Default for HeadersConfig {
    fn default() -> Self {
        HeadersConfig {
            nosniff: true,
            referrer_policy: default_referrer_policy(),
            content_security_policy: String::new(),
            strict_transport_security: String::new(),
            access_control_allow_origin: String::new(),
            build_id: false,
        }
    }
}

fn default_referrer_policy() -> String {
    "strict-origin-when-cross-origin".into()
}

impl HeadersConfig {
    /// The configured fields, names in lower case, empty values left out.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        let nosniff = if self.nosniff { "nosniff" } else { "" };
        [
            ("x-content-type-options", nosniff),
            ("referrer-policy", self.referrer_policy.as_str()),
            (
                "content-security-policy",
                self.content_security_policy.as_str(),
            ),
            (
                "strict-transport-security",
                self.strict_transport_security.as_str(),
            ),
            (
                "access-control-allow-origin",
                self.access_control_allow_origin.as_str(),
            ),
        ]
        .into_iter()
        .filter(|(_, value)| !value.is_empty())
        .map(|(name, value)| (name, value.to_string()))
        .collect()
    }
}

/// `[site]`: what to compile and how its URLs map to files.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteConfig {
    /// The site folder, relative to the config file (default `public`).
    #[serde(default = "default_dir")]
    pub dir: PathBuf,
    /// Clean URLs (default `true`).
    #[serde(default = "default_true")]
    pub clean_urls: bool,
    /// The SPA fallback's URL path, e.g. `/index.html` (default: none).
    #[serde(default)]
    pub spa_fallback: Option<String>,
    /// Folder URLs: `always` (default) serves `/docs/` and redirects `/docs` to it; `never` serves
    /// `/docs` and redirects `/docs/` to it.
    #[serde(default)]
    pub trailing_slash: TrailingSlash,
}

/// `site.trailing_slash`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TrailingSlash {
    /// `/docs/` is canonical (relative links in the folder's index resolve against the folder).
    #[default]
    Always,
    /// `/docs` is canonical.
    Never,
}

impl Default for SiteConfig {
    fn default() -> Self {
        SiteConfig {
            dir: default_dir(),
            clean_urls: true,
            spa_fallback: None,
            trailing_slash: TrailingSlash::Always,
        }
    }
}

fn default_dir() -> PathBuf {
    PathBuf::from("public")
}

fn default_true() -> bool {
    true
}

impl Config {
    /// Reads `path`; a missing file is the default configuration.
    ///
    /// # Errors
    /// An unreadable file, invalid TOML, an unknown key or a wrong type, naming file and line.
    pub fn load(path: &Path) -> Result<Config, Error> {
        match std::fs::read_to_string(path) {
            Ok(text) => Config::parse(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(source) => Err(Error::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Parses the text of `path`.
    ///
    /// # Errors
    /// Invalid TOML, an unknown key or a wrong type, naming file and line.
    pub fn parse(text: &str, path: &Path) -> Result<Config, Error> {
        let config: Config = toml::from_str(text).map_err(|e| Error::Config {
            path: path.to_path_buf(),
            line: e
                .span()
                .map_or(1, |span| text[..span.start].matches('\n').count() + 1),
            message: e.message().to_string(),
        })?;
        config.validate(path).map_err(|e| match e {
            // A range error names its key (`compression.brotli_quality: ...`): find its line.
            Error::Config { path, message, .. } => {
                let key = message
                    .split(':')
                    .next()
                    .unwrap_or("")
                    .rsplit('.')
                    .next()
                    .unwrap_or("");
                let line = text
                    .lines()
                    .position(|l| l.trim_start().starts_with(key))
                    .map_or(1, |i| i + 1);
                Error::Config {
                    path,
                    line,
                    message,
                }
            }
            other => other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, Error> {
        Config::parse(text, Path::new("edgesite.toml"))
    }

    #[test]
    fn an_empty_file_is_the_defaults() {
        let config = parse("").unwrap();
        assert_eq!(config, Config::default());
        assert_eq!(config.site.dir, Path::new("public"));
        assert!(config.site.clean_urls);
        assert_eq!(config.site.spa_fallback, None);
    }

    #[test]
    fn every_key_is_read() {
        let config =
            parse("[site]\ndir = \"dist\"\nclean_urls = false\nspa_fallback = \"/app.html\"\n")
                .unwrap();
        assert_eq!(config.site.dir, Path::new("dist"));
        assert!(!config.site.clean_urls);
        assert_eq!(config.site.spa_fallback.as_deref(), Some("/app.html"));
    }

    #[test]
    fn an_unknown_key_is_an_error_naming_file_and_line() {
        let err = parse("[site]\ndir = \"dist\"\ncleanurls = true\n").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("edgesite.toml:3:"), "{text}");
        assert!(text.contains("cleanurls"), "{text}");
        let err = parse("[sites]\n").unwrap_err().to_string();
        assert!(
            err.starts_with("edgesite.toml:1:") && err.contains("sites"),
            "{err}"
        );
    }

    #[test]
    fn a_wrong_type_is_an_error_naming_file_and_line() {
        let err = parse("[site]\n\nclean_urls = \"yes\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("edgesite.toml:3:"), "{err}");
    }

    #[test]
    fn cache_and_headers_sections_are_read() {
        let config = parse(
            "[cache]\ndefault = \"public, max-age=60\"\ncdn = \"max-age=600\"\n\n[[cache.rules]]\npattern = \"/fonts/**\"\ncache_control = \"public, max-age=604800\"\n\n[headers]\nnosniff = false\nreferrer_policy = \"\"\naccess_control_allow_origin = \"*\"\n",
        )
        .unwrap();
        assert_eq!(config.cache.default, "public, max-age=60");
        assert_eq!(config.cache.html, "no-cache");
        assert_eq!(config.cache.cdn.as_deref(), Some("max-age=600"));
        assert_eq!(config.cache.rules[0].pattern, "/fonts/**");
        assert_eq!(
            config.headers.fields(),
            [("access-control-allow-origin", "*".to_string())]
        );
    }

    #[test]
    fn security_headers_default_to_nosniff_and_a_referrer_policy() {
        assert_eq!(
            Config::default().headers.fields(),
            [
                ("x-content-type-options", "nosniff".to_string()),
                (
                    "referrer-policy",
                    "strict-origin-when-cross-origin".to_string()
                )
            ]
        );
    }

    #[test]
    fn an_unknown_key_in_a_rule_is_an_error_naming_its_line() {
        let err = parse("[[cache.rules]]\npattern = \"/a\"\ncache-control = \"x\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("edgesite.toml:3:"), "{err}");
    }

    #[test]
    fn compression_and_budget_values_are_checked_naming_key_and_line() {
        let err = parse("[compression]\ncodings = [\"br\", \"lzma\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("edgesite.toml:2: compression.codings: unknown coding \"lzma\""),
            "{err}"
        );
        let err = parse("[compression]\n\nbrotli_quality = 12\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("edgesite.toml:3: compression.brotli_quality"),
            "{err}"
        );
        let config =
            parse("[compression]\ncodings = [\"br\"]\n[budget]\nmax_bundle_bytes = 1000\n")
                .unwrap();
        assert_eq!(config.compression.codings, ["br"]);
        assert_eq!(config.budget.max_bundle_bytes, 1000);
        assert_eq!(config.budget.max_file_bytes, 25 * 1024 * 1024);
    }

    #[test]
    fn trailing_slash_is_always_or_never() {
        assert_eq!(
            parse("[site]\ntrailing_slash = \"never\"\n")
                .unwrap()
                .site
                .trailing_slash,
            TrailingSlash::Never
        );
        let err = parse("[site]\ntrailing_slash = \"sometimes\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("edgesite.toml:2:") && err.contains("sometimes"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_file_is_the_defaults() {
        assert_eq!(
            Config::load(Path::new("/no/such/edgesite.toml")).unwrap(),
            Config::default()
        );
    }
}
