//! Which files the bundle keeps and which the store does (`[storage]`). A file named by a glob
//! goes where the glob says; with `tier = "auto"` the rest stay in the bundle when the whole
//! site fits its budget, and otherwise the hottest are offered the bundle first ([`heat`]:
//! stylesheets, scripts, pages, fonts, small images, then the rest; within a kind the nearest
//! the root, then the smallest), up to `auto_bundle_bytes`: each stays if it fits in what is
//! left, else goes to the store, so one large page does not send the small ones after it away;
//! without an R2 bucket, the rest of the bundle's room takes files back that Static Assets
//! cannot take: any over its 25 MiB, then, while it would hold more objects than it takes,
//! those that free the most objects for their bytes ([`refill`]).
//! A file is kept whole in one tier: its representations, deltas and variants; in the store
//! every one in full (compact storage decodes from the bundle only). With `r2_bucket` named, a
//! file larger than Static Assets takes (`[budget] max_file_bytes`) goes to R2 wherever `auto`
//! would have put it, `r2` globs send files there by name, and when Static Assets would hold
//! more objects than it takes (`max_asset_files`), the files `auto` sent there that a visitor
//! needs last go on to R2.

use crate::config::{StorageConfig, StorageTier};
use crate::error::{escaped, Error};
use crate::model::{Asset, Tier};
use crate::warning::{Warning, WarningKind};
use std::collections::HashSet;

/// The share of `max_asset_files` past which the build warns.
const WARN_PERCENT: u64 = 80;

/// An image this small is fetched like a page's other parts (an icon, a logo, a thumbnail):
/// kept with them.
const SMALL_IMAGE_BYTES: u64 = 256 * 1024;

/// Places every file in a tier; `room` is what the bundle holds for the site's files (its
/// budget less the code), of which `auto` fills at most `auto_bundle_bytes` when not every file
/// fits; a file over `largest` bytes (`[budget] max_file_bytes`) goes to R2 when the config
/// names a bucket and no glob or tier decides it.
pub(super) fn place(files: &mut [Asset], storage: &StorageConfig, room: u64, largest: u64) {
    let mut undecided = Vec::new();
    let mut used = 0;
    for (i, file) in files.iter_mut().enumerate() {
        file.tier = match storage.required(&file.path) {
            Some(StorageTier::Bundle) => {
                used += file.stored_bytes();
                Tier::Bundle
            }
            Some(StorageTier::R2) => Tier::R2,
            _ if storage.r2_bucket.is_some() && file.size > largest => Tier::R2,
            Some(StorageTier::Assets) => Tier::Assets,
            Some(StorageTier::Auto) | None => {
                undecided.push(i);
                Tier::Bundle
            }
        };
    }
    let all: u64 = undecided.iter().map(|&i| files[i].stored_bytes()).sum();
    if used + all <= room {
        // The whole site fits: nothing moves.
    } else if used <= room {
        undecided.sort_by_cached_key(|&i| {
            let file = &files[i];
            (heat(file), depth(&file.path), file.stored_bytes(), i)
        });
        let mut left = (room - used).min(storage.auto_bundle_bytes);
        let past_the_share = room - used - left;
        for &i in &undecided {
            let bytes = files[i].stored_bytes();
            if bytes <= left {
                left -= bytes;
            } else {
                files[i].tier = Tier::Assets;
            }
        }
        if storage.r2_bucket.is_none() {
            refill(
                files,
                &undecided,
                left + past_the_share,
                storage.max_asset_files,
            );
        }
    } else {
        for &i in &undecided {
            files[i].tier = Tier::Assets;
        }
    }
    if storage.r2_bucket.is_some() {
        spill(files, &undecided, storage.max_asset_files);
    }
    for file in files.iter_mut().filter(|f| f.tier.is_stored()) {
        for r in &mut file.representations {
            r.decoded_from = None;
        }
    }
}

