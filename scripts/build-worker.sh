#!/usr/bin/env bash
# Builds the Worker into OUT (default build/): wrangler.toml's [build] command, and what
# scripts/workerd.sh runs for other configurations (EDGESITE_CONFIG, CARGO_TARGET_DIR).
#   1. cargo builds the crate for wasm32; build.rs compiles the site, its bytes into blobs
#      ($OUT_DIR/worker/site-N.bin, found through cargo's build-script-executed message);
#   2. wasm-bindgen (the pinned CLI) writes the JS glue and snippets (`--target bundler`);
#   3. wasm-opt -Os shrinks the module;
#   4. the entry, OUT/worker.mjs, is src/worker-shim.js with the snippets' and blobs' imports
#      filled in; the blobs are copied to OUT/site/ (wrangler.toml's [[rules]] makes them
#      data modules).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
cd "$ROOT"
OUT=${1:-build}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
messages=$(mktemp)
trap 'rm -f "$messages"' EXIT

cargo build --lib --profile worker --target wasm32-unknown-unknown --message-format=json-render-diagnostics >"$messages"

# The module, and the folder build.rs wrote the blobs to, from cargo's own messages.
read -r wasm out_dir < <(python3 - "$messages" <<'PY'
import json, sys
wasm = out_dir = ""
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if "#edgesite@" not in m.get("package_id", ""):
        continue
    if m.get("reason") == "build-script-executed":
        out_dir = m["out_dir"]
    if m.get("reason") == "compiler-artifact":
        wasm = next((f for f in m["filenames"] if f.endswith(".wasm")), wasm)
print(wasm, out_dir)
PY
)
[ -f "$wasm" ] && [ -f "$out_dir/worker/blobs.txt" ] ||
  { echo "build-worker: no module or blobs in cargo's output ($wasm, $out_dir)" >&2; exit 1; }

rm -rf "$OUT/snippets" "$OUT/site" "$OUT"/index* "$OUT/worker.mjs"
wasm-bindgen --target bundler --no-typescript --out-dir "$OUT" --out-name index "$wasm"
rm -f "$OUT/index.js" # wasm-bindgen's own entry: ours is worker.mjs
wasm-opt -Os "$OUT/index_bg.wasm" -o "$OUT/index.wasm"
rm "$OUT/index_bg.wasm"
mkdir -p "$OUT/site"
while IFS= read -r blob; do
  [ -n "$blob" ] && cp "$out_dir/worker/$blob" "$OUT/site/"
done <"$out_dir/worker/blobs.txt"

python3 - "$ROOT/src/worker-shim.js" "$OUT" "$out_dir/worker/blobs.txt" <<'PY'
import os, sys
template, out, blobs_txt = sys.argv[1:]
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
open(os.path.join(out, "worker.mjs"), "w").write(text)
PY
# What the build chose and how big it is, beside the bundle (wrangler uploads only modules), and
# where its HTML and CSS are as served (after the link pass), for tests that compare bytes.
grep -E '^(storage|bundle estimate|[0-9]+ files)' "$out_dir/report.txt" >"$OUT/edgesite-build.txt" || true
echo "$out_dir/served" >"$OUT/edgesite-served.txt"
echo "build-worker: $OUT/worker.mjs, $(stat -c %s "$OUT/index.wasm") bytes of wasm, $(wc -l <"$out_dir/worker/blobs.txt") blob(s)"
