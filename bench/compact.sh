#!/usr/bin/env bash
# `make compact`: what compact storage costs when a client sends no Accept-Encoding. A site of
# two 10 MiB compressible files (JSON-like text) is built twice, stored full (identity in the
# bundle) and compact (gzip and br stored, identity decoded on demand), and each is served
# under load alternating the two files with no Accept-Encoding, on the native twin and (with
# PART=all or PART=workerd) on the Worker under bare `workerd serve`. For each: requests per
# second, CPU per request (the server's user + system time over the requests), and the
# server's resident set sampled every 5 s over the run (first / a quarter in / last / highest),
# and under workerd the isolate's wasm memory after the run (bench/memory.mjs).
#   DURATION (default 60) seconds per run, CONNECTIONS (default 4).
#   REV=<commit>: also serve the compact site with the native twin and the Worker of that commit
#   (built in a worktree, from cold), to compare before and after.
# The server is pinned to core 0, wrk to core 1.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cd "$ROOT"
DURATION=${DURATION:-60}
CONNECTIONS=${CONNECTIONS:-4}
PART=${PART:-all}
WORK="$ROOT/target/compact-bench"
PORT=18195
INSPECTOR=18196
CLK_TCK=$(getconf CLK_TCK)
mkdir -p "$WORK"
trap stop_all_servers EXIT

# The site: two files of 10 MiB each, compressible as real JSON is (about 6x by gzip).
if [ ! -f "$WORK/site/a.json" ]; then
  mkdir -p "$WORK/site"
  python3 - "$WORK/site" <<'PY'
import json, random, sys
for name, seed in (("a.json", 1), ("b.json", 2)):
    rng = random.Random(seed)
    words = ["edge", "site", "cache", "range", "etag", "delta", "worker", "bundle", "photo", "page"]
    out, size = [], 0
    while size < 10 * 1024 * 1024:
        row = json.dumps({"id": rng.randrange(10**9), "name": " ".join(rng.choices(words, k=4)),
                          "score": round(rng.random() * 100, 3), "tags": rng.sample(words, 3)}) + ",\n"
        out.append(row)
        size += len(row)
    open(f"{sys.argv[1]}/{name}", "w").write("".join(out)[: 10 * 1024 * 1024])
open(f"{sys.argv[1]}/index.html", "w").write("<p><a href=a.json>a</a> <a href=b.json>b</a></p>\n")
PY
fi
for store in full compact; do
  printf '[site]\ndir = "%s"\n[compression]\nstore = "%s"\nbrotli_quality = 5\nzstd_level = 3\n' \
    "$WORK/site" "$store" >"$WORK/$store.toml"
done
cat >"$WORK/alternate.lua" <<'LUA'
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", (n % 2 == 0) and "/a.json" or "/b.json")
end
LUA

# native_binary STORE [TREE]: the native twin built for STORE from TREE (default this one).
native_binary() {
  local store=$1 tree=${2:-$ROOT} name=${3:-$1} target
  target="$WORK/cargo-$([ "$tree" = "$ROOT" ] && echo main || echo before)"
  (cd "$tree" && EDGESITE_CONFIG="$WORK/$store.toml" EDGESITE_HISTORY="" \
    cargo build -q --release -p edgesite-native --target-dir "$target" 2>/dev/null)
  cp "$target/release/edgesite-native" "$WORK/native-$name"
  echo "$WORK/native-$name"
}

# measure NAME PID: DURATION seconds of load; prints a table row.
measure() {
  local name=$1 pid=$2
  taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d3s -s "$WORK/alternate.lua" "http://127.0.0.1:$PORT/" >/dev/null
  local before after out samples=()
  before=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "$WORK/alternate.lua" \
    "http://127.0.0.1:$PORT/" >"$WORK/$name.wrk" 2>&1 &
  local wrk_pid=$!
  while kill -0 "$wrk_pid" 2>/dev/null; do
    samples+=("$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")")
    sleep 5
  done
  wait "$wrk_pid"
  after=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  local n=${#samples[@]}
  local max
  max=$(printf '%s\n' "${samples[@]}" | sort -n | tail -n 1)
  awk -v name="$name" -v ticks=$((after - before)) -v hz="$CLK_TCK" \
    -v rss="${samples[0]} / ${samples[$((n / 4))]} / ${samples[$((n - 1))]} / $max KiB" '
    /requests in/ { requests = $1 }
    /^Requests\/sec:/ { rps = $2 }
    /Non-2xx or 3xx/ { bad = $5 }
    END { printf "| %s | %.0f | %.0f us | %s | %d |", name, rps, ticks / hz * 1e6 / requests, rss, bad }' \
    "$WORK/$name.wrk"
}

serve_native() { # name binary
  start_server "compact-$1" 60 "$PORT" taskset -c 0 "$2" --listen "127.0.0.1:$PORT" --workers 1
  echo "$(measure "$1" "$(server_pid "compact-$1")") - |"
  stop_server "compact-$1"
}

serve_workerd() { # name config [tree]
  local tree=${3:-$ROOT} capnp
  (cd "$tree" && EDGESITE_HISTORY="" scripts/workerd.sh build "$2" >/dev/null)
  capnp=$(cd "$tree" && scripts/workerd.sh config "$PORT" "$2")
  start_server "compact-$1" 120 "$PORT" taskset -c 0 workerd serve "$capnp" \
    --inspector-addr="127.0.0.1:$INSPECTOR"
  local row wasm
  row=$(measure "$1" "$(server_pid "compact-$1")")
  # The isolate's wasm memory after the run (the entry's own count, read through the inspector).
  wasm=$(node bench/memory.mjs "$INSPECTOR" |
    python3 -c 'import json, sys; own = json.load(sys.stdin)["edgesite"] or {}; print("%.1f MiB" % (own.get("wasm", 0) / 2**20))')
  echo "$row $wasm |"
  stop_server "compact-$1"
}

printf '\n%s: %s s per run, %s connections, two 10 MiB files alternated, no Accept-Encoding\n' \
  "$(date -u +%Y-%m-%d)" "$DURATION" "$CONNECTIONS"
printf '| server, storage | req/s | CPU per request | RSS first / quarter / last / max | non-2xx | wasm memory after |\n|---|---|---|---|---|---|\n'
if [ "$PART" != workerd ]; then
  full=$(native_binary full)
  compact=$(native_binary compact)
  serve_native "native, full" "$full"
  serve_native "native, compact" "$compact"
fi
if [ -n "${REV:-}" ]; then
  rm -rf "$WORK/before" && git worktree prune && git worktree add -q --detach "$WORK/before" "$REV"
  ln -s "$ROOT/node_modules" "$WORK/before/node_modules"
fi
if [ -n "${REV:-}" ] && [ "$PART" != workerd ]; then
  before=$(native_binary compact "$WORK/before" "before")
  serve_native "native, compact, at $(git rev-parse --short "$REV")" "$before"
fi
if [ "$PART" != native ]; then
  serve_workerd "workerd, full" "$WORK/full.toml"
  serve_workerd "workerd, compact" "$WORK/compact.toml"
  if [ -n "${REV:-}" ]; then
    serve_workerd "workerd, compact, at $(git rev-parse --short "$REV")" "$WORK/compact.toml" "$WORK/before"
  fi
fi
if [ -n "${REV:-}" ]; then git worktree remove --force "$WORK/before"; fi
