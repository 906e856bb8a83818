//! `make dictbench`: what RFC 9842 deltas save a returning visitor, on a replay of 10 deploys.
//!
//! A generated site (a 108 KB script bundle, a 26 KB stylesheet, 20 pages of 6 KB from one
//! template) is
//! deployed 10 times; each version edits 3 functions of the script, 3 rules of the stylesheet
//! and a line of every page. Each deploy is compiled by sitegen and recorded in a real deploy
//! history (`keep = 3`); for every changed file the previous deploy's bytes, read back from the
//! history, are the dictionary. Printed per file kind: the bytes a returning visitor downloads
//! for versions 2-10 with br alone, with dcz and with dcb (RFC 9842 §5), and the saving.
//! Then a site-wide HTML dictionary (zstd's trainer over half of version 1's pages) against br
//! for the other half of version 10's pages.
//!
//!     cargo run --release -p edgesite-sitegen --example dictbench

use edgesite_core::ContentCoding;
use edgesite_sitegen::config::CompressionConfig;
use edgesite_sitegen::delta::{dcb, dcz};
use edgesite_sitegen::history::History;
use edgesite_sitegen::{compile, compress, Options};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

const VERSIONS: u64 = 10;
const PAGES: u64 = 20;

/// A deterministic pseudo-random sequence (an LCG), so every run replays the same deploys.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn word(&mut self) -> String {
        const SYLLABLES: [&str; 16] = [
            "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "de", "po", "xi", "an", "el", "or",
            "um", "ty",
        ];
        (0..2 + self.next() % 3)
            .map(|_| SYLLABLES[(self.next() % 16) as usize])
            .collect()
    }
}

/// The script of `version`: 600 functions, those with index ≡ version (mod 200) edited.
fn script(version: u64) -> String {
    let mut rng = Lcg(7);
    let mut out = String::from("\"use strict\";\n");
    for i in 0..600u64 {
        let (name, a, b, field) = (rng.word(), rng.next() % 9973, rng.next() % 997, rng.word());
        let edited = (1..=version).filter(|v| i % 200 == (v * 37) % 200).count() as u64;
        let _ = writeln!(
            out,
            "export function {name}{i}(input, options) {{\n  const {field} = input.{field} ?? {a};\n  if (options && options.{field}) {{ return {field} * {} + options.{field}; }}\n  return {field} + {b};\n}}",
            3 + edited
        );
    }
    let _ = writeln!(out, "export const BUILD = {version};");
    out
}

/// The stylesheet of `version`: 400 rules, 3 of them edited per version.
fn stylesheet(version: u64) -> String {
    let mut rng = Lcg(11);
    let mut out = String::new();
    for i in 0..400u64 {
        let (class, px, color) = (rng.word(), rng.next() % 64, rng.next() % 0xffffff);
        let edited = (1..=version).filter(|v| i % 133 == (v * 13) % 133).count() as u64;
        let _ = writeln!(
            out,
            ".{class}-{i} {{ margin: {}px {px}px; color: #{color:06x}; display: flex; }}",
            px + edited
        );
    }
    out
}

/// Page `n` of `version`: one template (navigation over all pages), its own text, and a line
/// that changes with every deploy.
fn page(n: u64, version: u64) -> String {
    let mut rng = Lcg(100 + n);
    let nav: String = (0..PAGES)
        .map(|p| format!("<li class=\"toctree-l1\"><a class=\"reference internal\" href=\"/page-{p}.html\">Chapter {p}</a></li>\n"))
        .collect();
    let text: String = (0..40)
        .map(|_| {
            let words: Vec<String> = (0..12).map(|_| rng.word()).collect();
            format!("<p>{}.</p>\n", words.join(" "))
        })
        .collect();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Chapter {n}</title>\n<link rel=\"stylesheet\" href=\"/style.css\"><script src=\"/app.js\" defer></script></head>\n<body><nav class=\"wy-nav-side\"><ul>\n{nav}</ul></nav>\n<main class=\"document\"><h1>Chapter {n}</h1>\n{text}<footer>Release {version}.0, built by the replay</footer></main></body></html>\n"
    )
}

fn write_version(site: &Path, version: u64) {
    std::fs::write(site.join("app.js"), script(version)).unwrap();
    std::fs::write(site.join("style.css"), stylesheet(version)).unwrap();
    for n in 0..PAGES {
        std::fs::write(site.join(format!("page-{n}.html")), page(n, version)).unwrap();
    }
}

fn br(bytes: &[u8]) -> usize {
    compress(ContentCoding::Br, bytes, &CompressionConfig::default()).map_or(0, |b| b.len())
}

#[derive(Default)]
struct Totals {
    files: usize,
    identity: usize,
    br: usize,
    dcz: usize,
    dcb: usize,
}

fn kind(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("js") => "script",
        Some("css") => "stylesheet",
        _ => "pages*",
    }
}

