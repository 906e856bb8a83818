//! Where a reference leads, asked of edgesite-core itself over the compiled routes, the
//! `_redirects` rules and the SPA fallback: the same answer a browser will get.

use edgesite_core::{decide, respond, RequestHead, Scratch, Site};

/// The most local redirects followed (as a browser's 20, but a site's own chain this long is
/// a mistake anyway).
const MAX_REDIRECTS: usize = 10;

/// Where a request target leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// The file with this index; `redirected_to`: the local target that served it, when the
    /// request was redirected there; `permanent`: every redirect on the way was permanent
    /// (301 or 308, RFC 9110 §15.4.2, §15.4.9: links may name where it leads).
    File {
        index: usize,
        redirected_to: Option<String>,
        permanent: bool,
    },
    /// A redirect to another site (not followed).
    Elsewhere,
    /// Nothing: a 404 (or another error).
    Missing,
}

/// Resolves `target` (an origin-form request target) as a GET with no conditionals;
/// `navigation` sends `Sec-Fetch-Mode: navigate` (what the SPA fallback answers).
pub(crate) fn resolve(site: &Site<'_>, target: &str, navigation: bool) -> Resolved {
    let mut current = target.to_string();
    let mut permanent = true;
    for hop in 0..=MAX_REDIRECTS {
        let mut request = RequestHead::new("GET", &current);
        if navigation {
            request.sec_fetch_mode = Some(b"navigate");
        }
        let mut scratch = Scratch::new();
        let decision = decide(site, &request, &mut scratch);
        if let Some(asset) = decision.outcome.resource() {
            return Resolved::File {
                index: asset.last_modified_unix as usize,
                redirected_to: (hop > 0).then(|| current.clone()),
                permanent,
            };
        }
        let response = respond(site, &request);
        if !(300..400).contains(&response.status) {
            return Resolved::Missing;
        }
        permanent &= matches!(response.status, 301 | 308);
        let Some(location) = response.field("location").map(|l| l.to_string()) else {
            return Resolved::Missing;
        };
        if !location.starts_with('/') || location.starts_with("//") {
            return Resolved::Elsewhere;
        }
        current = location;
    }
    Resolved::Missing
}
