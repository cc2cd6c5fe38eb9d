#!/usr/bin/env python3
"""Runs one Criterion benchmark several times and prints every figure with its spread.

Usage: scripts/bench_runs.py [--runs N] [--threads T] [--features F] CRATE BENCH [FILTER]
   e.g. scripts/bench_runs.py --runs 3 --features liboqs alibi-mayo mayo '(keygen|sign|verify)/'

Benchmarks are named GROUP/OPERATION/IMPLEMENTATION ('alibi' is ours, any other name a peer). Each
run is a separate process; a ratio is taken inside one run (ours and the peer measured side by side)
and then summarised over the runs, so machine drift between runs does not enter it. Printed: a
Markdown table with, per operation, the median of the runs' medians and their range for ours and
for each peer, and the ratios of every run. --threads sets RAYON_NUM_THREADS (1 gives the
one-core figure of code that uses several cores). --json FILE also writes every benchmark's figure
per run, {name: [ns, ...]}, for ratios this table does not form (a ring signature over plain Falcon
in the same run, say).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

LINE = re.compile(r"^test (\S+) \.\.\. bench:\s+([\d,]+) ns/iter")


def executable(crate, bench, features):
    cmd = ["cargo", "bench", "-p", crate, "--bench", bench, "--no-run", "--message-format=json"]
    if features:
        cmd += ["--features", features]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    exes = [json.loads(l).get("executable") for l in out.splitlines() if l.startswith("{")]
    exes = [e for e in exes if e]
    if not exes:
        sys.exit(f"{crate}: no benchmark executable built")
    return exes[-1]


def one_run(exe, flt, env):
    cmd = [exe, "--bench", "--output-format", "bencher"] + ([flt] if flt else [])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    figures = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            figures[m.group(1)] = int(m.group(2).replace(",", ""))
    return figures


def fmt(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} µs"


def spread(values):
    med = statistics.median(values)
    if len(values) == 1:
        return fmt(med)
    return f"{fmt(med)} ({fmt(min(values))}–{fmt(max(values))})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("crate")
    ap.add_argument("bench")
    ap.add_argument("filter", nargs="?", default="")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int)
    ap.add_argument("--features")
    ap.add_argument("--json")
    a = ap.parse_args()
    env = dict(os.environ)
    if a.threads:
        env["RAYON_NUM_THREADS"] = str(a.threads)
    exe = executable(a.crate, a.bench, a.features)
    runs = [one_run(exe, a.filter, env) for _ in range(a.runs)]
    if a.json:
        names = sorted(set().union(*runs))
        with open(a.json, "w") as f:
            json.dump({n: [r.get(n) for r in runs] for n in names}, f, indent=1)
    # (group, operation) -> implementation -> [ns per run]
    table = {}
    for r in runs:
        for name, ns in r.items():
            group, _, rest = name.partition("/")
            op, _, impl = rest.rpartition("/")
            if not op:
                op, impl = rest, "alibi"
            table.setdefault((group, op), {}).setdefault(impl, []).append(ns)
    threads = f", RAYON_NUM_THREADS={a.threads}" if a.threads else ""
    print(f"<!-- scripts/bench_runs.py --runs {a.runs}{' --threads ' + str(a.threads) if a.threads else ''}"
          f"{' --features ' + a.features if a.features else ''} {a.crate} {a.bench} '{a.filter}' -->")
    print(f"| group | operation | alibi: median of {a.runs} runs (range) | peer: median (range) "
          f"| alibi / peer, each run{threads} |")
    print("|---|---|---|---|---|")
    for (group, op), impls in table.items():
        ours = impls.get("alibi")
        peers = {k: v for k, v in impls.items() if k != "alibi"}
        if not peers:
            print(f"| {group} | {op} | {spread(ours)} | - | - |")
            continue
        for peer, theirs in peers.items():
            if ours and len(ours) == len(theirs):
                ratios = ", ".join(f"{o / t:.2f}" for o, t in zip(ours, theirs))
            else:
                ratios = "-"
            print(f"| {group} | {op} | {spread(ours) if ours else '-'} | "
                  f"{spread(theirs)} ({peer}) | {ratios} |")


if __name__ == "__main__":
    main()
