#!/usr/bin/env bash
# `make store`: what serving a file from the store costs the Worker, against the same file in the
# bundle. One site (a 100 KB incompressible file, a page) built twice: `storage.tier = "bundle"`
# and `storage.tier = "assets"`, each served under bare `workerd serve` (the store: a disk
# service in the same process standing in for the Static Assets binding, so its reads count in
# the process's CPU here, where on Cloudflare they are another service's), under load: a 200 of
# the file (no Accept-Encoding), and a 304 of it (If-None-Match with its ETag). For each: requests
# per second, CPU per request (workerd's user + system time over the requests), latency p50/p99
# (wrk), and in a second run the isolate's busy time per request (V8's sampling profiler through
# the inspector, bench/isolate-cpu.mjs: the Worker's JS and wasm and what they call into, not
# workerd's sockets; the closest here to the CPU time Cloudflare bills, though the disk
# service's work done inside the binding's fetch() still counts). Beside them, the floor of any Worker that reads Static Assets here:
# a JS Worker that answers every request with `env.ASSETS.fetch` of the same object (the disk
# service's read and the subrequest, nothing of edgesite's). DURATION (default 30) seconds per
# run, CONNECTIONS (default 4). workerd is pinned to core 0, wrk to core 1.
#
# Times on this machine move by a third between runs; instructions do not. With valgrind
# installed (Debian's package), each row also gets the instructions per request of workerd's
# main thread (callgrind; 1,000 requests on one connection after 400 to warm the JIT; the same
# Worker measured again within 0.3%, on another day within 3%) and those of the Worker alone: less the stand-in store's own work (the disk
# service's request handler, less its writes of the object's bytes into the response, which
# carry them on to the client as a bundled answer's are; on Cloudflare the Static Assets service
# that reads the object is not the Worker, and its work is not the Worker's CPU time). Two more
# JS Workers give the same answer to bound what edgesite adds:
# one answering the bytes from memory with edgesite's fields (what any Worker pays for a 200
# of those bytes), one reading the object as the floor does and answering it with edgesite's
# fields after reading the store's Content-Length (what any Worker pays that checks the
# store's length, as edgesite does, without a deadline).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cd "$ROOT"
DURATION=${DURATION:-30}
CONNECTIONS=${CONNECTIONS:-4}
WORK="$ROOT/target/store-bench"
PORT=18197
INSPECTOR=18198
CLK_TCK=$(getconf CLK_TCK)
mkdir -p "$WORK/site"
trap stop_all_servers EXIT

[ -f "$WORK/site/file.bin" ] || head -c 102400 /dev/urandom >"$WORK/site/file.bin"
echo '<p><a href="/file.bin">the file</a></p>' >"$WORK/site/index.html"
for tier in bundle assets; do
  printf '[site]\ndir = "%s"\n[storage]\ntier = "%s"\n' "$WORK/site" "$tier" >"$WORK/$tier.toml"
done

# measure NAME CAPNP HEADER READS: DURATION seconds of GET /file.bin against workerd serving CAPNP,
# then DURATION more against it started again with its inspector, the isolate profiled (an
# inspector's session slows workerd by itself, and the profiler's sampling costs CPU of its
# own: the first run's figures are free of both); prints a table row. READS: 1 where each answer
# reads the object from the store, else 0.
measure() {
  local name=$1 capnp=$2 header=$3 reads=$4 counted
  counted=$(instructions "$capnp" "$header" "$reads")
  local load=(taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency -H "$header" "http://127.0.0.1:$PORT/file.bin")
  local before after pid
  start_server store-plain 120 "$PORT" taskset -c 0 workerd serve "$capnp"
  pid=$(server_pid store-plain)
  taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d3s -H "$header" "http://127.0.0.1:$PORT/file.bin" >/dev/null
  before=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  "${load[@]}" >"$WORK/$name.wrk" 2>&1
  after=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  stop_server store-plain
  start_server store-profiled 120 "$PORT" taskset -c 0 workerd serve "$capnp" --inspector-addr="127.0.0.1:$INSPECTOR"
  taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d3s -H "$header" "http://127.0.0.1:$PORT/file.bin" >/dev/null
  node bench/isolate-cpu.mjs "$INSPECTOR" "${load[@]}" >"$WORK/$name.profiled" 2>&1
  stop_server store-profiled
  awk -v name="$name" -v ticks=$((after - before)) -v hz="$CLK_TCK" '
    FNR == 1 { file++ }
    file == 1 && /requests in/ { requests = $1 }
    file == 1 && /^Requests\/sec:/ { rps = $2 }
    file == 1 && /^ +50%/ { p50 = $2 }
    file == 1 && /^ +99%/ { p99 = $2 }
    file == 1 && /Non-2xx or 3xx/ { other = $5 }
    file == 2 && /requests in/ { profiled = $1 }
    file == 2 && /^isolate busy:/ { busy = $3 }
    END { printf "| %s | %.0f | %.0f us | %.0f us | %s | %s | %d | %s |\n", name, rps, ticks / hz * 1e6 / requests, busy * 1000 / profiled, p50, p99, other, instructions }' \
    instructions="$counted" "$WORK/$name.wrk" "$WORK/$name.profiled"
}

