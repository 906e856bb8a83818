//! The deploy history (`history.rs`): what a deploy served, kept across builds for RFC 9842
//! deltas and skew protection; a real site compiled three times into a real folder.

use edgesite_sitegen::delta::{dcz, DCZ_MAGIC};
use edgesite_sitegen::history::History;
use edgesite_sitegen::{compile, Error, Manifest, Options};
use std::fs;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

/// Options that serve the files as written (`[optimize]` off): these tests compare what a deploy
/// kept and what its deltas are against with the files' own bytes.
fn as_written() -> Options {
    let mut options = Options::new(UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    options.config.optimize.html = false;
    options.config.optimize.css = false;
    options.config.optimize.js = false;
    options
}

fn build(site: &Path) -> Manifest {
    let options = as_written();
    compile(site, &options).unwrap()
}

fn sha_of<'a>(manifest: &'a Manifest, path: &str) -> &'a str {
    &manifest
        .files
        .iter()
        .find(|f| f.path == path)
        .unwrap()
        .sha256
}

fn body_count(dir: &Path) -> usize {
    fs::read_dir(dir.join("bodies")).unwrap().count()
}

#[test]
fn three_deploys_keep_two_share_bodies_and_drop_what_no_kept_deploy_served() {
    let site = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let history_dir = dir.path().join("history");
    // Both compress, so both are offered as dictionaries: their bodies are kept.
    let style = "body { color: red }\n".repeat(20);
    fs::write(site.path().join("style.css"), style).unwrap();
    let mut manifests = Vec::new();
    for version in 1..=3 {
        let script = format!("console.log('version {version}');\n").repeat(20);
        fs::write(site.path().join("app.js"), script).unwrap();
        let manifest = build(site.path());
        let mut history = History::open(&history_dir).unwrap();
        let recorded = history.record(&manifest, 2).unwrap();
        // app.js is new each time; style.css is written once, by the first deploy.
        assert_eq!(recorded.bodies_written, if version == 1 { 2 } else { 1 });
        assert_eq!(recorded.deploys, version.min(2));
        assert_eq!(recorded.bodies_removed, usize::from(version == 3));
        manifests.push(manifest);
    }
    // Two deploys kept, newest first; version 1's script is gone, the shared stylesheet stays.
    let history = History::open(&history_dir).unwrap();
    let ids: Vec<&str> = history
        .deploys
        .iter()
        .map(|d| d.build_id.as_str())
        .collect();
    assert_eq!(ids, [&manifests[2].build_id, &manifests[1].build_id]);
    assert_eq!(body_count(&history_dir), 3);
    let (v2, v3) = (
        sha_of(&manifests[1], "/app.js"),
        sha_of(&manifests[2], "/app.js"),
    );
    assert_eq!(history.versions("/app.js", v3), [v2]);
    assert!(history
        .versions("/style.css", sha_of(&manifests[2], "/style.css"))
        .is_empty());
    assert!(history.body(sha_of(&manifests[0], "/app.js")).is_none());
    // The kept body is the exact bytes served: a delta against it decodes (RFC 9842 §5.2).
    let old = history.body(v2).unwrap();
    assert_eq!(old, "console.log('version 2');\n".repeat(20).as_bytes());
    let new = fs::read(site.path().join("app.js")).unwrap();
    assert_eq!(dcz(&new, &old, 19).unwrap()[..8], DCZ_MAGIC);
    // Recording the same build again replaces its entry instead of adding one.
    let mut again = History::open(&history_dir).unwrap();
    assert_eq!(again.record(&manifests[2], 2).unwrap().deploys, 2);
}

