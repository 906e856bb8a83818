//! `cargo xtask`: what the test harness (`scripts/test.sh`) asks of Rust instead of inline
//! Python (issue 36, a first part; the harness moves here piece by piece).
//!
//! - `cargo xtask test-binaries MESSAGES`: the test executables in cargo's JSON messages (the
//!   host build's `cargo test --no-run --message-format=json-render-diagnostics`), one line
//!   each: the target's name, its package's folder, the executable, tab-separated.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["test-binaries", messages] => match std::fs::read_to_string(messages) {
            Ok(text) => {
                print!("{}", test_binaries(&text));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("xtask: {messages}: {e}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("usage: cargo xtask test-binaries MESSAGES");
            ExitCode::from(2)
        }
    }
}

/// The test executables cargo's messages name (`compiler-artifact` with an executable, of a
/// test profile), as `name TAB package-folder TAB executable` lines; lines that are not JSON
/// (cargo prints none, but a wrapper may) are skipped.
fn test_binaries(messages: &str) -> String {
    let mut out = String::new();
    for line in messages.lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let is_test = message["profile"]["test"].as_bool() == Some(true);
        let (Some(name), Some(manifest), Some(executable)) = (
            message["target"]["name"].as_str(),
            message["manifest_path"].as_str(),
            message["executable"].as_str(),
        ) else {
            continue;
        };
        if message["reason"] != "compiler-artifact" || !is_test {
            continue;
        }
        let folder = std::path::Path::new(manifest)
            .parent()
            .unwrap_or(std::path::Path::new(""));
        out.push_str(&format!("{name}\t{}\t{executable}\n", folder.display()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_executables_are_listed_and_the_rest_left_out() {
        let messages = [
            r#"{"reason":"compiler-artifact","target":{"name":"http"},"profile":{"test":true},"manifest_path":"/w/Cargo.toml","executable":"/w/target/debug/deps/http-1"}"#,
            // A library built for the tests: no executable.
            r#"{"reason":"compiler-artifact","target":{"name":"core"},"profile":{"test":false},"manifest_path":"/w/crates/core/Cargo.toml","executable":null}"#,
            // A binary of a non-test profile.
            r#"{"reason":"compiler-artifact","target":{"name":"serve"},"profile":{"test":false},"manifest_path":"/w/Cargo.toml","executable":"/w/target/debug/serve"}"#,
            r#"{"reason":"build-finished","success":true}"#,
            "warning: not JSON",
            r#"{"reason":"compiler-artifact","target":{"name":"core"},"profile":{"test":true},"manifest_path":"/w/crates/core/Cargo.toml","executable":"/w/target/debug/deps/core-2"}"#,
        ]
        .join("\n");
        assert_eq!(
            test_binaries(&messages),
            "http\t/w\t/w/target/debug/deps/http-1\n\
             core\t/w/crates/core\t/w/target/debug/deps/core-2\n"
        );
    }
}
