"""Every decoder of untrusted bytes, fed arbitrary bytes: it decodes or raises an alibi error,
never anything else (a Rust panic would surface as pyo3's PanicException)."""

import pytest
from hypothesis import given, settings, strategies as st

import alibi
from alibi import akem, bat, bls, dgsp, falcon, mayo, ring, tachyon

FALCON = falcon.SigningKey.generate(512, seed=bytes(32))
FALCON_VK = FALCON.verifying_key()
MAYO_VK = mayo.SigningKey.generate("MAYO_1", seed=bytes(32)).verifying_key()
TACHYON_VK = tachyon.SigningKey.generate("128", seed=bytes(32)).verifying_key()
RING = ring.Ring([ring.generate("falcon512", bytes([i]) * 32)[0] for i in range(2)])
SHADOWFAX = akem.SecretKey.generate("shadowfax", seed=bytes(32))
BAT = bat.SecretKey.generate(bytes(32))

DECODERS = {
    "falcon signing key": falcon.SigningKey.from_bytes,
    "falcon verifying key": falcon.VerifyingKey.from_bytes,
    "falcon signature": lambda b: FALCON_VK.verify(b"m", b),
    "mayo verifying key": lambda b: mayo.VerifyingKey.from_bytes("MAYO_1", b),
    "mayo signature": lambda b: MAYO_VK.verify(b"m", b),
    "tachyon verifying key": tachyon.VerifyingKey.from_bytes,
    "tachyon signing key": tachyon.SigningKey.from_bytes,
    "tachyon signature": lambda b: TACHYON_VK.verify(b"m", b),
    "ring member": lambda b: ring.Ring([b, b + b"\x00"]),
    "ring signature": lambda b: RING.verify(b"m", b),
    "ring secret key": lambda b: ring.SigningKey.from_bytes("mitaka512", b),
    "akem secret key": lambda b: akem.SecretKey.from_bytes("pq", b),
    "akem ciphertext": lambda b: SHADOWFAX.decap(SHADOWFAX.public_key(), b),
    "akem public key": lambda b: SHADOWFAX.encap(b),
    "bat ciphertext": BAT.decapsulate,
    "bat public key": bat.encapsulate,
    "bls": lambda b: bls.verify(b[:48], b"m", b[48:]),
    "dgsp credential": lambda b: dgsp.csr(b, 1),
    "dgsp user key": dgsp.UserKey.from_bytes,
    "dgsp signature": lambda b: dgsp.verify(b"\x07" + bytes(32), b"m", b),
}


@pytest.mark.parametrize("name", sorted(DECODERS))
@settings(max_examples=40)
@given(data=st.binary(max_size=3000))
def test_arbitrary_bytes_raise_only_alibi_errors(name, data):
    try:
        DECODERS[name](data)
    except (alibi.Error, ValueError):
        pass
