//! Image variants when the bundle does not fit (`store = "auto"`): originals are always kept
//! (every client can show them); variants are left out, those that save the fewest bytes first,
//! until the bundle fits.

use super::budget::bundle_bytes;
use crate::model::{Asset, Tier};

/// What was left out.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct LeftOut {
    pub(super) count: usize,
    pub(super) bytes: u64,
}

/// Leaves variants out of `files` until the bundle is at most `limit` bytes (or none is left).
pub(super) fn fit(files: &mut [Asset], limit: u64) -> LeftOut {
    let mut total = bundle_bytes(files);
    let mut left_out = LeftOut::default();
    if total <= limit {
        return left_out;
    }
    // (savings, file, variant's content type), fewest savings first.
    let mut by_savings: Vec<(u64, usize, &'static str)> = files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.tier == Tier::Bundle)
        .flat_map(|(i, f)| {
            f.variants.iter().map(move |v| {
                (
                    f.size.saturating_sub(v.representation.size),
                    i,
                    v.content_type,
                )
            })
        })
        .collect();
    by_savings.sort();
    for (_, i, content_type) in by_savings {
        if total <= limit {
            break;
        }
        let file = &mut files[i];
        let Some(at) = file
            .variants
            .iter()
            .position(|v| v.content_type == content_type)
        else {
            continue;
        };
        let variant = file.variants.remove(at);
        total -= variant.representation.size;
        left_out.count += 1;
        left_out.bytes += variant.representation.size;
        if let Some(row) = file.image.as_mut().and_then(|report| {
            report
                .candidates
                .iter_mut()
                .find(|c| c.kept && c.bytes == variant.representation.size)
        }) {
            row.kept = false;
            row.why = "left out: the bundle would be over its budget".into();
        }
    }
    left_out
}
