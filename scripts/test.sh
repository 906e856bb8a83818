#!/usr/bin/env bash
# `make test`: every test layer, in order; runs them all, prints a summary, fails if any failed.
#   1. host        cargo test --workspace: core unit + property tests, sitegen tests, native limits
#                  and library mode, the fuzz corpus replay, and the HTTP suites
#                  (tests/{http,conditional,negotiation,ranges,paths,redirects,malformed}.rs)
#                  against an in-process edgesite-native over loopback
#   2. browser     wasm-pack test --headless --chrome: the Worker's fetch path in Chromium
#   3. native      the HTTP suites against the edgesite-native binary
#   4. workerd     the HTTP suites against the Worker under bare `workerd serve`, and the
#                  configured-site suite against a second Worker built with tests/fixtures/configured.toml
#   5. wrangler    the HTTP suites against the Worker under `wrangler dev`, and its request log
#   6. example     examples/api-worker (an API route beside an embedded site) under wrangler dev
#   7. site        EDGESITE_SITE serves another folder (absolute or relative); adding, changing and
#                  deleting a file rebuilds; the configured-site suite against the native twin built with
#                  tests/fixtures/configured.toml; a missing folder and
#                  an unknown config key fail the build naming them
# The suites check the demo site, so EDGESITE_SITE is ignored here.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
cd "$ROOT"
unset EDGESITE_SITE
LOGS="$ROOT/target/test-logs"
mkdir -p "$LOGS"
summary=()
failed=0
passed=0

