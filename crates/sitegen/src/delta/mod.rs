//! The delta stage: each file a browser holds fresh is offered as a dictionary
//! (`Use-As-Dictionary`, RFC 9842 §2.1), and such files get their deltas ([`dcz`] and
//! [`dcb`]) against the earlier versions the deploy history kept; with `[history]
//! html_dictionary`, every page gets deltas against the site-wide HTML dictionary. Built at
//! build time at maximum settings; a request only selects one.

pub use edgesite_codecs::delta::{
    dcb, dcz, dictionary_hash, undelta, NoDelta, DCB_MAGIC, DCZ_MAGIC, MAX_DELTA_INPUT,
};

use crate::config::CompressionConfig;
use crate::error::Error;
use crate::hash;
use crate::history::History;
use crate::mime::HTML_DICTIONARY_PATH;
use crate::model::CacheReason;
use crate::model::{Asset, Assets, Delta, DeltaStats, Representation};
use crate::sources::{HtmlDictionary, Sources};
use crate::uri::url_pattern_path;
use edgesite_core::ContentCoding;
use std::path::Path;
use std::time::Instant;

/// What the stage is asked: the encoders' settings (`[compression]`: brotli quality, zstd
/// level) and where deltas are cached between builds.
#[derive(Clone, Copy)]
pub(crate) struct Settings<'a> {
    compression: &'a CompressionConfig,
    cache_dir: Option<&'a Path>,
}

impl<'a> Settings<'a> {
    /// Deltas made with `compression`'s settings, cached in `cache_dir`.
    pub(crate) fn new(compression: &'a CompressionConfig, cache_dir: Option<&'a Path>) -> Self {
        Settings {
            compression,
            cache_dir,
        }
    }
}

/// A delta is kept only when at least this many percent smaller than the br representation.
const MIN_SAVING_PERCENT: u64 = 5;

/// Adds to each file a browser holds fresh its `Use-As-Dictionary` field (RFC 9842 §2.1), and
/// to those files their deltas against the earlier versions the deploy history kept (newest
/// first; `dcz` and `dcb`, each kept when it saves 5% over br).
pub(crate) fn compute(
    mut assets: Assets,
    sources: &Sources,
    settings: Settings<'_>,
) -> Result<Assets, Error> {
    assets.stats.deltas = add_to(&mut assets.list, sources, settings)?;
    Ok(assets)
}

fn add_to(
    files: &mut [Asset],
    sources: &Sources,
    settings: Settings<'_>,
) -> Result<DeltaStats, Error> {
    let (history, html) = (sources.history.as_ref(), sources.html_dictionary.as_ref());
    let started = Instant::now();
    let mut stats = DeltaStats {
        kept: sources.kept,
        ..DeltaStats::default()
    };
    for file in files.iter_mut() {
        // The HTML dictionary gets its own pattern below.
        if html.is_some() && file.path == HTML_DICTIONARY_PATH {
            continue;
        }
        if let Some(value) = use_as_dictionary(file) {
            file.fields.push(("use-as-dictionary".into(), value));
            stats.dictionaries += 1;
        }
    }
    if let Some(dictionary) = html {
        use_html_dictionary(files, dictionary, settings, &mut stats)?;
    }
    let Some(history) = history else {
        return Ok(stats);
    };
    stats.deploys = history.deploys.len();
    for (i, file) in files.iter_mut().enumerate() {
        // An earlier deploy's file, kept as it was (skew protection), gets none.
        if !sources.is_kept(i) {
            deltas_of(file, history, settings, &mut stats)?;
        }
    }
    stats.wall_time_ms = started.elapsed().as_millis() as u64;
    Ok(stats)
}

/// Adds `file`'s deltas against its earlier versions (if it has a br representation to beat).
fn deltas_of(
    file: &mut Asset,
    history: &History,
    settings: Settings<'_>,
    stats: &mut DeltaStats,
) -> Result<(), Error> {
    // A browser holds an earlier version as a dictionary only if it was offered as one (and
    // fresh): deltas of other files (HTML, no-cache) would be bytes no request selects.
    if !file
        .fields
        .iter()
        .any(|(name, _)| name == "use-as-dictionary")
    {
        return Ok(());
    }
    let versions = earlier_versions(history, file);
    // A delta is kept only when smaller than the br representation: without one (a file not
    // compressed), none is, and the file is not read.
    let has_br = file
        .representations
        .iter()
        .any(|v| v.coding == ContentCoding::Br);
    if versions.is_empty() || !has_br {
        return Ok(());
    }
    let new = identity_of(file)?;
    let had_deltas = !file.deltas.is_empty();
    for old_sha in versions {
        if let Some(old) = history.body(&old_sha) {
            push_deltas(file, &new, (&old, &old_sha), settings, stats);
        }
    }
    stats.files += usize::from(!had_deltas && !file.deltas.is_empty());
    Ok(())
}

