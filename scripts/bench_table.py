#!/usr/bin/env python3
"""Markdown table of Criterion medians, ours next to the peer, from target/criterion.

Usage: scripts/bench_table.py GROUP [GROUP ...]   e.g. scripts/bench_table.py Falcon-512 Falcon-1024
Each group holds benchmarks named <operation>/<implementation>; 'alibi' is ours, any other is a peer.

       scripts/bench_table.py --ring GROUP [GROUP ...]   e.g. --ring ring-Falcon-512
       scripts/bench_table.py --pairwise | --groups | --akem | --table2 | --dgsp | --mayo   (one table each)
Ring groups hold sign/<N>, verify/<N>, falcon-sign and falcon-verify: each ring figure is shown with its
ratio to our plain Falcon figure from the same run.
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


def ring(groups):
    print("| level | members | sign (median) | sign / Falcon sign | verify (median) | verify / Falcon verify | signature bytes |")
    print("|---|---|---|---|---|---|---|")
    for group in groups:
        fs = median_ns(group, "falcon-sign")
        fv = median_ns(group, "falcon-verify")
        sizes = sorted(int(d.name.split("_")[1]) for d in (ROOT / group).iterdir()
                       if d.name.startswith("sign_"))
        block = 626 if "512" in group else 1240
        print(f"| {group} | Falcon (1 key) | {fmt(fs)} | 1 | {fmt(fv)} | 1 | - |")
        for n in sizes:
            s_ = median_ns(group, f"sign_{n}")
            v_ = median_ns(group, f"verify_{n}")
            print(f"| {group} | {n} | {fmt(s_)} | {s_ / fs:.2f} | {fmt(v_)} | {v_ / fv:.2f} | {n * block + 24} |")


def akem(group="akem"):
    rows = [("DH-AKEM (RFC 9180 DHKEM X25519)", "dh-akem", ("gen", "enc", "dec")),
            ("DH-AKEM, artifact SHA3 form", "dh-akem-artifact", ("enc", "dec")),
            ("DHKEM(X25519) in the hpke crate (peer)", "dh-akem-hpke-crate", ("enc", "dec")),
            ("PQ-AKEM[ML-KEM-512, GANDALF]", "pq-akem", ("gen", "enc", "dec")),
            ("SHADOWFAX", "shadowfax", ("gen", "enc", "dec")),
            ("GANDALF[Falcon-512] (gen / sign / verify)", "gandalf", ("gen", "sign", "verify"))]
    print("| scheme | Gen | Enc / Sign | Dec / Verify |")
    print("|---|---|---|---|")
    for name, key, ops in rows:
        cells = []
        for col in ("gen", "enc", "dec"):
            op = {"enc": ops[1] if len(ops) == 3 else "enc", "dec": ops[-1], "gen": "gen"}[col]
            d = ROOT / group / f"{key}_{op}"
            cells.append(fmt(median_ns(group, d.name)) if (d / "new").exists() else "-")
        print(f"| {name} | {' | '.join(cells)} |")
    enc = median_ns(group, "shadowfax_enc") / median_ns(group, "dh-akem_enc")
    dec = median_ns(group, "shadowfax_dec") / median_ns(group, "dh-akem_dec")
    print()
    print(f"SHADOWFAX / DH-AKEM: Enc {enc:.2f}, Dec {dec:.2f}")


def table2(group="table2"):
    names = sorted({d.name.rsplit("_", 1)[0] for d in (ROOT / group).iterdir() if "_" in d.name},
                   key=lambda n: (not n.startswith("tachyon"), n))
    print("| scheme | sign (median) | verify (median) | end-to-end delay |")
    print("|---|---|---|---|")
    e2e = {}
    for n in names:
        s_ = median_ns(group, f"{n}_sign")
        # The pre-computation variant only changes signing: it verifies as the plain scheme.
        vname = n.removesuffix("-precomp")
        v_ = median_ns(group, f"{vname}_verify") if (ROOT / group / f"{vname}_verify").exists() else None
        if v_ is None:
            continue
        e2e[n] = s_ + v_
        print(f"| {n} | {fmt(s_)} | {fmt(v_)} | {fmt(s_ + v_)} |")
    if "tachyon-128" in e2e and "ml-dsa-44" in e2e:
        print()
        print(f"TACHYON-128 end-to-end / ML-DSA-44 end-to-end: {e2e['tachyon-128'] / e2e['ml-dsa-44']:.2f}")


def dgsp(group="dgsp-shake256f"):
    """The seed's layout: every operation in memory, and on disk where storage is touched."""
    rows = [("keygen", "keygen"), ("join", "join"), ("csr", "csr"), ("csr, batch 8", "csr8"),
            ("gen_cert", "gen_cert"), ("gen_cert, batch 8", "gen_cert8"), ("sign", "sign"),
            ("verify", "verify"), ("open", "open"), ("judge", "judge"), ("revoke", "revoke")]
    show = lambda v: fmt(v) if v >= 1e3 else f"{v:.0f} ns"
    print("| operation | alibi, memory | dgsp 0.1.2, memory | speed-up | alibi, disk (redb) "
          "| dgsp 0.1.2, disk (sled) | speed-up |")
    print("|---|---|---|---|---|---|---|")
    for label, op in rows:
        cells = []
        for tag in ["", "-disk"]:
            try:
                a = median_ns(group, f"{op}{tag}_alibi")
                d = median_ns(group, f"{op}{tag}_dgsp-0.1.2")
                r = d / a
                cells += [show(a), show(d), f"{r:.2f}x" if r >= 0.1 else f"{r:.1g}x"]
            except FileNotFoundError:
                cells += ["-", "-", "-"]
        print(f"| {label} | " + " | ".join(cells) + " |")
    print()
    side_by_side("sphincs-shake256f", ["keygen", "sign", "verify"], "pqclean",
                 "PQClean AVX2", first="SPHINCS+-SHAKE-256f")


