//! `cargo xtask build-worker [--package NAME] [--entry TEMPLATE] [OUT]` (through
//! `scripts/build-worker.sh`, which puts the toolchain on PATH first): builds a Worker into OUT
//! (default `build/`). Without options, edgesite's own Worker (package `edgesite`, entry
//! `src/entry.js`): wrangler.toml's `[build]` command, and what `cargo xtask workerd build
//! CONFIG` runs for other configurations (EDGESITE_CONFIG, CARGO_TARGET_DIR).
//! examples/api-worker builds with its own package and entry. Paths are relative to the folder
//! it is run from (wrangler runs it from its config's folder).
//!
//! 1. cargo builds the package for wasm32 (profile `worker`); build.rs compiles the site; a
//!    Worker that keeps the site's bytes outside the module gets blobs
//!    (`$OUT_DIR/worker/site-N.bin`, found through cargo's build-script-executed message);
//! 2. wasm-bindgen (the pinned CLI) writes the JS glue and snippets (`--target bundler`);
//! 3. wasm-opt -Os shrinks the module;
//! 4. the entry, OUT/worker.mjs, is the template with the snippets', blobs' and tables' imports
//!    filled in; the blobs and the tables (`$OUT_DIR/tables.bin`, when the build wrote them: the
//!    module does not hold them) are copied to OUT/site/ (wrangler.toml's `[[rules]]` makes them
//!    data modules), the store's objects (`$OUT_DIR/store`) to OUT/assets/ (wrangler.toml's
//!    `[assets]`: uploaded as Static Assets, read by the Worker through its ASSETS binding), but
//!    for R2's (`_edgesite/r/`), which go to OUT/r2/ (put in the bucket by scripts/r2-put.mjs);
//! 5. under `make dev` (EDGESITE_R2_BUCKET and EDGESITE_R2_PERSIST set), the R2 objects are put
//!    in wrangler dev's local R2 (scripts/r2-put.mjs: only those it does not hold).
//!
//! Steps 2-4 are skipped when the module, the blobs, the tables, the template and this builder
//! are those of OUT's last build (a stamp in OUT): wrangler dev runs this on every start and
//! every change it watches. Steps 2-3 alone are skipped when the module is that of OUT's last
//! build (a site changed, not the code: OUT/.edgesite-module holds the module's hash, with the
//! tools').

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};

use crate::run::run_to;

mod names;

/// This builder's own text: a change to it rebuilds what it made.
const BUILDER: &str = concat!(
    include_str!("build_worker.rs"),
    include_str!("build_worker/names.rs")
);

/// What cargo's messages say of the package's build: its wasm module and its build script's
/// output folder.
pub(crate) fn module_and_out_dir(
    messages: &str,
    package: &str,
) -> (Option<PathBuf>, Option<PathBuf>) {
    let (mut wasm, mut out_dir) = (None, None);
    let id = format!("#{package}@");
    for line in messages.lines() {
        let Ok(m) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if !m["package_id"].as_str().is_some_and(|p| p.contains(&id)) {
            continue;
        }
        match m["reason"].as_str() {
            Some("build-script-executed") => {
                out_dir = m[names::OUT_DIR].as_str().map(PathBuf::from);
            }
            Some("compiler-artifact") => {
                let files = m["filenames"].as_array().into_iter().flatten();
                if let Some(f) = files
                    .filter_map(|f| f.as_str())
                    .find(|f| f.ends_with(".wasm"))
                {
                    wasm = Some(PathBuf::from(f));
                }
            }
            _ => {}
        }
    }
    (wasm, out_dir)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn digest_of(path: &Path) -> Result<String, String> {
    Ok(hex(&Sha256::digest(read(path)?)))
}

/// The files under `dir` (relative paths) with their sizes.
pub(crate) fn listing(dir: &Path) -> HashMap<PathBuf, u64> {
    files_with(dir, |entry| entry.metadata().ok().map(|m| m.len()))
}

/// The files under `dir` (relative paths) with their inodes, which a folder's entries name:
/// [`listing`] without a stat per file.
fn inodes(dir: &Path) -> HashMap<PathBuf, u64> {
    use std::os::unix::fs::DirEntryExt;
    files_with(dir, |entry| Some(entry.ino()))
}

/// The files under `dir` (relative paths), each with what `value` says of its entry (one it
/// says nothing of is left out). Links are not followed.
fn files_with(
    dir: &Path,
    value: impl Fn(&fs::DirEntry) -> Option<u64> + Copy,
) -> HashMap<PathBuf, u64> {
    fn walk(
        base: &Path,
        dir: &Path,
        value: impl Fn(&fs::DirEntry) -> Option<u64> + Copy,
        out: &mut HashMap<PathBuf, u64>,
    ) {
        for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => walk(base, &path, value, out),
                Ok(_) => {
                    if let Some(v) = value(&entry) {
                        out.insert(path.strip_prefix(base).unwrap_or(&path).to_path_buf(), v);
                    }
                }
                Err(_) => {}
            }
        }
    }
    let mut out = HashMap::new();
    walk(dir, dir, value, &mut out);
    out
}

