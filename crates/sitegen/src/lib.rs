//! # edgesite-sitegen
//!
//! The build-time site compiler behind edgesite. [`compile`] walks a site directory, hashes every
//! file with SHA-256, decides its Content-Type, ETag, Last-Modified and Cache-Control, and builds
//! the sorted route table; [`Manifest::write_rust`] then writes `site.rs` (static tables of
//! `edgesite-core` types, bodies embedded with `include_bytes!`) and `manifest.json`.
//!
//! It takes its inputs as arguments and reads no environment variable: `build.rs` does that
//! (`EDGESITE_SITE`, `SOURCE_DATE_EPOCH`, `OUT_DIR`) and prints the `cargo:` lines.
//!
//! ```no_run
//! use edgesite_sitegen::{compile, last_modified, Options};
//! use std::path::Path;
//!
//! let site = Path::new("public");
//! let options = Options { last_modified: last_modified(None, site)? };
//! let manifest = compile(site, &options)?;
//! manifest.write_rust(Path::new("target/out"))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod codegen;
mod error;
mod etag;
mod mime;
mod modified;
mod routes;
mod walk;

pub use error::Error;
pub use modified::last_modified;

use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Cache-Control for every file: store, but revalidate before each use (RFC 9111 §5.2.2.4). With
/// strong ETags a revalidation is a cheap 304, and a deploy is never hidden behind a stale copy.
pub const DEFAULT_CACHE_CONTROL: &str = "no-cache";

/// How to compile a site.
#[derive(Debug, Clone)]
pub struct Options {
    /// The Last-Modified of every file (see [`last_modified`]).
    pub last_modified: SystemTime,
}

/// A compiled site: everything `site.rs` is generated from, also written as `manifest.json`.
#[derive(Debug, Serialize)]
pub struct Manifest {
    /// The site directory.
    pub site_dir: PathBuf,
    /// Last-Modified of every file, as an IMF-fixdate (RFC 9110 §5.6.7).
    pub last_modified: String,
    /// Every file, sorted by URL path.
    pub files: Vec<File>,
    /// Every route, sorted by path (the order `edgesite_core::Site::route` searches).
    pub routes: Vec<Route>,
    /// The index in `files` of `/404.html`, if the site has one.
    pub not_found: Option<usize>,
    /// Every directory and file read, for `cargo:rerun-if-changed`.
    #[serde(skip)]
    pub tracked: Vec<PathBuf>,
}

/// One file of the site.
#[derive(Debug, Clone, Serialize)]
pub struct File {
    /// The URL path, e.g. `/docs/index.html`.
    pub path: String,
    /// Where it was read from.
    pub source: PathBuf,
    /// Content-Type field value.
    pub content_type: &'static str,
    /// Cache-Control field value.
    pub cache_control: &'static str,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256 of the bytes, lower-case hex.
    pub sha256: String,
    /// The strong ETag, quoted.
    pub etag: String,
}

/// A route: a request path and what it leads to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Route {
    /// The normalized request path.
    pub path: String,
    /// Where it leads.
    pub target: RouteTarget,
}

/// Where a route leads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RouteTarget {
    /// The file at this index of [`Manifest::files`].
    File(usize),
    /// A 308 redirect to this location.
    Redirect(String),
}

/// Compiles the site in `site_dir`.
///
/// # Errors
/// A missing, empty or unreadable site, or a name no URL can reach (see [`Error`]).
pub fn compile(site_dir: &Path, options: &Options) -> Result<Manifest, Error> {
    let walked = walk::walk(site_dir)?;
    if walked.files.is_empty() {
        return Err(Error::EmptySite {
            path: site_dir.to_path_buf(),
        });
    }
    let mut tracked = walked.dirs;
    let mut files = Vec::with_capacity(walked.files.len());
    for found in walked.files {
        if found.url_path.len() > edgesite_core::MAX_PATH_LEN - 1 {
            return Err(Error::Unservable {
                path: found.source,
                reason: "its URL path is longer than edgesite_core::MAX_PATH_LEN bytes",
            });
        }
        let bytes = std::fs::read(&found.source).map_err(|source| Error::Read {
            path: found.source.clone(),
            source,
        })?;
        let digest = etag::sha256(&bytes);
        tracked.push(found.source.clone());
        files.push(File {
            content_type: mime::content_type(&found.url_path),
            cache_control: DEFAULT_CACHE_CONTROL,
            size: bytes.len() as u64,
            etag: etag::strong_etag(&digest),
            sha256: etag::hex(&digest),
            path: found.url_path,
            source: found.source,
        });
    }
    let routes = routes::routes(&files);
    let not_found = files.iter().position(|f| f.path == "/404.html");
    Ok(Manifest {
        site_dir: site_dir.to_path_buf(),
        last_modified: httpdate::fmt_http_date(options.last_modified),
        files,
        routes,
        not_found,
        tracked,
    })
}

impl Manifest {
    /// Total bytes of all files.
    pub fn total_size(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }

    /// Writes `site.rs` and `manifest.json` into `out_dir`.
    ///
    /// # Errors
    /// When a file cannot be written.
    pub fn write_rust(&self, out_dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(out_dir)?;
        std::fs::write(out_dir.join("site.rs"), codegen::site_rs(self))?;
        let json = serde_json::to_string_pretty(self).expect("a Manifest always serializes");
        std::fs::write(out_dir.join("manifest.json"), json)
    }
}
