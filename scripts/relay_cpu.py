#!/usr/bin/env python3
"""Runs `alibi relay bench` against a relay in its own process and reports the relay's CPU time
per stored envelope, beside the bench's own table.

Usage: scripts/relay_cpu.py [--alibi PATH] (--db FILE | --postgres URL) [-- BENCH ARGS...]
   e.g. scripts/relay_cpu.py --db /tmp/cpu.redb -- --pairs 16 --messages 20000 --recipients 1000 --sends 20

The relay (`alibi relay serve`) runs alone in its process, so its CPU time (user + system, from
/proc/PID/stat) is the relay's, not the bench client's or PostgreSQL's. Every 0.2 s the script
reads that time and the relay's `alibi_relay_envelopes_accepted_total` from GET /metrics. Only
intervals in which envelopes were accepted count, so account creation (an Argon2id run per device,
before each scenario) stays out; an interval where creation and sending overlap counts in full,
so the figure is an upper bound by at most a few intervals' worth. The timeline splits into the
bench's two scenarios at the longest run of intervals without envelopes (the multi-recipient
scenario's account creation), and each is reported on its own.
"""
import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import http.client

TICK = os.sysconf("SC_CLK_TCK")
ACCEPTED = re.compile(r"^alibi_relay_envelopes_accepted_total (\d+)", re.M)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # utime and stime are fields 14 and 15 of stat(5); [0] here is field 3.
    return (int(fields[11]) + int(fields[12])) / TICK


class Metrics:
    """The relay's accepted-envelope counter over one kept-alive connection (the relay limits
    new connections per address, and the bench makes many)."""

    def __init__(self, port):
        self.port = port
        self.conn = None

    def accepted(self):
        for _ in range(3):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                self.conn.request("GET", "/metrics")
                body = self.conn.getresponse().read().decode()
                return int(ACCEPTED.search(body).group(1))
            except (OSError, http.client.HTTPException, AttributeError):
                self.conn = None
                time.sleep(0.05)
        return None


def phases(samples):
    """Splits (cpu, accepted) deltas at the longest run of intervals without envelopes."""
    deltas = [(b[1] - a[1], b[2] - a[2]) for a, b in zip(samples, samples[1:])]
    best, run, best_end = 0, 0, None
    seen = False
    for i, (_, env) in enumerate(deltas):
        seen |= env > 0
        run = run + 1 if env == 0 and seen else 0
        if run > best:
            best, best_end = run, i
    if best_end is None:
        return [deltas]
    return [deltas[: best_end - best + 1], deltas[best_end + 1 :]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--alibi", default="target/release/alibi")
    store = ap.add_mutually_exclusive_group(required=True)
    store.add_argument("--db")
    store.add_argument("--postgres")
    ap.add_argument("bench", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    bench_args = [x for x in a.bench if x != "--"]
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        serve = [a.alibi, "relay", "serve", "--listen", f"127.0.0.1:{port}",
                 "--trust-root", os.path.join(tmp, "root"),
                 "--account-creations", "100000,1000", "--password-checks", "100000,10000",
                 "--max-connections-per-address", "10000", "--log-level", "warn"]
        serve += ["--db", a.db] if a.db else ["--postgres", a.postgres]
        relay = subprocess.Popen(serve)
        metrics = Metrics(port)
        bench = None
        try:
            for _ in range(100):
                if metrics.accepted() is not None:
                    break
                time.sleep(0.1)
            else:
                sys.exit("the relay did not come up")
            bench = subprocess.Popen([a.alibi, "relay", "bench", "--url", url] + bench_args)
            samples = []
            while bench.poll() is None:
                n = metrics.accepted()
                if n is not None:
                    samples.append((time.monotonic(), cpu_seconds(relay.pid), n))
                time.sleep(0.2)
            n = metrics.accepted()
            samples.append((time.monotonic(), cpu_seconds(relay.pid), n or samples[-1][2]))
            if bench.returncode != 0:
                sys.exit(f"the bench failed ({bench.returncode})")
        finally:
            if bench is not None and bench.poll() is None:
                bench.kill()
            relay.terminate()
            relay.wait()
    print("\n| scenario (in order) | envelopes | relay CPU (s) | relay CPU per envelope (µs) |")
    print("|---|---|---|---|")
    for i, p in enumerate(phases(samples)):
        cpu = sum(c for c, e in p if e > 0)
        env = sum(e for _, e in p if e > 0)
        if env:
            print(f"| {i + 1} | {env} | {cpu:.2f} | {cpu / env * 1e6:.1f} |")


if __name__ == "__main__":
    main()
