//! The sixth stage: how the assets are stored (`[compression] store`: every representation, or
//! compact storage's identity decoded on demand), which image variants are kept when not all
//! fit (`store = "auto"`), and whether the bundle fits its budget.

mod budget;
mod store;
mod variants;

pub use budget::{bundle_bytes, warnings};

use crate::config::Store;
use crate::error::Error;
use crate::model::{Assets, Options, CODE_ESTIMATE_BYTES};

/// Stores the assets as `[compression] store` says, then checks the budget.
pub(crate) fn store(mut assets: Assets, options: &Options) -> Result<Assets, Error> {
    let config = &options.config;
    assets.store = store::apply(
        &mut assets.list,
        &config.compression,
        &config.budget,
        CODE_ESTIMATE_BYTES,
    );
    if config.compression.store == Store::Auto {
        let left_out = variants::fit(&mut assets.list, config.budget.max_bundle_bytes);
        if left_out.count > 0 {
            assets.warnings.push(format!(
                "left out {} image variants ({} bytes, the smallest savings first) to fit the \
                 {}-byte budget; their images are served in their own format",
                left_out.count, left_out.bytes, config.budget.max_bundle_bytes
            ));
        }
        assets.stats.images.left_out = left_out.count;
    }
    budget::check(&assets.list, &config.budget)?;
    Ok(assets)
}
