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
}

impl Default for SiteConfig {
    fn default() -> Self {
        SiteConfig {
            dir: default_dir(),
            clean_urls: true,
            spa_fallback: None,
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
        toml::from_str(text).map_err(|e| Error::Config {
            path: path.to_path_buf(),
            line: e
                .span()
                .map_or(1, |span| text[..span.start].matches('\n').count() + 1),
            message: e.message().to_string(),
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
    fn a_missing_file_is_the_defaults() {
        assert_eq!(
            Config::load(Path::new("/no/such/edgesite.toml")).unwrap(),
            Config::default()
        );
    }
}
