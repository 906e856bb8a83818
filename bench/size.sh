#!/usr/bin/env bash
# make size (a measurement, beside the benchmarks): what each Worker uploads, against Cloudflare's limits (64 MiB uncompressed on every
# plan; the older compressed limits, 3 MiB Free and 10 MiB Paid, for reference):
#   - the demo: the bundle of `wrangler deploy --dry-run` (offline), exactly what deploys;
#   - the code alone: a one-file site, so the figure is the code, not the site;
#   - the generated 5 MB, 40 MB and 70 MB sites (bench/sites.sh), built by scripts/workerd.sh:
#     the wasm (routing and fields only), the blobs (the site's bytes, data modules), the JS,
#     and what `[compression] store = "auto"` chose. SIZE_SITES="5mb" picks some.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
cd "$ROOT"
WORK="$ROOT/target/size"
mkdir -p "$WORK"
LIMIT=$((64 * 1024 * 1024))

rm -rf dist
wrangler deploy --dry-run --outdir dist >"$WORK/deploy.log" 2>&1 || { cat "$WORK/deploy.log"; exit 1; }
echo "demo, wrangler deploy --dry-run: $(grep -E '^Total Upload' "$WORK/deploy.log")"

# One row: the bundle folder's wasm, blobs and JS, gzipped total, share of the limit.
row() { # name bundle-dir
  local wasm blobs js total gz
  wasm=$(find "$2" -name '*.wasm' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
  blobs=$(find "$2" -name '*.bin' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
  js=$(find "$2" \( -name '*.js' -o -name '*.mjs' \) -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
  total=$((wasm + blobs + js))
  gz=$(cd "$2" && find . \( -name '*.wasm' -o -name '*.bin' -o -name '*.js' -o -name '*.mjs' \) -print0 |
    sort -z | xargs -0 cat | gzip -6 | wc -c)
  local store=""
  [ -f "$2/edgesite-build.txt" ] && store=$(sed -n 's/^storage: //p' "$2/edgesite-build.txt")
  printf '| %s | %s | %s | %s | %s (%.1f%% of 64 MiB) | %s | %s |\n' "$1" "$wasm" "$blobs" "$js" "$total" \
    "$(awk -v t="$total" -v l="$LIMIT" 'BEGIN { print t / l * 100 }')" "$gz" "${store:-full}"
}

printf '\n%s\n| Worker | wasm bytes | blob bytes | JS bytes | total | gzipped | storage |\n|---|---|---|---|---|---|---|\n' "$(date -u +%Y-%m-%d)"
row "demo (deploy bundle)" dist

# The code alone: a site of one tiny file.
mkdir -p "$WORK/code/site"
printf 'x\n' >"$WORK/code/site/index.txt"
printf '[site]\ndir = "site"\n[compression]\ncodings = []\n' >"$WORK/code/code-alone.toml"
row "code alone (one-file site)" "$(scripts/workerd.sh build "$WORK/code/code-alone.toml")"

for site in ${SIZE_SITES:-5mb 40mb 70mb}; do
  config=$(bench/sites.sh "$site")
  row "generated $site site" "$(scripts/workerd.sh build "$config")"
done
