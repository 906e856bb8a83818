# Sourced by the benchmarks (bench/*.sh): starting, waiting on and stopping servers, reading a
# response field, nginx and Lighthouse. (`make test` starts its servers as Rust guards:
# crates/testkit.) The configs the benchmarks write are crates/xtask's, the one copy the harness
# uses too: `cargo xtask workerd config-at`, `first-view-off`, `dev-config`, `r2-bucket`.
# Expects ROOT (the repository) to be set; logs go to $LOGS (default target/logs).
# shellcheck shell=bash

LOGS=${LOGS:-$ROOT/target/logs}
mkdir -p "$LOGS"

# Seconds since START (an $EPOCHREALTIME), to a tenth.
since() { # start
  local tenths=$(((${EPOCHREALTIME/./} - ${1/./}) / 100000))
  echo "$((tenths / 10)).$((tenths % 10))"
}

# Every step's time, in the order run (print_steps prints them again as a table).
declare -ga STEP_TIMES=()

# Runs COMMAND and prints "[time] NAME: N.N s" (a line a slow step is found by in the log).
step() { # name command...
  local name=$1 start=$EPOCHREALTIME rc=0
  shift
  "$@" || rc=$?
  STEP_TIMES+=("$(since "$start")	$name$([ $rc -eq 0 ] || echo " (failed)")")
  echo "[time] $name: $(since "$start") s$([ $rc -eq 0 ] || echo " (failed)")"
  return $rc
}

print_steps() {
  local line
  for line in "${STEP_TIMES[@]}"; do printf '%8s s  %s\n' "${line%%	*}" "${line#*	}"; done
}

# The PID (= process group) of each server started, by name.
declare -gA SERVERS=()

# A free TCP port on 127.0.0.1: below Linux's ephemeral range (32768-60999, where the kernel
# picks client ports), nothing accepting there (bash's /dev/tcp), and not handed out before by
# this shell (a list in a file: `$(free_port)` runs in a subshell; $$ is the shell's own PID).
free_port() {
  local port given="${TMPDIR:-/tmp}/edgesite-ports-$$"
  while :; do
    port=$((20000 + RANDOM % 12000))
    if ! grep -qx "$port" "$given" 2>/dev/null && ! (: </dev/tcp/127.0.0.1/$port) 2>/dev/null; then
      echo "$port" >>"$given"
      echo "$port"
      return
    fi
  done
}

