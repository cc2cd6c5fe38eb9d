"""alibi.bat: BAT-257 against the SHADOWFAX artifact's seeded vectors."""

import pytest

import alibi
from alibi import bat
from conftest import json_lines


def test_round_trip():
    sk = bat.SecretKey.generate()
    ct, k = bat.encapsulate(sk.public_key())
    assert len(ct) == 473
    assert sk.decapsulate(ct) == k
    again = bat.SecretKey.from_bytes(sk.to_bytes())
    assert again.decapsulate(ct) == k
    assert "secret" in repr(sk)


def test_a_seed_fixes_the_key():
    assert bat.SecretKey.generate(bytes(32)).to_bytes() == bat.SecretKey.generate(bytes(32)).to_bytes()


def test_implicit_rejection_and_errors():
    sk = bat.SecretKey.generate(bytes(32))
    ct, k = bat.encapsulate(sk.public_key())
    bad = bytearray(ct)
    bad[100] ^= 1
    assert sk.decapsulate(bytes(bad)) != k
    with pytest.raises(alibi.MalformedInput):
        sk.decapsulate(ct[:-1])
    with pytest.raises(alibi.MalformedInput):
        bat.encapsulate(b"\x00" * 5)
    with pytest.raises(alibi.MalformedInput):
        bat.SecretKey.from_bytes(b"")


def test_the_artifacts_seeded_vectors():
    """Secret keys, ciphertexts and keys made by the artifact (vectors/shadowfax-artifact-bat-
    mitaka/bat257_seeded.jsonl): its ciphertexts decapsulate to its keys, its altered ones to its
    implicit-rejection keys."""
    lines = json_lines("shadowfax-artifact-bat-mitaka/bat257_seeded.jsonl")
    assert len(lines) == 20
    for v in lines:
        sk = bat.SecretKey.from_bytes(bytes.fromhex(v["sk"]))
        assert sk.public_key().hex() == v["pk"]
        assert bytes(sk.decapsulate(bytes.fromhex(v["ct"]))).hex() == v["decap_key32"]
        assert bytes(sk.decapsulate(bytes.fromhex(v["rej_ct"]))).hex() == v["rej_key32"]
