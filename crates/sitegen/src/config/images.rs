//! `[images]`: the image stage (`images/`): lossless optimisation of every PNG and JPEG, AVIF and
//! WebP variants sent to browsers that ask for them (RFC 9110 §12.5.1), each kept only when it is
//! smaller and, when lossy, passes the quality guard.
//!
//! ```toml
//! [images]
//! # The image stage as a whole (default true).
//! enabled = true
//! # PNGs and JPEGs re-encoded without loss (oxipng, jpegtran), and PNGs and static GIFs given
//! # a lossless WebP (default true).
//! lossless = true
//! # The lossy variants made of photographs (JPEG), of "avif", "webp" (default both).
//! formats = ["avif", "webp"]
//! # Lossy variants of PNGs too (default false: screenshots and diagrams stay lossless).
//! lossy_png = false
//! # The quality guard: the SSIMULACRA2 score a lossy variant must reach against the decoded
//! # original (default 80: "very high quality", indistinguishable side by side at 1:1).
//! min_score = 80
//! # Keep a variant only when it is at least this many percent smaller (default 10).
//! min_savings_percent = 10
//! # AVIF encoder speed (libaom's, through avifenc), 1 (slowest, smallest) to 10 (default 6).
//! speed = 6
//! # Images with more pixels are served as they are (default 40 million).
//! max_pixels = 40000000
//! # Images whose work would need more memory at its peak (an estimate from the dimensions the
//! # header declares, read before anything is decoded) are served as they are (default 4096:
//! # a 24-megapixel photograph fits).
//! max_memory_mb = 4096
//! # URL path globs of images left as they are.
//! exclude = []
//! # What shared caches are told of responses that vary by Accept: "private" (default) sends
//! # `CDN-Cache-Control: private`, for CDNs that ignore `Vary: Accept` (Cloudflare's below its
//! # paid "Vary for images"); "vary" trusts them to honour Vary (cache.cdn applies as set).
//! shared_caches = "private"
//! ```

use super::key::{first_invalid_glob, Key};
use serde::Deserialize;

/// The lossy formats the stage can make.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    /// AVIF (AV1 still image), `image/avif`: libaom through libavif's `avifenc`.
    Avif,
    /// WebP, `image/webp`: libwebp.
    Webp,
}

impl ImageFormat {
    /// Its media type, the variant's Content-Type.
    pub fn media_type(self) -> &'static str {
        match self {
            ImageFormat::Avif => "image/avif",
            ImageFormat::Webp => "image/webp",
        }
    }

    /// Its name in `[images] formats` and in the report.
    pub fn name(self) -> &'static str {
        match self {
            ImageFormat::Avif => "avif",
            ImageFormat::Webp => "webp",
        }
    }
}

/// `images.shared_caches`: how responses that vary by Accept are kept from shared caches that
/// ignore `Vary: Accept`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SharedCaches {
    /// `CDN-Cache-Control: private` (RFC 9213) on every response of an image with variants: a
    /// CDN never stores one client's AVIF for another; browsers cache as `[cache]` says.
    #[default]
    Private,
    /// Trust shared caches to honour `Vary: Accept` (Cloudflare with "Vary for images" on).
    Vary,
}

impl SharedCaches {
    /// The core's name for it.
    pub fn core(self) -> edgesite_core::SharedCaches {
        match self {
            SharedCaches::Private => edgesite_core::SharedCaches::Private,
            SharedCaches::Vary => edgesite_core::SharedCaches::Vary,
        }
    }
}

/// `[images]`
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImagesConfig {
    /// The stage as a whole (default true).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Lossless optimisation of PNGs and JPEGs, and a lossless WebP of PNGs and static GIFs
    /// (default true).
    #[serde(default = "yes")]
    pub lossless: bool,
    /// Lossy formats made of photographs (default AVIF and WebP).
    #[serde(default = "default_formats")]
    pub formats: Vec<ImageFormat>,
    /// Lossy variants of PNGs too (default false).
    #[serde(default)]
    pub lossy_png: bool,
    /// The SSIMULACRA2 score a lossy variant must reach, 0-100 (default 80).
    #[serde(default = "default_min_score")]
    pub min_score: u32,
    /// Keep a variant only when at least this many percent smaller than the original (default 10).
    #[serde(default = "default_min_savings_percent")]
    pub min_savings_percent: u64,
    /// AVIF encoder speed, 1-10 (default 6).
    #[serde(default = "default_speed")]
    pub speed: u8,
    /// Larger images are left as they are (default 40 million pixels).
    #[serde(default = "default_max_pixels")]
    pub max_pixels: u64,
    /// Larger estimated peaks of memory are left as they are (default 4096 MiB).
    #[serde(default = "default_max_memory_mb")]
    pub max_memory_mb: u64,
    /// URL path globs of images left as they are.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// What shared caches are told (default `private`).
    #[serde(default)]
    pub shared_caches: SharedCaches,
}

impl Default for ImagesConfig {
    fn default() -> Self {
        ImagesConfig {
            enabled: true,
            lossless: true,
            formats: default_formats(),
            lossy_png: false,
            min_score: default_min_score(),
            min_savings_percent: default_min_savings_percent(),
            speed: default_speed(),
            max_pixels: default_max_pixels(),
            max_memory_mb: default_max_memory_mb(),
            exclude: Vec::new(),
            shared_caches: SharedCaches::Private,
        }
    }
}

fn yes() -> bool {
    true
}

fn default_formats() -> Vec<ImageFormat> {
    vec![ImageFormat::Avif, ImageFormat::Webp]
}

fn default_min_score() -> u32 {
    80
}

fn default_min_savings_percent() -> u64 {
    10
}

fn default_speed() -> u8 {
    6
}

fn default_max_pixels() -> u64 {
    40_000_000
}

fn default_max_memory_mb() -> u64 {
    4096
}

impl ImagesConfig {
    pub(super) fn first_invalid(&self) -> Option<(Key, String)> {
        let key = |name| Key::new(&["images", name]);
        if self.min_score > 100 {
            return Some((
                key("min_score"),
                format!("{} is not in 0..=100", self.min_score),
            ));
        }
        if self.min_savings_percent > 100 {
            return Some((
                key("min_savings_percent"),
                format!("{} is over 100", self.min_savings_percent),
            ));
        }
        if !(1..=10).contains(&self.speed) {
            return Some((key("speed"), format!("{} is not in 1..=10", self.speed)));
        }
        if self.max_pixels == 0 {
            return Some((key("max_pixels"), "must be at least 1".into()));
        }
        if self.max_memory_mb == 0 {
            return Some((key("max_memory_mb"), "must be at least 1".into()));
        }
        first_invalid_glob("images", "exclude", &self.exclude)
    }

    /// Whether the stage leaves the image at `path` as it is (`exclude`).
    pub(crate) fn excludes(&self, path: &str) -> bool {
        self.exclude
            .iter()
            .any(|glob| crate::glob::matches(glob, path))
    }

    /// The settings that change what the stage makes of an image, for cache keys and the
    /// fingerprint: a change of any of them makes new variants (and a new `?v=`).
    pub(crate) fn settings_key(&self) -> String {
        let formats: Vec<&str> = self.formats.iter().map(|f| f.name()).collect();
        format!(
            "l{}-f{}-p{}-s{}-m{}-a{}-x{}-r{}",
            u8::from(self.lossless),
            formats.join("+"),
            u8::from(self.lossy_png),
            self.min_score,
            self.min_savings_percent,
            self.speed,
            self.max_pixels,
            self.max_memory_mb
        )
    }
}
