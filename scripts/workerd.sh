#!/usr/bin/env bash
# The Worker under bare `workerd serve` (the production runtime, without wrangler dev's proxy).
#   scripts/workerd.sh build [CONFIG]        build the bundle; prints its folder
#   scripts/workerd.sh config PORT [CONFIG] [PORT CONFIG]...
#                                            write a workerd config serving the built bundle on
#                                            127.0.0.1:PORT (several: one workerd process serving
#                                            each on its port; CONFIG `demo` is the default
#                                            bundle); prints the config's path
#   scripts/workerd.sh serve PORT [CONFIG]   build, configure, and run workerd in the foreground
# Without CONFIG: the bundle of `wrangler deploy --dry-run` (offline), in target/workerd/demo:
# exactly what `wrangler deploy` uploads. With CONFIG (an edgesite.toml): the Worker built by
# scripts/build-worker.sh with EDGESITE_CONFIG=CONFIG, in the same target directory (only the
# site's crate is rebuilt), its bundle in target/workerd/NAME (NAME: the config's file name).
# Other scripts use these paths only through this script's output.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"
cd "$ROOT"

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# The folder of a build: target/workerd/demo, or target/workerd/NAME for a config.
work_dir() { # [config]
  if [ -z "${1:-}" ] || [ "$1" = demo ]; then echo "$ROOT/target/workerd/demo"; else echo "$ROOT/target/workerd/$(basename "$1" .toml)"; fi
}

# Builds the bundle into WORK/bundle; prints the bundle folder.
build() { # [config]
  local work bundle
  work=$(work_dir "${1:-}")
  bundle="$work/bundle"
  mkdir -p "$work"
  rm -rf "$bundle"
  if [ -z "${1:-}" ] || [ "$1" = demo ]; then
    wrangler deploy --dry-run --outdir "$bundle" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
  else
    EDGESITE_CONFIG="$(realpath "$1")" scripts/build-worker.sh "$bundle" \
      >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
  fi
  echo "$bundle"
}

# The entry of a built bundle: worker.js in wrangler's bundle, worker.mjs as
# scripts/build-worker.sh writes it.
main_module() { # bundle config
  local name
  for name in worker.js worker.mjs; do [ -f "$1/$name" ] && echo "$name" && return; done
  echo "no bundle in $1: run scripts/workerd.sh build${2:+ $2} first" >&2
  exit 1
}

# Writes a workerd config serving the built bundles, each on its port; prints its path:
# WORK/config.capnp for one, target/workerd/NAME1+NAME2....capnp for several.
config() { # port [config] [port config]...
  local args=() names=() bundle out main
  while [ $# -gt 0 ]; do
    local port=$1 config=${2:-}
    shift; [ $# -gt 0 ] && shift
    bundle="$(work_dir "$config")/bundle"
    main=$(main_module "$bundle" "$config") || exit 1
    args+=("$port" "$bundle" "$main")
    names+=("$(basename "$(work_dir "$config")")")
  done
  if [ ${#names[@]} -eq 1 ]; then
    out="$(dirname "$bundle")/config.capnp"
  else
    out="$ROOT/target/workerd/$(IFS=+; echo "${names[*]}").capnp"
  fi
  workerd_config "$out" "${args[@]}"
  echo "$out"
}

case "${1:-}" in
  build) build "${2:-}" ;;
  config) [ $# -ge 2 ] || usage; shift; config "$@" ;;
  serve)
    [ $# -ge 2 ] || usage
    build "${3:-}" >/dev/null
    capnp=$(config "$2" "${3:-}")
    exec workerd serve "$capnp"
    ;;
  *) usage ;;
esac
