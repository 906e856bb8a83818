#!/usr/bin/env bash
# `make test`: every test layer. First everything is built once, each step timed; then the
# layers run, each timed, the servers they share started once. Prints a summary and the time of
# every step, fails if any layer failed. docs/testing.md describes each layer's checks.
#
# Build (one target directory, one compile per configuration):
#   host build     cargo test --no-run: every test binary of the workspace, the edgesite-native
#                  binary and examples/serve_site (a folder compiled when it starts, served
#                  from memory)
#   worker builds  the demo's deploy bundle (wrangler deploy --dry-run: what `make deploy`
#                  uploads), the Worker built with tests/fixtures/configured.toml, with
#                  tests/fixtures/compact.toml and with tests/fixtures/stored.toml
#                  (scripts/workerd.sh), the example Worker
# Layers:
#   1. host        the test binaries (core unit + property tests, sitegen tests, native limits
#                  and library mode, the fuzz corpus replay, and the HTTP suites against an
#                  in-process edgesite-native: the demo, and the configured, compact and stored
#                  fixtures compiled in-process) and the doctests
#   2. browser     wasm-pack test --headless --chrome: the Worker's fetch path in Chromium
#   3. native      the HTTP suites against the edgesite-native binary
#   4. workerd     one `workerd serve` with four Workers: the HTTP suites against the demo's
#                  deploy bundle, the configured-site, compact-storage and store-tier suites
#                  against the Workers built with those fixtures (the store: a disk service as
#                  the ASSETS binding), and the store failing under the last
#   5. wrangler    the HTTP suites against the Worker under `wrangler dev`, and its request log;
#                  the store-tier suites against the stored fixture's Worker under wrangler dev
#   6. example     examples/api-worker (an API route beside an embedded site) under wrangler dev
#   7. site        EDGESITE_SITE serves another folder (absolute or relative); adding, changing
#                  and deleting a file rebuilds (real cargo builds: rerun-if-changed); 10,000
#                  _headers and 20,000 _redirects rules serve; a missing folder, an unknown config
#                  key and a field value with a line break fail the build naming them
#   8. views       repeat views in headless Chromium (the DevTools network log): one request for
#                  a page seen again, on the demo (the native and workerd layers' servers) and on
#                  a generated docs-style site; RFC 9842 deltas decoded by Chromium; the demo's
#                  photos arrive as AVIF and WebP and render at their published size; a hover
#                  on a link prefetches the page its speculation rules name, and the click is
#                  served from the prefetch (demo on native and workerd, the docs-style site);
#                  each preload hint of a page is requested once and used, and the same pages
#                  with the hints off look the same to the pixel (the docs-style site)
# LAYERS="workerd site" runs only those layers (and the builds they need); by default, all.
# The suites check the demo site, so EDGESITE_SITE is ignored here.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
LOGS="$ROOT/target/test-logs"
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"
cd "$ROOT"
unset EDGESITE_SITE EDGESITE_CONFIG EDGESITE_RECORD_DEPLOY
summary=()
failed=0
passed=0
BINS="$LOGS/test-binaries.tsv"

wanted() { [ -z "${LAYERS:-}" ] || [[ " $LAYERS " == *" $1 "* ]]; }

# A layer: runs it, prints its time, and records it in the summary.
layer() { # key name command...
  local key=$1 name=$2 start=$EPOCHREALTIME
  shift 2
  wanted "$key" || return 0
  printf '\n=== %s: %s\n' "$name" "$*"
  if "$@"; then
    summary+=("PASS  $name  ($(since "$start") s)")
    passed=$((passed + 1))
  else
    summary+=("FAIL  $name  ($(since "$start") s)")
    failed=$((failed + 1))
  fi
}

# A build step; the layers that need it run only if it was built (BUILT).
BUILT=" "
build_step() { # name command...
  local name=$1
  shift
  if step "build: $name" "$@"; then BUILT+="$name "; else echo "build of $name failed" >&2; fi
}
built() { [[ "$BUILT" == *" $1 "* ]]; }

trap stop_all_servers EXIT

# ---- builds ----------------------------------------------------------------------------------

