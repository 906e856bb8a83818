//! The image stage on real images: the demo's photographs (scikit-image's CC0 sample photos
//! `coffee` and `chelsea`, saved as JPEG) and a real screenshot (Chromium's of the demo's home
//! page), from `public/images/`. What it checks:
//!
//! * a photograph gets an AVIF and a WebP, each smaller by the configured saving and at or above
//!   the quality guard (SSIMULACRA2 against the decoded original); the report lists every
//!   candidate with its bytes, score and fate;
//! * a screenshot is served as a smaller, pixel-identical PNG and gets a pixel-identical WebP;
//! * a static GIF keeps its bytes and gets a pixel-identical lossless WebP; an animated one is
//!   left as it is;
//! * a guard no variant can pass ships none; an ICC profile other than sRGB gets no variant; an
//!   EXIF-rotated photo's variants are rotated as browsers show the original;
//! * `?v=` covers the variants (a setting that changes them changes it); a rebuild from the
//!   cache encodes nothing; `store = "auto"` leaves variants out, fewest savings first, to fit
//!   the budget, and says so;
//! * a hashed image an earlier deploy served, kept for skew protection, keeps its bytes and
//!   gets its variants again (from the cache);
//! * `[images]` values out of range fail the build naming the key and line.

use edgesite_sitegen::model::Asset;
use edgesite_sitegen::warning::WarningKind;
use edgesite_sitegen::{compile, Config, Manifest, Options};
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

const IMAGES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/images");

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(IMAGES).join(name)).unwrap()
}

/// A site of `files` (name, bytes) and an index page, in a temporary folder.
fn site(files: &[(&str, Vec<u8>)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    std::fs::write(dir.path().join("index.html"), "<p>images</p>").unwrap();
    dir
}

fn options(toml: &str, cache: Option<PathBuf>) -> Options {
    let config = Config::parse(toml, Path::new("edgesite.toml")).unwrap();
    let mut options = Options::from_config(config, UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    options.cache_dir = cache;
    options
}

fn build(dir: &Path, toml: &str) -> Manifest {
    compile(dir, &options(toml, None)).unwrap()
}

fn file<'m>(manifest: &'m Manifest, path: &str) -> &'m Asset {
    manifest.files.iter().find(|f| f.path == path).unwrap()
}

fn variant<'a>(
    asset: &'a Asset,
    content_type: &str,
) -> Option<&'a edgesite_sitegen::model::Variant> {
    asset
        .variants
        .iter()
        .find(|v| v.content_type == content_type)
}

fn bytes_of(v: &edgesite_sitegen::model::Variant) -> &[u8] {
    v.representation.bytes.as_deref().unwrap()
}

#[test]
fn a_photo_gets_avif_and_webp_that_pass_the_guard() {
    let dir = site(&[("coffee.jpg", fixture("coffee.jpg"))]);
    let manifest = build(dir.path(), "");
    let photo = file(&manifest, "/coffee.jpg");
    let original = photo.size;
    let report = photo.image.as_ref().unwrap();
    assert_eq!(report.dimensions, (600, 400));
    for media_type in ["image/avif", "image/webp"] {
        let v = variant(photo, media_type).unwrap_or_else(|| panic!("{media_type}: {report:?}"));
        // 10% smaller at least (images.min_savings_percent), at or above the guard (80).
        assert!(v.representation.size * 100 <= original * 90, "{media_type}");
        assert!(v.score.unwrap() >= 80.0, "{media_type}: {:?}", v.score);
        let kept: Vec<_> = report.candidates.iter().filter(|c| c.kept).collect();
        assert!(kept
            .iter()
            .any(|c| c.bytes == v.representation.size && c.score == v.score));
    }
    // Every candidate is reported; those below the guard are dropped and say so.
    for c in &report.candidates {
        if c.score.is_some_and(|s| s < 80.0) {
            assert!(!c.kept && c.why.contains("below the guard"), "{c:?}");
        }
    }
    let webp = image::load_from_memory(bytes_of(variant(photo, "image/webp").unwrap())).unwrap();
    assert_eq!((webp.width(), webp.height()), (600, 400));
    let avif = bytes_of(variant(photo, "image/avif").unwrap());
    assert_eq!(&avif[4..12], b"ftypavif");
    // The report prints it.
    let text = manifest.report();
    assert!(text.contains("/coffee.jpg 600x400"), "{text}");
    assert!(text.contains("image/avif: 1 variants"), "{text}");
}

