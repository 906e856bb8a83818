#!/usr/bin/env bash
# `make test`: every test layer, in order; runs them all, prints a summary, fails if any failed.
#   1. host        cargo test --workspace: core unit + property tests, sitegen tests, native limits
#                  and library mode, the fuzz corpus replay, and the HTTP suites
#                  (tests/{http,conditional,negotiation,ranges,paths,redirects,malformed}.rs)
#                  against an in-process edgesite-native over loopback
#   2. browser     wasm-pack test --headless --chrome: the Worker's fetch path in Chromium
#   3. native      the HTTP suites against the edgesite-native binary
#   4. workerd     the HTTP suites against the Worker under bare `workerd serve`, the
#                  configured-site suite against a second Worker built with tests/fixtures/configured.toml,
#                  and the compact-storage suite against a third built with tests/fixtures/compact.toml
#   5. wrangler    the HTTP suites against the Worker under `wrangler dev`, and its request log
#   6. example     examples/api-worker (an API route beside an embedded site) under wrangler dev
#   7. site        EDGESITE_SITE serves another folder (absolute or relative); adding, changing and
#                  deleting a file rebuilds; the configured-site suite against the native twin built with
#                  tests/fixtures/configured.toml; 10,000 _headers and 20,000 _redirects rules serve;
#                  a missing folder, an unknown config key and a field value with a line break fail
#                  the build naming them
#   8. views       repeat views in headless Chromium (tests/browser/repeat_views.py, chromedriver and
#                  the DevTools network log): a page viewed again makes one request, its document
#                  answered 304, on the demo site (native twin and the Worker under bare workerd) and
#                  on a generated docs-style site whose generator does not fingerprint; and RFC
#                  9842 deltas: Chromium decodes sitegen's dcz and dcb streams
#                  (dictionary_transport.py), and a second deploy's script reaches it as a delta
#                  against the first's (deltas_in_browser.py, the native twin); with the
#                  site-wide HTML dictionary on, a second page arrives as a delta of it
#                  (html_dictionary.py)
# The suites check the demo site, so EDGESITE_SITE is ignored here.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
LOGS="$ROOT/target/test-logs"
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"
cd "$ROOT"
unset EDGESITE_SITE
summary=()
failed=0
passed=0

# LAYERS="workerd site" runs only those layers (keys: host browser native workerd wrangler
# example site views); by default, all.
layer() { # key name command...
  local key=$1 name=$2 start=$SECONDS
  shift 2
  if [ -n "${LAYERS:-}" ] && [[ " $LAYERS " != *" $key "* ]]; then return 0; fi
  printf '\n=== %s: %s\n' "$name" "$*"
  if "$@"; then
    summary+=("PASS  $name  ($((SECONDS - start)) s)")
    passed=$((passed + 1))
  else
    summary+=("FAIL  $name  ($((SECONDS - start)) s)")
    failed=$((failed + 1))
  fi
}
trap stop_all_servers EXIT

# The HTTP suites in tests/ that run against every runtime.
HTTP_SUITES=(--test http --test conditional --test negotiation --test ranges --test paths --test redirects --test malformed --test deltas)

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
  stop_server native
  return $rc
}

e2e_workerd() {
  local port rc=0
  port=$(free_port)
  local capnp
  { scripts/workerd.sh build >/dev/null && capnp=$(scripts/workerd.sh config "$port") &&
    start_server workerd 60 "$port" workerd serve "$capnp" && http_suite_against workerd "$port"; } || rc=1
  stop_server workerd
  # The same Worker built with tests/fixtures/configured.toml, for the configured-site suite.
  local configured=tests/fixtures/configured.toml
  { scripts/workerd.sh build "$configured" >/dev/null && capnp=$(scripts/workerd.sh config "$port" "$configured") &&
    start_server workerd-configured 60 "$port" workerd serve "$capnp" &&
    configured_suite_against workerd "$port"; } || rc=1
  stop_server workerd-configured
  # The demo site with compact storage (identity decoded on demand), for tests/compact.rs.
  local compact=tests/fixtures/compact.toml
  { scripts/workerd.sh build "$compact" >/dev/null && capnp=$(scripts/workerd.sh config "$port" "$compact") &&
    start_server workerd-compact 60 "$port" workerd serve "$capnp" &&
    compact_suite_against workerd "$port"; } || rc=1
  stop_server workerd-compact
  return $rc
}