/// `to` comes to hold exactly `from`'s files: an object already there as a hard link of the
/// source's stays (objects are named by their bytes, and sitegen never writes one in place: it
/// renames new ones in); one that is another file of the same name and length (a copy, or a
/// link to an object since made again) stays too, linked to the source's where it can be so
/// that the next mirror knows it by its inode; others are removed, new ones hard-linked where
/// they can be, else copied. A rebuild of a site of many objects links the new ones, not all of
/// them again, and reads its folders' entries, not each object's metadata
/// (docs/benchmarks.md, "The rebuild, taken apart").
pub(crate) fn mirror(from: &Path, to: &Path) -> Result<(), String> {
    let err = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    fs::create_dir_all(from).map_err(|e| err(from, e))?;
    fs::create_dir_all(to).map_err(|e| err(to, e))?;
    let (have, want) = (inodes(to), inodes(from));
    let size = |p: &Path| fs::metadata(p).map(|m| m.len()).ok();
    // Same name, another inode, same length: kept, and linked below.
    let (mut kept, mut relink) = (std::collections::HashSet::new(), Vec::new());
    for (name, &had) in &have {
        match want.get(name) {
            Some(&inode) if inode == had => {}
            Some(_) if size(&to.join(name)).is_some_and(|s| size(&from.join(name)) == Some(s)) => {
                relink.push(name);
            }
            _ => {
                fs::remove_file(to.join(name)).map_err(|e| err(&to.join(name), e))?;
                continue;
            }
        }
        kept.insert(name);
    }
    // Until a link fails (the folders on two file systems): then the copies stay copies.
    let mut linking = true;
    for name in relink {
        let (source, target) = (from.join(name), to.join(name));
        let link = target.with_extension("edgesite-link");
        linking = linking && fs::hard_link(&source, &link).is_ok();
        if linking && fs::rename(&link, &target).is_err() {
            let _ = fs::remove_file(&link);
        }
    }
    for name in want.keys().filter(|name| !kept.contains(name)) {
        let (source, target) = (from.join(name), to.join(name));
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|e| err(parent, e))?;
        }
        if !linking || fs::hard_link(&source, &target).is_err() {
            linking = false;
            fs::copy(&source, &target).map_err(|e| err(&source, e))?;
        }
    }
    Ok(())
}

