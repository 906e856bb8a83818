//! # edgesite-native
//!
//! The native twin of the edgesite Worker: the same embedded site ([`edgesite::SITE`]) and the
//! same core, served over HTTP/1.1 by hyper. It exists for local benchmarking, as a
//! single-binary server, and to hold both runtimes to one behaviour in the HTTP test suite.
//!
//! Like the Worker, it only translates: [`respond`] (this file) turns a hyper request into an
//! [`edgesite::RequestHead`] and the core's [`edgesite::Response`] into a hyper response. Bodies
//! are `&'static` slices sent without copying (`Bytes::from_static`), bytes compact storage
//! decoded (`content.rs`), or the objects of the site's store read from its folder
//! (`content/stored.rs`: only the bytes sent, a range its range; a body up to 512 KiB read
//! whole, at most 256 MiB of them held at once, a larger one streamed in chunks as the client
//! takes them: [`Body`]); [`serve`] and the other servers (`serve.rs`) accept the connections.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! edgesite_native::serve(listener, std::future::pending()).await
//! # }
//! ```

mod body;
mod content;
mod serve;

pub use body::Body;
pub use serve::{guarded, serve, serve_threads, serve_with, Settings};

use bytes::Bytes;
use edgesite::RequestHead;
use edgesite_core::{FieldText, HostFieldLines, Site, REQUEST_FIELDS};
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::{HeaderMap, Request, StatusCode, Version};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A response: its body bytes in memory (a `'static` slice of the embedded site, or bytes
/// made or read for it) or a stored object streamed ([`Body`]; `Full<Bytes>` and `Bytes`
/// convert into it).
pub type Response = hyper::Response<Body>;

/// The request fields the core reads ([`REQUEST_FIELDS`]), as pre-built names: looking a field
/// up by `&str` parses and hashes the name on every request.
static FIELD_NAMES: [HeaderName; REQUEST_FIELDS.len()] = [
    header::ACCEPT_ENCODING,
    header::IF_MATCH,
    header::IF_NONE_MATCH,
    header::IF_MODIFIED_SINCE,
    header::IF_UNMODIFIED_SINCE,
    header::IF_RANGE,
    header::RANGE,
    HeaderName::from_static("sec-fetch-mode"),
    header::ACCEPT,
    HeaderName::from_static("available-dictionary"),
];

/// Answers one request from the embedded site ([`edgesite::SITE`]).
pub fn respond<B>(request: &Request<B>) -> Response {
    respond_with(&edgesite::SITE, request)
}

/// Answers one request from `site` (any compiled site, e.g. one a crate embeds with
/// `edgesite_core::include_site!`): always a response, the nearest 404 page included.
pub fn respond_with<B>(site: &'static Site<'static>, request: &Request<B>) -> Response {
    to_hyper(site, &decide(site, request, false))
}

/// The core's answer to `request` (with `Server-Timing` when `timing`), before its body is
/// produced.
fn decide<B>(
    site: &'static Site<'static>,
    request: &Request<B>,
    timing: bool,
) -> edgesite::Response<'static> {
    let values = field_values(request.headers());
    let head = request_head(request, &values);
    let mut response = edgesite::Response::new();
    if timing {
        let epoch = std::time::Instant::now();
        let clock = || u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
        edgesite_core::respond_timed(site, &head, &mut response, clock);
    } else {
        edgesite_core::respond_into(site, &head, &mut response);
    }
    response
}

/// Library mode: the answer to `request` from `site` if the site has something at its path (a
/// file, a redirect, a matching `_redirects` rule, the SPA fallback for a navigation), whatever
/// the method; `None` otherwise, so a server (hyper, or axum through a fallback handler) can
/// answer from its own routes.
///
/// ```no_run
/// # async fn api() -> edgesite_native::Response {
/// #     hyper::Response::new(bytes::Bytes::from_static(b"api").into())
/// # }
/// async fn handle(request: hyper::Request<hyper::body::Incoming>) -> edgesite_native::Response {
///     match edgesite_native::respond_if_served(&edgesite::SITE, &request) {
///         Some(response) => response,
///         None => api().await,
///     }
/// }
/// ```
pub fn respond_if_served<B>(
    site: &'static Site<'static>,
    request: &Request<B>,
) -> Option<Response> {
    let values = field_values(request.headers());
    let head = request_head(request, &values);
    let mut response = edgesite::Response::new();
    edgesite_core::respond_if_served(site, &head, &mut response).then(|| to_hyper(site, &response))
}

