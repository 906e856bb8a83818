//! The server under test, and a raw HTTP/1.1 client.
//!
//! With `EDGESITE_BASE_URL=http://127.0.0.1:PORT` the suite talks to that server, and
//! `EDGESITE_RUNTIME` (`native`, `workerd`, `wrangler-dev`) names it, so the few places where a
//! runtime is known to differ can say so. Without it, an `edgesite-native` server is started
//! in-process on a free loopback port, serving the embedded demo site, or, for the suites of a
//! fixture configuration ([`FIXTURES`]), that configuration's compile, made here by sitegen as
//! the build would make it and served from memory (`Manifest::leak_site`): no cargo build per
//! configuration.
//!
//! The client writes requests byte for byte and reads the answer as sent, so the tests see what
//! a server really put on the wire (a HEAD body, a missing Content-Length, chunked framing).
#![allow(dead_code, unreachable_pub)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::OnceLock;
use std::time::Duration;

/// Which runtime answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    /// edgesite-native (in-process or as a binary).
    Native,
    /// The Worker under bare `workerd serve`.
    Workerd,
    /// The Worker under `wrangler dev`, whose dev proxy drops Content-Length (answers are
    /// chunked) and re-encodes gzip bodies (docs/http.md, "Under `wrangler dev` only").
    WranglerDev,
}

pub struct Server {
    pub addr: String,
    pub runtime: Runtime,
}

pub fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| match std::env::var("EDGESITE_BASE_URL") {
        Ok(url) => {
            let addr = url
                .trim_start_matches("http://")
                .trim_end_matches('/')
                .to_string();
            let runtime = match std::env::var("EDGESITE_RUNTIME").as_deref() {
                Ok("workerd") => Runtime::Workerd,
                Ok("wrangler-dev") => Runtime::WranglerDev,
                Ok("native") | Err(_) => Runtime::Native,
                Ok(other) => {
                    panic!("EDGESITE_RUNTIME={other:?}: expected native, workerd or wrangler-dev")
                }
            };
            Server { addr, runtime }
        }
        Err(_) => start_native(),
    })
}

/// The test binaries (by crate name) whose in-process server serves a fixture configuration
/// instead of the embedded demo site, with that configuration.
pub const FIXTURES: [(&str, &str); 4] = [
    ("configured", "tests/fixtures/configured.toml"),
    ("compact", "tests/fixtures/compact.toml"),
    ("stored", "tests/fixtures/stored.toml"),
    ("stored_failures", "tests/fixtures/stored.toml"),
];

/// Where this test binary's compile of a fixture with a store writes the store's objects (the
/// in-process server reads them there; a test reads the bytes each object must hold from
/// them): a folder per binary, so that one changing its store leaves the other's alone.
pub fn fixture_store() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/edgesite/store-of-test")
        .join(env!("CARGO_CRATE_NAME"))
}

/// The site this test binary's server serves, as this process compiles it (see [`FIXTURES`]):
/// what the in-process server serves, and the tables a test of another runtime checks its
/// answers against (the same config compiles to the same tables).
pub fn site_under_test() -> &'static edgesite_core::Site<'static> {
    static SITE: OnceLock<&'static edgesite_core::Site<'static>> = OnceLock::new();
    SITE.get_or_init(compile_site_under_test)
}

fn compile_site_under_test() -> &'static edgesite_core::Site<'static> {
    let Some((name, config)) = FIXTURES
        .iter()
        .find(|(name, _)| *name == env!("CARGO_CRATE_NAME"))
    else {
        return &edgesite::SITE;
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    // As the build read it: EDGESITE_HISTORY as cargo set it for this binary's compile
    // (.cargo/config.toml), since the harness (cargo xtask test) runs the binaries outside cargo.
    let history = edgesite_sitegen::build_script::history_from_env()
        .or_else(|| option_env!("EDGESITE_HISTORY").map(std::path::PathBuf::from));
    let build = edgesite_sitegen::build_script::Build {
        root,
        config_path: &root.join(config),
        config_named: true,
        site: None,
        history: history.as_deref(),
        source_date_epoch: None,
        page_dates: edgesite_sitegen::PageDates::Own,
        cache_dir: Some(root.join("target/edgesite/cache")),
        effort: edgesite_sitegen::Effort::Configured,
    };
    let (manifest, _) = build
        .compile()
        .unwrap_or_else(|e| panic!("compiling with {config}: {e}"));
    let store = name.starts_with("stored").then(fixture_store);
    manifest
        .leak_site_with_store(store.as_deref())
        .expect("the compiled files are readable, the store writable")
}

fn start_native() -> Server {
    let site = site_under_test();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
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
            let settings = edgesite_native::Settings {
                site,
                ..edgesite_native::Settings::default()
            };
            edgesite_native::serve_with(listener, &settings, std::future::pending()).await
        })
    });
    Server {
        addr,
        runtime: Runtime::Native,
    }
}

