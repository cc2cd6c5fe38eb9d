#!/usr/bin/env bash
# Runs one fuzz target for SECONDS on the stable toolchain: libFuzzer (from libfuzzer-sys) over
# code instrumented with SanitizerCoverage through stable rustc flags, which is what
# `cargo fuzz run --sanitizer none` does, without cargo-fuzz or nightly. Debug assertions and
# overflow checks are on, so an overflow is a crash too.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#   scripts/fuzz.sh --list
#
# The corpus is fuzz/corpus/TARGET, grown in place (commit what it adds); a crash is written to
# fuzz/artifacts/TARGET/ and the script exits non-zero. The last lines printed are libFuzzer's
# final statistics (executions, coverage), which docs/SECURITY.md records per campaign.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --list ]; then
  ls fuzz/fuzz_targets | sed 's/\.rs$//'
  exit 0
fi
if [ $# -lt 2 ]; then
  echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...] | --list" >&2
  exit 2
fi
target=$1
secs=$2
shift 2
if [ ! -f "fuzz/fuzz_targets/$target.rs" ]; then
  echo "no fuzz target $target (scripts/fuzz.sh --list)" >&2
  exit 2
fi
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module \
-Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
-Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares \
-Cdebug-assertions -Coverflow-checks"
# A target directory of its own (these flags would otherwise rebuild the plain check's), and an
# explicit target triple, so that the flags apply to the fuzzed code and not to build scripts.
triple=$(rustc -vV | sed -n 's/^host: //p')
cargo build --release --manifest-path fuzz/Cargo.toml --target-dir fuzz/target-libfuzzer \
  --target "$triple" --bin "$target"
mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
exec "fuzz/target-libfuzzer/$triple/release/$target" "fuzz/corpus/$target" \
  -max_total_time="$secs" -artifact_prefix="fuzz/artifacts/$target/" -print_final_stats=1 "$@"