# The compact-storage suite (tests/compact.rs, ignored in a plain cargo test) on port $2.
compact_suite_against() { # runtime port
  EDGESITE_BASE_URL="http://127.0.0.1:$2" EDGESITE_RUNTIME=$1 cargo test -q --test compact -- --ignored
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
  stop_server wrangler-dev
  return $rc
}

# The example Worker (library mode) under wrangler dev, from its own folder and wrangler.toml.
e2e_example() {
  local port
  port=$(free_port)
  start_server example 900 "$port" bash -c "cd examples/api-worker && exec wrangler dev --ip 127.0.0.1 --port $port" &&
    EDGESITE_BASE_URL="http://127.0.0.1:$port" EDGESITE_RUNTIME=wrangler-dev cargo test -q --test example_api -- --ignored
  local rc=$?
  stop_server example
  return $rc
}

# ---- 7. EDGESITE_SITE and rebuild tracking, on the native twin (its own target dir) ----------
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
    stop_server site-override
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

# A site with 10,000 `_headers` rules, 10,000 fixed and 10,000 dynamic `_redirects` rules (no
# cap without `[compat] pages_limits`): it builds, and the rules take effect over HTTP.
many_rules() { # port
  local site="$ROOT/target/many-rules-site"
  rm -rf "$site" && mkdir -p "$site/h"
  python3 - "$site" <<'PY'
import sys
site = sys.argv[1]
for j in range(100):
    open(f"{site}/h/f{j}.txt", "w").write(f"file {j}\n")
open(f"{site}/index.html", "w").write("<p>many rules</p>\n")
with open(f"{site}/_headers", "w") as f:
    for i in range(10_000):
        f.write(f"/h/f{i % 100}.txt\n  X-Rule: {i}\n")
with open(f"{site}/_redirects", "w") as f:
    for i in range(10_000):
        f.write(f"/old/{i} /h/f{i % 100}.txt 301\n")
    for i in range(10_000):
        f.write(f"/d/{i}/:x /h/:x 302\n")
PY
  local rule42
  rule42=$(seq 42 100 9942 | paste -sd, | sed 's/,/, /g')
  build_and_serve "$site" "$1" &&
    expect "$1" /old/9999 301 &&
    [ "$(response_field location "http://127.0.0.1:$1/old/9999")" = /h/f99.txt ] &&
    expect "$1" /d/9999/f1.txt 302 &&
    [ "$(response_field location "http://127.0.0.1:$1/d/9999/f1.txt")" = /h/f1.txt ] &&
    expect "$1" /d/5000/x/y 404 &&
    expect "$1" /h/f42.txt 200 "file 42" &&
    [ "$(response_field x-rule "http://127.0.0.1:$1/h/f42.txt")" = "$rule42" ] &&
    echo "ok: 10,000 _headers rules, 10,000 fixed and 10,000 dynamic _redirects rules served"
  local rc=$?
  stop_server site-override
  return $rc
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
      stop_server site-override &&
      echo "added" >"$site/new.txt" && echo "changed" >"$site/hello.txt" &&
      build_and_serve "$site" "$port" &&
      expect "$port" /new.txt 200 added &&
      expect "$port" /hello.txt 200 changed &&
      stop_server site-override &&
      rm "$site/new.txt" &&
      build_and_serve "$site" "$port" &&
      expect "$port" /new.txt 404 &&
      stop_server site-override &&
      build_and_serve tests/fixtures/site "$port" &&
      expect "$port" /hello.txt 200 "hello from the fixture site" &&
      stop_server site-override
  } || rc=1
  stop_server site-override
  configured_site "$port" || rc=1
  stop_server site-override
  { EDGESITE_CONFIG=tests/fixtures/compact.toml cargo build -q -p edgesite-native --target-dir target/site-override &&
    start_server site-override 30 "$port" target/site-override/debug/edgesite-native --listen "127.0.0.1:$port" &&
    compact_suite_against native "$port"; } || rc=1
  stop_server site-override
  many_rules "$port" || rc=1
  expect_build_error 'the site directory /no/such/site does not exist' EDGESITE_SITE=/no/such/site || rc=1
  expect_build_error 'tests/fixtures/bad.toml:3: unknown field `cleanurls`' EDGESITE_CONFIG=tests/fixtures/bad.toml || rc=1
  expect_build_error 'tests/fixtures/bad-value.toml:4: headers.content_security_policy: the value contains' \
    EDGESITE_CONFIG=tests/fixtures/bad-value.toml || rc=1
  rm -rf "$site"
  return $rc
}

# Page A, page B, page A again: the second view of A must make exactly one request (A's 304).
views_of() { # port page-a page-b
  python3 tests/browser/repeat_views.py "http://127.0.0.1:$1" "$2" "$3" --expect-requests 1 &&
    python3 tests/browser/repeat_views.py "http://127.0.0.1:$1" "$3" "$2" --expect-requests 1
}

repeat_views() {
  local port site capnp rc=0
  port=$(free_port)
  { cargo build -q -p edgesite-native &&
    start_server views-native 30 "$port" target/debug/edgesite-native --listen "127.0.0.1:$port" &&
    views_of "$port" /about /guide/; } || rc=1
  stop_server views-native
  { scripts/workerd.sh build >/dev/null && capnp=$(scripts/workerd.sh config "$port") &&
    start_server views-workerd 60 "$port" workerd serve "$capnp" && views_of "$port" /about /guide/; } || rc=1
  stop_server views-workerd
  site=$(mktemp -d)
  { python3 bench/gensite.py "$site" --pages 24 --page-kb 8 --images 6 --image-kb 4 --style docs &&
    build_and_serve "$site" "$port" && views_of "$port" /docs/page-0001 /docs/page-0002 &&
    views_of "$port" / /docs/page-0003; } || rc=1
  stop_server site-override
  # The site-wide HTML dictionary on the same site (RFC 9842 §3.2): page B arrives as a delta.
  python3 tests/browser/html_dictionary.py "$site" "$(free_port)" /docs/page-0001 /docs/page-0002 || rc=1
  rm -rf "$site"
  # RFC 9842: Chromium decodes the dcz and dcb streams sitegen builds (each served alone by the
  # script's loopback server), and two deploys served by the native twin: the second's script
  # arrives as a delta against the first's, and runs.
  { cargo build -q -p edgesite-sitegen --example delta &&
    python3 tests/browser/dictionary_transport.py target/debug/examples/delta; } || rc=1
  python3 tests/browser/deltas_in_browser.py "$(free_port)" || rc=1
  return $rc
}

layer host "host (cargo test --workspace)" cargo test --workspace
layer browser "browser (wasm-pack test --headless --chrome)" wasm-pack test --headless --chrome -- --lib
layer native "e2e: edgesite-native binary" e2e_native
layer workerd "e2e: Worker under bare workerd serve" e2e_workerd
layer wrangler "e2e: Worker under wrangler dev" e2e_wrangler_dev
layer example "e2e: example Worker (API + site) under wrangler dev" e2e_example
layer site "site: EDGESITE_SITE and rebuild tracking" site_override
layer views "views: repeat views in headless Chromium (DevTools network log)" repeat_views

printf '\n=== make test summary\n'
printf '%s\n' "${summary[@]}"
echo "layers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
