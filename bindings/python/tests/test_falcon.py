"""alibi.falcon: keys, signatures, the preimage sampler, every error."""

import pytest
from hypothesis import given, settings, strategies as st

import alibi
from alibi import falcon

Q = 12289


@pytest.fixture(scope="module", params=[512, 1024])
def key(request):
    return falcon.SigningKey.generate(request.param)


def test_sizes_are_the_specifications(key):
    n = key.level
    assert len(key.to_bytes()) == {512: 1281, 1024: 2305}[n]
    assert len(key.verifying_key().to_bytes()) == {512: 897, 1024: 1793}[n]
    sig = key.sign(b"m")
    assert sig[0] == 0x30 + {512: 9, 1024: 10}[n]


@given(msg=st.binary(max_size=256))
def test_sign_verify_round_trip(key, msg):
    sig = key.sign(msg)
    vk = falcon.VerifyingKey.from_bytes(key.verifying_key().to_bytes())
    vk.verify(msg, sig)
    with pytest.raises(alibi.InvalidSignature):
        vk.verify(msg + b"x", sig)


@given(flip=st.integers(min_value=41, max_value=600))
def test_a_changed_signature_is_refused(key, flip):
    msg = b"fixed"
    sig = bytearray(key.sign(msg))
    sig[flip % len(sig)] ^= 0x01
    with pytest.raises((alibi.InvalidSignature, alibi.MalformedInput)):
        key.verifying_key().verify(msg, bytes(sig))


def test_keys_round_trip_through_bytes(key):
    again = falcon.SigningKey.from_bytes(key.to_bytes())
    assert again.to_bytes() == key.to_bytes()
    assert again.verifying_key() == key.verifying_key()
    assert hash(again.verifying_key()) == hash(key.verifying_key())


def test_a_seed_fixes_the_key():
    a = falcon.SigningKey.generate(512, seed=bytes(32))
    b = falcon.SigningKey.generate(512, seed=bytes(32))
    c = falcon.SigningKey.generate(512, seed=bytes([1]) * 32)
    assert a.to_bytes() == b.to_bytes() != c.to_bytes()
    with pytest.raises(ValueError):
        falcon.SigningKey.generate(512, seed=b"short")


def test_errors_are_typed():
    with pytest.raises(ValueError):
        falcon.SigningKey.generate(768)
    with pytest.raises(alibi.MalformedInput):
        falcon.VerifyingKey.from_bytes(b"\x09" + bytes(10))
    with pytest.raises(alibi.MalformedInput):
        falcon.SigningKey.from_bytes(b"")
    k512 = falcon.SigningKey.generate(512, seed=bytes(32))
    k1024 = falcon.SigningKey.generate(1024, seed=bytes(32))
    with pytest.raises(alibi.KeyMismatch):
        k512.verifying_key().verify(b"m", k1024.sign(b"m"))
    with pytest.raises(alibi.MalformedInput):
        k512.verifying_key().verify(b"m", b"\x39")
    assert issubclass(alibi.MalformedInput, alibi.Error)


def test_the_secret_never_prints(key):
    assert "secret" in repr(key)
    assert key.to_bytes().hex()[:16] not in repr(key)
    assert str(key) == repr(key)


@settings(max_examples=5)
@given(data=st.data())
def test_the_preimage_sampler_solves_the_target(data):
    key = falcon.SigningKey.generate(512, seed=bytes(32))
    c = data.draw(st.lists(st.integers(0, Q - 1), min_size=512, max_size=512))
    s1, s2 = key.sample_preimage(c)
    # s1 + s2 h = c mod q, checked by the verifier's arithmetic: h from the public key.
    h = _h(key.verifying_key().to_bytes())
    prod = _negacyclic(s2, h)
    assert all((a + b - t) % Q == 0 for a, b, t in zip(s1, prod, c))
    assert sum(x * x for x in s1 + s2) <= 34034726  # floor(beta^2) at 512


def test_the_sampler_refuses_a_bad_target():
    key = falcon.SigningKey.generate(512, seed=bytes(32))
    with pytest.raises(alibi.MalformedInput):
        key.sample_preimage([Q] * 512)
    with pytest.raises(alibi.MalformedInput):
        key.sample_preimage([0] * 100)


def _h(pk: bytes):
    """h from a Falcon-512 public key: 512 coefficients of 14 bits, most significant bit first."""
    bits = int.from_bytes(pk[1:], "big")
    total = (len(pk) - 1) * 8
    return [(bits >> (total - 14 * (i + 1))) & 0x3FFF for i in range(512)]


def _negacyclic(a, b):
    n = len(a)
    out = [0] * n
    for i, x in enumerate(a):
        if x == 0:
            continue
        for j, y in enumerate(b):
            k = i + j
            if k < n:
                out[k] += x * y
            else:
                out[k - n] -= x * y
    return out
