//! The encode stage: every file read (or taken from the link pass's rewrite, the image stage's
//! re-encode, the bytes the build made), hashed and precompressed on all cores (encoding
//! dominates a build), its Content-Type, Cache-Control, fingerprint and first fields decided
//! (the configured ones, the link pass's preload hints): the site's [`Asset`]s. Compression
//! stops early when even compact storage cannot fit the budget ([`BundleLowerBound`]).

pub(crate) mod compress;

use crate::cache::Policy;
use crate::config::{BudgetConfig, CompressionConfig, Config, StorageTier, Store};
use crate::error::Error;
use crate::hash;
use crate::images::{Images, Made};
use crate::links::{Links, Rewrite};
use crate::mime;
use crate::model::{
    Asset, Assets, CacheReason, EncodeCounts, ImageStats, Representation, Rewritten, Source, Tier,
    Variant, CODE_ESTIMATE_BYTES,
};
use crate::parallel;
use crate::progress::Progress;
use crate::sources::{Found, Sources};
use edgesite_core::ContentCoding;
use std::cmp::Reverse;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// What the stage is asked: `[compression]`, `[budget]` (compressing stops once even compact
/// storage cannot fit), the caching policy, the fields every file's responses start with
/// (`[headers]`, `cache.cdn`), and where encodings are cached between builds.
pub(crate) struct Settings<'a> {
    pub(crate) compression: &'a CompressionConfig,
    pub(crate) budget: &'a BudgetConfig,
    /// Whether every file must fit the bundle (`[storage] tier = "bundle"`, no `assets` glob):
    /// only then can compiling stop early on the budget.
    pub(crate) bundle_only: bool,
    pub(crate) policy: Policy<'a>,
    pub(crate) fields: Vec<(String, String)>,
    /// More fields of some files, by file index (the agents stage's).
    pub(crate) file_fields: Vec<Vec<(String, String)>>,
    /// By file index, the index of a page's alternate (its Markdown twin: the agents stage's).
    pub(crate) alternates: Vec<Option<usize>>,
    pub(crate) cache_dir: Option<&'a Path>,
    /// How hard the encoders try for what the cache does not hold (`Options::effort`).
    pub(crate) effort: crate::model::Effort,
}

impl<'a> Settings<'a> {
    /// What `config` asks of the stage (its caching `policy`), with the encoding cache in
    /// `cache_dir`, and what the cache does not hold made with `effort`.
    pub(crate) fn new(
        config: &'a Config,
        policy: Policy<'a>,
        (cache_dir, effort): (Option<&'a Path>, crate::model::Effort),
    ) -> Settings<'a> {
        Settings {
            compression: &config.compression,
            budget: &config.budget,
            bundle_only: config.storage.tier == StorageTier::Bundle
                && config.storage.assets.is_empty(),
            policy,
            fields: config.default_fields(),
            file_fields: Vec::new(),
            alternates: Vec::new(),
            cache_dir,
            effort,
        }
    }
}

/// The files the build made (the agents stage's twins and `/llms*.txt`, the speculation rules,
/// the HTML dictionary), encoded by [`ahead`], by file index.
pub(crate) struct Ahead(HashMap<usize, Mutex<Option<Encoding>>>);