#[test]
fn a_screenshot_stays_lossless_and_pixel_identical() {
    let source = fixture("screenshot.png");
    let dir = site(&[("shot.png", source.clone())]);
    let manifest = build(dir.path(), "");
    let shot = file(&manifest, "/shot.png");
    let published = image::load_from_memory(&source).unwrap();
    let served = shot.identity_bytes().expect("re-encoded by oxipng");
    assert!(served.len() < source.len());
    assert_eq!(shot.size, served.len() as u64);
    let png = image::load_from_memory(served).unwrap();
    // Pixel-identical (oxipng may store them in a smaller pixel type).
    assert!(
        png.to_rgba16() == published.to_rgba16(),
        "pixel-identical PNG"
    );
    let webp = variant(shot, "image/webp").expect("a lossless WebP");
    assert_eq!(webp.score, None, "lossless: no score");
    let decoded = image::load_from_memory(bytes_of(webp)).unwrap().to_rgba8();
    assert!(decoded == published.to_rgba8(), "pixel-identical WebP");
    // No lossy variant of a PNG unless asked.
    assert!(variant(shot, "image/avif").is_none());
    // The manifest's sha256 and ETag describe the bytes served.
    use sha2::Digest;
    let sha: String = sha2::Sha256::digest(served)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(shot.sha256, sha);
}

#[test]
fn a_jpeg_is_optimised_without_loss_and_keeps_its_markers() {
    // jpegtran (libjpeg-turbo): the same coefficients with optimised Huffman tables, so the
    // same pixels; every marker kept (here a comment; EXIF and ICC alike).
    let marked = with_segment(&fixture("coffee.jpg"), 0xfe, b"edgesite: a comment kept");
    let dir = site(&[("coffee.jpg", marked.clone())]);
    let manifest = build(dir.path(), "");
    let photo = file(&manifest, "/coffee.jpg");
    let served = photo.identity_bytes().expect("re-encoded by jpegtran");
    assert!(
        served.len() * 100 <= marked.len() * 99,
        "1% smaller at least"
    );
    assert_eq!(photo.size, served.len() as u64);
    let (published, optimised) = (
        image::load_from_memory(&marked).unwrap(),
        image::load_from_memory(served).unwrap(),
    );
    assert_eq!(
        optimised.as_bytes(),
        published.as_bytes(),
        "pixel-identical"
    );
    assert!(served.windows(24).any(|w| w == b"edgesite: a comment kept"));
    let report = photo.image.as_ref().unwrap();
    assert!(report
        .candidates
        .iter()
        .any(|c| c.kind == "jpeg (jpegtran)" && c.kept && c.bytes == served.len() as u64));
    // Turned off, the file is served as published.
    let manifest = build(dir.path(), "[images]\nlossless = false\n");
    assert_eq!(file(&manifest, "/coffee.jpg").size, marked.len() as u64);
}

#[test]
fn a_png_stored_in_a_smaller_pixel_type_is_still_pixel_identical() {
    // An opaque screenshot saved as RGBA: oxipng stores it as RGB or a palette, which decodes
    // to another pixel type with the same pixels; it is kept.
    let shot = image::load_from_memory(&fixture("screenshot.png")).unwrap();
    let rgba = image::DynamicImage::ImageRgba8(shot.crop_imm(0, 0, 160, 100).to_rgba8());
    let mut source = Vec::new();
    rgba.write_to(
        &mut std::io::Cursor::new(&mut source),
        image::ImageFormat::Png,
    )
    .unwrap();
    let dir = site(&[("crop.png", source.clone())]);
    let manifest = build(dir.path(), "");
    let crop = file(&manifest, "/crop.png");
    let served = crop.identity_bytes().expect("re-encoded by oxipng");
    assert!(served.len() < source.len());
    let png = image::load_from_memory(served).unwrap();
    assert_ne!(png.color(), rgba.color(), "stored in another pixel type");
    assert!(png.to_rgba16() == rgba.to_rgba16(), "the same pixels");
}

