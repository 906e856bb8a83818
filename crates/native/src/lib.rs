//! # edgesite-native
//!
//! The native twin of the edgesite Worker: the same embedded site ([`edgesite::SITE`]) and the
//! same core, served over HTTP/1.1 by hyper. It exists for local benchmarking, as a
//! single-binary server, and to hold both runtimes to one behaviour in the HTTP test suite.
//!
//! Like the Worker, it only translates: [`respond`] turns a hyper request into an
//! [`edgesite::RequestHead`] and the core's [`edgesite::Response`] into a hyper response. Bodies
//! are `&'static` slices sent without copying (`Bytes::from_static`).
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! edgesite_native::serve(listener, std::future::pending()).await
//! # }
//! ```

mod content;

// `guarded` catches a panic of one request only if panics unwind: the workspace's release
// profile must not say `panic = "abort"` (the Worker's profile does, as wasm32 must).
#[cfg(panic = "abort")]
compile_error!("edgesite-native must be built with panics that unwind (see `guarded`)");

use bytes::Bytes;
use edgesite::RequestHead;
use edgesite_core::{FieldText, HostFieldLines, Site, REQUEST_FIELDS};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{HeaderMap, Request, StatusCode, Version};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use std::borrow::Cow;
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// A response with a body that is a `'static` slice of the embedded site.
pub type Response = hyper::Response<Full<Bytes>>;

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
/// #     hyper::Response::new(http_body_util::Full::new(bytes::Bytes::from_static(b"api")))
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
/// core's nine by name hashes nine names). Several lines of one field are one comma-separated
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
/// did not keep is decoded (once; see `content.rs`). If a body cannot be produced (a corrupt
/// stored representation, which the build's hashes make impossible for a compiled site), the
/// answer is 500 with no fields of the site.
fn to_hyper(site: &'static Site<'static>, response: &edgesite::Response<'static>) -> Response {
    with_body(response, content::bytes(site_key(site), &response.body))
}

/// `response` as a hyper response with `body` (its content, or why it could not be had).
fn with_body(
    response: &edgesite::Response<'static>,
    body: Result<Bytes, content::Unavailable>,
) -> Response {
    let Ok(body) = body else {
        return internal_error();
    };
    let mut out = hyper::Response::new(Full::new(body));
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
/// (`field.rs`), and the core formats only digits and visible ASCII, so `None` (the field is
/// left out) is only possible for a hand-built [`Site`] with a bad value: never a panic.
fn header_value(value: &FieldText<'static, '_>) -> Option<HeaderValue> {
    match value.as_static() {
        Some(value) => HeaderValue::from_maybe_shared(Bytes::from_static(value.as_bytes())).ok(),
        None => HeaderValue::from_str(value).ok(),
    }
}

/// Serves `addr` with `workers` threads, each with a single-threaded runtime and a listener of its
/// own on the same address (`SO_REUSEPORT`: the kernel spreads connections between them), all
/// counting against one [`Settings::max_connections`]: a thread per core, as nginx runs its
/// workers, so no request waits behind another thread's work or a work-stealing handoff. Calls
/// `ready` with the bound address (the port resolved when `addr`'s is 0), then serves until
/// `shutdown` is sent `true`, drains as [`serve_with`] does, and returns.
///
/// # Errors
/// When `addr` cannot be bound, or a runtime cannot start.
pub fn serve_threads(
    addr: std::net::SocketAddr,
    workers: usize,
    settings: &Settings,
    shutdown: tokio::sync::watch::Receiver<bool>,
    ready: impl FnOnce(std::net::SocketAddr),
) -> std::io::Result<()> {
    let connections = Arc::new(Semaphore::new(settings.max_connections));
    let first = reuseport_listener(addr)?;
    let addr = first.local_addr()?;
    ready(addr);
    let mut listeners = vec![first];
    for _ in 1..workers.max(1) {
        listeners.push(reuseport_listener(addr)?);
    }
    std::thread::scope(|scope| {
        let threads: Vec<_> = listeners
            .into_iter()
            .map(|listener| {
                let (settings, connections) = (settings.clone(), connections.clone());
                let mut shutdown = shutdown.clone();
                scope.spawn(move || -> std::io::Result<()> {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()?;
                    runtime.block_on(async move {
                        let listener = TcpListener::from_std(listener)?;
                        let stop = async move {
                            let _ = shutdown.wait_for(|stop| *stop).await;
                        };
                        serve_sharing(listener, &settings, connections, stop, decide).await
                    })
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|_| Err(std::io::ErrorKind::Other.into()))
            })
            .collect::<std::io::Result<Vec<()>>>()
            .map(drop)
    })
}

/// A non-blocking listener on `addr` with `SO_REUSEPORT`, so several can share the address.
fn reuseport_listener(addr: std::net::SocketAddr) -> std::io::Result<std::net::TcpListener> {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    socket.set_reuse_address(true)?;
    socket.set_reuse_port(true)?;
    socket.bind(&addr.into())?;
    socket.listen(1024)?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}

/// The settings of [`serve_with`]: resource limits (each bounds what a client can hold or make
/// the server hold) and observability (off by default, so benchmarks measure the server alone).
/// [`Settings::default`] gives the values `edgesite-native` starts with.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Connections served at once; past it a new connection gets `503 Service Unavailable`
    /// with `Retry-After: 1` and is closed, so an overload sheds load instead of queueing it.
    pub max_connections: usize,
    /// The largest request head (request line and header fields), in bytes; larger → 431
    /// (RFC 6585 §5). At least 8,192.
    pub max_header_bytes: usize,
    /// The most header fields in a request; more → 431. hyper's stack-allocated default.
    pub max_headers: usize,
    /// How long a client may take to send a complete request head (slowloris); then the
    /// connection is closed.
    pub header_timeout: Duration,
    /// On shutdown, how long in-flight requests may take to finish before connections are
    /// dropped.
    pub drain_timeout: Duration,
    /// One line per request on standard output: method, path, status, content coding, body
    /// bytes, time to answer.
    pub log_requests: bool,
    /// `Server-Timing: lookup;dur=.., negotiation;dur=.., total;dur=..` (milliseconds, W3C
    /// Server Timing) on every response, for the browser's network panel.
    pub server_timing: bool,
    /// The site served: the embedded [`edgesite::SITE`] by default; any compiled site (one a
    /// crate embeds with `edgesite_core::include_site!`, or a compile sitegen leaked for the
    /// life of the process, as the tests serve their fixtures).
    pub site: &'static Site<'static>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_connections: 10_000,
            max_header_bytes: 16 * 1024,
            max_headers: 100,
            header_timeout: Duration::from_secs(10),
            drain_timeout: Duration::from_secs(10),
            log_requests: false,
            server_timing: false,
            site: &edgesite::SITE,
        }
    }
}

