# Sourced by the test, benchmark and build scripts: starting, waiting on and stopping servers,
# workerd configurations, and reading a response field. One copy of each, so the scripts agree.
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

# wrangler.toml's compatibility_date: what every Worker here runs with.
compat_date() {
  sed -n 's/^compatibility_date *= *"\(.*\)"/\1/p' "$ROOT/wrangler.toml"
}

# The modules of BUNDLE_DIR (a Worker bundle: its main module MAIN, other .js/.mjs as ES modules,
# .wasm as wasm modules, .bin as data modules) as a workerd module list; embed paths relative to
# the folder OUT_DIR. Module names are paths inside the bundle.
workerd_modules() { # out-dir bundle-dir main-module
  local out_dir=$1 bundle=$2 main=$3 modules="" rel dir
  dir=$(realpath --relative-to="$out_dir" "$bundle")
  while IFS= read -r rel; do
    case "$rel" in
      "$main") modules="(name = \"$rel\", esModule = embed \"$dir/$rel\"), $modules" ;;
      *.js | *.mjs) modules="$modules(name = \"$rel\", esModule = embed \"$dir/$rel\"), " ;;
      *.wasm) modules="$modules(name = \"$rel\", wasm = embed \"$dir/$rel\"), " ;;
      *.bin) modules="$modules(name = \"$rel\", data = embed \"$dir/$rel\"), " ;;
    esac
  done < <(cd "$bundle" && find . \( -path ./assets -o -path ./r2 \) -prune -o -type f \( -name '*.js' -o -name '*.mjs' -o -name '*.wasm' -o -name '*.bin' \) -print | sed 's|^\./||' | sort)
  echo "${modules%, }"
}

# Writes a workerd config at OUT (a .capnp path) serving each Worker bundle on its port, all in
# one workerd process: PORT BUNDLE_DIR MAIN_MODULE, repeated (see workerd_modules).
workerd_config() { # out port bundle-dir main-module [port bundle-dir main-module]...
  local out=$1 services="" sockets="" workers="" n=0
  shift
  while [ $# -ge 3 ]; do
    # The store: a disk service over the bundle's assets/ stands in for the Static Assets
    # binding (it also answers Range, which Static Assets does not: the Worker never asks it).
    # A bundle with objects in r2/ gets tests/fixtures/r2-stand-in.js as its main module, over
    # a second disk service, for its R2 bucket.
    mkdir -p "$2/assets"
    local modules bindings="(name = \"ASSETS\", service = \"store$n\")"
    modules=$(workerd_modules "$(dirname "$out")" "$2" "$3")
    services="$services(name = \"worker$n\", worker = .worker$n), (name = \"store$n\", disk = (path = \"$(cd "$2/assets" && pwd)\", writable = false)), "
    if [ -n "$(find "$2/r2" -type f -print -quit 2>/dev/null)" ]; then
      modules="(name = \"r2-stand-in.js\", esModule = embed \"$(realpath --relative-to="$(dirname "$out")" "$ROOT/tests/fixtures/r2-stand-in.js")\"), $modules"
      services="$services(name = \"r2-$n\", disk = (path = \"$(cd "$2/r2" && pwd)\", writable = false)), "
      bindings="$bindings, (name = \"R2_DISK\", service = \"r2-$n\")"
    fi
    sockets="$sockets(name = \"http$n\", address = \"127.0.0.1:$1\", http = (), service = \"worker$n\"), "
    workers="$workers
const worker$n :Workerd.Worker = (
  modules = [$modules],
  compatibilityDate = \"$(compat_date)\",
  bindings = [$bindings],
);
"
    n=$((n + 1))
    shift 3
  done
  cat >"$out" <<CAPNP
# Generated by scripts/lib.sh (workerd_config).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [${services%, }],
  sockets = [${sockets%, }],
);
$workers
CAPNP
}

# The site folder a build compiles: EDGESITE_SITE (relative to the project), else `site.dir` of
# the configuration (EDGESITE_CONFIG or edgesite.toml; relative to its folder), else public/.
# Absolute.
site_dir() {
  if [ -n "${EDGESITE_SITE:-}" ]; then
    (cd "$ROOT" && realpath -m "$EDGESITE_SITE")
    return
  fi
  python3 - "$ROOT" "${EDGESITE_CONFIG:-edgesite.toml}" <<'PY'
import os, sys, tomllib
root, config = sys.argv[1], os.path.join(sys.argv[1], sys.argv[2])
try:
    with open(config, "rb") as f:
        folder = tomllib.load(f).get("site", {}).get("dir", "public")
except FileNotFoundError:
    folder = "public"
except tomllib.TOMLDecodeError:
    folder = "public"  # the build names the error
print(os.path.realpath(os.path.join(os.path.dirname(config), folder)))
PY
}

