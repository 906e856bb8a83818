#!/usr/bin/env bash
# `make images`: what the image stage makes of real pictures, and what it costs.
#   1. a corpus of real photographs and screenshots: scikit-image's sample photos (public domain
#      and CC0: astronaut, coffee, chelsea, motorcycle, brick, grass, gravel, hubble_deep_field,
#      from its PyPI wheel; licences in skimage/data/_fetchers.py), as JPEG at quality 90, and
#      headless Chromium's screenshots of the demo's pages and of docs/*.md, as PNG;
#   2. a documentation site: PAGES pages (default 400, bench/gensite.py's docs style), each
#      showing its share of COUNT images (default 2000) cropped from the corpus at SCALE percent
#      of their sides (default 35: about 50 MB in all; crates/imaging/examples/corpus.rs), built
#      by sitegen (crates/sitegen/examples/compile.rs, the sitegen-bench profile: opt-level 3,
#      as build.rs runs the stage) with the default [images] settings: a cold build (empty
#      cache), then a rebuild with nothing changed;
#   3. the totals per format from the build report: photos' AVIF and WebP bytes against their
#      JPEGs, screenshots' PNG and lossless WebP bytes against theirs;
#      (each with its wall time and peak resident set, /usr/bin/time's %M);
#   4. the site's Worker (scripts/workerd.sh build, its build script's cache seeded from 2, so
#      nothing is encoded twice) against the 64 MiB limit (the bundle: the store's objects in
#      assets/ are not in it), with what `store = "auto"` and `[storage] tier = "auto"` chose.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
cd "$ROOT"
COUNT=${COUNT:-2000}
SCALE=${SCALE:-35}
PAGES=${PAGES:-400}
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
NAME="docs-$PAGES-$COUNT-$SCALE"
SITE="$WORK/$NAME"
if [ ! -f "$SITE/index.html" ]; then
  rm -rf "$SITE"
  python3 bench/gensite.py "$SITE" --pages "$PAGES" --page-kb 20 --style docs
  target/sitegen-bench/examples/corpus "$CORPUS" "$SITE/img" "$COUNT" "$SCALE"
  python3 - "$SITE" <<'PY'
# Each page shows its share of the images, as a documentation page shows its screenshots.
import os, sys
site = sys.argv[1]
images = sorted(os.listdir(f"{site}/img"))
pages = sorted(f"{site}/docs/{p}" for p in os.listdir(f"{site}/docs"))
share = -(-len(images) // len(pages))
for i, path in enumerate(pages):
    tags = "".join(f'<p><img src="/img/{name}" alt="figure"></p>\n' for name in images[i * share:(i + 1) * share])
    html = open(path).read()
    html = html.replace("</body>", tags + "</body>") if "</body>" in html else html + tags
    open(path, "w").write(html)
PY
fi
echo "== $PAGES pages, $COUNT images at $SCALE% ($(du -sb "$SITE/img" | cut -f1) bytes of images, $(du -sb "$SITE" | cut -f1) in all; $(nproc) cores)"
CACHE="$WORK/cache-$NAME"
rm -rf "$CACHE"
build() { # label
  local start end
  start=$(date +%s.%N)
  EDGESITE_REPORT=1 EDGESITE_MANIFEST="$WORK/manifest.json" /usr/bin/time -f '%M' -o "$WORK/rss" \
    target/sitegen-bench/examples/compile "$SITE" "" "$CACHE" >/dev/null 2>"$WORK/report-${1%% *}.txt"
  end=$(date +%s.%N)
  printf '%-28s %8.1f s, peak RSS %s MiB\n' "$1" "$(echo "$end - $start" | bc)" "$(($(cat "$WORK/rss") / 1024))"
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

# The site's Worker: the build script's cache seeded with the images encoded above.
printf '# Generated by bench/images.sh.\n[site]\ndir = "%s"\n\n[compression]\nstore = "auto"\n' "$NAME" \
  >"$WORK/$NAME.toml"
mkdir -p "${CARGO_TARGET_DIR:-target}/edgesite/cache"
cp -rn "$CACHE/." "${CARGO_TARGET_DIR:-target}/edgesite/cache/"
start=$(date +%s.%N)
bundle=$(scripts/workerd.sh build "$WORK/$NAME.toml")
end=$(date +%s.%N)
total=$(find "$bundle" \( -path "$bundle/assets" -o -path "$bundle/r2" \) -prune -o \( -name '*.wasm' -o -name '*.bin' -o -name '*.js' -o -name '*.mjs' \) -printf '%s\n' |
  awk '{ s += $1 } END { print s + 0 }')
printf 'the Worker (scripts/workerd.sh build, %.1f s): %s bytes, %.1f%% of 64 MiB; %s\n' \
  "$(echo "$end - $start" | bc)" "$total" "$(awk -v t="$total" 'BEGIN { print t / 67108864 * 100 }')" \
  "$(grep -E '^(storage|tiers|bundle estimate)' "$bundle/edgesite-build.txt" | tr '\n' ' ')"
