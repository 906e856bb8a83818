#!/usr/bin/env bash
# Installs everything edgesite needs to build, run and test, and nothing by hand.
# Idempotent: a second run checks versions and stamps and takes seconds.
#
# What it installs and why (see docs/testing.md, "What `make setup` installs"):
#   1. a wasm32-unknown-unknown Rust toolchain:
#      - rustup's target when it is installed or can be added, else
#      - the fallback: Debian's rustc-web/cargo-web/rust-web-src/lld-22, plus a wasm32 std built
#        once with RUSTC_BOOTSTRAP=1 -Zbuild-std into a sysroot of the tools folder (Debian's
#        rustc runs with --sysroot pointing there; nothing under /usr is written);
#   2. pinned cargo tools: wasm-bindgen-cli (= the wasm-bindgen in Cargo.lock) and wasm-pack,
#      compiled once at opt-level 0 in one shared target folder (they only orchestrate: the
#      compile is a third of the optimised one's, and their runs take about a second);
#   3. Node >= 22 and wrangler, esbuild, binaryen (wasm-opt) from package-lock.json (`npm ci`);
#   4. Debian's chromium + chromium-driver (browser tests), wrk (load tests), zstd (its CLI
#      decodes the build's dcz deltas in a test: the reference decoder) and libavif-bin (avifenc
#      and avifdec: the image stage makes its AVIFs with one and scores them through the other),
#      webp (cwebp: its WebPs) and libjpeg-turbo-progs (jpegtran: its lossless JPEGs);
#   5. moto's S3 server (pip, in a venv of the tools folder): the S3 API that scripts/r2-put.mjs
#      speaks to R2, for tests/r2_deploy.rs.
# 3, 4 and 5 (downloads) run beside 2 (a compile), and so does `cargo fetch` of the workspace's
# crates. Each step prints its time ("[setup] time ...").
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/versions.sh
. "$ROOT/scripts/versions.sh"
TOOLS=${EDGESITE_TOOLS:-$HOME/.cache/edgesite-tools}
mkdir -p "$TOOLS/bin"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

say() { printf '[setup] %s\n' "$*"; }
# shellcheck source=scripts/lib.sh
LOGS="$ROOT/target/setup-logs" . "$ROOT/scripts/lib.sh"
# A step of setup, timed (printed from a second up: a step with nothing to do takes less).
timed() { # name command...
  local name=$1 start=$EPOCHREALTIME rc=0
  shift
  "$@" || rc=$?
  local took
  took=$(since "$start")
  [ "${took%.*}" -lt 1 ] || say "time $name: $took s$([ $rc -eq 0 ] || echo " (failed)")"
  return $rc
}

