//! The native server's resource limits and shutdown, over real loopback sockets: request-head
//! size and field count (431), the request-head timeout (slowloris), the write timeout (a
//! client that stops reading), the connection limit (503
//! with Retry-After, then served again), Host validation (RFC 9112 §3.2), and SIGTERM draining
//! an in-flight request before the process exits 0.

use edgesite_native::{serve_with, Settings};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Starts `serve_with(limits)` on a free port in a background runtime; returns the address.
fn start(limits: Settings) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            serve_with(listener, &limits, std::future::pending())
                .await
                .unwrap();
        });
    });
    addr
}

fn connect(addr: &str) -> TcpStream {
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

/// Sends `bytes` on a new connection and returns everything the server sent until it closed.
fn exchange(addr: &str, bytes: &[u8]) -> String {
    let mut stream = connect(addr);
    stream.write_all(bytes).unwrap();
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// A connection the server has accepted and counts against its limit: a keep-alive HEAD
/// answered 200 proves it (one opened while earlier connections were still being released may
/// be shed with 503; then a new one is tried, for at most 5 s).
fn hold(addr: &str) -> TcpStream {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut stream = connect(addr);
        stream
            .write_all(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8];
        while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head);
        match status(&head) {
            200 => return stream,
            503 if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            _ => panic!("could not hold a connection: {head}"),
        }
    }
}

fn status(answer: &str) -> u16 {
    answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {answer:?}"))
}

const GET_ROOT: &[u8] = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

#[test]
fn request_heads_past_the_size_or_field_limit_are_431() {
    // RFC 6585 §5: 431 Request Header Fields Too Large.
    let addr = start(Settings {
        max_header_bytes: 8192,
        max_headers: 20,
        ..Settings::default()
    });
    let big = format!(
        "GET / HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(10_000)
    );
    assert_eq!(status(&exchange(&addr, big.as_bytes())), 431);
    let many: String = (0..30).map(|i| format!("X-F{i}: v\r\n")).collect();
    let many = format!("GET / HTTP/1.1\r\nHost: x\r\n{many}\r\n");
    assert_eq!(status(&exchange(&addr, many.as_bytes())), 431);
    // Within the limits: served.
    assert_eq!(status(&exchange(&addr, GET_ROOT)), 200);
}

#[test]
fn a_client_that_never_finishes_its_request_head_is_disconnected() {
    let addr = start(Settings {
        header_timeout: Duration::from_secs(1),
        ..Settings::default()
    });
    let mut slow = connect(&addr);
    slow.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").unwrap();
    let started = Instant::now();
    let mut out = Vec::new();
    let _ = slow.read_to_end(&mut out);
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(5),
        "closed after {waited:?}"
    );
    // hyper may say 408 before closing; it must not serve the request.
    let answer = String::from_utf8_lossy(&out);
    assert!(answer.is_empty() || status(&answer) == 408, "{answer:?}");
    assert_eq!(status(&exchange(&addr, GET_ROOT)), 200);
}

#[test]
fn a_client_that_stops_reading_is_disconnected_after_the_write_timeout() {
    let addr = start(Settings {
        write_timeout: Duration::from_secs(1),
        ..Settings::default()
    });
    // 400 pipelined requests for the 80 KB photo (32 MB of answers, past what loopback's socket
    // buffers hold), then no reading at all.
    let request = b"GET /images/coffee.jpg HTTP/1.1\r\nHost: x\r\n\r\n";
    let mut stalled = connect(&addr);
    stalled.write_all(&request.repeat(400)).unwrap();
    std::thread::sleep(Duration::from_secs(3));
    // The server gave up on it: what the buffers held comes, then the end (a close or a reset),
    // not the rest of the answers. Without the timeout all 400 come, then the read waits for
    // more until its own 10 s timeout.
    let mut out = Vec::new();
    let ended = match stalled.read_to_end(&mut out) {
        Ok(_) => true,
        Err(e) => !matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    };
    let answers = out.windows(15).filter(|w| w == b"HTTP/1.1 200 OK").count();
    assert!(
        ended && answers > 0 && answers < 400,
        "ended: {ended}, {answers} answers in {} bytes",
        out.len()
    );
    assert_eq!(status(&exchange(&addr, GET_ROOT)), 200);
}

