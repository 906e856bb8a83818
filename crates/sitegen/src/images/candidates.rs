//! The encodings tried for one image, and the checks each must pass to be served:
//! - lossless (a PNG's oxipng re-encode, its lossless WebP): decoded again, pixel-identical;
//! - lossy (AVIF, WebP): the lowest quality of a ladder whose SSIMULACRA2 score against the
//!   decoded original reaches `min_score`, found by binary search (at most three encodes);
//! - either: at least `min_savings_percent` smaller than what the file serves.
//!
//! The codecs and the metric are edgesite-imaging's (SSIMULACRA2; AVIF decoded by libavif's
//! `avifdec`: where it is missing, no AVIF is served, and the report says so).

use super::inspect::{self, Decoded};
use super::MadeVariant;
use crate::cache::is_fingerprinted;
use crate::config::{ImageFormat, ImagesConfig};
use crate::model::{Candidate, ImageReport};
use edgesite_imaging as imaging;

/// The qualities tried, lowest first (each encoder's scale: AVIF's is libavif's `-q`). A photo
/// passes the default guard in the middle of each (docs/benchmarks.md).
fn ladder(format: ImageFormat) -> &'static [u8] {
    match format {
        ImageFormat::Avif => &[45, 52, 58, 64, 70, 76, 84],
        ImageFormat::Webp => &[60, 70, 78, 85, 90, 94, 97],
    }
}

/// What was tried for one image, and what is kept.
pub(super) struct Tried {
    pub(super) optimised: Option<Vec<u8>>,
    pub(super) variants: Vec<MadeVariant>,
    pub(super) report: ImageReport,
}

/// The kinds of image the stage reads, by file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Png,
    Jpeg,
    Gif,
}

impl Kind {
    /// The kind of the file at `path` (by its extension, in any case), if the stage reads it.
    pub(super) fn of(path: &str) -> Option<Kind> {
        let lower = path.to_ascii_lowercase();
        let extension = lower.rsplit_once('.')?.1;
        match extension {
            "png" => Some(Kind::Png),
            "jpg" | "jpeg" => Some(Kind::Jpeg),
            "gif" => Some(Kind::Gif),
            _ => None,
        }
    }
}

/// Tries every encoding `config` asks for of the image at `path` (`digest`: the SHA-256 of
/// `bytes`).
pub(super) fn try_all(path: &str, bytes: &[u8], digest: &[u8; 32], config: &ImagesConfig) -> Tried {
    let kind = Kind::of(path);
    let (is_png, is_gif) = (kind == Some(Kind::Png), kind == Some(Kind::Gif));
    let mut tried = Tried {
        optimised: None,
        variants: Vec::new(),
        report: ImageReport {
            original_bytes: bytes.len() as u64,
            dimensions: (0, 0),
            left_as_is: None,
            warning: None,
            candidates: Vec::new(),
        },
    };
    let decoded = match inspect::decode(bytes, is_png, config) {
        Ok(decoded) => decoded,
        Err(why) => {
            if !why.starts_with("animated") {
                tried.report.warning = Some(why.clone());
            }
            tried.report.left_as_is = Some(why);
            return tried;
        }
    };
    tried.report.dimensions = (decoded.shown.width(), decoded.shown.height());
    // A static GIF keeps its bytes (no maintained lossless GIF optimiser builds here) and gets
    // the lossless WebP a PNG gets.
    if config.lossless && !is_gif {
        tried.optimised =
            optimise_original(path, bytes, digest, is_png, &decoded, &mut tried.report);
    }
    let served = tried.optimised.as_ref().map_or(bytes.len(), Vec::len) as u64;
    if let Err(why) = &decoded.colours {
        tried.report.left_as_is = Some(format!("no variant: {why}"));
        return tried;
    }
    let shown = Shown::new(&decoded);
    let mut made = Vec::new();
    if (is_png || is_gif) && config.lossless {
        made.extend(lossless_webp(
            &decoded,
            &shown,
            served,
            config,
            &mut tried.report,
        ));
    }
    if !(is_png || is_gif) || (is_png && config.lossy_png) {
        for &format in &config.formats {
            made.extend(lossy(format, &shown, served, config, &mut tried.report));
        }
    }
    tried.variants = smallest_per_type(made, &mut tried.report);
    tried
}

/// The pixels as the viewer sees them (orientation applied), staged once for the encoders that
/// run as tools.
struct Shown {
    rgba: imaging::RgbaImage,
    alpha: bool,
    /// `None` when the temporary folder cannot be written: no variant is made.
    staged: Option<imaging::Staged>,
}

