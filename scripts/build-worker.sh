#!/usr/bin/env bash
# Builds a Worker into OUT (default build/):
#   scripts/build-worker.sh [--package NAME] [--entry TEMPLATE] [OUT]
# Without options, edgesite's own Worker (package edgesite, entry src/entry.js): wrangler.toml's
# [build] command, and what scripts/workerd.sh runs for other configurations (EDGESITE_CONFIG,
# CARGO_TARGET_DIR). examples/api-worker builds with its own package and entry. Paths are
# relative to the folder it is run from (wrangler runs it from its config's folder).
#   1. cargo builds the package for wasm32 (profile `worker`); build.rs compiles the site; a
#      Worker that keeps the site's bytes outside the module gets blobs ($OUT_DIR/worker/site-N.bin,
#      found through cargo's build-script-executed message);
#   2. wasm-bindgen (the pinned CLI) writes the JS glue and snippets (`--target bundler`);
#   3. wasm-opt -Os shrinks the module;
#   4. the entry, OUT/worker.mjs, is the template with the snippets', blobs' and tables' imports
#      filled in; the blobs and the tables ($OUT_DIR/tables.bin, when the build wrote them: the
#      module does not hold them) are copied to OUT/site/ (wrangler.toml's [[rules]] makes them
#      data modules),
#      the store's objects ($OUT_DIR/store) to OUT/assets/ (wrangler.toml's [assets]: uploaded
#      as Static Assets, read by the Worker through its ASSETS binding), but for R2's
#      (_edgesite/r/), which go to OUT/r2/ (put in the bucket by scripts/r2-put.mjs).
#   5. under `make dev` (EDGESITE_R2_BUCKET and EDGESITE_R2_PERSIST set), the R2 objects are
#      put in wrangler dev's local R2 (scripts/r2-put.mjs: only those it does not hold).
# Steps 2-4 are skipped when the module, the blobs, the tables and the template are those of
# OUT's last build (a stamp in OUT): wrangler dev runs this on every start and every change it
# watches. Steps 2-3 alone are skipped when the module is that of OUT's last build (a site
# changed, not the code: OUT/.edgesite-module holds the module's hash, with the tools').
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
PACKAGE=edgesite
ENTRY="$ROOT/src/entry.js"
OUT=build
while [ $# -gt 0 ]; do
  case "$1" in
    --package) PACKAGE=$2; shift 2 ;;
    --entry) ENTRY=$(realpath "$2"); shift 2 ;;
    -*) sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    *) OUT=$1; shift ;;
  esac
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$ROOT"
messages=$(mktemp)
trap 'rm -f "$messages" "$messages.have" "$messages.want"' EXIT

cargo build --lib -p "$PACKAGE" --profile worker --target wasm32-unknown-unknown \
  --message-format=json-render-diagnostics >"$messages"

# The module, and the folder its build script wrote to, from cargo's own messages.
read -r wasm out_dir < <(python3 - "$messages" "$PACKAGE" <<'PY'
import json, sys
wasm = out_dir = ""
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if f"#{sys.argv[2]}@" not in m.get("package_id", ""):
        continue
    if m.get("reason") == "build-script-executed":
        out_dir = m["out_dir"]
    if m.get("reason") == "compiler-artifact":
        wasm = next((f for f in m["filenames"] if f.endswith(".wasm")), wasm)
print(wasm, out_dir)
PY
)
[ -f "$wasm" ] && [ -d "$out_dir" ] ||
  { echo "build-worker: no module or build output in cargo's output ($wasm, $out_dir)" >&2; exit 1; }
blobs_txt="$out_dir/worker/blobs.txt"
[ -f "$blobs_txt" ] || blobs_txt=/dev/null
tables="$out_dir/tables.bin"
# A site compiled into the module as Rust (library mode) has no tables file, or an old one.
grep -q '^pub fn set_tables(' "$out_dir/site.rs" 2>/dev/null || tables=/dev/null

# What steps 2-4 make OUT from: when it is what they last made it from, OUT is up to date.
# (The store's objects are named by their bytes: their names stand for them.)
stamp=$( { sha256sum "$wasm" "$ENTRY" "$ROOT/scripts/build-worker.sh" "$tables"; while IFS= read -r blob; do
  [ -n "$blob" ] && sha256sum "$out_dir/worker/$blob"; done <"$blobs_txt"
  ls "$out_dir/store/_edgesite/b" "$out_dir/store/_edgesite/r" 2>/dev/null; } | sha256sum | cut -d' ' -f1)

