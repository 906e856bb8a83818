#!/usr/bin/env bash
# `make setup`: installs everything edgesite needs to build, run and test, and nothing by hand:
# `cargo xtask setup` (crates/xtask/src/setup.rs says what and why). Idempotent: about a second
# when everything is there. (Run without scripts/env.sh: cargo here is the machine's own.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec cargo run -q -p xtask -- setup