# instructions CAPNP HEADER READS: thousands of instructions per GET /file.bin of workerd's main
# thread serving CAPNP (callgrind), then those less the stand-in store's own (standin), as a
# table's two cells, or "- | -" without valgrind. Fails where each answer reads the store
# (READS 1) and the profile shows no work of the stand-in's: workerd's names for it changed.
instructions() {
  command -v valgrind >/dev/null || { echo "- | -"; return; }
  local capnp=$1 header=$2 reads=$3 run=1000
  rm -f "$WORK"/callgrind.*
  start_server store-callgrind 120 "$PORT" valgrind --tool=callgrind --separate-threads=yes \
    --callgrind-out-file="$WORK/callgrind.%p" "$(command -v workerd)" serve "$capnp" >&2
  printf 'url = "http://127.0.0.1:%s/file.bin"\noutput = "/dev/null"\n' "$PORT" >"$WORK/one.cfg"
  for _ in $(seq 400); do cat "$WORK/one.cfg"; done >"$WORK/warm.cfg"
  for _ in $(seq $run); do cat "$WORK/one.cfg"; done >"$WORK/run.cfg"
  curl -s -H "$header" -K "$WORK/warm.cfg" >/dev/null
  callgrind_control -z "$(server_pid store-callgrind)" >/dev/null 2>&1
  curl -s -H "$header" -K "$WORK/run.cfg" >/dev/null
  callgrind_control -d "$(server_pid store-callgrind)" >/dev/null 2>&1
  stop_server store-callgrind
  # The dump's file for the main thread (thread 1; the others are V8's and do not answer).
  local dump total own
  dump=$(echo "$WORK"/callgrind.*.1-01)
  total=$(awk '/^summary:/ { print $2 }' "$dump")
  local handler writes
  read -r handler writes < <(standin "$dump")
  # Both found where each answer reads the store (else a name workerd changed would count the
  # stand-in's work, or its writes, as the Worker's).
  if ! [[ $handler =~ ^[0-9]+$ && $writes =~ ^[0-9]+$ ]] ||
    { [ "$reads" = 1 ] && { ((handler == 0)) || ((writes == 0)); }; }; then
    echo "store.sh: the stand-in store's work in $dump: handler '$handler', writes '$writes' (see standin())" >&2
    return 1
  fi
  own=$((handler - writes))
  awk -v run=$run -v total="$total" -v own="$own" 'BEGIN { printf "%.0fk | %.0fk", total / run / 1000, (total - own) / run / 1000 }'
}

# standin DUMP: the instructions of the disk service standing in for the Static Assets binding
# in callgrind's DUMP: its request handler, inclusive, and its writes into the response body
# (a pipe that carries the bytes on to the client: a bundled answer pays for sending them too,
# so they stay the Worker's), as two integers; 0 0 where no disk service answered.
standin() {
  callgrind_annotate --inclusive=yes --tree=calling --show-percs=yes --threshold=100 "$1" | awk '
    function count(line) { sub(/^ +/, "", line); sub(/ .*/, "", line); gsub(/,/, "", line); return line + 0 }
    /^$/ { block = "" }
    /^ *[0-9,]+ \([ 0-9.]+%\)  \*  / {
      block = ""
      if (index($0, "???:<workerd_server::services::disk::DiskRequest as kj::http::Service>::request::{closure#0} ")) handler += count($0)
      if (index($0, "???:workerd_server::services::disk::copy_file::{closure#0} ")) block = "copy"
    }
    block == "copy" && /^ *[0-9,]+ \([ 0-9.]+%\)  >  / && index($0, "???:<kj::io::AsyncOutputStream>::write::{closure#0} ") { writes += count($0) }
    END { printf "%.0f %.0f\n", handler, writes }'
}