# The store's objects: Static Assets' in assets/, R2's in r2/ (folders that exist even when
# empty: wrangler.toml names assets/). TO comes to hold exactly FROM's files: an object already
# there with the same name and size stays (objects are named by their bytes), others are
# removed, new ones hard-linked where they can be (sitegen never writes an object in place: it
# renames new ones in), else copied. A rebuild of a site with 100,000 objects links the new
# ones, not all of them again.
mirror() { # FROM TO
  mkdir -p "$1" "$2"
  (cd "$2" && find . -type f -printf '%P %s\n' | sort) >"$messages.have"
  (cd "$1" && find . -type f -printf '%P %s\n' | sort) >"$messages.want"
  comm -23 "$messages.have" "$messages.want" | cut -d' ' -f1 | (cd "$2" && xargs -r -d '\n' rm -f --)
  comm -13 "$messages.have" "$messages.want" | cut -d' ' -f1 | (cd "$1" && xargs -r -d '\n' sh -c \
    'cp -al --parents -- "$@" "$0" 2>/dev/null || cp -a --remove-destination --parents -- "$@" "$0"' "$2")
  rm -f "$messages.have" "$messages.want"
}
mirror_store() {
  mirror "$out_dir/store/_edgesite/b" "$OUT/assets/_edgesite/b"
  mirror "$out_dir/store/_edgesite/r" "$OUT/r2/_edgesite/r"
}
put_r2() {
  if [ -n "${EDGESITE_R2_BUCKET:-}" ] && [ -n "${EDGESITE_R2_PERSIST:-}" ]; then
    node "$ROOT/scripts/r2-put.mjs" --bucket "$EDGESITE_R2_BUCKET" --from "$OUT/r2" --local "$EDGESITE_R2_PERSIST"
  fi
}
if [ "$(cat "$OUT/.edgesite-stamp" 2>/dev/null)" = "$stamp" ] && [ -f "$OUT/worker.mjs" ] && [ -d "$OUT/assets" ] && [ -d "$OUT/r2" ]; then
  echo "build-worker: $OUT/worker.mjs is up to date"
  # The bundle's objects are held to the build's all the same (a test may have changed one).
  mirror_store
  put_r2
  exit 0
fi

rm -rf "$OUT/site" "$OUT/worker.mjs" "$OUT/.edgesite-stamp"
module=$( { sha256sum "$wasm" "$ROOT/scripts/build-worker.sh"; wasm-bindgen --version; wasm-opt --version; } | sha256sum | cut -d' ' -f1)
if [ "$(cat "$OUT/.edgesite-module" 2>/dev/null)" != "$module" ] || [ ! -f "$OUT/index.wasm" ]; then
  rm -rf "$OUT/snippets" "$OUT"/index* "$OUT/.edgesite-module"
  wasm-bindgen --target bundler --no-typescript --out-dir "$OUT" --out-name index "$wasm"
  rm -f "$OUT/index.js" # wasm-bindgen's own entry: ours is worker.mjs
  wasm-opt -Os "$OUT/index_bg.wasm" -o "$OUT/index.wasm"
  rm "$OUT/index_bg.wasm"
  echo "$module" >"$OUT/.edgesite-module"
fi
mkdir -p "$OUT/site"
while IFS= read -r blob; do
  [ -n "$blob" ] && cp "$out_dir/worker/$blob" "$OUT/site/"
done <"$blobs_txt"
[ "$tables" = /dev/null ] || cp "$tables" "$OUT/site/tables.bin"
mirror_store

python3 - "$ENTRY" "$OUT" "$blobs_txt" "$tables" <<'PY'
import os, sys
template, out, blobs_txt, tables = sys.argv[1:]
snippets = []
for folder, _, files in sorted(os.walk(os.path.join(out, "snippets"))):
    for name in sorted(files):
        snippets.append("./" + os.path.relpath(os.path.join(folder, name), out))
blobs = [b for b in open(blobs_txt).read().split() if b]
text = open(template).read()
text = text.replace("$SNIPPET_JS_IMPORTS", "\n".join(f'import * as snippet{i} from "{p}";' for i, p in enumerate(snippets)))
text = text.replace("$SNIPPET_WASM_IMPORTS", "".join(f'"{p}": snippet{i},\n\t' for i, p in enumerate(snippets)))
text = text.replace("$BLOB_IMPORTS", "\n".join(f'import blob{i} from "./site/{b}";' for i, b in enumerate(blobs)))
text = text.replace("$BLOB_LIST", ", ".join(f"blob{i}" for i in range(len(blobs))))
import re
placeholder = re.compile(r"^\$TABLES_IMPORT$", re.M)
if bool(placeholder.search(text)) != (tables != "/dev/null"):
    sys.exit("build-worker: the entry imports the site's tables, and the build wrote none"
             if tables == "/dev/null" else
             "build-worker: the build wrote the site's tables (site.rs has set_tables), and the "
             "entry has no $TABLES_IMPORT to import them")
text = placeholder.sub('import tables from "./site/tables.bin";', text)
open(os.path.join(out, "worker.mjs"), "w").write(text)
PY
# What the build chose and how big it is, beside the bundle (wrangler uploads only modules), and
# where its HTML and CSS are as served (after the link pass), for tests that compare bytes.
grep -E '^(storage|tiers|bundle estimate|[0-9]+ files)' "$out_dir/report.txt" >"$OUT/edgesite-build.txt" 2>/dev/null || true
echo "$out_dir/served" >"$OUT/edgesite-served.txt"
echo "$stamp" >"$OUT/.edgesite-stamp"
echo "build-worker: $OUT/worker.mjs, $(stat -c %s "$OUT/index.wasm") bytes of wasm, $(grep -c . "$blobs_txt") blob(s)"
put_r2
