//! The build-time encoders in MB/s of input, at the default settings, on the demo's
//! index.html (21 KB of HTML with inline CSS and JS) and its stylesheet, with gzip by both
//! encoders (libdeflate, the default, and zopfli); and the image stage's codecs and metric in
//! megapixels per second on the demo's photo (600x400) and screenshot (720x450). This is what a
//! cold build pays per byte of site; a warm build reads the caches instead.
//! Run with `make bench`.
#![allow(missing_docs)] // criterion's macros generate undocumented items

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use edgesite_core::ContentCoding;
use edgesite_sitegen::compress;
use edgesite_sitegen::config::{CompressionConfig, GzipEncoder};
use std::time::Duration;

const INDEX: &[u8] = include_bytes!("../../../public/index.html");
const STYLE: &[u8] = include_bytes!("../../../public/style.css");

fn encoders(c: &mut Criterion) {
    let config = CompressionConfig::default();
    for (name, input) in [("index.html", INDEX), ("style.css", STYLE)] {
        let mut group = c.benchmark_group(format!("encode {name} ({} bytes)", input.len()));
        group.throughput(Throughput::Bytes(input.len() as u64));
        for coding in [ContentCoding::Br, ContentCoding::Zstd, ContentCoding::Gzip] {
            group.bench_function(coding.token(), |b| {
                b.iter(|| compress(coding, black_box(input), &config).unwrap());
            });
        }
        // The other gzip encoder (`gzip_encoder = "zopfli"`), for comparison.
        let zopfli = CompressionConfig {
            gzip_encoder: GzipEncoder::Zopfli,
            ..config.clone()
        };
        group.bench_function("gzip (zopfli)", |b| {
            b.iter(|| compress(ContentCoding::Gzip, black_box(input), &zopfli).unwrap());
        });
        group.finish();
    }
}

/// The image stage's work per image, by format (edgesite-imaging at the stage's settings: AVIF
/// speed 6; one quality of the ladder each).
fn images(c: &mut Criterion) {
    use edgesite_imaging as imaging;
    let photo = imaging::decode(
        include_bytes!("../../../public/images/coffee.jpg"),
        (600, 400),
    )
    .unwrap()
    .to_rgba8();
    let coffee = include_bytes!("../../../public/images/coffee.jpg");
    let shot_png = include_bytes!("../../../public/images/screenshot.png");
    let shot = imaging::decode(shot_png, (u32::MAX, u32::MAX))
        .unwrap()
        .to_rgba8();
    // The tools read the pixels staged once per image, as the stage does; the staging is its
    // own line.
    let staged = imaging::Staged::new(&photo, false).unwrap();
    let avif = staged.avif(64, 6).unwrap();
    let mut group = c.benchmark_group("images: coffee.jpg 600x400 (0.24 Mpx)");
    group.throughput(Throughput::Elements(u64::from(
        photo.width() * photo.height(),
    )));
    group.bench_function("stage the pixels (PNG, fast)", |b| {
        b.iter(|| imaging::Staged::new(black_box(&photo), false).unwrap());
    });
    group.bench_function("avif q64 speed 6 (avifenc)", |b| {
        b.iter(|| staged.avif(black_box(64), 6).unwrap());
    });
    group.bench_function("webp q85 (cwebp)", |b| {
        b.iter(|| staged.webp(black_box(Some(85))).unwrap());
    });
    group.bench_function("jpeg lossless (jpegtran)", |b| {
        b.iter(|| imaging::optimise_jpeg(black_box(coffee)).unwrap());
    });
    group.bench_function("avif decode (avifdec)", |b| {
        b.iter(|| imaging::decode_avif(black_box(&avif), (600, 400)).unwrap());
    });
    let decoded = imaging::decode_avif(&avif, (600, 400)).unwrap();
    group.bench_function("ssimulacra2 score", |b| {
        b.iter(|| imaging::score(black_box(&photo), &decoded, false).unwrap());
    });
    group.finish();
    let mut group = c.benchmark_group("images: screenshot.png 720x450 (0.32 Mpx)");
    group.throughput(Throughput::Elements(u64::from(
        shot.width() * shot.height(),
    )));
    group.bench_function("png (oxipng preset 2)", |b| {
        b.iter(|| imaging::optimise_png(black_box(shot_png)).unwrap());
    });
    let staged = imaging::Staged::new(&shot, false).unwrap();
    group.bench_function("webp lossless (cwebp)", |b| {
        b.iter(|| staged.webp(black_box(None)).unwrap());
    });
    group.finish();
}

criterion_group! {
    name = benches;
    // Bounded in time; zopfli and brotli 11 are slow, so few samples suffice.
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    targets = encoders, images
}
criterion_main!(benches);
