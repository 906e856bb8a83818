//! Decoding the site's tables (edgesite-tables), what a Worker or the native twin does once, at
//! its first request: the demo's, compiled here, and the tables file `EDGESITE_TABLES` names if
//! set (e.g. a `make manyfiles` site's `tables.bin`). Run with `make bench`.
#![allow(missing_docs)] // criterion's macros generate undocumented items

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use edgesite_sitegen::build_script::Build;
use edgesite_sitegen::Bodies;
use std::path::Path;

/// The demo's tables, as the Worker's build writes them.
fn demo() -> &'static [u8] {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let build = Build {
        root,
        config_path: &root.join("edgesite.toml"),
        config_named: false,
        site: None,
        history: None,
        source_date_epoch: Some("1700000000"),
        page_dates: edgesite_sitegen::PageDates::Build,
        cache_dir: None,
        effort: edgesite_sitegen::Effort::Configured,
    };
    let (mut manifest, _) = build.compile().expect("the demo compiles");
    let out = tempfile::tempdir().unwrap();
    manifest
        .write_rust_with(out.path(), Bodies::Tables { in_binary: false })
        .unwrap();
    Box::leak(
        std::fs::read(out.path().join("tables.bin"))
            .unwrap()
            .into_boxed_slice(),
    )
}

fn decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("decode the tables");
    // Every decode leaks what it makes (a process makes one): few, short samples.
    group
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    let mut tables = vec![("demo".to_string(), demo())];
    if let Some(path) = std::env::var_os("EDGESITE_TABLES") {
        let bytes = std::fs::read(&path).expect("EDGESITE_TABLES names a tables file");
        tables.push((
            Path::new(&path).display().to_string(),
            Box::leak(bytes.into_boxed_slice()),
        ));
    }
    for (name, bytes) in tables {
        let routes = edgesite_tables::decode(bytes, &[]).unwrap().routes.len();
        group.bench_function(
            format!("{name} ({} bytes, {routes} routes)", bytes.len()),
            |b| {
                // Each decode leaks its tables, as the one a process makes does.
                b.iter(|| edgesite_tables::decode(black_box(bytes), &[]).unwrap());
            },
        );
    }
    group.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
