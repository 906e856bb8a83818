//! The native twin's adapter per request, in ns: `edgesite_native::respond` on a prebuilt hyper
//! request (reading the fields the core reads, the core's answer, and building the hyper
//! response: field names and values, the body as a shared slice), against the core alone
//! (`respond_into`) on the same request. The difference is what the adapter costs. The load
//! test's ceiling spends nothing of either. Run with `make bench`.
#![allow(missing_docs)] // criterion's macros generate undocumented items

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::time::Duration;

fn request(fields: &[(&str, &str)]) -> hyper::Request<()> {
    let mut builder = hyper::Request::get("/").header("host", "localhost");
    for (name, value) in fields {
        builder = builder.header(*name, *value);
    }
    builder.body(()).unwrap()
}

fn adapter(c: &mut Criterion) {
    let etag = {
        let response = edgesite_native::respond(&request(&[]));
        response.headers()["etag"].to_str().unwrap().to_string()
    };
    let scenarios = [
        ("S1 200 identity", request(&[])),
        (
            "S2 200 br",
            request(&[("accept-encoding", "gzip, deflate, br, zstd")]),
        ),
        ("S3 304", request(&[("if-none-match", &etag)])),
    ];
    let mut group = c.benchmark_group("native adapter");
    for (name, request) in &scenarios {
        group.bench_function(format!("{name}: edgesite_native::respond"), |b| {
            b.iter(|| edgesite_native::respond(black_box(request)));
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = adapter
}
criterion_main!(benches);
