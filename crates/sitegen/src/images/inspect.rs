//! Reading an image for the stage: its pixels as stored and as shown (EXIF orientation applied,
//! as browsers apply it), and what decides whether other formats can show it the same: colour
//! information the variants would not carry, animation (an animated PNG or GIF is left as it is),
//! bit depth.

use crate::config::ImagesConfig;
use edgesite_imaging as imaging;
use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageReader};
use std::io::Cursor;
use std::sync::{Condvar, Mutex, PoisonError};

/// An image, decoded.
pub(super) struct Decoded {
    /// As stored (before orientation): what a lossless re-encode must reproduce.
    pub(super) stored: DynamicImage,
    /// As shown: what a variant must look like.
    pub(super) shown: DynamicImage,
    /// `Err(why)` when the image's colours depend on what a variant would not carry: an ICC
    /// profile other than sRGB, or PNG gamma or chromaticities without an sRGB chunk.
    pub(super) colours: Result<(), String>,
    /// 8 bits per channel (a lossless WebP holds no more).
    pub(super) eight_bit: bool,
    /// Its share of the memory the stage's images take at once, held while it is worked on.
    _held: Held,
}

/// The memory the images worked on at once (one per core: `parallel::map`) take together, in
/// MiB of their estimated peaks: an image waits until its peak fits `images.max_memory_mb`
/// beside the others'; one alone always may (its own peak was checked against the bound).
static IN_FLIGHT: (Mutex<u64>, Condvar) = (Mutex::new(0), Condvar::new());

/// An image's share of [`IN_FLIGHT`], given back when dropped.
struct Held(u64);

impl Held {
    fn take(mb: u64, total: u64) -> Held {
        let (used, freed) = &IN_FLIGHT;
        let mut used = used.lock().unwrap_or_else(PoisonError::into_inner);
        while *used > 0 && *used + mb > total {
            used = freed.wait(used).unwrap_or_else(PoisonError::into_inner);
        }
        *used += mb;
        Held(mb)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let (used, freed) = &IN_FLIGHT;
        *used.lock().unwrap_or_else(PoisonError::into_inner) -= self.0;
        freed.notify_all();
    }
}

/// Decodes `bytes`; `Err(why it is left as it is)` for an image the stage does not touch.
///
/// The one gate before any pixel is allocated: the dimensions are read from the header (a GIF's
/// logical screen), held to `max_pixels` and to `max_memory_mb` (the stage's estimated peak for
/// an image of that size), and the image waits until that peak fits the bound beside the other
/// images being worked on; only then is anything decoded, and every decoder runs with
/// [`imaging::limits`] for those dimensions, so a frame or a chunk that claims more is refused.
pub(super) fn decode(bytes: &[u8], is_png: bool, config: &ImagesConfig) -> Result<Decoded, String> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format!("cannot read it: {e}"))?;
    // No dimension is known yet: the header is read under the largest allocation any image
    // within max_pixels could need.
    let mut header_limits = image::Limits::no_limits();
    header_limits.max_alloc = Some(
        config
            .max_pixels
            .saturating_mul(16)
            .saturating_add(16 << 20),
    );
    reader.limits(header_limits);
    let mut decoder = reader
        .into_decoder()
        .map_err(|e| format!("cannot decode it: {e}"))?;
    let (width, height) = decoder.dimensions();
    let pixels = u64::from(width) * u64::from(height);
    if pixels > config.max_pixels {
        return Err(format!(
            "{width}x{height} is over images.max_pixels: served as it is"
        ));
    }
    let peak_mb = (pixels * imaging::PEAK_BYTES_PER_PIXEL) >> 20;
    if peak_mb > config.max_memory_mb {
        return Err(format!(
            "{width}x{height} would need about {peak_mb} MiB, over images.max_memory_mb: \
             served as it is"
        ));
    }
    let held = Held::take(peak_mb.max(1), config.max_memory_mb);
    decoder
        .set_limits(imaging::limits(width, height))
        .map_err(|e| format!("cannot decode it: {e}"))?;
    if is_png && png_chunk(bytes, b"acTL").is_some() {
        return Err("animated PNG: served as it is".into());
    }
    if bytes.starts_with(b"GIF8") && gif_frames(bytes, (width, height))? != 1 {
        return Err("animated GIF: served as it is".into());
    }
    let icc = decoder.icc_profile().ok().flatten();
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let stored =
        DynamicImage::from_decoder(decoder).map_err(|e| format!("cannot decode it: {e}"))?;
    let mut shown = stored.clone();
    shown.apply_orientation(orientation);
    let colours = match icc {
        Some(profile) if !is_srgb_profile(&profile) => {
            Err("it has an ICC profile other than sRGB, which the variants would not carry".into())
        }
        _ if is_png => png_colours(bytes),
        _ => Ok(()),
    };
    let eight_bit = matches!(
        stored,
        DynamicImage::ImageLuma8(_)
            | DynamicImage::ImageLumaA8(_)
            | DynamicImage::ImageRgb8(_)
            | DynamicImage::ImageRgba8(_)
    );
    Ok(Decoded {
        stored,
        shown,
        colours,
        eight_bit,
        _held: held,
    })
}

