//! The image stage: images made at build time (`[images]`). Every PNG, JPEG and GIF of the site
//! is read once, on all cores:
//! - a PNG is re-encoded without loss (oxipng), a JPEG too (jpegtran), each served so when
//!   smaller; a PNG and a static GIF are given a lossless WebP; each is decoded again and kept
//!   only when pixel-identical to the original;
//! - a photograph (JPEG; a PNG with `lossy_png`) gets AVIF and WebP variants at the lowest
//!   quality of a ladder whose SSIMULACRA2 score against the decoded original reaches
//!   `min_score` (the quality guard); a format that cannot reach it is dropped;
//! - a variant is kept only when `min_savings_percent` smaller than what the file serves.
//!
//! What the viewer sees does not change: EXIF orientation is applied to the variants' pixels (as
//! browsers apply it to the original); images whose colours depend on what the variants would
//! not carry (an ICC profile other than sRGB, PNG gamma or chromaticities without sRGB) get no
//! variant; animated PNGs and GIFs are left as they are; a static GIF gets a lossless WebP.
//!
//! It runs before the link pass, which fingerprints what is served: a `?v=` covers the file and
//! its variants ([`Made::digest`]). Results are cached by the source's bytes and the settings.
//! The files of earlier deploys kept for skew protection (their names carry their hashes) keep
//! their bytes and get their variants again, from the cache when an earlier build made them:
//! a page of an earlier deploy still open in a browser gets the same AVIF it got then.

mod candidates;
mod inspect;
mod stored;

use crate::config::ImagesConfig;
use crate::error::Error;
use crate::hash;
use crate::model::ImageReport;
use crate::parallel;
use crate::progress::Progress;
use crate::sources::Sources;
use crate::warning::{Notes, Warning, WarningKind};
use std::path::Path;
use std::time::Instant;

/// What the stage made of the site's images.
#[derive(Debug, Default)]
pub(crate) struct Images {
    /// Per source, in the sources' order: what was made of it (`None`: not an image the stage
    /// reads, or the stage is off).
    made: Vec<Option<Made>>,
    /// Images made now (the rest came from the cache).
    pub(crate) encoded: usize,
    /// A warning for each image the stage could not or would not read (larger than its
    /// bounds, or not decodable), naming the file and why: served as published.
    pub(crate) notes: Notes,
    /// Milliseconds.
    pub(crate) wall_time_ms: u64,
}

/// What the stage made of one image.
#[derive(Debug, Clone)]
pub(crate) struct Made {
    /// The bytes to serve as the file itself, when the lossless re-encode is kept.
    pub(crate) optimised: Option<Vec<u8>>,
    /// The variants kept: media type, bytes, score.
    pub(crate) variants: Vec<MadeVariant>,
    /// The report's rows.
    pub(crate) report: ImageReport,
    /// What the file's fingerprint (`?v=`) is taken from, so that it changes with any of its
    /// representations: without variants, the SHA-256 (hex) of what is served as the file; with
    /// them, the SHA-256 of that hex, then each variant's media type and SHA-256 (hex).
    pub(crate) digest: String,
}

/// A variant the stage kept.
#[derive(Debug, Clone)]
pub(crate) struct MadeVariant {
    /// `image/avif` or `image/webp`.
    pub(crate) content_type: &'static str,
    /// Its bytes.
    pub(crate) bytes: Vec<u8>,
    /// SSIMULACRA2 against the original (lossy only).
    pub(crate) score: Option<f64>,
}

impl Images {
    /// What the stage made of source `index`.
    pub(crate) fn of(&self, index: usize) -> Option<&Made> {
        self.made.get(index).and_then(Option::as_ref)
    }
}

/// `text` (a decoder's error, which may quote the file's bytes) with its control characters
/// escaped, whole.
fn escaped_all(text: &str) -> String {
    text.chars()
        .flat_map(|c| match c.is_control() {
            true => c.escape_default().collect::<Vec<_>>(),
            false => vec![c],
        })
        .collect()
}

/// Whether the stage reads the file at `path`: a PNG, JPEG or GIF, not excluded.
fn reads(path: &str, config: &ImagesConfig) -> bool {
    config.enabled && candidates::Kind::of(path).is_some() && !config.excludes(path)
}

/// Makes the variants of the site's images (its own and the kept ones), on all cores, as
/// `[images]` says; what it made is cached in `cache_dir` (`None`: made every time).
pub(crate) fn make(
    sources: &Sources,
    config: &ImagesConfig,
    cache_dir: Option<&Path>,
) -> Result<Images, Error> {
    let started = Instant::now();
    let files = &sources.files;
    let todo: Vec<usize> = (0..files.len())
        .filter(|&i| reads(&files[i].url_path, config))
        .collect();
    let progress = Progress::new("images", todo.len());
    let results = parallel::map(todo.len(), |n| {
        let file = &files[todo[n]];
        let result = file.source.read().map(|bytes| {
            let made = stored::made(&file.url_path, &bytes, config, cache_dir);
            progress.one_done(bytes.len() as u64);
            made
        });
        Some(result)
    });
    let mut images = Images {
        made: vec![None; sources.files.len()],
        ..Images::default()
    };
    for (result, i) in results.into_iter().zip(todo) {
        let Some(result) = result else { continue };
        let (made, from_cache) = result?;
        images.encoded += usize::from(!from_cache);
        if let Some(why) = &made.report.warning {
            let path = crate::error::escaped(&files[i].url_path);
            let warning = Warning::new(WarningKind::ImageNotRead, escaped_all(why));
            images.notes.warnings.push(warning.in_file(path));
        }
        images.made[i] = Some(made);
    }
    images.wall_time_ms = started.elapsed().as_millis() as u64;
    Ok(images)
}

/// What one image becomes (not cached): its candidates tried, the best of each kind kept.
/// `digest` is the SHA-256 of `bytes`.
fn make_one(path: &str, bytes: &[u8], digest: &[u8; 32], config: &ImagesConfig) -> Made {
    let made = candidates::try_all(path, bytes, digest, config);
    let digest = digest_of(digest, made.optimised.as_deref(), &made.variants);
    Made {
        digest,
        optimised: made.optimised,
        variants: made.variants,
        report: made.report,
    }
}

/// [`Made::digest`] of an image whose source has the SHA-256 `source`: without variants, the
/// SHA-256 (hex) of what is served as the file; with them, a hash over that and each variant's
/// media type and SHA-256. The cache checks what it reads against it.
fn digest_of(source: &[u8; 32], optimised: Option<&[u8]>, variants: &[MadeVariant]) -> String {
    let served = hash::hex(&optimised.map_or(*source, hash::sha256));
    if variants.is_empty() {
        return served;
    }
    let mut input = served;
    for variant in variants {
        input.push_str(variant.content_type);
        input.push_str(&hash::hex(&hash::sha256(&variant.bytes)));
    }
    hash::hex(&hash::sha256(input.as_bytes()))
}
