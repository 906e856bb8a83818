#!/usr/bin/env bash
# `make coldstart`: how long the Worker takes from a cold `workerd serve` to its first response,
# for the demo site and the generated 5 MB, 40 MB and 70 MB sites (bench/sites.sh;
# COLDSTART_SITES picks some, `COLDSTART_SITES=` none), against the same measure for the workerd
# floor (a JS worker with one prebuilt response, no wasm), and for each Worker against a JS floor
# that holds the same blobs as data modules (loading them is bare workerd's work, the same for
# any worker). The difference is what edgesite adds: compiling and instantiating its wasm module
# (the routing and fields) and its first request. Each is the median of RUNS (default 7)
# launches; launch to first 200 is timed by a poller that connects every 0.5 ms
# (bench/coldstart.py).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cd "$ROOT"
RUNS=${RUNS:-7}
WORK="$ROOT/target/coldstart"
mkdir -p "$WORK"

echo "[coldstart] building the demo Worker and the Workers of the generated sites (release, once)"
demo_bundle=$(scripts/workerd.sh build)
demo_capnp=$(scripts/workerd.sh config 18201)
SITES=${COLDSTART_SITES-5mb 40mb 70mb} # set and empty: the demo alone
declare -A bundle capnp
port=18210
for site in $SITES; do
  config=$(bench/sites.sh "$site")
  bundle[$site]=$(scripts/workerd.sh build "$config")
  capnp[$site]=$(scripts/workerd.sh config "$port" "$config")
  port=$((port + 1))
done

# The floor: one prebuilt 200.
mkdir -p "$WORK/floor"
cat >"$WORK/floor/floor.mjs" <<'JS'
const body = new TextEncoder().encode("<!doctype html><p>floor</p>\n");
export default { fetch() { return new Response(body, { headers: { "content-type": "text/html" } }); } };
JS
workerd_config "$WORK/floor.capnp" 18203 "$WORK/floor" floor.mjs

measure() { # config port
  python3 bench/coldstart.py "$RUNS" "$2" workerd serve "$1"
}
sizes() { # bundle: wasm bytes, blob bytes
  find "$1" -name '*.wasm' -printf '%s\n' | awk '{ s += $1 } END { printf "%d", s }'
  printf ' / '
  find "$1" \( -path "$1/assets" -o -path "$1/r2" \) -prune -o -name '*.bin' -printf '%s\n' | awk '{ s += $1 } END { printf "%d", s }'
}
floor=$(measure "$WORK/floor.capnp" 18203)
printf '\n%s, median of %s launches each: launch of `workerd serve` to the first 200\n' "$(date -u +%Y-%m-%d)" "$RUNS"
printf '| worker | wasm / blob bytes | launch to first 200 | a JS floor with the same blobs | edgesite'"'"'s own cold start |\n|---|---|---|---|---|\n'
printf '| floor (JS, one prebuilt response) | - | %.1f ms | | |\n' "$floor"
# A floor that holds the same blobs as data modules (bare workerd's loading of them, from its
# capnp config, dominates a large site's launch: it is the same for any worker).
blob_floor() { # bundle port -> capnp
  local dir="$WORK/floor-$2" i=0 imports="" names=""
  rm -rf "$dir" && mkdir -p "$dir/site"
  for blob in $(find "$1" \( -path "$1/assets" -o -path "$1/r2" \) -prune -o -name '*.bin' -print | sort); do
    cp "$blob" "$dir/site/"
    imports+="import b$i from \"./site/$(basename "$blob")\";"$'\n'
    names+="b$i.byteLength + "
    i=$((i + 1))
  done
  printf '%s\nconst held = %s0;\nexport default { fetch() { return new Response(String(held)); } };\n' "$imports" "$names" >"$dir/floor.mjs"
  workerd_config "$dir.capnp" "$2" "$dir" floor.mjs
  echo "$dir.capnp"
}
row() { # name bundle capnp port
  local t same
  t=$(measure "$3" "$4")
  same=$(measure "$(blob_floor "$2" $(($4 + 100)))" $(($4 + 100)))
  printf '| %s | %s | %.1f ms | %.1f ms | %.1f ms |\n' "$1" "$(sizes "$2")" "$t" "$same" \
    "$(awk -v a="$t" -v b="$same" 'BEGIN { print a - b }')"
}
row "edgesite, demo site" "$demo_bundle" "$demo_capnp" 18201
port=18210
for site in $SITES; do
  row "edgesite, generated $site site" "${bundle[$site]}" "${capnp[$site]}" "$port"
  port=$((port + 1))
done
