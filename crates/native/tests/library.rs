//! Library mode on native: a hyper server with its own API route beside the embedded site,
//! through `edgesite_native::respond_if_served`, over a real loopback socket. What the site
//! serves (files, redirects, its 405 for a POST to a file) is the site's answer; everything else
//! reaches the server's own routes.

use bytes::Bytes;
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::io::{Read, Write};
use std::net::TcpStream;

/// The server's own routes: `/api/hello`, and a JSON 404 for anything else.
fn api<B>(request: &hyper::Request<B>) -> edgesite_native::Response {
    let (status, body) = if request.uri().path() == "/api/hello" {
        (200, "{\"hello\":\"world\"}")
    } else {
        (404, "{\"error\":\"not found\"}")
    };
    hyper::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from_static(body.as_bytes())).into())
        .unwrap()
}

fn start() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                tokio::spawn(async move {
                    let service = service_fn(|request| async move {
                        let response =
                            edgesite_native::respond_if_served(&edgesite::SITE, &request)
                                .unwrap_or_else(|| api(&request));
                        Ok::<_, Infallible>(response)
                    });
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
    });
    addr
}

fn exchange(addr: &str, method: &str, target: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{method} {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    stream.read_to_string(&mut out).unwrap();
    let status = out.split(' ').nth(1).unwrap().parse().unwrap();
    (status, out)
}

#[test]
fn the_site_and_the_servers_own_routes_share_one_server() {
    let addr = start();
    let (status, answer) = exchange(&addr, "GET", "/api/hello");
    assert_eq!(status, 200);
    assert!(answer.ends_with("{\"hello\":\"world\"}"), "{answer}");
    // A POST to a path the site does not have is the server's.
    assert_eq!(exchange(&addr, "POST", "/api/hello").0, 200);
    let (status, answer) = exchange(&addr, "GET", "/nope");
    assert_eq!(status, 404);
    assert!(
        answer.contains("application/json"),
        "the server's 404: {answer}"
    );
    // The site's: a page with its validator, a canonical redirect, a _redirects rule, and its
    // 405 for a POST to a file (RFC 9110 §15.5.6).
    let (status, answer) = exchange(&addr, "GET", "/about");
    assert_eq!(status, 200);
    assert!(answer.to_ascii_lowercase().contains("etag: \""), "{answer}");
    assert_eq!(exchange(&addr, "GET", "/about.html").0, 308);
    assert_eq!(exchange(&addr, "GET", "/docs/a").0, 301);
    assert_eq!(exchange(&addr, "POST", "/about").0, 405);
}
