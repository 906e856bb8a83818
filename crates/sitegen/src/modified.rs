//! The Last-Modified of a build (RFC 9110 §8.8.2): one instant for every file, deterministic.
//!
//! In order: `SOURCE_DATE_EPOCH` (reproducible-builds.org) when set; else, in a git work tree,
//! the time of the last commit that touched the site directory, or the newest modification time
//! of a site file git does not hold as committed (edited, untracked, ignored or removed), if
//! later; else the time of the build.
//!
//! And the date a page names as its own (its Markdown twin's `last_modified`,
//! [`PageDates`](crate::PageDates)):
//! the build's, or each page's own, so that an edit of one page changes one twin, not all of
//! them (each twin's bytes, ETag, encodings and stored objects).

use crate::error::Error;
use crate::model::hidden;
use std::collections::{HashMap, HashSet};
use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The date of each of `files` (paths of the site's files, as the build read them), by path:
/// where git tracks a file and it is unchanged, the time of the last commit that touched it
/// (one `git log` over the site folder's history, stopped once every file is dated, as Hugo's
/// `enableGitInfo` reads it); else (untracked, edited, or no git) its modification time. A file
/// neither gives is left out (the caller uses the build's date).
pub(crate) fn own_dates(site_dir: &Path, files: &[&Path]) -> HashMap<PathBuf, SystemTime> {
    let mut dates: HashMap<PathBuf, SystemTime> = files
        .iter()
        .filter_map(|file| {
            Some((
                file.to_path_buf(),
                std::fs::metadata(file).ok()?.modified().ok()?,
            ))
        })
        .collect();
    if let Some(committed) = commit_times(site_dir, files) {
        dates.extend(committed);
    }
    dates
}

/// The time of the last commit that touched each of `files` that git tracks unchanged; `None`
/// outside a git work tree (or without git, or when git fails).
fn commit_times(site_dir: &Path, files: &[&Path]) -> Option<HashMap<PathBuf, SystemTime>> {
    let git = |args: &[&str]| git(site_dir, args);
    let output = |args: &[&str]| {
        let out = git(args).stderr(Stdio::null()).output().ok()?;
        out.status.success().then_some(out.stdout)
    };
    let top = output(&["rev-parse", "--show-toplevel"])?;
    let top = std::fs::canonicalize(String::from_utf8(top).ok()?.strip_suffix('\n')?).ok()?;
    let mut wanted = named_from(&top, files);
    // Only tracked files: the history is read until each is found (one git ignores, such as a
    // generated site's, would have it read to its end).
    let tracked = output(&["ls-files", "-z", "--full-name", "--", "."])?;
    let tracked: HashSet<&[u8]> = tracked.split(|&b| b == 0).collect();
    wanted.retain(|name, _| tracked.contains(name.as_bytes()));
    // Edited or untracked: their modification time stands (porcelain v1 names paths from the
    // top of the work tree, unquoted with -z).
    let status = [
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=all",
        "--no-renames",
    ];
    for entry in output(&[&status[..], &["--", "."]].concat())?.split(|&b| b == 0) {
        if let Some(name) = entry.get(3..).and_then(|n| std::str::from_utf8(n).ok()) {
            wanted.remove(name);
        }
    }
    if wanted.is_empty() {
        return Some(HashMap::new());
    }
    // A shallow clone (CI's checkout, depth 1 by default) shows its oldest commits without
    // their parents, naming every file they hold: those files are not dated by them.
    let shallow = output(&["rev-parse", "--is-shallow-repository"])? == b"true\n";
    let log = [
        "log",
        "--no-merges",
        "--no-renames",
        "--format=%x01%ct %P",
        "--name-only",
    ];
    let mut child = (git(&[&log[..], &["--", "."]].concat()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let dated = (child.stdout.take()).map(|out| last_commits(out, wanted, shallow));
    // Every file dated, or the history read to its end: git is not needed further.
    let _ = child.kill();
    let _ = child.wait();
    dated
}

/// The file git updates at every commit, checkout or reset of the work tree `site_dir` is in
/// (its `HEAD`'s log), when there is one: a build that dates pages by their commits names it in
/// `cargo:rerun-if-changed`, so that a commit of an edit already built dates its twin at the
/// next build, not at the next edit.
pub(crate) fn history_file(site_dir: &Path) -> Option<PathBuf> {
    let out = (git(site_dir, &["rev-parse", "--absolute-git-dir"]))
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let dir = String::from_utf8(out.stdout).ok()?;
    let file = Path::new(dir.strip_suffix('\n')?).join("logs").join("HEAD");
    // A path cargo tracks must exist: it reruns the build script at every build otherwise.
    (out.status.success() && file.is_file()).then_some(file)
}

/// `git -C site_dir args`: names unquoted, from the top of the work tree, and a root commit's
/// files listed, whatever the user's configuration says; and the repository never written
/// (`--no-optional-locks`: `status` refreshes the index otherwise, and may take its lock while
/// the user runs git).
fn git(site_dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command.arg("--no-optional-locks").arg("-C").arg(site_dir);
    for setting in [
        "core.quotePath=false",
        "diff.relative=false",
        "log.showRoot=true",
    ] {
        command.args(["-c", setting]);
    }
    command.args(args);
    command
}

/// `files` by their paths as git names them: from the work tree's top, `top`. A symbolic link
/// is named by its target, whose bytes it serves: both have the target's date.
fn named_from(top: &Path, files: &[&Path]) -> HashMap<String, Vec<PathBuf>> {
    let mut named: HashMap<String, Vec<PathBuf>> = HashMap::new();
    // Each folder's real path found once: a site's files are in far fewer folders, and finding
    // one takes a system call per component of its path.
    let mut folders: HashMap<&Path, Option<PathBuf>> = HashMap::new();
    for file in files {
        let Some(real) = real_path(file, &mut folders) else {
            continue;
        };
        if let Some(name) = real.strip_prefix(top).ok().and_then(Path::to_str) {
            named
                .entry(name.to_string())
                .or_default()
                .push(file.to_path_buf());
        }
    }
    named
}

/// `file`'s path with every symbolic link resolved (as [`std::fs::canonicalize`] finds it): a
/// file that is not a link is its folder's real path (from `folders`, found there once) and
/// its name.
fn real_path<'p>(
    file: &'p Path,
    folders: &mut HashMap<&'p Path, Option<PathBuf>>,
) -> Option<PathBuf> {
    let (Some(folder), Some(name)) = (file.parent(), file.file_name()) else {
        return std::fs::canonicalize(file).ok();
    };
    if std::fs::symlink_metadata(file)
        .ok()?
        .file_type()
        .is_symlink()
    {
        return std::fs::canonicalize(file).ok();
    }
    let folder = folders.entry(folder).or_insert_with(|| {
        let here = if folder.as_os_str().is_empty() {
            Path::new(".")
        } else {
            folder
        };
        std::fs::canonicalize(here).ok()
    });
    Some(folder.as_ref()?.join(name))
}

/// From `git log --format='%x01%ct %P' --name-only` (newest first): the time of the first
/// commit that names each of `wanted`, read until each is found. In a `shallow` clone a commit
/// shown without parents may be its boundary, which names every file it holds: a file it names
/// first is left undated. Lines that are not UTF-8 (an old name) are skipped, not an end.
fn last_commits(
    log: impl std::io::Read,
    mut wanted: HashMap<String, Vec<PathBuf>>,
    shallow: bool,
) -> HashMap<PathBuf, SystemTime> {
    let mut dated = HashMap::new();
    let mut time = None;
    for line in std::io::BufReader::new(log)
        .split(b'\n')
        .map_while(Result::ok)
    {
        if wanted.is_empty() {
            break;
        }
        let Ok(line) = std::str::from_utf8(&line) else {
            continue;
        };
        if let Some(commit) = line.strip_prefix('\u{1}') {
            let (seconds, parents) = commit.split_once(' ').unwrap_or((commit, ""));
            let boundary = shallow && parents.trim().is_empty();
            let seconds = seconds.parse::<u64>().ok().filter(|_| !boundary);
            time = seconds.map(|s| UNIX_EPOCH + Duration::from_secs(s));
        } else if let Some(files) = wanted.remove(line) {
            if let Some(time) = time {
                dated.extend(files.into_iter().map(|file| (file, time)));
            }
        }
    }
    dated
}

/// The Last-Modified to use, given the value of `SOURCE_DATE_EPOCH` (if set) and the site.
///
/// A build of uncommitted edits is dated by them, not by the last commit: If-Modified-Since
/// with the commit's date must not get a 304 for bytes changed since (RFC 9110 §13.1.3), as
/// a client that revalidates by date alone would (a browser sends If-None-Match too, which takes
/// precedence, §13.2.2). A tree with nothing uncommitted keeps the commit's date, the same in
/// every clone. An edit undone takes the date back to the commit's (nothing is kept between
/// builds); the ETag still tells the bytes apart.
///
/// # Errors
/// `SOURCE_DATE_EPOCH` is set but is not a whole number of seconds.
pub fn last_modified(
    source_date_epoch: Option<&str>,
    site_dir: &Path,
) -> Result<SystemTime, Error> {
    if let Some(value) = source_date_epoch {
        let seconds = value
            .trim()
            .parse::<u64>()
            .map_err(|_| Error::SourceDateEpoch {
                value: value.to_string(),
            })?;
        return Ok(UNIX_EPOCH + Duration::from_secs(seconds));
    }
    Ok(git_time(site_dir).unwrap_or_else(SystemTime::now))
}

/// The later of the committer time of the last commit touching `dir` and [`uncommitted_time`],
/// never later than now (a file dated in the future by another machine's clock must not date
/// the build after its responses, RFC 9110 §8.8.2.1); `None` outside a git work tree (or
/// without git, or when `git status` fails: then the build's time, which is never too early),
/// or when neither is known (no commit touched `dir` and git lists nothing in it).
fn git_time(dir: &Path) -> Option<SystemTime> {
    let output = |args: &[&str]| {
        let out = git(dir, args).stderr(Stdio::null()).output().ok()?;
        out.status.success().then_some(out.stdout)
    };
    let committed = output(&["log", "-1", "--format=%ct", "--", "."]).and_then(|out| {
        let seconds = std::str::from_utf8(&out).ok()?.trim().parse::<u64>().ok()?;
        Some(UNIX_EPOCH + Duration::from_secs(seconds))
    });
    let top = output(&["rev-parse", "--show-toplevel"])?;
    let top = PathBuf::from(String::from_utf8(top).ok()?.strip_suffix('\n')?);
    let status = [
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=all",
        "--ignored=traditional",
        // Each entry one name (a rename would add its old name as a second field).
        "--no-renames",
        "--",
        ".",
    ];
    let site = std::fs::canonicalize(dir).ok()?;
    let uncommitted = uncommitted_time(&top, &site, &output(&status)?);
    let newest = committed.into_iter().chain(uncommitted).max()?;
    Some(newest.min(SystemTime::now()))
}

/// The newest modification time of what `status` (`git status --porcelain=v1 -z`, its names
/// from the work tree's top, `top`) lists in the site folder `site` and the build serves (not a
/// dotfile: [`served`]):
/// - an edited, untracked or ignored file's (ignored files are listed one by one with
///   `--untracked-files=all`); a symbolic link's own time or its target's, the later;
/// - a folder git lists whole (a nested repository, a submodule): the newest of the files in it;
/// - a removed file's folder (the nearest that remains), whose time its removal set.
///
/// A file removed that git never held leaves no name: its folder's time counts only while git
/// lists another file in it (not seen otherwise). A name that is not UTF-8 is skipped: the
/// build refuses such a file.
fn uncommitted_time(top: &Path, site: &Path, status: &[u8]) -> Option<SystemTime> {
    (status.split(|&b| b == 0))
        .filter_map(|entry| std::str::from_utf8(entry.get(3..)?).ok())
        .filter(|name| !name.is_empty())
        .map(|name| top.join(name.trim_end_matches('/')))
        .filter(|path| served(site, path))
        .filter_map(|path| {
            let own = std::fs::symlink_metadata(&path).ok();
            let Some(own) = own else {
                let mut left = path.ancestors().take_while(|p| p.starts_with(top));
                return left
                    .find_map(|p| std::fs::metadata(p).ok())?
                    .modified()
                    .ok();
            };
            let target = std::fs::metadata(&path).ok();
            let times = [Some(&own), target.as_ref()].into_iter().flatten();
            let newest = times.filter_map(|m| m.modified().ok()).max();
            match target.is_some_and(|t| t.is_dir()) {
                true => newest.into_iter().chain(newest_in(&path)).max(),
                false => newest,
            }
        })
        .max()
}

/// Whether `path` (in the site folder `site`) is one the walk serves: no part of its name in
/// the site is [`hidden`] (an editor's or the system's leftovers, often ignored by git, would
/// otherwise date the build).
fn served(site: &Path, path: &Path) -> bool {
    let Ok(within) = path.strip_prefix(site) else {
        return true;
    };
    !(within.components()).any(|part| hidden(&part.as_os_str().to_string_lossy()))
}

/// The newest modification time of the files and folders under `dir`, [`hidden`] ones left out
/// (a nested repository's `.git`); links are not followed.
fn newest_in(dir: &Path) -> Option<SystemTime> {
    let mut newest = None;
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            if hidden(&entry.file_name().to_string_lossy()) {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            newest = newest.max(meta.modified().ok());
            if meta.is_dir() {
                folders.push(entry.path());
            }
        }
    }
    newest
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn source_date_epoch_wins() {
        let t = last_modified(Some("1700000000"), Path::new(".")).unwrap();
        assert_eq!(httpdate::fmt_http_date(t), "Tue, 14 Nov 2023 22:13:20 GMT");
    }

    #[test]
    fn a_bad_source_date_epoch_is_an_error_naming_it() {
        let err = last_modified(Some("yesterday"), Path::new(".")).unwrap_err();
        assert!(
            err.to_string().contains("SOURCE_DATE_EPOCH=\"yesterday\""),
            "{err}"
        );
    }

    #[test]
    fn a_real_path_is_what_canonicalize_finds_with_one_lookup_per_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("real/docs")).unwrap();
        std::fs::write(root.join("real/docs/a.html"), "a").unwrap();
        std::fs::write(root.join("real/b.html"), "b").unwrap();
        std::os::unix::fs::symlink(root.join("real/docs"), root.join("linked")).unwrap();
        std::os::unix::fs::symlink(root.join("real/b.html"), root.join("real/docs/b.html"))
            .unwrap();
        let files = [
            root.join("real/docs/a.html"),
            root.join("linked/a.html"),
            root.join("real/docs/b.html"),
            root.join("linked/b.html"),
            root.join("real/docs/../b.html"),
            root.join("real/missing.html"),
        ];
        let mut folders = HashMap::new();
        for file in &files {
            assert_eq!(
                real_path(file, &mut folders),
                std::fs::canonicalize(file).ok(),
                "{}",
                file.display()
            );
        }
        // Three folders, each found once (real/docs, linked, real/docs/..); a link is resolved
        // whole, and a missing file has no real path.
        assert_eq!(folders.len(), 3, "{folders:?}");
    }

    /// `git` in `dir` with a fixed identity and the commit dated `at` (seconds).
    pub(crate) fn git(dir: &Path, at: u64, args: &[&str]) {
        let date = format!("@{at} +0000");
        let status = Command::new("git")
            .current_dir(dir)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    #[test]
    fn a_page_is_dated_by_its_last_commit_unless_edited_since() {
        let (repo, site) = repo_with_site("docs");
        let (old, new, edited, untracked) = (
            site.join("docs/old page.html"),
            site.join("new.html"),
            site.join("edited.html"),
            site.join("untracked.html"),
        );
        std::fs::write(&old, "old").unwrap();
        // A link to the old page: it serves the old page's bytes, and has its date.
        let alias = site.join("alias.html");
        std::os::unix::fs::symlink("docs/old page.html", &alias).unwrap();
        std::fs::write(&edited, "one").unwrap();
        std::fs::write(repo.path().join("outside.txt"), "x").unwrap();
        commit_all(repo.path(), 1_700_000_000);
        std::fs::write(&new, "new").unwrap();
        std::fs::write(repo.path().join("outside.txt"), "y").unwrap();
        commit_all(repo.path(), 1_710_000_000);
        std::fs::write(&edited, "two").unwrap();
        std::fs::write(&untracked, "u").unwrap();
        let mtime = UNIX_EPOCH + Duration::from_secs(1_720_000_000);
        for file in [&edited, &untracked] {
            std::fs::File::options()
                .write(true)
                .open(file)
                .unwrap()
                .set_modified(mtime)
                .unwrap();
        }
        let files = [
            old.as_path(),
            alias.as_path(),
            new.as_path(),
            edited.as_path(),
            untracked.as_path(),
        ];
        let dates = own_dates(&site, &files);
        let at = |s: u64| UNIX_EPOCH + Duration::from_secs(s);
        assert_eq!(
            dates[&old],
            at(1_700_000_000),
            "its only commit, not the later one"
        );
        assert_eq!(dates[&alias], at(1_700_000_000), "its target's commit");
        assert_eq!(dates[&new], at(1_710_000_000));
        assert_eq!(
            dates[&edited], mtime,
            "edited since its commit: its modification time"
        );
        assert_eq!(dates[&untracked], mtime);
    }

    /// Everything in the work tree `dir` committed, dated `at` (seconds).
    /// A new git work tree in a temporary folder and its folder `site/<under>` (made): the
    /// repository and the site folder.
    pub(crate) fn repo_with_site(under: &str) -> (tempfile::TempDir, PathBuf) {
        let repo = tempfile::tempdir().unwrap();
        let site = repo.path().join("site");
        std::fs::create_dir_all(site.join(under)).unwrap();
        git(repo.path(), 0, &["init", "-q"]);
        (repo, site)
    }

    pub(crate) fn commit_all(dir: &Path, at: u64) {
        git(dir, at, &["add", "-A"]);
        git(dir, at, &["commit", "-q", "-m", "c"]);
    }

    /// Sets `path`'s modification time (a file's or a folder's) to `seconds`.
    pub(crate) fn touch(path: &Path, seconds: u64) {
        let file = match path.is_dir() {
            true => std::fs::File::open(path),
            false => std::fs::File::options().write(true).open(path),
        };
        let at = UNIX_EPOCH + Duration::from_secs(seconds);
        file.unwrap().set_modified(at).unwrap();
    }

    // RFC 9110 §13.1.3: If-Modified-Since with the build's date must not get a 304 for bytes
    // changed since; so the date is never earlier than an uncommitted change.
    #[test]
    fn a_build_of_uncommitted_changes_is_dated_by_the_newest() {
        let (repo, site) = repo_with_site("docs");
        let (a, b) = (site.join("a.html"), site.join("docs/b.html"));
        let outside = repo.path().join("outside.txt");
        std::fs::write(repo.path().join(".gitignore"), "*.tmp\n").unwrap();
        for file in [&a, &b, &outside] {
            std::fs::write(file, "one").unwrap();
        }
        let commit = |at: u64| commit_all(repo.path(), at);
        commit(1_700_000_000);
        let dated = || last_modified(None, &site).unwrap();
        let at = |s: u64| UNIX_EPOCH + Duration::from_secs(s);
        // Nothing uncommitted: the commit's date, whatever the files' own (a checkout's).
        assert_eq!(dated(), at(1_700_000_000));
        std::fs::write(&a, "two").unwrap();
        touch(&a, 1_720_000_000);
        assert_eq!(dated(), at(1_720_000_000), "an edited file");
        touch(&a, 1_600_000_000);
        assert_eq!(
            dated(),
            at(1_700_000_000),
            "the commit, later than the edit"
        );
        std::fs::write(&outside, "two").unwrap();
        touch(&outside, 1_800_000_000);
        assert_eq!(dated(), at(1_700_000_000), "an edit outside the site");
        commit(1_730_000_000);
        assert_eq!(dated(), at(1_730_000_000), "committed");
        std::fs::remove_file(&b).unwrap();
        touch(&site.join("docs"), 1_740_000_000);
        assert_eq!(dated(), at(1_740_000_000), "a removed file: its folder's");
        commit(1_750_000_000);
        let (untracked, ignored) = (site.join("new.html"), site.join("docs/x.tmp"));
        std::fs::write(&untracked, "new").unwrap();
        touch(&untracked, 1_760_000_000);
        assert_eq!(dated(), at(1_760_000_000), "an untracked file");
        std::fs::write(&ignored, "ignored").unwrap();
        touch(&ignored, 1_770_000_000);
        assert_eq!(dated(), at(1_770_000_000), "an ignored file");
    }

    /// Last-Modified's rule for what git lists that is not a plain file: a dotfile, a link, a
    /// nested repository; and a time in the future.
    #[test]
    fn links_nested_repositories_dotfiles_and_the_future() {
        let (repo, site) = repo_with_site("");
        std::fs::write(site.join("a.html"), "a").unwrap();
        let commit = |at: u64| commit_all(repo.path(), at);
        commit(1_770_000_000);
        let dated = || last_modified(None, &site).unwrap();
        let at = |s: u64| UNIX_EPOCH + Duration::from_secs(s);
        // What the build does not serve does not date it: a dotfile.
        let leftover = site.join(".DS_Store");
        std::fs::write(&leftover, "x").unwrap();
        touch(&leftover, 1_780_000_000);
        assert_eq!(dated(), at(1_770_000_000), "a dotfile");
        // A link pointed elsewhere: its own time, later than its target's.
        std::fs::write(site.join("target.html"), "t").unwrap();
        touch(&site.join("target.html"), 1_600_000_000);
        std::os::unix::fs::symlink("target.html", site.join("link.html")).unwrap();
        // (Its own time is when it was made: now, later than any above.)
        assert!(dated() > at(1_780_000_000), "a new link: its own time");
        std::fs::remove_file(site.join("link.html")).unwrap();
        std::fs::remove_file(site.join("target.html")).unwrap();
        commit(1_790_000_000);
        // A nested repository, which git lists as one folder: the newest file in it.
        let nested = site.join("nested");
        std::fs::create_dir_all(nested.join("deep")).unwrap();
        git(&nested, 0, &["init", "-q"]);
        let inner = nested.join("deep/page.html");
        std::fs::write(&inner, "inner").unwrap();
        touch(&inner, 1_795_000_000);
        for folder in [&nested, &nested.join("deep")] {
            touch(folder, 1_600_000_000);
        }
        assert_eq!(dated(), at(1_795_000_000), "a file in a nested repository");
        // A time in the future: now at the latest (RFC 9110 §8.8.2.1).
        let future = SystemTime::now() + Duration::from_secs(86_400);
        let seconds = future.duration_since(UNIX_EPOCH).unwrap().as_secs();
        touch(&inner, seconds);
        assert!(dated() <= SystemTime::now(), "never later than now");
    }

    #[test]
    fn a_shallow_clone_dates_no_file_by_its_boundary_commit() {
        let repo = tempfile::tempdir().unwrap();
        git(repo.path(), 0, &["init", "-q"]);
        for (at, name) in [
            (1_700_000_000, "old.html"),
            (1_710_000_000, "new.html"),
            (1_720_000_000, "newest.html"),
        ] {
            std::fs::write(repo.path().join(name), name).unwrap();
            commit_all(repo.path(), at);
        }
        let clone = tempfile::tempdir().unwrap();
        let url = format!("file://{}", repo.path().display());
        let target = clone.path().join("c");
        let target_str = target.to_str().unwrap();
        git(
            clone.path(),
            0,
            &["clone", "-q", "--depth", "2", &url, target_str],
        );
        let file = |name: &str| target.join(name);
        let (old, new, newest) = (file("old.html"), file("new.html"), file("newest.html"));
        let dates = own_dates(&target, &[old.as_path(), new.as_path(), newest.as_path()]);
        let at = |s: u64| UNIX_EPOCH + Duration::from_secs(s);
        let mtime = |path: &Path| std::fs::metadata(path).unwrap().modified().unwrap();
        assert_eq!(
            dates[&newest],
            at(1_720_000_000),
            "its commit has its parent"
        );
        assert_eq!(
            dates[&new],
            mtime(&new),
            "the boundary names every file: not its date"
        );
        assert_eq!(dates[&old], mtime(&old));
    }

    #[test]
    fn a_log_line_that_is_not_utf8_is_skipped_not_an_end() {
        let wanted: HashMap<String, Vec<PathBuf>> =
            [("a.html".to_string(), vec![PathBuf::from("/a.html")])].into();
        let log: &[u8] = b"\x01200 p1\n\nold\xff.html\n\x01100 p2\n\na.html\n";
        let dated = last_commits(log, wanted.clone(), false);
        assert_eq!(
            dated[Path::new("/a.html")],
            UNIX_EPOCH + Duration::from_secs(100)
        );
        // Shallow: a commit without parents is the boundary, which dates nothing.
        let log: &[u8] = b"\x01100 \n\na.html\n";
        assert!(last_commits(log, wanted.clone(), true).is_empty());
        assert_eq!(
            last_commits(log, wanted, false).len(),
            1,
            "a real root commit dates"
        );
    }

    #[test]
    fn outside_git_a_page_is_dated_by_its_modification_time() {
        let dir = tempfile::tempdir().unwrap();
        let page = dir.path().join("a.html");
        std::fs::write(&page, "a").unwrap();
        let mtime = UNIX_EPOCH + Duration::from_secs(1_600_000_000);
        std::fs::File::options()
            .write(true)
            .open(&page)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        let gone = dir.path().join("gone.html");
        let dates = own_dates(dir.path(), &[page.as_path(), gone.as_path()]);
        assert_eq!(dates.get(&page), Some(&mtime));
        assert_eq!(dates.get(&gone), None, "a file neither dates is left out");
    }

    #[test]
    fn outside_git_the_build_time_is_used() {
        let dir = tempfile::tempdir().unwrap();
        let before = SystemTime::now() - Duration::from_secs(1);
        assert!(last_modified(None, dir.path()).unwrap() >= before);
    }
}
