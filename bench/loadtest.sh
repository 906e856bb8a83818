#!/usr/bin/env bash
# `make loadtest`: edgesite-native against the ceiling (edgesite-ceiling: one fixed response,
# given exactly the status, fields and bytes edgesite sends), on loopback. The server is pinned
# to core 0 and wrk to core 1; every run is bounded (DURATION seconds, default 10, after a 2 s
# warm-up). For each scenario the ceiling runs right before edgesite, and the ratio is taken
# between the two.
#   S1  GET /                      identity (no Accept-Encoding)
#   S2  GET /                      Accept-Encoding: gzip, deflate, br, zstd  (br)
#   S3  GET /                      If-None-Match: the current ETag           (304)
#   S4  GET /big.js                a 200 KB script, identity
#   S5  GET /app.js                a browser's Accept-Encoding with dcb, dcz  (br)
#   S6  GET /app.js                the same with Available-Dictionary naming the previous app.js
#                                  (RFC 9842; the demo's history fixture): a dcb delta
# ROUNDS=N measures each server N times and keeps its best run.
# Then the same scenarios under bare `workerd serve` (pinned the same way) for three workers: the
# edgesite Worker, the workerd floor (a JS worker answering every request with one prebuilt
# response: exactly edgesite's answer for the scenario) and a small JS worker serving the same
# site from an in-memory map with ETags and brotli variants (bench/workers/generate.mjs).
# PART=native or PART=workers runs one half; PART=c400 compares latency at 400 connections
# (the shape of a busy edge) between edgesite-native and nginx (Debian's, one worker process,
# pinned the same way, serving the same folder with ETags), on S1 and S3. PART=profile (not part
# of the default run) samples the edgesite Worker and the floor with perf on S1-S3 and prints
# where the Worker's extra CPU per request goes (bench/perfdiff.py).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cd "$ROOT"
DURATION=${DURATION:-10}
PART=${PART:-all}
CONNECTIONS=${CONNECTIONS:-50}
WORK="$ROOT/target/loadtest"
NATIVE_PORT=18181
CEILING_PORT=18182
mkdir -p "$WORK"

# The demo site plus a 200 KB script, built into a native binary of its own.
rm -rf "$WORK/site" && cp -r public "$WORK/site"
python3 - "$WORK/site/big.js" <<'PY'
import sys
lines = [f"export function f{i}(x) {{ return x * {i} + {i % 7}; }} // generated for the load test\n" for i in range(3000)]
open(sys.argv[1], "w").write("".join(lines)[:200_000])
PY
EDGESITE_SITE="$WORK/site" cargo build -q --release -p edgesite-native -p edgesite-ceiling --target-dir "$WORK/cargo"
NATIVE="$WORK/cargo/release/edgesite-native"
CEILING="$WORK/cargo/release/edgesite-ceiling"
CLK_TCK=$(getconf CLK_TCK)

trap stop_all_servers EXIT