/// [`respond_with`], with `Server-Timing: lookup;dur=.., negotiation;dur=.., total;dur=..`
/// (milliseconds, timed by the core's phases with this process's monotonic clock).
pub fn respond_timed<B>(site: &'static Site<'static>, request: &Request<B>) -> Response {
    to_hyper(site, &decide(site, request, true))
}

/// The values of the fields the core reads, in [`REQUEST_FIELDS`] order, and the number of Host
/// field lines.
struct FieldValues<'h> {
    values: [Option<Cow<'h, [u8]>>; REQUEST_FIELDS.len()],
    hosts: usize,
}

/// Reads the fields in one pass over the request's (a request has a few; looking up each of the
/// core's [`REQUEST_FIELDS`] by name would hash every name). Several lines of one field are one comma-separated
/// list (RFC 9110 §5.3).
fn field_values(headers: &HeaderMap) -> FieldValues<'_> {
    let mut read = FieldValues {
        values: Default::default(),
        hosts: 0,
    };
    for (name, value) in headers {
        if name == header::HOST {
            read.hosts += 1;
            continue;
        }
        let Some(i) = FIELD_NAMES.iter().position(|n| n == name) else {
            continue;
        };
        read.values[i] = Some(match read.values[i].take() {
            None => Cow::Borrowed(value.as_bytes()),
            Some(earlier) => {
                let mut joined = earlier.into_owned();
                joined.extend_from_slice(b", ");
                joined.extend_from_slice(value.as_bytes());
                Cow::Owned(joined)
            }
        });
    }
    read
}

/// The core's view of `request`: method, target, the fields it reads, and how many Host field
/// lines there were (RFC 9112 §3.2 is the core's to apply: [`HostFieldLines`]).
fn request_head<'r, B>(request: &'r Request<B>, read: &'r FieldValues<'_>) -> RequestHead<'r> {
    let target = request.uri().path_and_query().map_or("/", |p| p.as_str());
    let mut head = RequestHead::new(request.method().as_str(), target);
    for (name, value) in REQUEST_FIELDS.iter().zip(&read.values) {
        if let Some(value) = value {
            head.set_field(name, value);
        }
    }
    head.host = Some(HostFieldLines {
        count: read.hosts,
        http_1_1: request.version() == Version::HTTP_11,
    });
    head
}

/// Copies the core's response into a hyper response: fields as they are; a body slice of the
/// site is not copied, a multipart body is assembled once, a representation compact storage
/// did not keep is decoded (once; see `content.rs`), an object of the store is read. If a
/// body cannot be produced, the answer has no fields of the site: 503 with Retry-After when the
/// store does not hold the object the tables name (`edgesite_core::store_unavailable`), 500
/// for anything else (a corrupt representation, which the build's hashes make impossible for a
/// compiled site).
fn to_hyper(site: &'static Site<'static>, response: &edgesite::Response<'static>) -> Response {
    let body = content::body(site_key(site), store(site), &response.body);
    with_body(response, body)
}

/// Where the objects of `site`'s store are read from: the folder [`set_store`] named, else the
/// one its build wrote them into ([`Site::store`]).
fn store(site: &'static Site<'static>) -> &'static Path {
    STORE.get().map_or(Path::new(site.store), PathBuf::as_path)
}

/// The folder `site`'s stored files are read from, if it keeps any in a store.
pub fn store_folder(site: &'static Site<'static>) -> Option<&'static Path> {
    (!site.store.is_empty()).then(|| store(site))
}

static STORE: OnceLock<PathBuf> = OnceLock::new();