impl Ahead {
    /// What was encoded ahead for the file at `index`, taken (`None` after).
    fn take(&self, index: usize) -> Option<Encoding> {
        let slot = self.0.get(&index)?;
        slot.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// Encodes the files the build made as soon as the agents stage has made the last of them,
/// beside the link pass (`compile`): the pass changes none of them (it rewrites only the site's
/// own files, `Sources::own`, and reads made files only to fingerprint links to them), and
/// their encodings need nothing from it. (brotli 11 of the 4 MiB `/llms-full.txt` alone, which
/// changes with any page, took 8 to 9 s of a 30 s rebuild of a site of 50,000 pages, on one
/// core: docs/benchmarks.md, "Many files".) Nothing is encoded ahead for a site that must fit
/// the bundle (compiling stops early there once it cannot: [`BundleLowerBound`]), nor once
/// `stop` is set (the link pass failed).
pub(crate) fn ahead(sources: &Sources, settings: &Settings<'_>, stop: &AtomicBool) -> Ahead {
    let found = &sources.files;
    let made: Vec<usize> = match settings.bundle_only {
        true => Vec::new(),
        false => (sources.own..found.len())
            .filter(|&i| matches!(found[i].source, Source::Made(_)))
            .collect(),
    };
    let progress = Progress::new("compress made files", made.len());
    let mut order: Vec<usize> = (0..made.len()).collect();
    order.sort_by_cached_key(|&k| Reverse(cost(&found[made[k]], settings.compression)));
    let results = parallel::map_in_order(&order, |k| {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let i = made[k];
        let link = Link::made(i, settings);
        let result = encode_one(found[i].clone(), settings, link, None);
        progress.one_done(result.as_ref().map_or(0, |(asset, _)| asset.size));
        Some(result)
    });
    let encoded = made.into_iter().zip(results);
    Ahead(encoded.map(|(i, r)| (i, Mutex::new(r))).collect())
}

/// Encodes every source (the link pass's rewrites in place of their files' bytes, with the
/// pages' preload hints): the site's assets, in the sources' order; a file [`ahead`] encoded
/// is taken from `ahead`.
pub(crate) fn assets(
    sources: &Sources,
    (images, links): (&Images, &Links),
    settings: &Settings<'_>,
    ahead: &Ahead,
) -> Result<Assets, Error> {
    let (list, encodings) = encode_all(&sources.files, settings, (links, images), ahead)?;
    let mut assets = Assets {
        list,
        ..Assets::default()
    };
    assets.stats.files = assets.list.len();
    assets.stats.encodings = encodings;
    assets.stats.links = links.stats;
    assets.stats.images = image_stats(&assets.list, images);
    Ok(assets)
}

/// What the image stage made, counted over the assets.
fn image_stats(list: &[Asset], images: &Images) -> ImageStats {
    let mut stats = ImageStats {
        encoded: images.encoded,
        wall_time_ms: images.wall_time_ms,
        ..ImageStats::default()
    };
    for asset in list.iter().filter(|a| a.image.is_some()) {
        stats.images += 1;
        stats.original_bytes += asset.image.as_ref().map_or(0, |r| r.original_bytes);
        stats.served_bytes += asset.size;
        stats.variants += asset.variants.len();
        stats.variant_bytes += asset
            .variants
            .iter()
            .map(|v| v.representation.size)
            .sum::<u64>();
    }
    stats
}

/// One file's encoding, with the encodings it computed or found in the cache.
type Encoding = Result<(Asset, EncodeCounts), Error>;

/// A lower bound on the bundle, raised as files compile: the code, every file that is not
/// compressed (stored as it is in any storage), and for each compiled file the least it can
/// be stored in. Past the budget, compiling stops: even compact storage cannot fit.
struct BundleLowerBound {
    bytes: AtomicU64,
    over: AtomicBool,
    limit: u64,
    compact_allowed: bool,
    /// The files that are not compressed, with their sizes (for the error).
    untried: Vec<(String, u64)>,
}

impl BundleLowerBound {
    fn new(found: &[Found], settings: &Settings<'_>) -> BundleLowerBound {
        let untried: Vec<(String, u64)> = found
            .iter()
            .filter_map(|f| Some((f, f.source.len()?)))
            .filter(|(f, size)| !compress::tries(&f.url_path, *size, settings.compression))
            .map(|(f, size)| (f.url_path.clone(), size))
            .collect();
        let bound = BundleLowerBound {
            bytes: AtomicU64::new(
                untried.iter().map(|(_, size)| size).sum::<u64>() + CODE_ESTIMATE_BYTES,
            ),
            untried,
            over: AtomicBool::new(false),
            // The store takes what the bundle cannot: no bound then.
            limit: if settings.bundle_only {
                settings.budget.max_bundle_bytes
            } else {
                u64::MAX
            },
            compact_allowed: settings.compression.store != Store::Full,
        };
        bound.add(0);
        bound
    }

    /// Adds a compiled file (its least storage, if it was compressed).
    fn add_file(&self, asset: &Asset, compression: &CompressionConfig) {
        if compress::tries(&asset.path, asset.size, compression) {
            let least = if self.compact_allowed {
                asset.compact_bytes()
            } else {
                asset.stored_bytes()
            };
            self.add(least);
        }
    }

    fn add(&self, bytes: u64) {
        if self.bytes.fetch_add(bytes, Ordering::Relaxed) + bytes > self.limit {
            self.over.store(true, Ordering::Relaxed);
        }
    }
}

/// Compiles every file on all cores (encoding dominates a build), keeping the walk's order;
/// stops early when the bundle cannot fit (see [`BundleLowerBound`]).
fn encode_all(
    found: &[Found],
    settings: &Settings<'_>,
    (links, images): (&Links, &Images),
    ahead: &Ahead,
) -> Result<(Vec<Asset>, EncodeCounts), Error> {
    let total = found.len();
    let bound = BundleLowerBound::new(found, settings);
    let progress = Progress::new("compress", total);
    // The costliest first: a large one taken last would be encoded alone while the other cores
    // idle.
    let mut order: Vec<usize> = (0..total).collect();
    order.sort_by_cached_key(|&i| Reverse(cost(&found[i], settings.compression)));
    let results = parallel::map_in_order(&order, |i| {
        if bound.over.load(Ordering::Relaxed) {
            return None;
        }
        let link = Link {
            rewrite: links.rewrites.get(i).and_then(Option::as_ref),
            preload: links.preload.get(i).and_then(Option::as_deref),
            ..Link::made(i, settings)
        };
        let image = images.of(i);
        // Encoded ahead as a made file is: not if the link pass or the image stage had a part
        // in it after all (neither changes a made file).
        let early = (link.rewrite.is_none() && link.preload.is_none() && image.is_none())
            .then(|| ahead.take(i))
            .flatten();
        let result = early.unwrap_or_else(|| encode_one(found[i].clone(), settings, link, image));
        if let Ok((compiled, _)) = &result {
            bound.add_file(compiled, settings.compression);
        }
        progress.one_done(result.as_ref().map_or(0, |(compiled, _)| compiled.size));
        Some(result)
    });
    collect(results, &bound, settings.budget)
}

/// What encoding `found` costs, to take the costliest first: a file to compress by its size,
/// another by a small part of it (it is only hashed).
fn cost(found: &Found, compression: &CompressionConfig) -> u64 {
    let size = found.source.len().unwrap_or(0);
    match compress::tries(&found.url_path, size, compression) {
        true => size,
        false => size / 64,
    }
}

/// The compiled files in walk order, or the first error, or the budget error when compiling
/// stopped early.
fn collect(
    results: Vec<Option<Encoding>>,
    bound: &BundleLowerBound,
    budget: &BudgetConfig,
) -> Result<(Vec<Asset>, EncodeCounts), Error> {
    let mut files = Vec::with_capacity(results.len());
    let mut counts = EncodeCounts::default();
    // A slot left empty was not compiled: compiling stopped early.
    for result in results.into_iter().flatten() {
        let (file, c) = result?;
        counts.encoded += c.encoded;
        counts.cached += c.cached;
        counts.quick += c.quick;
        files.push(file);
    }
    if bound.over.load(Ordering::Relaxed) {
        let bytes = bound.bytes.load(Ordering::Relaxed);
        let mut sizes: Vec<(String, u64)> = files
            .iter()
            .map(|f| (f.path.clone(), f.stored_bytes()))
            .collect();
        sizes.extend(
            bound
                .untried
                .iter()
                .filter(|(p, _)| !files.iter().any(|f| &f.path == p))
                .cloned(),
        );
        return Err(Error::over_budget(bytes, budget.max_bundle_bytes, sizes));
    }
    Ok((files, counts))
}

/// What the link pass did with one file (its new bytes, a page's preload hints), and the agents
/// stage (its fields, a page's twin).
#[derive(Clone, Copy)]
struct Link<'a> {
    rewrite: Option<&'a Rewrite>,
    preload: Option<&'a str>,
    /// The file's fields from the agents stage.
    more: &'a [(String, String)],
    /// A page's twin, from the agents stage.
    alternate: Option<usize>,
}

impl<'a> Link<'a> {
    /// What a file the build made has of this: the agents stage's part alone (the link pass
    /// reads only the site's own files).
    fn made(index: usize, settings: &'a Settings<'_>) -> Link<'a> {
        Link {
            rewrite: None,
            preload: None,
            more: settings.file_fields.get(index).map_or(&[], Vec::as_slice),
            alternate: settings.alternates.get(index).copied().flatten(),
        }
    }
}