/// The bytes `file` serves as identity.
fn identity_of(file: &Asset) -> Result<Vec<u8>, Error> {
    match file.identity_bytes() {
        Some(bytes) => Ok(bytes.to_vec()),
        None => file.source.read().map(std::borrow::Cow::into_owned),
    }
}

/// Adds to `file` (whose identity bytes are `new`) its dcz and dcb deltas against `old` (bytes
/// and SHA-256 hex), each when at least 5% smaller than its br representation.
fn push_deltas(
    file: &mut Asset,
    new: &[u8],
    (old, old_sha): (&[u8], &str),
    settings: Settings<'_>,
    stats: &mut DeltaStats,
) {
    let Some(br) = file
        .representations
        .iter()
        .find(|v| v.coding == ContentCoding::Br)
    else {
        return;
    };
    let limit = br.size * (100 - MIN_SAVING_PERCENT) / 100;
    for coding in [ContentCoding::Dcz, ContentCoding::Dcb] {
        let key = (new, file.sha256.as_str(), old, old_sha);
        let Some(bytes) = cached_delta(coding, key, settings, stats) else {
            continue;
        };
        if bytes.len() as u64 <= limit {
            stats.deltas += 1;
            stats.bytes += bytes.len() as u64;
            file.deltas.push(delta(coding, bytes, old));
        }
    }
}

/// The HTML dictionary's fields and the pages' deltas: the dictionary is named by `?v=` (so
/// that URL is immutable) and offered for every path (`match="/*"`, the longest match wins in
/// the browser, so a file's own dictionary comes first); each page announces it (`Link:
/// rel="compression-dictionary"`, §3.2) and gets deltas against it.
fn use_html_dictionary(
    files: &mut [Asset],
    dictionary: &HtmlDictionary,
    settings: Settings<'_>,
    stats: &mut DeltaStats,
) -> Result<(), Error> {
    let version = &dictionary.sha256[..10];
    let link = format!("<{HTML_DICTIONARY_PATH}?v={version}>; rel=\"compression-dictionary\"");
    for file in files.iter_mut() {
        if file.path == HTML_DICTIONARY_PATH {
            file.fingerprint = version.to_string();
            file.fields
                .push(("use-as-dictionary".into(), "match=\"/*\"".into()));
            stats.dictionaries += 1;
        } else if file.content_type.starts_with("text/html") {
            match file.fields.iter_mut().find(|(name, _)| name == "link") {
                Some((_, value)) => *value = format!("{value}, {link}"),
                None => file.fields.push(("link".into(), link.clone())),
            }
            let new = identity_of(file)?;
            let before = file.deltas.len();
            push_deltas(
                file,
                &new,
                (&dictionary.bytes, &dictionary.sha256),
                settings,
                stats,
            );
            let added = usize::from(file.deltas.len() > before);
            stats.html_pages += added;
            stats.files += added;
        }
    }
    stats.html_dictionary_bytes = dictionary.bytes.len() as u64;
    Ok(())
}

/// A delta's entry: its bytes with their own strong ETag (RFC 9110 §8.8.3), and the dictionary's
/// hash.
fn delta(coding: ContentCoding, bytes: Vec<u8>, dictionary: &[u8]) -> Delta {
    let digest = hash::sha256(&bytes);
    let size = bytes.len();
    Delta {
        dictionary: dictionary_hash(dictionary),
        representation: Representation::new(coding, &digest, size, Some(bytes)),
    }
}

/// The earlier versions of `file` the history holds (SHA-256 hex, newest deploy first): those
/// at its own path, else, for a name with a verified hash, those whose names match its pattern
/// (`/assets/app.*.js`: the same file renamed by a new hash).
fn earlier_versions(history: &History, file: &Asset) -> Vec<String> {
    let own = history.versions(&file.path, &file.sha256);
    if !own.is_empty() || file.cache_reason != CacheReason::Fingerprinted {
        return own.into_iter().map(str::to_owned).collect();
    }
    let Some(pattern) = name_pattern(&file.path) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for deploy in &history.deploys {
        for (path, sha) in &deploy.files {
            if *sha != file.sha256 && crate::glob::matches(&pattern, path) && !out.contains(sha) {
                out.push(sha.clone());
            }
        }
    }
    out
}

