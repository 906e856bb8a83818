//! # edgesite-imaging
//!
//! The image codecs and the quality metric behind edgesite-sitegen's image stage, as plain
//! functions over decoded pixels. A crate of its own so that it is compiled optimised in every
//! profile (the workspace's `Cargo.toml`): the codecs' and the metric's generic code is
//! instantiated here, and at opt-level 0 a score takes seconds instead of milliseconds.
//!
//! - lossless re-encoding: PNG by oxipng, JPEG by libjpeg-turbo's `jpegtran` where installed;
//! - AVIF: libavif's `avifenc` (libaom) and, to score it, `avifdec`, where libavif's tools are
//!   installed (no AV1 decoder builds here as a maintained crate: dav1d's binding needs a newer
//!   libdav1d than Debian 12 ships, the pure-Rust ports are unreleased or AGPL; the one encoder
//!   crate, rav1e, encodes about four times slower and compiles for minutes);
//! - WebP: libwebp's `cwebp` (lossy and lossless; the pure-Rust encoder writes lossless only,
//!   and larger), decoded by the `image` crate;
//! - SSIMULACRA2 (Cloudinary's perceptual metric): 90 is visually lossless in a flicker test,
//!   80 cannot be told apart side by side at 1:1, 70 shows artefacts only when compared.

pub use image::{DynamicImage, RgbaImage};

use image::GenericImageView;
use std::sync::OnceLock;

/// A PNG re-encoded without loss by oxipng (preset 2; every chunk kept, colour chunks included).
///
/// # Errors
/// oxipng's, as text (a PNG it cannot read).
pub fn optimise_png(bytes: &[u8]) -> Result<Vec<u8>, String> {
    oxipng::optimize_from_memory(bytes, &oxipng::Options::from_preset(2)).map_err(|e| e.to_string())
}

