"""The cost of a call across the binding, and how a thread pool scales.

    python bindings/python/examples/overhead.py [--runs 5] [--criterion DIR]

1. One fast and one slow operation timed from Python beside the same operation in Rust's
   Criterion benchmark (crates/alibi-falcon/benches/falcon.rs, group Falcon-512): verification
   with a decoded key, the signature decoded on each call (`verify-reused/alibi`, ~7 µs), and
   signing with a decoded key (`sign-expanded/alibi`, ~140 µs), on the same message. The Rust
   figures are read from Criterion's estimates: run `cargo bench -p alibi-falcon --bench falcon
   -- 'Falcon-512/(sign-expanded|verify-reused)/alibi'` first (the `bench` profile, whose code
   generation the wheel's `wheel` profile repeats, so that the work compared is equal); the
   overhead is the difference.
2. Signing 64 messages from one thread and from a pool of as many threads as the machine has
   cores: the binding releases the interpreter around each operation, so the pool's speed-up
   shows whether it does.
"""

import argparse
import json
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from timing import per_call, spread

from alibi import falcon, mayo

MSG = b"the quick brown fox jumps over the lazy dog"
REPO = Path(__file__).resolve().parents[3]


def criterion(directory: Path, bench: str):
    """Criterion's median estimate (seconds) of Falcon-512/<bench>, or None."""
    path = directory / "Falcon-512" / bench.replace("/", "_") / "new" / "estimates.json"
    if not path.exists():
        return None
    return json.loads(path.read_text())["median"]["point_estimate"] * 1e-9


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    ap.add_argument("--criterion", type=Path, default=target / "criterion")
    args = ap.parse_args()

    key = falcon.SigningKey.generate(512, seed=bytes(32))
    vk = key.verifying_key()
    sig = key.sign(MSG)
    print("| operation | Python: median (range) | Rust Criterion (median) | overhead per call |")
    print("|---|---|---|---|")
    for label, fn, bench in (
        ("Falcon-512 verify (decoded key)", lambda: vk.verify(MSG, sig), "verify-reused/alibi"),
        ("Falcon-512 sign (decoded key)", lambda: key.sign(MSG), "sign-expanded/alibi"),
    ):
        runs = [per_call(fn, 0.5) for _ in range(args.runs)]
        rust = criterion(args.criterion, bench)
        rust_text = f"{rust * 1e6:.1f} µs" if rust else "not run"
        over = f"{(statistics.median(runs) - rust) * 1e6:+.2f} µs" if rust else "-"
        print(f"| {label} | {spread(runs, 1e6, ' µs', 1)} | {rust_text} | {over} |")

    cores = os.cpu_count() or 1
    print()
    print(f"| 64 signatures | one thread | {cores} threads | speed-up |")
    print("|---|---|---|---|")
    mkey = mayo.SigningKey.generate("MAYO_1", seed=bytes(32))
    for label, sign in (("Falcon-512", key.sign), ("MAYO_1", mkey.sign)):
        msgs = [bytes([i]) * 32 for i in range(64)]
        one, many = [], []
        with ThreadPoolExecutor(cores) as pool:
            for _ in range(args.runs):
                t = time.perf_counter()
                for m in msgs:
                    sign(m)
                one.append(time.perf_counter() - t)
                t = time.perf_counter()
                list(pool.map(sign, msgs))
                many.append(time.perf_counter() - t)
        ups = [a / b for a, b in zip(one, many)]
        print(f"| {label} | {spread(one, 1e3, ' ms')} | {spread(many, 1e3, ' ms')} | {statistics.median(ups):.2f}x ({min(ups):.2f}-{max(ups):.2f}) |")


if __name__ == "__main__":
    main()
