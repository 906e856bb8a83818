//! The core's modules form no import cycle: each `use crate::x` is an edge, and the graph of
//! `src/*.rs` has no circle (decide → render → response, never back). A cycle is two files
//! that are one idea split badly.

use std::collections::{BTreeMap, BTreeSet};

/// `module -> modules it imports`, read from the sources.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph = BTreeMap::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        if name == "lib" || name == "tests" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // Only the module's code: not its `#[cfg(test)] mod tests`, not doc links.
        let code: String = text
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap()
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let imports = code
            .match_indices("crate::")
            .filter_map(|(i, _)| {
                let rest = &code[i + "crate::".len()..];
                let module: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                (!module.is_empty() && module != name).then_some(module)
            })
            .collect();
        graph.insert(name, imports);
    }
    graph
}

#[test]
fn core_modules_have_no_import_cycle() {
    let graph = graph();
    assert!(graph.contains_key("decision") && graph.contains_key("render"));
    // Depth-first search for a back edge.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) {
        if done.contains(node) {
            return;
        }
        if let Some(at) = path.iter().position(|n| n == node) {
            panic!("import cycle: {} -> {node}", path[at..].join(" -> "));
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            visit(next, graph, path, done);
        }
        path.pop();
        done.insert(node.to_string());
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        visit(node, &graph, &mut Vec::new(), &mut done);
    }
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
