"""Seed 000's headline from Python: two-member ring signing and verification against plain
signing and verification, for Falcon-512 (GANDALF) and MAYO_1 / MAYO_2 (MAYO-RS), beside the
paper's Table 3 ratios (quoted, Megacycles on the authors' machine).

    python bindings/python/examples/seed000_ratios.py [--runs 5]

Each figure is the median of several runs of a timed loop; the ratio is taken within each run,
and the table gives its median and range. Signing uses a decoded key on both sides, as the Rust
table in docs/BENCHMARKS.md does; verification starts from the signature's bytes on both sides.
"""

import argparse
import statistics

from timing import per_call, spread

from alibi import falcon, mayo, ring

# Table 3 of the paper (quoted): ring sign / sign and ring verify / verify at two members.
PAPER = {
    "Falcon-512": (0.74 / 0.26, 0.04 / 0.02),
    "MAYO_1": (1.1 / 0.88, 0.28 / 0.17),
    "MAYO_2": (1.5 / 1.1, 0.16 / 0.09),
}
MSG = b"the quick brown fox jumps over the lazy dog"


def schemes():
    """(name, plain sign, plain verify, ring sign, ring verify) closures for each scheme."""
    fk = falcon.SigningKey.generate(512, seed=bytes(32))
    fvk = fk.verifying_key()
    fsig = fk.sign(MSG)
    (p0, k0), (p1, _) = ring.generate("falcon512", bytes(32)), ring.generate("falcon512", bytes([1]) * 32)
    fr = ring.Ring([p0, p1])
    frs = fr.sign(k0, MSG)
    yield "Falcon-512", (lambda: fk.sign(MSG)), (lambda: fvk.verify(MSG, fsig)), (lambda: fr.sign(k0, MSG)), (lambda: fr.verify(MSG, frs))
    for params, rname in (("MAYO_1", "mayo1"), ("MAYO_2", "mayo2")):
        mk = mayo.SigningKey.generate(params, seed=bytes(32))
        mvk = mk.verifying_key()
        msig = mk.sign(MSG)
        (q0, j0), (q1, _) = ring.generate(rname, bytes(32)), ring.generate(rname, bytes([1]) * 32)
        mr = ring.Ring([q0, q1])
        mrs = mr.sign(j0, MSG)
        yield params, (lambda mk=mk: mk.sign(MSG)), (lambda mvk=mvk, s=msig: mvk.verify(MSG, s)), (lambda mr=mr, j=j0: mr.sign(j, MSG)), (lambda mr=mr, s=mrs: mr.verify(MSG, s))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="runs per figure (default 5)")
    args = ap.parse_args()
    print("| scheme | sign | ring sign (2) | ring sign / sign | paper (quoted) | verify | ring verify (2) | ring verify / verify | paper (quoted) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, sign, verify, rsign, rverify in schemes():
        runs = [(per_call(sign), per_call(rsign), per_call(verify), per_call(rverify)) for _ in range(args.runs)]
        s, rs, v, rv = (statistics.median(r[i] for r in runs) * 1e6 for i in range(4))
        sr = spread([r[1] / r[0] for r in runs])
        vr = spread([r[3] / r[2] for r in runs])
        ps, pv = PAPER[name]
        print(f"| {name} | {s:.1f} µs | {rs:.1f} µs | {sr} | {ps:.2f} | {v:.1f} µs | {rv:.1f} µs | {vr} | {pv:.2f} |")


if __name__ == "__main__":
    main()
