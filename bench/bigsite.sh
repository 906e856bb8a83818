#!/usr/bin/env bash
# `make bigsite`: the generated 70 MB site (bench/sites.sh 70mb), built with store = "auto"
# (which keeps it compact, under the 64 MiB Worker limit), served by the Worker under bare
# `workerd serve`, and tested over HTTP (tests/bigsite.rs: every coding delivers each sampled
# file with its own strong ETag, 304s, ranges of the identity decoded on demand).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"
cd "$ROOT"
trap stop_all_servers EXIT
config=$(bench/sites.sh 70mb)
bundle=$(scripts/workerd.sh build "$config")
cat "$bundle/edgesite-build.txt"
port=$(free_port)
capnp=$(scripts/workerd.sh config "$port" "$config")
start_server bigsite 120 "$port" workerd serve "$capnp"
EDGESITE_BIGSITE_DIR="$(dirname "$config")/site" \
  EDGESITE_BIGSITE_SERVED_DIR="$(cat "$bundle/edgesite-served.txt")" \
  EDGESITE_BASE_URL="http://127.0.0.1:$port" EDGESITE_RUNTIME=workerd \
  cargo test -q --test bigsite -- --ignored