/// Without an R2 bucket, the files `auto` sent to Static Assets (of `decided_by_auto`) that it
/// cannot take come back to the bundle while its room (`left`, past `auto_bundle_bytes` too)
/// allows: first those with an object larger than Static Assets takes (`[budget]
/// max_file_bytes` raised past 25 MiB), then, while Static Assets would hold more than `limit`
/// objects, those that free the most objects for their bytes (a file whose objects another
/// file there shares frees none, and stays). A fuller bundle launches slower, but a store past
/// its limits fails the build.
fn refill(files: &mut [Asset], decided_by_auto: &[usize], mut left: u64, limit: u64) {
    let mut objects = AssetObjects::of(files);
    let mut back = vec![false; files.len()];
    for &i in decided_by_auto {
        let file = &files[i];
        if file.tier == Tier::Assets && too_large(file) && file.stored_bytes() <= left {
            left -= file.stored_bytes();
            objects.remove(file);
            back[i] = true;
        }
    }
    let mut by_cost: Vec<usize> = decided_by_auto
        .iter()
        .copied()
        .filter(|&i| files[i].tier == Tier::Assets && !back[i])
        .collect();
    by_cost.sort_by_cached_key(|&i| {
        let file = &files[i];
        (
            file.stored_bytes() / (objects_of(file).len() as u64).max(1),
            i,
        )
    });
    for i in by_cost {
        if objects.count <= limit {
            break;
        }
        let file = &files[i];
        if file.stored_bytes() <= left && objects.freed_by(file) > 0 {
            left -= file.stored_bytes();
            objects.remove(file);
            back[i] = true;
        }
    }
    for (file, back) in files.iter_mut().zip(back) {
        if back {
            file.tier = Tier::Bundle;
        }
    }
}

/// With an R2 bucket named: while Static Assets would hold more than `limit` objects, the files
/// `auto` sent there (of `decided_by_auto`) go on to R2, the ones a visitor needs last first
/// ([`heat`]), the largest of a kind first. A file a glob sends to Static Assets stays.
fn spill(files: &mut [Asset], decided_by_auto: &[usize], limit: u64) {
    let mut objects = AssetObjects::of(files);
    if objects.count <= limit {
        return;
    }
    let mut movable: Vec<usize> = decided_by_auto
        .iter()
        .copied()
        .filter(|&i| files[i].tier == Tier::Assets)
        .collect();
    movable.sort_by_cached_key(|&i| {
        let file = &files[i];
        (
            std::cmp::Reverse(heat(file)),
            std::cmp::Reverse(file.size),
            i,
        )
    });
    let mut moving = Vec::new();
    for i in movable {
        if objects.count <= limit {
            break;
        }
        objects.remove(&files[i]);
        moving.push(i);
    }
    for i in moving {
        files[i].tier = Tier::R2;
    }
}

/// Static Assets' objects: each once, however many files share it (they are named by their
/// bytes), with how many of its files use it.
struct AssetObjects {
    users: std::collections::HashMap<String, u32>,
    count: u64,
}

impl AssetObjects {
    fn of(files: &[Asset]) -> AssetObjects {
        let mut users = std::collections::HashMap::new();
        for file in files.iter().filter(|f| f.tier == Tier::Assets) {
            for sha256 in objects_of(file) {
                *users.entry(sha256.to_string()).or_default() += 1;
            }
        }
        let count = users.len() as u64;
        AssetObjects { users, count }
    }

    /// How many objects would go with `file`: those no other file uses.
    fn freed_by(&self, file: &Asset) -> u64 {
        let objects = objects_of(file);
        let only_here = objects
            .iter()
            .filter(|&&sha256| self.users.get(sha256) == Some(&1));
        only_here.count() as u64
    }

    /// `file` leaves Static Assets: the objects no other file uses go with it.
    fn remove(&mut self, file: &Asset) {
        for sha256 in objects_of(file) {
            if let Some(users) = self.users.get_mut(sha256) {
                *users -= 1;
                if *users == 0 {
                    self.count -= 1;
                }
            }
        }
    }
}