/// How many frames a GIF whose logical screen is `size` has, reading at most two, each held
/// to that size; `Err` when one cannot be read.
fn gif_frames(bytes: &[u8], size: (u32, u32)) -> Result<usize, String> {
    use image::AnimationDecoder;
    let cannot = |e: image::ImageError| format!("cannot decode it: {e}");
    let mut gif = image::codecs::gif::GifDecoder::new(Cursor::new(bytes)).map_err(cannot)?;
    gif.set_limits(imaging::limits(size.0, size.1))
        .map_err(cannot)?;
    let mut frames = 0;
    for frame in gif.into_frames().take(2) {
        frame.map_err(cannot)?;
        frames += 1;
    }
    Ok(frames)
}

/// Whether an ICC profile is an sRGB one (its description names sRGB, as the IEC 61966-2.1
/// profiles cameras and editors embed do): a variant without it shows the same colours.
fn is_srgb_profile(profile: &[u8]) -> bool {
    profile.windows(4).any(|w| w == b"sRGB")
}

/// PNG colour chunks a variant would not carry: gAMA other than sRGB's 1/2.2, or cHRM, unless
/// an sRGB chunk says the image is sRGB (PNG 3rd edition §11.3.2: sRGB overrides them).
fn png_colours(bytes: &[u8]) -> Result<(), String> {
    if png_chunk(bytes, b"sRGB").is_some() {
        return Ok(());
    }
    if let Some(gamma) = png_chunk(bytes, b"gAMA") {
        let value = gamma
            .get(..4)
            .map_or(0, |g| u32::from_be_bytes([g[0], g[1], g[2], g[3]]));
        // 45455 is 1/2.2 in units of 1/100000, what sRGB approximates.
        if !(45000..=46000).contains(&value) {
            return Err(format!(
                "its gAMA chunk ({value}) is not sRGB's, and the variants would not carry it"
            ));
        }
    }
    if png_chunk(bytes, b"cHRM").is_some() {
        return Err("its cHRM chunk would not be carried by the variants".into());
    }
    Ok(())
}

/// The data of the first chunk of type `kind` before the image data (PNG §5.3), if any.
pub(super) fn png_chunk<'a>(bytes: &'a [u8], kind: &[u8; 4]) -> Option<&'a [u8]> {
    let mut rest = bytes.get(8..)?;
    while rest.len() >= 12 {
        let len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let chunk_type = &rest[4..8];
        if chunk_type == b"IDAT" {
            return None;
        }
        let data = rest.get(8..8 + len)?;
        if chunk_type == kind {
            return Some(data);
        }
        rest = rest.get(12 + len..)?;
    }
    None
}
