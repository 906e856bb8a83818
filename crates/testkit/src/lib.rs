//! The test harness's servers (issue 36): a process started on a free port of 127.0.0.1, in a
//! process group of its own, its output in a log file, waited on until it answers HTTP, and
//! stopped with everything it started when the guard drops, also when a test fails or panics
//! (then its log's end is printed). `cargo xtask test` starts the servers several layers share
//! (the native twin, one `workerd serve` for four Workers, `wrangler dev`, the example, the
//! generated sites' `serve_site`); `tests/site_layer.rs` starts the native twin each build made.
//!
//! No dependencies: a process group is `CommandExt::process_group`, and signals go to it through
//! `kill(1)` (the workspace forbids `unsafe`, which `libc::kill` needs).

use std::collections::HashSet;
use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// `cargo build` of the workspace's binaries and examples, whose dependencies resolve to the
/// features the host build (`cargo test --workspace`) compiled them with (`-p edgesite-native`
/// alone would compile tokio, hyper and syn again): the build `make test` leaves, `make report`
/// reads and tests/site_layer.rs makes with another site. (scripts/deploy.sh spells it too.)
pub const HOST_BUILD: [&str; 7] = [
    "build",
    "-q",
    "--workspace",
    "--exclude",
    "edgesite-bench",
    "--bins",
    "--examples",
];

/// A server process; stopped (with its whole process group, when it has one) on drop.
#[derive(Debug)]
pub struct Server {
    name: String,
    child: Child,
    port: u16,
    log: PathBuf,
    /// Whether it leads a process group of its own ([`Server::start`]) or stays in its
    /// starter's ([`Server::start_in_our_group`]).
    own_group: bool,
}

impl Server {
    /// Starts `command` as server `name`, its stdout and stderr in `LOGS/NAME.log`, and waits
    /// until `http://127.0.0.1:PORT/` answers (any status). Fails, with the log's end, if the
    /// port already answers (a server left running), if the process exits first, or if `wait`
    /// passes.
    ///
    /// The server leads a process group of its own, which is stopped whole (a server that
    /// starts others: wrangler dev's workerd, a shell's children). A terminal's Ctrl-C does not
    /// reach it: the harness stops it with [`stop_all`].
    pub fn start(
        name: &str,
        port: u16,
        wait: Duration,
        logs: &Path,
        command: &mut Command,
    ) -> Result<Server, String> {
        Self::spawn(name, port, wait, logs, command.process_group(0), true)
    }

    /// As [`Server::start`], the server staying in the starter's process group: for a test
    /// binary, whose Ctrl-C (which ends it without dropping its guards) must reach its servers
    /// too. Only the process is stopped on drop.
    pub fn start_in_our_group(
        name: &str,
        port: u16,
        wait: Duration,
        logs: &Path,
        command: &mut Command,
    ) -> Result<Server, String> {
        Self::spawn(name, port, wait, logs, command, false)
    }