/// A file's first fields: the configured ones, a page's preload hints, the agents stage's.
fn first_fields(settings: &Settings<'_>, link: Link<'_>) -> Vec<(String, String)> {
    let mut fields = settings.fields.clone();
    if let Some(preload) = link.preload {
        fields.push(("link".to_string(), preload.to_string()));
    }
    fields.extend(link.more.iter().cloned());
    fields
}

/// Reads (or takes the link pass's rewrite or the image stage's re-encode of), hashes and
/// precompresses one file, and decides its caching fields and its first fields (the configured
/// ones, then the page's preload hints, before `_headers`, which may remove any). A file nothing
/// needs whole is read in pieces ([`in_pieces`]).
fn encode_one(
    found: Found,
    settings: &Settings<'_>,
    link: Link<'_>,
    image: Option<&Made>,
) -> Result<(Asset, EncodeCounts), Error> {
    check_path_length(&found)?;
    if let Some(path) = in_pieces(&found, link, image, settings).map(Path::to_path_buf) {
        let asset = pieced(found, &path, settings, link, image)?;
        return Ok((asset, EncodeCounts::default()));
    }
    let rewrite = link.rewrite;
    let optimised = image.and_then(|made| made.optimised.as_ref());
    let bytes = match (optimised, rewrite) {
        (Some(optimised), _) => optimised.clone(),
        (None, Some(rewrite)) => rewrite.bytes.clone(),
        (None, None) => found.source.read()?.into_owned(),
    };
    let digest = hash::sha256(&bytes);
    // Bytes that are not a file's (rewritten, re-encoded, minified, made by the build) are kept,
    // as the encodings are.
    let kept = rewrite
        .map(|r| r.bytes.clone())
        .or(optimised.cloned())
        .or_else(|| found.source.in_memory().map(<[u8]>::to_vec));
    let identity = Representation::new(ContentCoding::Identity, &digest, bytes.len(), kept);
    let mut counts = EncodeCounts::default();
    let mut representations = vec![identity.clone()];
    representations.extend(encodings(
        &found.url_path,
        &bytes,
        &identity,
        settings,
        &mut counts,
    ));
    let caching = caching(&found, &bytes, &identity, image, settings.policy)?;
    let integrity = hash::sri_sha384(&bytes);
    let asset = asset(
        found,
        (representations, integrity),
        caching,
        settings,
        link,
        image,
    );
    Ok((asset, counts))
}