# ---- Debian packages ----------------------------------------------------------------------------
APT_UPDATED=0
apt_install() {
  local missing=()
  for p in "$@"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null; then
    say "please install: ${missing[*]} (no apt-get on this machine)"; return 1
  fi
  if [ $APT_UPDATED = 0 ]; then $SUDO apt-get update -qq; APT_UPDATED=1; fi
  say "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# ---- 1. the wasm32 toolchain --------------------------------------------------------------------
wasm_via_rustup() {
  command -v rustup >/dev/null || return 1
  # (captured first: with pipefail, `grep -q` closing the pipe early would fail the pipeline)
  local installed
  installed=$(rustup target list --installed 2>/dev/null || true)
  grep -qx wasm32-unknown-unknown <<<"$installed" && return 0
  # Offline, `rustup target add` hangs instead of failing: bound it.
  say "trying: rustup target add wasm32-unknown-unknown (bounded to 60 s)"
  timeout 60 rustup target add wasm32-unknown-unknown >/dev/null 2>&1
}

# The Debian fallback's sysroot, owned by the project's tools folder: the wasm32 std built below,
# and links to Debian's own host libraries. Nothing is written under /usr.
SYSROOT="$TOOLS/debian-sysroot"

debian_sysroot_ok() {
  [ -x /usr/bin/rustc ] && [ -f "$TOOLS/debian-sysroot.stamp" ] &&
    [ "$(/usr/bin/rustc -vV)" = "$(cat "$TOOLS/debian-sysroot.stamp")" ] &&
    ls "$SYSROOT"/lib/rustlib/wasm32-unknown-unknown/lib/libstd-*.rlib >/dev/null 2>&1
}

# `rustc` and `rustdoc` wrappers that run Debian's with the sysroot above, a link to Debian's
# `cargo`, and `rust-lld` (the name rustc calls the wasm32 linker by) for lld-22, which ships no
# such name. Only this folder goes first on PATH, not /usr/bin.
link_debian_rust() {
  mkdir -p "$TOOLS/debian-rust/bin" "$SYSROOT/lib/rustlib"
  ln -sfn /usr/lib/rustlib/x86_64-unknown-linux-gnu "$SYSROOT/lib/rustlib/x86_64-unknown-linux-gnu"
  [ -e /usr/lib/rustlib/src ] && ln -sfn /usr/lib/rustlib/src "$SYSROOT/lib/rustlib/src"
  ln -sf /usr/bin/cargo "$TOOLS/debian-rust/bin/cargo"
  for t in rustc rustdoc; do
    printf '#!/bin/sh\nexec /usr/bin/%s --sysroot "%s" "$@"\n' "$t" "$SYSROOT" >"$TOOLS/debian-rust/bin/$t"
    chmod +x "$TOOLS/debian-rust/bin/$t"
  done
  ln -sf /usr/bin/lld-22 "$TOOLS/debian-rust/bin/rust-lld"
}

build_debian_sysroot() {
  apt_install rustc-web cargo-web rust-web-src lld-22
  link_debian_rust
  say "building the wasm32 std with -Zbuild-std (once per rustc-web version, ~90 s)"
  local seed="$TOOLS/sysroot-seed"
  rm -rf "$seed"; mkdir -p "$seed/src"
  cat >"$seed/Cargo.toml" <<'TOML'
[package]
name = "sysroot-seed"
version = "0.0.0"
edition = "2021"
[lib]
crate-type = ["cdylib", "rlib"]
[profile.release]
lto = true
TOML
  echo 'pub fn seed() {}' >"$seed/src/lib.rs"
  # cdylib+rlib makes cargo build std with object code *and* bitcode, so LTO and non-LTO both link.
  # (Debian's rustc with its own sysroot, /usr, which has the std sources build-std needs.)
  (cd "$seed" && env -u CARGO_TARGET_DIR PATH="$TOOLS/debian-rust/bin:$PATH" RUSTC=/usr/bin/rustc \
    RUSTC_BOOTSTRAP=1 /usr/bin/cargo build -q --release --target wasm32-unknown-unknown -Zbuild-std=std,panic_abort,test)
  local lib="$SYSROOT/lib/rustlib/wasm32-unknown-unknown/lib"
  rm -rf "$lib"; mkdir -p "$lib"
  find "$seed/target/wasm32-unknown-unknown/release/deps" -name 'lib*.r*' ! -name 'libsysroot_seed*' \
    \( -name '*.rlib' -o -name '*.rmeta' \) -exec cp {} "$lib/" \;
  /usr/bin/rustc -vV >"$TOOLS/debian-sysroot.stamp"
  rm -rf "$seed"
}

if [ "${EDGESITE_TOOLCHAIN:-}" != debian ] && timed "rustup target add wasm32-unknown-unknown" wasm_via_rustup; then
  echo rustup >"$TOOLS/toolchain"
  say "wasm32: rustup's target"
else
  debian_sysroot_ok || timed "Debian wasm32 sysroot" build_debian_sysroot
  link_debian_rust
  echo debian >"$TOOLS/toolchain"
  say "wasm32: Debian rustc-web $(/usr/bin/rustc -V | cut -d' ' -f2) with a build-std sysroot"
fi

# From here on, use the toolchain chosen above (scripts/env.sh puts it first on PATH).
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"

# ---- 2, 3 and 4 -------------------------------------------------------------------------------
# The downloads (npm, Debian packages, the workspace's crates) beside the compile of the tools.
downloads() {
  timed "npm and Node 22" node_tools
  timed "Debian packages (chromium, chromium-driver, wrk, zstd, libavif-bin, webp, libjpeg-turbo-progs)" apt_install chromium chromium-driver wrk zstd libavif-bin webp libjpeg-turbo-progs
  timed "cargo fetch (the workspace's crates)" cargo fetch -q --locked --manifest-path "$ROOT/Cargo.toml"
  timed "moto's S3 server (pip)" s3_server
}

# ---- 5. an S3 server ------------------------------------------------------------------------
s3_server() {
  local venv="$TOOLS/moto"
  local want=("moto[s3]==$MOTO_VERSION" "flask==$FLASK_VERSION" "flask-cors==$FLASK_CORS_VERSION")
  if [ "$(cat "$venv/.edgesite-stamp" 2>/dev/null)" != "${want[*]}" ]; then
    say "pip install ${want[*]} (in $venv)"
    rm -rf "$venv"
    python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check "${want[@]}" &&
      echo "${want[*]}" >"$venv/.edgesite-stamp"
  fi
  ln -sf "$venv/bin/moto_server" "$TOOLS/bin/moto_server"
}

# ---- 3. Node >= 22, wrangler, esbuild, wasm-opt ---------------------------------------------
node_tools() {
  apt_install ca-certificates
  command -v npm >/dev/null || apt_install nodejs npm
  local lock_sum
  lock_sum=$(sha256sum "$ROOT/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$ROOT/node_modules/.edgesite-stamp" 2>/dev/null)" != "$lock_sum" ]; then
    say "npm ci (wrangler, node 22, esbuild, binaryen)"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$lock_sum" >"$ROOT/node_modules/.edgesite-stamp"
  fi
}

# ---- 2. pinned cargo tools ----------------------------------------------------------------------
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/[^0-9.]/,""); print; exit}' "$ROOT/Cargo.lock")
cargo_tool() { # crate version binary [--locked]
  local crate=$1 version=$2 bin=$3; shift 3
  # `--version` prints "wasm-pack 0.15.1" or a bare "0.8.7": pad it with spaces to match either.
  case " $("$TOOLS/bin/$bin" --version 2>/dev/null | head -n 1) " in *" $version "*) return 0 ;; esac
  say "cargo install $crate@$version (once)"
  # One target folder for both tools (shared dependencies compile once), opt-level 0.
  CARGO_TARGET_DIR="$TOOLS/cargo-target" CARGO_PROFILE_RELEASE_OPT_LEVEL=0 \
    CARGO_PROFILE_RELEASE_DEBUG=false CARGO_PROFILE_RELEASE_LTO=false \
    cargo install -q --root "$TOOLS" "$crate@$version" --force "$@"
}
cargo_tools() {
  # wasm-bindgen-cli's own lock pins a crate version the registry no longer serves: no --locked.
  timed "cargo install wasm-bindgen-cli" cargo_tool wasm-bindgen-cli "$WASM_BINDGEN_VERSION" wasm-bindgen &&
    timed "cargo install wasm-pack" cargo_tool wasm-pack "$WASM_PACK_VERSION" wasm-pack --locked
}

downloads >"$TOOLS/downloads.log" 2>&1 &
downloading=$!
cargo_tools
tools_rc=$?
wait "$downloading"
downloads_rc=$?
cat "$TOOLS/downloads.log"
[ $tools_rc -eq 0 ] && [ $downloads_rc -eq 0 ] || { say "setup failed"; exit 1; }
rm -rf "$TOOLS/cargo-target"

say "ready: $(rustc -V), $(wasm-bindgen --version), $(wasm-pack --version), node $(node --version), wrangler $(wrangler --version 2>/dev/null | tail -1)"