layer() { # name command...
  local name=$1 start=$SECONDS
  shift
  printf '\n=== %s: %s\n' "$name" "$*"
  if "$@"; then
    summary+=("PASS  $name  ($((SECONDS - start)) s)")
    passed=$((passed + 1))
  else
    summary+=("FAIL  $name  ($((SECONDS - start)) s)")
    failed=$((failed + 1))
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Starts "$@" in its own process group, logging to $LOGS/$1.log, and waits until
# http://127.0.0.1:$PORT/ answers (or the server dies, or $WAIT seconds pass).
SERVER_PGID=""
start_server() { # log-name wait-seconds port command...
  local log="$LOGS/$1.log" wait=$2 port=$3
  shift 3
  setsid "$@" >"$log" 2>&1 &
  SERVER_PGID=$!
  local deadline=$((SECONDS + wait))
  until curl -s -o /dev/null "http://127.0.0.1:$port/"; do
    if ! kill -0 "$SERVER_PGID" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "server did not come up on port $port; its log ($log):" >&2
      tail -n 40 "$log" >&2
      stop_server
      return 1
    fi
    sleep 0.5
  done
}

stop_server() {
  [ -n "$SERVER_PGID" ] || return 0
  kill -TERM -- "-$SERVER_PGID" 2>/dev/null
  for _ in $(seq 1 20); do kill -0 -- "-$SERVER_PGID" 2>/dev/null || break; sleep 0.25; done
  kill -KILL -- "-$SERVER_PGID" 2>/dev/null
  SERVER_PGID=""
}
trap stop_server EXIT

# The HTTP suites in tests/ that run against every runtime.
HTTP_SUITES=(--test http --test conditional --test negotiation --test ranges --test paths --test redirects --test malformed)

http_suite_against() { # runtime port
  EDGESITE_BASE_URL="http://127.0.0.1:$2" EDGESITE_RUNTIME=$1 cargo test -q "${HTTP_SUITES[@]}"
}

e2e_native() {
  local port
  port=$(free_port)
  cargo build -q -p edgesite-native &&
    start_server native 30 "$port" target/debug/edgesite-native --listen "127.0.0.1:$port" &&
    http_suite_against native "$port"
  local rc=$?
  stop_server
  return $rc
}

e2e_workerd() {
  local port rc=0
  port=$(free_port)
  { start_server workerd 900 "$port" scripts/workerd.sh "$port" && http_suite_against workerd "$port"; } || rc=1
  stop_server
  # The same Worker built with tests/fixtures/configured.toml, for the configured-site suite.
  { start_server workerd-configured 900 "$port" scripts/workerd.sh "$port" tests/fixtures/configured.toml &&
    configured_suite_against workerd "$port"; } || rc=1
  stop_server
  return $rc
}

e2e_wrangler_dev() {
  local port
  port=$(free_port)
  start_server wrangler-dev 900 "$port" wrangler dev --ip 127.0.0.1 --port "$port" --var EDGESITE_LOG:1 &&
    http_suite_against wrangler-dev "$port" &&
    # EDGESITE_LOG: the Worker's own request log line (method path status coding bytes).
    grep -Eq 'edgesite: GET /about 200 [a-z]+ [0-9]+' "$LOGS/wrangler-dev.log" ||
    { echo "no request log line from the Worker in $LOGS/wrangler-dev.log" >&2; false; }
  local rc=$?
  stop_server
  return $rc
}

# The example Worker (library mode) under wrangler dev, from its own folder and wrangler.toml.
e2e_example() {
  local port
  port=$(free_port)
  start_server example 900 "$port" bash -c "cd examples/api-worker && exec wrangler dev --ip 127.0.0.1 --port $port" &&
    EDGESITE_BASE_URL="http://127.0.0.1:$port" EDGESITE_RUNTIME=wrangler-dev cargo test -q --test example_api -- --ignored
  local rc=$?
  stop_server
  return $rc
}

# ---- 6. EDGESITE_SITE and rebuild tracking, on the native twin (its own target dir) ----------
expect() { # port path status [body [header]]
  local got extra=()
  [ $# -ge 5 ] && extra=(-H "$5")
  got=$(curl -s -o "$LOGS/body" -w '%{http_code}' "${extra[@]}" "http://127.0.0.1:$1$2")
  if [ "$got" != "$3" ] || { [ -n "${4:-}" ] && [ "$(cat "$LOGS/body")" != "$4" ]; }; then
    echo "GET $2 ${5:-}: expected $3${4:+ \"$4\"}, got $got \"$(head -c 200 "$LOGS/body")\"" >&2
    return 1
  fi
  echo "ok: GET $2 ${5:+($5) }-> $3${4:+ \"$4\"}"
}

build_and_serve() { # site port
  EDGESITE_SITE=$1 cargo build -q -p edgesite-native --target-dir target/site-override &&
    start_server site-override 30 "$2" target/site-override/debug/edgesite-native --listen "127.0.0.1:$2"
}

# The configured-site suite (tests/configured.rs, ignored in a plain cargo test) on port $2.
configured_suite_against() { # runtime port
  EDGESITE_BASE_URL="http://127.0.0.1:$2" EDGESITE_RUNTIME=$1 cargo test -q --test configured -- --ignored
}

# The native twin built with tests/fixtures/configured.toml (every policy changed).
configured_site() { # port
  EDGESITE_CONFIG=tests/fixtures/configured.toml cargo build -q -p edgesite-native --target-dir target/site-override &&
    start_server site-override 30 "$1" target/site-override/debug/edgesite-native --listen "127.0.0.1:$1" &&
    configured_suite_against native "$1" &&
    stop_server
}

# A build must fail, naming the file (and line): expect_build_error pattern env-assignments...
expect_build_error() {
  local pattern=$1
  shift
  if env "$@" cargo build -q -p edgesite-native --target-dir target/site-override >"$LOGS/build-error.log" 2>&1; then
    echo "building with $* succeeded" >&2
    return 1
  fi
  if ! grep -q "$pattern" "$LOGS/build-error.log"; then
    echo "the build error for $* does not say \"$pattern\":" >&2
    cat "$LOGS/build-error.log" >&2
    return 1
  fi
  echo "ok: $* fails the build: $(grep -o 'error: edgesite: .*' "$LOGS/build-error.log" | head -1)"
}

site_override() {
  local site port rc=0
  site=$(mktemp -d)
  port=$(free_port)
  cp -r tests/fixtures/site/. "$site/"
  {
    build_and_serve "$site" "$port" &&
      expect "$port" /hello.txt 200 "hello from the fixture site" &&
      expect "$port" /about.html 404 &&
      stop_server &&
      echo "added" >"$site/new.txt" && echo "changed" >"$site/hello.txt" &&
      build_and_serve "$site" "$port" &&
      expect "$port" /new.txt 200 added &&
      expect "$port" /hello.txt 200 changed &&
      stop_server &&
      rm "$site/new.txt" &&
      build_and_serve "$site" "$port" &&
      expect "$port" /new.txt 404 &&
      stop_server &&
      build_and_serve tests/fixtures/site "$port" &&
      expect "$port" /hello.txt 200 "hello from the fixture site" &&
      stop_server
  } || rc=1
  stop_server
  configured_site "$port" || rc=1
  stop_server
  expect_build_error 'the site directory /no/such/site does not exist' EDGESITE_SITE=/no/such/site || rc=1
  expect_build_error 'tests/fixtures/bad.toml:3: unknown field `cleanurls`' EDGESITE_CONFIG=tests/fixtures/bad.toml || rc=1
  rm -rf "$site"
  return $rc
}

layer "host (cargo test --workspace)" cargo test --workspace
layer "browser (wasm-pack test --headless --chrome)" wasm-pack test --headless --chrome -- --lib
layer "e2e: edgesite-native binary" e2e_native
layer "e2e: Worker under bare workerd serve" e2e_workerd
layer "e2e: Worker under wrangler dev" e2e_wrangler_dev
layer "e2e: example Worker (API + site) under wrangler dev" e2e_example
layer "site: EDGESITE_SITE and rebuild tracking" site_override

printf '\n=== make test summary\n'
printf '%s\n' "${summary[@]}"
echo "layers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
