"""The package's shape: the exception hierarchy, the modules, threads sharing keys."""

from concurrent.futures import ThreadPoolExecutor

import pytest

import alibi
from alibi import akem, bat, bls, dgsp, ecdsa, falcon, frost, mayo, ring, tachyon


def test_every_exception_is_an_alibi_error():
    for e in (
        alibi.MalformedInput,
        alibi.InvalidSignature,
        alibi.Revoked,
        alibi.InvalidCiphertext,
        alibi.KeyMismatch,
        alibi.InvalidOpening,
        alibi.GroupError,
        alibi.StoreError,
    ):
        assert issubclass(e, alibi.Error) and e.__module__ == "alibi"
    assert issubclass(alibi.Error, Exception)


def test_every_public_name_has_a_docstring():
    for module in (
        alibi.akem, alibi.bat, alibi.bls, alibi.dgsp, alibi.ecdsa, alibi.falcon, alibi.frost,
        alibi.mayo, alibi.ring, alibi.tachyon,
    ):
        assert module.__doc__
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj):
                assert obj.__doc__, f"{module.__name__}.{name}"
    assert alibi.__version__


def test_threads_share_keys():
    key = falcon.SigningKey.generate(512, seed=bytes(32))
    mkey = mayo.SigningKey.generate("MAYO_1", seed=bytes(32))
    msgs = [bytes([i]) * 10 for i in range(32)]
    with ThreadPoolExecutor(4) as pool:
        sigs = list(pool.map(key.sign, msgs))
        msigs = list(pool.map(mkey.sign, msgs))
    vk, mvk = key.verifying_key(), mkey.verifying_key()
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(vk.verify, msgs, sigs))
        list(pool.map(mvk.verify, msgs, msigs))


@pytest.mark.parametrize("kind", [bytearray, memoryview], ids=["bytearray", "memoryview"])
def test_every_bytes_argument_takes_bytearray_and_memoryview(kind, tmp_path):
    """Keys, seeds, messages, signatures and ciphertexts: bytes, bytearray and memoryview alike."""
    b = kind
    seed = b(bytes([5]) * 32)

    k = falcon.SigningKey.generate(512, seed=seed)
    assert k.to_bytes() == falcon.SigningKey.generate(512, seed=bytes([5]) * 32).to_bytes()
    k = falcon.SigningKey.from_bytes(b(k.to_bytes()))
    vk = falcon.VerifyingKey.from_bytes(b(k.verifying_key().to_bytes()))
    vk.verify(b(b"msg"), b(k.sign(b(b"msg"))))

    pks, sks = zip(*(ring.generate("falcon512", seed=b(bytes([i]) * 32)) for i in range(2)))
    sk = ring.SigningKey.from_bytes("falcon512", b(sks[0].to_bytes()))
    r = ring.Ring([b(pk) for pk in pks])
    r.verify(b(b"m"), b(r.sign(sk, b(b"m"))))
    ring.verify([b(pk) for pk in pks], b(b"m"), b(ring.sign(sk, [b(pk) for pk in pks], b(b"m"))))

    for scheme in ("dh", "shadowfax"):
        alice = akem.SecretKey.generate(scheme, seed=seed)
        bob = akem.SecretKey.from_bytes(scheme, b(akem.SecretKey.generate(scheme).to_bytes()))
        ct, key = alice.encap(b(bob.public_key()))
        assert bob.decap(b(alice.public_key()), b(ct)) == key
        ct, key = bob.fake_encap(b(alice.public_key()))
        assert bob.decap(b(alice.public_key()), b(ct)) == key

    bk = bat.SecretKey.from_bytes(b(bat.SecretKey.generate(seed=seed).to_bytes()))
    ct, key = bat.encapsulate(b(bk.public_key()))
    assert bk.decapsulate(b(ct)) == key

    mk = mayo.SigningKey.from_bytes("MAYO_1", b(mayo.SigningKey.generate("MAYO_1", seed).to_bytes()))
    mvk = mayo.VerifyingKey.from_bytes("MAYO_1", b(mk.verifying_key().to_bytes()))
    mvk.verify(b(b"m"), b(mk.sign(b(b"m"))))

    tk = tachyon.SigningKey.from_bytes(b(tachyon.SigningKey.generate("128", seed=seed).to_bytes()))
    tvk = tachyon.VerifyingKey.from_bytes(b(tk.verifying_key().to_bytes()))
    tvk.verify(b(b"m"), b(tk.sign(b(b"m"))))

    with pytest.raises(alibi.MalformedInput):
        bls.verify(b(bytes(3)), b(b"m"), b(bytes(96)))
    for check in (frost.verify_ed25519, frost.verify_bip340, ecdsa.verify):
        with pytest.raises(alibi.MalformedInput):
            check(b(bytes(3)), b(b"m"), b(bytes(64)))

    m = dgsp.Manager.create(tmp_path / "mgr", "shake-128f", seed=seed)
    mid, cred = m.join("alice")
    cred, user, req, pending = dgsp.csr(b(cred), 1)
    user = dgsp.UserKey.from_bytes(b(user.to_bytes()))
    certs = m.cert(b(req))
    pk = m.public_key()
    sig, _, _, _ = dgsp.sign(user, b(pending), b(certs), b(pk), b(b"m"), b(cred))
    dgsp.verify(b(pk), b(b"m"), b(sig))
    m.verify(b(b"m"), b(sig))
    _, _, pi = m.open(b(b"m"), b(sig))
    dgsp.judge(b(pk), b(b"m"), b(sig), mid, b(pi))


