//! sitegen's modules form a pipeline (docs/design.md): a model and the foundations every stage
//! may use at the bottom, then the stages in order, then what a `build.rs` calls. Each module a
//! `crate::` path names is an edge (every form: `crate::x::Y`, `crate::{x::Y, z}`, nested
//! groups), read from the sources (a folder is one module), and an import through the crate
//! root (`crate::Type`, a re-export of lib.rs) is an edge to `lib`:
//!
//! * no module imports through the crate root: it names the module that defines the thing (the
//!   root's re-exports are the crate's API, for its users), so the drawing shows the real
//!   neighbours and lib.rs stays the wiring above the stages;
//! * no import cycle: two modules that import each other are one idea split badly;
//! * a stage imports no later stage (the one after it takes its output, never the reverse);
//! * the model and the foundations import no stage.

#[path = "../../core/tests/module_graph_support/mod.rs"]
mod module_graph_support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The stages, in the order `compile` runs them.
const STAGES: [&str; 12] = [
    "sources",
    "optimize",
    "routing",
    "speculation",
    "agents",
    "images",
    "links",
    "encode",
    "delta",
    "storage",
    "fields",
    "emit",
];

/// Above the stages: they call `compile` and write what it made, or (`fuzzing`) call into the
/// stages' parsers for the fuzz targets.
const TOP: [&str; 3] = ["lib", "build_script", "fuzzing"];

/// `module -> modules it imports`, a top-level module (file or folder) per node.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    module_graph_support::graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

fn stage(module: &str) -> Option<usize> {
    STAGES.iter().position(|s| *s == module)
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let graph = graph();
    assert!(STAGES.iter().all(|s| graph.contains_key(*s)), "{graph:?}");
    module_graph_support::assert_no_cycle(&graph);
}

#[test]
fn no_module_imports_through_the_crate_root() {
    // `build_script` and `fuzzing` use the crate as its users do.
    module_graph_support::assert_no_import_through_the_root(&graph(), &TOP);
}

#[test]
fn no_stage_imports_a_later_one() {
    for (module, imports) in graph() {
        let Some(at) = stage(&module) else { continue };
        for import in &imports {
            if let Some(later) = stage(import).filter(|&s| s > at) {
                panic!("the stage {module} imports {import}, a later stage ({at} < {later})");
            }
        }
    }
}

#[test]
fn the_model_and_the_foundations_import_no_stage_and_nothing_imports_the_top() {
    for (module, imports) in graph() {
        if TOP.contains(&module.as_str()) {
            continue;
        }
        for import in &imports {
            assert!(
                !TOP.contains(&import.as_str()),
                "{module} imports {import}, which is above the stages"
            );
            if stage(&module).is_none() {
                assert!(
                    stage(import).is_none(),
                    "{module} (below the stages) imports the stage {import}"
                );
            }
        }
    }
}