/// A JPEG re-encoded without loss by libjpeg-turbo's `jpegtran`: the same DCT coefficients with
/// optimised Huffman tables, baseline or progressive (whichever is smaller), every marker kept
/// (EXIF orientation and ICC profile included). `None` when `jpegtran` is not installed or fails.
///
/// A subprocess: no maintained Rust crate transcodes a JPEG without decoding it (mozjpeg's
/// binding builds libjpeg with nasm, for the same `jpeg_read_coefficients` path).
pub fn optimise_jpeg(bytes: &[u8]) -> Option<Vec<u8>> {
    let dir = scratch("jpeg")?;
    let input = dir.path().join("in.jpg");
    std::fs::write(&input, bytes).ok()?;
    let run = |progressive: bool| {
        let mut command = std::process::Command::new("jpegtran");
        command.args(["-copy", "all", "-optimize"]);
        if progressive {
            command.arg("-progressive");
        }
        let out = command.arg(&input).output().ok()?;
        (out.status.success() && !out.stdout.is_empty()).then_some(out.stdout)
    };
    // The folder (and the input in it) is removed when `dir` drops, after both runs.
    match (run(false), run(true)) {
        (Some(a), Some(b)) => Some(if b.len() < a.len() { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// Whether libjpeg-turbo's `jpegtran` runs here (looked for once).
pub fn jpeg_tool_found() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| {
        // jpegtran has no --version: -v prints its version, then waits for a JPEG on stdin.
        std::process::Command::new("jpegtran")
            .arg("-v")
            .stdin(std::process::Stdio::null())
            .output()
            .is_ok_and(|out| String::from_utf8_lossy(&out.stderr).contains("libjpeg"))
    })
}

/// Decodes an image in any format the stage reads (PNG, JPEG, GIF, WebP) of at most `size`
/// (width, height) pixels: `None` when it cannot, or is larger.
pub fn decode(bytes: &[u8], size: (u32, u32)) -> Option<DynamicImage> {
    decode_within(bytes, None, size)
}

/// Whether two decoded images show the same pixels, whatever their pixel types: a lossless
/// re-encoding may store them otherwise (oxipng writes a palette, or RGB for RGBA that is all
/// opaque, or 8 bits for 16 that hold no more). Compared as 16-bit RGBA, which holds every type
/// the stage reads without loss.
pub fn same_pixels(a: &DynamicImage, b: &DynamicImage) -> bool {
    a.dimensions() == b.dimensions()
        && (a.color() == b.color() && a.as_bytes() == b.as_bytes()
            || a.to_rgba16() == b.to_rgba16())
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

/// An image's pixels written once, as a PNG in the temporary folder, for the encoders that run
/// as tools (`avifenc`, `cwebp`): every encode of the image reads the same file, removed when
/// this is dropped.
///
/// Tools rather than crates: libaom through avifenc encodes a still image about four times
/// faster than rav1e (the only AV1 encoder that builds here as a crate, and without its
/// assembly unless nasm is installed) at the same size, and neither AV1 nor libwebp's C is
/// compiled in every profile of the workspace (docs/benchmarks.md). Debian's `libavif-bin` and
/// `webp` packages; where one is missing, [`avif_tools_found`] or [`webp_tools_found`] says so.
pub struct Staged {
    png: std::path::PathBuf,
    /// The folder of `png`, removed on drop.
    _dir: tempfile::TempDir,
}

impl Staged {
    /// `rgba` staged for the encoders, with its alpha channel when `alpha`, else as RGB; `None`
    /// when the temporary folder cannot be written.
    pub fn new(rgba: &RgbaImage, alpha: bool) -> Option<Staged> {
        use image::codecs::png::{CompressionType, FilterType, PngEncoder};
        use image::ImageEncoder;
        let dir = scratch("staged")?;
        let staged = Staged {
            png: dir.path().join("staged.png"),
            _dir: dir,
        };
        let file = std::io::BufWriter::new(std::fs::File::create(&staged.png).ok()?);
        // Quickly compressed: it lives for one image's encodes.
        let encoder =
            PngEncoder::new_with_quality(file, CompressionType::Fast, FilterType::Adaptive);
        let (width, height) = rgba.dimensions();
        if alpha {
            encoder.write_image(
                rgba.as_raw(),
                width,
                height,
                image::ExtendedColorType::Rgba8,
            )
        } else {
            let rgb = DynamicImage::ImageRgba8(rgba.clone()).to_rgb8();
            encoder.write_image(rgb.as_raw(), width, height, image::ExtendedColorType::Rgb8)
        }
        .ok()?;
        Some(staged)
    }

    /// An AVIF by `avifenc` (libaom) at `quality` (0-100, libavif's scale; alpha at the same)
    /// and encoder `speed` (0-10). `None` when `avifenc` is missing or fails.
    pub fn avif(&self, quality: u8, speed: u8) -> Option<Vec<u8>> {
        // libavif 1.x's `-q` (Debian 12 has 0.11): quality to a constant-quality level on AV1's
        // 0-63 quantizer scale, adaptive within the full range.
        let level = (u32::from(100 - quality.min(100)) * 63 + 50) / 100;
        let mut command = std::process::Command::new("avifenc");
        command
            .args(["--jobs", "1", "--speed", &speed.to_string()])
            .args([
                "--min",
                "0",
                "--max",
                "63",
                "--minalpha",
                "0",
                "--maxalpha",
                "63",
            ])
            .args(["-a", "end-usage=q", "-a", &format!("cq-level={level}")])
            .args(["-a", "tune=ssim"])
            .arg(&self.png);
        run_to_file(command, "avif", |command, out| {
            command.arg(out);
        })
    }

    /// A WebP by `cwebp` (libwebp, its default method): lossless when `quality` is `None`, else
    /// lossy at that quality (0-100). `None` when `cwebp` is missing or fails.
    pub fn webp(&self, quality: Option<u8>) -> Option<Vec<u8>> {
        let mut command = std::process::Command::new("cwebp");
        command.arg("-quiet");
        match quality {
            None => command.arg("-lossless"),
            Some(q) => command.args(["-q", &q.to_string()]),
        };
        command.arg(&self.png);
        run_to_file(command, "webp", |command, out| {
            command.arg("-o").arg(out);
        })
    }
}

/// Runs `command` with an output file of extension `ext` (named by `output`), and reads it.
fn run_to_file(
    mut command: std::process::Command,
    ext: &str,
    output: impl FnOnce(&mut std::process::Command, &std::path::Path),
) -> Option<Vec<u8>> {
    let dir = scratch("encoded")?;
    let out = dir.path().join(format!("out.{ext}"));
    output(&mut command, &out);
    command
        .output()
        .ok()
        .filter(|run| run.status.success())
        .and_then(|_| std::fs::read(&out).ok())
}

/// A folder of its own in the temporary folder, with a random name and only this user's access,
/// removed with what it holds when dropped (`kind` names its use): nothing another user of the
/// machine could guess, link or read.
fn scratch(kind: &str) -> Option<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(&format!("edgesite-{kind}-"))
        .tempdir()
        .ok()
}

/// Decoder limits for an image of at most `width` x `height` pixels: every decoder the stage
/// runs gets them, so no header, however it lies, makes a decoder allocate more than such an
/// image needs (16 bytes a pixel: RGBA of 32-bit floats, the largest type they produce; and
/// 16 MiB for the decoders' own tables).
pub fn limits(width: u32, height: u32) -> image::Limits {
    let mut limits = image::Limits::no_limits();
    limits.max_image_width = Some(width);
    limits.max_image_height = Some(height);
    let pixels = u64::from(width).saturating_mul(u64::from(height));
    limits.max_alloc = Some(pixels.saturating_mul(16).saturating_add(16 << 20));
    limits
}

/// Bytes of memory the stage's work on one image takes at its peak, per pixel: the decoded
/// original as stored and as shown, its RGBA copy, the staged PNG, and SSIMULACRA2's planes of
/// 32-bit floats at every scale for each candidate scored (measured: docs/images.md).
pub const PEAK_BYTES_PER_PIXEL: u64 = 176;

/// `bytes` decoded, in `format` (or the one its signature names), held to `width` x `height`.
fn decode_within(
    bytes: &[u8],
    format: Option<image::ImageFormat>,
    (width, height): (u32, u32),
) -> Option<DynamicImage> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes));
    match format {
        Some(format) => reader.set_format(format),
        None => reader = reader.with_guessed_format().ok()?,
    }
    reader.limits(limits(width, height));
    reader.decode().ok()
}

