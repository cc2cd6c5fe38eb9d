"""alibi.ring: every scheme, rings of several sizes, the artifact's vectors, every error."""

import pytest
from hypothesis import given, settings, strategies as st

import alibi
from alibi import ring
from conftest import json_lines


@pytest.fixture(scope="module", params=list(ring.SCHEMES))
def members(request):
    """Four members of one scheme: (scheme, public keys, secret keys)."""
    pairs = [ring.generate(request.param, seed=bytes([i]) * 32) for i in range(4)]
    return request.param, [pk for pk, _ in pairs], [sk for _, sk in pairs]


def test_every_scheme_is_there():
    assert set(ring.SCHEMES) == {"falcon512", "falcon1024", "mitaka512", "mayo1", "mayo2"}


@settings(max_examples=8)
@given(size=st.integers(2, 4), signer=st.integers(0, 3), msg=st.binary(max_size=64))
def test_any_member_signs_for_any_ring(members, size, signer, msg):
    scheme, pks, sks = members
    signer %= size
    r = ring.Ring(pks[:size])
    assert (r.scheme, len(r)) == (scheme, size)
    sig = r.sign(sks[signer], msg)
    r.verify(msg, sig)
    ring.verify(pks[:size], msg, sig, scheme)
    with pytest.raises(alibi.InvalidSignature):
        r.verify(msg + b"!", sig)


def test_the_order_of_the_ring_is_signed(members):
    _, pks, sks = members
    sig = ring.sign(sks[0], pks[:3], b"m")
    with pytest.raises((alibi.InvalidSignature, alibi.MalformedInput)):
        ring.verify([pks[1], pks[0], pks[2]], b"m", sig)


def test_secret_keys_round_trip(members):
    scheme, pks, sks = members
    again = ring.SigningKey.from_bytes(scheme, sks[0].to_bytes())
    assert again.to_bytes() == sks[0].to_bytes()
    ring.verify(pks[:2], b"m", ring.sign(again, pks[:2], b"m"))
    assert "secret" in repr(again)


def test_refusals(members):
    scheme, pks, sks = members
    outsider_pk, outsider = ring.generate(scheme, seed=bytes([9]) * 32)
    with pytest.raises(alibi.KeyMismatch):
        ring.Ring(pks[:2]).sign(outsider, b"m")
    with pytest.raises(ValueError):
        ring.Ring(pks[:1])
    with pytest.raises(ValueError):
        ring.Ring([pks[0], pks[0]])
    with pytest.raises((alibi.MalformedInput, alibi.KeyMismatch)):
        ring.Ring([pks[0], pks[1][:-1]])
    with pytest.raises(alibi.MalformedInput):
        ring.Ring(pks[:2]).verify(b"m", b"\x00" * 7)
    with pytest.raises(ValueError):
        ring.generate("falcon768")


def test_schemes_do_not_mix():
    f, _ = ring.generate("falcon512", seed=bytes(32))
    m, _ = ring.generate("mayo1", seed=bytes(32))
    with pytest.raises(alibi.KeyMismatch, match="ring member 1 is a mayo1 public key"):
        ring.Ring([f, m])
    with pytest.raises(alibi.KeyMismatch):
        ring.Ring([f, f[:1] + bytes(896)], scheme="mayo1")


def test_the_artifacts_gandalf_mitaka_vectors():
    """GANDALF[Antrag, Mitaka] signatures and keys made by the SHADOWFAX authors' code
    (vectors/shadowfax-artifact-bat-mitaka): members are its raw h, 896 bytes."""
    lines = json_lines("shadowfax-artifact-bat-mitaka/gandalf_mitaka.jsonl")
    assert len(lines) == 25
    for v in lines:
        r = ring.Ring([bytes.fromhex(v["h0"]), bytes.fromhex(v["h1"])], "mitaka512")
        msg, sig = bytes.fromhex(v["msg"]), bytes.fromhex(v["sig"])
        if v["valid"]:
            r.verify(msg, sig)
        else:
            with pytest.raises((alibi.InvalidSignature, alibi.MalformedInput)):
                r.verify(msg, sig)
        key = ring.SigningKey.from_bytes("mitaka512", bytes.fromhex(v["sk%d" % v["signer"]]))
        r.verify(b"ours", r.sign(key, b"ours"))


@pytest.mark.parametrize(
    "schemes",
    [
        ("falcon512", "falcon1024"),
        ("falcon1024", "falcon512"),
        ("falcon512", "mayo1"),
        ("mayo1", "falcon512"),
        ("mayo1", "mayo2"),
        ("falcon512", "mitaka512"),
        ("mitaka512", "falcon512"),
    ],
)
def test_a_mixed_ring_is_a_key_mismatch(schemes):
    """docs/python.md: keys of two schemes or levels raise KeyMismatch, not MalformedInput, in
    whichever position the stranger stands."""
    keys = [ring.generate(s, seed=bytes([i]) * 32)[0] for i, s in enumerate(schemes)]
    first, second = schemes
    with pytest.raises(alibi.KeyMismatch, match=f"ring member 1 is a {second} public key"):
        ring.Ring(keys)
    with pytest.raises(alibi.KeyMismatch):
        ring.Ring([keys[0], ring.generate(first, seed=bytes([7]) * 32)[0], keys[1]])
    with pytest.raises(alibi.KeyMismatch):
        ring.verify(keys, b"m", b"\0" * 100, first)