fn main() {
    let work = tempfile::tempdir().unwrap();
    let (site, history_dir, cache) = (
        work.path().join("site"),
        work.path().join("history"),
        work.path().join("cache"),
    );
    std::fs::create_dir_all(&site).unwrap();
    let mut options = Options::new(UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    options.cache_dir = Some(cache);
    let mut totals: BTreeMap<&str, Totals> = BTreeMap::new();
    let keep_one = work.path().join("history-keep-1");
    for version in 1..=VERSIONS {
        write_version(&site, version);
        let manifest = compile(&site, &options).unwrap();
        if version == VERSIONS {
            costs(&site, &options, [None, Some(&keep_one), Some(&history_dir)]);
        }
        History::open(&keep_one)
            .unwrap()
            .record(&manifest, 1)
            .unwrap();
        let history = History::open(&history_dir).unwrap();
        for file in &manifest.files {
            let Some(previous) = history.versions(&file.path, &file.sha256).first().copied() else {
                continue;
            };
            let (old, new) = (
                history.body(previous).unwrap(),
                file.source.read().unwrap().into_owned(),
            );
            let t = totals.entry(kind(&file.path)).or_default();
            t.files += 1;
            t.identity += new.len();
            t.br += br(&new);
            t.dcz += dcz(&new, &old, 19).unwrap().len();
            t.dcb += dcb(&new, &old, 11).unwrap().len();
        }
        History::open(&history_dir)
            .unwrap()
            .record(&manifest, 3)
            .unwrap();
    }
    println!("bytes a returning visitor downloads for the files changed by deploys 2-{VERSIONS} (previous version as the dictionary):");
    println!(
        "{:<12} {:>6} {:>9} {:>10} {:>9} {:>9} {:>9} {:>10} {:>10}",
        "file", "files", "avg size", "identity", "br", "dcz", "dcb", "dcz vs br", "dcb vs br"
    );
    for (name, t) in &totals {
        println!(
            "{name:<12} {:>6} {:>9} {:>10} {:>9} {:>9} {:>9} {:>9.1}% {:>9.1}%",
            t.files,
            t.identity / t.files,
            t.identity,
            t.br,
            t.dcz,
            t.dcb,
            100.0 * (1.0 - t.dcz as f64 / t.br as f64),
            100.0 * (1.0 - t.dcb as f64 / t.br as f64)
        );
    }
    println!(
        "* what deltas of pages would save; the build makes none (HTML is no-cache and not offered"
    );
    println!("  as a dictionary, so no browser holds an earlier page to name)");
    site_dictionary();
}

/// What the history costs the last deploy: its build (deltas computed, and again from the
/// encoding cache) and its bundle, without a history, with keep = 1 and with keep = 3.
fn costs(site: &Path, options: &Options, histories: [Option<&Path>; 3]) {
    println!("deploy {VERSIONS}'s build and bundle by history kept:");
    for (label, dir) in ["no history", "keep = 1", "keep = 3"]
        .into_iter()
        .zip(histories)
    {
        let mut options = options.clone();
        options.history_dir = dir.map(Path::to_path_buf);
        // The ordinary encodings cached (as in any rebuild), no delta: a copy of the cache.
        let cache = tempfile::tempdir().unwrap();
        let from = options.cache_dir.clone().unwrap();
        for entry in std::fs::read_dir(&from).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name();
            if !name.to_string_lossy().contains(".dc") {
                std::fs::copy(entry.path(), cache.path().join(name)).unwrap();
            }
        }
        options.cache_dir = Some(cache.path().to_path_buf());
        let cold = compile(site, &options).unwrap();
        let warm = compile(site, &options).unwrap();
        let d = &cold.stats.deltas;
        println!(
            "  {label:<10}  build {:>5} ms (deltas {:>5} ms; rebuild {:>4} ms), bundle {:>8} bytes: {} deltas {} bytes, {} kept files",
            cold.stats.wall_time_ms,
            d.wall_time_ms,
            warm.stats.wall_time_ms,
            cold.bundle_bytes(),
            d.deltas,
            d.bytes,
            d.kept.files
        );
    }
}

/// A zstd dictionary trained on version 1's first half of the pages, used for version 10's other
/// half (pages whose text the dictionary never saw: a visitor's first view of them).
fn site_dictionary() {
    let samples: Vec<Vec<u8>> = (0..PAGES / 2).map(|n| page(n, 1).into_bytes()).collect();
    let dictionary = zstd::dict::from_samples(&samples, 16 * 1024).unwrap();
    let (mut brotli, mut with_dictionary, mut identity) = (0, 0, 0);
    for n in PAGES / 2..PAGES {
        let new = page(n, VERSIONS).into_bytes();
        identity += new.len();
        brotli += br(&new);
        with_dictionary += dcz(&new, &dictionary, 19).unwrap().len();
    }
    println!(
        "site-wide HTML dictionary ({} bytes, trained on version 1's pages 0-{}), version {VERSIONS}'s pages {}-{}: identity {identity}, br {brotli}, dcz {with_dictionary} ({:.1}% vs br)",
        dictionary.len(),
        PAGES / 2 - 1,
        PAGES / 2,
        PAGES - 1,
        100.0 * (1.0 - with_dictionary as f64 / brotli as f64)
    );
}
