//! `edgesite.toml`: the project's configuration, read with serde. Every key is optional; each
//! section is a file of this folder with its keys, their defaults and the checks serde cannot
//! make (`site.rs` for `[site]`, `cache.rs` for `[cache]`, ...); `key.rs` finds the line of a
//! key, so an unknown key, a value of the wrong type or out of range is a build error that names
//! the file and line. docs/configuration.md lists every key.

mod agents;
mod budget;
mod cache;
mod compat;
mod compression;
mod fingerprint;
mod headers;
mod history;
mod images;
mod key;
mod links;
mod optimize;
mod site;
mod storage;
#[cfg(test)]
mod tests;

pub use agents::AgentsConfig;
pub use budget::BudgetConfig;
pub use cache::{CacheConfig, CacheRule};
pub use compat::CompatConfig;
pub use compression::{CompressionConfig, GzipEncoder, Store};
pub use fingerprint::{FingerprintConfig, FingerprintMode};
pub use headers::HeadersConfig;
pub use history::HistoryConfig;
pub use images::{ImageFormat, ImagesConfig, SharedCaches};
pub use links::{BrokenLinks, Eagerness, LinksConfig, SpeculationAction};
pub use optimize::OptimizeConfig;
pub use site::{SiteConfig, TrailingSlash};
pub use storage::{StorageConfig, StorageTier, FREE_ASSET_FILES};

use crate::error::Error;
use key::{line_at, Key};
use serde::Deserialize;
use std::path::Path;

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
    /// `[compat]`
    #[serde(default)]
    pub compat: CompatConfig,
    /// `[fingerprint]`
    #[serde(default)]
    pub fingerprint: FingerprintConfig,
    /// `[links]`
    #[serde(default)]
    pub links: LinksConfig,
    /// `[optimize]`
    #[serde(default)]
    pub optimize: OptimizeConfig,
    /// `[history]`
    #[serde(default)]
    pub history: HistoryConfig,
    /// `[images]`
    #[serde(default)]
    pub images: ImagesConfig,
    /// `[storage]`
    #[serde(default)]
    pub storage: StorageConfig,
    /// `[agents]`
    #[serde(default)]
    pub agents: AgentsConfig,
}

fn default_true() -> bool {
    true
}

impl Config {
    /// The configured fields every file's responses start with: `[headers]`, then `cache.cdn`
    /// (as `CDN-Cache-Control`).
    pub(crate) fn default_fields(&self) -> Vec<(String, String)> {
        let cdn = self
            .cache
            .cdn
            .iter()
            .map(|cdn| ("cdn-cache-control", cdn.clone()));
        self.headers
            .fields()
            .into_iter()
            .chain(cdn)
            .map(|(name, value)| (name.to_string(), value))
            .collect()
    }

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
    /// Invalid TOML, an unknown key, a wrong type or a value out of range (a field value a
    /// response could not carry, a compression level, ...), naming file, line and key.
    pub fn parse(text: &str, path: &Path) -> Result<Config, Error> {
        let config: Config = toml::from_str(text).map_err(|e| Error::Config {
            path: path.to_path_buf(),
            line: e.span().map_or(1, |span| line_at(text, span.start)),
            message: e.message().to_string(),
        })?;
        match config.first_invalid() {
            None => Ok(config),
            Some((key, message)) => Err(Error::Config {
                path: path.to_path_buf(),
                line: key.line_in(text),
                message: format!("{key}: {message}"),
            }),
        }
    }

    /// The first value serde cannot check, with its key.
    fn first_invalid(&self) -> Option<(Key, String)> {
        self.compression
            .first_invalid()
            .or_else(|| self.headers.first_invalid())
            .or_else(|| self.cache.first_invalid())
            .or_else(|| self.site.first_invalid())
            .or_else(|| self.fingerprint.first_invalid())
            .or_else(|| self.links.first_invalid())
            .or_else(|| self.optimize.first_invalid())
            .or_else(|| self.history.first_invalid())
            .or_else(|| self.images.first_invalid())
            .or_else(|| self.storage.first_invalid())
            .or_else(|| self.agents.first_invalid())
    }
}
