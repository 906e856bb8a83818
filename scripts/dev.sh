#!/usr/bin/env bash
# `make dev`: the Worker under wrangler dev on 127.0.0.1:$PORT, rebuilt when the code or the site
# changes. For the demo (public/) that is wrangler.toml as it is; for a site anywhere else
# (EDGESITE_SITE, or site.dir in edgesite.toml / EDGESITE_CONFIG) wrangler runs with a config of
# its own, target/dev/wrangler.toml, which watches that folder too (`cargo xtask dev-config`).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/env.sh
. scripts/env.sh
site=$(cargo xtask site-dir)
args=(--ip 127.0.0.1 --port "${PORT:-8787}" --var EDGESITE_LOG:1)
config=wrangler.toml
if [ "$site" != "$ROOT/public" ]; then
  config=target/dev/wrangler.toml
  cargo xtask dev-config "$config" "$site"
  echo "make dev: serving and watching $site"
  args+=(-c "$config")
fi
# A site with files in R2 ([storage] r2_bucket; the wrangler config binds it as EDGESITE_R2):
# every build puts its R2 objects in wrangler dev's local R2 (cargo xtask build-worker).
bucket=$(cargo xtask r2-bucket)
if [ -n "$bucket" ]; then
  cargo xtask r2-bound "$config" "$bucket"
  export EDGESITE_R2_BUCKET=$bucket EDGESITE_R2_PERSIST="$ROOT/.wrangler/state"
  args+=(--persist-to "$EDGESITE_R2_PERSIST")
fi
# An encoding the cache does not hold at [compression]'s settings is made at quick ones (brotli 5,
# zstd 3, libdeflate 6), so that an edit is served without waiting for brotli 11 of a large
# /llms-full.txt (docs/benchmarks.md, "The dev loop"); the report counts them. A deploy makes
# them at the configured settings.
export EDGESITE_ENCODINGS=${EDGESITE_ENCODINGS-quick}
exec wrangler dev "${args[@]}"