/// Only the bodies a later build can read are kept: a file offered as a dictionary (deltas
/// against it) and one whose name may carry a hash (skew protection); not a page, an image or
/// a download, which no later build reads (a site's media would be copied at every deploy).
#[test]
fn only_bodies_a_later_build_reads_are_kept() {
    let site = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let script = "console.log('kept as a dictionary');\n".repeat(20);
    fs::write(site.path().join("app.js"), &script).unwrap();
    fs::write(
        site.path().join("index.html"),
        "<!doctype html><title>t</title>",
    )
    .unwrap();
    fs::write(site.path().join("talk.mp4"), vec![7u8; 4096]).unwrap();
    fs::write(site.path().join("release.zip"), vec![9u8; 4096]).unwrap();
    // A token of 8 characters may be a hash: kept, and checked when a build reads it.
    let named = "/logo.0123abcd.png";
    fs::write(site.path().join(&named[1..]), [1u8, 2, 3]).unwrap();
    let manifest = build(site.path());
    let recorded = History::open(dir.path())
        .unwrap()
        .record(&manifest, 3)
        .unwrap();
    let history = History::open(dir.path()).unwrap();
    let held = |path: &str| history.body_path(sha_of(&manifest, path)).exists();
    assert!(held("/app.js"), "a dictionary");
    assert!(held(named), "a name that may carry a hash");
    for path in ["/index.html", "/talk.mp4", "/release.zip"] {
        assert!(!held(path), "{path}");
    }
    assert_eq!(recorded.bodies_written, 2);
    // Every file of the deploy is named in the index, kept body or not.
    assert_eq!(history.deploys[0].files.len(), manifest.files.len());
}

#[test]
fn a_damaged_body_is_never_used_and_a_damaged_index_is_an_error_naming_its_line() {
    let site = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    fs::write(site.path().join("a.txt"), "served bytes\n").unwrap();
    let manifest = build(site.path());
    History::open(dir.path())
        .unwrap()
        .record(&manifest, 3)
        .unwrap();
    let sha = sha_of(&manifest, "/a.txt");
    fs::write(dir.path().join("bodies").join(sha), "other bytes\n").unwrap();
    assert!(History::open(dir.path()).unwrap().body(sha).is_none());

    fs::write(
        dir.path().join("deploys.json"),
        "{\n  \"deploys\": [\n    {\"build_id\": 7}\n  ]\n}\n",
    )
    .unwrap();
    let err = History::open(dir.path()).unwrap_err();
    assert!(matches!(err, Error::Config { line: 3, .. }), "{err}");
    assert!(err.to_string().contains("deploys.json"), "{err}");
    // No folder at all is a first deploy.
    assert!(History::open(&dir.path().join("none"))
        .unwrap()
        .deploys
        .is_empty());
}

/// A bundle of ~40 KB whose versions differ in one line.
fn bundle(version: u32) -> String {
    let mut lines: Vec<String> = (0..1000)
        .map(|i| format!("export const value{i} = {};", i * 7919 % 1009))
        .collect();
    lines[500] = format!("export const release = {version};");
    lines.join("\n")
}

/// `/assets/app.<first 10 hex of the SHA-256>.js`, as a bundler names it.
fn hashed_name(bytes: &str) -> String {
    let sha = <sha2::Sha256 as sha2::Digest>::digest(bytes.as_bytes());
    let hex: String = sha.iter().map(|b| format!("{b:02x}")).collect();
    format!("app.{}.js", &hex[..10])
}

