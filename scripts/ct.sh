#!/usr/bin/env bash
# Runs the dudect-style timing tests (benches/ct.rs of alibi-akem, alibi-falcon, alibi-mayo, alibi-ringsig and
# alibi-tachyon) and prints each test's Welch t. |t| above 5 means the two classes of inputs
# can be told apart by their running time; docs/SECURITY.md records the results and what they
# mean for each operation. Run it on an otherwise idle machine.
#
#   scripts/ct.sh [ROUNDS] [CRATE...]     (default: 1 round, every crate)
#
# Each round runs every test once with a fresh seed; repeating rounds shows whether a |t| is
# stable or noise.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1}
shift || true
crates=("$@")
[ ${#crates[@]} -eq 0 ] && crates=(alibi-akem alibi-falcon alibi-mayo alibi-ringsig alibi-tachyon)
for c in "${crates[@]}"; do
  # `cargo bench` would pass --bench, which dudect-bencher's own options refuse: build, then run.
  exe=$(cargo bench -p "$c" --bench ct --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
  if [ -z "$exe" ]; then
    echo "$c: building its timing tests failed" >&2
    exit 2
  fi
  for r in $(seq "$rounds"); do
    echo "## $c, round $r"
    "$exe" | grep ' \.\.\. '
  done
done