/// A response as read off the wire.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    /// Field names in lower case, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Bytes after the header section as sent (chunk framing included): for HEAD, must be empty.
    pub raw_body_len: usize,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `method target` with `headers` over a new connection and reads the whole answer.
pub fn request(method: &str, target: &str, headers: &[(&str, &str)]) -> Reply {
    request_to(&server().addr, method, target, headers)
}

/// [`request`] to the server at `addr` (`127.0.0.1:PORT`).
pub fn request_to(addr: &str, method: &str, target: &str, headers: &[(&str, &str)]) -> Reply {
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    send_raw_to(addr, head.as_bytes(), method == "HEAD")
}

pub fn get(target: &str) -> Reply {
    request("GET", target, &[])
}

/// Writes `bytes` as they are and parses the answer (no body expected for HEAD).
pub fn send_raw(bytes: &[u8], head: bool) -> Reply {
    send_raw_to(&server().addr, bytes, head)
}

/// [`send_raw`] to the server at `addr`.
fn send_raw_to(addr: &str, bytes: &[u8], head: bool) -> Reply {
    let mut stream = TcpStream::connect(addr).expect("connect to the server under test");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(bytes).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the answer");
    parse(&raw, head)
}

/// Writes `bytes` as they are and returns whatever the server sent until it closed (possibly
/// nothing, or a partial answer), for requests a server may reject at the transport.
pub fn send_raw_lenient(bytes: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(&server().addr).expect("connect to the server under test");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    // The server may close before reading everything (e.g. after a 431): keep what it said.
    let _ = stream.write_all(bytes);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    raw
}

/// The status code of a raw answer, if it has a status line.
pub fn status_of(raw: &[u8]) -> Option<u16> {
    let text = String::from_utf8_lossy(raw);
    let line = text.split("\r\n").next()?;
    line.strip_prefix("HTTP/1.")?
        .split(' ')
        .nth(1)?
        .parse()
        .ok()
}

fn parse(raw: &[u8], head: bool) -> Reply {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete header section");
    let text = String::from_utf8_lossy(&raw[..end]);
    let mut lines = text.split("\r\n");
    let status_line = lines.next().unwrap();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let rest = &raw[end + 4..];
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.to_ascii_lowercase().contains("chunked"));
    let body = if head || matches!(status, 204 | 304) {
        Vec::new()
    } else if chunked {
        dechunk(rest)
    } else {
        rest.to_vec()
    };
    Reply {
        status,
        headers,
        body,
        raw_body_len: rest.len(),
    }
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("a chunk size line");
        let size_text = String::from_utf8_lossy(&rest[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16)
            .expect("a hex chunk size");
        rest = &rest[line_end + 2..];
        if size == 0 {
            return body;
        }
        body.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

impl Reply {
    /// The body with its Content-Encoding undone (identity, br, zstd or gzip).
    pub fn decoded(&self) -> Vec<u8> {
        use std::io::Read;
        let mut out = Vec::new();
        match self.header("content-encoding") {
            None => out.clone_from(&self.body),
            Some("br") => {
                brotli::BrotliDecompress(&mut &self.body[..], &mut out).expect("valid br");
            }
            Some("zstd") => out = zstd::decode_all(&self.body[..]).expect("valid zstd"),
            Some("gzip") => {
                flate2::read::GzDecoder::new(&self.body[..])
                    .read_to_end(&mut out)
                    .expect("valid gzip");
            }
            Some(other) => panic!("unexpected Content-Encoding {other}"),
        }
        out
    }
}

/// The URL a file is served at: clean URLs drop `.html`, and a folder's `index.html` is the folder.
pub fn canonical(path: &str) -> String {
    if let Some(folder) = path.strip_suffix("index.html").filter(|f| f.ends_with('/')) {
        folder.to_string()
    } else if let Some(clean) = path.strip_suffix(".html") {
        clean.to_string()
    } else {
        path.to_string()
    }
}

/// The files of the site this build embedded (`EDGESITE_SITE_DIR`, set by build.rs): URL path
/// and bytes as served ([`site_file`]), dotfiles and the configuration files skipped as sitegen skips them.
pub fn site_files() -> Vec<(String, Vec<u8>)> {
    fn visit(dir: &std::path::Path, url: &str, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap())
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name().into_string().unwrap();
            if name.starts_with('.') && name != ".well-known" {
                continue;
            }
            // The root's `_headers` and `_redirects` configure the site; they are not served.
            if url.is_empty() && (name == "_headers" || name == "_redirects") {
                continue;
            }
            let path = format!("{url}/{name}");
            if entry.path().is_dir() {
                visit(&entry.path(), &path, out);
            } else {
                let bytes = site_file(&path);
                out.push((path, bytes));
            }
        }
    }
    let mut out = Vec::new();
    visit(
        std::path::Path::new(env!("EDGESITE_SITE_DIR")),
        "",
        &mut out,
    );
    out
}

