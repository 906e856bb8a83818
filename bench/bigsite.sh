#!/usr/bin/env bash
# `make bigsite`: a site of any size. bench/sites.sh's `1gb` site (3,000 pages, 900 images of
# 1 MB, 8 downloads of 20 MiB, 2 talks of 40 MiB: about 1.2 GB) is built for the Worker (times:
# the first build, then again with nothing changed; the bundle's size against the 64 MiB limit,
# and what `wrangler deploy --dry-run` would upload),
# served under `wrangler dev` (its store in wrangler's local Static Assets, the talks in its
# local R2, put there by scripts/r2-put.mjs) and by the native twin (built
# with the same config: the bundle's files in the binary, the store's read from its folder), and
# tested over HTTP against both (tests/bigsite.rs: every file byte for byte, every coding of a
# sample with its own strong ETag, 304s, ranges).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cd "$ROOT"
trap stop_all_servers EXIT
config=$(bench/sites.sh 1gb)
site="$(dirname "$config")/site"
echo "site: $(du -sb "$site" | cut -f1) bytes in $(find "$site" -type f | wc -l) files"
EDGESITE_HISTORY="" /usr/bin/time -f "the Worker's build: %e s, peak RSS %M KiB" \
  scripts/workerd.sh build "$config" >/dev/null
EDGESITE_HISTORY="" /usr/bin/time -f "again, nothing changed: %e s, peak RSS %M KiB" \
  scripts/workerd.sh build "$config" >/dev/null
bundle=$(scripts/workerd.sh build-dir "$config")
cat "$bundle/edgesite-build.txt"
echo "the bundle (what wrangler uploads as the Worker): $(du -cb "$bundle"/index.wasm "$bundle"/*.js \
  "$bundle"/*.mjs "$bundle"/snippets "$bundle"/site | tail -n 1 | cut -f1) bytes of 67108864; the store: \
$(find "$bundle/assets" -type f | wc -l) objects in Static Assets, $(find "$bundle/r2" -type f | wc -l) in R2"

check() { # runtime port
  EDGESITE_BIGSITE_DIR="$site" EDGESITE_BIGSITE_SERVED_DIR="$(cat "$bundle/edgesite-served.txt")" \
    EDGESITE_BASE_URL="http://127.0.0.1:$2" EDGESITE_RUNTIME=$1 \
    cargo test -q --test bigsite -- --ignored --test-threads 2
}

port=$(free_port)
toml=$(scripts/workerd.sh wrangler-toml "$config")
# What `wrangler deploy` would upload, offline: the Worker (module, JS, data modules) against
# the 64 MiB limit, which wrangler checks, and the Static Assets it reads.
wrangler deploy --dry-run -c "$toml" --outdir "$(dirname "$toml")/dry-run" >"$LOGS/bigsite-dry-run.log" 2>&1 ||
  { cat "$LOGS/bigsite-dry-run.log"; exit 1; }
echo "wrangler deploy --dry-run: $(grep -E '^Total Upload' "$LOGS/bigsite-dry-run.log"); \
$(grep -Eo 'Read [0-9]+ files? from the assets directory[^.]*' "$LOGS/bigsite-dry-run.log" || echo 'no assets line')"
state="$(dirname "$toml")/wrangler-state"
rm -rf "$state"
node scripts/r2-put.mjs --bucket "$(r2_bucket "$config")" --from "$bundle/r2" --local "$state"
started=$(date +%s.%N)
start_server bigsite-wrangler 300 "$port" wrangler dev -c "$toml" --persist-to "$state" --ip 127.0.0.1 --port "$port"
echo "wrangler dev: first 200 after $(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
check wrangler-dev "$port"
stop_server bigsite-wrangler

EDGESITE_CONFIG="$config" EDGESITE_HISTORY="" /usr/bin/time -f "the native twin's build: %e s, peak RSS %M KiB" \
  cargo build -q --release -p edgesite-native
port=$(free_port)
started=$(date +%s.%N)
start_server bigsite-native 60 "$port" target/release/edgesite-native --listen "127.0.0.1:$port"
echo "native: first 200 after $(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s; binary $(stat -c %s target/release/edgesite-native) bytes"
check native "$port"
stop_server bigsite-native