impl Shown {
    fn new(decoded: &Decoded) -> Shown {
        let rgba = decoded.shown.to_rgba8();
        let alpha = imaging::has_alpha(&rgba);
        let staged = imaging::Staged::new(&rgba, alpha);
        Shown {
            rgba,
            alpha,
            staged,
        }
    }
}

/// Whether the tools `format` needs are installed, and if not, what the report says.
fn missing_tools(format: ImageFormat) -> Option<&'static str> {
    match format {
        ImageFormat::Avif if !imaging::avif_tools_found() => {
            Some("avifenc and avifdec (libavif) not found")
        }
        ImageFormat::Webp if !imaging::webp_tools_found() => Some("cwebp (libwebp) not found"),
        _ => None,
    }
}

/// Whether `bytes` is enough smaller than `served` to be worth storing.
fn saves(bytes: u64, served: u64, config: &ImagesConfig) -> bool {
    bytes * 100 <= served * (100 - config.min_savings_percent)
}

fn candidate(kind: String, bytes: u64, score: Option<f64>, kept: bool, why: String) -> Candidate {
    Candidate {
        kind,
        bytes,
        score,
        kept,
        why,
    }
}

/// The original re-encoded without loss (a PNG by oxipng, its safe preset keeping the colour
/// chunks; a JPEG by jpegtran), served in its place when it is smaller by at least 1% (it takes
/// no more room: it replaces the file) and decodes to the same pixels. A file whose name carries
/// its hash keeps its bytes.
fn optimise_original(
    path: &str,
    bytes: &[u8],
    digest: &[u8; 32],
    is_png: bool,
    decoded: &Decoded,
    report: &mut ImageReport,
) -> Option<Vec<u8>> {
    let kind = if is_png {
        "png (oxipng)"
    } else {
        "jpeg (jpegtran)"
    }
    .to_string();
    if is_fingerprinted(path, bytes, digest) {
        let why = "the file name carries its hash: served as it is".into();
        report.candidates.push(candidate(kind, 0, None, false, why));
        return None;
    }
    let optimised = if is_png {
        imaging::optimise_png(bytes).map_err(|e| format!("oxipng: {e}"))
    } else if imaging::jpeg_tool_found() {
        imaging::optimise_jpeg(bytes).ok_or_else(|| "jpegtran failed".to_string())
    } else {
        Err("jpegtran (libjpeg-turbo) not found: served as it is".to_string())
    };
    let optimised = match optimised {
        Ok(optimised) => optimised,
        Err(why) => {
            report.candidates.push(candidate(kind, 0, None, false, why));
            return None;
        }
    };
    let size = optimised.len() as u64;
    let identical = imaging::decode(
        &optimised,
        (decoded.stored.width(), decoded.stored.height()),
    )
    .is_some_and(|again| imaging::same_pixels(&again, &decoded.stored));
    let (kept, why) = if !identical {
        (false, "not pixel-identical: dropped".to_string())
    } else if size * 100 > bytes.len() as u64 * 99 {
        (false, "not 1% smaller".to_string())
    } else {
        (
            true,
            format!(
                "pixel-identical, served as the {}",
                if is_png { "PNG" } else { "JPEG" }
            ),
        )
    };
    report
        .candidates
        .push(candidate(kind, size, None, kept, why));
    kept.then_some(optimised)
}

/// A lossless WebP of an 8-bit image (libwebp), kept when it decodes to the same pixels.
fn lossless_webp(
    decoded: &Decoded,
    shown: &Shown,
    served: u64,
    config: &ImagesConfig,
    report: &mut ImageReport,
) -> Option<MadeVariant> {
    let kind = "webp lossless".to_string();
    let not_made = if !decoded.eight_bit {
        Some("more than 8 bits per channel: a lossless WebP cannot hold it")
    } else {
        missing_tools(ImageFormat::Webp)
    };
    if let Some(why) = not_made {
        report
            .candidates
            .push(candidate(kind, 0, None, false, why.into()));
        return None;
    }
    let Some(bytes) = shown.staged.as_ref().and_then(|s| s.webp(None)) else {
        let why = "cwebp failed".into();
        report.candidates.push(candidate(kind, 0, None, false, why));
        return None;
    };
    let size = bytes.len() as u64;
    let identical = imaging::decode_webp(&bytes, shown.rgba.dimensions())
        .is_some_and(|again| imaging::looks_identical(&again, &shown.rgba));
    let (kept, why) = if !identical {
        (false, "not pixel-identical: dropped".to_string())
    } else if !saves(size, served, config) {
        (false, "not smaller enough".to_string())
    } else {
        (true, "pixel-identical".to_string())
    };
    report
        .candidates
        .push(candidate(kind, size, None, kept, why));
    kept.then(|| MadeVariant {
        content_type: ImageFormat::Webp.media_type(),
        bytes,
        score: None,
    })
}