/// The file of `found` when it is read in pieces, never whole: a site file served as it is (not
/// rewritten by the link pass, not re-encoded by the image stage) that is not compressed (an
/// already-compressed type, smaller than an encoding could save, or larger than
/// `compression.max_input_bytes`). Nothing needs all its bytes at once, and a video or a disk
/// image may be larger than the build's memory.
fn in_pieces<'f>(
    found: &'f Found,
    link: Link<'_>,
    image: Option<&Made>,
    settings: &Settings<'_>,
) -> Option<&'f Path> {
    let Source::File(path) = &found.source else {
        return None;
    };
    if link.rewrite.is_some() || image.is_some_and(|made| made.optimised.is_some()) {
        return None;
    }
    let size = found.source.len()?;
    (!compress::tries(&found.url_path, size, settings.compression)).then_some(path)
}

/// [`encode_one`] of a file read in pieces ([`in_pieces`]): its identity alone, its digests
/// taken as it is read.
fn pieced(
    found: Found,
    path: &Path,
    settings: &Settings<'_>,
    link: Link<'_>,
    image: Option<&Made>,
) -> Result<Asset, Error> {
    let legacy = crate::cache::may_name_a_hash(&found.url_path);
    let wanted = hash::Wanted { sri: true, legacy };
    let digests = hash::file_digests(path, wanted).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let size = usize::try_from(digests.len).map_err(|_| Error::Unservable {
        path: path.to_path_buf(),
        reason: "it is larger than this machine can address",
    })?;
    let identity = Representation::new(ContentCoding::Identity, &digests.sha256, size, None);
    let decided = settings.policy.cache_control_by(&found.url_path, &digests);
    let caching = with_fingerprint(&found, decided, &identity, image, settings.policy);
    let integrity = digests
        .sha384
        .as_ref()
        .map(hash::sri_of)
        .unwrap_or_default();
    Ok(asset(
        found,
        (vec![identity], integrity),
        caching,
        settings,
        link,
        image,
    ))
}

