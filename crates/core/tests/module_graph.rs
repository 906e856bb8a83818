//! The core's modules form no import cycle: each module a `crate::` path names is an edge, and
//! the graph of `src/*.rs` has no circle (decide → render → response, never back). A cycle is
//! two files that are one idea split badly. And no module imports through the crate root: each
//! names the module that defines what it uses.

mod module_graph_support;

use std::collections::{BTreeMap, BTreeSet};

/// `module -> modules it imports`, read from the sources (without `lib`, which declares them,
/// and `tests`, which uses them all).
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph = module_graph_support::graph(&src);
    graph.remove("lib");
    graph.remove("tests");
    graph
}

#[test]
fn core_modules_have_no_import_cycle() {
    let graph = graph();
    assert!(graph.contains_key("decision") && graph.contains_key("render"));
    module_graph_support::assert_no_cycle(&graph);
}

#[test]
fn no_core_module_imports_through_the_crate_root() {
    let graph =
        module_graph_support::graph(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    // `tests` uses the crate as its users do.
    module_graph_support::assert_no_import_through_the_root(&graph, &["lib", "tests"]);
}

#[test]
fn rendering_never_sees_the_request() {
    // render.rs turns a Decision into a Response: it must not import the request.
    assert!(
        !graph()["render"].contains("request"),
        "render imports the request"
    );
    // And deciding does not render.
    assert!(!graph()["decision"].contains("render"));
    assert!(!graph()["decision"].contains("response"));
}