def test_a_bytes_argument_refuses_other_types():
    """Not bytes(x)'s rules: an int is not that many zero bytes, a str is no bytes."""
    key = falcon.SigningKey.generate(512, seed=bytes(32))
    for bad in (32, "m", [1, 2], None, 1.0):
        with pytest.raises(TypeError, match="expected bytes, bytearray or memoryview"):
            key.sign(bad)
    with pytest.raises(TypeError, match="expected bytes, bytearray or memoryview"):
        falcon.SigningKey.generate(512, seed=32)
    with pytest.raises(TypeError, match=r"public_keys\[1\]: expected bytes"):
        ring.Ring([ring.generate("falcon512")[0], 7])


def test_a_memoryview_is_read_whatever_its_layout():
    """A strided or sliced view gives the bytes it shows."""
    key = falcon.SigningKey.generate(512, seed=bytes(32))
    buf = bytes(range(64))
    sig = key.sign(memoryview(buf)[::2])
    key.verifying_key().verify(buf[::2], sig)
    sig = key.sign(memoryview(bytearray(buf))[3:9])
    key.verifying_key().verify(buf[3:9], sig)


def test_bytes_of_a_secret_key_is_its_encoding(tmp_path):
    """docs/python.md: `to_bytes()` / `bytes(key)` hand a secret key's bytes to Python."""
    seed = bytes(32)
    m = dgsp.Manager.create(tmp_path / "mgr", "shake-128f", seed=seed)
    _, cred = m.join("alice")
    _, user, _, _ = dgsp.csr(cred, 1)
    tk = tachyon.SigningKey.generate("128", seed=seed)
    keys = [
        falcon.SigningKey.generate(512, seed=seed),
        ring.generate("mayo1", seed=seed)[1],
        akem.SecretKey.generate("shadowfax", seed=seed),
        bat.SecretKey.generate(seed=seed),
        mayo.SigningKey.generate("MAYO_1", seed=seed),
        tk,
        user,
        # The public keys too.
        falcon.SigningKey.generate(512, seed=seed).verifying_key(),
        mayo.SigningKey.generate("MAYO_1", seed=seed).verifying_key(),
        tk.verifying_key(),
    ]
    for key in keys:
        assert bytes(key) == key.to_bytes(), type(key).__name__