/// The lowest quality of `format`'s ladder that passes the guard, if it saves enough.
fn lossy(
    format: ImageFormat,
    shown: &Shown,
    served: u64,
    config: &ImagesConfig,
    report: &mut ImageReport,
) -> Option<MadeVariant> {
    if let Some(why) = missing_tools(format) {
        let kind = format.name().to_string();
        report
            .candidates
            .push(candidate(kind, 0, None, false, why.into()));
        return None;
    }
    let (quality, bytes, score) = search(format, shown, config, report)?;
    let size = bytes.len() as u64;
    let row = report
        .candidates
        .iter_mut()
        .rfind(|c| c.kind == format!("{} q{quality}", format.name()))?;
    if !saves(size, served, config) {
        row.why = "passes the guard, not smaller enough".into();
        return None;
    }
    row.kept = true;
    row.why = "the lowest quality that passes the guard".into();
    Some(MadeVariant {
        content_type: format.media_type(),
        bytes,
        score: Some(score),
    })
}

/// Binary search of `format`'s ladder for the first quality that passes the guard (scores rise
/// with quality): its quality, bytes and score. Every quality tried is a row of the report.
fn search(
    format: ImageFormat,
    shown: &Shown,
    config: &ImagesConfig,
    report: &mut ImageReport,
) -> Option<(u8, Vec<u8>, f64)> {
    let ladder = ladder(format);
    let (mut low, mut high) = (0, ladder.len());
    let mut passed = None;
    while low < high {
        let middle = (low + high) / 2;
        let quality = ladder[middle];
        let bytes = shown.staged.as_ref().and_then(|staged| match format {
            ImageFormat::Avif => staged.avif(quality, config.speed),
            ImageFormat::Webp => staged.webp(Some(quality)),
        });
        let decoded_again = bytes.as_deref().and_then(|b| match format {
            ImageFormat::Avif => imaging::decode_avif(b, shown.rgba.dimensions()),
            ImageFormat::Webp => imaging::decode_webp(b, shown.rgba.dimensions()),
        });
        let score =
            decoded_again.and_then(|again| imaging::score(&shown.rgba, &again, shown.alpha));
        let kind = format!("{} q{quality}", format.name());
        let size = bytes.as_ref().map_or(0, |b| b.len() as u64);
        match (bytes, score) {
            (Some(bytes), Some(score)) if score >= f64::from(config.min_score) => {
                let why = "passes the guard; a lower quality passes too".to_string();
                report
                    .candidates
                    .push(candidate(kind, size, Some(score), false, why));
                passed = Some((quality, bytes, score));
                high = middle;
            }
            (_, score) => {
                let why = match score {
                    Some(_) => format!("below the guard ({})", config.min_score),
                    None => "could not be decoded and scored".into(),
                };
                report
                    .candidates
                    .push(candidate(kind, size, score, false, why));
                low = middle + 1;
            }
        }
    }
    passed
}

/// One variant per media type: the smallest.
fn smallest_per_type(mut made: Vec<MadeVariant>, report: &mut ImageReport) -> Vec<MadeVariant> {
    made.sort_by_key(|v| (v.content_type, v.bytes.len()));
    let mut kept: Vec<MadeVariant> = Vec::new();
    for variant in made {
        if kept.iter().any(|k| k.content_type == variant.content_type) {
            let size = variant.bytes.len() as u64;
            if let Some(row) = report
                .candidates
                .iter_mut()
                .find(|c| c.kept && c.bytes == size)
            {
                row.kept = false;
                row.why = "a smaller one of this type is kept".into();
            }
        } else {
            kept.push(variant);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::Kind;

    #[test]
    fn the_kind_is_the_extension_in_any_case() {
        assert_eq!(Kind::of("/a/Photo.JPG"), Some(Kind::Jpeg));
        assert_eq!(Kind::of("/a/b.jpeg"), Some(Kind::Jpeg));
        assert_eq!(Kind::of("/shot.png"), Some(Kind::Png));
        assert_eq!(Kind::of("/anim.Gif"), Some(Kind::Gif));
        assert_eq!(Kind::of("/icon.svg"), None);
        assert_eq!(Kind::of("/dir.png/file"), None);
        assert_eq!(Kind::of("/png"), None);
    }
}
