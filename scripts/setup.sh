#!/usr/bin/env bash
# `make setup`: installs everything edgesite needs to build, run and test, and nothing by hand:
# `cargo xtask setup` (crates/xtask/src/setup.rs says what and why). Idempotent: about a second
# when everything is there. Run with the machine's own cargo (not scripts/env.sh's); on a
# machine with none, Debian's (the toolchain of setup's fallback) is installed first.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! command -v cargo >/dev/null; then
  sudo=$([ "$(id -u)" = 0 ] || echo sudo)
  echo "[setup] no cargo: apt-get install rustc-web cargo-web"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends rustc-web cargo-web >/dev/null
fi
exec cargo run -q -p xtask -- setup
