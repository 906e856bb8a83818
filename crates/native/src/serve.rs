//! The server: HTTP/1.1 connections accepted, each request answered by [`respond`]'s path
//! (with decoding off the runtime's thread, and a panic kept to its request), under a bound on
//! connections, one runtime per thread.

// `guarded` catches a panic of one request only if panics unwind: the workspace's release
// profile must not say `panic = "abort"` (the Worker's profile does, as wasm32 must).
#[cfg(panic = "abort")]
compile_error!("edgesite-native must be built with panics that unwind (see `guarded`)");

use super::{content, decide, internal_error, site_key, to_hyper, with_body, Response};
use edgesite_core::Site;
use hyper::body::Incoming;
use hyper::header;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

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
    /// How long one write to a client may wait for the client to read (a client that stops
    /// reading a body); then the connection is closed, and the body's bytes held for it are
    /// given back. A slow client that keeps reading is not affected: each write that completes
    /// starts the wait again (nginx's `send_timeout`, 60 s by default, counts the same way).
    pub write_timeout: Duration,
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
            write_timeout: Duration::from_secs(60),
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
            Some(body) => guarded(|| with_body(&decided, body.map(crate::Body::from))),
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
        // A write pending past the write timeout fails, and hyper closes the connection.
        let mut stream = tokio_io_timeout::TimeoutStream::new(stream);
        stream.set_write_timeout(Some(settings.write_timeout));
        let io = TokioIo::new(Box::pin(stream));
        let connection = graceful.watch(builder.serve_connection(io, service));
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
}
