//! What a build shows of itself while it runs: the time of each stage ([`Clock`], for the
//! report), and the progress of a stage that takes a while (the first compression of a large site, the image
//! stage's encodes), shown where the user runs the build, once it has run two seconds (or as
//! `EDGESITE_PROGRESS` says: [`When`]):
//! - on a terminal, a bar (indicatif): the stage, files done of the total, bytes, time left. A
//!   build script's stdout and stderr go to cargo, which shows them only with `-vv`, so the bar
//!   is drawn on the controlling terminal (`/dev/tty`) when there is one: the terminal of
//!   `make dev`, `make deploy`, `wrangler dev` or `cargo build`;
//! - without one (CI logs, a pipe), plain lines on stderr, at most every ten seconds.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The wall time of each stage, in milliseconds, in the order they ran (the report shows
/// them), and of the whole compile.
pub(crate) struct Clock {
    started: Instant,
    stages: Vec<(&'static str, u64)>,
}

impl Clock {
    /// A clock started now.
    pub(crate) fn start() -> Clock {
        Clock {
            started: Instant::now(),
            stages: Vec::new(),
        }
    }

    /// `run`, timed as `stage`.
    pub(crate) fn time<T>(&mut self, stage: &'static str, run: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let out = run();
        self.stages
            .push((stage, started.elapsed().as_millis() as u64));
        out
    }

    /// `run`, and its wall time in milliseconds: a stage that runs beside others, on a thread of
    /// its own, [`Clock::record`]ed once they are done.
    pub(crate) fn timed<T>(run: impl FnOnce() -> T) -> (T, u64) {
        let started = Instant::now();
        let out = run();
        (out, started.elapsed().as_millis() as u64)
    }

    /// Adds `stage`, which took `ms` beside the stages before it (see [`Clock::timed`]).
    pub(crate) fn record(&mut self, stage: &'static str, ms: u64) {
        self.stages.push((stage, ms));
    }

    /// Each stage's time, and the milliseconds since the clock started.
    pub(crate) fn stop(self) -> (Vec<(&'static str, u64)>, u64) {
        (self.stages, self.started.elapsed().as_millis() as u64)
    }
}

/// How long a stage runs before its progress shows.
const QUIET_FOR: Duration = Duration::from_secs(2);

/// When a stage shows its progress, as cargo's `term.progress.when` says it for cargo's own:
/// `EDGESITE_PROGRESS=auto|always|never`, read by the build script ([`set_when`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum When {
    /// Once the stage has run two seconds (the default).
    Auto,
    /// From its first file on.
    Always,
    /// Never (no bar, no lines).
    Never,
}

impl When {
    /// `EDGESITE_PROGRESS`'s value (unset or empty: `auto`).
    pub(crate) fn from_env(value: Option<&std::ffi::OsStr>) -> Result<When, String> {
        match value.map(|v| v.to_str()) {
            None | Some(Some("" | "auto")) => Ok(When::Auto),
            Some(Some("always")) => Ok(When::Always),
            Some(Some("never")) => Ok(When::Never),
            Some(value) => Err(format!(
                "EDGESITE_PROGRESS={}: expected auto, always or never",
                value.unwrap_or("(not UTF-8)")
            )),
        }
    }

    /// How long a stage stays quiet (`None`: all along).
    fn quiet_for(self) -> Option<Duration> {
        match self {
            When::Auto => Some(QUIET_FOR),
            When::Always => Some(Duration::ZERO),
            When::Never => None,
        }
    }
}

/// The process's [`When`], set once by the build script; until then [`When::Auto`].
static WHEN: OnceLock<When> = OnceLock::new();

/// Sets when the stages of this process show their progress (the first call counts: a build
/// script runs one build).
pub(crate) fn set_when(when: When) {
    let _ = WHEN.set(when);
}

/// The process's [`When`].
fn when() -> When {
    WHEN.get().copied().unwrap_or(When::Auto)
}
/// How often a plain line is written.
const LINE_EVERY: Duration = Duration::from_secs(10);

/// One stage's progress; shared by the threads that do its work.
pub(crate) struct Progress {
    stage: &'static str,
    total: u64,
    done: AtomicU64,
    bytes: AtomicU64,
    started: Instant,
    /// How long it stays quiet (`None`: all along).
    quiet_for: Option<Duration>,
    /// The bar, made once the stage has run `quiet_for` (`None` inside: no terminal).
    bar: OnceLock<Option<ProgressBar>>,
    /// When the last plain line was written (`None`: none yet).
    last_line: Mutex<Option<Instant>>,
}

impl Progress {
    /// A stage of `total` files (`stage` names it: "images", "compress").
    pub(crate) fn new(stage: &'static str, total: usize) -> Progress {
        let now = Instant::now();
        Progress {
            stage,
            total: total as u64,
            done: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            started: now,
            quiet_for: when().quiet_for(),
            bar: OnceLock::new(),
            last_line: Mutex::new(None),
        }
    }

