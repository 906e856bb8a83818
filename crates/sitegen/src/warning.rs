//! What the build warns of, as values: a [`Warning`] has a kind, a place (file and line) and a
//! message, the shape lightningcss gives its errors and warnings (`Error<T> { kind, loc }`).
//! The stages make them; the terminal (`build_script`), `report.txt` and `report.html` render
//! them, and tests ask for them by kind.

use serde::Serialize;
use std::fmt;
use std::path::PathBuf;

/// What a warning is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum WarningKind {
    /// An entry of the site the walk skipped: its name has a control character.
    SkippedName,
    /// An image the image stage could not or would not read (over its bounds, not decodable):
    /// served as published.
    ImageNotRead,
    /// A page, stylesheet or script (or a `<style>` or `<script>` in a page) the optimize stage
    /// served as written: its minifier could not read it, or gained too little.
    NotOptimized,
    /// An HTML or CSS file whose references were not read (not UTF-8, or HTML the scanner
    /// refused): not checked or fingerprinted.
    LinksNotRead,
    /// A reference to a local URL the site does not serve (`[links] broken = "warn"`).
    BrokenLink,
    /// References left without `?v=` because the files reference each other.
    ReferenceCycle,
    /// A `_redirects` redirect from a path a file is served at: the file is hidden.
    RedirectHidesFile,
    /// A `_headers` rule that matches no file (or, without a line, a count of more).
    UnusedHeaderRule,
    /// Image variants left out so that the bundle fits its budget.
    VariantsLeftOut,
    /// The bundle, or a file, past 80% of its limit.
    NearBudget,
    /// A page without a Markdown twin, or an llms.txt not made, and why (`[agents]`).
    AgentsSkipped,
}

impl WarningKind {
    /// Its name in the reports (report.txt, report.html): `broken_link`.
    pub fn name(self) -> &'static str {
        match self {
            WarningKind::SkippedName => "skipped_name",
            WarningKind::ImageNotRead => "image_not_read",
            WarningKind::NotOptimized => "not_optimized",
            WarningKind::LinksNotRead => "links_not_read",
            WarningKind::BrokenLink => "broken_link",
            WarningKind::ReferenceCycle => "reference_cycle",
            WarningKind::RedirectHidesFile => "redirect_hides_file",
            WarningKind::UnusedHeaderRule => "unused_header_rule",
            WarningKind::VariantsLeftOut => "variants_left_out",
            WarningKind::NearBudget => "near_budget",
            WarningKind::AgentsSkipped => "agents_skipped",
        }
    }

    /// The word that starts the warning's line, for the kinds whose message does not say
    /// where it comes from.
    fn label(self) -> Option<&'static str> {
        match self {
            WarningKind::ImageNotRead => Some("images"),
            WarningKind::NearBudget => Some("budget"),
            WarningKind::NotOptimized => Some("optimize"),
            WarningKind::AgentsSkipped => Some("agents"),
            _ => None,
        }
    }
}

/// The 1-based line of byte `offset` in `text` (where a warning points).
pub(crate) fn line_of(text: &[u8], offset: usize) -> usize {
    1 + text[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// Something worth a look that does not fail the build. Shown as one line:
/// `[label: ][file[:line]: ]message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// What it is about.
    pub kind: WarningKind,
    /// The file it is about, as the build shows names (escaped): a path of the site or a URL
    /// path (`None`: the site as a whole).
    pub file: Option<String>,
    /// The line of `file` (1-based), when it is about one.
    pub line: Option<usize>,
    /// What it says.
    pub message: String,
}

impl Warning {
    /// A warning of `kind` about the site as a whole.
    pub(crate) fn new(kind: WarningKind, message: impl Into<String>) -> Warning {
        Warning {
            kind,
            file: None,
            line: None,
            message: message.into(),
        }
    }

    /// The same, about `file` (shown as the build shows names: see `error::shown`).
    pub(crate) fn in_file(mut self, file: impl fmt::Display) -> Warning {
        self.file = Some(file.to_string());
        self
    }

    /// The same, at `line` of its file.
    pub(crate) fn at_line(mut self, line: usize) -> Warning {
        self.line = Some(line);
        self
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(label) = self.kind.label() {
            write!(f, "{label}: ")?;
        }
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "{file}:{line}: ")?,
            (Some(file), None) => write!(f, "{file}: ")?,
            _ => {}
        }
        f.write_str(&self.message)
    }
}

/// What a stage noticed beside its output: its warnings, and the files it read (which a build
/// script names in `cargo:rerun-if-changed`). The wiring gathers every stage's.
#[derive(Debug, Default)]
pub(crate) struct Notes {
    pub(crate) warnings: Vec<Warning>,
    pub(crate) tracked: Vec<PathBuf>,
}

impl Notes {
    /// `all`, one after the other.
    pub(crate) fn gather(all: impl IntoIterator<Item = Notes>) -> Notes {
        let mut gathered = Notes::default();
        for notes in all {
            gathered.warnings.extend(notes.warnings);
            gathered.tracked.extend(notes.tracked);
        }
        gathered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warning_is_one_line_of_label_file_line_and_message() {
        let broken = Warning::new(WarningKind::BrokenLink, "broken link \"a.png\": ...");
        assert_eq!(
            broken
                .clone()
                .in_file("public/index.html")
                .at_line(7)
                .to_string(),
            "public/index.html:7: broken link \"a.png\": ..."
        );
        let image = Warning::new(WarningKind::ImageNotRead, "6000x6000: over max_pixels");
        assert_eq!(
            image.in_file("/a.png").to_string(),
            "images: /a.png: 6000x6000: over max_pixels"
        );
        let budget = Warning::new(
            WarningKind::NearBudget,
            "the Worker bundle is about 9 bytes",
        );
        assert_eq!(
            budget.to_string(),
            "budget: the Worker bundle is about 9 bytes"
        );
        assert_eq!(broken.kind.name(), "broken_link");
    }
}
