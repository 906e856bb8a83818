//! # edgesite-imaging
//!
//! The image codecs and the quality metric behind edgesite-sitegen's image stage, as plain
//! functions over decoded pixels. A crate of its own so that it is compiled optimised in every
//! profile (the workspace's `Cargo.toml`): the encoders' generic code is instantiated here, and
//! at opt-level 0 an AVIF encode and its score take a minute instead of a second.
//!
//! - lossless PNG re-encoding: oxipng;
//! - AVIF: rav1e through ravif; decoded for scoring by libavif's `avifdec` where it is installed
//!   (no AV1 decoder builds here as a maintained crate: dav1d's binding needs a newer libdav1d
//!   than Debian 12 ships, the pure-Rust ports are unreleased or AGPL);
//! - WebP: libwebp (lossy and lossless; the pure-Rust encoder writes lossless only, larger);
//! - SSIMULACRA2 (Cloudinary's perceptual metric): 90 is visually lossless in a flicker test,
//!   80 cannot be told apart side by side at 1:1, 70 shows artefacts only when compared.

pub use image::{DynamicImage, RgbaImage};

use image::GenericImageView;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// A PNG re-encoded without loss by oxipng (preset 2; every chunk kept, colour chunks included).
///
/// # Errors
/// oxipng's, as text (a PNG it cannot read).
pub fn optimise_png(bytes: &[u8]) -> Result<Vec<u8>, String> {
    oxipng::optimize_from_memory(bytes, &oxipng::Options::from_preset(2)).map_err(|e| e.to_string())
}

/// Decodes an image in any format the stage reads (PNG, JPEG, WebP).
pub fn decode(bytes: &[u8]) -> Option<DynamicImage> {
    image::load_from_memory(bytes).ok()
}

/// Whether two decoded images have the same pixels in the same layout and pixel type.
pub fn same_pixels(a: &DynamicImage, b: &DynamicImage) -> bool {
    a.color() == b.color() && a.dimensions() == b.dimensions() && a.as_bytes() == b.as_bytes()
}

/// Whether two RGBA images show the same pixels: equal, or both fully transparent (libwebp, like
/// most encoders, keeps no colour under alpha 0; nothing shows it).
pub fn looks_identical(a: &RgbaImage, b: &RgbaImage) -> bool {
    a.dimensions() == b.dimensions()
        && a.pixels()
            .zip(b.pixels())
            .all(|(p, q)| p == q || (p[3] == 0 && q[3] == 0))
}

/// Whether any pixel is not fully opaque.
pub fn has_alpha(rgba: &RgbaImage) -> bool {
    rgba.pixels().any(|p| p[3] != 255)
}

/// A WebP of `rgba` (libwebp): lossless when `quality` is `None`, else lossy at that quality
/// (0-100). Without `alpha`, the alpha channel is not written.
pub fn webp(rgba: &RgbaImage, alpha: bool, quality: Option<u8>) -> Vec<u8> {
    let (width, height) = rgba.dimensions();
    let rgb;
    let encoder = if alpha {
        webp::Encoder::from_rgba(rgba.as_raw(), width, height)
    } else {
        rgb = DynamicImage::ImageRgba8(rgba.clone()).to_rgb8();
        webp::Encoder::from_rgb(rgb.as_raw(), width, height)
    };
    match quality {
        None => encoder.encode_lossless().to_vec(),
        Some(q) => encoder.encode(f32::from(q)).to_vec(),
    }
}

/// An AVIF of `rgba` (rav1e through ravif) at `quality` (0-100, alpha at the same) and encoder
/// `speed` (1-10). `None` when the encoder fails.
pub fn avif(rgba: &RgbaImage, alpha: bool, quality: u8, speed: u8) -> Option<Vec<u8>> {
    let (width, height) = (rgba.width() as usize, rgba.height() as usize);
    let encoder = ravif::Encoder::new()
        .with_quality(f32::from(quality))
        .with_alpha_quality(f32::from(quality))
        .with_speed(speed);
    let encoded = if alpha {
        let pixels: Vec<rgb::RGBA8> = rgba
            .pixels()
            .map(|p| rgb::RGBA8::new(p[0], p[1], p[2], p[3]))
            .collect();
        encoder.encode_rgba(ravif::Img::new(&pixels[..], width, height))
    } else {
        let pixels: Vec<rgb::RGB8> = rgba
            .pixels()
            .map(|p| rgb::RGB8::new(p[0], p[1], p[2]))
            .collect();
        encoder.encode_rgb(ravif::Img::new(&pixels[..], width, height))
    };
    encoded.ok().map(|e| e.avif_file)
}

