//! `[headers]`: the fields sent on every response.

use super::default_true;
use super::key::{check_field_value, Key};
use serde::Deserialize;

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

impl HeadersConfig {
    pub(super) fn first_invalid(&self) -> Option<(Key, String)> {
        [
            ("referrer_policy", &self.referrer_policy),
            ("content_security_policy", &self.content_security_policy),
            ("strict_transport_security", &self.strict_transport_security),
            (
                "access_control_allow_origin",
                &self.access_control_allow_origin,
            ),
        ]
        .into_iter()
        .find_map(|(name, value)| check_field_value(Key::new(&["headers", name]), value, false))
    }
}
