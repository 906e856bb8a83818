//! `edgesite-ceiling`: the practical ceiling for HTTP/1.1 on this machine. It answers every
//! request with one fixed response (status, header fields, body) given on the command line,
//! doing no work per request beyond what hyper itself does. `bench/loadtest.sh` gives it exactly
//! the response edgesite sends for a scenario, so the ratio between the two is edgesite's cost.
//!
//! ```text
//! edgesite-ceiling --listen ADDR --status N --body FILE [--header 'name: value']...
//! ```

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderName, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Response, StatusCode};
use hyper_util::rt::TokioIo;
use std::convert::Infallible;

struct Fixed {
    status: StatusCode,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Bytes,
}

fn parse_args() -> Result<(String, Fixed), String> {
    let (mut listen, mut status, mut body, mut headers) =
        ("127.0.0.1:8081".to_string(), 200, Vec::new(), Vec::new());
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--listen" => listen = value()?,
            "--status" => status = value()?.parse().map_err(|e| format!("--status: {e}"))?,
            "--body" => {
                let path = value()?;
                body = std::fs::read(&path).map_err(|e| format!("--body {path}: {e}"))?;
            }
            "--header" => {
                let line = value()?;
                let (name, v) = line
                    .split_once(':')
                    .ok_or(format!("--header {line:?}: expected 'name: value'"))?;
                let name = HeaderName::from_bytes(name.trim().as_bytes())
                    .map_err(|e| format!("{line}: {e}"))?;
                let v = HeaderValue::from_str(v.trim()).map_err(|e| format!("{line}: {e}"))?;
                headers.push((name, v));
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let status = StatusCode::from_u16(status).map_err(|e| format!("--status: {e}"))?;
    Ok((
        listen,
        Fixed {
            status,
            headers,
            body: Bytes::from(body),
        },
    ))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (listen, fixed) = parse_args()?;
    let fixed: &'static Fixed = Box::leak(Box::new(fixed));
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let service = service_fn(move |_request| async move {
                let mut response = Response::new(Full::new(fixed.body.clone()));
                *response.status_mut() = fixed.status;
                let headers = response.headers_mut();
                for (name, value) in &fixed.headers {
                    headers.append(name.clone(), value.clone());
                }
                Ok::<_, Infallible>(response)
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