/// A site file's bytes by URL path, as served: the build's copy of its HTML and CSS after the
/// link pass (`EDGESITE_SERVED_DIR`, which may have given references a `?v=`), the source file
/// for the rest.
pub fn site_file(path: &str) -> Vec<u8> {
    file_as_served(
        env!("EDGESITE_SERVED_DIR").as_ref(),
        env!("EDGESITE_SITE_DIR").as_ref(),
        path,
    )
}

/// The bytes served at URL path `path` of a site built from `site_dir`: the build's copy in
/// `served_dir` (its HTML and CSS after the link pass), else the source file.
pub fn file_as_served(
    served_dir: &std::path::Path,
    site_dir: &std::path::Path,
    path: &str,
) -> Vec<u8> {
    let file = path.trim_start_matches('/');
    std::fs::read(served_dir.join(file))
        .or_else(|_| std::fs::read(site_dir.join(file)))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Speculation Rules (WICG nav-speculation; `[links] speculation`) walked over HTTP: `page`
/// names the rules by a `Speculation-Rules` field (a list of one structured-field string,
/// RFC 8941 §3.3.3); the file is `application/speculationrules+json` and `immutable` at that
/// URL; every URL its rules list is a page this server serves to a navigation (200,
/// `text/html`, no redirect), so a speculation never fetches anything else. Returns how many.
pub fn walk_speculation_rules(page: &str) -> usize {
    let reply = request("GET", page, &[("Sec-Fetch-Mode", "navigate")]);
    let field = reply
        .header("speculation-rules")
        .unwrap_or_else(|| panic!("{page}: no Speculation-Rules"));
    let url = field
        .strip_prefix('"')
        .and_then(|f| f.strip_suffix('"'))
        .unwrap_or_else(|| panic!("{page}: Speculation-Rules {field:?} is not one string"));
    let rules = get(url);
    assert_eq!(rules.status, 200, "{url}");
    assert_eq!(
        rules.header("content-type"),
        Some("application/speculationrules+json"),
        "{url}"
    );
    let cache_control = rules.header("cache-control").unwrap_or_default();
    assert!(
        cache_control.contains("immutable"),
        "{url}: {cache_control}"
    );
    let rules: serde_json::Value = serde_json::from_slice(&rules.body).expect("JSON rules");
    let mut walked = 0;
    for (action, list) in rules.as_object().expect("an object of actions") {
        assert!(action == "prefetch" || action == "prerender", "{action}");
        for rule in list.as_array().expect("a list of rules") {
            assert_eq!(rule["source"], "list", "{rule}");
            for target in rule["urls"].as_array().expect("urls") {
                let target = target.as_str().expect("a URL string");
                let page = request("GET", target, &[("Sec-Fetch-Mode", "navigate")]);
                assert_eq!(page.status, 200, "{target}, named by the rules");
                let content_type = page.header("content-type").unwrap_or_default();
                assert!(
                    content_type.starts_with("text/html"),
                    "{target}: {content_type}"
                );
                walked += 1;
            }
        }
    }
    walked
}
