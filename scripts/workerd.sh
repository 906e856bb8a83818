#!/usr/bin/env bash
# The Worker under bare `workerd serve`: `cargo xtask workerd build|build-dir|config|config-at|
# wrangler-toml|serve ...` (crates/xtask/src/workerd.rs says what each does), for the benchmarks.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
exec cargo run -q --manifest-path "$ROOT/Cargo.toml" -p xtask -- workerd "$@"
