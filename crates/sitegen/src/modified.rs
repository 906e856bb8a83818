//! The Last-Modified of a build (RFC 9110 §8.8.2): one instant for every file, deterministic.
//!
//! In order: `SOURCE_DATE_EPOCH` (reproducible-builds.org) when set; else the time of the last
//! git commit that touched the site directory; else the time of the build.

use crate::error::Error;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The Last-Modified to use, given the value of `SOURCE_DATE_EPOCH` (if set) and the site.
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
    Ok(git_commit_time(site_dir).unwrap_or_else(SystemTime::now))
}

/// The committer time of the last commit touching `dir`, if `dir` is in a git work tree.
fn git_commit_time(dir: &Path) -> Option<SystemTime> {
    let output = Command::new("git")
        .args(["log", "-1", "--format=%ct", "--", "."])
        .current_dir(dir)
        .output()
        .ok()?;
    let seconds = std::str::from_utf8(&output.stdout)
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()?;
    output
        .status
        .success()
        .then(|| UNIX_EPOCH + Duration::from_secs(seconds))
}

#[cfg(test)]
mod tests {
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
    fn outside_git_the_build_time_is_used() {
        let dir = tempfile::tempdir().unwrap();
        let before = SystemTime::now() - Duration::from_secs(1);
        assert!(last_modified(None, dir.path()).unwrap() >= before);
    }
}
