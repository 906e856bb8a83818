//! `edgesite-native`: serves the embedded site over HTTP/1.1.
//!
//! ```text
//! edgesite-native [--listen ADDR] [--workers N] [--max-connections N] [--max-header-bytes N]
//!                 [--header-timeout SECS] [--write-timeout SECS] [--drain-timeout SECS] [--log]
//!                 [--server-timing]
//!                 [--store DIR]
//! ```
//! SIGTERM or SIGINT (Ctrl-C) stops accepting, lets in-flight requests finish for up to
//! `--drain-timeout` seconds, and exits 0.

use edgesite_native::Settings;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "usage: edgesite-native [OPTIONS]
  --listen ADDR           address to serve on (default 127.0.0.1:8080)
  --workers N             threads, each serving its own share of connections (default: the CPUs this process may run on)
  --max-connections N     connections served at once; more get 503 + Retry-After (default 10000)
  --max-header-bytes N    largest request head; larger gets 431 (default 16384, at least 8192)
  --header-timeout SECS   time to send a complete request head, then the connection is closed (default 10)
  --write-timeout SECS    time a write may wait for a client that stops reading, then the connection is closed (default 60)
  --drain-timeout SECS    on SIGTERM/SIGINT, time for in-flight requests to finish (default 10)
  --log                   one line per request: method, path, status, coding, bytes, time
  --server-timing         Server-Timing: lookup, negotiation and total times on every response
  --store DIR             read the site's stored objects from DIR (default: the folder the build wrote them into)";

fn parse_args() -> Result<(SocketAddr, usize, Settings), String> {
    let mut listen = "127.0.0.1:8080".to_string();
    let mut settings = Settings::default();
    // available_parallelism honours the CPU affinity (taskset): one worker per usable CPU.
    let mut workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--listen" | "-l" => listen = value("--listen")?,
            "--workers" => workers = number(&arg, &value(&arg)?, 1)?,
            "--max-connections" => settings.max_connections = number(&arg, &value(&arg)?, 1)?,
            "--max-header-bytes" => settings.max_header_bytes = number(&arg, &value(&arg)?, 8192)?,
            "--header-timeout" => {
                settings.header_timeout =
                    Duration::from_secs(number(&arg, &value(&arg)?, 1)? as u64);
            }
            "--write-timeout" => {
                settings.write_timeout =
                    Duration::from_secs(number(&arg, &value(&arg)?, 1)? as u64);
            }
            "--drain-timeout" => {
                settings.drain_timeout =
                    Duration::from_secs(number(&arg, &value(&arg)?, 0)? as u64);
            }
            "--log" => settings.log_requests = true,
            "--server-timing" => settings.server_timing = true,
            "--store" => {
                edgesite_native::set_store(value(&arg)?.into());
            }
            "--help" | "-h" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    let addr = listen
        .parse()
        .map_err(|e| format!("--listen {listen:?} is not an address like 127.0.0.1:8080: {e}"))?;
    Ok((addr, workers, settings))
}

fn number(name: &str, text: &str, min: usize) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= min => Ok(n),
        _ => Err(format!(
            "{name} {text:?}: expected a whole number of at least {min}"
        )),
    }
}

/// Completes on SIGTERM (what `kill`, systemd and container runtimes send) or SIGINT.
async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
}

fn main() -> ExitCode {
    let (addr, workers, settings) = match parse_args() {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let (stop, stopped) = tokio::sync::watch::channel(false);
    // Signals are awaited on a thread of their own; the workers serve until told to stop.
    let signals = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a signal-handling runtime starts");
        runtime.block_on(shutdown_signal());
        println!("edgesite-native: shutting down, draining in-flight requests");
        let _ = stop.send(true);
    });
    let ready = |local| {
        println!(
            "edgesite-native: serving {} routes of {} on http://{local}/ ({workers} worker threads)",
            edgesite::SITE.routes.len(),
            edgesite::SITE_DIR
        );
        // The store's folder, said at start: a wrong one answers every stored file 503.
        if let Some(store) = edgesite_native::store_folder(&edgesite::SITE) {
            if store.is_dir() {
                println!(
                    "edgesite-native: the site's stored files from {}",
                    store.display()
                );
            } else {
                eprintln!(
                    "edgesite-native: the site keeps files in a store, and {} is not a folder: they are answered 503 (--store DIR names it)",
                    store.display()
                );
            }
        }
    };
    let served = edgesite_native::serve_threads(addr, workers, &settings, stopped, ready);
    drop(signals);
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("edgesite-native: cannot serve on {addr}: {e}");
            ExitCode::FAILURE
        }
    }
}
