#!/usr/bin/env bash
# `make devloop`: the dev loop's rebuild time. Copies the demo site to target/devloop/site,
# starts `wrangler dev` on that copy (EDGESITE_SITE, as `make dev` would serve it), edits one
# file of the copy (a marker appended to about.html), and times how long until the Worker serves
# the new bytes. The tracked public/ is never touched.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"
cd "$ROOT"
PORT=${PORT:-18791}
WORK="$ROOT/target/devloop"
rm -rf "$WORK/site" && mkdir -p "$WORK" && cp -r public "$WORK/site"
FILE="$WORK/site/about.html"
trap stop_all_servers EXIT
# wrangler dev rebuilds when a file under its watch_dir changes: a config of its own that
# watches the copy (its paths are relative to it; the build runs at the root).
cat >"$WORK/wrangler.toml" <<TOML
name = "edgesite-devloop"
main = "../../build/worker.mjs"
compatibility_date = "$(compat_date)"

[build]
cwd = "$ROOT"
command = "$ROOT/scripts/build-worker.sh"
watch_dir = ["site", "../../src", "../../crates"]

[[rules]]
type = "Data"
globs = ["**/*.bin"]
fallthrough = true
TOML
EDGESITE_SITE="$WORK/site" start_server devloop 900 "$PORT" \
  wrangler dev -c "$WORK/wrangler.toml" --ip 127.0.0.1 --port "$PORT" --var EDGESITE_LOG:1
# Seconds until /about contains $1.
wait_for() {
  local started
  started=$(date +%s.%N)
  for _ in $(seq 1 3000); do
    if curl -s "http://127.0.0.1:$PORT/about" | grep -q "$1"; then
      awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
      return 0
    fi
    sleep 0.2
  done
  echo "timeout: /about never served $1" >&2
  return 1
}
marker="devloop-$(date +%s)"
printf '<!-- %s -->\n' "$marker" >>"$FILE"
edit=$(wait_for "$marker")
echo "edit of about.html (a copy of the demo site) served after $edit s (wrangler dev rebuild: build.rs recompiles the site, 1 file re-encoded, the rest from the cache; then the Worker's module)"
