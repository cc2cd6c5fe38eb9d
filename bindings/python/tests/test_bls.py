"""alibi.bls: the ethereum/bls12-381-tests verify vectors the Rust tests read."""

import json

import pytest

import alibi
from alibi import bls
from conftest import VECTORS


def cases():
    d = VECTORS / "bls12381-g2-pop" / "verify"
    if not d.exists():
        pytest.skip(f"{d} not found")
    return sorted(d.iterdir())


def test_every_verify_vector():
    files = cases()
    assert files
    for f in files:
        c = json.loads(f.read_text())
        pk, msg, sig = (bytes.fromhex(c["input"][k][2:]) for k in ("pubkey", "message", "signature"))
        if c["output"]:
            bls.verify(pk, msg, sig)
        else:
            with pytest.raises((alibi.InvalidSignature, alibi.MalformedInput)):
                bls.verify(pk, msg, sig)


def test_malformed_inputs():
    with pytest.raises(alibi.MalformedInput):
        bls.verify(b"\x00" * 3, b"m", b"\x00" * 96)
