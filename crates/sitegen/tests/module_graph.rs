//! sitegen's modules form a pipeline (docs/design.md): a model and the foundations every stage
//! may use at the bottom, then the stages in order, then what a `build.rs` calls. Each `use
//! crate::x` is an edge, read from the sources (a folder is one module):
//!
//! * no import cycle: two modules that import each other are one idea split badly;
//! * a stage imports no later stage (the one after it takes its output, never the reverse);
//! * the model and the foundations import no stage.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The stages, in the order `compile` runs them.
const STAGES: [&str; 8] = [
    "sources", "routing", "links", "encode", "delta", "storage", "fields", "emit",
];

/// Above the stages: they call `compile` and write what it made.
const TOP: [&str; 2] = ["lib", "build_script"];

/// The code of `text` without its `#[cfg(test)] mod tests` and its comments.
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
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `module -> modules it imports`, a top-level module (file or folder) per node.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
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

fn stage(module: &str) -> Option<usize> {
    STAGES.iter().position(|s| *s == module)
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let graph = graph();
    assert!(STAGES.iter().all(|s| graph.contains_key(*s)), "{graph:?}");
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
