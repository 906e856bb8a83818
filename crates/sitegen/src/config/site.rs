//! `[site]`: what to compile and how its URLs map to files.
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

use super::default_true;
use super::key::Key;
use serde::Deserialize;
use std::path::PathBuf;

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
    /// Serve a folder that holds the project itself (`edgesite.toml`, `Cargo.toml`,
    /// `wrangler.toml`, or the folder of the configuration or one above it): off by default,
    /// since it would publish the configuration, the sources and whatever else lies there.
    #[serde(default)]
    pub allow_project_files: bool,
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
            allow_project_files: false,
        }
    }
}

fn default_dir() -> PathBuf {
    PathBuf::from("public")
}

impl SiteConfig {
    pub(super) fn first_invalid(&self) -> Option<(Key, String)> {
        let fallback = self.spa_fallback.as_deref()?;
        (!fallback.starts_with('/')).then(|| {
            (
                Key::new(&["site", "spa_fallback"]),
                format!("{fallback:?} must be a URL path such as \"/index.html\""),
            )
        })
    }
}