/// The objects `file` keeps, each once (two representations with the same bytes are one).
fn objects_of(file: &Asset) -> Vec<&str> {
    let mut objects: Vec<&str> = file.kept().map(|r| r.sha256.as_str()).collect();
    objects.sort_unstable();
    objects.dedup();
    objects
}

/// How soon and how often visitors need a file of this kind: lower first. A site's few
/// stylesheets and scripts block the first paint of many pages; then its pages, each the first
/// request of a view; then what pages fetch after them.
fn heat(file: &Asset) -> u8 {
    let media = file.content_type.split(';').next().unwrap_or_default();
    match media {
        "text/css" => 0,
        "text/javascript" | "application/javascript" => 1,
        "text/html" => 2,
        _ if media.starts_with("font/") => 3,
        _ if media.starts_with("image/") && file.size <= SMALL_IMAGE_BYTES => 4,
        _ => 5,
    }
}

/// How deep in the site a file is, a folder's index page as deep as the folder:
/// `/index.html`, `/about.html` and `/docs/index.html` 1, `/docs/a.html` 2. A site's entry
/// points (its root page, its sections' index pages) are its shallowest.
fn depth(path: &str) -> usize {
    let path = path.strip_suffix("index.html").unwrap_or(path);
    path.trim_end_matches('/').matches('/').count().max(1)
}

/// What each tier holds, as the reports show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Held {
    /// Files in the bundle.
    pub(crate) bundle_files: u64,
    /// Files in Static Assets.
    pub(crate) store_files: u64,
    /// Static Assets' objects: one per distinct representation of its files.
    pub(crate) objects: u64,
    /// Their bytes.
    pub(crate) bytes: u64,
    /// Files, objects and bytes in R2.
    pub(crate) r2: [u64; 3],
}

/// What each tier of `files` holds.
pub(crate) fn held(files: &[Asset]) -> Held {
    let [store_files, objects, bytes] = objects_in(files, Tier::Assets);
    let r2 = objects_in(files, Tier::R2);
    Held {
        bundle_files: files.len() as u64 - store_files - r2[0],
        store_files,
        objects,
        bytes,
        r2,
    }
}

/// The files of `tier`, its objects (distinct representations) and their bytes.
fn objects_in(files: &[Asset], tier: Tier) -> [u64; 3] {
    let in_tier = || files.iter().filter(|f| f.tier == tier);
    let mut seen = HashSet::new();
    let mut bytes = 0;
    for r in in_tier().flat_map(Asset::kept) {
        if seen.insert(r.sha256.as_str()) {
            bytes += r.size;
        }
    }
    [in_tier().count() as u64, seen.len() as u64, bytes]
}

/// Static Assets' largest file.
const MAX_OBJECT_BYTES: u64 = 25 * 1024 * 1024;

/// Whether `file` keeps an object larger than Static Assets takes.
fn too_large(file: &Asset) -> bool {
    file.kept().any(|r| r.size > MAX_OBJECT_BYTES)
}

