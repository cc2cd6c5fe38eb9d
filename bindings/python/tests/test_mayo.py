"""alibi.mayo: the NIST round-2 known-answer files of MAYO_1 and MAYO_2 (vectors/mayo-kat), and
round trips at every parameter set."""

import pytest
from hypothesis import given, settings, strategies as st

import alibi
from alibi import mayo
from conftest import VECTORS


def kat(name):
    path = VECTORS / "mayo-kat" / f"PQCsignKAT_24_{name}.rsp"
    if not path.exists():
        pytest.skip(f"{path} not found")
    cases, case = [], {}
    for line in path.read_text().splitlines():
        if " = " in line:
            k, v = line.split(" = ", 1)
            case[k] = v
            if k == "sm":
                cases.append(case)
                case = {}
    return cases


@pytest.mark.parametrize("name", ["MAYO_1", "MAYO_2"])
def test_known_answers(name):
    cases = kat(name)
    assert len(cases) >= 10
    for c in cases[:10]:
        sk = mayo.SigningKey.from_bytes(name, bytes.fromhex(c["sk"]))
        assert sk.verifying_key().to_bytes().hex().upper() == c["pk"]
        msg, sm = bytes.fromhex(c["msg"]), bytes.fromhex(c["sm"])
        sig = sm[: len(sm) - len(msg)]
        vk = mayo.VerifyingKey.from_bytes(name, bytes.fromhex(c["pk"]))
        vk.verify(msg, sig)
        with pytest.raises(alibi.InvalidSignature):
            vk.verify(msg + b"x", sig)


@pytest.mark.parametrize("name", mayo.PARAMS)
def test_round_trip(name):
    sk = mayo.SigningKey.generate(name, seed=bytes(32))
    assert sk.params == name
    assert mayo.SigningKey.generate(name, seed=bytes(32)).to_bytes() == sk.to_bytes()
    sk.verifying_key().verify(b"m", sk.sign(b"m"))


@settings(max_examples=10)
@given(msg=st.binary(max_size=128))
def test_signatures_verify(msg):
    sk = mayo.SigningKey.generate("MAYO_1", seed=bytes(32))
    sk.verifying_key().verify(msg, sk.sign(msg))


def test_errors():
    with pytest.raises(ValueError):
        mayo.SigningKey.generate("MAYO_4")
    with pytest.raises(alibi.MalformedInput):
        mayo.VerifyingKey.from_bytes("MAYO_1", b"short")
    sk = mayo.SigningKey.generate("MAYO_1", seed=bytes(32))
    with pytest.raises(alibi.MalformedInput):
        sk.verifying_key().verify(b"m", b"short")
