//! The sixth stage: how the assets are stored (`[compression] store`: every representation, or
//! compact storage's identity decoded on demand) and whether the bundle fits its budget.

mod budget;
mod store;

pub use budget::{bundle_bytes, warnings};

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
    budget::check(&assets.list, &config.budget)?;
    Ok(assets)
}
