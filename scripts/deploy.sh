#!/usr/bin/env bash
# `make deploy`: builds and uploads the Worker (`wrangler deploy`, or the command given as
# arguments), then records the deploy in edgesite.toml's [history] only once that command has
# succeeded. The build stages the deploy (EDGESITE_RECORD_DEPLOY=1) in target/edgesite/
# staged-deploy; `edgesite-history commit` moves it into the history. A deploy that fails or is
# interrupted leaves the history byte for byte as it was (tests: scripts/test.sh, the site layer).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
. scripts/env.sh
# A real deploy reads and records the project's own history, not the test fixture
# (.cargo/config.toml); empty is "no override".
export EDGESITE_HISTORY="${EDGESITE_HISTORY_FOR_DEPLOY:-}"
export EDGESITE_RECORD_DEPLOY=1
STAGED="${CARGO_TARGET_DIR:-$ROOT/target}/edgesite/staged-deploy"
if [ $# -eq 0 ]; then
  set -- wrangler deploy
fi
"$@"
cargo run -q -p edgesite-sitegen --bin edgesite-history -- commit "$STAGED"