# User + system ticks of process $1 and every process in its group (nginx's workers are the
# master's children).
cpu_ticks() {
  local total=0 stat
  for stat in /proc/[0-9]*/stat; do
    total=$((total + $(awk -v g="$1" '$1 == g || $5 == g { t = $14 + $15 } END { print t + 0 }' "$stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}

# run PID PORT PATH HEADER... -> "req/s p50 p99 cpu_us_per_request bad"; ROUNDS (default 1)
# measurements, the best kept (this machine is shared: a round can lose a third to a neighbour).
run() { best_of run_once "$@"; }

# best_of COMMAND ARG...: runs the measurement ROUNDS times, prints the line with the most req/s.
best_of() {
  local best="" line round
  for round in $(seq 1 "${ROUNDS:-1}"); do
    line=$("$@")
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a > b) }'; then best=$line; fi
  done
  echo "$best"
}

# run_fresh NAME PORT CAPNP PATH HEADER...: as run, against a workerd started for each
# measurement and stopped after it. Every worker is measured fresh, so none carries what an
# earlier scenario left: workerd's RSS grows to gigabytes under this load, and the cost of a
# request with it (docs/benchmarks.md, "Load").
run_fresh() { best_of fresh_once "$@"; }

fresh_once() {
  local name=$1 port=$2 capnp=$3
  shift 3
  start_server "$name" 60 "$port" taskset -c 0 workerd serve "$capnp"
  run_once "$(server_pid "$name")" "$port" "$@"
  stop_server "$name"
}

run_once() {
  local pid=$1 port=$2 path=$3
  shift 3
  local args=()
  for h in "$@"; do args+=(-H "$h"); done
  taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d2s "${args[@]}" "http://127.0.0.1:$port$path" >/dev/null
  local before after out
  before=$(cpu_ticks "$pid")
  out=$(taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency "${args[@]}" "http://127.0.0.1:$port$path")
  after=$(cpu_ticks "$pid")
  awk -v ticks=$((after - before)) -v hz="$CLK_TCK" '
    /requests in/ { requests = $1 }
    /^Requests\/sec:/ { rps = $2 }
    /^ +50%/ { p50 = $2 }
    /^ +99%/ { p99 = $2 }
    /Non-2xx or 3xx/ { bad = $5 }
    END { printf "%.0f %s %s %.1f %s\n", rps, p50, p99, ticks / hz * 1e6 / requests, (bad ? bad : 0) }' <<<"$out"
}

native_half() {
start_server lt-native 30 "$NATIVE_PORT" taskset -c 0 "$NATIVE" --listen "127.0.0.1:$NATIVE_PORT"
native_pid=$(server_pid lt-native)
etag=$(etag_of "http://127.0.0.1:$NATIVE_PORT/")

printf '\n%s, %s connections, %s s per run, %s\n' "$(date -u +%Y-%m-%d)" "$CONNECTIONS" "$DURATION" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf '| scenario | server | req/s | p50 | p99 | CPU per request | vs ceiling |\n|---|---|---|---|---|---|---|\n'
scenario() { # name path header...
  local name=$1 path=$2
  shift 2
  local args=()
  for h in "$@"; do args+=(-H "$h"); done
  # The ceiling gets exactly edgesite's answer: status, fields (but Date and Content-Length,
  # which hyper writes itself) and body.
  local status
  status=$(curl -s "${args[@]}" -D "$WORK/head" -o "$WORK/body" -w '%{http_code}' "http://127.0.0.1:$NATIVE_PORT$path")
  local ceiling_args=(--listen "127.0.0.1:$CEILING_PORT" --status "$status" --body "$WORK/body")
  while IFS= read -r line; do
    case "${line,,}" in http/* | date:* | content-length:* | "") ;; *) ceiling_args+=(--header "$line") ;; esac
  done < <(tr -d '\r' <"$WORK/head")
  start_server lt-ceiling 30 "$CEILING_PORT" taskset -c 0 "$CEILING" "${ceiling_args[@]}"
  read -r c_rps c_p50 c_p99 c_cpu c_bad < <(run "$(server_pid lt-ceiling)" "$CEILING_PORT" "$path" "$@")
  stop_server lt-ceiling
  read -r n_rps n_p50 n_p99 n_cpu n_bad < <(run "$native_pid" "$NATIVE_PORT" "$path" "$@")
  printf '| %s | ceiling | %s | %s | %s | %s µs | 1.00x |\n' "$name ($status)" "$c_rps" "$c_p50" "$c_p99" "$c_cpu"
  printf '| %s | edgesite-native | %s | %s | %s | %s µs | %.2fx |\n' "$name ($status)" "$n_rps" "$n_p50" "$n_p99" "$n_cpu" \
    "$(awk -v a="$n_rps" -v b="$c_rps" 'BEGIN { print a / b }')"
  if [ "$n_bad$c_bad" != "00" ] && [ "$status" != 304 ]; then echo "unexpected statuses: native $n_bad, ceiling $c_bad" >&2; fi
}
scenario "S1 GET / identity" / 
scenario "S2 GET / br" / "Accept-Encoding: gzip, deflate, br, zstd"
scenario "S3 GET / If-None-Match" / "If-None-Match: $etag"
scenario "S4 GET /big.js (200 KB)" /big.js
# RFC 9842: app.js as br, and as a delta for a browser holding the previous deploy's app.js (the
# demo's history fixture), in the S2 shape.
local dictionary
dictionary=$(python3 -c 'import base64, hashlib, json, sys
d = "tests/fixtures/demo-history"
sha = json.load(open(d + "/deploys.json"))["deploys"][0]["files"]["/app.js"]
print(":" + base64.b64encode(hashlib.sha256(open(d + "/bodies/" + sha, "rb").read()).digest()).decode() + ":")')
scenario "S5 GET /app.js br" /app.js "Accept-Encoding: gzip, deflate, br, zstd, dcb, dcz"
scenario "S6 GET /app.js delta (dcb)" /app.js "Accept-Encoding: gzip, deflate, br, zstd, dcb, dcz" "Available-Dictionary: $dictionary"
stop_server lt-native
}

# ---- the Worker under bare workerd -----------------------------------------------------------
WORKER_PORT=18183
JS_PORT=18184
FLOOR_PORT=18185
WORKER_RUN_PORT=18187

# The load-test site's Worker, built; the JS in-memory worker generated; the Worker up on
# WORKER_PORT to be asked what it answers (the floor's answer, the ETags: etag, js_etag); each
# measurement starts a fresh one on WORKER_RUN_PORT.
workers_setup() {
  printf '[site]\ndir = "site"\n' >"$WORK/edgesite.toml"
  scripts/workerd.sh build "$WORK/edgesite.toml" >/dev/null
  WORKER_CAPNP=$(scripts/workerd.sh config "$WORKER_PORT" "$WORK/edgesite.toml")
  mkdir -p "$WORK/inmemory" "$WORK/floor"
  node bench/workers/generate.mjs inmemory "$WORK/site" "$WORK/inmemory/worker.mjs"
  INMEMORY_CAPNP="$WORK/inmemory/worker.mjs.capnp"
  workerd_config "$INMEMORY_CAPNP" "$JS_PORT" "$WORK/inmemory" worker.mjs
  start_server lt-worker 60 "$WORKER_PORT" taskset -c 0 workerd serve "$WORKER_CAPNP"
  start_server lt-inmemory 30 "$JS_PORT" taskset -c 0 workerd serve "$INMEMORY_CAPNP"
  etag=$(etag_of "http://127.0.0.1:$WORKER_PORT/")
  js_etag=$(etag_of "http://127.0.0.1:$JS_PORT/")
  stop_server lt-inmemory
  WORKER_RUN_CAPNP="$(dirname "$WORKER_CAPNP")/run.capnp"
  sed "s/127.0.0.1:$WORKER_PORT/127.0.0.1:$WORKER_RUN_PORT/" "$WORKER_CAPNP" >"$WORKER_RUN_CAPNP"
  FLOOR_CAPNP="$WORK/floor/worker.mjs.capnp"
}

workers_half() {
  workers_setup
  printf '\nUnder bare workerd (server pinned to core 0, wrk on core 1), %s connections, %s s per run\n' "$CONNECTIONS" "$DURATION"
  printf '| scenario | worker | req/s | p50 | p99 | CPU per request | edgesite vs floor | edgesite vs JS in-memory |\n|---|---|---|---|---|---|---|---|\n'
  worker_scenario "S1 GET / identity" / "" ""
  worker_scenario "S2 GET / br" / "Accept-Encoding: gzip, deflate, br, zstd" "Accept-Encoding: gzip, deflate, br, zstd"
  worker_scenario "S3 GET / If-None-Match" / "If-None-Match: $etag" "If-None-Match: $js_etag"
  worker_scenario "S4 GET /big.js (200 KB)" /big.js "" ""
}

# floor_for PATH HEADER: writes the floor ($FLOOR_CAPNP) answering exactly what the Worker answers
# to PATH with HEADER, its Date included (a fixed one), but framing fields; prints the status.
floor_for() {
  local path=$1 header=$2 args=() status
  [ -n "$header" ] && args=(-H "$header")
  status=$(curl -s "${args[@]}" -D "$WORK/whead" -o "$WORK/wbody" -w '%{http_code}' "http://127.0.0.1:$WORKER_PORT$path")
  python3 - "$WORK/whead" "$WORK/wbody" "$status" >"$WORK/fixed.json" <<'PY'
import base64, json, sys
head, body, status = sys.argv[1:]
headers = []
for line in open(head, encoding="latin-1", newline="").read().split("\r\n")[1:]:
    if ":" in line:
        name, value = line.split(":", 1)
        if name.lower() not in ("content-length", "transfer-encoding", "connection"):
            headers.append([name, value.strip()])
print(json.dumps({"status": int(status), "headers": headers, "body": base64.b64encode(open(body, "rb").read()).decode()}))
PY
  node bench/workers/generate.mjs floor "$WORK/fixed.json" "$WORK/floor/worker.mjs"
  workerd_config "$FLOOR_CAPNP" "$FLOOR_PORT" "$WORK/floor" worker.mjs
  echo "$status"
}

worker_scenario() { # name path header-for-edgesite header-for-the-js-worker
  local name=$1 path=$2 header=$3 js_header=$4 status
  status=$(floor_for "$path" "$header")
  read -r f_rps f_p50 f_p99 f_cpu f_bad < <(run_fresh lt-floor "$FLOOR_PORT" "$FLOOR_CAPNP" "$path" ${header:+"$header"})
  read -r e_rps e_p50 e_p99 e_cpu e_bad < <(run_fresh lt-worker-run "$WORKER_RUN_PORT" "$WORKER_RUN_CAPNP" "$path" ${header:+"$header"})
  read -r j_rps j_p50 j_p99 j_cpu j_bad < <(run_fresh lt-inmemory "$JS_PORT" "$INMEMORY_CAPNP" "$path" ${js_header:+"$js_header"})
  printf '| %s | floor (JS, fixed) | %s | %s | %s | %s µs | | |\n' "$name ($status)" "$f_rps" "$f_p50" "$f_p99" "$f_cpu"
  printf '| %s | edgesite Worker | %s | %s | %s | %s µs | %.2fx | %.2fx |\n' "$name ($status)" "$e_rps" "$e_p50" "$e_p99" "$e_cpu" \
    "$(awk -v a="$e_rps" -v b="$f_rps" 'BEGIN { print a / b }')" "$(awk -v a="$e_rps" -v b="$j_rps" 'BEGIN { print a / b }')"
  printf '| %s | JS in-memory | %s | %s | %s | %s µs | | |\n' "$name ($status)" "$j_rps" "$j_p50" "$j_p99" "$j_cpu"
}

# ---- where the Worker's CPU goes, against the floor's (perf) ----------------------------------
PROFILE_HZ=4999

profile_half() {
  command -v perf >/dev/null || apt_install linux-perf
  workers_setup
  printf '\nWhere the edgesite Worker spends more CPU per request than the floor, under bare workerd (perf record -F %s, V8 --perf-basic-prof), %s connections, %s s per run\n' \
    "$PROFILE_HZ" "$CONNECTIONS" "$DURATION"
  profile_scenario "S1 GET / identity" / ""
  profile_scenario "S2 GET / br" / "Accept-Encoding: gzip, deflate, br, zstd"
  profile_scenario "S3 GET / If-None-Match" / "If-None-Match: $etag"
}

profile_scenario() { # name path header
  local name=$1 path=$2 header=$3 status floor_requests edgesite_requests out
  out="$WORK/profile-${name%% *}" # kept: target/loadtest/profile-S1-edgesite.syms...
  status=$(floor_for "$path" "$header")
  floor_requests=$(profile_once lt-floor "$FLOOR_PORT" "$FLOOR_CAPNP" "$out-floor" "$path" ${header:+"$header"})
  edgesite_requests=$(profile_once lt-worker-run "$WORKER_RUN_PORT" "$WORKER_RUN_CAPNP" "$out-edgesite" "$path" ${header:+"$header"})
  printf '\n%s (%s)\n' "$name" "$status"
  python3 bench/perfdiff.py "$PROFILE_HZ" "$out-edgesite.syms" "$edgesite_requests" "$out-floor.syms" "$floor_requests"
}

# profile_once NAME PORT CAPNP OUT PATH HEADER...: a fresh workerd (V8 writing its JIT symbols for
# perf) under wrk for DURATION seconds while perf samples it; OUT.syms gets the samples per
# symbol; prints the number of requests answered meanwhile.
profile_once() {
  local name=$1 port=$2 capnp=$3 out=$4 path=$5
  shift 5
  local args=() pid recorder requests
  for h in "$@"; do args+=(-H "$h"); done
  # V8 writes a log beside its perf map (/tmp/perf-PID.map): one file, in WORK.
  sed "s|^const config :Workerd.Config = (|&\n  v8Flags = [\"--perf-basic-prof\", \"--no-logfile-per-isolate\", \"--logfile=$WORK/v8.log\"],|" \
    "$capnp" >"${capnp%.capnp}.profile.capnp"
  start_server "$name" 60 "$port" taskset -c 0 workerd serve "${capnp%.capnp}.profile.capnp"
  pid=$(server_pid "$name")
  taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d2s "${args[@]}" "http://127.0.0.1:$port$path" >/dev/null
  perf record -q -F "$PROFILE_HZ" -p "$pid" -o "$out.data" -- sleep "$DURATION" >/dev/null 2>&1 &
  recorder=$!
  requests=$(taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" "${args[@]}" "http://127.0.0.1:$port$path" | awk '/requests in/ { print $1 }')
  wait "$recorder"
  perf report -i "$out.data" --no-children --sort sym -g none -n -q --percent-limit 0 2>/dev/null |
    awk '{ n = $2; $1 = $2 = $3 = ""; print n "\t" $0 }' >"$out.syms"
  stop_server "$name"
  rm -f "/tmp/perf-$pid.map" "$out.data" "$WORK/v8.log"
  echo "$requests"
}

# ---- 400 connections: edgesite-native against nginx ------------------------------------------
NGINX_PORT=18186

c400_half() {
  command -v nginx >/dev/null || apt_install nginx
  mkdir -p "$WORK/nginx"
  cat >"$WORK/nginx/nginx.conf" <<NGINX
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
daemon off;
events { worker_connections 4096; }
http {
  access_log off;
  include /etc/nginx/mime.types;
  sendfile on;
  tcp_nodelay on;
  etag on;
  open_file_cache max=1000;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $WORK/site;
  }
}
NGINX
  start_server lt-native 30 "$NATIVE_PORT" taskset -c 0 "$NATIVE" --listen "127.0.0.1:$NATIVE_PORT"
  start_server lt-nginx 30 "$NGINX_PORT" taskset -c 0 nginx -c "$WORK/nginx/nginx.conf"
  local etag nginx_etag
  etag=$(etag_of "http://127.0.0.1:$NATIVE_PORT/")
  nginx_etag=$(etag_of "http://127.0.0.1:$NGINX_PORT/")
  printf '\n400 connections (server pinned to core 0, wrk on core 1), %s s per run\n' "$DURATION"
  printf '| scenario | server | req/s | p50 | p99 | CPU per request |\n|---|---|---|---|---|---|\n'
  local name port pid header
  for name in nginx edgesite-native; do
    case $name in
      nginx) port=$NGINX_PORT pid=$(server_pid lt-nginx) header="If-None-Match: $nginx_etag" ;;
      *) port=$NATIVE_PORT pid=$(server_pid lt-native) header="If-None-Match: $etag" ;;
    esac
    read -r rps p50 p99 cpu _ < <(CONNECTIONS=400 run "$pid" "$port" /)
    printf '| S1 GET / identity | %s | %s | %s | %s | %s µs |\n' "$name" "$rps" "$p50" "$p99" "$cpu"
    read -r rps p50 p99 cpu _ < <(CONNECTIONS=400 run "$pid" "$port" / "$header")
    printf '| S3 GET / If-None-Match (304) | %s | %s | %s | %s | %s µs |\n' "$name" "$rps" "$p50" "$p99" "$cpu"
  done
  stop_server lt-nginx
  stop_server lt-native
}

apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }

case "$PART" in
  native) native_half ;;
  workers) workers_half ;;
  c400) c400_half ;;
  profile) profile_half ;;
  *) native_half; workers_half; c400_half ;;
esac