/// Fails when an object is larger than Static Assets takes, or the store would hold more
/// objects than `max_asset_files`; a warning past 80% of the count.
pub(super) fn check(files: &[Asset], storage: &StorageConfig) -> Result<Option<Warning>, Error> {
    let mut in_store: Vec<&Asset> = files.iter().filter(|f| f.tier == Tier::Assets).collect();
    if let Some(file) = in_store.iter().find(|f| too_large(f)) {
        return Err(Error::Budget {
            message: format!(
                "{} is over 25 MiB, the largest file Static Assets takes ([budget] \
                 max_file_bytes was raised past it): name an R2 bucket ([storage] r2_bucket) \
                 and leave max_file_bytes at 25 MiB or under, so that larger files go to R2",
                escaped(&file.path)
            ),
        });
    }
    let Held {
        objects: count,
        bytes,
        ..
    } = held(files);
    let limit = storage.max_asset_files;
    if count > limit {
        // With a bucket, only what [storage] pins to Static Assets is left here.
        let fix = if storage.r2_bucket.is_some() {
            "send fewer files to Static Assets by name (tier = \"assets\" or assets globs: \
             what auto places goes on to R2 past the limit)"
        } else {
            "name an R2 bucket ([storage] r2_bucket) to take the rest"
        };
        in_store.sort_by_cached_key(|f| std::cmp::Reverse(f.kept().count()));
        let most: Vec<String> = in_store
            .iter()
            .take(5)
            .map(|f| format!("{} ({} objects)", escaped(&f.path), f.kept().count()))
            .collect();
        return Err(Error::Budget {
            message: format!(
                "the store would hold {count} objects ({bytes} bytes), over the limit of {limit} \
                 ([storage] max_asset_files; Static Assets takes 20,000 files per version on the \
                 Free plan, 100,000 on Paid): raise it on the Paid plan, {fix}, or store fewer \
                 codings ([compression] codings); the files with the most: {}",
                most.join(", ")
            ),
        });
    }
    Ok((count * 100 > limit * WARN_PERCENT).then(|| {
        let message = format!(
            "the store holds {count} objects, {}% of the {limit}-object limit ([storage] max_asset_files)",
            count * 100 / limit
        );
        Warning::new(WarningKind::NearBudget, message)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CacheReason, Representation, Source};
    use edgesite_core::ContentCoding;

    fn file(path: &str, content_type: &'static str, size: u64) -> Asset {
        let identity = Representation {
            coding: ContentCoding::Identity,
            size,
            sha256: format!("{path}-identity"),
            etag: String::new(),
            bytes: None,
            decoded_from: None,
        };
        Asset {
            path: path.to_string(),
            source: Source::File(path.into()),
            content_type,
            cache_control: String::new(),
            cache_reason: CacheReason::Html,
            fields: Vec::new(),
            size,
            sha256: String::new(),
            fingerprint: String::new(),
            rewritten: None,
            integrity: String::new(),
            etag: String::new(),
            representations: vec![identity],
            deltas: Vec::new(),
            variants: Vec::new(),
            image: None,
            tier: Tier::Bundle,
            alternate: None,
        }
    }

    fn tiers(files: &[Asset]) -> Vec<(&str, Tier)> {
        files.iter().map(|f| (f.path.as_str(), f.tier)).collect()
    }

    #[test]
    fn a_file_in_r2_may_be_as_long_as_r2_takes_and_no_longer() {
        use super::super::budget::MAX_R2_FILE_BYTES;
        let budget = crate::config::BudgetConfig::default();
        let mut film = file("/film.mp4", "video/mp4", 5 << 30);
        film.tier = Tier::R2;
        let check = |f: &Asset| super::super::budget::check(std::slice::from_ref(f), &budget);
        assert!(check(&film).is_ok(), "5 GiB, past 32 bits, is held");
        film.size = MAX_R2_FILE_BYTES;
        assert!(check(&film).is_ok(), "R2's largest object is held");
        film.size += 1;
        let error = check(&film).unwrap_err().to_string();
        assert!(
            error.contains("film.mp4") && error.contains("R2's largest object"),
            "{error}"
        );
    }

    #[test]
    fn a_site_that_fits_stays_in_the_bundle() {
        let mut files = vec![
            file("/a.html", "text/html", 10),
            file("/b.pdf", "application/pdf", 90),
        ];
        place(&mut files, &StorageConfig::default(), 100, 1000);
        assert_eq!(
            tiers(&files),
            [("/a.html", Tier::Bundle), ("/b.pdf", Tier::Bundle)]
        );
    }

    #[test]
    fn past_the_budget_pages_and_small_files_stay_and_the_rest_go_to_the_store() {
        let mut files = vec![
            file("/video.mp4", "video/mp4", 500),
            file("/big.html", "text/html; charset=utf-8", 40),
            file("/small.html", "text/html; charset=utf-8", 10),
            file("/style.css", "text/css; charset=utf-8", 30),
            file("/logo.png", "image/png", 5),
        ];
        place(&mut files, &StorageConfig::default(), 84, 1000);
        assert_eq!(
            tiers(&files),
            [
                ("/video.mp4", Tier::Assets),
                ("/big.html", Tier::Bundle),
                ("/small.html", Tier::Bundle),
                ("/style.css", Tier::Bundle),
                // Next in order, but 5 bytes do not fit the 4 left once the stylesheet is in.
                ("/logo.png", Tier::Assets),
            ]
        );
    }

    #[test]
    fn a_site_past_the_budget_keeps_its_hottest_files_up_to_auto_bundle_bytes() {
        let mut files = vec![
            file("/docs/a/deep.html", "text/html; charset=utf-8", 10),
            file("/docs/index.html", "text/html; charset=utf-8", 20),
            file("/font.woff2", "font/woff2", 10),
            file("/index.html", "text/html; charset=utf-8", 30),
            file("/app.js", "text/javascript; charset=utf-8", 25),
            file("/style.css", "text/css; charset=utf-8", 40),
        ];
        let storage = StorageConfig {
            auto_bundle_bytes: 120,
            ..StorageConfig::default()
        };
        // The room (1,000 bytes) would hold every file but one; 120 of it are offered: the
        // stylesheet, the script, then the pages nearest the root (a folder's index is as near
        // as the root's, and this one is smaller), and no more.
        files.push(file("/video.mp4", "video/mp4", 1000));
        place(&mut files, &storage, 1000, 10_000);
        assert_eq!(
            tiers(&files),
            [
                ("/docs/a/deep.html", Tier::Assets),
                ("/docs/index.html", Tier::Bundle),
                ("/font.woff2", Tier::Assets),
                ("/index.html", Tier::Bundle),
                ("/app.js", Tier::Bundle),
                ("/style.css", Tier::Bundle),
                ("/video.mp4", Tier::Assets),
            ]
        );
        // A site that fits whole stays whole, whatever the allowance.
        files.pop();
        place(&mut files, &storage, 1000, 10_000);
        assert!(files.iter().all(|f| f.tier == Tier::Bundle));
    }

    #[test]
    fn without_a_bucket_the_bundle_takes_back_what_static_assets_cannot_count() {
        let files = || {
            let mut files = vec![
                file("/index.html", "text/html; charset=utf-8", 10),
                file("/b.html", "text/html; charset=utf-8", 40),
                file("/docs/a.html", "text/html; charset=utf-8", 10),
                file("/c.html", "text/html; charset=utf-8", 10),
                file("/c-copy.html", "text/html; charset=utf-8", 10),
                file("/video.mp4", "video/mp4", 1000),
            ];
            // The same bytes as /c.html: one object for both.
            files[4].representations[0].sha256 = files[3].representations[0].sha256.clone();
            files
        };
        let storage = |max_asset_files| StorageConfig {
            auto_bundle_bytes: 10,
            max_asset_files,
            ..StorageConfig::default()
        };
        let tiers_of = |limit, room| {
            let mut files = files();
            place(&mut files, &storage(limit), room, 10_000);
            let tiers: Vec<Tier> = files.iter().map(|f| f.tier).collect();
            (tiers, check(&files, &storage(limit)).is_ok())
        };
        use Tier::{Assets as A, Bundle as B};
        // Within the limit (4 objects: b, a, c and the video): the share alone, the root page.
        assert_eq!(tiers_of(100, 100), (vec![B, A, A, A, A, A], true));
        // A limit of 3: the room past the share takes back the file that frees an object for
        // the fewest bytes (a, though b is nearer the root).
        assert_eq!(tiers_of(3, 100), (vec![B, A, B, A, A, A], true));
        // A limit of 2: then b; c and its copy free nothing while the other stays, and stay.
        assert_eq!(tiers_of(2, 100), (vec![B, B, B, A, A, A], true));
        // No room for that: the limit's check fails the build, as before.
        assert_eq!(tiers_of(2, 30), (vec![B, A, B, A, A, A], false));
    }

    #[test]
    fn a_file_whose_representations_share_bytes_holds_one_object() {
        let mut twice = file("/a.html", "text/html; charset=utf-8", 10);
        twice.representations.push(twice.representations[0].clone());
        twice.tier = Tier::Assets;
        let files = [twice];
        let objects = AssetObjects::of(&files);
        assert_eq!((objects.count, objects.freed_by(&files[0])), (1, 1));
    }

    #[test]
    fn without_a_bucket_a_file_larger_than_static_assets_takes_comes_back_to_the_bundle() {
        let big = 30 * 1024 * 1024;
        let files = || {
            vec![
                file("/index.html", "text/html; charset=utf-8", 10),
                file("/release.iso", "application/octet-stream", big),
                file("/video.mp4", "video/mp4", 1000),
            ]
        };
        let storage = StorageConfig {
            auto_bundle_bytes: 10,
            ..StorageConfig::default()
        };
        // `[budget] max_file_bytes` raised past 25 MiB, and room for the file in the bundle but
        // not for the whole site.
        let mut roomy = files();
        place(&mut roomy, &storage, big + 100, u64::MAX);
        assert_eq!(roomy[1].tier, Tier::Bundle);
        assert_eq!(roomy[2].tier, Tier::Assets);
        assert!(check(&roomy, &storage).is_ok());
        // Without the room: Static Assets' limit names it.
        let mut tight = files();
        place(&mut tight, &storage, big - 1, u64::MAX);
        assert_eq!(tight[1].tier, Tier::Assets);
        let error = check(&tight, &storage).unwrap_err().to_string();
        assert!(error.contains("over 25 MiB"), "{error}");
    }

    #[test]
    fn a_page_that_does_not_fit_leaves_room_for_the_smaller_files_after_it() {
        let mut files = vec![
            file("/huge.html", "text/html; charset=utf-8", 90),
            file("/a.html", "text/html; charset=utf-8", 10),
            file("/style.css", "text/css; charset=utf-8", 20),
        ];
        place(&mut files, &StorageConfig::default(), 50, 1000);
        assert_eq!(
            tiers(&files),
            [
                ("/huge.html", Tier::Assets),
                ("/a.html", Tier::Bundle),
                ("/style.css", Tier::Bundle)
            ]
        );
    }

    #[test]
    fn globs_and_the_tier_decide_before_the_budget() {
        let storage = StorageConfig {
            assets: vec!["/downloads/**".into()],
            bundle: vec!["/downloads/keep.txt".into()],
            ..StorageConfig::default()
        };
        let mut files = vec![
            file("/downloads/a.zip", "application/zip", 1),
            file("/downloads/keep.txt", "text/plain", 1),
            file("/index.html", "text/html", 1),
        ];
        place(&mut files, &storage, 1000, 1000);
        assert_eq!(
            tiers(&files),
            [
                ("/downloads/a.zip", Tier::Assets),
                ("/downloads/keep.txt", Tier::Bundle),
                ("/index.html", Tier::Bundle),
            ]
        );
        let everything = StorageConfig {
            tier: StorageTier::Assets,
            ..StorageConfig::default()
        };
        place(&mut files, &everything, 1000, 1000);
        assert!(files.iter().all(|f| f.tier == Tier::Assets));
    }

    #[test]
    fn with_a_bucket_files_larger_than_static_assets_takes_go_to_r2() {
        let files = || {
            vec![
                file("/index.html", "text/html", 10),
                file("/film.mp4", "video/mp4", 400),
                file("/keep/film.mp4", "video/mp4", 400),
                file("/media/small.pdf", "application/pdf", 20),
            ]
        };
        // No bucket: the large files stay where auto puts them (the budget check fails them).
        let mut without = files();
        place(&mut without, &StorageConfig::default(), 10_000, 300);
        assert!(without.iter().all(|f| f.tier == Tier::Bundle));
        let storage = StorageConfig {
            r2_bucket: Some("site-media".into()),
            r2: vec!["/media/**".into()],
            bundle: vec!["/keep/**".into()],
            ..StorageConfig::default()
        };
        let mut with = files();
        place(&mut with, &storage, 10_000, 300);
        assert_eq!(
            tiers(&with),
            [
                ("/index.html", Tier::Bundle),
                ("/film.mp4", Tier::R2),
                // A glob decides first (the budget check then holds it to max_file_bytes).
                ("/keep/film.mp4", Tier::Bundle),
                ("/media/small.pdf", Tier::R2),
            ]
        );
        let held = held(&with);
        assert_eq!((held.bundle_files, held.store_files), (2, 0));
        assert_eq!(held.r2, [2, 2, 420]);
    }

    #[test]
    fn the_store_counts_distinct_objects_against_its_limit() {
        let mut files = vec![file("/a.bin", "application/octet-stream", 7)];
        files.push(files[0].clone()); // the same bytes at another path: one object
        files[1].path = "/b.bin".into();
        files.push(file("/c.bin", "application/octet-stream", 3));
        for f in &mut files {
            f.tier = Tier::Assets;
        }
        let held = held(&files);
        assert_eq!((held.store_files, held.objects, held.bytes), (3, 2, 10));
        let storage = |max_asset_files| StorageConfig {
            max_asset_files,
            ..StorageConfig::default()
        };
        assert!(
            check(&files, &storage(2)).unwrap().is_some(),
            "2 of 2: past 80%"
        );
        assert!(check(&files, &storage(100)).unwrap().is_none());
        let error = check(&files, &storage(1)).unwrap_err().to_string();
        assert!(
            error.contains("2 objects") && error.contains("max_asset_files"),
            "{error}"
        );
    }

    #[test]
    fn with_a_bucket_what_static_assets_cannot_count_goes_on_to_r2_coldest_first() {
        let files = || {
            vec![
                file("/index.html", "text/html", 100),
                file("/a.html", "text/html", 100),
                file("/site.css", "text/css", 100),
                file("/big.pdf", "application/pdf", 300),
                file("/small.pdf", "application/pdf", 200),
                file("/pinned.pdf", "application/pdf", 900),
            ]
        };
        let storage = |bucket: Option<&str>| StorageConfig {
            r2_bucket: bucket.map(Into::into),
            assets: vec!["/pinned.pdf".into()],
            max_asset_files: 3,
            ..StorageConfig::default()
        };
        // Room for one file, the stylesheet: five files go to Static Assets, two more than it
        // takes.
        let mut without = files();
        place(&mut without, &storage(None), 100, 10_000);
        assert_eq!(
            held(&without).objects,
            5,
            "no bucket: the limit's check fails it"
        );
        let mut with = files();
        place(&mut with, &storage(Some("site-media")), 100, 10_000);
        assert_eq!(
            tiers(&with),
            [
                ("/index.html", Tier::Assets),
                ("/a.html", Tier::Assets),
                ("/site.css", Tier::Bundle),
                // The kind a visitor needs last, the largest first; a glob's file stays.
                ("/big.pdf", Tier::R2),
                ("/small.pdf", Tier::R2),
                ("/pinned.pdf", Tier::Assets),
            ]
        );
        assert_eq!(held(&with).objects, 3);
        assert!(check(&with, &storage(Some("site-media"))).is_ok());
        // Files pinned to Static Assets past its limit: the error names what helps.
        let pinned = StorageConfig {
            tier: StorageTier::Assets,
            ..storage(Some("site-media"))
        };
        let mut all = files();
        place(&mut all, &pinned, 100, 10_000);
        let error = check(&all, &pinned).unwrap_err().to_string();
        assert!(
            error.contains("send fewer files to Static Assets by name"),
            "{error}"
        );
        let error = check(&without, &storage(None)).unwrap_err().to_string();
        assert!(error.contains("name an R2 bucket"), "{error}");
    }
}
