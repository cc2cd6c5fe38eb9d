"""The timing helpers of the examples: seconds per call from a timed loop, and a median with
its range for the tables."""

import statistics
import time


def per_call(fn, seconds=0.3):
    """Seconds per call of `fn`, from a loop of about `seconds`."""
    n, start = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed / n


def spread(xs, scale=1.0, unit="", digits=2):
    """`median (min-max)` of `xs` times `scale`, with `unit` after the median."""
    med, lo, hi = (v * scale for v in (statistics.median(xs), min(xs), max(xs)))
    return f"{med:.{digits}f}{unit} ({lo:.{digits}f}-{hi:.{digits}f})"
