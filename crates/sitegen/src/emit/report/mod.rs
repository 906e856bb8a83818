//! The build report, in the two forms a build writes beside the manifest: `report.txt`
//! ([`text`]: a row per file, the totals, the stages' times, the images; what `build.rs`
//! prints), and `report.html` ([`html`]: one self-contained page, the bundle as a treemap laid
//! out by [`treemap`], savings, the cache policy, links, deltas).

mod html;
mod text;
mod treemap;

use crate::model::Asset;

/// The smallest stored representation of `file`.
fn smallest(file: &Asset) -> u64 {
    file.representations
        .iter()
        .map(|v| v.size)
        .min()
        .unwrap_or(file.size)
}