def mayo():
    """MAYO next to liboqs (alibi-mayo's `mayo` bench), and MAYO-RS against MAYO in the same run
    (alibi-ringsig's `mayo_rs` bench, which writes its own sign-expanded and verify-expanded rows
    into the same groups: run it after the `mayo` bench)."""
    show = lambda v: fmt(v) if v >= 1e3 else f"{v:.0f} ns"
    print("| level | operation | alibi (median) | liboqs (median) | ratio alibi / liboqs |")
    print("|---|---|---|---|---|")
    for level in ["MAYO_1", "MAYO_2"]:
        g = f"mayo-{level}"
        for op in ["keygen", "sign", "verify"]:
            a = median_ns(g, f"{op}_alibi")
            try:
                d = median_ns(g, f"{op}_liboqs")
                print(f"| {level} | {op} | {show(a)} | {show(d)} | {a / d:.2f} |")
            except FileNotFoundError:
                print(f"| {level} | {op} | {show(a)} | - | - |")
        for op in ["sign-expanded", "verify-expanded"]:
            a = median_ns(g, f"{op}_alibi")
            print(f"| {level} | {op} (key already expanded) | {show(a)} | - | - |")
    print()
    print("| level | ring sign (2 members) | ring sign / sign | ring verify | ring verify / verify "
          "| seed's ratios (MAYO_1) |")
    print("|---|---|---|---|---|---|")
    for level in ["MAYO_1", "MAYO_2"]:
        g = f"mayo-{level}"
        rs, rv = median_ns(g, "ring-sign_alibi"), median_ns(g, "ring-verify_alibi")
        s_, v_ = median_ns(g, "sign-expanded_alibi"), median_ns(g, "verify-expanded_alibi")
        seed = "1.25 / 1.65" if level == "MAYO_1" else "-"
        print(f"| {level} | {show(rs)} | {rs / s_:.2f} | {show(rv)} | {rv / v_:.2f} | {seed} |")


# libsignal's own Criterion medians (rust/protocol/benches/session.rs) measured on this machine, as
# quoted in the pairwise-channel issue; libsignal cannot be built from crates.io alone.
LIBSIGNAL_RUST_US = {
    "process_prekey_bundle": 979,
    "decrypt_prekey_new_session": 931,
    "decrypt_first_on_new_chain": 355,
    "encrypt_existing_chain": 42,
    "decrypt_existing_chain": 39,
}