/// The entry: `template` with the snippets', blobs' and tables' imports filled in. An error when
/// the template and the build disagree on the tables.
fn entry(
    template: &str,
    snippets: &[String],
    blobs: &[String],
    tables: bool,
) -> Result<String, String> {
    let has_tables = template.lines().any(|l| l == "$TABLES_IMPORT");
    if has_tables && !tables {
        return Err(
            "build-worker: the entry imports the site's tables, and the build wrote none".into(),
        );
    }
    if tables && !has_tables {
        return Err(concat!(
            "build-worker: the build wrote the site's tables (site.rs has set_tables), ",
            "and the entry has no $TABLES_IMPORT to import them"
        )
        .into());
    }
    let each = |list: &[String], f: &dyn Fn(usize, &String) -> String| -> Vec<String> {
        list.iter().enumerate().map(|(i, s)| f(i, s)).collect()
    };
    let snippet_imports = each(snippets, &|i, p| {
        format!("import * as snippet{i} from \"{p}\";")
    });
    let snippet_wasm = each(snippets, &|i, p| format!("\"{p}\": snippet{i},\n\t"));
    let blob_imports = each(blobs, &|i, b| {
        format!("import blob{i} from \"./site/{b}\";")
    });
    let blob_list = each(blobs, &|i, _| format!("blob{i}"));
    let tables_line = "import tables from \"./site/tables.bin\";";
    let lines: Vec<&str> = template
        .lines()
        .map(|l| {
            if l == "$TABLES_IMPORT" {
                tables_line
            } else {
                l
            }
        })
        .collect();
    let mut text = lines.join("\n");
    if template.ends_with('\n') {
        text.push('\n');
    }
    Ok(text
        .replace("$SNIPPET_JS_IMPORTS", &snippet_imports.join("\n"))
        .replace("$SNIPPET_WASM_IMPORTS", &snippet_wasm.concat())
        .replace("$BLOB_IMPORTS", &blob_imports.join("\n"))
        .replace("$BLOB_LIST", &blob_list.join(", ")))
}

/// The options: package, entry template, output folder (absolute).
struct Options {
    package: String,
    entry: PathBuf,
    out: PathBuf,
}

fn options(root: &Path, args: &[String]) -> Result<Options, String> {
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let mut o = Options {
        package: "edgesite".into(),
        entry: root.join("src/entry.js"),
        out: cwd.join("build"),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--package" => o.package = args.next().ok_or("--package needs a name")?.clone(),
            "--entry" => o.entry = cwd.join(args.next().ok_or("--entry needs a file")?),
            a if a.starts_with('-') => {
                return Err(
                    "usage: cargo xtask build-worker [--package NAME] [--entry TEMPLATE] [OUT]"
                        .into(),
                )
            }
            a => o.out = cwd.join(a),
        }
    }
    Ok(o)
}

/// The version line of a tool (part of the module's hash).
fn version(tool: &str) -> String {
    Command::new(tool)
        .arg("--version")
        .stderr(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// The store's tiers: the folder of `$OUT_DIR/store/_edgesite` holding a tier's objects, and
/// the bundle's folder they go to (Static Assets' uploaded by wrangler, R2's put by
/// scripts/r2-put.mjs).
const TIERS: [(&str, &str); 2] = [("b/", "assets/_edgesite/b/"), ("r/", "r2/_edgesite/r/")];

/// What cargo built: the module, its build script's output folder, and what that holds.
struct Built {
    wasm: PathBuf,
    out_dir: PathBuf,
    /// The site's blobs (`$OUT_DIR/worker/`), in order.
    blobs: Vec<String>,
    /// `$OUT_DIR/tables.bin` when the module reads its tables from outside.
    tables: Option<PathBuf>,
    /// `$OUT_DIR/store/_edgesite`: the store's objects (`b/` Static Assets, `r/` R2).
    store: PathBuf,
}

/// Step 1: cargo builds the package for wasm32, as a cdylib (the root package is an rlib:
/// Cargo.toml says why); what it built, from its messages.
fn cargo_build(root: &Path, package: &str) -> Result<Built, String> {
    let output = Command::new("cargo")
        .current_dir(root)
        .args(["rustc", "--lib", "-p", package, "--profile", names::WORKER])
        .args([
            "--target",
            "wasm32-unknown-unknown",
            "--crate-type",
            "cdylib",
        ])
        .arg("--message-format=json-render-diagnostics")
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!("cargo rustc for wasm32 failed ({})", output.status));
    }
    let messages = String::from_utf8_lossy(&output.stdout);
    let (Some(wasm), Some(out_dir)) = module_and_out_dir(&messages, package) else {
        return Err("build-worker: no module or build output in cargo's output".into());
    };
    let blobs = fs::read_to_string(out_dir.join("worker/blobs.txt")).unwrap_or_default();
    let blobs = blobs.split_whitespace().map(String::from).collect();
    // A site compiled into the module as Rust (library mode) has no tables file, or an old one.
    let site_rs = fs::read_to_string(out_dir.join("site.rs")).unwrap_or_default();
    let tables = site_rs
        .lines()
        .any(|l| l.starts_with("pub fn set_tables("))
        .then(|| out_dir.join("tables.bin"));
    let store = out_dir.join("store/_edgesite");
    Ok(Built {
        wasm,
        out_dir,
        blobs,
        tables,
        store,
    })
}

