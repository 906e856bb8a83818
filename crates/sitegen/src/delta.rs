//! Dictionary-compressed deltas (RFC 9842 §5): a file's new bytes compressed with bytes the
//! client already holds (an earlier version of the same URL) as the dictionary. The client names
//! its dictionary by SHA-256 in `Available-Dictionary`; the stream repeats that hash in its
//! header, so a client never decodes against the wrong dictionary.
//!
//! - `dcz` (§5.2): the 8 magic bytes `5E 2A 4D 18 20 00 00 00`, the 32-byte SHA-256 of the
//!   dictionary, then a zstd frame compressed with the dictionary as raw content (a prefix).
//! - `dcb` (§5.1): the 4 magic bytes `FF 44 43 42`, the SHA-256, then a brotli stream compressed
//!   with the dictionary as a raw (prefix) dictionary.
//!
//! Both are built at build time at maximum settings; a request only selects one.

use crate::cache::CacheReason;
use crate::error::{read_bytes, Error};
use crate::etag;
use crate::history::History;
use crate::model::{Asset, Assets, Delta, DeltaStats, Options, Representation};
use crate::sources::{HtmlDictionary, Sources, HTML_DICTIONARY_PATH};
use crate::uri::url_pattern_path;
use edgesite_core::ContentCoding;
use sha2::{Digest, Sha256};
use std::time::Instant;

/// RFC 9842 §5.2: the header of a `dcz` stream (a zstd skippable frame's magic and length 32).
pub const DCZ_MAGIC: [u8; 8] = [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00];
/// RFC 9842 §5.1: the header of a `dcb` stream.
pub const DCB_MAGIC: [u8; 4] = [0xff, 0x44, 0x43, 0x42];

/// The largest dictionary plus content a delta is built for: zstd's window must reach back over
/// the whole dictionary, and RFC 9842 §5.2 lets clients refuse windows past 8 MiB (or 1.25 times
/// the dictionary); brotli's window (§5.1) is 16 MiB. Larger files get no delta.
pub const MAX_DELTA_INPUT: usize = 8 << 20;

/// Why no delta was built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoDelta {
    /// Dictionary and content together exceed [`MAX_DELTA_INPUT`].
    TooLarge,
    /// The encoder reported an error (the file is then served without that delta).
    Encoder,
}

/// `dcz`: `bytes` compressed by zstd at `level` with `dictionary` as raw content (RFC 9842 §5.2).
pub fn dcz(bytes: &[u8], dictionary: &[u8], level: i32) -> Result<Vec<u8>, NoDelta> {
    use zstd::zstd_safe::{CCtx, CParameter};
    let total = dictionary.len() + bytes.len();
    if total > MAX_DELTA_INPUT {
        return Err(NoDelta::TooLarge);
    }
    let mut cctx = CCtx::create();
    let window_log = usize::BITS - total.max(1 << 10).next_power_of_two().leading_zeros() - 1;
    let configured = [
        CParameter::CompressionLevel(level),
        CParameter::WindowLog(window_log),
        CParameter::ContentSizeFlag(true),
        CParameter::ChecksumFlag(false),
    ]
    .into_iter()
    .all(|parameter| cctx.set_parameter(parameter).is_ok());
    if !configured
        || cctx.set_pledged_src_size(Some(bytes.len() as u64)).is_err()
        || cctx.ref_prefix(dictionary).is_err()
    {
        return Err(NoDelta::Encoder);
    }
    let mut frame = Vec::with_capacity(zstd::zstd_safe::compress_bound(bytes.len()));
    cctx.compress2(&mut frame, bytes)
        .map_err(|_| NoDelta::Encoder)?;
    Ok(framed(&DCZ_MAGIC, dictionary, &frame))
}

/// `dcb`: `bytes` compressed by brotli at `quality` with `dictionary` as a raw dictionary (RFC
/// 9842 §5.1; the same stream a decoder given the dictionary as a prefix reads).
pub fn dcb(bytes: &[u8], dictionary: &[u8], quality: u32) -> Result<Vec<u8>, NoDelta> {
    if dictionary.len() + bytes.len() > MAX_DELTA_INPUT {
        return Err(NoDelta::TooLarge);
    }
    let params = brotli::enc::BrotliEncoderParams {
        quality: quality as i32,
        lgwin: 24,
        size_hint: bytes.len(),
        ..Default::default()
    };
    let mut stream = Vec::new();
    let (mut input, mut output) = ([0u8; 4096], [0u8; 4096]);
    let mut no_callback =
        |_: &mut brotli::interface::PredictionModeContextMap<brotli::InputReferenceMut<'_>>,
         _: &mut [brotli::interface::StaticCommand],
         _: brotli::InputPair<'_>,
         _: &mut brotli::enc::StandardAlloc| ();
    brotli::enc::BrotliCompressCustomIoCustomDict(
        &mut brotli::IoReaderWrapper(&mut &bytes[..]),
        &mut brotli::IoWriterWrapper(&mut stream),
        &mut input,
        &mut output,
        &params,
        brotli::enc::StandardAlloc::default(),
        &mut no_callback,
        dictionary,
        std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
    )
    .map_err(|_| NoDelta::Encoder)?;
    Ok(framed(&DCB_MAGIC, dictionary, &stream))
}

