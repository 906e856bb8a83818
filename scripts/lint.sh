#!/usr/bin/env bash
# `make lint`: rustfmt and clippy with warnings denied, on the host and (with rustup's wasm32
# target) on wasm32. rustfmt and clippy come from rustup: Debian's rustc-web ships neither, and
# rustup cannot lint for wasm32 without its own wasm32 target, so with the Debian fallback the
# wasm32 pass is skipped (the wasm32 build in `make test` still compiles it).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
cargo fmt --all -- --check
cargo clippy -q --workspace --all-targets -- -D warnings
if [ "$(cat "${EDGESITE_TOOLS:-$HOME/.cache/edgesite-tools}/toolchain" 2>/dev/null)" = rustup ]; then
  cargo clippy -q --lib --target wasm32-unknown-unknown -- -D warnings
else
  echo "lint: wasm32 clippy skipped (Debian fallback toolchain has no clippy)"
fi
# The crates' documentation, warnings denied (broken links, missing docs); the doctests run in
# `make test` (cargo test --workspace).
RUSTDOCFLAGS="-D warnings" cargo doc -q --workspace --no-deps
echo "lint: clean"