impl Built {
    /// What steps 2-4 make OUT from, as a digest: when it is what they last made it from, OUT
    /// is up to date. (The store's objects are named by their bytes, and mirrored into OUT at
    /// every build all the same.)
    fn stamp(&self, entry: &Path) -> Result<String, String> {
        let mut stamp = Sha256::new();
        for path in [self.wasm.as_path(), entry]
            .into_iter()
            .chain(self.tables.as_deref())
        {
            stamp.update(digest_of(path)?);
        }
        stamp.update(BUILDER);
        for blob in &self.blobs {
            stamp.update(digest_of(&self.out_dir.join(names::WORKER).join(blob))?);
        }
        // The tables name each stored object by its SHA-256 and tier: their digest stands for
        // the store (mirrored at every build all the same). Without them (the site as Rust),
        // the objects' names.
        if self.tables.is_none() {
            for (tier, _) in TIERS {
                let mut names: Vec<PathBuf> = inodes(&self.store.join(tier)).into_keys().collect();
                names.sort();
                for name in names {
                    stamp.update(name.to_string_lossy().as_bytes());
                }
            }
        }
        Ok(hex(&stamp.finalize()))
    }

    /// The store's objects: Static Assets' in OUT/assets/, R2's in OUT/r2/.
    fn mirror_store(&self, out: &Path) -> Result<(), String> {
        for (tier, bundled) in TIERS {
            mirror(&self.store.join(tier), &out.join(bundled))?;
        }
        Ok(())
    }

    /// Steps 2 and 3, unless OUT holds them for this module already (OUT/.edgesite-module).
    fn bindgen(&self, out: &Path) -> Result<(), String> {
        let tools = [version("wasm-bindgen"), version("wasm-opt")].concat();
        let module = [digest_of(&self.wasm)?, hex(&Sha256::digest(BUILDER)), tools].concat();
        let module = hex(&Sha256::digest(module));
        let module_file = out.join(".edgesite-module");
        if fs::read_to_string(&module_file).is_ok_and(|m| m == module)
            && out.join("index.wasm").is_file()
        {
            return Ok(());
        }
        let _ = fs::remove_dir_all(out.join("snippets"));
        for name in [
            "index.wasm",
            "index_bg.wasm",
            "index_bg.js",
            "index.js",
            ".edgesite-module",
        ] {
            let _ = fs::remove_file(out.join(name));
        }
        run_to(
            Command::new("wasm-bindgen")
                .args(names::BINDGEN_FLAGS)
                .arg(out)
                .args(["--out-name", "index"])
                .arg(&self.wasm),
            None,
        )?;
        // wasm-bindgen's own entry: ours is worker.mjs.
        let _ = fs::remove_file(out.join("index.js"));
        let (opt_in, opt_out) = (out.join("index_bg.wasm"), out.join("index.wasm"));
        run_to(
            Command::new("wasm-opt")
                .arg("-Os")
                .arg(&opt_in)
                .arg("-o")
                .arg(opt_out),
            None,
        )?;
        fs::remove_file(opt_in).map_err(|e| e.to_string())?;
        fs::write(&module_file, &module).map_err(|e| e.to_string())
    }