def pairwise():
    """Our pairwise sessions next to libsignal: its Rust figures (quoted) and the npm package
    under Node measured in the same run."""
    print("| operation | alibi (median) | libsignal Rust (quoted) | alibi speed-up | "
          "libsignal 0.90.0 via Node (same run) | alibi speed-up |")
    print("|---|---|---|---|---|---|")
    for op, rust_us in LIBSIGNAL_RUST_US.items():
        a = median_ns("pairwise", op)
        try:
            n = median_ns("pairwise-libsignal-node", op)
            node = f"{fmt(n)} | {n / a:.1f}x"
        except FileNotFoundError:
            node = "- | -"
        print(f"| {op} | {fmt(a)} | {rust_us} µs | {rust_us * 1e3 / a:.1f}x | {node} |")


# libsignal's own Criterion medians (rust/protocol/benches/sealed_sender.rs and group_cipher.rs) on
# this machine, as quoted in the group-channel issue and the research notes.
LIBSIGNAL_GROUPS_US = [
    ("sealed", "v1_encrypt", "sealed sender v1 encrypt", 174),
    ("sealed", "v1_decrypt", "sealed sender v1 decrypt", 213),
    ("sealed", "v2_encrypt", "sealed sender v2 encrypt (1 recipient)", 219),
    ("sealed", "v2_decrypt", "sealed sender v2 decrypt", 169),
    ("sealed-v2-multi-recipient", "2", "v2 to 2 recipients", 360),
    ("sealed-v2-multi-recipient", "10", "v2 to 10 recipients", 1510),
    ("sealed-v2-multi-recipient", "100", "v2 to 100 recipients", 20000),
    ("sealed-v2-multi-recipient", "1000", "v2 to 1,000 recipients", 186000),
    ("sender-key", "encrypt", "sender-key encrypt", None),
    ("sender-key", "decrypt", "sender-key decrypt", None),
    ("sender-key", "decrypt_skip_100", "sender-key decrypt, 100 skipped", 1200),
    ("sender-key", "decrypt_skip_1000", "sender-key decrypt, 1,000 skipped", 12700),
]


def groups():
    """Our group messaging next to libsignal's own figures (quoted)."""
    print("| operation | alibi (median) | libsignal Rust (quoted) | alibi speed-up |")
    print("|---|---|---|---|")
    for group, bench, name, ref_us in LIBSIGNAL_GROUPS_US:
        a = median_ns(group, bench)
        if ref_us is None:
            print(f"| {name} | {fmt(a)} | - | - |")
        else:
            ref = f"{ref_us / 1e3:.2f} ms" if ref_us >= 1000 else f"{ref_us} µs"
            print(f"| {name} | {fmt(a)} | {ref} | {ref_us * 1e3 / a:.1f}x |")


def side_by_side(group, ops, peer, peer_name, first="operation"):
    """Ours and a peer's medians per operation, with the ratio ours / peer and its inverse."""
    print(f"| {first} | alibi (median) | {peer_name} (median) | ratio alibi / peer | speed-up |")
    print("|---|---|---|---|---|")
    for op in ops:
        a = median_ns(group, f"{op}_alibi")
        d = median_ns(group, f"{op}_{peer}")
        show = lambda v: fmt(v) if v >= 1e3 else f"{v:.0f} ns"
        print(f"| {op} | {show(a)} | {show(d)} | {a / d:.2f} | {d / a:.2f}x |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--groups"]:
        groups()
    elif sys.argv[1:2] == ["--pairwise"]:
        pairwise()
    elif sys.argv[1:2] == ["--dgsp"]:
        dgsp()
    elif sys.argv[1:2] == ["--mayo"]:
        mayo()
    elif sys.argv[1:2] == ["--table2"]:
        table2()
    elif sys.argv[1:2] == ["--akem"]:
        akem()
    elif sys.argv[1:2] == ["--ring"]:
        ring(sys.argv[2:] or ["ring-Falcon-512", "ring-Falcon-1024"])
    else:
        main(sys.argv[1:] or ["Falcon-512", "Falcon-1024"])
