"""alibi.frost and alibi.ecdsa: the threshold schemes' signatures checked against independent
signers (the `cryptography` package's Ed25519 and ECDSA) and BIP-340's own vectors, and against
what `alibi mpc sign` wrote through the CLI's own verifier when a build of it is at hand."""

import csv
import hashlib

import pytest

import alibi
from alibi import ecdsa, frost
from conftest import VECTORS

cryptography = pytest.importorskip("cryptography", reason="the independent signers")
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, ed25519  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature  # noqa: E402

# The order of secp256k1's group.
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def test_ed25519_signatures_of_cryptography_verify_and_altered_ones_do_not():
    key = ed25519.Ed25519PrivateKey.generate()
    pk = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    for msg in (b"", b"pay 5 to dave", bytes(range(256))):
        sig = key.sign(msg)
        frost.verify_ed25519(pk, msg, sig)
        with pytest.raises(alibi.InvalidSignature):
            frost.verify_ed25519(pk, msg + b"!", sig)
        bad = bytearray(sig)
        bad[40] ^= 1
        with pytest.raises((alibi.InvalidSignature, alibi.MalformedInput)):
            frost.verify_ed25519(pk, msg, bytes(bad))


def low_s(der: bytes) -> bytes:
    """An ECDSA signature from `cryptography` (DER) as ``r || s`` with s low, as alibi writes it."""
    r, s = decode_dss_signature(der)
    s = min(s, N - s)
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def test_ecdsa_signatures_of_cryptography_verify_and_altered_ones_do_not():
    key = ec.generate_private_key(ec.SECP256K1())
    pk = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint
    )
    assert len(pk) == 33
    for msg in (b"", b"pay 5 to dave", bytes(range(256))):
        sig = low_s(key.sign(msg, ec.ECDSA(hashes.SHA256())))
        ecdsa.verify(pk, msg, sig)
        with pytest.raises(alibi.InvalidSignature):
            ecdsa.verify(pk, msg + b"!", sig)
        # The message is hashed here: the digest itself is another message.
        with pytest.raises(alibi.InvalidSignature):
            ecdsa.verify(pk, hashlib.sha256(msg).digest(), sig)
    with pytest.raises(alibi.MalformedInput):
        ecdsa.verify(pk[:32], b"m", bytes(64))


def test_every_bip340_vector():
    path = VECTORS / "bip340" / "test-vectors.csv"
    if not path.exists():
        pytest.skip(f"{path} not found")
    rows = list(csv.DictReader(path.read_text().splitlines()))
    assert len(rows) == 15
    for row in rows:
        pk, msg, sig = (bytes.fromhex(row[k]) for k in ("public key", "message", "signature"))
        if row["verification result"] == "TRUE":
            frost.verify_bip340(pk, msg, sig)
        else:
            with pytest.raises((alibi.InvalidSignature, alibi.MalformedInput)):
                frost.verify_bip340(pk, msg, sig)


# BIP-32's test vector 2 (bitcoin/bips, bip-0032.mediawiki): the master key's xpub.
V2_MASTER = (
    "xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8"
    "BDzTJY47LJhkJ8UB7WEGuduB"
)


def test_derived_keys_match_the_bip32_package():
    bip32 = pytest.importorskip("bip32", reason="an independent BIP-32")
    from coincurve import PublicKey

    wallet = bip32.BIP32.from_xpub(V2_MASTER)
    for path in ("m", "m/0", "m/0/7", "m/2147483647/1/2"):
        child = wallet.get_pubkey_from_path(path)
        assert ecdsa.derive(V2_MASTER, path) == child
        # BIP-341's output key of the child with no script tree, tweaked here with coincurve.
        x = child[1:]
        tag = hashlib.sha256(b"TapTweak").digest()
        tweak = hashlib.sha256(tag + tag + x).digest()
        output = PublicKey(b"\x02" + x).add(tweak).format(compressed=True)[1:]
        assert frost.derive_bip340(V2_MASTER, path) == output


def test_paths_and_keys_that_are_not_are_refused():
    for path in ("m/0'", "m/0h", "0/7", "m/2147483648", "m/x"):
        with pytest.raises(alibi.MalformedInput):
            ecdsa.derive(V2_MASTER, path)
    with pytest.raises(alibi.MalformedInput):
        ecdsa.derive(V2_MASTER[:-1] + "C", "m/0")
    # A secp256k1 xpub derives no Ed25519 key.
    with pytest.raises(alibi.MalformedInput):
        frost.derive_ed25519(V2_MASTER, "m/0")
