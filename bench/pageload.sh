#!/usr/bin/env bash
# `make pageload`: what a visitor waits for (issue 23), measured in headless Chromium
# (bench/pageload.py: first view, repeat view, and a hover-then-click navigation, each with LCP,
# load, requests and bytes, on DevTools' Slow 4G and Fast 4G presets and unthrottled; medians
# of RUNS runs, default 3). Two sites: a generated docs-style site (bench/gensite.py --style
# docs, PAGES pages, default 200) and the demo (public/, copied as a deploy writes it: its
# files' modification times are the deploy's, which nginx's Last-Modified carries and a
# browser's heuristic freshness, RFC 9111 §4.2.2, is computed from); pages: the docs site's
# /docs/page-0001, the demo's /about and /photos (whose LCP is a photo). Each served, side by
# side in one run:
#   edgesite           edgesite-native (examples/serve_site, release build: the site compiled
#                      when it starts, as a build would compile it)
#   edgesite-off       the same with the first view's work off (bench/lib.sh's
#                      first_view_off: no preload hints, stylesheets inline, images sized or
#                      prioritised, nothing minified: what it buys)
#   edgesite-nospec    the same with `[links] speculation = "off"` (what the rules buy)
#   edgesite-prerender the same with `[links] speculation = "prerender"` (opt-in)
#   nginx              nginx 1.22 (Debian) with a common production configuration: gzip on for
#                      text types, its default caching (ETag and Last-Modified, no
#                      Cache-Control), `try_files $uri $uri.html $uri/` for clean URLs
#   js-worker          the JS in-memory Worker under bare workerd (bench/workers/generate.mjs:
#                      brotli, strong ETags, no Cache-Control)
# Then Lighthouse's performance score for the first view of each (the median of LH_RUNS runs,
# default 3), with its audits of issue 34
# (bench/lighthouse_audits.py; LIGHTHOUSE=0 skips it).
# Figures: docs/benchmarks.md ("Page loads").
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cd "$ROOT"
PAGES=${PAGES:-200}
RUNS=${RUNS:-3}
PRESETS=${PRESETS:-slow-4g,fast-4g,none}
LIGHTHOUSE=${LIGHTHOUSE:-1}
WORK="$ROOT/target/pageload"
trap 'stop_all_servers; [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null; true' EXIT
rm -rf "$WORK" && mkdir -p "$WORK"

cargo build -q --release -p edgesite-native --example serve_site
python3 bench/gensite.py "$WORK/docs" --pages "$PAGES" --page-kb 20 --images 40 --image-kb 20 \
  --style docs >/dev/null
printf '[links]\nspeculation = "off"\n' >"$WORK/nospec.toml"
printf '[links]\nspeculation = "prerender"\n' >"$WORK/prerender.toml"
# The first view's work off (issue 34, bench/lib.sh's first_view_off); the rest of
# edgesite.toml as it is.
first_view_off edgesite.toml >"$WORK/off.toml"

# The servers of one site, started; LAST_SERVERS: their NAME=BASE_URL words for pageload.py.
NGINX_SITES=""
serve() { # name site-dir
  local name=$1 dir=$2 p1 p2 p3 p4 p5 p6
  p1=$(free_port) && p2=$((p1 + 1)) && p3=$((p1 + 2)) && p4=$((p1 + 3)) && p5=$((p1 + 4))
  p6=$((p1 + 5))
  start_server "$name-edgesite" 120 "$p1" target/release/examples/serve_site \
    --listen "127.0.0.1:$p1" --site "$dir" >/dev/null
  start_server "$name-nospec" 120 "$p2" target/release/examples/serve_site \
    --listen "127.0.0.1:$p2" --site "$dir" --config "$WORK/nospec.toml" >/dev/null
  start_server "$name-prerender" 120 "$p5" target/release/examples/serve_site \
    --listen "127.0.0.1:$p5" --site "$dir" --config "$WORK/prerender.toml" >/dev/null
  start_server "$name-off" 120 "$p6" target/release/examples/serve_site \
    --listen "127.0.0.1:$p6" --site "$dir" --config "$WORK/off.toml" >/dev/null
  mkdir -p "$WORK/$name-js"
  node bench/workers/generate.mjs inmemory "$dir" "$WORK/$name-js/worker.mjs"
  workerd_config "$WORK/$name-js/worker.capnp" "$p4" "$WORK/$name-js" worker.mjs
  start_server "$name-js" 60 "$p4" workerd serve "$WORK/$name-js/worker.capnp" >/dev/null
  NGINX_SITES="$NGINX_SITES $p3 $dir"
  LAST_SERVERS="edgesite=http://127.0.0.1:$p1 edgesite-off=http://127.0.0.1:$p6 edgesite-nospec=http://127.0.0.1:$p2 nginx=http://127.0.0.1:$p3 js-worker=http://127.0.0.1:$p4 edgesite-prerender=http://127.0.0.1:$p5"
}

serve docs "$WORK/docs"
DOCS_SERVERS=$LAST_SERVERS
cp -r "$ROOT/public" "$WORK/demo"
serve demo "$WORK/demo"
DEMO_SERVERS=$LAST_SERVERS
# nginx for every site at once: one server block per port.
# shellcheck disable=SC2086
start_nginx "$WORK" $NGINX_SITES

echo "== page loads: $RUNS runs per server, presets $PRESETS, $(date -u +%F), $(nproc) cores"
# shellcheck disable=SC2086
python3 bench/pageload.py --runs "$RUNS" --presets "$PRESETS" --json "$WORK/pageload.json" \
  docs /docs/page-0001 $DOCS_SERVERS :: demo /about $DEMO_SERVERS :: photos /photos $DEMO_SERVERS

if [ "$LIGHTHOUSE" = 1 ]; then
  echo "== Lighthouse, first view (mobile preset, simulated Slow 4G): score, LCP ms | audits"
  for pair in "docs /docs/page-0001 $DOCS_SERVERS" "demo /about $DEMO_SERVERS" \
    "photos /photos $DEMO_SERVERS"; do
    # shellcheck disable=SC2086
    set -- $pair
    site=$1 page=$2
    shift 2
    for server in "$@"; do
      name=${server%%=*} base=${server#*=}
      printf '%-6s %-18s %s\n' "$site" "$name" "$(lighthouse_audits "$base$page")"
    done
  done
fi
