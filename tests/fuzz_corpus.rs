//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/*`) through the fuzz targets' own
//! checks (`fuzz/src/lib.rs`), so every input libFuzzer ever kept (and the seeds) is tested in
//! `make test` without libFuzzer. `make fuzz` runs the targets themselves.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../fuzz/src/lib.rs"]
mod targets;

type Target = fn(&[u8]);

const TARGETS: [(&str, Target); 12] = [
    ("path", targets::path),
    ("entity_tags", targets::entity_tags),
    ("accept", targets::accept),
    ("accept_encoding", targets::accept_encoding),
    ("range", targets::range),
    ("http_date", targets::http_date),
    ("decide", targets::decide),
    ("available_dictionary", targets::available_dictionary),
    ("headers_file", targets::headers_file),
    ("redirects_file", targets::redirects_file),
    ("html_references", targets::html_references),
    ("css_references", targets::css_references),
];

#[test]
fn every_corpus_input_passes_its_targets_checks() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/corpus");
    for (name, target) in TARGETS {
        let dir = std::path::Path::new(root).join(name);
        let mut inputs = 0;
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            if let Err(panic) = std::panic::catch_unwind(|| target(&data)) {
                panic!("{name}: {} fails: {panic:?}", path.display());
            }
            inputs += 1;
        }
        assert!(inputs >= 4, "{name}: only {inputs} corpus inputs");
    }
}

#[test]
fn the_fuzz_sites_rule_index_is_keyed_as_sitegen_keys_it() {
    // fuzz/src/lib.rs writes its trie by hand; a wrong key would only make rules unreachable.
    for node in targets::SITE.rule_index {
        let keys: Vec<u32> = node
            .children
            .iter()
            .map(|(s, _)| edgesite_core::segment_key(s))
            .collect();
        assert_eq!(node.keys, keys.as_slice());
        assert!(node.keys.windows(2).all(|w| w[0] <= w[1]));
    }
}