    /// One more file done, of `bytes` bytes.
    pub(crate) fn one_done(&self, bytes: u64) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let bytes = self.bytes.fetch_add(bytes, Ordering::Relaxed) + bytes;
        let elapsed = self.started.elapsed();
        if self.quiet_for.is_none_or(|quiet| elapsed < quiet) {
            return;
        }
        match self.bar.get_or_init(|| self.terminal_bar()) {
            Some(bar) => {
                bar.set_message(format!("{:.1} MB", bytes as f64 / 1e6));
                bar.set_position(done);
                if done == self.total {
                    bar.finish();
                }
            }
            None => {
                if let Some(line) = self.line(done, bytes, elapsed) {
                    eprintln!("{line}");
                }
            }
        }
    }

    /// A bar on the controlling terminal, or `None` when there is none.
    fn terminal_bar(&self) -> Option<ProgressBar> {
        let term = terminal()?;
        let style = ProgressStyle::with_template(
            "edgesite: {prefix} [{bar:30}] {pos}/{len} files, {msg}, {eta} left",
        )
        .ok()?
        .progress_chars("=> ");
        let bar =
            ProgressBar::with_draw_target(Some(self.total), ProgressDrawTarget::term(term, 4))
                .with_style(style)
                .with_prefix(self.stage)
                .with_message("0.0 MB")
                .with_elapsed(self.started.elapsed());
        (!bar.is_hidden()).then_some(bar)
    }

    /// The plain line to write now, if one is due: at most every `LINE_EVERY`, and for the
    /// last file.
    fn line(&self, done: u64, bytes: u64, elapsed: Duration) -> Option<String> {
        let mut last = self.last_line.lock().unwrap_or_else(|e| e.into_inner());
        if done < self.total && last.is_some_and(|at| at.elapsed() < LINE_EVERY) {
            return None;
        }
        *last = Some(Instant::now());
        let left = elapsed.as_secs_f64() / done as f64 * (self.total - done) as f64;
        Some(format!(
            "edgesite: {} {done}/{} files, {:.1} MB, about {left:.0} s left",
            self.stage,
            self.total,
            bytes as f64 / 1e6
        ))
    }
}

/// The terminal the user runs the build in: stderr when it is one, else the controlling
/// terminal (a build script's stderr goes to cargo), else `None`.
fn terminal() -> Option<console::Term> {
    let stderr = console::Term::stderr();
    if stderr.is_term() {
        return Some(stderr);
    }
    controlling_terminal()
}

#[cfg(unix)]
fn controlling_terminal() -> Option<console::Term> {
    let open = || {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
    };
    let term = console::Term::read_write_pair(open().ok()?, open().ok()?);
    term.is_term().then_some(term)
}

#[cfg(not(unix))]
fn controlling_terminal() -> Option<console::Term> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_say_the_stage_files_bytes_and_time_left_at_most_every_ten_seconds() {
        let progress = Progress::new("images", 4);
        let second = Duration::from_secs(1);
        assert_eq!(
            progress.line(1, 2_500_000, 3 * second).as_deref(),
            Some("edgesite: images 1/4 files, 2.5 MB, about 9 s left")
        );
        // The next only ten seconds later, but always the last file's.
        assert_eq!(progress.line(2, 5_000_000, 4 * second), None);
        assert_eq!(
            progress.line(4, 9_000_000, 8 * second).as_deref(),
            Some("edgesite: images 4/4 files, 9.0 MB, about 0 s left")
        );
    }

    #[test]
    fn nothing_shows_in_the_first_two_seconds() {
        let progress = Progress::new("compress", 2);
        progress.one_done(10);
        assert!(progress.bar.get().is_none() && progress.last_line.lock().unwrap().is_none());
    }

    #[test]
    fn edgesite_progress_is_read_and_a_bad_value_named() {
        use std::ffi::OsStr;
        let read = |v: Option<&str>| When::from_env(v.map(OsStr::new));
        assert_eq!(read(None), Ok(When::Auto));
        assert_eq!(read(Some("")), Ok(When::Auto));
        assert_eq!(read(Some("auto")), Ok(When::Auto));
        assert_eq!(read(Some("always")), Ok(When::Always));
        assert_eq!(read(Some("never")), Ok(When::Never));
        assert_eq!(
            read(Some("Always")),
            Err("EDGESITE_PROGRESS=Always: expected auto, always or never".into())
        );
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let bad = When::from_env(Some(OsStr::from_bytes(b"\xff")));
            assert!(bad.is_err_and(|e| e.contains("(not UTF-8)")));
        }
    }

    #[test]
    fn always_shows_from_the_first_file_and_never_shows_nothing() {
        // The process's setting is read when a stage starts; here each stage's is set, so that
        // the other tests' stages (started with the default) are not touched. One file of one:
        // a bar drawn on a terminal is finished.
        let mut always = Progress::new("compress", 1);
        always.quiet_for = When::Always.quiet_for();
        always.one_done(10);
        assert!(always.bar.get().is_some());
        let mut never = Progress::new("compress", 1);
        never.started -= Duration::from_secs(60);
        never.quiet_for = When::Never.quiet_for();
        never.one_done(10);
        assert!(never.bar.get().is_none() && never.last_line.lock().unwrap().is_none());
        assert_eq!(When::Auto.quiet_for(), Some(QUIET_FOR));
    }
}
