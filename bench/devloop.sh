#!/usr/bin/env bash
# `make devloop`: the dev loop's rebuild time, as `make dev` runs it on a site outside public/.
# Generates a documentation-style site of PAGES pages (default 400; bench/gensite.py) in
# target/devloop/site, starts `wrangler dev` with the config `make dev` writes for a site there
# (bench/lib.sh, dev_config: it watches the site's folder), edits one page (a marker appended
# to docs/page-0007.html), and times how long until the Worker serves the new bytes. The
# tracked public/ is never touched.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cd "$ROOT"
PORT=${PORT:-18791}
PAGES=${PAGES:-400}
WORK="$ROOT/target/devloop"
rm -rf "$WORK/site" && mkdir -p "$WORK"
python3 bench/gensite.py "$WORK/site" --pages "$PAGES" --page-kb 8 --images 0 --style docs >/dev/null
PAGE=/docs/page-0007
FILE="$WORK/site$PAGE.html"
trap stop_all_servers EXIT
dev_config "$WORK/wrangler.toml" "$WORK/site"
started=$(date +%s.%N)
# As scripts/dev.sh: what the encoding cache does not hold is made at quick settings
# (ENCODINGS=configured to measure the loop at the configured ones).
export EDGESITE_ENCODINGS=${ENCODINGS:-quick}
EDGESITE_SITE="$WORK/site" start_server devloop 900 "$PORT" \
  wrangler dev -c "$WORK/wrangler.toml" --ip 127.0.0.1 --port "$PORT" --var EDGESITE_LOG:1
echo "first start (the whole site compiled): $(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
# Seconds until the edited page contains $1.
wait_for() {
  local started
  started=$(date +%s.%N)
  for _ in $(seq 1 3000); do
    if curl -s "http://127.0.0.1:$PORT$PAGE" | grep -q "$1"; then
      awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
      return 0
    fi
    sleep 0.2
  done
  echo "timeout: $PAGE never served $1" >&2
  return 1
}
marker="devloop-$(date +%s)"
printf '<!-- %s -->\n' "$marker" >>"$FILE"
edit=$(wait_for "$marker")
echo "edit of $PAGE ($PAGES-page site outside public/) served after $edit s (EDGESITE_ENCODINGS=$EDGESITE_ENCODINGS; wrangler dev rebuild: build.rs recompiles the site, the page, its twin and /llms-full.txt re-encoded, the rest from the cache; then the Worker's module)"