/// The delta of `new` against `old` in `coding`, from the encoding cache when it holds it and
/// what it holds decodes to `new` with `old` (a damaged or edited cache file is made again).
/// `(new, new_sha, old, old_sha)`: the bytes and SHA-256 (hex) of both versions.
fn cached_delta(
    coding: ContentCoding,
    (new, new_sha, old, old_sha): (&[u8], &str, &[u8], &str),
    settings: Settings<'_>,
    stats: &mut DeltaStats,
) -> Option<Vec<u8>> {
    let c = settings.compression;
    let key = match coding {
        ContentCoding::Dcz => format!("{new_sha}.{old_sha}.dcz-{}", c.zstd_level),
        _ => format!("{new_sha}.{old_sha}.dcb-q{}", c.brotli_quality),
    };
    let path = settings.cache_dir.map(|dir| dir.join(&key));
    let cached = path.as_ref().and_then(|p| std::fs::read(p).ok());
    if let Some(bytes) =
        cached.filter(|d| undelta(coding, d, old, new.len()).as_deref() == Some(new))
    {
        stats.cached += 1;
        return Some(bytes);
    }
    let bytes = match coding {
        ContentCoding::Dcz => dcz(new, old, c.zstd_level),
        _ => dcb(new, old, c.brotli_quality),
    }
    .ok()?;
    stats.encoded += 1;
    if let Some(dir) = settings.cache_dir {
        // A failed cache write only costs a later re-encode.
        let _ = crate::atomic::write_atomically(dir, &key, &bytes);
    }
    Some(bytes)
}

/// `Use-As-Dictionary: match="<path>"` (RFC 9842 §2.1) for a compressible file a browser will
/// hold fresh: one whose references carry `?v=` (immutable when requested so) or whose name
/// carries a verified hash (then the pattern matches its other versions, the hash a `*`). The
/// pattern is the path as a browser requests it, in URL pattern syntax
/// ([`url_pattern_path`]): `/café (1).js` is `/caf%C3%A9%20\\(1\\).js`.
fn use_as_dictionary(file: &Asset) -> Option<String> {
    let compressible = file
        .representations
        .iter()
        .any(|v| v.coding == ContentCoding::Br);
    // A file with image variants never: a client would hold one of several representations.
    if !compressible || file.content_type.starts_with("text/html") || !file.variants.is_empty() {
        return None;
    }
    let mut value = String::from("match=\"");
    if file.cache_reason == CacheReason::Fingerprinted {
        let token = hash_token(&file.path)?;
        url_pattern_path(&file.path[..token.start], &mut value);
        value.push('*');
        url_pattern_path(&file.path[token.end..], &mut value);
    } else if !file.fingerprint.is_empty() {
        url_pattern_path(&file.path, &mut value);
    } else {
        return None;
    }
    // No match-dest: with `match-dest=("script")` Chromium 156 never used the dictionary
    // (tests/browser/dictionary_transport.py, measured), while the same field without it works.
    value.push('"');
    Some(value)
}

/// `/assets/app.3f2a9c81.js` → `/assets/app.*.js`: the name with its hash-like token replaced
/// by `*` (a glob over the history's paths).
fn name_pattern(path: &str) -> Option<String> {
    let token = hash_token(path)?;
    Some(format!("{}*{}", &path[..token.start], &path[token.end..]))
}

/// Where in `path` its file name's hash-like token is: the first run of 8 or more ASCII
/// letters and digits, with a digit, between separators (`.`, `-`, `_`, `~`).
fn hash_token(path: &str) -> Option<std::ops::Range<usize>> {
    let name_start = path.rfind('/')? + 1;
    let name = &path[name_start..];
    let ends = name
        .char_indices()
        .filter(|(_, c)| matches!(c, '.' | '-' | '_' | '~'))
        .map(|(i, _)| i)
        .chain(std::iter::once(name.len()));
    let mut start = 0;
    for end in ends {
        let token = &name[start..end];
        let hashy = token.len() >= 8
            && token.bytes().all(|t| t.is_ascii_alphanumeric())
            && token.bytes().any(|t| t.is_ascii_digit());
        if hashy {
            return Some(name_start + start..name_start + end);
        }
        start = end + 1;
    }
    None
}