/// The content a `dcz` or `dcb` stream of at most `size` bytes decodes to with `dictionary`
/// (RFC 9842 §5): `None` when its header names another dictionary or it does not decode. The
/// build checks every delta it reads from its cache with it.
pub fn undelta(
    coding: ContentCoding,
    delta: &[u8],
    dictionary: &[u8],
    size: usize,
) -> Option<Vec<u8>> {
    use std::io::Read;
    let magic: &[u8] = match coding {
        ContentCoding::Dcz => &DCZ_MAGIC,
        ContentCoding::Dcb => &DCB_MAGIC,
        _ => return None,
    };
    let stream = delta.strip_prefix(magic)?;
    let (hash, stream) = stream.split_at_checked(32)?;
    if hash != dictionary_hash(dictionary) {
        return None;
    }
    let mut out = Vec::with_capacity(size);
    if coding == ContentCoding::Dcz {
        let mut dctx = zstd::zstd_safe::DCtx::create();
        dctx.ref_prefix(dictionary).ok()?;
        dctx.decompress(&mut out, stream).ok()?;
    } else {
        brotli::Decompressor::new_with_custom_dict(stream, 4096, dictionary.to_vec().into())
            .take(size as u64 + 1)
            .read_to_end(&mut out)
            .ok()?;
    }
    (out.len() <= size).then_some(out)
}

/// A delta is kept only when at least this many percent smaller than the br representation.
const MIN_SAVING_PERCENT: u64 = 5;

/// Adds to each file a browser holds fresh its `Use-As-Dictionary` field (RFC 9842 §2.1), and
/// to those files their deltas against the earlier versions the deploy history kept (newest
/// first; `dcz` and `dcb`, each kept when it saves 5% over br).
pub(crate) fn add(
    mut assets: Assets,
    sources: &Sources,
    options: &Options,
) -> Result<Assets, Error> {
    assets.stats.deltas = add_to(&mut assets.list, sources, options)?;
    Ok(assets)
}

fn add_to(files: &mut [Asset], sources: &Sources, options: &Options) -> Result<DeltaStats, Error> {
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
        use_html_dictionary(files, dictionary, options, &mut stats)?;
    }
    let (Some(dir), Some(history)) = (&options.history_dir, history) else {
        return Ok(stats);
    };
    stats.deploys = history.deploys.len();
    for file in files.iter_mut() {
        // An earlier deploy's file, kept as it was (skew protection), gets none.
        if !file.source.starts_with(dir) {
            deltas_of(file, history, options, &mut stats)?;
        }
    }
    stats.wall_time_ms = started.elapsed().as_millis() as u64;
    Ok(stats)
}

/// Adds `file`'s deltas against its earlier versions (if it has a br representation to beat).
fn deltas_of(
    file: &mut Asset,
    history: &History,
    options: &Options,
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
    if versions.is_empty() {
        return Ok(());
    }
    let new = identity_of(file)?;
    let had_deltas = !file.deltas.is_empty();
    for old_sha in versions {
        if let Some(old) = history.body(&old_sha) {
            push_deltas(file, &new, (&old, &old_sha), options, stats);
        }
    }
    stats.files += usize::from(!had_deltas && !file.deltas.is_empty());
    Ok(())
}

/// The bytes `file` serves as identity.
fn identity_of(file: &Asset) -> Result<Vec<u8>, Error> {
    match file.identity_bytes() {
        Some(bytes) => Ok(bytes.to_vec()),
        None => read_bytes(&file.source),
    }
}

