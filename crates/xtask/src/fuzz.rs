//! `make fuzz` (`cargo xtask fuzz`): runs every cargo-fuzz target in fuzz/ for FUZZ_SECONDS
//! (default 60) each, starting from the committed corpus (fuzz/corpus/TARGET, which libFuzzer
//! extends), and fails on a crash.
//!
//! - `FUZZ_SECONDS=600 make fuzz`: longer;
//! - `FUZZ_TARGETS="path decide" make fuzz`: some targets;
//! - `FUZZ_SANITIZER=none make fuzz`: without AddressSanitizer (the core has no unsafe code;
//!   the default under the Debian toolchain, whose rustc ships no sanitizer runtimes).
//!
//! cargo-fuzz is installed into the tools folder on first use (scripts/versions.sh pins it).
//! libFuzzer needs unstable compiler flags; `RUSTC_BOOTSTRAP=1` lets the stable compiler accept
//! them, so no nightly is needed.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::run::run_to;

/// How many files `dir` holds.
fn count(dir: &Path) -> usize {
    fs::read_dir(dir).map_or(0, |d| d.flatten().filter(|e| e.path().is_file()).count())
}

/// The lines of a libFuzzer log that say why it failed.
fn why(log: &str) -> String {
    let lines = log.lines().filter(|l| {
        ["panicked", "SUMMARY", "Failing input", "artifacts/"]
            .iter()
            .any(|w| l.contains(w))
    });
    lines.take(8).map(|l| format!("  {l}\n")).collect()
}

/// The last `stat::number_of_executed_units` libFuzzer printed.
fn executed(log: &str) -> Option<&str> {
    log.lines()
        .rev()
        .find_map(|l| l.strip_prefix("stat::number_of_executed_units:"))
        .map(str::trim)
}

/// cargo-fuzz at the pinned version in the tools folder, installed when it is not.
fn install(root: &Path, tools: &Path) -> Result<(), String> {
    let pins = crate::setup::versions(root)?;
    let pin = pins.iter().find(|(k, _)| k == "CARGO_FUZZ_VERSION");
    let version = pin
        .map(|(_, v)| v)
        .ok_or("scripts/versions.sh has no CARGO_FUZZ_VERSION")?;
    let installed = Command::new(tools.join("bin/cargo-fuzz"))
        .arg("--version")
        .output();
    let stdout = installed
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if stdout.split_whitespace().any(|w| w == version) {
        return Ok(());
    }
    println!("[fuzz] cargo install cargo-fuzz@{version} (a minute or two, once)");
    let mut command = Command::new("cargo");
    command
        .args(["install", "-q", "--root"])
        .arg(tools)
        .arg(format!("cargo-fuzz@{version}"));
    run_to(command.args(["--locked", "--force"]), None)
}

/// `cargo fuzz ARGS` in fuzz/, with the unstable flags allowed.
fn cargo_fuzz(root: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("cargo");
    command
        .current_dir(root.join("fuzz"))
        .env("RUSTC_BOOTSTRAP", "1")
        .arg("fuzz")
        .args(args);
    command
}

/// Runs one target for `seconds` from its corpus; its summary line, and whether it crashed.
fn run_target(
    root: &Path,
    logs: &Path,
    target: &str,
    sanitizer: &str,
    seconds: u64,
) -> Result<(String, bool), String> {
    let corpus = root.join("fuzz/corpus").join(target);
    fs::create_dir_all(&corpus).map_err(|e| e.to_string())?;
    let before = count(&corpus);
    println!("[fuzz] {target}: {seconds} s from {before} corpus inputs");
    let log = logs.join(format!("{target}.log"));
    // The outer timeout only guards against a hung target; libFuzzer stops itself at
    // -max_total_time.
    let mut command = Command::new("timeout");
    command
        .current_dir(root.join("fuzz"))
        .env("RUSTC_BOOTSTRAP", "1")
        .arg((seconds + 120).to_string())
        .args(["cargo", "fuzz", "run", "-s", sanitizer, target, "--"])
        .arg(format!("-max_total_time={seconds}"))
        .arg("-print_final_stats=1");
    let crashed = run_to(&mut command, Some(&log)).is_err();
    let text = fs::read_to_string(&log).unwrap_or_default();
    if crashed {
        print!("{}", why(&text));
    }
    let runs = executed(&text).unwrap_or("?");
    let (crashes, after) = (u8::from(crashed), count(&corpus));
    let line = format!("{target:<16} {runs:>12} execs in {seconds:>4} s   crashes {crashes}   corpus {before} -> {after}");
    Ok((line, crashed))
}

pub(crate) fn main(root: &Path) -> Result<(), String> {
    let env = crate::config::var;
    let tools = crate::setup::tools();
    let seconds: u64 = env("FUZZ_SECONDS")
        .map_or(Ok(60), |s| s.parse())
        .map_err(|_| "FUZZ_SECONDS: not a number")?;
    let debian = fs::read_to_string(tools.join("toolchain")).is_ok_and(|t| t.trim() == "debian");
    let sanitizer =
        env("FUZZ_SANITIZER").unwrap_or_else(|| if debian { "none" } else { "address" }.into());
    install(root, &tools)?;
    let targets = match env("FUZZ_TARGETS") {
        Some(t) => t,
        None => {
            let listed = cargo_fuzz(root, &["list"])
                .output()
                .map_err(|e| format!("cargo fuzz list: {e}"))?;
            String::from_utf8_lossy(&listed.stdout).into_owned()
        }
    };
    let logs = root.join("target/fuzz-logs");
    fs::create_dir_all(&logs).map_err(|e| e.to_string())?;
    println!("[fuzz] building (sanitizer: {sanitizer})");
    run_to(
        &mut cargo_fuzz(root, &["build", "-s", &sanitizer]),
        Some(&logs.join("build.log")),
    )?;
    let (mut summary, mut failed) = (Vec::new(), false);
    for target in targets.split_whitespace() {
        let (line, crashed) = run_target(root, &logs, target, &sanitizer, seconds)?;
        summary.push(line);
        failed |= crashed;
    }
    println!("\n{}", summary.join("\n"));
    let replay = "cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run TARGET FILE";
    println!(
        "logs: {}; a crash's input is in fuzz/artifacts/TARGET/ (replay: {replay})",
        logs.display()
    );
    if failed {
        Err("a fuzz target crashed".into())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_executions_and_the_crash_are_read_from_libfuzzers_log() {
        let log =
            "#2 INITED\nstat::number_of_executed_units: 10\nthread 'x' panicked at src/lib.rs:3\n\
                   SUMMARY: libFuzzer: deadly signal\nstat::number_of_executed_units: 1234\n";
        assert_eq!(executed(log), Some("1234"));
        assert_eq!(
            why(log),
            "  thread 'x' panicked at src/lib.rs:3\n  SUMMARY: libFuzzer: deadly signal\n"
        );
        assert_eq!(executed("nothing"), None);
    }
}
