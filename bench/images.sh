#!/usr/bin/env bash
# `make images`: what the image stage makes of real pictures, and what it costs.
#   1. a corpus of real photographs and screenshots: scikit-image's sample photos (public domain
#      and CC0: astronaut, coffee, chelsea, motorcycle, brick, grass, gravel, hubble_deep_field,
#      from its PyPI wheel; licences in skimage/data/_fetchers.py), as JPEG at quality 90, and
#      headless Chromium's screenshots of the demo's pages and of docs/*.md, as PNG;
#   2. COUNT files cropped from them (crates/imaging/examples/corpus.rs; default 2000), one
#      site, built by sitegen (crates/sitegen/examples/compile.rs, the sitegen-bench profile:
#      opt-level 3, as build.rs runs the stage) with the default [images] settings: a cold
#      build (empty cache), then a rebuild with nothing changed;
#   3. the totals per format from the build report: photos' AVIF and WebP bytes against their
#      JPEGs, screenshots' PNG and lossless WebP bytes against theirs.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
cd "$ROOT"
COUNT=${COUNT:-2000}
WORK="$ROOT/target/images"
CORPUS="$WORK/corpus"
mkdir -p "$CORPUS/photos" "$CORPUS/screens"

if [ -z "$(ls "$CORPUS/photos")" ]; then
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$WORK/wheel" scikit-image
  python3 - "$WORK/wheel" "$CORPUS/photos" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/scikit_image-*.whl")[0]
names = ["astronaut.png", "coffee.png", "chelsea.png", "motorcycle_left.png", "brick.png",
         "grass.png", "gravel.png", "hubble_deep_field.jpg"]
with zipfile.ZipFile(wheel) as z:
    for name in names:
        with open(f"{sys.argv[2]}/{name}", "wb") as out:
            out.write(z.read(f"skimage/data/{name}"))
PY
fi
if [ -z "$(ls "$CORPUS/screens")" ]; then
  i=0
  for page in public/index.html public/about.html public/guide/index.html public/photos.html \
    docs/*.md README.md; do
    for size in 1280,800 800,1000; do
      i=$((i + 1))
      chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="$size" \
        --screenshot="$CORPUS/screens/$i.png" "file://$ROOT/$page" >/dev/null 2>&1
    done
  done
fi

cargo build -q --profile sitegen-bench -p edgesite-imaging --example corpus
cargo build -q --profile sitegen-bench -p edgesite-sitegen --example compile
SITE="$WORK/site-$COUNT"
if [ ! -d "$SITE" ]; then
  target/sitegen-bench/examples/corpus "$CORPUS" "$SITE/img" "$COUNT"
  echo "<p>images</p>" >"$SITE/index.html"
fi
echo "== corpus: $COUNT images, $(du -sb "$SITE/img" | cut -f1) bytes ($(nproc) cores)"
CACHE="$WORK/cache-$COUNT"
rm -rf "$CACHE"
build() { # label
  local start end
  start=$(date +%s.%N)
  EDGESITE_REPORT=1 EDGESITE_MANIFEST="$WORK/manifest.json" \
    target/sitegen-bench/examples/compile "$SITE" "" "$CACHE" >/dev/null 2>"$WORK/report-${1%% *}.txt"
  end=$(date +%s.%N)
  printf '%-28s %8.1f s\n' "$1" "$(echo "$end - $start" | bc)"
}
build cold
build "rebuild (nothing changed)"
grep '^images:' "$WORK/report-rebuild.txt"
python3 - "$WORK/manifest.json" <<'PY'
import json, sys
files = [f for f in json.load(open(sys.argv[1]))["files"] if "image" in f]
for kind, ext in [("photos (JPEG)", ".jpg"), ("screenshots (PNG)", ".png")]:
    group = [f for f in files if f["path"].endswith(ext)]
    if not group:
        continue
    original = sum(f["image"]["original_bytes"] for f in group)
    served = sum(f["size"] for f in group)
    def best(f, types):
        sizes = [f["size"]] + [v["variant"]["size"] if "variant" in v else v["representation"]["size"]
                               for v in f.get("variants", []) if v["content_type"] in types]
        return min(sizes)
    line = f"{kind}: {len(group)} files, {original} bytes as published; served as themselves {served} ({1 - served / original:.1%} less)"
    for label, types in [("AVIF", ["image/avif"]), ("WebP", ["image/webp"]),
                         ("Chromium (AVIF or WebP, the smaller)", ["image/avif", "image/webp"])]:
        have = sum(1 for f in group if any(v["content_type"] in types for v in f.get("variants", [])))
        got = sum(best(f, types) for f in group)
        line += f"; {label}: {have} files have one, a client asking gets {got} ({1 - got / original:.1%} less)"
    print(line)
PY