/// The asset of `found` with its representations (identity first) and its integrity, its
/// Cache-Control, why, and its fingerprint.
fn asset(
    found: Found,
    (representations, integrity): (Vec<Representation>, String),
    (cache_control, cache_reason, fingerprint): (String, CacheReason, String),
    settings: &Settings<'_>,
    link: Link<'_>,
    image: Option<&Made>,
) -> Asset {
    let identity = &representations[0];
    Asset {
        variants: image.map_or_else(Vec::new, variants),
        image: image.map(|made| made.report.clone()),
        tier: Tier::Bundle,
        alternate: link.alternate,
        fingerprint,
        rewritten: link.rewrite.map(|r| Rewritten {
            references: r.references,
            source_sha256: r.source_sha256.clone(),
        }),
        content_type: mime::content_type(&found.url_path),
        cache_control,
        cache_reason,
        fields: first_fields(settings, link),
        size: identity.size,
        etag: identity.etag.clone(),
        sha256: identity.sha256.clone(),
        integrity,
        representations,
        deltas: Vec::new(),
        path: found.url_path,
        source: found.source,
    }
}

/// A file's Cache-Control, why, and its fingerprint (empty: none). A file name's hash is checked
/// against the source (the image stage keeps such files' bytes); an image's fingerprint covers
/// its variants ([`Made::digest`]).
fn caching(
    found: &Found,
    bytes: &[u8],
    identity: &Representation,
    image: Option<&Made>,
    policy: Policy<'_>,
) -> Result<(String, CacheReason, String), Error> {
    let re_encoded = image.is_some_and(|made| made.optimised.is_some());
    let source = if re_encoded {
        found.source.read()?
    } else {
        std::borrow::Cow::Borrowed(&[][..])
    };
    let named = if re_encoded { &source[..] } else { bytes };
    let decided = policy.cache_control(&found.url_path, named, &hash::sha256(named));
    Ok(with_fingerprint(found, decided, identity, image, policy))
}

/// A file's Cache-Control and why (`decided`), and its fingerprint (empty: none), over its
/// identity's SHA-256 or an image's digest ([`Made::digest`], which covers its variants).
fn with_fingerprint(
    found: &Found,
    (cache_control, reason): (&str, CacheReason),
    identity: &Representation,
    image: Option<&Made>,
    policy: Policy<'_>,
) -> (String, CacheReason, String) {
    let digest = image.map_or(&identity.sha256, |made| &made.digest);
    let fingerprint = policy.fingerprint_of(&found.url_path, reason, digest);
    (
        cache_control.to_string(),
        reason,
        fingerprint.unwrap_or_default().to_string(),
    )
}

/// The image stage's variants of a file, as identity-coded representations.
fn variants(made: &Made) -> Vec<Variant> {
    made.variants
        .iter()
        .map(|v| Variant {
            content_type: v.content_type,
            representation: Representation::new(
                ContentCoding::Identity,
                &hash::sha256(&v.bytes),
                v.bytes.len(),
                Some(v.bytes.clone()),
            ),
            score: v.score,
        })
        .collect()
}

/// A URL path no request can name is a build error, naming the file.
fn check_path_length(found: &Found) -> Result<(), Error> {
    if found.url_path.len() > edgesite_core::MAX_PATH_LEN - 1 {
        let path = found.source.path().unwrap_or(Path::new(&found.url_path));
        return Err(Error::Unservable {
            path: path.to_path_buf(),
            reason: "its URL path is longer than edgesite_core::MAX_PATH_LEN bytes",
        });
    }
    Ok(())
}