# `[storage] r2_bucket` of CONFIG (default: EDGESITE_CONFIG, else edgesite.toml), or nothing.
# (The build checks the config; a quoted name on its own line is the only form it takes here.)
r2_bucket() { # [config]
  local config=${1:-${EDGESITE_CONFIG:-$ROOT/edgesite.toml}}
  [ -f "$config" ] || return 0
  python3 - "$config" <<'PY'
import sys, tomllib
try:
    with open(sys.argv[1], "rb") as f:
        print(tomllib.load(f).get("storage", {}).get("r2_bucket", ""))
except tomllib.TOMLDecodeError:
    pass  # the build names the error
PY
}

# Fails, naming the fix, unless the wrangler config WRANGLER binds BUCKET as EDGESITE_R2 (the
# binding the Worker reads R2 through): without it every file in R2 would be answered 503.
r2_bound() { # wrangler-toml bucket
  python3 - "$1" "$2" <<'PY' >&2
import sys, tomllib
path, bucket = sys.argv[1:]
with open(path, "rb") as f:
    buckets = tomllib.load(f).get("r2_buckets", [])
bound = [b.get("bucket_name") for b in buckets if b.get("binding") == "EDGESITE_R2"]
if bound != [bucket]:
    print(f"the site keeps files in R2 bucket {bucket} ([storage] r2_bucket), and {path} binds "
          f"{bound[0] if bound else 'no bucket'} as EDGESITE_R2: add [[r2_buckets]] "
          f'binding = "EDGESITE_R2" bucket_name = "{bucket}"')
    sys.exit(1)
PY
}

# wrangler.toml's [[rules]] and [assets] sections (the one definition of how the Worker's blobs
# and store are named), with the store's folder ASSETS in place of build/assets, after the
# binding of R2-BUCKET as EDGESITE_R2 when one is named: what the configs written below share
# with it.
wrangler_sections() { # assets-dir [r2-bucket]
  [ -z "${2:-}" ] || printf '[[r2_buckets]]\nbinding = "EDGESITE_R2"\nbucket_name = "%s"\n\n' "$2"
  sed -n '/^\[\[rules\]\]/,$p' "$ROOT/wrangler.toml" | grep -v '^#' |
    sed "s|^directory = .*|directory = \"$1\"|"
}

# Writes a wrangler config at OUT (a .toml path) for wrangler dev: the project's Worker, built
# by scripts/build-worker.sh into build/, rebuilt when a file under src/, crates/ or the site
# folder SITE changes (wrangler.toml watches public/ only). Its paths are absolute, but for
# watch_dir's: wrangler 4.164 watches nothing at an absolute one (measured), so those are
# relative to OUT's folder.
dev_config() { # out site
  local from bucket
  from=$(dirname "$(realpath -m "$1")")
  bucket=$(r2_bucket)
  rel() { realpath -m --relative-to="$from" "$1"; }
  {
    cat <<TOML
# Generated by scripts/lib.sh (dev_config): wrangler.toml, watching $2.
name = "edgesite"
main = "$ROOT/build/worker.mjs"
compatibility_date = "$(compat_date)"

[build]
cwd = "$ROOT"
command = "$ROOT/scripts/build-worker.sh"
watch_dir = ["$(rel "$2")", "$(rel "$ROOT/src")", "$(rel "$ROOT/crates")"]

TOML
    wrangler_sections "$ROOT/build/assets" "$bucket"
  } >"$1"
}

# A config with the first view's work (issue 34) off: `[links] preload`, `inline_css_bytes`,
# `size_images`, `prioritize_images` and `[optimize]`. From CONFIG, whose `[links]` must hold a
# `preload = true` line (replaced by the lines that turn them off), or alone. On stdout.
first_view_off() { # [config]
  local links='preload = false\ninline_css_bytes = 0\nsize_images = false\nprioritize_images = false'
  if [ -n "${1:-}" ]; then
    grep -q '^preload = true$' "$1" || { echo "$1 has no 'preload = true' line to turn off" >&2; return 1; }
    sed "s/^preload = true\$/$links/" "$1"
  else
    printf '[links]\n%b\n' "$links"
  fi
  printf '[optimize]\nhtml = false\ncss = false\njs = false\n'
}

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