/// Serves HTTP/1.1 connections from `listener` with the default [`Settings`] until `shutdown`
/// completes, then drains (see [`serve_with`]).
///
/// # Errors
/// Only if accepting fails in a way that is not about one connection.
pub async fn serve(
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    serve_with(listener, &Settings::default(), shutdown).await
}

/// How a server decides a request: [`decide`] (a test passes one that panics).
type Decide = fn(&'static Site<'static>, &Request<Incoming>, bool) -> edgesite::Response<'static>;

/// The server's answer to `request`: the core decides on the runtime's thread; a body that
/// must be decoded first (compact storage, not in the decoded cache) is produced on the
/// blocking pool, so a large inflate never stalls the other connections of this thread. With
/// `log`, one line per request on standard output.
async fn answer(
    site: &'static Site<'static>,
    request: Request<Incoming>,
    decide: Decide,
    (log, timing): (bool, bool),
) -> Response {
    let started = std::time::Instant::now();
    let response = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        decide(site, &request, timing)
    })) {
        Err(_) => internal_error(),
        Ok(decided) => match content::without_decoding(site_key(site), &decided.body) {
            Some(body) => guarded(|| with_body(&decided, body)),
            None => tokio::task::spawn_blocking(move || guarded(|| to_hyper(site, &decided)))
                .await
                .unwrap_or_else(|_| internal_error()),
        },
    };
    if log {
        let headers = response.headers();
        let coding = headers
            .get(header::CONTENT_ENCODING)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("identity");
        let bytes = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("-");
        println!(
            "{} {} {} {coding} {bytes} {}us",
            request.method(),
            request.uri().path(),
            response.status().as_u16(),
            started.elapsed().as_micros()
        );
    }
    response
}

/// What keys `site`'s entries in the decoded cache (ids are unique per site).
fn site_key(site: &'static Site<'static>) -> usize {
    site as *const Site<'static> as usize
}

/// A bare 500 that no cache stores.
fn internal_error() -> Response {
    let mut failed = hyper::Response::new(Full::new(Bytes::new()));
    *failed.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    failed
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    failed
}

