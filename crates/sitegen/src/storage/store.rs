//! Which representations are stored (`[compression] store`): everything (`full`), or for
//! compressible files with gzip only the encoded forms (`compact`: br and gzip, not zstd, not
//! identity),
//! or `full` unless that would not fit the bundle budget (`auto`, the default).
//!
//! In compact storage the identity representation still exists with its own strong ETag and
//! length, computed here from the original bytes; its content is
//! [`edgesite_core::Content::Decoded`] from the stored gzip, which the runtimes decode on demand
//! for a client that accepts neither br nor gzip. Decoding is only from gzip (edgesite-decode
//! says why): a file stored without gzip keeps its identity.

use crate::config::{BudgetConfig, CompressionConfig, Store};
use crate::model::{kept_in_compact, Asset, StoreChoice, Tier};
use edgesite_core::ContentCoding;

/// Applies `config.store` to every file; `Auto` picks compact when full storage of `files`
/// plus `code_bytes` would exceed the budget.
pub(super) fn apply(
    files: &mut [Asset],
    config: &CompressionConfig,
    budget: &BudgetConfig,
    code_bytes: u64,
) -> StoreChoice {
    // The store's files are stored in full; the bundle's are what the choice is about.
    let bundle = || files.iter().filter(|f| f.tier == Tier::Bundle);
    let full: u64 = bundle().map(Asset::stored_bytes).sum::<u64>() + code_bytes;
    let compact: u64 = bundle().map(Asset::compact_bytes).sum::<u64>() + code_bytes;
    let (store, reason) = match config.store {
        Store::Full => (Store::Full, format!("store = \"full\": {full} bytes")),
        Store::Compact => (
            Store::Compact,
            format!("store = \"compact\": {compact} bytes (full would be {full})"),
        ),
        Store::Auto if full <= budget.max_bundle_bytes => (
            Store::Full,
            format!("store = \"auto\": full, {full} bytes, fits the {}-byte budget", budget.max_bundle_bytes),
        ),
        Store::Auto => (
            Store::Compact,
            format!(
                "store = \"auto\": compact ({compact} bytes; identity decoded on demand), since full would be {full} bytes, over the {}-byte budget",
                budget.max_bundle_bytes
            ),
        ),
    };
    if store == Store::Compact {
        files
            .iter_mut()
            .filter(|f| f.tier == Tier::Bundle)
            .for_each(make_compact);
    }
    StoreChoice { store, reason }
}

/// Keeps identity (as decoded) and the br and gzip representations of `file`, when it has gzip
/// to decode from (and is small enough: [`Asset::compact_source`]).
fn make_compact(file: &mut Asset) {
    if file.compact_source().is_none() {
        return;
    }
    file.representations
        .retain(|v| v.coding == ContentCoding::Identity || kept_in_compact(v.coding));
    let source = file.compact_source();
    if let Some(identity) = file
        .representations
        .iter_mut()
        .find(|v| v.coding == ContentCoding::Identity)
    {
        identity.decoded_from = source;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CacheReason;
    use crate::model::Representation;
    use std::path::PathBuf;

    fn representation(coding: ContentCoding, size: u64) -> Representation {
        Representation {
            coding,
            size,
            sha256: String::new(),
            etag: format!("\"{}\"", coding.token()),
            bytes: None,
            decoded_from: None,
        }
    }

    fn file(codings: &[(ContentCoding, u64)]) -> Asset {
        Asset {
            path: "/a.html".into(),
            source: crate::model::Source::File(PathBuf::from("a.html")),
            content_type: "text/html; charset=utf-8",
            cache_control: "no-cache".into(),
            cache_reason: CacheReason::Html,
            fields: Vec::new(),
            size: codings[0].1,
            sha256: String::new(),
            fingerprint: String::new(),
            rewritten: None,
            integrity: String::new(),
            etag: String::new(),
            representations: codings.iter().map(|&(c, n)| representation(c, n)).collect(),
            deltas: Vec::new(),
            variants: Vec::new(),
            image: None,
            tier: Tier::Bundle,
            alternate: None,
        }
    }

    #[test]
    fn compact_keeps_br_and_gzip_and_decodes_identity_from_gzip() {
        use ContentCoding::{Br, Gzip, Identity, Zstd};
        let mut files = [
            file(&[(Identity, 1000), (Br, 200), (Zstd, 250), (Gzip, 300)]),
            file(&[(Identity, 1000), (Br, 200)]),
            file(&[(Identity, 5000)]),
            file(&[(Identity, 1000), (Zstd, 250)]),
        ];
        let budget = BudgetConfig {
            max_bundle_bytes: 8000,
            ..BudgetConfig::default()
        };
        let config = CompressionConfig::default();
        // Full: 1750 + 1200 + 5000 + 1250 = 9200 > 8000, so auto picks compact.
        let choice = apply(&mut files, &config, &budget, 0);
        assert_eq!(choice.store, Store::Compact, "{}", choice.reason);
        assert!(choice.reason.contains("9200"), "{}", choice.reason);
        let codings = |f: &Asset| {
            f.representations
                .iter()
                .map(|v| v.coding)
                .collect::<Vec<_>>()
        };
        assert_eq!(codings(&files[0]), [Identity, Br, Gzip]);
        assert_eq!(files[0].representations[0].decoded_from, Some(2));
        assert_eq!(
            files[1].representations[0].decoded_from, None,
            "no gzip: identity stays"
        );
        assert_eq!(codings(&files[1]), [Identity, Br]);
        assert_eq!(
            files[2].representations[0].decoded_from, None,
            "nothing to decode"
        );
        assert_eq!(codings(&files[3]), [Identity, Zstd], "zstd alone: kept");
        assert_eq!(
            files.iter().map(Asset::stored_bytes).sum::<u64>(),
            500 + 1200 + 5000 + 1250
        );
    }

    /// A file larger than half the runtimes' decoded cache could be decoded out by another for
    /// every request without Accept-Encoding: compact storage keeps it as it is.
    #[test]
    fn a_file_larger_than_half_the_decoded_cache_keeps_its_identity() {
        use ContentCoding::{Br, Gzip, Identity};
        let large = edgesite_core::DECODED_CACHE_BYTES as u64 / 2 + 1;
        let mut files = [
            file(&[(Identity, large), (Br, 1000), (Gzip, 2000)]),
            file(&[(Identity, 1000), (Br, 200), (Gzip, 300)]),
        ];
        let config = CompressionConfig {
            store: Store::Compact,
            ..CompressionConfig::default()
        };
        apply(&mut files, &config, &BudgetConfig::default(), 0);
        assert_eq!(files[0].representations[0].decoded_from, None);
        assert_eq!(files[0].representations.len(), 3, "stored as it is");
        assert_eq!(files[1].representations[0].decoded_from, Some(2));
    }

    #[test]
    fn auto_stays_full_when_full_fits() {
        let mut files = [file(&[
            (ContentCoding::Identity, 1000),
            (ContentCoding::Br, 200),
        ])];
        let choice = apply(
            &mut files,
            &CompressionConfig::default(),
            &BudgetConfig::default(),
            0,
        );
        assert_eq!(choice.store, Store::Full);
        assert_eq!(files[0].representations[0].decoded_from, None);
    }
}