    /// Step 4: the blobs and tables in OUT/site/, the store's objects, the entry.
    fn bundle(&self, out: &Path, template: &Path) -> Result<(), String> {
        let site = out.join("site");
        fs::create_dir_all(&site).map_err(|e| e.to_string())?;
        for blob in &self.blobs {
            let from = self.out_dir.join(names::WORKER).join(blob);
            fs::copy(from, site.join(blob)).map_err(|e| format!("{blob}: {e}"))?;
        }
        if let Some(tables) = &self.tables {
            let copied = fs::copy(tables, site.join("tables.bin"));
            copied.map_err(|e| format!("{}: {e}", tables.display()))?;
        }
        self.mirror_store(out)?;
        let mut snippets: Vec<String> = listing(&out.join("snippets"))
            .into_keys()
            .map(|p| format!("./snippets/{}", p.display()))
            .collect();
        snippets.sort();
        let text =
            fs::read_to_string(template).map_err(|e| format!("{}: {e}", template.display()))?;
        let text = entry(&text, &snippets, &self.blobs, self.tables.is_some())?;
        fs::write(out.join("worker.mjs"), text).map_err(|e| e.to_string())
    }

    /// What the build chose and how big it is, beside the bundle (wrangler uploads only
    /// modules), and where its HTML and CSS are as served (after the link pass), for tests
    /// that compare bytes.
    fn notes(&self, out: &Path) -> Result<(), String> {
        let report = fs::read_to_string(self.out_dir.join("report.txt")).unwrap_or_default();
        let counted = |l: &str| {
            l.split_once(' ').is_some_and(|(n, rest)| {
                !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && rest.starts_with("files")
            })
        };
        let chosen: String = report
            .lines()
            .filter(|l| {
                ["storage", "tiers", "bundle estimate"]
                    .iter()
                    .any(|p| l.starts_with(p))
                    || counted(l)
            })
            .map(|l| format!("{l}\n"))
            .collect();
        fs::write(out.join("edgesite-build.txt"), chosen).map_err(|e| e.to_string())?;
        let served = format!("{}\n", self.out_dir.join("served").display());
        fs::write(out.join("edgesite-served.txt"), served).map_err(|e| e.to_string())
    }
}

/// This build of edgesite's Worker with `config` into `out`, as a command of this same
/// executable (no nested `cargo run`), run from the project.
pub(crate) fn command(root: &Path, config: &Path, out: &Path) -> Result<Command, String> {
    let xtask = std::env::current_exe().map_err(|e| format!("this executable: {e}"))?;
    let mut command = Command::new(xtask);
    command
        .current_dir(root)
        .env("EDGESITE_CONFIG", config)
        .arg(names::SUBCOMMAND)
        .arg(out);
    Ok(command)
}

/// The build (the module's documentation).
pub(crate) fn main(root: &Path, args: &[String]) -> Result<(), String> {
    let o = options(root, args)?;
    let out = &o.out;
    fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let built = cargo_build(root, &o.package)?;
    let stamp = built.stamp(&o.entry)?;
    let stamped = fs::read_to_string(out.join(".edgesite-stamp")).is_ok_and(|s| s.trim() == stamp);
    if stamped
        && ["worker.mjs", "assets", "r2"]
            .iter()
            .all(|f| out.join(f).exists())
    {
        println!(
            "build-worker: {} is up to date",
            out.join("worker.mjs").display()
        );
        // The bundle's objects are held to the build's all the same (a test may have changed one).
        built.mirror_store(out)?;
        return put_r2(root, out);
    }
    for stale in ["site", "worker.mjs", ".edgesite-stamp"] {
        let _ = fs::remove_dir_all(out.join(stale));
        let _ = fs::remove_file(out.join(stale));
    }
    built.bindgen(out)?;
    built.bundle(out, &o.entry)?;
    built.notes(out)?;
    fs::write(out.join(".edgesite-stamp"), &stamp).map_err(|e| e.to_string())?;
    let size = fs::metadata(out.join("index.wasm")).map_or(0, |m| m.len());
    let (worker, blobs) = (out.join("worker.mjs"), built.blobs.len());
    println!(
        "build-worker: {}, {size} bytes of wasm, {blobs} blob(s)",
        worker.display()
    );
    put_r2(root, out)
}