#[test]
fn the_next_deploy_gets_deltas_keeps_the_old_hashed_file_and_offers_dictionaries() {
    let site = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let assets = site.path().join("assets");
    fs::create_dir(&assets).unwrap();
    let mut options = as_written();
    options.history_dir = Some(dir.path().to_path_buf());
    // Deploy 1: a hashed bundle and a plain script referenced with ?v= by the page.
    let (one, two) = (bundle(1), bundle(2));
    let old_name = hashed_name(&one);
    fs::write(assets.join(&old_name), &one).unwrap();
    fs::write(site.path().join("main.js"), bundle(10)).unwrap();
    let page = |version| {
        let comment = bundle(version);
        format!("<!doctype html><script src=\"/main.js\"></script>\n<!-- {comment} -->")
    };
    fs::write(site.path().join("index.html"), page(1)).unwrap();
    let first = compile(site.path(), &options).unwrap();
    assert!(
        first.files.iter().all(|f| f.deltas.is_empty()),
        "no history yet"
    );
    History::open(dir.path())
        .unwrap()
        .record(&first, 3)
        .unwrap();
    // Deploy 2: the bundle renamed by its new hash, the plain script edited.
    fs::remove_file(assets.join(&old_name)).unwrap();
    let new_name = hashed_name(&two);
    fs::write(assets.join(&new_name), &two).unwrap();
    fs::write(site.path().join("main.js"), bundle(11)).unwrap();
    fs::write(site.path().join("index.html"), page(2)).unwrap();
    let second = compile(site.path(), &options).unwrap();
    let file = |path: &str| second.files.iter().find(|f| f.path == path).unwrap();
    // RFC 9842 deltas: by name pattern for the renamed bundle, by path for main.js; each
    // against deploy 1's bytes, each far below br.
    for (path, old) in [
        (format!("/assets/{new_name}"), one.clone()),
        ("/main.js".to_string(), bundle(10)),
    ] {
        let f = file(&path);
        let br = f
            .representations
            .iter()
            .find(|v| v.coding.token() == "br")
            .unwrap();
        assert_eq!(f.deltas.len(), 2, "{path}: dcz and dcb");
        for delta in &f.deltas {
            assert_eq!(
                delta.dictionary,
                edgesite_sitegen::delta::dictionary_hash(old.as_bytes())
            );
            assert!(
                delta.representation.size * 10 < br.size,
                "{path}: {} vs br {}",
                delta.representation.size,
                br.size
            );
        }
    }
    // Skew protection: deploy 1's bundle is still served, immutable; it gets no deltas.
    let kept = file(&format!("/assets/{old_name}"));
    assert_eq!(kept.cache_control, "public, max-age=31536000, immutable");
    assert!(kept.deltas.is_empty());
    assert_eq!(second.stats.deltas.kept.files, 1);
    // Use-As-Dictionary (RFC 9842 §2.1): the pattern of the hashed name; main.js's own path.
    let offered = |path: &str| {
        file(path)
            .fields
            .iter()
            .find(|(n, _)| n == "use-as-dictionary")
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        offered(&format!("/assets/{new_name}")).as_deref(),
        Some("match=\"/assets/app.*.js\"")
    );
    assert_eq!(offered("/main.js").as_deref(), Some("match=\"/main.js\""));
    assert_eq!(offered("/index.html"), None);
    // The page changed too, but a browser never holds HTML (no-cache, not offered) as a
    // dictionary: a delta of it would be bytes no request selects.
    assert!(file("/index.html").deltas.is_empty());
}

#[test]
fn the_html_dictionary_is_trained_served_announced_and_each_page_gets_deltas_against_it() {
    // [history] html_dictionary (RFC 9842 §3.2 Link rel=compression-dictionary, §2.1
    // Use-As-Dictionary): pages of one template, so the dictionary has much to share.
    let site = tempfile::tempdir().unwrap();
    let nav: String = (0..40)
        .map(|i| format!("<li class=\"toctree-l1\"><a href=\"/page-{i}.html\">Chapter {i} of the guide</a></li>\n"))
        .collect();
    for i in 0..12 {
        let text: String = (0..30)
            .map(|j| {
                format!(
                    "<p>Paragraph {j} of chapter {i}: {}</p>\n",
                    "word ".repeat((i * 7 + j) % 11 + 3)
                )
            })
            .collect();
        let page = format!("<!doctype html><html><head><title>Chapter {i}</title></head><body><nav><ul>\n{nav}</ul></nav><main>{text}</main></body></html>\n");
        fs::write(site.path().join(format!("page-{i}.html")), page).unwrap();
    }
    let mut options = as_written();
    let off = compile(site.path(), &options).unwrap();
    assert!(off
        .files
        .iter()
        .all(|f| f.path != "/_edgesite/html.dict" && f.deltas.is_empty()));
    options.config.history.html_dictionary = true;
    let manifest = compile(site.path(), &options).unwrap();
    let dictionary = manifest
        .files
        .iter()
        .find(|f| f.path == edgesite_sitegen::HTML_DICTIONARY_PATH)
        .expect("the dictionary is served");
    // Made by the build and kept in memory: no file was written to be read back.
    let bytes = dictionary
        .source
        .made()
        .expect("bytes the build made")
        .to_vec();
    assert_eq!(dictionary.fingerprint, dictionary.sha256[..10]);
    let field = |file: &edgesite_sitegen::model::Asset, name: &str| {
        file.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        field(dictionary, "use-as-dictionary").as_deref(),
        Some("match=\"/*\"")
    );
    assert_eq!(manifest.stats.deltas.html_pages, 12);
    for page in manifest
        .files
        .iter()
        .filter(|f| f.content_type.starts_with("text/html"))
    {
        // After the page's Markdown twin (agents/), the dictionary.
        let twin = page.path.replace(".html", ".md");
        assert_eq!(
            field(page, "link"),
            Some(format!(
                "<{twin}>; rel=\"alternate\"; type=\"text/markdown\", \
                 </_edgesite/html.dict?v={}>; rel=\"compression-dictionary\"",
                dictionary.fingerprint
            ))
        );
        let br = page
            .representations
            .iter()
            .find(|v| v.coding.token() == "br")
            .unwrap();
        assert!(!page.deltas.is_empty(), "{}", page.path);
        for delta in &page.deltas {
            assert_eq!(
                delta.dictionary,
                edgesite_sitegen::delta::dictionary_hash(&bytes)
            );
            assert!(
                delta.representation.size < br.size,
                "{}: {} br {}",
                page.path,
                delta.representation.size,
                br.size
            );
        }
        // The smallest decodes, with the dictionary, to the page (RFC 9842 §5).
        let smallest = page
            .deltas
            .iter()
            .min_by_key(|d| d.representation.size)
            .unwrap();
        let body = smallest.representation.bytes.as_ref().unwrap();
        let decoded = if smallest.representation.coding.token() == "dcz" {
            zstd::bulk::Decompressor::with_dictionary(&bytes)
                .unwrap()
                .decompress(&body[40..], 1 << 20)
                .unwrap()
        } else {
            let mut out = Vec::new();
            let dict = bytes.clone().into();
            let mut reader = brotli::Decompressor::new_with_custom_dict(&body[36..], 4096, dict);
            std::io::Read::read_to_end(&mut reader, &mut out).unwrap();
            out
        };
        // The bytes served: the link pass's (its links name the pages' own URLs), or the source.
        let served = page.identity_bytes().map(<[u8]>::to_vec);
        assert_eq!(
            decoded,
            served.unwrap_or_else(|| page.source.read().unwrap().into_owned())
        );
    }
}