# Every test binary of the workspace (edgesite-bench has none: its benches are `make bench`'s),
# listed in $BINS as: name, package folder, executable (crates/xtask reads cargo's messages).
host_build() {
  cargo test -q --workspace --exclude edgesite-bench --no-run \
    --message-format=json-render-diagnostics >"$LOGS/host-build.json" &&
    cargo xtask test-binaries "$LOGS/host-build.json" >"$BINS"
}

# The binaries the layers run, copied: the site layer rebuilds target/debug/edgesite-native.
# (`cargo test` builds every package's examples: serve_site, and sitegen's delta tool.)
server_binaries() {
  mkdir -p target/test-bin &&
    cp target/debug/edgesite-native target/debug/examples/serve_site target/debug/examples/delta \
      target/test-bin/
}

# ---- running test binaries -------------------------------------------------------------------

# Runs the test binaries named (the root package's integration tests: http, conditional, ...)
# from the package folder, with ARGS after `--`.
run_tests() { # name... [-- args...]
  local names=() args=() name dir exe rc=0
  while [ $# -gt 0 ] && [ "$1" != -- ]; do names+=("$1"); shift; done
  [ $# -gt 0 ] && shift && args=("$@")
  for name in "${names[@]}"; do
    IFS=$'\t' read -r _ dir exe < <(awk -F'\t' -v n="$name" -v d="$ROOT" '$1 == n && $2 == d' "$BINS")
    [ -n "${exe:-}" ] || { echo "no test binary $name in $BINS" >&2; return 1; }
    (cd "$dir" && CARGO_MANIFEST_DIR="$dir" "$exe" -q "${args[@]}") || rc=1
  done
  return $rc
}

# Every test binary of the workspace (its output in $LOGS/host/), then the doctests.
host_tests() {
  local name dir exe log n=0 rc=0
  mkdir -p "$LOGS/host"
  while IFS=$'\t' read -r name dir exe; do
    n=$((n + 1))
    log="$LOGS/host/$n-$name.log"
    if (cd "$dir" && CARGO_MANIFEST_DIR="$dir" "$exe" -q >"$log" 2>&1); then
      echo "ok: $name ($(grep -o '[0-9]* passed; [0-9]* failed; [0-9]* ignored' "$log" | tail -1))"
    else
      echo "FAILED: $name ($exe), $log:" >&2
      tail -n 40 "$log" >&2
      rc=1
    fi
  done <"$BINS"
  step "doctests" cargo test -q --workspace --exclude edgesite-bench --doc || rc=1
  return $rc
}

# The HTTP suites in tests/ that run against every runtime.
HTTP_SUITES=(http conditional negotiation ranges paths redirects malformed deltas images shared_caches)

suites_against() { # runtime port suite... [-- args]
  local runtime=$1 port=$2
  shift 2
  EDGESITE_BASE_URL="http://127.0.0.1:$port" EDGESITE_RUNTIME=$runtime run_tests "$@"
}

# ---- servers shared by layers ----------------------------------------------------------------

NATIVE_PORT=$(free_port)
WORKERD_PORTS=("$(free_port)" "$(free_port)" "$(free_port)" "$(free_port)")

native_server() {
  [ -n "${SERVERS[native]:-}" ] ||
    step "start: edgesite-native" start_server native 30 "$NATIVE_PORT" \
      target/test-bin/edgesite-native --listen "127.0.0.1:$NATIVE_PORT"
}

# One workerd process: the demo's deploy bundle, the configured, compact and stored Workers.
workerd_server() {
  [ -n "${SERVERS[workerd]:-}" ] && return 0
  local capnp
  capnp=$(scripts/workerd.sh config "${WORKERD_PORTS[0]}" demo \
    "${WORKERD_PORTS[1]}" tests/fixtures/configured.toml \
    "${WORKERD_PORTS[2]}" tests/fixtures/compact.toml \
    "${WORKERD_PORTS[3]}" tests/fixtures/stored.toml) &&
    step "start: workerd (4 Workers)" start_server workerd 60 "${WORKERD_PORTS[0]}" workerd serve "$capnp" &&
    wait_http "${WORKERD_PORTS[1]}" 30 && wait_http "${WORKERD_PORTS[2]}" 30 &&
    wait_http "${WORKERD_PORTS[3]}" 30
}

# ---- layers ----------------------------------------------------------------------------------

e2e_native() {
  native_server && suites_against native "$NATIVE_PORT" "${HTTP_SUITES[@]}"
}

e2e_workerd() {
  local rc=0
  workerd_server || return 1
  suites_against workerd "${WORKERD_PORTS[0]}" "${HTTP_SUITES[@]}" || rc=1
  suites_against workerd "${WORKERD_PORTS[1]}" configured || rc=1
  suites_against workerd "${WORKERD_PORTS[2]}" compact || rc=1
  suites_against workerd "${WORKERD_PORTS[3]}" stored || rc=1
  local stored
  stored=$(scripts/workerd.sh build-dir tests/fixtures/stored.toml)
  EDGESITE_STORE_DIR="$stored/assets" EDGESITE_R2_DIR="$stored/r2" \
    suites_against workerd "${WORKERD_PORTS[3]}" stored_failures || rc=1
  step "workerd: the entry's fresh instance after a trap answers (tests/fixtures/reinstantiate.mjs)" \
    node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON tests/fixtures/reinstantiate.mjs \
    "$(scripts/workerd.sh build-dir tests/fixtures/configured.toml)" || rc=1
  return $rc
}

e2e_wrangler_dev() {
  local port
  port=$(free_port)
  step "start: wrangler dev" start_server wrangler-dev 900 "$port" \
    wrangler dev --ip 127.0.0.1 --port "$port" --var EDGESITE_LOG:1 &&
    suites_against wrangler-dev "$port" "${HTTP_SUITES[@]}" &&
    # EDGESITE_LOG: the Worker's own request log line (method path status coding bytes).
    grep -Eq 'edgesite: GET /about 200 [a-z]+ [0-9]+' "$LOGS/wrangler-dev.log" ||
    { echo "no request log line from the Worker in $LOGS/wrangler-dev.log" >&2; false; }
  local rc=$?
  stop_server wrangler-dev
  e2e_wrangler_dev_stored || rc=1
  return $rc
}

# The Worker built with tests/fixtures/stored.toml under wrangler dev: its store in wrangler's
# local Static Assets and local R2 (a generated config: the built bundle, no build; the R2
# objects put in a fresh local state first).
e2e_wrangler_dev_stored() {
  local port toml bundle store state rc=0
  needs "worker (stored)" || return 1
  port=$(free_port)
  toml=$(scripts/workerd.sh wrangler-toml tests/fixtures/stored.toml) || return 1
  bundle=$(scripts/workerd.sh build-dir tests/fixtures/stored.toml)
  store="$bundle/assets"
  state="$(dirname "$toml")/wrangler-state"
  rm -rf "$state"
  step "r2: put the stored fixture's objects" node scripts/r2-put.mjs --bucket edgesite-test \
    --from "$bundle/r2" --local "$state" || return 1
  step "start: wrangler dev (stored)" start_server wrangler-dev-stored 120 "$port" \
    wrangler dev -c "$toml" --persist-to "$state" --ip 127.0.0.1 --port "$port" || return 1
  suites_against wrangler-dev "$port" stored || rc=1
  EDGESITE_STORE_DIR="$store" suites_against wrangler-dev "$port" stored_failures || rc=1
  stop_server wrangler-dev-stored
  return $rc
}

# The example Worker (library mode) under wrangler dev, from its own folder and wrangler.toml.
e2e_example() {
  local port
  port=$(free_port)
  step "start: wrangler dev (example)" start_server example 900 "$port" \
    bash -c "cd examples/api-worker && exec wrangler dev --ip 127.0.0.1 --port $port" &&
    suites_against wrangler-dev "$port" example_api -- --ignored
  local rc=$?
  stop_server example
  return $rc
}

# ---- 7. EDGESITE_SITE and rebuild tracking ---------------------------------------------------
# tests/site_layer.rs: real cargo builds of the native twin in the one target folder, one at a
# time, each served by the binary it built (docs/testing.md); then the demo built again, so the
# next `make test` finds its build as it left it.
site_layer() {
  local rc=0
  run_tests site_layer -- --ignored --test-threads=1 --nocapture || rc=1
  step "cargo build (the demo again)" cargo build -q --workspace --exclude edgesite-bench \
    --bins --examples || rc=1
  return $rc
}

# A folder compiled when the server starts and served from memory (examples/serve_site).
serve_folder() { # port serve_site-args...
  local port=$1
  shift
  step "start: serve_site $*" start_server serve-site 120 "$port" \
    target/test-bin/serve_site --listen "127.0.0.1:$port" "$@"
}

repeat_views() {
  local port site rc=0
  site=$(mktemp -d)
  port=$(free_port)
  # Page A, page B, page A again, and B, A, B: the second view must make exactly one request
  # (its document's 304), on the demo (the native and workerd layers' servers) and on a generated
  # docs-style site whose generator does not fingerprint (pages of 20 KB: their last images are
  # far enough down to be made lazy); one Chromium session for all of them.
  { native_server && workerd_server &&
    python3 bench/gensite.py "$site" --pages 24 --page-kb 20 --images 6 --image-kb 4 --style docs &&
    serve_folder "$port" --site "$site" &&
    step "views: repeat views (demo on native and workerd, generated docs site)" \
      python3 tests/browser/repeat_views.py --both-ways --expect-requests 1 \
      "http://127.0.0.1:$NATIVE_PORT" /about /guide/ \
      "http://127.0.0.1:${WORKERD_PORTS[0]}" /about /guide/ \
      "http://127.0.0.1:$port" /docs/page-0001 /docs/page-0002 \
      "http://127.0.0.1:$port" / /docs/page-0003; } || rc=1
  # Speculation Rules (issue 23): every URL the rules name is a page; hovering a link
  # prefetches it, and the click is served from the prefetch.
  step "views: speculation_in_browser.py (demo on native and workerd, generated docs site)" \
    python3 tests/browser/speculation_in_browser.py "http://127.0.0.1:$NATIVE_PORT" / /about \
    "http://127.0.0.1:${WORKERD_PORTS[0]}" /about /guide/ \
    "http://127.0.0.1:$port" /docs/page-0001 - "http://127.0.0.1:$port" / - || rc=1
  # The first view (issue 34): what the docs-style site's stylesheets fetch late (an import, a
  # font, the body's background) is named in each page's first response, and Chromium requests
  # every hinted URL once and uses it.
  # The demo's /photos names its likely LCP image (`[links] prioritize_images`), negotiated by
  # Accept: the preload's request must be the one the `<img>` takes, on native and workerd.
  step "views: preloads_in_browser.py (generated docs site, the demo's photos)" \
    python3 tests/browser/preloads_in_browser.py "http://127.0.0.1:$port" /docs/page-0001 \
    "http://127.0.0.1:$port" / "http://127.0.0.1:$NATIVE_PORT" /photos \
    "http://127.0.0.1:${WORKERD_PORTS[0]}" /photos || rc=1
  # Nothing a visitor sees changes (issue 34): the same site with the first view's work off
  # (lib.sh's first_view_off: no preload hints, stylesheets inline, images sized or
  # prioritised, nothing minified) and on, pixel-identical screenshots at two viewports, the
  # same text and console: the docs-style site (its hints, its images sized and made lazy, its
  # files minified) and the demo (its stylesheets inline and minified, its photo prioritised).
  # bench/corpus.sh runs the same check over real sites.
  local off_port on_port off_config demo_off
  off_port=$(free_port)
  off_config=$(mktemp)
  demo_off=$(mktemp)
  first_view_off >"$off_config"
  { step "start: serve_site (the docs site, first view work off)" start_server serve-site-off \
      120 "$off_port" target/test-bin/serve_site --listen "127.0.0.1:$off_port" --site "$site" \
      --config "$off_config" &&
    step "views: same_view.py (generated docs site, off and on)" \
      python3 tests/browser/same_view.py --save target/same-view "http://127.0.0.1:$off_port" \
      "http://127.0.0.1:$port" /docs/page-0001 /; } || rc=1
  stop_server serve-site-off
  stop_server serve-site
  off_port=$(free_port)
  on_port=$(free_port)
  { first_view_off edgesite.toml >"$demo_off" &&
    step "start: serve_site (the demo, first view work off)" start_server serve-site-off 120 \
      "$off_port" target/test-bin/serve_site --listen "127.0.0.1:$off_port" --site public \
      --config "$demo_off" &&
    step "start: serve_site (the demo)" start_server serve-site 120 "$on_port" \
      target/test-bin/serve_site --listen "127.0.0.1:$on_port" --site public \
      --config edgesite.toml &&
    step "views: same_view.py (the demo, off and on)" \
      python3 tests/browser/same_view.py --save target/same-view "http://127.0.0.1:$off_port" \
      "http://127.0.0.1:$on_port" / /about /photos /guide/ /nope /guide/deeper/nope; } || rc=1
  stop_server serve-site-off
  stop_server serve-site
  rm -f "$off_config" "$demo_off"
  # Image variants (issue 22): the demo's /photos page arrives as AVIF and WebP, rendered at the
  # published size, with at least 30% fewer image bytes than with `Accept: */*`.
  step "views: images_in_browser.py (demo on native and workerd)" \
    python3 tests/browser/images_in_browser.py "http://127.0.0.1:$NATIVE_PORT" \
    "http://127.0.0.1:${WORKERD_PORTS[0]}" || rc=1
  # The site-wide HTML dictionary on the same site (RFC 9842 §3.2): page B arrives as a delta.
  step "views: html_dictionary.py" python3 tests/browser/html_dictionary.py "$site" "$(free_port)" \
    /docs/page-0001 /docs/page-0002 || rc=1
  rm -rf "$site"
  # RFC 9842: Chromium decodes the dcz and dcb streams sitegen builds (each served alone by the
  # script's loopback server), and two deploys served by the native twin: the second's script
  # arrives as a delta against the first's, and runs.
  step "views: dictionary_transport.py" python3 tests/browser/dictionary_transport.py target/test-bin/delta || rc=1
  step "views: deltas_in_browser.py" python3 tests/browser/deltas_in_browser.py "$(free_port)" || rc=1
  # report.html (issue 24): `make report` names it; Chromium opens it from file://.
  step "views: make report, report_in_browser.py" \
    bash -c 'path=$(make -s report | tail -n 1) && python3 tests/browser/report_in_browser.py "$(dirname "$path")"' || rc=1
  return $rc
}

# ---- the run ---------------------------------------------------------------------------------

wants_hosts() { wanted host || wanted native || wanted workerd || wanted wrangler || wanted example || wanted site || wanted views; }
if wants_hosts; then
  build_step "host" host_build
  built host && build_step "server binaries" server_binaries
fi
if wanted workerd || wanted views; then
  build_step "worker (deploy bundle)" scripts/workerd.sh build
  build_step "worker (configured)" scripts/workerd.sh build tests/fixtures/configured.toml
  build_step "worker (compact)" scripts/workerd.sh build tests/fixtures/compact.toml
fi
if wanted workerd || wanted wrangler || wanted views; then
  build_step "worker (stored)" scripts/workerd.sh build tests/fixtures/stored.toml
fi
# The example's build shares the deploy bundle's host crates (Cargo.toml's build-dependencies):
# after that build, it must not compile sitegen and its codecs again (minutes of a cold run).
example_build() {
  local before rc=0
  before=$(mktemp)
  scripts/build-worker.sh --package edgesite-example-api-worker \
    --entry examples/api-worker/entry.js examples/api-worker/build || rc=1
  if [ $rc = 0 ] && built "worker (deploy bundle)" &&
    find "${CARGO_TARGET_DIR:-target}/worker/deps" -name 'libedgesite_sitegen-*.rlib' -newer "$before" | grep -q .; then
    echo "the example's build compiled sitegen again: its host crates' features differ from the" \
      "deploy bundle's (cargo tree -e features -i syn --target wasm32-unknown-unknown)" >&2
    rc=1
  fi
  rm -f "$before"
  return $rc
}
if wanted example; then
  build_step "worker (example)" example_build
fi

needs() { # build... : fails (the layer) if one of them failed
  local b
  for b in "$@"; do built "$b" || { echo "not run: $b was not built" >&2; return 1; }; done
}

# Runs LANE functions side by side, each its layers in turn, with its output in
# $LOGS/lane-LANE.log (printed when all are done) and its results merged into this shell's.
side_by_side() { # lane...
  local lane kind line pids=()
  printf '\n=== side by side: %s (each printed when all are done)\n' "$*"
  for lane in "$@"; do
    (
      summary=() STEP_TIMES=() passed=0 failed=0
      local shared=" ${!SERVERS[*]} " name
      "$lane" >"$LOGS/lane-$lane.log" 2>&1
      { printf 'S\t%s\n' "${summary[@]}"; printf 'T\t%s\n' "${STEP_TIMES[@]}"; } >"$LOGS/lane-$lane.results"
      # Only what this lane started: the shared servers are this shell's.
      for name in "${!SERVERS[@]}"; do [[ "$shared" == *" $name "* ]] || stop_server "$name"; done
    ) &
    pids+=($!)
  done
  wait "${pids[@]}"
  for lane in "$@"; do
    cat "$LOGS/lane-$lane.log"
    while IFS=$'\t' read -r kind line; do
      case "$kind" in
        S) [ -n "$line" ] && summary+=("$line") && if [[ "$line" == PASS* ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi ;;
        T) [ -n "$line" ] && STEP_TIMES+=("$line") ;;
      esac
    done <"$LOGS/lane-$lane.results"
  done
}

# What runs side by side: the browser layer (a wasm32 compile, then Chromium), and the HTTP
# suites against the servers (mostly waiting on them) followed by the site layer (cargo builds and
# small servers). Each has its own ports and logs; cargo serialises their builds on the target
# folder's lock. The site layer comes after the suites: its builds rewrite the served copy of
# the site (EDGESITE_SERVED_DIR) the suites compare bodies with.
lane_browser() {
  layer browser "browser (wasm-pack test --headless --chrome)" browser_tests
}

# What wasm-pack builds (every test target, for wasm32), timed on its own line, then its run.
browser_tests() {
  step "cargo build --tests --target wasm32-unknown-unknown" \
    cargo build -q --tests --target wasm32-unknown-unknown &&
    wasm-pack test --headless --chrome -- --test worker_in_browser
}
lane_servers_then_site() {
  layer native "e2e: edgesite-native binary" eval 'needs host "server binaries" && e2e_native'
  layer workerd "e2e: four Workers under one bare workerd serve" \
    eval 'needs host "worker (deploy bundle)" "worker (configured)" "worker (compact)" "worker (stored)" && e2e_workerd'
  layer wrangler "e2e: Worker under wrangler dev" eval 'needs host && e2e_wrangler_dev'
  layer example "e2e: example Worker (API + site) under wrangler dev" eval 'needs host "worker (example)" && e2e_example'
  layer site "site: EDGESITE_SITE and rebuild tracking" eval 'needs host "server binaries" && site_layer'
}

# The host layer first: its limits tests run target/debug/edgesite-native, which the site layer
# rebuilds. The native and workerd servers are started once, for their layers and the views
# layer. The views layer last, alone: Chromium's timing wants the CPU to itself.
layer host "host (test binaries, doctests)" eval 'needs host && host_tests'
if built "server binaries" && { wanted native || wanted views; }; then native_server; fi
if built "worker (stored)" && { wanted workerd || wanted views; }; then workerd_server; fi
side_by_side lane_browser lane_servers_then_site
layer views "views: repeat views in headless Chromium (DevTools network log)" \
  eval 'needs host "server binaries" "worker (deploy bundle)" && repeat_views'

printf '\n=== make test: the time of each step\n'
print_steps
printf '\n=== make test summary\n'
printf '%s\n' "${summary[@]}"
echo "layers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
