//! Reading a crate's module graph from its sources, and the check that it has no cycle: shared
//! by edgesite-core's `tests/module_graph.rs` and edgesite-sitegen's (which includes this file).
//! Each module a `crate::` path names is an edge (every form: `crate::x::Y`, `crate::{x::Y, z}`,
//! nested groups), and so is an import through the crate root (`crate::Type`, `crate::{Type}`:
//! an edge to [`ROOT`]); a top-level module (a file, or a folder with its files) is a node.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The code of `text` without its inline `#[cfg(test)] mod tests { .. }` (the last item of a
/// file, by the project's convention) and its comments (doc links name modules too): block
/// comments, and a line from its first `//` outside a string literal.
fn code(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    let text = text
        .split("#[cfg(test)]\nmod tests {")
        .next()
        .unwrap_or_default();
    without_block_comments(text)
        .lines()
        .map(without_comment)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` without its `/* .. */` comments (nested ones too; none is looked for in strings).
fn without_block_comments(text: &str) -> String {
    let (mut out, mut depth, mut rest) = (String::new(), 0usize, text);
    while !rest.is_empty() {
        if rest.starts_with("/*") {
            depth += 1;
            rest = &rest[2..];
        } else if depth > 0 && rest.starts_with("*/") {
            depth -= 1;
            rest = &rest[2..];
        } else {
            let c = rest.chars().next().unwrap_or_default();
            if depth == 0 {
                out.push(c);
            }
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// `line` up to its first `//` outside a string literal.
fn without_comment(line: &str) -> &str {
    let mut in_string = false;
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            // Not an escaped quote, nor the char literal '"'.
            b'"' if i == 0
                || !matches!(
                    (bytes[i - 1], bytes.get(i + 1)),
                    (b'\\', _) | (b'\'', Some(b'\''))
                ) =>
            {
                in_string = !in_string;
            }
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// The name every import through the crate root is an edge to: `crate::Type`, a re-export
/// (`crate::{Route, model::Asset}` names it for `Route`), anything at the root that is not a
/// module.
pub(crate) const ROOT: &str = "lib";

/// The modules the code of `text` names in `crate::` paths, in every form: `crate::x::Y`,
/// `crate::{x::Y, z}`, nested groups; an item of the crate root (`crate::Type`,
/// `crate::{Type}`, `crate::function`) is an edge to [`ROOT`]. `modules` are the crate's
/// top-level modules. A macro's `$crate::` is the crate as its users see it, not an import.
fn imports(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code = code(text);
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let prefix = &code[..at];
        let in_word = prefix
            .chars()
            .next_back()
            .is_some_and(|c| c == '$' || c == '_' || c.is_alphanumeric());
        if in_word {
            continue;
        }
        for first in first_segments(&code[at + "crate::".len()..]) {
            let module = match modules.contains(&first) {
                true => first,
                false => ROOT.to_string(),
            };
            out.insert(module);
        }
    }
    out
}

/// The first segment of every path the use tree at the start of `tree` names: `model` for
/// `model::Asset`, `model` and `Route` for `{model::{Asset, Route as R}, Route}`.
fn first_segments(tree: &str) -> Vec<String> {
    let tree = tree.trim_start();
    let Some(group) = tree.strip_prefix('{') else {
        let name: String = tree
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        return match name.as_str() {
            // `crate::*`: everything at the root, an import through it.
            "" if tree.starts_with('*') => vec!["*".to_string()],
            "" | "self" => Vec::new(),
            _ => vec![name],
        };
    };
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.into_iter().flat_map(first_segments).collect()
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
    // A module's out-of-line tests (`x/tests.rs`, declared `#[cfg(test)] mod tests;`) are not its
    // code; a top-level `tests.rs` stays a node of its own, for the caller to leave out.
    files.retain(|file| file.parent() == Some(src) || !file.ends_with("tests.rs"));
    let module_of = |file: &Path| {
        let relative = file.strip_prefix(src).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let stem = Path::new(first).file_stem().unwrap();
        stem.to_str().unwrap().to_string()
    };
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let module = module_of(&file);
        let text = std::fs::read_to_string(&file).unwrap();
        let edges = graph.entry(module.clone()).or_default();
        edges.extend(
            imports(&text, &modules)
                .into_iter()
                .filter(|m| *m != module),
        );
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

/// Panics naming every module of `graph` but `allowed` that imports through the crate root: a
/// module imports a thing from the module that defines it; the root's `pub use` list is for the
/// crate's users.
pub(crate) fn assert_no_import_through_the_root(
    graph: &BTreeMap<String, BTreeSet<String>>,
    allowed: &[&str],
) {
    let through_root: Vec<&String> = graph
        .iter()
        .filter(|(module, imports)| !allowed.contains(&module.as_str()) && imports.contains(ROOT))
        .map(|(module, _)| module)
        .collect();
    assert!(
        through_root.is_empty(),
        "{through_root:?} import through the crate root (`crate::Type` or `crate::{{Type}}`): \
         import each thing from the module that defines it"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modules() -> BTreeSet<String> {
        ["model", "config", "routing"].map(String::from).into()
    }

    #[test]
    fn every_form_of_a_crate_path_is_read() {
        let text = "use crate::model::Asset;\nuse crate::{config::{A, B}, routing};\n\
                    use crate::{Route, RouteTarget};\nfn f() { crate::last_modified(); }\n\
                    // crate::{Nothing}: a comment\nlet s = \"//\"; let t = crate::model::X;\n\
                    macro_rules! m { () => { $crate::Site } }";
        let edges: Vec<String> = imports(text, &modules()).into_iter().collect();
        assert_eq!(edges, ["config", "lib", "model", "routing"]);
        let only_root = imports("use crate::{Route, nested::{deep::X}};", &modules());
        assert_eq!(only_root.into_iter().collect::<Vec<_>>(), ["lib"]);
        let glob = imports("use crate::*;\nuse crate::config::{*};", &modules());
        assert_eq!(glob.into_iter().collect::<Vec<_>>(), ["config", "lib"]);
    }

    #[test]
    fn comments_and_test_modules_are_not_code() {
        let text = "/* crate::{Route}\n /* nested */ crate::Type */ use crate::model::A;\n\
                    #[cfg(test)]\nmod tests;\nuse crate::config::B;\n\
                    #[cfg(test)]\nmod tests {\n    use crate::{Route};\n}\n";
        let edges: Vec<String> = imports(text, &modules()).into_iter().collect();
        assert_eq!(edges, ["config", "model"]);
    }
}
