#!/usr/bin/env bash
# `make coldstart`: how long the Worker takes from a cold `workerd serve` to its first response,
# for the demo site and for a generated 5 MB site, against the same measure for the workerd
# floor (a JS worker with one prebuilt response, no wasm). The difference is what edgesite adds:
# compiling and instantiating its wasm module (the embedded site is its data section) and its
# first request. Each is the median of RUNS (default 7) launches; launch to first 200 is timed by
# a poller that connects every 0.5 ms (bench/coldstart.py).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
cd "$ROOT"
RUNS=${RUNS:-7}
WORK="$ROOT/target/coldstart"
mkdir -p "$WORK"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

# Builds a Worker with scripts/workerd.sh (which then serves it), waits for it, stops it.
build() { # port [config]
  scripts/workerd.sh "$@" >"$WORK/build-$1.log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  for _ in $(seq 1 1200); do
    curl -s -o /dev/null "http://127.0.0.1:$1/" && break
    kill -0 "$pid" 2>/dev/null || { cat "$WORK/build-$1.log" >&2; exit 1; }
    sleep 1
  done
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}

# A 5 MB site: 50 text files of 100 KB (words from a fixed seed) and an index.
if [ ! -f "$WORK/site5mb/index.html" ]; then
  python3 - "$WORK/site5mb" <<'PY'
import os, random, sys
root = sys.argv[1]
os.makedirs(root, exist_ok=True)
rng = random.Random(5)
words = [("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))) for _ in range(5000)]
for i in range(50):
    text = []
    size = 0
    while size < 100_000:
        w = rng.choice(words)
        text.append(w)
        size += len(w) + 1
    open(os.path.join(root, f"page-{i:02}.txt"), "w").write(" ".join(text)[:100_000])
open(os.path.join(root, "index.html"), "w").write("<!doctype html><title>5 MB</title><p>generated for bench/coldstart.sh</p>\n")
PY
fi
printf '[site]\ndir = "site5mb"\n' >"$WORK/coldstart5mb.toml"
echo "[coldstart] building the demo Worker and the 5 MB Worker (release, once)"
build 18201
build 18202 "$WORK/coldstart5mb.toml"

# The floor: one prebuilt 200.
cat >"$WORK/floor.mjs" <<'JS'
const body = new TextEncoder().encode("<!doctype html><p>floor</p>\n");
export default { fetch() { return new Response(body, { headers: { "content-type": "text/html" } }); } };
JS
cat >"$WORK/floor.capnp" <<'CAPNP'
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "w", worker = (modules = [(name = "floor.mjs", esModule = embed "floor.mjs")], compatibilityDate = "2026-05-01"))],
  sockets = [(name = "http", address = "127.0.0.1:18203", http = (), service = "w")],
);
CAPNP

measure() { # name config port
  python3 bench/coldstart.py "$RUNS" "$3" workerd serve "$2"
}
floor=$(measure floor "$WORK/floor.capnp" 18203)
demo=$(measure demo "$ROOT/target/workerd/config.capnp" 18201)
big=$(measure 5mb "$ROOT/target/variants/coldstart5mb/config.capnp" 18202)
wasm_size() { stat -c %s "$(find "$1" -name '*.wasm' | head -n 1)"; }
demo_wasm=$(wasm_size "$ROOT/target/workerd/bundle")
big_wasm=$(wasm_size "$ROOT/target/variants/coldstart5mb/build")
printf '\n%s, median of %s launches each: launch of `workerd serve` to the first 200\n' "$(date -u +%Y-%m-%d)" "$RUNS"
printf '| worker | wasm module | launch to first 200 | edgesite'"'"'s cold start (minus the floor) |\n|---|---|---|---|\n'
printf '| floor (JS, one prebuilt response) | - | %.1f ms | |\n' "$floor"
printf '| edgesite, demo site | %s bytes | %.1f ms | %.1f ms |\n' "$demo_wasm" "$demo" "$(awk -v a="$demo" -v b="$floor" 'BEGIN { print a - b }')"
printf '| edgesite, generated 5 MB site | %s bytes | %.1f ms | %.1f ms |\n' "$big_wasm" "$big" "$(awk -v a="$big" -v b="$floor" 'BEGIN { print a - b }')"