/// A GIF of `frames` (RGBA), as the `image` crate writes one.
fn gif(frames: &[image::RgbaImage]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = image::codecs::gif::GifEncoder::new(&mut out);
        encoder
            .encode_frames(frames.iter().map(|f| image::Frame::new(f.clone())))
            .unwrap();
    }
    out
}

#[test]
fn a_static_gif_gets_a_lossless_webp_and_an_animated_one_is_left_as_it_is() {
    // A screenshot's corner: few colours, as a GIF holds them (GIF's palette quantises).
    let shot = image::load_from_memory(&fixture("screenshot.png")).unwrap();
    let corner = shot.crop_imm(0, 0, 200, 120).to_rgba8();
    let still = gif(std::slice::from_ref(&corner));
    let mut second = corner.clone();
    image::imageops::invert(&mut second);
    let animated = gif(&[corner, second]);
    let dir = site(&[
        ("still.gif", still.clone()),
        ("moving.gif", animated.clone()),
    ]);
    let manifest = build(dir.path(), "");
    let still_file = file(&manifest, "/still.gif");
    assert_eq!(
        still_file.size,
        still.len() as u64,
        "the GIF keeps its bytes"
    );
    let webp = variant(still_file, "image/webp").expect("a lossless WebP");
    assert!(webp.representation.size < still.len() as u64);
    let published = image::load_from_memory(&still).unwrap().to_rgba8();
    let decoded = image::load_from_memory(bytes_of(webp)).unwrap().to_rgba8();
    assert!(decoded == published, "pixel-identical");
    let moving = file(&manifest, "/moving.gif");
    assert!(moving.variants.is_empty());
    assert_eq!(
        moving.image.as_ref().unwrap().left_as_is.as_deref(),
        Some("animated GIF: served as it is")
    );
    assert_eq!(moving.size, animated.len() as u64);
}

#[test]
fn a_guard_nothing_passes_ships_nothing_lossy() {
    let dir = site(&[("cat.jpg", fixture("chelsea.jpg"))]);
    let manifest = build(dir.path(), "[images]\nmin_score = 100\n");
    let cat = file(&manifest, "/cat.jpg");
    assert!(cat.variants.is_empty(), "{:?}", cat.image);
    let report = cat.image.as_ref().unwrap();
    assert!(!report.candidates.is_empty());
    // Nothing lossy is kept (the lossless JPEG, jpegtran's, may be).
    let lossy = report
        .candidates
        .iter()
        .filter(|c| c.kind != "jpeg (jpegtran)");
    assert!(lossy.clone().count() > 0 && lossy.clone().all(|c| !c.kept));
    // And with the stage off, nothing is read at all.
    let off = build(dir.path(), "[images]\nenabled = false\n");
    assert!(file(&off, "/cat.jpg").image.is_none());
}

/// `bytes` (a JPEG) with an APP segment inserted after SOI.
fn with_segment(bytes: &[u8], marker: u8, payload: &[u8]) -> Vec<u8> {
    let len = u16::try_from(payload.len() + 2).unwrap().to_be_bytes();
    let mut out = bytes[..2].to_vec();
    out.extend([0xff, marker, len[0], len[1]]);
    out.extend(payload);
    out.extend(&bytes[2..]);
    out
}