/// Under `make dev` (EDGESITE_R2_BUCKET and EDGESITE_R2_PERSIST set): the R2 objects put in
/// wrangler dev's local R2.
fn put_r2(root: &Path, out: &Path) -> Result<(), String> {
    let (Ok(bucket), Ok(persist)) = (
        std::env::var("EDGESITE_R2_BUCKET"),
        std::env::var("EDGESITE_R2_PERSIST"),
    ) else {
        return Ok(());
    };
    if bucket.is_empty() || persist.is_empty() {
        return Ok(());
    }
    run_to(
        Command::new("node")
            .arg(root.join("scripts/r2-put.mjs"))
            .args(["--bucket", &bucket, "--from"])
            .arg(out.join("r2"))
            .args(["--local", &persist]),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_names_the_snippets_blobs_and_tables() {
        let template = "$SNIPPET_JS_IMPORTS\n$BLOB_IMPORTS\n$TABLES_IMPORT\nconst w = {\n\t$SNIPPET_WASM_IMPORTS};\nconst B = [$BLOB_LIST];\n";
        let text = entry(
            template,
            &["./snippets/a/inline0.js".into()],
            &["site-0.bin".into(), "site-1.bin".into()],
            true,
        )
        .unwrap();
        assert_eq!(
            text,
            "import * as snippet0 from \"./snippets/a/inline0.js\";\nimport blob0 from \"./site/site-0.bin\";\n\
             import blob1 from \"./site/site-1.bin\";\nimport tables from \"./site/tables.bin\";\nconst w = {\n\t\
             \"./snippets/a/inline0.js\": snippet0,\n\t};\nconst B = [blob0, blob1];\n"
        );
        assert!(entry(template, &[], &[], false)
            .unwrap_err()
            .contains("imports the site's tables"));
        assert!(entry("$BLOB_LIST\n", &[], &[], true)
            .unwrap_err()
            .contains("no $TABLES_IMPORT"));
    }

    #[test]
    fn the_module_and_its_build_output_are_read_from_cargos_messages() {
        let messages = [
            r#"{"reason":"build-script-executed","package_id":"path+file:///w#edgesite@0.1.0","out_dir":"/t/out"}"#,
            r#"{"reason":"compiler-artifact","package_id":"path+file:///w#edgesite@0.1.0","filenames":["/t/libedgesite.rlib","/t/edgesite.wasm"]}"#,
            r#"{"reason":"compiler-artifact","package_id":"path+file:///w/crates/core#edgesite-core@0.1.0","filenames":["/t/core.wasm"]}"#,
        ]
        .join("\n");
        let (wasm, out_dir) = module_and_out_dir(&messages, "edgesite");
        assert_eq!(
            (wasm.unwrap(), out_dir.unwrap()),
            (PathBuf::from("/t/edgesite.wasm"), PathBuf::from("/t/out"))
        );
    }

    #[test]
    fn a_mirror_holds_exactly_the_sources_files() {
        let dir = std::env::temp_dir().join(format!("xtask-mirror-{}", std::process::id()));
        let (from, to) = (dir.join("from"), dir.join("to"));
        for (path, text) in [
            (from.join("a/1"), "one"),
            (from.join("2"), "two"),
            (from.join("3"), "three"),
            (to.join("2"), "2"),
            (to.join("3"), "THREE"),
            (to.join("old"), "x"),
        ] {
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        mirror(&from, &to).unwrap();
        let mut found: Vec<(PathBuf, u64)> = listing(&to).into_iter().collect();
        found.sort();
        let names = ["2", "3", "a/1"].map(PathBuf::from);
        assert_eq!(
            found,
            [
                (names[0].clone(), 3),
                (names[1].clone(), 5),
                (names[2].clone(), 3)
            ]
        );
        assert_eq!(fs::read_to_string(to.join("2")).unwrap(), "two");
        // As long, but another file: linked to the source's now, which the next mirror knows
        // by its inode.
        assert_eq!(inodes(&to), inodes(&from));
        assert_eq!(fs::read_to_string(to.join("3")).unwrap(), "three");
        fs::remove_dir_all(&dir).unwrap();
    }
}
