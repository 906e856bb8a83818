//! Build errors. Each names the offending path and says how to fix it; `build.rs` prints it and
//! fails the build.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Why a site could not be compiled.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The site directory does not exist or is not a directory.
    NotADirectory {
        /// The site directory as given.
        path: PathBuf,
    },
    /// The site has no file to serve.
    EmptySite {
        /// The site directory.
        path: PathBuf,
    },
    /// A file or directory could not be read.
    Read {
        /// What could not be read.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// A file or directory name is not UTF-8, so no URL can name it.
    NotUtf8 {
        /// The entry.
        path: PathBuf,
    },
    /// A name that no request could reach: it contains a backslash, NUL, or the URL path is
    /// longer than `edgesite_core::MAX_PATH_LEN`.
    Unservable {
        /// The entry.
        path: PathBuf,
        /// Why.
        reason: &'static str,
    },
    /// A symbolic link leads outside the site (only links inside the site are followed).
    SymlinkOutside {
        /// The link.
        path: PathBuf,
        /// Where it leads.
        target: PathBuf,
    },
    /// A symbolic link leads to one of its own parent directories.
    SymlinkLoop {
        /// The link.
        path: PathBuf,
    },
    /// The site folder holds the project (its configuration, its sources): serving it would
    /// publish them. `site.allow_project_files = true` says it is meant.
    ProjectFolder {
        /// The site folder.
        path: PathBuf,
        /// What shows it is the project's: a file it holds, or the project folder it contains.
        because: String,
    },
    /// The SPA fallback names a file the site does not have.
    MissingFallback {
        /// The configured URL path.
        path: String,
        /// The site directory.
        site: PathBuf,
    },
    /// A configuration file (`edgesite.toml`, `_headers`, `_redirects`) is not valid: bad
    /// syntax, an unknown key, a value of the wrong type or out of range.
    Config {
        /// The configuration file.
        path: PathBuf,
        /// The line (1-based) the problem is on.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A response field the build derived from the site (from a file's name or a page's
    /// reference: `Use-As-Dictionary`, `Link`, a redirect's `Location`) is not one a response
    /// can carry: every value passes the check configured ones pass (`field_check.rs`).
    Field {
        /// The URL path whose responses would carry it.
        path: String,
        /// The field's name.
        name: String,
        /// What is wrong with its value.
        message: String,
    },
    /// A size budget is exceeded.
    Budget {
        /// What is too big, with the largest files.
        message: String,
    },
    /// References to local URLs the site does not serve, with `[links] broken = "error"`.
    BrokenLinks {
        /// Each one, with its file and line.
        links: Vec<crate::warning::Warning>,
    },
    /// `SOURCE_DATE_EPOCH` is set but is not a number of seconds.
    SourceDateEpoch {
        /// The value found.
        value: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotADirectory { path } => write!(
                f,
                "the site directory {} does not exist or is not a directory \
                 (create it, set site.dir in edgesite.toml, or set EDGESITE_SITE)",
                path.shown()
            ),
            Error::EmptySite { path } => write!(
                f,
                "the site directory {} has no file to serve (dotfiles are skipped); add an index.html",
                path.shown()
            ),
            Error::Read { path, source } => write!(f, "cannot read {}: {source}", path.shown()),
            Error::NotUtf8 { path } => write!(
                f,
                "{} has a name that is not UTF-8, so no URL can name it; rename it",
                path.shown()
            ),
            Error::Unservable { path, reason } => {
                write!(f, "{} cannot be served: {reason}; rename it", path.shown())
            }
            Error::SymlinkOutside { path, target } => write!(
                f,
                "the symbolic link {} leads outside the site, to {}; copy the file in instead",
                path.shown(),
                target.shown()
            ),
            Error::SymlinkLoop { path } => write!(
                f,
                "the symbolic link {} leads to one of its own parent directories (a loop); remove it",
                path.shown()
            ),
            Error::ProjectFolder { path, because } => write!(
                f,
                "the site folder {} would publish the project itself ({because}); set site.dir \
                 (or EDGESITE_SITE) to the folder of the site's own files, or set \
                 site.allow_project_files = true if that is meant",
                path.shown()
            ),
            Error::MissingFallback { path, site } => write!(
                f,
                "the SPA fallback {path} is not a file of the site {}; name an existing HTML file such as /index.html",
                site.shown()
            ),
            Error::Config { path, line, message } => write!(
                f,
                "{}:{line}: {}; see docs/configuration.md",
                path.shown(),
                message.trim_end()
            ),
            Error::Field {
                path,
                name,
                message,
            } => write!(
                f,
                "the {name} field the build made for {path:?} cannot be sent: {message}; rename \
                 the file (or report it as a bug of edgesite)"
            ),
            Error::Budget { message } => write!(f, "{message}"),
            Error::BrokenLinks { links } => write!(
                f,
                "{} broken links ([links] broken = \"error\"; fix them, or set broken = \"warn\"):\n{}",
                links.len(),
                links
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
            Error::SourceDateEpoch { value } => write!(
                f,
                "SOURCE_DATE_EPOCH={value:?} is not a number of seconds since 1970; unset it or fix it"
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Read { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl Error {
    /// The error for a bundle that cannot fit `max_bundle_bytes`: `floor` bytes at least, with
    /// the largest of these files (path, bytes stored).
    pub(crate) fn over_budget(
        floor: u64,
        max_bundle_bytes: u64,
        mut files: Vec<(String, u64)>,
    ) -> Error {
        files.sort_by_key(|(_, size)| std::cmp::Reverse(*size));
        let largest: Vec<String> = files
            .iter()
            .take(5)
            .map(|(path, size)| format!("{path} ({size} bytes)"))
            .collect();
        Error::Budget {
            message: format!(
                "the Worker bundle would be at least {floor} bytes, over the limit of {} bytes \
                 ([budget] max_bundle_bytes) with what [compression] store allows; stopped before \
                 compressing everything; the largest files: {}",
                max_bundle_bytes,
                largest.join(", ")
            ),
        }
    }
}

/// The bytes of the file at `path`; an error names it.
pub(crate) fn read_bytes(path: &std::path::Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// A path as the build shows it in errors, warnings and reports: its text with every control
/// character and every bidirectional override escaped (`\n`, `\u{202e}`), so a file name
/// cannot break a line of a log, write a terminal escape or disguise itself.
pub(crate) fn shown(path: &Path) -> Shown<'_> {
    Shown(path)
}

/// See [`shown`].
pub(crate) struct Shown<'a>(&'a Path);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.to_string_lossy().chars() {
            if is_unsafe_to_show(c) {
                write!(f, "{}", c.escape_unicode())?;
            } else {
                fmt::Write::write_char(f, c)?;
            }
        }
        Ok(())
    }
}

/// Controls, and the Unicode controls of bidirectional text (which reorder what a terminal or
/// an editor shows).
fn is_unsafe_to_show(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Lets `path.shown()` stand where `path.display()` would.
pub(crate) trait ShowPath {
    /// See [`shown`].
    fn shown(&self) -> Shown<'_>;
}

impl ShowPath for Path {
    fn shown(&self) -> Shown<'_> {
        Shown(self)
    }
}

/// Text of the site (a line of `_headers` or `_redirects`, a reference in a page) as an error
/// or warning quotes it: quoted and escaped as Rust writes a string, and cut once the escaped
/// text reaches 80 characters (with the full length said), so no file can make a message long
/// or hide text in it.
pub(crate) fn excerpt(text: &str) -> String {
    format!("\"{}\"", escaped(text))
}

/// [`excerpt`] without the quotes.
pub(crate) fn escaped(text: &str) -> String {
    const MAX_CHARS: usize = 80;
    let mut out = String::new();
    let mut shown = 0;
    for c in text.chars() {
        let piece: String = match c {
            '"' | '\\' => format!("\\{c}"),
            c if c.is_control() || is_unsafe_to_show(c) => c.escape_default().to_string(),
            c => c.to_string(),
        };
        let width = piece.chars().count();
        if shown + width > MAX_CHARS {
            out.push_str(&format!("… ({} bytes)", text.len()));
            return out;
        }
        shown += width;
        out.push_str(&piece);
    }
    out
}
