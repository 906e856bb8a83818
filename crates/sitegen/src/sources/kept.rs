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
            // Read in pieces, never whole (an earlier deploy's download may be larger than the
            // build's memory), and only a name that may carry a hash.
            if !crate::cache::may_name_a_hash(path) {
                continue;
            }
            let wanted = hash::Wanted {
                sri: false,
                legacy: true,
            };
            let Ok(read) = hash::file_digests(&history.body_path(sha), wanted) else {
                continue;
            };
            // A body the folder no longer holds intact is skipped.
            if hash::hex(&read.sha256) != *sha
                || !crate::cache::is_fingerprinted_by(path, &read.sha256, read.legacy)
            {
                continue;
            }
            served.insert(path.clone());
            kept.files += 1;
            kept.bytes += read.len;
            found.push(Found {
                url_path: path.clone(),
                source: Source::File(history.body_path(sha)),
            });
        }
    }
    kept
}
