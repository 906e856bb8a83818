//! `edgesite-history commit <staged folder>`: records in the deploy history the deploy a build
//! with `EDGESITE_RECORD_DEPLOY=1` staged (see `edgesite_sitegen::history::stage`). `make
//! deploy` runs it once `wrangler deploy` has succeeded, so the history holds only what clients
//! were served.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [command, staged] = args.as_slice() else {
        eprintln!("usage: edgesite-history commit <staged folder>");
        return ExitCode::from(2);
    };
    if command != "commit" {
        eprintln!("edgesite-history: unknown command {command:?} (commit)");
        return ExitCode::from(2);
    }
    match edgesite_sitegen::history::commit(&PathBuf::from(staged)) {
        Ok(Some((dir, build_id, recorded))) => {
            println!(
                "history: recorded build {build_id} in {}: {} deploys kept, {} bodies written, {} removed, {} bytes",
                dir.display(),
                recorded.deploys,
                recorded.bodies_written,
                recorded.bodies_removed,
                recorded.bytes
            );
            ExitCode::SUCCESS
        }
        Ok(None) => {
            println!(
                "history: nothing staged in {staged} (this build's deploy is recorded already)"
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("edgesite-history: {error}");
            ExitCode::FAILURE
        }
    }
}
