//! The storage stage: where each file is kept (`[storage]`: the Worker's bundle, or the store),
//! how the bundle's files are stored (`[compression] store`: every representation, or compact
//! storage's identity decoded on demand), which image variants the bundle keeps when not all
//! fit (`store = "auto"` with `[storage] tier = "bundle"`), and whether the bundle and the store
//! fit their limits.

mod budget;
mod store;
mod tiers;
mod variants;

pub(crate) use budget::{
    bundle_bytes, bundle_warning, check_written, code_bytes, worker_bytes, written_warnings,
    WorkerBytes, DECODED_LEAST_PER_FILE,
};
pub(crate) use tiers::held;

use crate::config::{Config, Store};
use crate::error::Error;
use crate::model::Assets;
use crate::warning::{Warning, WarningKind};

/// Places the assets in their tiers, stores the bundle's as `[compression] store` says, then
/// checks both tiers against their limits.
pub(crate) fn store(mut assets: Assets, config: &Config) -> Result<Assets, Error> {
    let (compression, budget) = (&config.compression, &config.budget);
    let code = budget::code_bytes(&assets.list);
    let room = budget.max_bundle_bytes.saturating_sub(code);
    tiers::place(
        &mut assets.list,
        &config.storage,
        room,
        budget.max_file_bytes,
    );
    assets.store = store::apply(&mut assets.list, compression, budget, code);
    if compression.store == Store::Auto {
        let left_out = variants::fit(&mut assets.list, budget.max_bundle_bytes);
        if left_out.count > 0 {
            let message = format!(
                "left out {} image variants ({} bytes, the smallest savings first) to fit the \
                 {}-byte budget; their images are served in their own format",
                left_out.count, left_out.bytes, budget.max_bundle_bytes
            );
            let warning = Warning::new(WarningKind::VariantsLeftOut, message);
            assets.notes.warnings.push(warning);
        }
        assets.stats.images.left_out = left_out.count;
    }
    budget::check(&assets.list, budget)?;
    // The files near their own limit (the bundle's estimate is warned of with the fields in
    // place: `crate::emit::manifest`).
    let near = budget::file_warnings(&assets.list, budget);
    assets.notes.warnings.extend(near);
    let near = tiers::check(&assets.list, &config.storage)?;
    assets.notes.warnings.extend(near);
    Ok(assets)
}
