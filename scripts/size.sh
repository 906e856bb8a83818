#!/usr/bin/env bash
# make size: the deploy bundle (wrangler deploy --dry-run, offline) against Cloudflare's Worker
# size limits, and the Worker's code alone: the same release build (wasm-opt included) of a
# one-file site, so the figure is the code, not the site.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
cd "$ROOT"
rm -rf dist
wrangler deploy --dry-run --outdir dist >target/size-deploy.log 2>&1 || { cat target/size-deploy.log; exit 1; }
total=$(grep -E '^Total Upload' target/size-deploy.log)
echo "$total"
gzip_kib=$(sed -n 's/.*gzip: \([0-9.]*\) KiB.*/\1/p' <<<"$total")
wasm=$(stat -c %s dist/*.wasm)
echo "wasm module (code + embedded site): $wasm bytes"
awk -v g="$gzip_kib" 'BEGIN {
  printf "compressed size against the Worker limits: %.1f%% of 3 MiB (Free), %.1f%% of 10 MiB (Paid)\n", g / 3072 * 100, g / 10240 * 100 }'
# The code alone: a site of one tiny file, built in its own target dir.
WORK="$ROOT/target/size"
mkdir -p "$WORK/site"
printf 'x\n' >"$WORK/site/index.txt"
printf '[site]\ndir = "site"\n[compression]\ncodings = []\n' >"$WORK/edgesite.toml"
rm -rf "$WORK/build"
CUSTOM_SHIM=src/worker-shim.js CARGO_TARGET_DIR="$WORK/cargo" EDGESITE_CONFIG="$WORK/edgesite.toml" \
  worker-build --release --out-dir target/size/build >"$WORK/build.log" 2>&1 || { tail -20 "$WORK/build.log"; exit 1; }
# worker-build's own layout keeps the module in build/worker/.
module=$(find "$WORK/build" -name '*.wasm' | head -n 1)
code=$(stat -c %s "$module")
code_gz=$(gzip -9 -c "$module" | wc -c)
echo "code alone (release, wasm-opt, a one-file site): $code bytes ($code_gz bytes gzipped)"
