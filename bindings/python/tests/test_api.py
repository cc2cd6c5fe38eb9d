"""The package's shape: the exception hierarchy, the modules, threads sharing keys."""

from concurrent.futures import ThreadPoolExecutor

import alibi
from alibi import falcon, mayo


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
    for module in (alibi.akem, alibi.bat, alibi.bls, alibi.dgsp, alibi.falcon, alibi.mayo, alibi.ring, alibi.tachyon):
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
