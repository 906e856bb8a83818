#!/usr/bin/env bash
# `make devloop`: the dev loop's rebuild time. Starts `wrangler dev` (as `make dev` does), edits
# one file of the demo site (a marker appended to public/about.html), and times how long until
# the Worker serves the new bytes; then restores the file (and waits for that rebuild too).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
cd "$ROOT"
PORT=${PORT:-18791}
LOG="$ROOT/target/devloop.log"
FILE=public/about.html
cp "$FILE" "$ROOT/target/devloop-about.html"
setsid wrangler dev --ip 127.0.0.1 --port "$PORT" >"$LOG" 2>&1 &
pgid=$!
restore() { cp "$ROOT/target/devloop-about.html" "$FILE"; kill -TERM -- "-$pgid" 2>/dev/null || true; }
trap restore EXIT
for _ in $(seq 1 900); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 1; done
# Seconds until /about contains $1.
wait_for() {
  local start=$SECONDS started
  started=$(date +%s.%N)
  for _ in $(seq 1 3000); do
    if curl -s "http://127.0.0.1:$PORT/about" | grep -q "$1"; then
      awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
      return 0
    fi
    sleep 0.2
  done
  echo "timeout after $((SECONDS - start)) s" >&2
  return 1
}
marker="devloop-$(date +%s)"
printf '<!-- %s -->\n' "$marker" >>"$FILE"
edit=$(wait_for "$marker")
cp "$ROOT/target/devloop-about.html" "$FILE"
echo "edit of $FILE served after $edit s (wrangler dev rebuild: build.rs recompiles the site, 1 file re-encoded, the rest from the cache; then the release wasm)"
