#!/usr/bin/env bash
# `make deploy`: builds and uploads the Worker (`wrangler deploy`, or the command given as
# arguments), then records the deploy in edgesite.toml's [history] only once that command has
# succeeded. The build stages the deploy (EDGESITE_RECORD_DEPLOY=1) in target/edgesite/
# staged-deploy; `edgesite-history commit` moves it into the history. A deploy that fails or is
# interrupted leaves the history byte for byte as it was (tests: tests/site_layer.rs).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
. scripts/env.sh
# A real deploy reads and records the project's own history, not the test fixture
# (.cargo/config.toml); empty is "no override".
export EDGESITE_HISTORY="${EDGESITE_HISTORY_FOR_DEPLOY:-}"
export EDGESITE_RECORD_DEPLOY=1
# Every encoding at [compression]'s settings, whatever the shell exported (make dev's quick
# ones are for the dev loop).
export EDGESITE_ENCODINGS=configured
STAGED="${CARGO_TARGET_DIR:-$ROOT/target}/edgesite/staged-deploy"
if [ $# -eq 0 ]; then
  set -- wrangler deploy
fi
# A site with files in R2 ([storage] r2_bucket): the build first, then its R2 objects put in the
# bucket (only new ones: scripts/r2-put.mjs), so that no version of the Worker goes live before
# the objects it names are there; the upload's own build then finds the Worker up to date.
bucket=$(cargo xtask r2-bucket)
if [ -n "$bucket" ]; then
  cargo xtask r2-bound wrangler.toml "$bucket"
  scripts/build-worker.sh
  node scripts/r2-put.mjs --bucket "$bucket" --from build/r2 --remote
fi
"$@"
# The history tool from the host build `make test` makes (the workspace's feature set: `cargo
# run -p edgesite-sitegen` would compile sitegen again, 45 s on a clean clone), built as that
# build is, without this deploy's variables.
env -u EDGESITE_RECORD_DEPLOY -u EDGESITE_HISTORY -u EDGESITE_CONFIG -u EDGESITE_SITE \
  cargo build -q --workspace --exclude edgesite-bench --bins --examples
"${CARGO_TARGET_DIR:-$ROOT/target}/debug/edgesite-history" commit "$STAGED"