/// The encoded representations of a file worth keeping (see [`compress::precompress`]).
fn encodings(
    path: &str,
    bytes: &[u8],
    identity: &Representation,
    settings: &Settings<'_>,
    counts: &mut EncodeCounts,
) -> Vec<Representation> {
    compress::precompress(
        path,
        bytes,
        &identity.sha256,
        settings.compression,
        (settings.cache_dir, settings.effort),
        counts,
    )
    .into_iter()
    .map(|encoded| {
        let digest = hash::sha256(&encoded.bytes);
        let size = encoded.bytes.len();
        Representation::new(encoded.coding, &digest, size, Some(encoded.bytes))
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Effort;
    use std::sync::Arc;

    fn found(url_path: &str, source: Source) -> Found {
        let url_path = url_path.to_string();
        Found { url_path, source }
    }

    /// A made file is encoded once, ahead, and the stage takes that encoding rather than
    /// encoding it again; a site's own file is the stage's.
    #[test]
    fn a_made_file_is_encoded_ahead_and_taken_by_the_stage() {
        let dir = tempfile::tempdir().unwrap();
        let own = dir.path().join("own.txt");
        let text = "Made by the build, and compressible. ".repeat(100);
        std::fs::write(&own, &text).unwrap();
        let sources = Sources {
            files: vec![
                found("/own.txt", Source::File(own)),
                found("/llms.txt", Source::Made(Arc::from(text.as_bytes()))),
            ],
            own: 1,
            history: None,
            kept: Default::default(),
            html_dictionary: None,
            notes: Default::default(),
        };
        let config = Config::default();
        let settings = Settings::new(&config, Policy::of(&config), (None, Effort::Configured));
        let ahead = ahead(&sources, &settings, &AtomicBool::new(false));
        assert_eq!(
            ahead.0.keys().collect::<Vec<_>>(),
            [&1],
            "the made file alone"
        );
        let (made, counts) = ahead.take(1).unwrap().unwrap();
        assert_eq!(made.path, "/llms.txt");
        assert_eq!(counts.encoded, 3, "br, zstd and gzip");
        assert!(ahead.take(1).is_none(), "taken once");
        // What the stage finds ahead is what it uses: here an error planted in its place.
        let plant = || {
            let error = Error::SourceDateEpoch {
                value: "ahead".into(),
            };
            *ahead.0[&1].lock().unwrap() = Some(Err(error));
        };
        plant();
        let stages = (&Images::default(), &Links::default());
        let taken = assets(&sources, stages, &settings, &ahead);
        assert!(taken.unwrap_err().to_string().contains("ahead"));
        // Unless the link pass had a part in it after all: then the stage encodes it (the
        // bytes the pass gave), not what was made ahead.
        let rewrite = crate::links::Rewrite {
            bytes: b"rewritten".to_vec(),
            references: 1,
            navigations: 0,
            source_sha256: String::new(),
        };
        let links = Links {
            rewrites: vec![None, Some(rewrite)],
            ..Links::default()
        };
        plant();
        let rewritten = assets(&sources, (&Images::default(), &links), &settings, &ahead);
        assert_eq!(rewritten.unwrap().list[1].size, 9, "the pass's bytes");
        // Stopped (the link pass failed): nothing is encoded ahead.
        let stopped = super::ahead(&sources, &settings, &AtomicBool::new(true));
        assert!(stopped.take(1).is_none());
        // Nothing ahead for it: the stage encodes it.
        *ahead.0[&1].lock().unwrap() = None;
        let assets = assets(
            &sources,
            (&Images::default(), &Links::default()),
            &settings,
            &ahead,
        );
        let assets = assets.unwrap();
        assert_eq!(assets.list.len(), 2);
        assert_eq!(assets.list[1].representations.len(), 4);
        assert_eq!(
            assets.stats.encodings.encoded, 6,
            "both files, as none was ahead"
        );
    }
}
