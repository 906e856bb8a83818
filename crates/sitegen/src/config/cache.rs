//! `[cache]`: the Cache-Control policy's values (`cache.rs` applies them).

use super::images::SharedCaches;
use super::key::{check_field_value, Key, KeyPart};
use serde::Deserialize;

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
    /// What shared caches are told of answers chosen by a field a CDN may not key on: a
    /// dictionary delta (`Available-Dictionary`) and the SPA fallback's choice (`Sec-Fetch-Mode`,
    /// `Accept`). `private` (default): `CDN-Cache-Control: private` in place of `cdn`; `vary`:
    /// the CDN honours Vary, `cdn` applies as set. (Images: `images.shared_caches`.)
    #[serde(default)]
    pub shared_caches: SharedCaches,
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
            shared_caches: SharedCaches::Private,
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

impl CacheConfig {
    pub(super) fn first_invalid(&self) -> Option<(Key, String)> {
        let policies = [
            ("html", Some(&self.html)),
            ("fingerprinted", Some(&self.fingerprinted)),
            ("default", Some(&self.default)),
            ("cdn", self.cdn.as_ref()),
        ];
        let policy = policies
            .into_iter()
            .find_map(|(name, value)| check_field_value(Key::new(&["cache", name]), value?, true));
        policy.or_else(|| {
            self.rules.iter().enumerate().find_map(|(i, rule)| {
                let key = |name| {
                    Key(vec![
                        KeyPart::Name("cache"),
                        KeyPart::Name("rules"),
                        KeyPart::Index(i),
                        KeyPart::Name(name),
                    ])
                };
                if !rule.pattern.starts_with('/') {
                    return Some((
                        key("pattern"),
                        format!("{:?} must start with `/` (a URL path glob)", rule.pattern),
                    ));
                }
                check_field_value(key("cache_control"), &rule.cache_control, true)
            })
        })
    }
}
