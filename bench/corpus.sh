#!/usr/bin/env bash
# `make corpus`: the first view's work (issue 34) proven on real sites: each documentation site
# of the corpus (Debian packages, installed when missing) is served twice by the native twin
# (examples/serve_site), with the first view's work off (bench/lib.sh's first_view_off) and
# with the defaults, and tests/browser/same_view.py loads PAGES pages of
# each (default 12: the root and pages spread over the site's sorted list) at two viewports,
# requiring byte-identical screenshots, the same innerText and the same console (`--control`:
# each page is loaded from the off server twice, and a check on which those two loads disagree,
# the page's own race with a worker, a timer or an unreachable host, is counted as unstable,
# not compared); then bench/lcp_rule.py measures the likely-LCP rule (`[links]
# prioritize_images`) on the same pages against the LCP element Chromium reports. Per site: the
# pages checked, those that differed (screenshots in target/corpus/NAME-diff), those unstable,
# the bytes the optimize stage saved per kind (the build report's `optimize:` line), and the
# rule's hits, misses and lazy images (any in a first screen fails the run). Then Lighthouse's
# first view (its mobile preset, simulated Slow 4G; the median of LH_RUNS runs, default 3) of
# the first LH_PAGES pages (default 3; LIGHTHOUSE=0 skips it), edgesite beside nginx
# (bench/lib.sh's start_nginx): the score, LCP and issue 34's audits, also in
# target/corpus/lighthouse.txt.
#
#   python       Sphinx, the Python docs' own theme (python3.11-doc)
#   sphinx       Sphinx, its sphinx13 theme (sphinx-doc)
#   gitpython    Sphinx, the Read the Docs theme (python-git-doc)
#   mkdocs       MkDocs, its own theme: Bootstrap 4, jQuery, highlight.js, lunr (mkdocs-doc)
#   literatenav  MkDocs, Material for MkDocs (mkdocs-literate-nav-doc)
#
# SITES="python mkdocs" chooses. A missing package is installed with apt-get (as root, as
# this machine runs everything). A view unstable by itself (the two off loads disagree) is not
# verified, and counted apart. Figures: docs/benchmarks.md ("The corpus").
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cd "$ROOT"
PAGES=${PAGES:-12}
LIGHTHOUSE=${LIGHTHOUSE:-1}
LH_PAGES=${LH_PAGES:-3}
SITES=${SITES:-python sphinx gitpython mkdocs literatenav}
WORK="$ROOT/target/corpus"
trap 'stop_all_servers; [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null; true' EXIT
mkdir -p "$WORK"
rm -f "$WORK/lighthouse.txt"

declare -A PACKAGE=([python]=python3.11-doc [sphinx]=sphinx-doc [gitpython]=python-git-doc
  [mkdocs]=mkdocs-doc [literatenav]=mkdocs-literate-nav-doc)
declare -A HTML=([python]=/usr/share/doc/python3.11/html [sphinx]=/usr/share/doc/sphinx-doc/html
  [gitpython]=/usr/share/doc/python-git-doc/html [mkdocs]=/usr/share/doc/mkdocs/html
  [literatenav]=/usr/share/doc/mkdocs-literate-nav-doc/html)

cargo build -q --release -p edgesite-native --example serve_site
cargo build -q --release -p edgesite-sitegen --example compile
# Off: everything issue 34 adds; on: the defaults. Not the check's business, and left out so
# that a 50 MB site builds in a minute: broken links (Debian's packaging leaves some), the
# encoders' top levels (the bytes a browser decodes are the same), image variants (the image
# stage still reads each image's size).
common='[compression]\nbrotli_quality = 5\nzstd_level = 3\n[images]\nformats = []\nlossless = false\n'
printf "$common"'[links]\nbroken = "ignore"\npreload = true\n' >"$WORK/on.toml"
first_view_off "$WORK/on.toml" >"$WORK/off.toml"

