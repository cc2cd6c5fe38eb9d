"""alibi.dgsp: a manager on disk and a member's files through the whole life of a group."""

import os
import stat

import pytest

import alibi
from alibi import dgsp

P = "shake-128f"


@pytest.fixture
def group(tmp_path):
    m = dgsp.Manager.create(tmp_path / "mgr", P)
    mid, cred = m.join("alice")
    cred, user, req, pending = dgsp.csr(cred, 3)
    return m, mid, cred, user, pending, m.cert(req)


def test_a_signature_verifies_opens_and_is_judged(group):
    m, mid, cred, user, pending, certs = group
    pk = m.public_key()
    sig, pending, certs, cred = dgsp.sign(user, pending, certs, pk, b"msg", cred)
    dgsp.verify(pk, b"msg", sig)
    m.verify(b"msg", sig)
    with pytest.raises(alibi.InvalidSignature):
        dgsp.verify(pk, b"other", sig)
    opened_id, name, pi = m.open(b"msg", sig)
    assert (opened_id, name) == (mid, "alice")
    dgsp.judge(pk, b"msg", sig, mid, pi)
    with pytest.raises(alibi.InvalidOpening):
        dgsp.judge(pk, b"msg", sig, mid + 1, pi)


def test_each_one_time_key_signs_once(group):
    m, _, cred, user, pending, certs = group
    pk = m.public_key()
    old_pending, old_certs = pending, certs
    for _ in range(3):
        sig, pending, certs, cred = dgsp.sign(user, pending, certs, pk, b"m", cred)
        m.verify(b"m", sig)
    with pytest.raises(alibi.GroupError):
        dgsp.sign(user, pending, certs, pk, b"m", cred)
    # Pending keys restored from an older copy: the credential refuses their first key again.
    with pytest.raises(alibi.GroupError):
        dgsp.sign(user, old_pending, old_certs, pk, b"m", cred)


def test_revocation(group):
    m, mid, cred, user, pending, certs = group
    pk = m.public_key()
    sig, *_ = dgsp.sign(user, pending, certs, pk, b"m", cred)
    m.revoke(mid)
    with pytest.raises(alibi.Revoked):
        m.verify(b"m", sig)
    assert issubclass(alibi.Revoked, alibi.InvalidSignature)
    dgsp.verify(pk, b"m", sig)  # without the manager's list, revocation is not checked
    _, _, req, _ = dgsp.csr(cred, 1, user)
    with pytest.raises(alibi.GroupError):
        m.cert(req)


def test_the_directory(tmp_path):
    d = tmp_path / "mgr"
    m = dgsp.Manager.create(d, P, seed=bytes(32))
    assert stat.S_IMODE(os.stat(d / "manager.sk").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(d / "members.redb").st_mode) == 0o600
    assert (d / "manager.pk").read_bytes() == m.public_key()
    m.join("bob")
    with pytest.raises(alibi.GroupError):
        m.join("bob")
    del m
    with pytest.raises(alibi.StoreError):
        dgsp.Manager.create(d, P)
    again = dgsp.Manager.load(d)
    assert again.params == P
    assert "secret" not in repr(again) and str(d) in repr(again)


def test_refusals(tmp_path, group):
    m, _, cred, user, pending, certs = group
    with pytest.raises(ValueError):
        dgsp.Manager.create(tmp_path / "x", "sha3-128f")
    with pytest.raises(ValueError):
        dgsp.csr(cred, 0)
    with pytest.raises(alibi.MalformedInput):
        dgsp.csr(b"\x00" * 3, 1)
    with pytest.raises(alibi.StoreError):
        dgsp.Manager.load(tmp_path / "nothing")
    other = dgsp.Manager.create(tmp_path / "other", "shake-128s")
    _, c2 = other.join("carol")
    _, _, req2, _ = dgsp.csr(c2, 1)
    with pytest.raises(alibi.KeyMismatch):
        m.cert(req2)
    assert "secret" in repr(user) and user.id >= 0 and user.params == P
