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
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"
cd "$ROOT"
RUNS=${RUNS:-7}
WORK="$ROOT/target/coldstart"
mkdir -p "$WORK"

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
demo_bundle=$(scripts/workerd.sh build)
big_bundle=$(scripts/workerd.sh build "$WORK/coldstart5mb.toml")
demo_capnp=$(scripts/workerd.sh config 18201)
big_capnp=$(scripts/workerd.sh config 18202 "$WORK/coldstart5mb.toml")

# The floor: one prebuilt 200.
mkdir -p "$WORK/floor"
cat >"$WORK/floor/floor.mjs" <<'JS'
const body = new TextEncoder().encode("<!doctype html><p>floor</p>\n");
export default { fetch() { return new Response(body, { headers: { "content-type": "text/html" } }); } };
JS
workerd_config "$WORK/floor.capnp" 18203 "$WORK/floor" floor.mjs

measure() { # name config port
  python3 bench/coldstart.py "$RUNS" "$3" workerd serve "$2"
}
floor=$(measure floor "$WORK/floor.capnp" 18203)
demo=$(measure demo "$demo_capnp" 18201)
big=$(measure 5mb "$big_capnp" 18202)
wasm_size() { stat -c %s "$(find "$1" -name '*.wasm' | head -n 1)"; }
demo_wasm=$(wasm_size "$demo_bundle")
big_wasm=$(wasm_size "$big_bundle")
printf '\n%s, median of %s launches each: launch of `workerd serve` to the first 200\n' "$(date -u +%Y-%m-%d)" "$RUNS"
printf '| worker | wasm module | launch to first 200 | edgesite'"'"'s cold start (minus the floor) |\n|---|---|---|---|\n'
printf '| floor (JS, one prebuilt response) | - | %.1f ms | |\n' "$floor"
printf '| edgesite, demo site | %s bytes | %.1f ms | %.1f ms |\n' "$demo_wasm" "$demo" "$(awk -v a="$demo" -v b="$floor" 'BEGIN { print a - b }')"
printf '| edgesite, generated 5 MB site | %s bytes | %.1f ms | %.1f ms |\n' "$big_wasm" "$big" "$(awk -v a="$big" -v b="$floor" 'BEGIN { print a - b }')"
