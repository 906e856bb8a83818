//! `[compat]`: compatibility with other hosts.

use serde::Deserialize;

/// `[compat]`: compatibility with other hosts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct CompatConfig {
    /// Refuse `_redirects` and `_headers` files past Cloudflare Pages' caps (2,000 fixed and
    /// 100 dynamic redirects, 1,000 characters a line, 100 header rules), for a site that must
    /// also deploy on Pages (default `false`: edgesite compiles any number of rules).
    #[serde(default)]
    pub pages_limits: bool,
}
