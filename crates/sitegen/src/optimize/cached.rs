//! The optimize stage's entries in the build's cache (`cache_dir/optimize/`, [`StageCache`]):
//! a rebuild with a file unchanged reads its minified bytes (and a page's survey) instead of
//! making them again. An entry is named by what was read and how (the kind, the page's
//! allowances) and by the stage's own text, with the crate's manifest and the workspace's
//! lockfile (the minifiers' versions resolved). Only what is made without a warning is kept: a file kept as written with a
//! warning is read again each build, so the warning is said each build.

use super::html::Survey;
use crate::stage_cache::StageCache;
use std::path::Path;

/// The stage's own text: what makes an entry (the lockfile: the minifiers' versions resolved).
const STAGE: [&str; 8] = [
    include_str!("mod.rs"),
    include_str!("cached.rs"),
    include_str!("css.rs"),
    include_str!("js.rs"),
    include_str!("html.rs"),
    include_str!("guard.rs"),
    include_str!("../../Cargo.toml"),
    include_str!("../../../../Cargo.lock"),
];

/// The stage's entries in `cache_dir`, if the build has one.
pub(super) fn cache(cache_dir: Option<&Path>) -> StageCache {
    StageCache::new(cache_dir, "optimize", &STAGE)
}

/// A page's survey as an entry: its four answers, then each name it loads with `integrity`
/// after a line break; `None` if a name holds one.
pub(super) fn survey_bytes(survey: &Survey) -> Option<Vec<u8>> {
    let flags = [
        survey.import_integrity,
        survey.scripts,
        survey.hydrated,
        survey.foreign_styles,
    ];
    let mut out: Vec<u8> = flags.iter().map(|&f| if f { b'1' } else { b'0' }).collect();
    for name in &survey.integrity {
        if name.contains('\n') {
            return None;
        }
        out.push(b'\n');
        out.extend_from_slice(name.as_bytes());
    }
    Some(out)
}

/// A survey read back from [`survey_bytes`].
pub(super) fn survey_of(bytes: &[u8]) -> Option<Survey> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut lines = text.split('\n');
    let flags: Vec<bool> = lines.next()?.bytes().map(|b| b == b'1').collect();
    let [import_integrity, scripts, hydrated, foreign_styles] = flags[..] else {
        return None;
    };
    Some(Survey {
        integrity: lines.map(str::to_string).collect(),
        import_integrity,
        scripts,
        hydrated,
        foreign_styles,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_survey_reads_back_as_it_was() {
        let survey = Survey {
            integrity: vec!["/a.js".into(), "b c.css".into()],
            import_integrity: false,
            scripts: true,
            hydrated: false,
            foreign_styles: true,
        };
        assert_eq!(survey_of(&survey_bytes(&survey).unwrap()), Some(survey));
        let none = Survey::default();
        assert_eq!(survey_of(&survey_bytes(&none).unwrap()), Some(none));
        let broken = Survey {
            integrity: vec!["a\nb".into()],
            ..Survey::default()
        };
        assert_eq!(survey_bytes(&broken), None);
    }
}
