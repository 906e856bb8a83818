# Sourced by the Makefile and scripts: puts the toolchain that scripts/setup.sh chose first on PATH.
# With the Debian fallback, only links to /usr/bin/{cargo,rustc,rustdoc} go first (not all of
# /usr/bin), because wasm-pack (and worker-build) run `rustup target add` (which hangs offline) when
# the rustc they see comes from rustup.
_edgesite_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
EDGESITE_TOOLS=${EDGESITE_TOOLS:-$HOME/.cache/edgesite-tools}
PATH="$EDGESITE_TOOLS/bin:$_edgesite_root/node_modules/.bin:$PATH"
if [ "$(cat "$EDGESITE_TOOLS/toolchain" 2>/dev/null)" = debian ]; then
  PATH="$EDGESITE_TOOLS/debian-rust/bin:$PATH"
  unset RUSTUP_TOOLCHAIN
fi
# wasm-pack (and worker-build, if a user runs it) would download these; point them at the local ones.
export WASM_BINDGEN_BIN="$EDGESITE_TOOLS/bin/wasm-bindgen"
export WASM_OPT_BIN="$_edgesite_root/node_modules/.bin/wasm-opt"
export ESBUILD_BIN="$_edgesite_root/node_modules/.bin/esbuild"
export WRANGLER_SEND_METRICS=false
export PATH EDGESITE_TOOLS
unset _edgesite_root
