#!/usr/bin/env bash
# `make views`: what the build's link pass buys and costs, measured.
#   1. requests a repeat view makes in headless Chromium (tests/browser/repeat_views.py: page A,
#      page B, page A again; the DevTools network log), with fingerprints (the default) and
#      without ([fingerprint] mode = "off": every subresource revalidated), on the demo site and
#      on a generated docs-style site (bench/gensite.py --style docs, PAGES pages, default 200)
#      whose generator does not fingerprint, each served by the native twin;
#   2. sitegen's time on that generated site (crates/sitegen/examples/compile.rs, built with the
#      sitegen-bench profile: opt-level 3 without LTO, as build.rs runs sitegen): a
#      cold build (empty encoding cache), the link pass's share of it, a rebuild, and a rebuild
#      after one page is edited.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cd "$ROOT"
PAGES=${PAGES:-200}
WORK="$ROOT/target/views"
SITE="$WORK/site"
OFF=tests/fixtures/fingerprint-off.toml
trap stop_all_servers EXIT
rm -rf "$SITE" && mkdir -p "$WORK"
python3 bench/gensite.py "$SITE" --pages "$PAGES" --page-kb 20 --images 20 --image-kb 20 --style docs

# Repeat views of page A (then B) on SITE built with CONFIG ("" = the defaults).
views() { # label site config page-a page-b
  local port target="$ROOT/target/views-${1%% *}"
  port=$(free_port)
  EDGESITE_SITE=$2 EDGESITE_CONFIG=${3:-edgesite.toml} cargo build -q -p edgesite-native --target-dir "$target" 2>/dev/null
  start_server views 60 "$port" "$target/debug/edgesite-native" --listen "127.0.0.1:$port"
  for pair in "$4 $5" "$5 $4"; do
    # shellcheck disable=SC2086
    printf '%-40s %s\n' "$1" "$(python3 tests/browser/repeat_views.py "http://127.0.0.1:$port" $pair)"
  done
  stop_server views
}
echo "== repeat views (network requests of the second view of a page; the first is the document)"
views "on  demo" public "" /about /guide/
views "off demo" public "$OFF" /about /guide/
views "on  generated" "$SITE" "" /docs/page-0001 /docs/page-0002
views "off generated" "$SITE" "$OFF" /docs/page-0001 /docs/page-0002

echo "== sitegen time on the generated site ($PAGES pages; sitegen at build.rs's opt-level)"
cargo build -q --profile sitegen-bench -p edgesite-sitegen --example compile
compile_site() { target/sitegen-bench/examples/compile "$SITE" "" "$WORK/cache" 2>/dev/null; }
rm -rf "$WORK/cache"
echo "cold build (empty cache):  $(compile_site)"
for _ in 1 2 3; do echo "rebuild (nothing changed): $(compile_site)"; done
for _ in 1 2 3; do
  printf '<p>edited at %s</p>\n' "$(date +%s%N)" >>"$SITE/docs/page-0100.html"
  echo "one page edited:           $(compile_site)"
done