#[test]
fn exif_orientation_is_applied_to_the_variants() {
    // EXIF (APP1): a big-endian TIFF with one IFD entry, Orientation (0x0112) = 6, "rotate 90°
    // clockwise to show".
    let mut exif = b"Exif\0\0MM\0\x2a\0\0\0\x08\0\x01".to_vec();
    exif.extend([0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]);
    let rotated = with_segment(&fixture("chelsea.jpg"), 0xe1, &exif);
    let dir = site(&[("cat.jpg", rotated)]);
    let manifest = build(dir.path(), "[images]\nformats = [\"webp\"]\n");
    let cat = file(&manifest, "/cat.jpg");
    assert_eq!(cat.image.as_ref().unwrap().dimensions, (300, 451));
    let webp = variant(cat, "image/webp").expect("a WebP");
    let decoded = image::load_from_memory(bytes_of(webp)).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (300, 451));
}

#[test]
fn an_icc_profile_other_than_srgb_gets_no_variant() {
    // APP2 ICC_PROFILE (ICC.1 annex B.4), chunk 1 of 1: a profile describing Adobe RGB.
    let mut icc = b"ICC_PROFILE\0\x01\x01".to_vec();
    let mut profile = vec![0u8; 128];
    profile[..4].copy_from_slice(&160u32.to_be_bytes());
    profile.extend(b"desc\0\0\0\0Adobe RGB (1998)\0\0\0\0\0\0\0\0\0\0\0\0");
    icc.extend(&profile);
    let dir = site(&[("cat.jpg", with_segment(&fixture("chelsea.jpg"), 0xe2, &icc))]);
    let manifest = build(dir.path(), "");
    let cat = file(&manifest, "/cat.jpg");
    assert!(cat.variants.is_empty());
    let why = cat.image.as_ref().unwrap().left_as_is.as_deref().unwrap();
    assert!(why.contains("ICC profile"), "{why}");
}

#[test]
fn the_fingerprint_covers_the_variants_and_the_cache_makes_rebuilds_free() {
    let dir = site(&[("cat.jpg", fixture("chelsea.jpg"))]);
    let cache = tempfile::tempdir().unwrap();
    let first = compile(dir.path(), &options("", Some(cache.path().into()))).unwrap();
    assert_eq!(first.stats.images.encoded, 1);
    let again = compile(dir.path(), &options("", Some(cache.path().into()))).unwrap();
    assert_eq!(again.stats.images.encoded, 0, "a rebuild encodes no image");
    // A cache file whose outputs were damaged does not match the digest it records: the image
    // is made again (the same bytes), never served from it.
    for entry in std::fs::read_dir(cache.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().contains(".img") {
            let mut bytes = std::fs::read(&path).unwrap();
            let last = bytes.len() - 1;
            bytes[last] ^= 0x55;
            std::fs::write(&path, bytes).unwrap();
        }
    }
    let remade = compile(dir.path(), &options("", Some(cache.path().into()))).unwrap();
    assert_eq!(
        remade.stats.images.encoded, 1,
        "a damaged entry is made again"
    );
    assert_eq!(
        file(&remade, "/cat.jpg").fingerprint,
        file(&first, "/cat.jpg").fingerprint
    );
    let (a, b) = (file(&first, "/cat.jpg"), file(&again, "/cat.jpg"));
    assert_eq!(a.fingerprint, b.fingerprint);
    assert_eq!(a.variants.len(), b.variants.len());
    for (x, y) in a.variants.iter().zip(&b.variants) {
        assert_eq!(x.representation.bytes, y.representation.bytes);
    }
    // The same bytes, other variants (WebP only): another `v`; and not the bytes' own hash.
    let webp_only = build(dir.path(), "[images]\nformats = [\"webp\"]\n");
    let c = file(&webp_only, "/cat.jpg");
    assert_ne!(c.fingerprint, a.fingerprint);
    assert_ne!(a.fingerprint, a.sha256[..10]);
    // Without variants, the bytes' own hash, as for any file.
    let none = build(dir.path(), "[images]\nformats = []\n");
    let d = file(&none, "/cat.jpg");
    assert!(d.variants.is_empty());
    assert_eq!(d.fingerprint, d.sha256[..10]);
}

