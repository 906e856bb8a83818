#!/usr/bin/env bash
# The Worker under bare `workerd serve` (the production runtime, without wrangler dev's proxy).
#   scripts/workerd.sh build [CONFIG]        build the bundle; prints its folder
#   scripts/workerd.sh config PORT [CONFIG]  write a workerd config serving the built bundle on
#                                            127.0.0.1:PORT; prints the config's path
#   scripts/workerd.sh serve PORT [CONFIG]   build, configure, and run workerd in the foreground
# Without CONFIG: the bundle of `wrangler deploy --dry-run` (offline), in target/workerd/demo:
# exactly what `wrangler deploy` uploads. With CONFIG (an edgesite.toml): the Worker built by
# scripts/build-worker.sh with EDGESITE_CONFIG=CONFIG in its own folder, target/workerd/NAME
# (NAME: the config's file name), so the main build is left alone. Other scripts use these
# paths only through this script's output.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"
cd "$ROOT"

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# The folder of a build: target/workerd/demo, or target/workerd/NAME for a config.
work_dir() { # [config]
  if [ -z "${1:-}" ]; then echo "$ROOT/target/workerd/demo"; else echo "$ROOT/target/workerd/$(basename "$1" .toml)"; fi
}

# Builds the bundle into WORK/bundle; prints the bundle folder.
build() { # [config]
  local work bundle
  work=$(work_dir "${1:-}")
  bundle="$work/bundle"
  mkdir -p "$work"
  rm -rf "$bundle"
  if [ -z "${1:-}" ]; then
    wrangler deploy --dry-run --outdir "$bundle" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
  else
    CARGO_TARGET_DIR="$work/cargo" EDGESITE_CONFIG="$(realpath "$1")" scripts/build-worker.sh "$bundle" \
      >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
  fi
  echo "$bundle"
}

# Writes WORK/config.capnp serving the built bundle on PORT; prints its path.
config() { # port [config]
  local port=$1 bundle out
  bundle="$(work_dir "${2:-}")/bundle"
  # The entry: worker.js in wrangler's bundle, worker.mjs as scripts/build-worker.sh writes it.
  local main="" name
  for name in worker.js worker.mjs; do [ -f "$bundle/$name" ] && main=$name && break; done
  [ -n "$main" ] || { echo "no bundle in $bundle: run scripts/workerd.sh build${2:+ $2} first" >&2; exit 1; }
  out="$(work_dir "${2:-}")/config.capnp"
  workerd_config "$out" "$port" "$bundle" "$main"
  echo "$out"
}

case "${1:-}" in
  build) build "${2:-}" ;;
  config) [ $# -ge 2 ] || usage; config "$2" "${3:-}" ;;
  serve)
    [ $# -ge 2 ] || usage
    build "${3:-}" >/dev/null
    capnp=$(config "$2" "${3:-}")
    exec workerd serve "$capnp"
    ;;
  *) usage ;;
esac
