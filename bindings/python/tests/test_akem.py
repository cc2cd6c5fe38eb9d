"""alibi.akem: every AKEM at every suite, the deniability forgery, the published and the
artifact's vectors, every error."""

import json

import pytest
from hypothesis import given, settings, strategies as st

import alibi
from alibi import akem
from conftest import REPO, json_lines

CONFIGS = [("dh", None)] + [(s, suite) for s in ("pq", "shadowfax") for suite in akem.SUITES]


@pytest.fixture(scope="module", params=CONFIGS, ids=lambda c: f"{c[0]}-{c[1]}")
def pair(request):
    scheme, suite = request.param
    a = akem.SecretKey.generate(scheme, suite, seed=bytes([1]) * 32)
    b = akem.SecretKey.generate(scheme, suite, seed=bytes([2]) * 32)
    return a, b


def test_encap_decap_agree(pair):
    alice, bob = pair
    ct, k = alice.encap(bob.public_key())
    assert len(k) == 32 and len(bytes(k)) == 32
    assert bob.decap(alice.public_key(), ct) == k


def test_the_receiver_forges_alone(pair):
    alice, bob = pair
    ct, k = bob.fake_encap(alice.public_key())
    assert bob.decap(alice.public_key(), ct) == k


@settings(max_examples=10)
@given(at=st.integers(min_value=0))
def test_a_changed_ciphertext_does_not_authenticate(pair, at):
    alice, bob = pair
    ct, k = alice.encap(bob.public_key())
    bad = bytearray(ct)
    bad[at % len(bad)] ^= 0x80
    if alice.scheme == "dh":
        # Implicit authentication: another key, or a refusal of a low-order point.
        try:
            assert bob.decap(alice.public_key(), bytes(bad)) != k
        except alibi.MalformedInput:
            pass
    else:
        # A changed BAT-257 tag byte is refused as malformed, and a change the ring signature
        # covers as unauthenticated. The exception: a Mitaka block's decoder ignores the bytes
        # after its body, so a change there still verifies; the key hashes the whole encrypted
        # signature and comes out different.
        try:
            assert bob.decap(alice.public_key(), bytes(bad)) != k
            assert alice.suite == "bat257-mitaka512"
        except (alibi.InvalidCiphertext, alibi.MalformedInput):
            pass


def test_keys_round_trip_and_the_suite_is_detected(pair):
    alice, _ = pair
    again = akem.SecretKey.from_bytes(alice.scheme, alice.to_bytes())
    assert (again.scheme, again.suite) == (alice.scheme, alice.suite)
    assert again.public_key() == alice.public_key()


def test_mismatched_keys_are_refused():
    dh = akem.SecretKey.generate("dh", seed=bytes(32))
    pq = akem.SecretKey.generate("pq", seed=bytes(32))
    pq768 = akem.SecretKey.generate("pq", "mlkem768-falcon1024", seed=bytes(32))
    with pytest.raises(alibi.KeyMismatch):
        dh.encap(pq.public_key())
    with pytest.raises(alibi.KeyMismatch):
        pq.encap(pq768.public_key())
    with pytest.raises(ValueError):
        akem.SecretKey.generate("dh", "mlkem512-falcon512")
    with pytest.raises(ValueError):
        akem.SecretKey.generate("pq-bat", "mlkem512-falcon512")
    with pytest.raises(ValueError):
        akem.SecretKey.generate("kyber")
    with pytest.raises(alibi.MalformedInput):
        akem.SecretKey.from_bytes("shadowfax", bytes(100))
    assert akem.SecretKey.generate("shadowfax-bat", seed=bytes(32)).suite == "bat257-mitaka512"


def test_the_shared_key_never_prints(pair):
    alice, bob = pair
    _, k = alice.encap(bob.public_key())
    assert bytes(k).hex() not in repr(k) and "secret" in repr(k)
    with pytest.raises(TypeError):
        hash(k)
    assert "secret" in repr(alice)