    fn spawn(
        name: &str,
        port: u16,
        wait: Duration,
        logs: &Path,
        command: &mut Command,
        own_group: bool,
    ) -> Result<Server, String> {
        if answers(port, Duration::from_secs(2)) {
            return Err(format!(
                "{name}: port {port} already answers (a server left running?)"
            ));
        }
        fs::create_dir_all(logs).map_err(|e| format!("{}: {e}", logs.display()))?;
        let log = logs.join(format!("{name}.log"));
        let out = fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let child = command
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|e| format!("{name}: cannot start {command:?}: {e}"))?;
        let mut live = lock_live();
        live.pids.push(child.id());
        let stopping = live.stopping;
        drop(live);
        let mut server = Server {
            name: name.to_string(),
            child,
            port,
            log,
            own_group,
        };
        if stopping {
            return Err(format!("{name}: not started, the harness is stopping"));
        }
        server.wait_for(port, wait)?;
        Ok(server)
    }

    /// Waits until `port` (this server's, or another socket of the same process) answers HTTP;
    /// on failure the error holds the log's end (the guard stops the server when dropped).
    pub fn wait_for(&mut self, port: u16, wait: Duration) -> Result<(), String> {
        let deadline = Instant::now() + wait;
        loop {
            if answers(port, deadline.saturating_duration_since(Instant::now())) {
                return Ok(());
            }
            let exited = self.child.try_wait().ok().flatten();
            if exited.is_some() || Instant::now() >= deadline {
                let why = match exited {
                    Some(status) => format!("exited ({status})"),
                    None => format!("no answer in {} s", wait.as_secs()),
                };
                return Err(format!(
                    "{} did not come up on port {port}: {why}; {}",
                    self.name,
                    self.log_tail(40)
                ));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// `http://127.0.0.1:PORT` (no slash at the end).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The server's (first) port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The log file.
    pub fn log(&self) -> &Path {
        &self.log
    }

    /// The log's last `lines` lines, after a line naming it.
    pub fn log_tail(&self, lines: usize) -> String {
        let text = fs::read_to_string(&self.log).unwrap_or_default();
        format!(
            "{}'s log ({}), its end:\n{}",
            self.name,
            self.log.display(),
            tail(&text, lines)
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("{}", self.log_tail(40));
        }
        if self.own_group {
            stop_group(&mut self.child);
        } else {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let id = self.child.id();
        lock_live().pids.retain(|pid| *pid != id);
    }
}

/// The servers running now, and whether [`stop_all`] was called.
#[derive(Debug)]
struct Live {
    /// Their process groups (their leaders' PIDs).
    pids: Vec<u32>,
    /// After [`stop_all`], a server started is stopped at once (its guard dropped): a harness
    /// thread may go on starting servers until the process exits.
    stopping: bool,
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    pids: Vec::new(),
    stopping: false,
});

fn lock_live() -> std::sync::MutexGuard<'static, Live> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether [`stop_all`] was called: a harness starts nothing more (no server, no check) once it
/// has.
pub fn stopping() -> bool {
    lock_live().stopping
}

/// Stops every server still running (TERM to each group, KILL a second later): for a harness
/// interrupted by a signal, whose guards will not drop (a server runs in a group of its own, so
/// the terminal's Ctrl-C does not reach it).
pub fn stop_all() {
    let groups: Vec<String> = {
        let mut live = lock_live();
        live.stopping = true;
        live.pids.iter().map(|pid| format!("-{pid}")).collect()
    };
    if groups.is_empty() {
        return;
    }
    for signal in ["-TERM", "-KILL"] {
        let _ = Command::new("kill")
            .arg(signal)
            .arg("--")
            .args(&groups)
            .stderr(Stdio::null())
            .status();
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// TERM to the child's process group, KILL after 5 s, then reaped.
fn stop_group(child: &mut Child) {
    let group = format!("-{}", child.id());
    let signal = |name: &str| {
        let _ = Command::new("kill")
            .args([name, "--", &group])
            .stderr(Stdio::null())
            .status();
    };
    signal("-TERM");
    // Up to 5 s for the whole group (workerd under wrangler, a shell's children) to end; the
    // leader reaped as it exits, so that the group's check does not count it.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut leader_done = false;
    while Instant::now() < deadline {
        leader_done = leader_done || matches!(child.try_wait(), Ok(Some(_)));
        let group_alive = Command::new("kill")
            .args(["-0", "--", &group])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if leader_done && !group_alive {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    signal("-KILL");
    let _ = child.kill();
    let _ = child.wait();
}

/// The last `lines` lines of `text`, each indented by two spaces.
pub fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let from = all.len().saturating_sub(lines);
    all[from..].iter().map(|l| format!("  {l}\n")).collect()
}

/// Whether an HTTP/1.1 GET of `/` on 127.0.0.1:PORT gets a status line within `wait` (a
/// server that accepts before it is ready, as wrangler dev's proxy does, is waited on).
pub fn answers(port: u16, wait: Duration) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let wait = wait.max(Duration::from_millis(100));
    let _ = stream.set_read_timeout(Some(wait));
    let _ = stream.set_write_timeout(Some(wait));
    let request = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut head = [0u8; 5];
    stream.read_exact(&mut head).is_ok() && &head == b"HTTP/"
}

/// The status of an HTTP/1.1 GET of `target` on 127.0.0.1:PORT (the body read and dropped).
pub fn get_status(port: u16, target: &str) -> Result<u16, String> {
    let mut stream =
        TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("port {port}: {e}"))?;
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let request = format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut response = Vec::new();
    stream
        .read_to_end(&mut response)
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&response);
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok());
    status.ok_or_else(|| format!("GET {target}: no status line in {text:.80}"))
}

/// The ports handed out by this process.
static GIVEN: Mutex<Option<HashSet<u16>>> = Mutex::new(None);

/// A free TCP port of 127.0.0.1: below Linux's ephemeral range (32768-60999, where the kernel
/// picks client ports, so a test's own connections never take it), bindable now, and not
/// handed out before by this process. (Another process may still take it before the server
/// binds it: then the server fails to start, saying so.)
pub fn free_port() -> u16 {
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    let given = given.get_or_insert_with(HashSet::new);
    // A small generator seeded by the clock and the process: no dependency for randomness.
    let mut state = u64::from(std::process::id())
        ^ std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
    loop {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let port = 20000 + ((state >> 33) % 12000) as u16;
        if !given.contains(&port) && TcpListener::bind(("127.0.0.1", port)).is_ok() {
            given.insert(port);
            return port;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_free_and_never_given_twice() {
        let ports: Vec<u16> = (0..50).map(|_| free_port()).collect();
        let distinct: HashSet<u16> = ports.iter().copied().collect();
        assert_eq!(distinct.len(), ports.len());
        assert!(ports.iter().all(|p| (20000..32000).contains(p)));
    }

    #[test]
    fn a_server_answers_and_is_stopped_on_drop() {
        let logs = std::env::temp_dir().join(format!("testkit-{}", std::process::id()));
        let port = free_port();
        let script = format!(
            "exec python3 -m http.server --bind 127.0.0.1 {port} --directory {}",
            logs.display()
        );
        let server = Server::start(
            "http-server",
            port,
            Duration::from_secs(20),
            &logs,
            Command::new("bash").args(["-c", &script]),
        )
        .unwrap();
        assert!(answers(port, Duration::from_secs(5)));
        assert_eq!(server.url(), format!("http://127.0.0.1:{port}"));
        drop(server);
        assert!(!answers(port, Duration::from_secs(1)), "stopped on drop");
        fs::remove_dir_all(&logs).unwrap();
    }

    #[test]
    fn a_server_that_exits_fails_with_its_log() {
        let logs = std::env::temp_dir().join(format!("testkit-exit-{}", std::process::id()));
        let err = Server::start(
            "exits",
            free_port(),
            Duration::from_secs(20),
            &logs,
            Command::new("bash").args(["-c", "echo cannot bind >&2; exit 3"]),
        )
        .unwrap_err();
        assert!(
            err.contains("exited") && err.contains("cannot bind"),
            "{err}"
        );
        fs::remove_dir_all(&logs).unwrap();
    }

    #[test]
    fn the_tail_is_the_last_lines() {
        assert_eq!(tail("a\nb\nc\n", 2), "  b\n  c\n");
        assert_eq!(tail("a", 5), "  a\n");
    }
}
