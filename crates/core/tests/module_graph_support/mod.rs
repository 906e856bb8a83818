//! Reading a crate's module graph from its sources, and the check that it has no cycle: shared
//! by edgesite-core's `tests/module_graph.rs` and edgesite-sitegen's (which includes this file).
//! Each `use crate::x` is an edge; a top-level module (a file, or a folder with its files) is a
//! node.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The code of `text` without its `#[cfg(test)] mod tests` and its comments (doc links name
/// modules too).
fn code(text: &str) -> String {
    text.split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default()
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules `text` names as `crate::x`.
fn imports(text: &str) -> BTreeSet<String> {
    let code = code(text);
    code.match_indices("crate::")
        .filter_map(|(i, _)| {
            let module: String = code[i + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            (!module.is_empty()).then_some(module)
        })
        .collect()
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `module -> modules it imports` for the crate whose sources are in `src`.
pub(crate) fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let module = Path::new(first)
            .file_stem()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let edges = graph.entry(module.clone()).or_default();
        edges.extend(imports(&text).into_iter().filter(|m| *m != module));
    }
    graph
}

/// Panics naming the cycle if `graph` has one (a depth-first search for a back edge).
pub(crate) fn assert_no_cycle(graph: &BTreeMap<String, BTreeSet<String>>) {
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
        visit(node, graph, &mut Vec::new(), &mut done);
    }
}
