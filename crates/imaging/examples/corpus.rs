//! Builds an image corpus for `make images` (bench/images.sh) from real pictures: COUNT files in
//! OUT_DIR, taken in turn from the photos (written as JPEG, quality 90, as a camera or an
//! editor would) and the screenshots (written as PNG, as browsers and OSes save them) in
//! IN_DIR/photos and IN_DIR/screens. Each file is a different crop (SCALE percent of the
//! picture's sides, default 75, at an offset that moves with its number), so no two files have
//! the same bytes.
//!
//!     cargo run --release -p edgesite-imaging --example corpus -- IN_DIR OUT_DIR COUNT [SCALE]

use image::codecs::jpeg::JpegEncoder;
use image::{DynamicImage, GenericImageView};
use std::path::{Path, PathBuf};

fn pictures(dir: &Path) -> Vec<DynamicImage> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    paths.sort();
    paths.iter().filter_map(|p| image::open(p).ok()).collect()
}

fn crop(picture: &DynamicImage, n: u32, scale: u32) -> DynamicImage {
    let (w, h) = picture.dimensions();
    let (cw, ch) = ((w * scale / 100).clamp(1, w), (h * scale / 100).clamp(1, h));
    let (x, y) = ((n * 37) % (w - cw + 1), (n * 53) % (h - ch + 1));
    picture.crop_imm(x, y, cw, ch)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (input, output, count, scale) = match &args[..] {
        [input, output, count] => (input, output, count, "75"),
        [input, output, count, scale] => (input, output, count, scale.as_str()),
        _ => return Err("usage: corpus IN_DIR OUT_DIR COUNT [SCALE]".into()),
    };
    let (input, output, count) = (Path::new(input), Path::new(output), count.parse::<u32>()?);
    let scale = scale.parse::<u32>()?;
    if !(10..=100).contains(&scale) {
        return Err("SCALE is a percentage of the sides, 10 to 100".into());
    }
    let photos = pictures(&input.join("photos"));
    let screens = pictures(&input.join("screens"));
    if photos.is_empty() || screens.is_empty() {
        return Err("IN_DIR/photos and IN_DIR/screens must hold pictures".into());
    }
    std::fs::create_dir_all(output)?;
    for n in 0..count {
        let round = n / 2;
        if n % 2 == 0 {
            let picture = crop(&photos[round as usize % photos.len()], round, scale).to_rgb8();
            let file = std::fs::File::create(output.join(format!("photo-{n:05}.jpg")))?;
            JpegEncoder::new_with_quality(file, 90).encode_image(&picture)?;
        } else {
            let picture = crop(&screens[round as usize % screens.len()], round, scale);
            picture.save(output.join(format!("screen-{n:05}.png")))?;
        }
    }
    Ok(())
}
