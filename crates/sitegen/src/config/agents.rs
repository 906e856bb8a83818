//! `[agents]`: pages for agents (issue 35): a Markdown twin of every page, made at build, and
//! `/llms.txt` and `/llms-full.txt` (the agents stage, `crate::agents`).
//!
//! ```toml
//! [agents]
//! # Twins and llms.txt: unset (default) makes them for a site of more than one page.
//! # enabled = true
//! # The page's main content, converted: the first element this selector list matches (a
//! # list of compounds of a type, `#id`, `.class` and `[attr]` / `[attr=value]`). Unset: the
//! # first of `main`, `[role=main]`, `article`, else the body.
//! # content = ".document"
//! # URL path globs of pages without a twin (and left out of llms.txt).
//! exclude = []
//! # The Content-Signal field of every twin (default none: the author decides).
//! # content_signal = "ai-train=no, search=yes, ai-input=yes"
//! # The most bytes of /llms-full.txt (whole twins, in llms.txt's order, until the next would
//! # pass it).
//! full_bytes = 4194304
//! # The site's origin (scheme, host, port): the twins' links and images, their front matter's
//! # `url` and llms.txt's links name it, absolute; unset: from the site's root (`/guide/next`).
//! # origin = "https://docs.example.com"
//! ```

use super::key::{check_field_value, first_invalid_glob, Key};
use serde::Deserialize;

/// `[agents]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentsConfig {
    /// `true`, `false`, or unset: on for a site with more than one page.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// The main content's selector list (see the module docs); unset: the defaults.
    #[serde(default)]
    pub content: Option<String>,
    /// Globs over URL paths of pages without a twin.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// The `Content-Signal` field value of every twin; empty: none.
    #[serde(default)]
    pub content_signal: String,
    /// The most bytes of `/llms-full.txt`.
    #[serde(default = "default_full_bytes")]
    pub full_bytes: u64,
    /// The site's origin (`https://docs.example.com`), for absolute URLs in what agents read;
    /// empty: URLs from the site's root.
    #[serde(default)]
    pub origin: String,
}

fn default_full_bytes() -> u64 {
    4 << 20
}

impl Default for AgentsConfig {
    fn default() -> Self {
        AgentsConfig {
            enabled: None,
            content: None,
            exclude: Vec::new(),
            content_signal: String::new(),
            full_bytes: default_full_bytes(),
            origin: String::new(),
        }
    }
}

impl AgentsConfig {
    pub(super) fn first_invalid(&self) -> Option<(Key, String)> {
        if let Some(content) = &self.content {
            if let Err(why) = crate::selector::Selector::parse(content) {
                return Some((Key::new(&["agents", "content"]), why));
            }
        }
        if let Err(why) = check_origin(&self.origin) {
            return Some((Key::new(&["agents", "origin"]), why));
        }
        first_invalid_glob("agents", "exclude", &self.exclude).or_else(|| {
            let key = Key::new(&["agents", "content_signal"]);
            check_field_value(key, &self.content_signal, false)
        })
    }

    /// Whether `path` has no twin.
    pub(crate) fn excludes(&self, path: &str) -> bool {
        self.exclude
            .iter()
            .any(|glob| crate::glob::matches(glob, path))
    }
}

/// An origin as RFC 6454 serializes one (`http` or `https`, `://`, a host of letters, digits,
/// `.`, `-`, or an IPv6 address in brackets, then an optional `:port` up to 65535), or empty.
fn check_origin(origin: &str) -> Result<(), String> {
    if origin.is_empty() {
        return Ok(());
    }
    let example = "as \"https://docs.example.com\" (a scheme and a host, no path)";
    let authority = (origin.strip_prefix("https://"))
        .or_else(|| origin.strip_prefix("http://"))
        .ok_or_else(|| format!("{origin:?} is not an http or https origin: write it {example}"))?;
    let bad = || format!("{origin:?} is not an origin: write it {example}");
    let (host_ok, port) = match authority.strip_prefix('[') {
        Some(rest) => {
            let (ipv6, after) = rest.split_once(']').ok_or_else(bad)?;
            let ok = ipv6.parse::<std::net::Ipv6Addr>().is_ok();
            (
                ok && (after.is_empty() || after.starts_with(':')),
                after.strip_prefix(':'),
            )
        }
        None => {
            let (host, port) = match authority.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (authority, None),
            };
            let name = |b: u8| b.is_ascii_alphanumeric() || b == b'.' || b == b'-';
            (!host.is_empty() && host.bytes().all(name), port)
        }
    };
    let port_ok =
        port.is_none_or(|p| p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok());
    match host_ok && port_ok {
        true => Ok(()),
        false => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::check_origin;

    #[test]
    fn origins_are_a_scheme_a_host_and_a_port() {
        for good in [
            "",
            "https://docs.example.com",
            "http://localhost:8787",
            "https://[::1]:8443",
            "https://[2001:db8::1]",
        ] {
            assert_eq!(check_origin(good), Ok(()), "{good}");
        }
        for bad in [
            "docs.example.com",
            "https://docs.example.com/",
            "https://docs.example.com/guide",
            "https://",
            "ftp://example.com",
            "https://exa mple.com",
            "https://example.com:",
            "https://example.com:99999x",
            "https://example.com?x",
            "https://[::1",
            "https://[:::]",
            "https://example.com:65536",
        ] {
            assert!(check_origin(bad).is_err(), "{bad}");
        }
    }
}
