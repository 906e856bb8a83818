#!/usr/bin/env bash
# `make soak`: a bounded sustained-load run (SOAK_SECONDS, default 120; SOAK_CONNECTIONS, default
# 200) of a mixed workload (bench/soak.lua: compressed, conditional, range, multipart,
# redirect and rewrite requests) against the native twin, then against the Worker under bare
# `workerd serve`. For each: requests, errors (socket errors + answers that are not 2xx/3xx),
# RSS sampled every SOAK_SAMPLE seconds (default 5) and open file descriptors before and after.
# Fails on any error, on RSS growth from a quarter into the run to its end of more than 10% and
# 8 MiB, or on more open descriptors after the run than before it (+4).
#   PART=native or PART=workerd runs one of the two.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cd "$ROOT"
SECONDS_TOTAL=${SOAK_SECONDS:-120}
CONNECTIONS=${SOAK_CONNECTIONS:-200}
SAMPLE=${SOAK_SAMPLE:-5}
PART=${PART:-all}
WORK="$ROOT/target/soak"
NATIVE_PORT=18191
WORKER_PORT=18192
mkdir -p "$WORK"
trap stop_all_servers EXIT

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
fds() { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }

failed=0
results=()
# soak NAME PID PORT
soak() {
  local name=$1 pid=$2 port=$3
  local etag
  etag=$(etag_of "http://127.0.0.1:$port/" -H 'Accept-Encoding: gzip, deflate, br, zstd')
  # Warm-up, so the first sample is the server at work, not at rest.
  SOAK_ETAG=$etag wrk -t2 -c"$CONNECTIONS" -d3s -s bench/soak.lua "http://127.0.0.1:$port/" >/dev/null
  local fds_before
  fds_before=$(fds "$pid")
  SOAK_ETAG=$etag wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_TOTAL}s" --timeout 10s -s bench/soak.lua \
    "http://127.0.0.1:$port/" >"$WORK/$name.wrk" 2>&1 &
  local wrk_pid=$!
  local samples=()
  while kill -0 "$wrk_pid" 2>/dev/null; do
    samples+=("$(rss_kib "$pid")")
    sleep "$SAMPLE"
  done
  wait "$wrk_pid"
  sleep 1 # let the server close the load's connections
  local fds_after
  fds_after=$(fds "$pid")
  printf '%s\n' "${samples[@]}" >"$WORK/$name.rss"
  local requests errors rps
  requests=$(awk '/requests in/ { print $1 }' "$WORK/$name.wrk")
  rps=$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$WORK/$name.wrk")
  errors=$(awk '/Socket errors:/ { gsub(",", ""); e += $4 + $6 + $8 + $10 } /Non-2xx or 3xx/ { e += $5 } END { print e + 0 }' "$WORK/$name.wrk")
  # The first sample, the one a quarter into the run (after the heap has sized itself to the
  # load: workerd's grows in the first seconds, then stays), the last, and the highest. A leak
  # shows as growth from the quarter mark to the end.
  local first settled last max n
  n=${#samples[@]}
  first=${samples[0]}
  settled=${samples[$((n / 4))]}
  last=${samples[$((n - 1))]}
  max=$(printf '%s\n' "${samples[@]}" | sort -n | tail -n 1)
  local verdict=ok
  if [ "$errors" != 0 ]; then verdict="FAIL: $errors errors"; fi
  if [ $((last - settled)) -gt $((settled / 10)) ] && [ $((last - settled)) -gt 8192 ]; then
    verdict="FAIL: RSS grew from $settled to $last KiB after the first quarter"
  fi
  if [ "$fds_after" -gt $((fds_before + 4)) ]; then verdict="FAIL: descriptors $fds_before -> $fds_after"; fi
  [ "$verdict" = ok ] || failed=1
  results+=("$(printf '| %s | %s s | %s | %s | %s | %s | %s / %s / %s / %s KiB (%s samples) | %s -> %s | %s |' \
    "$name" "$SECONDS_TOTAL" "$CONNECTIONS" "$requests" "$rps" "$errors" "$first" "$settled" "$last" "$max" "$n" \
    "$fds_before" "$fds_after" "$verdict")")
}

if [ "$PART" != workerd ]; then
  cargo build -q --release -p edgesite-native
  start_server soak-native 30 "$NATIVE_PORT" target/release/edgesite-native --listen "127.0.0.1:$NATIVE_PORT"
  soak native "$(server_pid soak-native)" "$NATIVE_PORT"
  stop_server soak-native
fi
if [ "$PART" != native ]; then
  scripts/workerd.sh build >/dev/null
  capnp=$(scripts/workerd.sh config "$WORKER_PORT")
  start_server soak-workerd 60 "$WORKER_PORT" workerd serve "$capnp"
  soak workerd "$(server_pid soak-workerd)" "$WORKER_PORT"
  stop_server soak-workerd
fi
printf '\n%s, %s\n' "$(date -u +%Y-%m-%d)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf '| server | duration | connections | requests | req/s | errors | RSS first / at 1/4 / last / max | fds before -> after | verdict |\n|---|---|---|---|---|---|---|---|---|\n'
printf '%s\n' "${results[@]}"
exit "$failed"
