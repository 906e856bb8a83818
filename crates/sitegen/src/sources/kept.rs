//! Skew protection: the files of earlier deploys the site goes on serving.

use super::Found;
use crate::hash;
use crate::history::History;
use crate::model::{Kept, Source};
use std::collections::BTreeSet;

/// Adds to `found` (the current site's files) the files of the kept deploys (`history`, opened
/// from `Options::history_dir`) to go on serving: those whose name carries a verified hash of their
/// bytes (so the URL names those bytes forever, and a page of an earlier deploy still open in a
/// browser finds them) and which the current site does not serve. Newest deploy first; a body
/// the folder no longer holds intact is skipped.
pub(super) fn add_kept_files(history: Option<&History>, found: &mut Vec<Found>) -> Kept {
    let Some(history) = history else {
        return Kept::default();
    };
    let mut served: BTreeSet<String> = found.iter().map(|f| f.url_path.clone()).collect();
    let mut kept = Kept::default();
    for deploy in &history.deploys {
        for (path, sha) in &deploy.files {
            // A path no walk would have produced (a hand-edited history) is not served.
            if served.contains(path) || edgesite_core::canonical_path(path) != Some(path.as_str()) {
                continue;
            }
            let Some(bytes) = history.body(sha) else {
                continue;
            };
            if !crate::cache::is_fingerprinted(path, &bytes, &hash::sha256(&bytes)) {
                continue;
            }
            served.insert(path.clone());
            kept.files += 1;
            kept.bytes += bytes.len() as u64;
            found.push(Found {
                url_path: path.clone(),
                source: Source::File(history.body_path(sha)),
            });
        }
    }
    kept
}