/// A WebP decoded to RGBA.
pub fn decode_webp(bytes: &[u8]) -> Option<RgbaImage> {
    image::load_from_memory_with_format(bytes, image::ImageFormat::WebP)
        .ok()
        .map(|i| i.to_rgba8())
}

/// Whether `avifdec` runs here (looked for once).
pub fn avif_decoder_found() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| {
        std::process::Command::new("avifdec")
            .arg("--version")
            .output()
            .is_ok_and(|out| out.status.success())
    })
}

/// An AVIF decoded by `avifdec` to a PNG in the temporary folder, then read.
pub fn decode_avif(bytes: &[u8]) -> Option<RgbaImage> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let base = std::env::temp_dir().join(format!("edgesite-guard-{}-{n}", std::process::id()));
    let (avif, png) = (base.with_extension("avif"), base.with_extension("png"));
    let decoded = std::fs::write(&avif, bytes).ok().and_then(|()| {
        let out = std::process::Command::new("avifdec")
            .args(["--jobs", "1"])
            .arg(&avif)
            .arg(&png)
            .output()
            .ok()?;
        out.status.success().then_some(())?;
        image::open(&png).ok().map(|i| i.to_rgba8())
    });
    let _ = std::fs::remove_file(&avif);
    let _ = std::fs::remove_file(&png);
    decoded
}

/// SSIMULACRA2 of `distorted` against `original`; with transparency, the lower of the scores
/// over black and over white (what a page may show behind it). `None` when the sizes differ or
/// the image is too small for the metric.
pub fn score(original: &RgbaImage, distorted: &RgbaImage, alpha: bool) -> Option<f64> {
    if original.dimensions() != distorted.dimensions() {
        return None;
    }
    let backgrounds: &[f32] = if alpha { &[0.0, 1.0] } else { &[0.0] };
    backgrounds
        .iter()
        .map(|&bg| {
            ssimulacra2::compute_frame_ssimulacra2(frame(original, bg)?, frame(distorted, bg)?).ok()
        })
        .try_fold(f64::INFINITY, |low, s| Some(low.min(s?)))
}

/// An sRGB frame for the metric, composited over a grey level `background` (0 black, 1 white).
fn frame(image: &RgbaImage, background: f32) -> Option<ssimulacra2::Rgb> {
    let data = image
        .pixels()
        .map(|p| {
            let a = f32::from(p[3]) / 255.0;
            let c = |v: u8| f32::from(v) / 255.0 * a + background * (1.0 - a);
            [c(p[0]), c(p[1]), c(p[2])]
        })
        .collect();
    ssimulacra2::Rgb::new(
        data,
        image.width() as usize,
        image.height() as usize,
        ssimulacra2::TransferCharacteristic::SRGB,
        ssimulacra2::ColorPrimaries::BT709,
    )
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small picture with structure (the metric needs more than a flat colour).
    fn picture(alpha: u8) -> RgbaImage {
        RgbaImage::from_fn(64, 48, |x, y| {
            image::Rgba([(x * 4) as u8, (y * 5) as u8, ((x ^ y) * 8) as u8, alpha])
        })
    }

    #[test]
    fn the_metric_scores_a_copy_100_and_a_change_lower() {
        let original = picture(255);
        assert!((score(&original, &original, false).unwrap() - 100.0).abs() < 1e-6);
        let mut changed = original.clone();
        for p in changed.pixels_mut().step_by(3) {
            p[0] = p[0].wrapping_add(40);
        }
        assert!(score(&original, &changed, false).unwrap() < 90.0);
        // Different sizes cannot be compared.
        let corner = image::imageops::crop_imm(&original, 0, 0, 32, 32).to_image();
        assert_eq!(score(&original, &corner, false), None);
    }

    #[test]
    fn lossless_webp_round_trips_and_transparent_colour_does_not_count() {
        let opaque = picture(255);
        let decoded = decode_webp(&webp(&opaque, false, None)).unwrap();
        assert!(looks_identical(&decoded, &opaque));
        let clear = picture(0);
        let mut other = clear.clone();
        other.pixels_mut().for_each(|p| p[0] = 7);
        assert!(
            looks_identical(&clear, &other),
            "nothing shows under alpha 0"
        );
        assert!(!looks_identical(&opaque, &picture(254)));
        assert!(has_alpha(&clear) && !has_alpha(&opaque));
    }
}