# Waits until http://127.0.0.1:PORT/ answers (any status); fails if PID (when given) dies first
# or SECONDS pass.
wait_http() { # port seconds [pid]
  local port=$1 deadline=$((SECONDS + $2)) pid=${3:-}
  until curl -s -o /dev/null "http://127.0.0.1:$port/"; do
    if { [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; } || [ $SECONDS -ge "$deadline" ]; then
      return 1
    fi
    sleep 0.2
  done
}

# Starts COMMAND in a process group of its own, logging to $LOGS/NAME.log, and waits until it
# answers on PORT (or dies, or WAIT seconds pass: then its log's end is shown and it fails).
start_server() { # name wait port command...
  local name=$1 wait=$2 port=$3
  shift 3
  if curl -s -o /dev/null "http://127.0.0.1:$port/"; then
    echo "$name: port $port already answers (a server left running?)" >&2
    return 1
  fi
  setsid "$@" >"$LOGS/$name.log" 2>&1 &
  SERVERS[$name]=$!
  if ! wait_http "$port" "$wait" "${SERVERS[$name]}"; then
    echo "$name did not come up on port $port; its log ($LOGS/$name.log):" >&2
    tail -n 40 "$LOGS/$name.log" >&2
    stop_server "$name"
    return 1
  fi
}

# The PID of a server start_server started (its process group).
server_pid() { echo "${SERVERS[$1]}"; }

# Stops a server and everything it started (TERM, then KILL after 5 s).
stop_server() { # name
  local pgid=${SERVERS[$1]:-}
  [ -n "$pgid" ] || return 0
  # (Each step may find the group gone already: never fail a caller running with set -e.)
  kill -TERM -- "-$pgid" 2>/dev/null || true
  for _ in $(seq 1 20); do kill -0 -- "-$pgid" 2>/dev/null || break; sleep 0.25; done
  kill -KILL -- "-$pgid" 2>/dev/null || true
  wait "$pgid" 2>/dev/null || true
  unset "SERVERS[$1]"
  return 0
}

stop_all_servers() {
  local name
  for name in "${!SERVERS[@]}"; do stop_server "$name"; done
  rm -f "${TMPDIR:-/tmp}/edgesite-ports-$$"
}

# The value of response field NAME for a GET of URL (extra curl arguments after it).
response_field() { # name url [curl-args...]
  local name=$1 url=$2
  shift 2
  curl -s "$@" -D - -o /dev/null "$url" | tr -d '\r' |
    awk -F': ' -v n="$name" 'tolower($1) == tolower(n) { print $2; exit }'
}

# The ETag of a GET of URL.
etag_of() { # url [curl-args...]
  response_field etag "$@"
}

# A workerd config at OUT serving each bundle folder on its port: PORT BUNDLE_DIR MAIN_MODULE,
# repeated (crates/xtask/src/workerd.rs).
workerd_config() { (cd "$ROOT" && cargo xtask workerd config-at "$@"); }
# The configs of crates/xtask/src/config.rs: the first view's work off (on stdout), a wrangler
# config for wrangler dev watching a site, a config's `[storage] r2_bucket`.
first_view_off() { (cd "$ROOT" && cargo xtask first-view-off "$@"); }
dev_config() { (cd "$ROOT" && cargo xtask dev-config "$@"); }
r2_bucket() { (cd "$ROOT" && cargo xtask r2-bucket "$@"); }

# nginx 1.22 (Debian; installed when missing) as a common production configuration serves
# each ROOT on its PORT: gzip on for text types, its default caching (ETag and Last-Modified,
# no Cache-Control), `try_files $uri $uri.html $uri/` for clean URLs. DIR holds its
# configuration, pid and error log; `kill "$(cat DIR/nginx.pid)"` stops it.
start_nginx() { # dir port root [port root]...
  local dir=$1
  shift
  if ! command -v nginx >/dev/null; then
    echo "[nginx] installing nginx (Debian)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >/dev/null
  fi
  {
    echo "pid $dir/nginx.pid; error_log $dir/nginx-error.log; daemon on; worker_processes 1;"
    echo "events {} http { include /etc/nginx/mime.types; access_log off; sendfile on;"
    echo "  gzip on; gzip_types text/css application/javascript text/javascript image/svg+xml application/json;"
    while [ $# -ge 2 ]; do
      echo "  server { listen 127.0.0.1:$1; root $2; index index.html;"
      echo "    location / { try_files \$uri \$uri.html \$uri/ =404; } error_page 404 /404.html; }"
      shift 2
    done
    echo "}"
  } >"$dir/nginx.conf"
  nginx -c "$dir/nginx.conf"
  sleep 0.5
}

# Lighthouse's first view of URL (mobile preset, simulated Slow 4G; from npm, offline once
# installed, pinned for the system's Node 20) as bench/lighthouse_audits.py's line: the
# performance score, LCP in ms, and issue 34's audits; of LH_RUNS runs (default 3: one run's
# score moved from 73 to 83 on the same page) the line of the median score; "failed" for a run
# that fails.
lighthouse_audits() { # url
  local lh="$ROOT/target/tools/lighthouse" runs=${LH_RUNS:-3} lines=() i
  if [ ! -x "$lh/node_modules/.bin/lighthouse" ]; then
    echo "[lighthouse] installing lighthouse 12.2.3 (npm)" >&2
    # A package.json of its own, so that npm does not walk up to the project's.
    mkdir -p "$lh" && echo '{"private": true}' >"$lh/package.json"
    (cd "$lh" && PATH=/usr/bin:$PATH npm install -s --no-audit --no-fund lighthouse@12.2.3 >/dev/null)
  fi
  for ((i = 0; i < runs; i++)); do
    lines+=("$(PATH=/usr/bin:$PATH "$lh/node_modules/.bin/lighthouse" "$1" --quiet \
      --only-categories=performance --output=json --output-path=stdout \
      --chrome-flags="--headless=new --no-sandbox --disable-gpu" 2>/dev/null |
      python3 "$ROOT/bench/lighthouse_audits.py" || echo "failed")")
  done
  printf '%s\n' "${lines[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}
