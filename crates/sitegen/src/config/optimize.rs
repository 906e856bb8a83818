//! `[optimize]`: what the build minifies (the optimize stage, `crate::optimize`).

use super::default_true;
use super::key::{first_invalid_glob, Key};
use serde::Deserialize;

/// `[optimize]`: minification of the site's HTML, CSS and JavaScript at build, each kind on or
/// off. Every default is on: the visual check over the corpus (docs/benchmarks.md, "The
/// corpus") found no page that looked or read otherwise with all three on.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimizeConfig {
    /// HTML pages: comments out, each run of whitespace in text one space or one line break
    /// (never inside `<pre>`, `<textarea>`, scripts and styles, nor on a page whose CSS keeps
    /// spaces), and, as `css` and `js` say, the CSS and scripts written in the page.
    #[serde(default = "default_true")]
    pub html: bool,
    /// Stylesheets (and `<style>` when `html`), with lightningcss.
    #[serde(default = "default_true")]
    pub css: bool,
    /// Scripts (and classic or module `<script>` when `html`), with oxc's minifier.
    #[serde(default = "default_true")]
    pub js: bool,
    /// Globs over URL paths (`*` within a segment, `**` across) of files served as written.
    #[serde(default)]
    pub exclude: Vec<String>,
}

impl Default for OptimizeConfig {
    fn default() -> Self {
        OptimizeConfig {
            html: true,
            css: true,
            js: true,
            exclude: Vec::new(),
        }
    }
}

impl OptimizeConfig {
    pub(super) fn first_invalid(&self) -> Option<(Key, String)> {
        first_invalid_glob("optimize", "exclude", &self.exclude)
    }

    /// Whether `path` is served as written.
    pub(crate) fn excludes(&self, path: &str) -> bool {
        self.exclude
            .iter()
            .any(|glob| crate::glob::matches(glob, path))
    }
}
