//! `edgesite-native`: serves the embedded site over HTTP/1.1.
//!
//! ```text
//! edgesite-native [--listen ADDR]     (default 127.0.0.1:8080)
//! ```

use std::net::SocketAddr;
use std::process::ExitCode;

const USAGE: &str = "usage: edgesite-native [--listen ADDR]   (default 127.0.0.1:8080)";

fn parse_args() -> Result<SocketAddr, String> {
    let mut listen = "127.0.0.1:8080".to_string();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--listen" | "-l" => listen = args.next().ok_or("--listen needs an address")?,
            "--help" | "-h" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    listen
        .parse()
        .map_err(|e| format!("--listen {listen:?} is not an address like 127.0.0.1:8080: {e}"))
}

#[tokio::main]
async fn main() -> ExitCode {
    let addr = match parse_args() {
        Ok(addr) => addr,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("edgesite-native: cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let local = listener.local_addr().map_or(addr, |a| a);
    println!(
        "edgesite-native: serving {} routes of {} on http://{local}/",
        edgesite::SITE.routes.len(),
        edgesite::SITE_DIR
    );
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match edgesite_native::serve(listener, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("edgesite-native: {e}");
            ExitCode::FAILURE
        }
    }
}