printf '\n%s: %s s per run, %s connections, GET of a 100 KB file, Worker under bare workerd\n' \
  "$(date -u +%Y-%m-%d)" "$DURATION" "$CONNECTIONS"
printf '| file in, answer | req/s | workerd CPU per request | isolate busy per request (profiled run) | p50 | p99 | non-2xx | instructions per request | less the stand-in store'"'"'s own |\n|---|---|---|---|---|---|---|---|---|\n'
for tier in bundle assets; do
  EDGESITE_HISTORY="" scripts/workerd.sh build "$WORK/$tier.toml" >/dev/null
  capnp=$(scripts/workerd.sh config "$PORT" "$WORK/$tier.toml")
  start_server "store-$tier" 120 "$PORT" workerd serve "$capnp"
  etag=$(curl -s -o /dev/null -w '%header{etag}' "http://127.0.0.1:$PORT/file.bin")
  stop_server "store-$tier"
  measure "$tier, 200" "$capnp" "x-none: 1" "$([ "$tier" = assets ] && echo 1 || echo 0)"
  measure "$tier, 304" "$capnp" "if-none-match: $etag" 0
done

# The floor: a JS Worker passing the object of /file.bin through from the same disk service.
object="_edgesite/b/$(sha256sum "$WORK/site/file.bin" | cut -c1-32).bin"
rm -rf "$WORK/floor" && mkdir -p "$WORK/floor/bundle"
cp -al "$(scripts/workerd.sh build-dir "$WORK/assets.toml")/assets" "$WORK/floor/bundle/assets"
cat >"$WORK/floor/bundle/worker.mjs" <<JS
export default {
  fetch(request, env) {
    return env.ASSETS.fetch("https://store.invalid/$object");
  },
};
JS
workerd_config "$WORK/floor/config.capnp" "$PORT" "$WORK/floor/bundle" worker.mjs
measure "floor: a JS Worker passing the object through, 200" "$WORK/floor/config.capnp" "x-none: 1" 1

command -v valgrind >/dev/null || exit 0
# The two JS Workers that bound what edgesite adds (instructions only): edgesite's fields, as the
# bundle's 200 sends them, with the bytes from memory, and with the object read and its length.
start_server store-fields 120 "$PORT" workerd serve "$(scripts/workerd.sh config "$PORT" "$WORK/bundle.toml")"
fields=$(curl -s -D - -o /dev/null "http://127.0.0.1:$PORT/file.bin" | tr -d '\r' |
  awk -F': ' 'NR > 1 && NF == 2 && tolower($1) != "content-length" { v = $2; gsub(/["\\]/, "\\\\&", v); printf "[\"%s\", \"%s\"], ", tolower($1), v }')
stop_server store-fields
for js in memory checked; do
  rm -rf "$WORK/$js" && mkdir -p "$WORK/$js/bundle"
  cp -al "$WORK/floor/bundle/assets" "$WORK/$js/bundle/assets"
done
cat >"$WORK/memory/bundle/worker.mjs" <<JS
const headers = new Headers([$fields]);
const body = new Uint8Array(102400);
export default {
  fetch() {
    return new Response(body, { status: 200, headers });
  },
};
JS
cat >"$WORK/checked/bundle/worker.mjs" <<JS
const headers = new Headers([$fields]);
export default {
  async fetch(request, env) {
    const response = await env.ASSETS.fetch("https://store.invalid/$object");
    if (response.headers.get("content-length") !== "102400") return new Response(null, { status: 503 });
    return new Response(response.body, { status: 200, headers });
  },
};
JS
for js in memory checked; do workerd_config "$WORK/$js/config.capnp" "$PORT" "$WORK/$js/bundle" worker.mjs; done
counted=$(instructions "$WORK/memory/config.capnp" "x-none: 1" 0)
printf '| a JS Worker answering the bytes from memory with the same fields, 200 | | | | | | | %s |\n' "$counted"
counted=$(instructions "$WORK/checked/config.capnp" "x-none: 1" 1)
printf '| a JS Worker reading the object, checking its length, answering it with the same fields, 200 | | | | | | | %s |\n' "$counted"
