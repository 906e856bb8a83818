#!/usr/bin/env bash
# wrangler.toml's [build] command (and examples/api-worker's): the toolchain on PATH, then
# `cargo xtask build-worker [--package NAME] [--entry TEMPLATE] [OUT]` (crates/xtask/src/
# build_worker.rs), run in the folder wrangler runs this from (its paths are relative to it).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
exec cargo run -q --manifest-path "$ROOT/Cargo.toml" -p xtask -- build-worker "$@"
