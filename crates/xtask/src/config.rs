//! What the scripts read from the project's configs, and the configs they write (were inline
//! Python and sed in `scripts/lib.sh`): `cargo xtask site-dir`, `r2-bucket`, `r2-bound`,
//! `dev-config`, `first-view-off`. The build checks every config; these only read what they
//! need, and leave an unreadable config for the build to name.

use std::fs;
use std::path::{Component, Path, PathBuf};

/// A TOML file as a table; `None` when missing or not TOML (the build names the error).
fn read_toml(path: &Path) -> Option<toml::Table> {
    fs::read_to_string(path).ok()?.parse::<toml::Table>().ok()
}

/// Variable `key`, unless unset or empty (empty is "no override", as for the build).
pub(crate) fn var(key: &str) -> Option<String> {
    std::env::var(key).ok().filter(|v| !v.is_empty())
}

/// `EDGESITE_CONFIG` (relative to the project) or `edgesite.toml`.
pub(crate) fn project_config(root: &Path) -> PathBuf {
    root.join(var("EDGESITE_CONFIG").unwrap_or_else(|| "edgesite.toml".into()))
}

/// The site folder a build compiles: `EDGESITE_SITE` (relative to the project), else `site.dir`
/// of the configuration (EDGESITE_CONFIG or edgesite.toml; relative to its folder), else
/// `public/`. Absolute.
pub(crate) fn site_dir(root: &Path) -> PathBuf {
    if let Some(site) = var("EDGESITE_SITE") {
        return clean(&root.join(site));
    }
    let config = project_config(root);
    let dir = read_toml(&config)
        .and_then(|t| t.get("site")?.get("dir")?.as_str().map(String::from))
        .unwrap_or_else(|| "public".into());
    clean(&config.parent().unwrap_or(root).join(dir))
}

/// `path` with `.` and `..` resolved without touching the disk (`realpath -m`).
fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `[storage] r2_bucket` of `config`, if it names one.
pub(crate) fn r2_bucket(config: &Path) -> Result<Option<String>, String> {
    Ok(read_toml(config).and_then(|t| {
        t.get("storage")?
            .get("r2_bucket")?
            .as_str()
            .map(String::from)
    }))
}

/// An error naming the fix, unless the wrangler config `wrangler` binds `bucket` as EDGESITE_R2
/// (the binding the Worker reads R2 through): without it every file in R2 would be a 503.
pub(crate) fn r2_bound(wrangler: &Path, bucket: &str) -> Result<(), String> {
    let table =
        read_toml(wrangler).ok_or_else(|| format!("{}: not readable TOML", wrangler.display()))?;
    let bound: Vec<&str> = table
        .get("r2_buckets")
        .and_then(|b| b.as_array())
        .into_iter()
        .flatten()
        .filter(|b| b.get("binding").and_then(|v| v.as_str()) == Some("EDGESITE_R2"))
        .filter_map(|b| b.get("bucket_name")?.as_str())
        .collect();
    if bound == [bucket] {
        return Ok(());
    }
    Err(format!(
        "the site keeps files in R2 bucket {bucket} ([storage] r2_bucket), and {} binds {} as \
         EDGESITE_R2: add [[r2_buckets]] binding = \"EDGESITE_R2\" bucket_name = \"{bucket}\"",
        wrangler.display(),
        bound.first().unwrap_or(&"no bucket")
    ))
}

/// wrangler.toml's `compatibility_date`: what every Worker here runs with.
pub(crate) fn compat_date(root: &Path) -> Result<String, String> {
    let path = root.join("wrangler.toml");
    read_toml(&path)
        .and_then(|t| t.get("compatibility_date")?.as_str().map(String::from))
        .ok_or_else(|| format!("{}: no compatibility_date", path.display()))
}