/// Every file and its bytes under `dir`, to compare a folder before and after.
fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut all = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(folder) = todo.pop() {
        for entry in fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path.clone());
                all.push((path, Vec::new()));
            } else {
                let bytes = fs::read(&path).unwrap();
                all.push((path, bytes));
            }
        }
    }
    all.sort();
    all
}

/// A build stages its deploy beside the history and leaves the history as it was; the
/// commit (after the upload succeeded) records it as `record` would, and removes the stage.
#[test]
fn a_staged_deploy_changes_nothing_until_it_is_committed() {
    use edgesite_sitegen::history::{commit, stage};
    let site = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (history_dir, staged) = (dir.path().join("history"), dir.path().join("staged"));
    fs::write(site.path().join("app.js"), "console.log(1);\n".repeat(30)).unwrap();
    let first = build(site.path());
    History::open(&history_dir)
        .unwrap()
        .record(&first, 3)
        .unwrap();
    let before = snapshot(&history_dir);
    fs::write(site.path().join("app.js"), "console.log(2);\n".repeat(30)).unwrap();
    let second = build(site.path());
    stage(&second, &history_dir, 3, &staged).unwrap();
    assert_eq!(
        snapshot(&history_dir),
        before,
        "staging touches no file of the history"
    );
    // Only the body the history lacks is staged.
    assert_eq!(fs::read_dir(staged.join("bodies")).unwrap().count(), 1);
    // A staged body that does not match its name is refused, and nothing is recorded.
    let body = fs::read_dir(staged.join("bodies"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let good = fs::read(&body).unwrap();
    fs::write(&body, b"tampered").unwrap();
    let err = commit(&staged).unwrap_err();
    assert!(err.to_string().contains("do not match"), "{err}");
    assert_eq!(snapshot(&history_dir), before);
    fs::write(&body, good).unwrap();
    let (into, build_id, recorded) = commit(&staged).unwrap().expect("a stage");
    assert_eq!(
        (build_id.as_str(), recorded.deploys),
        (second.build_id.as_str(), 2)
    );
    assert_eq!(into, std::path::absolute(&history_dir).unwrap());
    assert!(!staged.exists(), "the stage is gone once recorded");
    let history = History::open(&history_dir).unwrap();
    assert_eq!(history.deploys[0].build_id, second.build_id);
    assert!(history.body(sha_of(&second, "/app.js")).is_some());
    // Nothing staged: nothing to do.
    assert!(commit(&staged).unwrap().is_none());
}