/// A WebP of at most `size` (width, height) pixels decoded to RGBA.
pub fn decode_webp(bytes: &[u8], size: (u32, u32)) -> Option<RgbaImage> {
    decode_within(bytes, Some(image::ImageFormat::WebP), size).map(|i| i.to_rgba8())
}

/// Whether libavif's `avifenc` and `avifdec` run here (looked for once).
pub fn avif_tools_found() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| runs("avifenc", "--version") && runs("avifdec", "--version"))
}

/// Whether libwebp's `cwebp` runs here (looked for once).
pub fn webp_tools_found() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| runs("cwebp", "-version"))
}

/// Whether `tool` runs and exits successfully with `arg`.
fn runs(tool: &str, arg: &str) -> bool {
    std::process::Command::new(tool)
        .arg(arg)
        .output()
        .is_ok_and(|out| out.status.success())
}

/// An AVIF of at most `size` (width, height) pixels decoded by `avifdec` to a PNG in a
/// temporary folder of its own, then read.
pub fn decode_avif(bytes: &[u8], size: (u32, u32)) -> Option<RgbaImage> {
    let dir = scratch("guard")?;
    let (avif, png) = (dir.path().join("in.avif"), dir.path().join("out.png"));
    std::fs::write(&avif, bytes).ok()?;
    let out = std::process::Command::new("avifdec")
        .args(["--jobs", "1"])
        .arg(&avif)
        .arg(&png)
        .output()
        .ok()?;
    out.status.success().then_some(())?;
    let png = std::fs::read(&png).ok()?;
    decode_within(&png, Some(image::ImageFormat::Png), size).map(|i| i.to_rgba8())
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
    fn staged_pixels_are_encoded_by_the_tools_and_leave_nothing_behind() {
        let staged = Staged::new(&picture(255), false).unwrap();
        let png = staged.png.clone();
        assert!(png.is_file());
        let lossy = staged
            .webp(Some(80))
            .expect("cwebp (make setup installs webp)");
        assert_eq!((&lossy[..4], &lossy[8..12]), (&b"RIFF"[..], &b"WEBP"[..]));
        let avif = staged
            .avif(60, 8)
            .expect("avifenc (make setup installs libavif-bin)");
        assert_eq!(&avif[4..12], b"ftypavif");
        assert_eq!(decode_avif(&avif, (64, 48)).unwrap().dimensions(), (64, 48));
        assert!(
            decode_avif(&avif, (64, 47)).is_none(),
            "held to the size it should have"
        );
        let folder = png.parent().unwrap().to_path_buf();
        assert!(folder
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("edgesite-staged-"));
        drop(staged);
        assert!(!png.exists() && !folder.exists());
    }

    /// A decoder is held to the size it is told: a header that claims more is refused before
    /// its pixels are allocated.
    #[test]
    fn a_decode_is_held_to_the_size_it_is_told() {
        let mut png = Vec::new();
        DynamicImage::ImageRgba8(picture(255))
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        assert!(decode(&png, (64, 48)).is_some());
        assert!(decode(&png, (63, 48)).is_none() && decode(&png, (64, 47)).is_none());
    }

    #[test]
    fn the_same_pixels_in_another_pixel_type_are_the_same() {
        let rgba = DynamicImage::ImageRgba8(picture(255));
        let rgb = DynamicImage::ImageRgb8(rgba.to_rgb8());
        let wide = DynamicImage::ImageRgba16(rgba.to_rgba16());
        assert!(same_pixels(&rgba, &rgb) && same_pixels(&rgba, &wide));
        let mut other = rgba.to_rgba8();
        other.get_pixel_mut(3, 4)[1] ^= 1;
        assert!(!same_pixels(&rgba, &DynamicImage::ImageRgba8(other)));
        // Transparency is a difference too.
        assert!(!same_pixels(&rgba, &DynamicImage::ImageRgba8(picture(254))));
    }

    #[test]
    fn lossless_webp_round_trips_and_transparent_colour_does_not_count() {
        let opaque = picture(255);
        let staged = Staged::new(&opaque, false).unwrap();
        let decoded = decode_webp(&staged.webp(None).expect("cwebp"), (64, 48)).unwrap();
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
