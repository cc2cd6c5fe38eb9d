#!/usr/bin/env python3
"""Summarises several runs of `alibi mpc bench` as the Markdown tables of docs/BENCHMARKS.md.

Usage: scripts/mpc_runs.py [--combined FILE] RUN.csv [RUN.csv ...]
   e.g. scripts/mpc_runs.py --combined docs/mpc-ecdsa-runs.csv ecdsa-1.csv ecdsa-2.csv

Each CSV is one run of the bench (columns scheme,n,t,delay_ms,run,transport,keygen_ms,sign_ms,
requests,bytes); the runs are numbered in the order given, and a cell measured in several files
counts once per file. Per scheme, one row per (n, delay, first/later): each time is the median of
the runs with their range in parentheses when there are several; each "group vs" percentage
(how much less time the group transport took than the baseline) is taken inside one run and then
the median over runs, so drift between runs does not enter it; requests and KiB sent are medians.
--combined also writes every row with a leading `repeat` column.
"""
import argparse
import csv
import statistics
import sys

MODES = ["pairwise", "pairwise-concurrent", "group"]


def read_runs(paths):
    rows = []
    for repeat, path in enumerate(paths, start=1):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                rows.append(dict(row, repeat=str(repeat)))
    return rows


def fmt(values):
    mid = statistics.median(values)
    if len(values) == 1:
        return f"{mid:.0f}"
    return f"{mid:.0f} ({min(values):.0f}-{max(values):.0f})"


def faster(baseline, group):
    return 100.0 * (1.0 - group / baseline)


def cell_row(rows, key):
    """One table row: times per transport, percentages per run, traffic medians."""
    by = {}
    for r in rows:
        by.setdefault((r["repeat"], r["transport"]), r)
    repeats = sorted({r["repeat"] for r in rows}, key=int)
    out = []
    for what in ["keygen_ms", "sign_ms"]:
        for mode in MODES:
            vals = [float(by[(k, mode)][what]) for k in repeats if (k, mode) in by]
            out.append(fmt(vals) if vals else "-")
        for base in MODES[:2]:
            pct = [
                faster(float(by[(k, base)][what]), float(by[(k, "group")][what]))
                for k in repeats
                if (k, base) in by and (k, "group") in by
            ]
            out.append(f"{round(statistics.median(pct))}%" if pct else "-")
    for what, scale in [("requests", 1), ("bytes", 1024)]:
        parts = []
        for mode in MODES:
            vals = [float(by[(k, mode)][what]) / scale for k in repeats
                    if (k, mode) in by and by[(k, mode)][what] != ""]
            parts.append(f"{statistics.median(vals):.0f}" if vals else "-")
        out.append(" / ".join(parts))
    n, delay, run = key
    return [str(n), f"{delay} ms", run] + out


HEADER = ("| n | delay | run | keygen pairwise | keygen concurrent | keygen group | group vs pairwise"
          " | group vs concurrent | sign pairwise | sign concurrent | sign group | group vs pairwise"
          " | group vs concurrent | requests p / c / g | KiB sent p / c / g |")


def tables(rows):
    for scheme in dict.fromkeys(r["scheme"] for r in rows):
        mine = [r for r in rows if r["scheme"] == scheme]
        runs = len({r["repeat"] for r in mine})
        print(f"{scheme} ({runs} run{'s' if runs > 1 else ''})\n")
        print(HEADER)
        print("|" + "---|" * 15)
        keys = sorted({(int(r["delay_ms"]), int(r["n"]), r["run"] != "first") for r in mine})
        for delay, n, later in keys:
            run = "later" if later else "first"
            cell = [r for r in mine
                    if int(r["n"]) == n and int(r["delay_ms"]) == delay and r["run"] == run]
            print("| " + " | ".join(cell_row(cell, (n, delay, run))) + " |")
        print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--combined", help="write every row with a repeat column to this CSV")
    ap.add_argument("runs", nargs="+", help="CSVs written by alibi mpc bench, one per run")
    args = ap.parse_args()
    try:
        rows = read_runs(args.runs)
    except (OSError, KeyError, csv.Error) as e:
        sys.exit(f"mpc_runs: {e}")
    if not rows:
        sys.exit("mpc_runs: no rows")
    if args.combined:
        cols = ["repeat"] + [c for c in rows[0] if c != "repeat"]
        with open(args.combined, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
    tables(rows)


if __name__ == "__main__":
    main()
