//! The build-time encoders in MB/s of input, at the default settings, on the demo's
//! index.html (21 KB of HTML with inline CSS and JS) and its stylesheet, with gzip by both
//! encoders (libdeflate, the default, and zopfli). This is what a cold
//! build pays per byte of site; a warm build reads the compression cache instead.
//! Run with `make bench`.
#![allow(missing_docs)] // criterion's macros generate undocumented items

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use edgesite_core::ContentCoding;
use edgesite_sitegen::{encode, CompressionConfig, GzipEncoder};
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
                b.iter(|| encode(coding, black_box(input), &config).unwrap());
            });
        }
        // The other gzip encoder (`gzip_encoder = "zopfli"`), for comparison.
        let zopfli = CompressionConfig {
            gzip_encoder: GzipEncoder::Zopfli,
            ..config.clone()
        };
        group.bench_function("gzip (zopfli)", |b| {
            b.iter(|| encode(ContentCoding::Gzip, black_box(input), &zopfli).unwrap());
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    // Bounded in time; zopfli and brotli 11 are slow, so few samples suffice.
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    targets = encoders
}
criterion_main!(benches);