/// Reads every site's stored objects from `dir` rather than from the folder its build wrote
/// them into (`edgesite-native --store DIR`: the binary served from another machine, with the
/// folder copied beside it). Once per process; `false` if a folder was already set.
pub fn set_store(dir: PathBuf) -> bool {
    STORE.set(dir).is_ok()
}

/// `response` as a hyper response with `body` (its content, or why it could not be had).
fn with_body(
    response: &edgesite::Response<'static>,
    body: Result<Body, content::Unavailable>,
) -> Response {
    let body = match body {
        Ok(body) => body,
        Err(content::Unavailable::Internal) => return internal_error(),
        Err(content::Unavailable::Store) => {
            let mut unavailable = edgesite::Response::new();
            edgesite_core::store_unavailable(&mut unavailable);
            let edgesite_core::Body::Bytes(text) = unavailable.body else {
                return internal_error();
            };
            return with_body(&unavailable, Ok(Bytes::from_static(text).into()));
        }
    };
    let mut out = hyper::Response::new(body);
    // The core answers only statuses it names (200..416), all valid.
    *out.status_mut() = StatusCode::from_u16(response.status).unwrap_or(StatusCode::OK);
    let headers = out.headers_mut();
    // http's map panics when asked to reserve past 32,768 fields; sitegen bounds a file's
    // fields far below that, this holds for a hand-built Site too.
    headers.reserve(response.fields.len().min(1024) + 1);
    for (name, value) in response.fields.iter() {
        if let (Some(name), Some(value)) = (header_name(name), header_value(&value)) {
            headers.append(name, value);
        }
    }
    out
}

/// A field name for hyper: the core's own names as http's constants (no parsing per request),
/// a configured one (a lower-case token sitegen checked) parsed; `None` (the field is left out)
/// only for a hand-built [`Site`] with a bad name: never a panic.
fn header_name(name: &'static str) -> Option<HeaderName> {
    Some(match name {
        "content-type" => header::CONTENT_TYPE,
        "content-length" => header::CONTENT_LENGTH,
        "content-encoding" => header::CONTENT_ENCODING,
        "content-range" => header::CONTENT_RANGE,
        "etag" => header::ETAG,
        "last-modified" => header::LAST_MODIFIED,
        "cache-control" => header::CACHE_CONTROL,
        "accept-ranges" => header::ACCEPT_RANGES,
        "vary" => header::VARY,
        "location" => header::LOCATION,
        "allow" => header::ALLOW,
        "x-content-type-options" => header::X_CONTENT_TYPE_OPTIONS,
        "referrer-policy" => header::REFERRER_POLICY,
        // A configured name: a lower-case token (sitegen checked it), sent without copying.
        other
            if other
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') =>
        {
            HeaderName::from_static(other)
        }
        other => return HeaderName::from_bytes(other.as_bytes()).ok(),
    })
}

/// A field value for hyper. hyper checks every byte either way; a value of the site is then
/// shared, not copied. Values of a sitegen-compiled site passed the same check at build time
/// (sitegen's `field_check.rs`), and the core formats only digits and visible ASCII, so `None` (the field is
/// left out) is only possible for a hand-built [`Site`] with a bad value: never a panic.
fn header_value(value: &FieldText<'static, '_>) -> Option<HeaderValue> {
    match value.as_static() {
        Some(value) => HeaderValue::from_maybe_shared(Bytes::from_static(value.as_bytes())).ok(),
        None => HeaderValue::from_str(value).ok(),
    }
}

/// What keys `site`'s entries in the decoded cache (ids are unique per site).
fn site_key(site: &'static Site<'static>) -> usize {
    site as *const Site<'static> as usize
}

/// A bare 500 that no cache stores.
fn internal_error() -> Response {
    let mut failed = hyper::Response::new(Body::from(Bytes::new()));
    *failed.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    failed
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    failed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names_are_the_cores_request_fields_in_order() {
        let names: Vec<&str> = FIELD_NAMES.iter().map(HeaderName::as_str).collect();
        assert_eq!(names, REQUEST_FIELDS);
    }
}
