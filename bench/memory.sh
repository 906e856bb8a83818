#!/usr/bin/env bash
# `make memory`: what a Worker isolate holds, under bare `workerd serve`, for the demo site and
# the generated 5 MB, 40 MB and 70 MB sites (MEMORY_SITES picks some): after a few requests,
# the inspector's Runtime.getHeapUsage (JS heap; backingStorageSize: ArrayBuffers, i.e. the
# site's blobs and tables, held once), edgesite's own count of wasm memory and of blob and
# tables bytes, and workerd's RSS for information (the runtime's own copies of the bundle
# dominate it).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cd "$ROOT"
trap stop_all_servers EXIT
PORT=18320
INSPECTOR=18321

# One row for a built bundle: start workerd with the inspector, make requests, read memory.
row() { # name config-or-empty
  local capnp
  capnp=$(scripts/workerd.sh config "$PORT" ${2:+"$2"})
  start_server memory 60 "$PORT" workerd serve "$capnp" --inspector-addr="127.0.0.1:$INSPECTOR"
  for path in / /docs/page-0001.html /images/img-0001.png /assets/site.css /nope; do
    curl -s -o /dev/null -H 'Accept-Encoding: br' "http://127.0.0.1:$PORT$path"
    curl -s -o /dev/null "http://127.0.0.1:$PORT$path"
  done
  local json rss
  json=$(node bench/memory.mjs "$INSPECTOR")
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$(server_pid memory)/status")
  stop_server memory
  python3 - "$1" "$json" "$rss" <<'PY'
import json, sys
name, data, rss = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
heap, own = data["heap"], data["edgesite"] or {}
mb = lambda n: f"{n / 1e6:.2f} MB"
print(f"| {name} | {mb(own.get('blobs', 0))} / {mb(own.get('tables', 0))} | {mb(heap['backingStorageSize'])} | {mb(own.get('wasm', 0))} | {mb(heap['usedSize'])} | {rss / 1024:.0f} MB |")
PY
}

printf '\n%s, under bare workerd after 10 requests\n' "$(date -u +%Y-%m-%d)"
printf '| site | blob / tables module bytes | isolate ArrayBuffers (backingStorageSize) | wasm memory | JS heap used | workerd RSS |\n|---|---|---|---|---|---|\n'
scripts/workerd.sh build >/dev/null
row "demo" ""
for site in ${MEMORY_SITES:-5mb 40mb 70mb}; do
  config=$(bench/sites.sh "$site")
  scripts/workerd.sh build "$config" >/dev/null
  row "generated $site" "$config"
done