/// wrangler.toml's `[[rules]]` and `[assets]` sections (the one definition of how the Worker's
/// blobs and store are named), with the store's folder `assets` in place of build/assets, after
/// the binding of `bucket` as EDGESITE_R2 when one is named.
pub(crate) fn wrangler_sections(
    root: &Path,
    assets: &str,
    bucket: Option<&str>,
) -> Result<String, String> {
    let path = root.join("wrangler.toml");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    // The first line that is `[[rules]]` (a comment naming it is not the section).
    let from = text
        .match_indices("[[rules]]")
        .map(|(at, _)| at)
        .find(|at| *at == 0 || text[..*at].ends_with('\n'))
        .ok_or_else(|| format!("{}: no [[rules]] line", path.display()))?;
    let mut out = String::new();
    if let Some(bucket) = bucket {
        out.push_str(&format!(
            "[[r2_buckets]]\nbinding = \"EDGESITE_R2\"\nbucket_name = \"{bucket}\"\n\n"
        ));
    }
    for line in text[from..].lines().filter(|l| !l.starts_with('#')) {
        if line.starts_with("directory = ") {
            out.push_str(&format!("directory = \"{assets}\"\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}

/// A wrangler config for wrangler dev: the project's Worker, built by scripts/build-worker.sh
/// into build/, rebuilt when a file under src/, crates/ or the site folder `site` changes
/// (wrangler.toml watches public/ only). Its paths are absolute, but for watch_dir's: wrangler
/// 4.164 watches nothing at an absolute one (measured), so those are relative to `out`'s folder.
pub(crate) fn dev_config(root: &Path, out: &Path, site: &Path) -> Result<(), String> {
    let from = clean(&root.join(out));
    let from = from.parent().unwrap_or(root);
    let rel = |p: &Path| relative(from, &clean(&root.join(p))).display().to_string();
    let bucket = r2_bucket(&project_config(root))?;
    let text = format!(
        "# Generated by cargo xtask dev-config: wrangler.toml, watching {site}.\n\
         name = \"edgesite\"\nmain = \"{root}/build/worker.mjs\"\ncompatibility_date = \"{date}\"\n\n\
         [build]\ncwd = \"{root}\"\ncommand = \"{root}/scripts/build-worker.sh\"\n\
         watch_dir = [\"{}\", \"{}\", \"{}\"]\n\n{}",
        rel(site),
        rel(Path::new("src")),
        rel(Path::new("crates")),
        wrangler_sections(root, &format!("{}/build/assets", root.display()), bucket.as_deref())?,
        site = site.display(),
        root = root.display(),
        date = compat_date(root)?,
    );
    fs::create_dir_all(from).map_err(|e| format!("{}: {e}", from.display()))?;
    let out = clean(&root.join(out));
    fs::write(&out, text).map_err(|e| format!("{}: {e}", out.display()))
}

/// What turns the first view's work (issue 34) off: `[links] preload`, `inline_css_bytes`,
/// `size_images`, `prioritize_images`, and `[optimize]`.
const LINKS_OFF: &str =
    "preload = false\ninline_css_bytes = 0\nsize_images = false\nprioritize_images = false\n";
const OPTIMIZE_OFF: &str = "[optimize]\nhtml = false\ncss = false\njs = false\n";

/// A config with the first view's work off: `config`'s text, whose `[links]` must hold a
/// `preload = true` line (replaced by the lines that turn it all off), or alone.
pub(crate) fn first_view_off(config: Option<&Path>) -> Result<String, String> {
    let Some(path) = config else {
        return Ok(format!("[links]\n{LINKS_OFF}{OPTIMIZE_OFF}"));
    };
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !text.lines().any(|l| l == "preload = true") {
        return Err(format!(
            "{} has no 'preload = true' line to turn off",
            path.display()
        ));
    }
    let mut out: String = text
        .lines()
        .map(|l| {
            if l == "preload = true" {
                LINKS_OFF.to_string()
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    out.push_str(OPTIMIZE_OFF);
    Ok(out)
}

/// `to` relative to the folder `from` (both absolute), as capnp's `embed` and wrangler's paths want it.
pub(crate) fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component<'_>> = from.components().collect();
    let to: Vec<Component<'_>> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for part in &to[common..] {
        out.push(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
    }

    #[test]
    fn the_stored_fixture_names_its_bucket_and_wrangler_toml_binds_none() {
        let root = root();
        let fixture = root.join("tests/fixtures/stored.toml");
        assert_eq!(
            r2_bucket(&fixture).unwrap().as_deref(),
            Some("edgesite-test")
        );
        assert_eq!(r2_bucket(&root.join("edgesite.toml")).unwrap(), None);
        let err = r2_bound(&root.join("wrangler.toml"), "edgesite-test").unwrap_err();
        assert!(err.contains("binds no bucket as EDGESITE_R2"), "{err}");
    }

    #[test]
    fn the_sections_bind_the_bucket_and_name_the_store() {
        let text = wrangler_sections(&root(), "bundle/assets", Some("b")).unwrap();
        assert!(
            text.starts_with("[[r2_buckets]]\nbinding = \"EDGESITE_R2\"\nbucket_name = \"b\"\n")
        );
        assert!(text.contains("directory = \"bundle/assets\"\n") && text.contains("[[rules]]"));
        assert!(!text.contains("build/assets") && !text.lines().any(|l| l.starts_with('#')));
        let dir = std::env::temp_dir().join(format!("xtask-bound-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("w.toml"), &text).unwrap();
        r2_bound(&dir.join("w.toml"), "b").unwrap();
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_first_view_off_replaces_the_preload_line() {
        let off = first_view_off(Some(&root().join("edgesite.toml"))).unwrap();
        assert!(
            off.contains("preload = false\ninline_css_bytes = 0\n")
                && !off.contains("preload = true")
        );
        assert!(off.ends_with(OPTIMIZE_OFF));
        assert!(off.parse::<toml::Table>().is_ok(), "{off}");
        assert!(first_view_off(Some(&root().join("wrangler.toml"))).is_err());
        assert!(first_view_off(None).unwrap().parse::<toml::Table>().is_ok());
    }

    #[test]
    fn a_dev_config_is_written_in_a_new_folder_watching_the_site() {
        let dir = std::env::temp_dir().join(format!("xtask-dev-{}", std::process::id()));
        let out = dir.join("a/b/wrangler.toml");
        dev_config(&root(), &out, &root().join("public")).unwrap();
        let text = fs::read_to_string(&out).unwrap();
        assert!(text.parse::<toml::Table>().is_ok(), "{text}");
        let public = relative(&dir.join("a/b"), &root().join("public"));
        assert!(
            text.contains(&format!("watch_dir = [\"{}\"", public.display())),
            "{text}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn paths_are_cleaned_without_the_disk() {
        assert_eq!(clean(Path::new("/a/b/../c/./d")), Path::new("/a/c/d"));
    }
}