/// `respond()`'s answer, or a bare 500 if it panics: one request's failure (a bug, or a
/// hand-built [`Site`] that breaks an invariant) never takes the server or its other
/// connections down. The release profile unwinds (the workspace's `Cargo.toml`) so that this
/// can catch it; the Worker's profile aborts, as wasm32 must.
pub fn guarded(respond: impl FnOnce() -> Response) -> Response {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(respond))
        .unwrap_or_else(|_| internal_error())
}

/// The answer to a connection past [`Settings::max_connections`] (RFC 9110 §15.6.4).
const OVERLOADED: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 1\r\ncache-control: no-store\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: 24\r\nconnection: close\r\n\r\n503 Service Unavailable\n";

/// Serves HTTP/1.1 connections from `listener` with `settings` until `shutdown` completes.
/// Then it stops accepting, lets in-flight requests finish (their responses say
/// `connection: close`; idle keep-alive connections are closed) for up to
/// [`Settings::drain_timeout`], and returns.
///
/// # Errors
/// Only if accepting fails in a way that is not about one connection.
pub async fn serve_with(
    listener: TcpListener,
    settings: &Settings,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let connections = Arc::new(Semaphore::new(settings.max_connections));
    serve_sharing(listener, settings, connections, shutdown, decide).await
}

/// [`serve_with`], counting connections against `connections`, which other listeners may share
/// (see [`serve_threads`]).
async fn serve_sharing(
    listener: TcpListener,
    settings: &Settings,
    connections: Arc<Semaphore>,
    shutdown: impl Future<Output = ()>,
    decide: Decide,
) -> std::io::Result<()> {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(settings.header_timeout)
        .max_buf_size(settings.max_header_bytes.max(8192))
        .max_header_size(settings.max_header_bytes);
    if settings.max_headers != 100 {
        // hyper keeps 100 header slots on the stack and allocates per request past that.
        builder.max_headers(settings.max_headers);
    }
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (mut stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(connection) => connection,
                // Per-connection errors (e.g. ECONNABORTED, EMFILE) must not stop the server.
                Err(_) => continue,
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            tokio::spawn(async move {
                let _ = stream.write_all(OVERLOADED).await;
                let _ = stream.shutdown().await;
            });
            continue;
        };
        let (log, timing, site) = (settings.log_requests, settings.server_timing, settings.site);
        let service = service_fn(move |request| async move {
            Ok::<_, Infallible>(answer(site, request, decide, (log, timing)).await)
        });
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            let _ = connection.await;
            drop(permit);
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(settings.drain_timeout) => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic while answering one request is that request's 500 (`no-store`): the server goes
    /// on answering, on a new connection and on the one that saw the panic.
    #[test]
    fn a_server_that_panicked_in_one_request_goes_on_serving() {
        use std::io::{Read, Write};
        fn panics_on(
            site: &'static Site<'static>,
            request: &Request<Incoming>,
            timing: bool,
        ) -> edgesite::Response<'static> {
            assert!(request.uri().path() != "/panic", "a bug in one request");
            decide(site, request, timing)
        }
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        listener.set_nonblocking(true).unwrap();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = TcpListener::from_std(listener).unwrap();
                let settings = Settings::default();
                let connections = Arc::new(Semaphore::new(8));
                let never = std::future::pending::<()>();
                serve_sharing(listener, &settings, connections, never, panics_on).await
            })
        });
        let prior = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        let status = |stream: &mut std::net::TcpStream, path: &str| {
            write!(stream, "GET {path} HTTP/1.1\r\nHost: t\r\n\r\n").unwrap();
            let mut buf = [0u8; 65536];
            let n = stream.read(&mut buf).unwrap();
            String::from_utf8_lossy(&buf[..n]).into_owned()
        };
        let failed = status(&mut stream, "/panic");
        assert!(
            failed.starts_with("HTTP/1.1 500 Internal Server Error\r\n"),
            "{failed}"
        );
        assert!(
            failed.contains("\r\ncache-control: no-store\r\n"),
            "{failed}"
        );
        assert!(status(&mut stream, "/").starts_with("HTTP/1.1 200 OK\r\n"));
        let mut again = std::net::TcpStream::connect(addr).unwrap();
        assert!(status(&mut again, "/").starts_with("HTTP/1.1 200 OK\r\n"));
        std::panic::set_hook(prior);
    }

    #[test]
    fn field_names_are_the_cores_request_fields_in_order() {
        let names: Vec<&str> = FIELD_NAMES.iter().map(HeaderName::as_str).collect();
        assert_eq!(names, REQUEST_FIELDS);
    }
}
