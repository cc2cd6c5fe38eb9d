#!/usr/bin/env python3
"""Markdown table of Criterion medians, ours next to the peer, from target/criterion.

Usage: scripts/bench_table.py GROUP [GROUP ...]   e.g. scripts/bench_table.py Falcon-512 Falcon-1024
Each group holds benchmarks named <operation>/<implementation>; 'alibi' is ours, any other is a peer.
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"


def median_ns(group, bench):
    est = ROOT / group / bench / "new" / "estimates.json"
    return json.loads(est.read_text())["median"]["point_estimate"]


def fmt(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} µs"


def main(groups):
    print("| level | operation | alibi (median) | peer (median) | ratio alibi / peer |")
    print("|---|---|---|---|---|")
    for group in groups:
        ops = {}
        for d in sorted((ROOT / group).iterdir()):
            if not (d / "new" / "estimates.json").exists():
                continue
            op, _, impl = d.name.rpartition("_")
            ops.setdefault(op, {})[impl] = median_ns(group, d.name)
        for op, impls in ops.items():
            ours = impls.get("alibi")
            peers = {k: v for k, v in impls.items() if k != "alibi"}
            if not peers:
                # Ours only: compare with the peer's plain operation of the same name root.
                base = op.split("-")[0]
                peers = {k: v for k, v in ops.get(base, {}).items() if k != "alibi"}
            for peer, theirs in peers.items() or [(None, None)]:
                ratio = f"{ours / theirs:.2f}" if ours and theirs else "-"
                print(f"| {group} | {op} | {fmt(ours) if ours else '-'} | "
                      f"{fmt(theirs) + ' (' + peer + ')' if theirs else '-'} | {ratio} |")


if __name__ == "__main__":
    main(sys.argv[1:] or ["Falcon-512", "Falcon-1024"])