/// Adds to `file` (whose identity bytes are `new`) its dcz and dcb deltas against `old` (bytes
/// and SHA-256 hex), each when at least 5% smaller than its br representation.
fn push_deltas(
    file: &mut Asset,
    new: &[u8],
    (old, old_sha): (&[u8], &str),
    options: &Options,
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
        let Some(bytes) = cached_delta(coding, key, options, stats) else {
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
    options: &Options,
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
                options,
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
    let digest = etag::sha256(&bytes);
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
    options: &Options,
    stats: &mut DeltaStats,
) -> Option<Vec<u8>> {
    let c = &options.config.compression;
    let key = match coding {
        ContentCoding::Dcz => format!("{new_sha}.{old_sha}.dcz-{}", c.zstd_level),
        _ => format!("{new_sha}.{old_sha}.dcb-q{}", c.brotli_quality),
    };
    let path = options.cache_dir.as_ref().map(|dir| dir.join(&key));
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
    if let Some(dir) = &options.cache_dir {
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

/// The SHA-256 of a dictionary: what `Available-Dictionary` carries (RFC 9842 §2.2).
pub fn dictionary_hash(dictionary: &[u8]) -> [u8; 32] {
    Sha256::digest(dictionary).into()
}

fn framed(magic: &[u8], dictionary: &[u8], stream: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(magic.len() + 32 + stream.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&dictionary_hash(dictionary));
    out.extend_from_slice(stream);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// Version 2 of a script: version 1 with a few edits (what a deploy changes).
    fn versions() -> (Vec<u8>, Vec<u8>) {
        // Pseudo-random constants, so the script does not compress to nothing on its own.
        let mut state = 0x2545_f491_u64;
        let one: String = (0..400)
            .map(|i| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                format!(
                    "export function handler{i}(e) {{ return e.v * {} + {}; }}\n",
                    state >> 40,
                    state % 977
                )
            })
            .collect();
        let two = one.replace("handler17(", "handler17renamed(").replace(
            "handler250(e) { return e.v *",
            "handler250(e) { return e.w *",
        ) + "export const version = 2;\n";
        assert_ne!(one, two);
        (one.into_bytes(), two.into_bytes())
    }

    fn brotli_alone(bytes: &[u8]) -> usize {
        crate::encode::compress::encode(
            edgesite_core::ContentCoding::Br,
            bytes,
            &crate::config::CompressionConfig::default(),
        )
        .map_or(0, |b| b.len())
    }

    #[test]
    fn dcz_is_framed_as_rfc_9842_says_and_the_zstd_cli_decodes_it_with_the_dictionary() {
        let (old, new) = versions();
        let delta = dcz(&new, &old, 19).unwrap();
        assert_eq!(delta[..8], DCZ_MAGIC);
        assert_eq!(delta[8..40], dictionary_hash(&old));
        // The zstd frame after the header, decoded by the reference implementation's CLI with
        // the old version as its dictionary (-D; raw content, no dictionary magic).
        let dir = tempfile::tempdir().unwrap();
        let (frame, dict) = (dir.path().join("frame.zst"), dir.path().join("old.js"));
        std::fs::write(&frame, &delta[40..]).unwrap();
        std::fs::write(&dict, &old).unwrap();
        let out = std::process::Command::new("zstd")
            .args(["-d", "-c", "-D"])
            .arg(&dict)
            .arg(&frame)
            .output()
            .expect("the zstd CLI (Debian's zstd package, installed by make setup)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.stdout, new);
        // A few edits cost a few dozen bytes, not a recompressed file.
        assert!(
            delta.len() * 10 < brotli_alone(&new),
            "dcz {} bytes, br {}",
            delta.len(),
            brotli_alone(&new)
        );
    }

    #[test]
    fn dcb_is_framed_as_rfc_9842_says_and_decodes_with_the_dictionary_as_prefix() {
        let (old, new) = versions();
        let delta = dcb(&new, &old, 11).unwrap();
        assert_eq!(delta[..4], DCB_MAGIC);
        assert_eq!(delta[4..36], dictionary_hash(&old));
        let mut decoded = Vec::new();
        brotli::Decompressor::new_with_custom_dict(&delta[36..], 4096, old.clone().into())
            .read_to_end(&mut decoded)
            .unwrap();
        assert_eq!(decoded, new);
        assert!(delta.len() * 10 < brotli_alone(&new));
        // Without the dictionary the stream does not decode to the new bytes.
        let mut without = Vec::new();
        let plain = brotli::Decompressor::new(&delta[36..], 4096).read_to_end(&mut without);
        assert!(plain.is_err() || without != new);
    }

    #[test]
    fn inputs_past_the_window_get_no_delta() {
        let big = vec![b'a'; MAX_DELTA_INPUT];
        assert_eq!(dcz(b"x", &big, 19), Err(NoDelta::TooLarge));
        assert_eq!(dcb(b"x", &big, 11), Err(NoDelta::TooLarge));
    }
}
