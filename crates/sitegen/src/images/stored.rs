//! The image stage's cache: what one image became, kept under the SHA-256 of its bytes and the
//! settings (`ImagesConfig::settings_key`, and whether an AVIF decoder was found), so a rebuild
//! encodes only the images that changed.
//!
//! One file per image: a JSON line (the report, and the length and score of each kept output),
//! then the outputs' bytes one after another. What is read is checked against the digest the
//! line records (a hash over every output's SHA-256): a cache file damaged or cut short is not
//! used, and the image is made again. The folder is the build's own (under `target/`), a
//! trusted build input like the compiler's: an entry rewritten whole, digest included, is
//! served as it says (the encoding and delta caches, whose outputs can be decoded back to their
//! input, are checked against it).

use super::{digest_of, make_one, Made, MadeVariant};
use crate::config::ImagesConfig;
use crate::hash;
use crate::model::ImageReport;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The format of the cache file; a change of what the stage makes bumps it.
const VERSION: u32 = 2;

/// The JSON line.
#[derive(Serialize, Deserialize)]
struct Header {
    report: ImageReport,
    optimised: Option<usize>,
    variants: Vec<(String, usize, Option<f64>)>,
    digest: String,
}

/// What `bytes` (the file at `path`) becomes, from the cache when it holds it; and whether it
/// did.
pub(super) fn made(
    path: &str,
    bytes: &[u8],
    config: &ImagesConfig,
    dir: Option<&Path>,
) -> (Made, bool) {
    let digest = hash::sha256(bytes);
    let key = format!(
        "{}.img{VERSION}-{}-t{}{}{}",
        hash::hex(&digest),
        config.settings_key(),
        // Which tools were found: installing one makes what it makes.
        u8::from(edgesite_imaging::avif_tools_found()),
        u8::from(edgesite_imaging::webp_tools_found()),
        u8::from(edgesite_imaging::jpeg_tool_found())
    );
    if let Some(made) = dir.and_then(|dir| read(&dir.join(&key), &digest)) {
        return (made, true);
    }
    let made = make_one(path, bytes, &digest, config);
    if let Some(dir) = dir {
        // A failed cache write only costs a later re-encode.
        let _ = write(dir, &key, &made);
    }
    (made, false)
}

fn read(file: &Path, source: &[u8; 32]) -> Option<Made> {
    let data = std::fs::read(file).ok()?;
    let newline = data.iter().position(|&b| b == b'\n')?;
    let header: Header = serde_json::from_slice(&data[..newline]).ok()?;
    let mut rest = &data[newline + 1..];
    let mut take = |len: usize| -> Option<Vec<u8>> {
        let (bytes, after) = rest.split_at_checked(len)?;
        rest = after;
        Some(bytes.to_vec())
    };
    let optimised = match header.optimised {
        Some(len) => Some(take(len)?),
        None => None,
    };
    let mut variants = Vec::new();
    for (content_type, len, score) in header.variants {
        let content_type = match content_type.as_str() {
            "image/avif" => "image/avif",
            "image/webp" => "image/webp",
            _ => return None,
        };
        variants.push(MadeVariant {
            content_type,
            bytes: take(len)?,
            score,
        });
    }
    if !rest.is_empty() || digest_of(source, optimised.as_deref(), &variants) != header.digest {
        return None;
    }
    Some(Made {
        optimised,
        variants,
        report: header.report,
        digest: header.digest,
    })
}

fn write(dir: &Path, key: &str, made: &Made) -> std::io::Result<()> {
    let header = Header {
        report: made.report.clone(),
        optimised: made.optimised.as_ref().map(Vec::len),
        variants: made
            .variants
            .iter()
            .map(|v| (v.content_type.to_string(), v.bytes.len(), v.score))
            .collect(),
        digest: made.digest.clone(),
    };
    let mut data = serde_json::to_vec(&header).map_err(std::io::Error::other)?;
    data.push(b'\n');
    data.extend(made.optimised.iter().flatten());
    for variant in &made.variants {
        data.extend(&variant.bytes);
    }
    crate::atomic::write_atomically(dir, key, &data)
}