summary=()
failed=0
for name in $SITES; do
  if [ ! -d "${HTML[$name]}" ]; then
    echo "[corpus] installing ${PACKAGE[$name]} (Debian)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${PACKAGE[$name]}" >/dev/null
  fi
  site="$WORK/$name"
  # A copy with Debian's links to shared JavaScript and fonts made files (a site is files).
  rm -rf "$site" && cp -rL "${HTML[$name]}" "$site"
  # The pages: the root, then PAGES-1 spread evenly over the others in sorted order.
  mapfile -t pages < <(cd "$site" && find . -name '*.html' ! -name 'index.html' -printf '/%P\n' |
    LC_ALL=C sort | awk -v n="$((PAGES - 1))" '{ p[NR] = $0 } END {
      for (i = 1; i <= n && i <= NR; i++) print p[int((i - 0.5) * NR / n) + 1] }' | uniq)
  pages=(/ "${pages[@]}")
  report=$(EDGESITE_REPORT=1 target/release/examples/compile "$site" "$WORK/on.toml" \
    "$WORK/cache-$name" 2>&1 >/dev/null | grep '^optimize:' || true)
  off=$(free_port) && on=$(free_port)
  start_server "$name-off" 300 "$off" target/release/examples/serve_site --listen "127.0.0.1:$off" \
    --site "$site" --config "$WORK/off.toml" >/dev/null
  start_server "$name-on" 300 "$on" target/release/examples/serve_site --listen "127.0.0.1:$on" \
    --site "$site" --config "$WORK/on.toml" >/dev/null
  echo "== $name: ${#pages[@]} pages, off and on"
  rm -rf "$WORK/$name-diff"
  if out=$(python3 tests/browser/same_view.py --control --save "$WORK/$name-diff" \
    "http://127.0.0.1:$off" "http://127.0.0.1:$on" "${pages[@]}" 2>&1); then
    differing=0
  else
    differing=$(grep -c 'DIFFERS' <<<"$out" || true)
    failed=1
    [ "$differing" != 0 ] || tail -n 20 <<<"$out"
  fi
  grep -E 'DIFFERS|FAIL|UNSTABLE' <<<"$out" || true
  unstable=$(grep -c 'UNSTABLE' <<<"$out" || true)
  # The likely-LCP rule against the LCP element Chromium reports (bench/lcp_rule.py).
  lcp=$(python3 bench/lcp_rule.py "http://127.0.0.1:$off" "http://127.0.0.1:$on" "${pages[@]}" \
    2>&1) || failed=1
  grep -E 'LAZY-BAD|not compared' <<<"$lcp" || true
  # Lighthouse's first view of LH_PAGES pages, edgesite (the defaults) beside nginx, at each
  # page's clean URL (the one edgesite serves without a redirect; nginx's try_files serves it).
  if [ "$LIGHTHOUSE" = 1 ]; then
    nginx_port=$(free_port)
    start_nginx "$WORK" "$nginx_port" "$site"
    for page in "${pages[@]:0:$LH_PAGES}"; do
      clean=${page%.html} && clean=${clean%/index} && clean=${clean:-/}
      for server in "edgesite=http://127.0.0.1:$on" "nginx=http://127.0.0.1:$nginx_port"; do
        printf 'lighthouse %-12s %-36s %-9s %s\n' "$name" "$clean" "${server%%=*}" \
          "$(lighthouse_audits "${server#*=}$clean")"
      done
    done | tee -a "$WORK/lighthouse.txt"
    kill "$(cat "$WORK/nginx.pid")"
  fi
  stop_server "$name-off"
  stop_server "$name-on"
  summary+=("$name: ${#pages[@]} pages x 2 viewports, $differing views differ, $unstable unstable by themselves; $report; LCP rule: $(tail -n 1 <<<"$lcp")")
done
echo "== corpus, $(date -u +%F), $(nproc) cores"
printf '%s\n' "${summary[@]}"
exit "$failed"
