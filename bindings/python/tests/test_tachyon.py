"""alibi.tachyon: with and without the cached x_i, every level."""

import pytest

import alibi
from alibi import tachyon


@pytest.fixture(scope="module")
def key():
    return tachyon.SigningKey.generate("128", seed=bytes(32))


def test_the_cache_changes_nothing_but_speed(key):
    cached = tachyon.SigningKey.from_bytes(key.to_bytes(), precompute=True)
    assert key.precomputation_len == 0
    assert cached.precomputation_len == 1024 * 256
    vk = key.verifying_key()
    for signer in (key, cached):
        vk.verify(b"m", signer.sign(b"m"))
    assert cached.verifying_key().to_bytes() == vk.to_bytes()


def test_round_trip_and_refusals(key):
    vk = tachyon.VerifyingKey.from_bytes(key.verifying_key().to_bytes())
    sig = key.sign(b"m")
    vk.verify(b"m", sig)
    with pytest.raises(alibi.InvalidSignature):
        vk.verify(b"n", sig)
    with pytest.raises(alibi.MalformedInput):
        vk.verify(b"m", sig[:-1])
    with pytest.raises(alibi.MalformedInput):
        tachyon.VerifyingKey.from_bytes(b"\xff" * 10)
    with pytest.raises(ValueError):
        tachyon.SigningKey.generate("512")
    assert tachyon.SigningKey.generate("128", seed=bytes(32)).to_bytes() == key.to_bytes()
    assert "secret" in repr(key)


@pytest.mark.parametrize("level", ["192", "256", "128s"])
def test_other_levels(level):
    k = tachyon.SigningKey.generate(level, precompute=True)
    assert k.level == level
    k.verifying_key().verify(b"m", k.sign(b"m"))