def test_rfc9180_auth_mode_vectors():
    """DHKEM(X25519, HKDF-SHA256) AuthEncap/AuthDecap vectors of RFC 9180 (the ones
    alibi-akem's Rust tests read): decapsulation gives the published shared secret."""
    path = REPO / "crates/alibi-akem/tests/rfc9180_auth_x25519.json"
    cases = json.loads(path.read_text())
    assert cases
    for c in cases:
        receiver = akem.SecretKey.from_bytes("dh", bytes.fromhex(c["skRm"]))
        assert receiver.public_key().hex() == c["pkRm"]
        k = receiver.decap(bytes.fromhex(c["pkSm"]), bytes.fromhex(c["enc"]))
        assert bytes(k).hex() == c["shared_secret"]


@pytest.mark.parametrize(
    "path,scheme",
    [
        ("shadowfax-artifact/pq_akem.jsonl", "pq"),
        ("shadowfax-artifact/shadowfax.jsonl", "shadowfax"),
        ("shadowfax-artifact-bat-mitaka/pq_akem_bat.jsonl", "pq"),
        ("shadowfax-artifact-bat-mitaka/shadowfax_bat.jsonl", "shadowfax"),
    ],
)
def test_the_artifacts_vectors(path, scheme):
    """Keys and ciphertexts made by the SHADOWFAX authors' code decapsulate to its keys, and
    the ciphertexts it made invalid are refused."""
    for v in json_lines(path):
        receiver = akem.SecretKey.from_bytes(scheme, bytes.fromhex(v["receiver_sk"]))
        assert receiver.public_key().hex() == v["receiver_pk"]
        ct = bytes.fromhex(v["ct"])
        if v.get("decap_return", 1) == 1:
            k = receiver.decap(bytes.fromhex(v["sender_pk"]), ct)
            assert bytes(k).hex() == v.get("decap_key", v.get("key"))
        else:
            with pytest.raises(alibi.InvalidCiphertext):
                receiver.decap(bytes.fromhex(v["sender_pk"]), ct)


def test_a_shared_key_equals_its_bytes(pair):
    """A SharedKey compares (in constant time) with bytes-like contents, not only other keys."""
    alice, bob = pair
    _, k = alice.encap(bob.public_key())
    raw = k.expose()
    assert k == raw and raw == k
    assert k == bytearray(raw) and k == memoryview(raw)
    assert not (k != raw)
    other = bytes([raw[0] ^ 1]) + raw[1:]
    assert k != other and not (k == other)
    assert k != raw[:31] and k != raw + b"\0"
    assert k != raw.hex() and k != 0 and k is not None and k != None  # noqa: E711
    assert k != [*raw]


@pytest.mark.parametrize("scheme", ["pq", "shadowfax", "shadowfax-bat"])
def test_a_key_cannot_encapsulate_to_itself(scheme):
    """PQ-AKEM and SHADOWFAX sign for the ring {sender, receiver}: one key on both ends is a bad
    argument, told as such (not as a ring with "member 1 twice")."""
    me = akem.SecretKey.generate(scheme, seed=bytes([3]) * 32)
    for attempt in (
        lambda: me.encap(me.public_key()),
        lambda: me.fake_encap(me.public_key()),
    ):
        with pytest.raises(ValueError, match="the sender and the receiver are the same key"):
            attempt()
    # A ciphertext from another sender, decapsulated as if from oneself.
    other = akem.SecretKey.generate(scheme, seed=bytes([4]) * 32)
    ct, _ = other.encap(me.public_key())
    with pytest.raises(ValueError, match="the sender and the receiver are the same key"):
        me.decap(me.public_key(), ct)


def test_dh_akem_encapsulates_to_itself():
    """RFC 9180's DH-AKEM has no ring: a key encapsulating to itself works there."""
    me = akem.SecretKey.generate("dh", seed=bytes([3]) * 32)
    ct, k = me.encap(me.public_key())
    assert me.decap(me.public_key(), ct) == k
