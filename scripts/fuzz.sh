#!/usr/bin/env bash
# make fuzz: runs every cargo-fuzz target in fuzz/ for FUZZ_SECONDS (default 60) each, starting
# from the committed corpus (fuzz/corpus/TARGET, which libFuzzer extends), and fails on a crash.
#   FUZZ_SECONDS=600 make fuzz          longer
#   FUZZ_TARGETS="path decide" make fuzz  some targets
#   FUZZ_SANITIZER=none make fuzz       without AddressSanitizer (the core has no unsafe code)
# cargo-fuzz is installed into the tools dir on first use. libFuzzer needs unstable compiler
# flags; RUSTC_BOOTSTRAP=1 lets the stable compiler accept them, so no nightly is needed.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
# shellcheck source=scripts/versions.sh
. "$ROOT/scripts/versions.sh"
SECONDS_EACH=${FUZZ_SECONDS:-60}
SANITIZER=${FUZZ_SANITIZER:-address}
if [ "$(cat "$EDGESITE_TOOLS/toolchain" 2>/dev/null)" = debian ] && [ -z "${FUZZ_SANITIZER:-}" ]; then
  SANITIZER=none # Debian's rustc ships no sanitizer runtimes
fi
case " $("$EDGESITE_TOOLS/bin/cargo-fuzz" --version 2>/dev/null) " in
  *" $CARGO_FUZZ_VERSION "*) ;;
  *) echo "[fuzz] cargo install cargo-fuzz@$CARGO_FUZZ_VERSION (a minute or two, once)"
     cargo install -q --root "$EDGESITE_TOOLS" "cargo-fuzz@$CARGO_FUZZ_VERSION" --locked --force ;;
esac
export RUSTC_BOOTSTRAP=1
cd "$ROOT/fuzz"
TARGETS=${FUZZ_TARGETS:-$(cargo fuzz list)}
LOGS="$ROOT/target/fuzz-logs"
mkdir -p "$LOGS"
echo "[fuzz] building (sanitizer: $SANITIZER)"
cargo fuzz build -s "$SANITIZER" >"$LOGS/build.log" 2>&1 || { tail -30 "$LOGS/build.log"; exit 1; }
failed=0
summary=()
for target in $TARGETS; do
  mkdir -p "corpus/$target"
  before=$(find "corpus/$target" -type f | wc -l)
  echo "[fuzz] $target: ${SECONDS_EACH} s from $before corpus inputs"
  log="$LOGS/$target.log"
  # The outer timeout only guards against a hung target; libFuzzer stops itself at -max_total_time.
  if timeout $((SECONDS_EACH + 120)) cargo fuzz run -s "$SANITIZER" "$target" -- \
      -max_total_time="$SECONDS_EACH" -print_final_stats=1 >"$log" 2>&1; then
    crashes=0
  else
    crashes=1
    failed=1
    grep -E "panicked|SUMMARY|Failing input|artifacts/" "$log" | head -8 || true
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  after=$(find "corpus/$target" -type f | wc -l)
  summary+=("$(printf '%-16s %12s execs in %4s s   crashes %s   corpus %s -> %s' \
    "$target" "${runs:-?}" "$SECONDS_EACH" "$crashes" "$before" "$after")")
done
echo
printf '%s\n' "${summary[@]}"
echo "logs: $LOGS; a crash's input is in fuzz/artifacts/TARGET/ (replay: cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run TARGET FILE)"
exit "$failed"