#[test]
fn connections_past_the_limit_are_shed_with_503_and_served_again_later() {
    // RFC 9110 §15.6.4 (503) and §10.2.3 (Retry-After).
    let addr = start(Settings {
        max_connections: 2,
        ..Settings::default()
    });
    let held: Vec<TcpStream> = (0..2).map(|_| hold(&addr)).collect();
    let shed = exchange(&addr, GET_ROOT);
    assert_eq!(status(&shed), 503, "{shed}");
    assert!(
        shed.to_ascii_lowercase().contains("retry-after: 1"),
        "{shed}"
    );
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let answer = exchange(&addr, GET_ROOT);
        if status(&answer) == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "still shed: {answer}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn http_1_1_requests_need_exactly_one_host() {
    // RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request without Host, and to any
    // request with more than one.
    let addr = start(Settings::default());
    let missing = exchange(&addr, b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(status(&missing), 400, "{missing}");
    assert!(missing.contains("nosniff"), "the site's fields: {missing}");
    let twice = exchange(
        &addr,
        b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(status(&twice), 400);
    let head = exchange(&addr, b"HEAD / HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(status(&head), 400);
    assert!(head.ends_with("\r\n\r\n"), "HEAD: no content: {head:?}");
    // HTTP/1.0 has no Host requirement.
    assert_eq!(status(&exchange(&addr, b"GET / HTTP/1.0\r\n\r\n")), 200);
}

#[test]
fn sigterm_drains_an_in_flight_request_then_exits_0() {
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let addr = format!("127.0.0.1:{port}");
    let mut server = Command::new(env!("CARGO_BIN_EXE_edgesite-native"))
        .args(["--listen", &addr, "--drain-timeout", "5"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut stream = loop {
        match TcpStream::connect(&addr) {
            Ok(stream) => break stream,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("the server did not start: {e}"),
        }
    };
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    // A request in flight: its head is half sent when the signal arrives.
    stream
        .write_all(b"GET /about HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let killed = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    std::thread::sleep(Duration::from_millis(300));
    // New connections are refused once the listener is closed.
    assert!(TcpStream::connect(&addr).is_err(), "still accepting");
    stream.write_all(b"\r\n").unwrap();
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    let answer = String::from_utf8_lossy(&out);
    assert_eq!(status(&answer), 200, "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("connection: close"),
        "{answer}"
    );
    let started = Instant::now();
    let exit = loop {
        if let Some(exit) = server.try_wait().unwrap() {
            break exit;
        }
        assert!(started.elapsed() < Duration::from_secs(5), "did not exit");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exit.success(), "{exit:?}");
}

#[test]
fn log_lines_and_server_timing_when_asked() {
    // Off by default (the other tests' servers send no Server-Timing); --log and
    // --server-timing on the binary.
    let addr = start(Settings::default());
    assert!(!exchange(&addr, GET_ROOT)
        .to_ascii_lowercase()
        .contains("server-timing"));
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let addr = format!("127.0.0.1:{port}");
    let server = Command::new(env!("CARGO_BIN_EXE_edgesite-native"))
        .args(["--listen", &addr, "--log", "--server-timing"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(&addr).is_err() {
        assert!(Instant::now() < deadline, "the server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let answer = exchange(
        &addr,
        b"GET /about HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br\r\nConnection: close\r\n\r\n",
    );
    let lower = answer.to_ascii_lowercase();
    let timing = lower
        .lines()
        .find_map(|l| l.strip_prefix("server-timing: "))
        .unwrap_or_else(|| panic!("no server-timing in {answer}"));
    // lookup;dur=0.004, negotiation;dur=0.001, total;dur=0.012 (milliseconds)
    let names: Vec<&str> = timing
        .split(", ")
        .map(|part| part.split(";dur=").next().unwrap())
        .collect();
    assert_eq!(names, ["lookup", "negotiation", "total"], "{timing}");
    let _ = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status();
    let output = server.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("GET /about "))
        .unwrap_or_else(|| panic!("no log line in {stdout:?}"));
    // method path status coding bytes time
    let fields: Vec<&str> = line.split(' ').collect();
    assert_eq!(&fields[..4], ["GET", "/about", "200", "br"], "{line}");
    assert!(
        fields[4].parse::<u64>().is_ok() && fields[5].ends_with("us"),
        "{line}"
    );
}

#[test]
fn worker_threads_share_one_address_and_one_connection_limit() {
    // serve_threads: a listener per worker on one address (SO_REUSEPORT), one limit for all,
    // whichever worker the kernel hands a connection to.
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let (tx, rx) = std::sync::mpsc::channel();
    let settings = Settings {
        max_connections: 3,
        ..Settings::default()
    };
    let server = std::thread::spawn(move || {
        let any_port = "127.0.0.1:0".parse().unwrap();
        edgesite_native::serve_threads(any_port, 4, &settings, stopped, |addr| {
            tx.send(addr.to_string()).unwrap();
        })
    });
    let addr = rx.recv().unwrap();
    for _ in 0..8 {
        assert_eq!(status(&exchange(&addr, GET_ROOT)), 200);
    }
    // Each held connection is answered (so counted) by whichever worker accepted it; the
    // fourth, on any worker, is shed.
    let held: Vec<TcpStream> = (0..3).map(|_| hold(&addr)).collect();
    let shed = exchange(&addr, GET_ROOT);
    assert_eq!(status(&shed), 503, "{shed}");
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(5);
    while status(&exchange(&addr, GET_ROOT)) != 200 {
        assert!(
            Instant::now() < deadline,
            "still shed after the connections closed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.send(true).unwrap();
    server.join().unwrap().unwrap();
}
