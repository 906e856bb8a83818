//! The entry points adapters call: [`decide`], then [`render`], in one step.

use crate::decision::decide;
use crate::lookup::{serves, Scratch};
use crate::render::render;
use crate::request::RequestHead;
use crate::response::Response;
use crate::site::Site;

/// The complete answer to `request` from `site`: [`decide`], then [`render`]. Allocates nothing
/// and never panics.
pub fn respond<'a>(site: &'a Site<'a>, request: &RequestHead<'_>) -> Response<'a> {
    let mut response = Response::new();
    respond_into(site, request, &mut response);
    response
}

/// [`respond`], written into `response` (whatever it held before is replaced). A [`Response`]
/// has room for a written Location, which makes it large: adapters build one in place and let
/// this fill it rather than move one around.
pub fn respond_into<'a>(
    site: &'a Site<'a>,
    request: &RequestHead<'_>,
    response: &mut Response<'a>,
) {
    let mut scratch = Scratch::new();
    render(&decide(site, request, &mut scratch), response);
}

/// [`respond_into`] if the site [`serves`] the request's path; `false` (and `response`
/// untouched) if not, so the caller can answer from its own routes.
pub fn respond_if_served<'a>(
    site: &'a Site<'a>,
    request: &RequestHead<'_>,
    response: &mut Response<'a>,
) -> bool {
    if !serves(site, request) {
        return false;
    }
    respond_into(site, request, response);
    true
}