#[test]
fn auto_storage_leaves_out_the_variants_that_save_least() {
    let dir = site(&[
        ("coffee.jpg", fixture("coffee.jpg")),
        ("cat.jpg", fixture("chelsea.jpg")),
    ]);
    let full = build(dir.path(), "");
    let bundle = full.bundle_bytes();
    let variants: Vec<(u64, &str)> = full
        .files
        .iter()
        .flat_map(|f| {
            f.variants
                .iter()
                .map(move |v| (f.size - v.representation.size, f.path.as_str()))
        })
        .collect();
    assert_eq!(variants.len(), 4);
    let least = variants.iter().min().unwrap();
    // A budget one byte short of the full bundle: the variant saving least goes, only it.
    let toml = format!(
        "[budget]\nmax_bundle_bytes = {}\n[storage]\ntier = \"bundle\"\n",
        bundle - 1
    );
    let fitted = build(dir.path(), &toml);
    let left: usize = fitted.files.iter().map(|f| f.variants.len()).sum();
    assert_eq!(left, 3);
    assert_eq!(fitted.stats.images.left_out, 1);
    assert!(file(&fitted, least.1).variants.len() < file(&full, least.1).variants.len());
    assert!(
        fitted
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::VariantsLeftOut
                && w.message.starts_with("left out 1 image variants")),
        "{:?}",
        fitted.warnings
    );
    assert!(fitted.bundle_bytes() < bundle);
}

#[test]
fn a_kept_image_of_an_earlier_deploy_keeps_its_bytes_and_gets_its_variants() {
    use edgesite_sitegen::history::History;
    use sha2::Digest;
    let (site_dir, history, cache) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let mut options = options("", Some(cache.path().to_path_buf()));
    options.history_dir = Some(history.path().to_path_buf());
    let hex = |bytes: &[u8]| -> String {
        sha2::Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let hashed = |bytes: &[u8]| format!("photo.{}.jpg", &hex(bytes)[..10]);
    // Deploy 1 serves a photo under a name that carries its hash; deploy 2 replaces it.
    let (old, new) = (fixture("chelsea.jpg"), fixture("coffee.jpg"));
    let old_name = hashed(&old);
    std::fs::write(site_dir.path().join("index.html"), "<p>photos</p>").unwrap();
    std::fs::write(site_dir.path().join(&old_name), &old).unwrap();
    let first = compile(site_dir.path(), &options).unwrap();
    History::open(history.path())
        .unwrap()
        .record(&first, 3)
        .unwrap();
    std::fs::remove_file(site_dir.path().join(&old_name)).unwrap();
    std::fs::write(site_dir.path().join(hashed(&new)), &new).unwrap();
    let second = compile(site_dir.path(), &options).unwrap();
    let path = format!("/{old_name}");
    let (then, now) = (file(&first, &path), file(&second, &path));
    assert_eq!(now.sha256, hex(&old), "the name names these bytes");
    for media_type in ["image/avif", "image/webp"] {
        let (a, b) = (
            variant(then, media_type).unwrap(),
            variant(now, media_type).unwrap(),
        );
        assert_eq!(
            bytes_of(a),
            bytes_of(b),
            "{media_type}: the same variant as then"
        );
        assert_eq!(a.representation.etag, b.representation.etag);
    }
}

#[test]
fn images_values_out_of_range_fail_naming_key_and_line() {
    for (toml, expected) in [
        (
            "[images]\nmin_score = 101\n",
            "edgesite.toml:2: images.min_score: 101 is not in 0..=100",
        ),
        (
            "[images]\n\nspeed = 0\n",
            "edgesite.toml:3: images.speed: 0 is not in 1..=10",
        ),
        ("[images]\nformats = [\"jxl\"]\n", "edgesite.toml:2"),
        (
            "[images]\nexclude = [\"a.png\"]\n",
            "images.exclude[0]: \"a.png\" must start with `/`",
        ),
        ("[images]\nshared_caches = \"public\"\n", "edgesite.toml:2"),
    ] {
        let err = Config::parse(toml, Path::new("edgesite.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains(expected), "{toml:?}: {err}");
    }
}
