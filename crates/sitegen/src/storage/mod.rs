//! The storage stage: how the assets are stored (`[compression] store`: every representation, or
//! compact storage's identity decoded on demand), which image variants are kept when not all
//! fit (`store = "auto"`), and whether the bundle fits its budget.

mod budget;
mod store;
mod variants;

pub(crate) use budget::bundle_bytes;

use crate::config::{BudgetConfig, CompressionConfig, Store};
use crate::error::Error;
use crate::model::{Assets, CODE_ESTIMATE_BYTES};
use crate::warning::{Warning, WarningKind};

/// Stores the assets as `[compression] store` says, then checks them against `[budget]`.
pub(crate) fn store(
    mut assets: Assets,
    compression: &CompressionConfig,
    budget: &BudgetConfig,
) -> Result<Assets, Error> {
    assets.store = store::apply(&mut assets.list, compression, budget, CODE_ESTIMATE_BYTES);
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
    let near = budget::warnings(&assets.list, budget);
    assets.notes.warnings.extend(near);
    Ok(assets)
}
