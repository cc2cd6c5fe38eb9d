#!/usr/bin/env bash
# DGSP at scale on disk: populates the redb store with N members (default 2^20; 2^25 = 33554432 for the
# seed's largest table), runs a member's flow against it, then the side-by-side benchmark.
# Usage: scripts/dgsp-scale.sh [members]
set -euo pipefail
cd "$(dirname "$0")/.."
export ALIBI_DGSP_MEMBERS="${1:-1048576}"
cargo test --release -p alibi-dgsp --test redb_store -- --ignored --nocapture a_large_group_on_disk
cargo bench -p alibi-dgsp --bench dgsp
python3 scripts/bench_table.py --dgsp
