"""Files move between the `alibi` command and Python: what one writes, the other reads, signs
with, verifies or opens (Falcon, ring signatures, SHADOWFAX, TACHYON, DGSP)."""

import json

import pytest

import alibi
from alibi import akem, dgsp, falcon, ring, tachyon


def test_falcon_both_ways(cli):
    cli.run("falcon", "keygen", "--level", "512", "--pk", "c.pk", "--sk", "c.sk")
    cli.path("m").write_bytes(b"from python")
    key = falcon.SigningKey.from_bytes(cli.path("c.sk").read_bytes())
    cli.path("py.sig").write_bytes(key.sign(b"from python"))
    cli.run("falcon", "verify", "--pk", "c.pk", "--msg", "m", "--sig", "py.sig")
    cli.run("falcon", "sign", "--sk", "c.sk", "--msg", "m", "--out", "cli.sig")
    vk = falcon.VerifyingKey.from_bytes(cli.path("c.pk").read_bytes())
    vk.verify(b"from python", cli.path("cli.sig").read_bytes())
    cli.path("bad.sig").write_bytes(key.sign(b"another message"))
    assert cli.run("falcon", "verify", "--pk", "c.pk", "--msg", "m", "--sig", "bad.sig", check=False).returncode == 1


@pytest.mark.parametrize("scheme", ["falcon512", "mitaka512", "mayo1"])
def test_ring_both_ways(cli, scheme):
    pks = []
    for i in range(3):
        cli.run("ring", "keygen", "--scheme", scheme, "--pk", f"{i}.pk", "--sk", f"{i}.sk")
        pks.append(cli.path(f"{i}.pk").read_bytes())
    members = "0.pk,1.pk,2.pk"
    cli.path("m").write_bytes(b"ring")
    key = ring.SigningKey.from_bytes(scheme, cli.path("1.sk").read_bytes())
    cli.path("py.sig").write_bytes(ring.sign(key, pks, b"ring"))
    cli.run("ring", "verify", "--ring", members, "--msg", "m", "--sig", "py.sig")
    cli.run("ring", "sign", "--sk", "2.sk", "--ring", members, "--msg", "m", "--out", "cli.sig")
    ring.verify(pks, b"ring", cli.path("cli.sig").read_bytes())


@pytest.mark.parametrize("scheme", ["shadowfax", "pq-bat", "dh"])
def test_akem_both_ways(cli, scheme):
    for who in ("a", "b"):
        cli.run("akem", "keygen", "--scheme", scheme, "--pk", f"{who}.pk", "--sk", f"{who}.sk")
    cli.run(
        "akem", "encap", "--scheme", scheme, "--sender-sk", "a.sk", "--receiver-pk", "b.pk",
        "--ct", "cli.ct", "--key", "cli.key",
    )
    name = scheme.replace("-bat", "")
    b = akem.SecretKey.from_bytes(name, cli.path("b.sk").read_bytes())
    k = b.decap(cli.path("a.pk").read_bytes(), cli.path("cli.ct").read_bytes())
    assert bytes(k) == cli.path("cli.key").read_bytes()
    a = akem.SecretKey.from_bytes(name, cli.path("a.sk").read_bytes())
    ct, k = a.encap(cli.path("b.pk").read_bytes())
    cli.path("py.ct").write_bytes(ct)
    cli.run(
        "akem", "decap", "--scheme", scheme, "--receiver-sk", "b.sk", "--sender-pk", "a.pk",
        "--ct", "py.ct", "--key", "py.key",
    )
    assert cli.path("py.key").read_bytes() == bytes(k)
    # The receiver's forgery is accepted by the CLI as the sender's.
    ct, k = b.fake_encap(a.public_key())
    cli.path("fake.ct").write_bytes(ct)
    cli.run(
        "akem", "decap", "--scheme", scheme, "--receiver-sk", "b.sk", "--sender-pk", "a.pk",
        "--ct", "fake.ct", "--key", "fake.key",
    )
    assert cli.path("fake.key").read_bytes() == bytes(k)


def test_tachyon_both_ways(cli):
    cli.run("tachyon", "keygen", "--level", "128", "--pk", "t.pk", "--sk", "t.sk")
    cli.path("m").write_bytes(b"knapsack")
    key = tachyon.SigningKey.from_bytes(cli.path("t.sk").read_bytes(), precompute=True)
    cli.path("py.sig").write_bytes(key.sign(b"knapsack"))
    cli.run("tachyon", "verify", "--pk", "t.pk", "--msg", "m", "--sig", "py.sig")
    cli.run("tachyon", "sign", "--sk", "t.sk", "--msg", "m", "--out", "cli.sig")
    tachyon.VerifyingKey.from_bytes(cli.path("t.pk").read_bytes()).verify(
        b"knapsack", cli.path("cli.sig").read_bytes()
    )


def test_dgsp_manager_made_by_the_cli(cli):
    cli.run("group", "manager-keygen", "--params", "shake-128f", "--dir", "mgr")
    m = dgsp.Manager.load(cli.path("mgr"))
    mid, cred = m.join("alice")
    cred, user, req, pending = dgsp.csr(cred, 2)
    certs = m.cert(req)
    pk = m.public_key()
    del m  # the members database is locked while a Manager holds it
    for name, data in [("cred", cred), ("user.sk", user.to_bytes()), ("pending", pending), ("certs", certs)]:
        cli.path(name).write_bytes(data)
    cli.path("m").write_bytes(b"group")
    cli.run(
        "group", "sign", "--user-sk", "user.sk", "--cred", "cred", "--pending", "pending",
        "--certs", "certs", "--pk", "mgr/manager.pk", "--msg", "m", "--out", "cli.sig",
    )
    sig = cli.path("cli.sig").read_bytes()
    dgsp.verify(pk, b"group", sig)
    assert dgsp.Manager.load(cli.path("mgr")).open(b"group", sig)[:2] == (mid, "alice")


def test_dgsp_manager_made_by_python(cli):
    m = dgsp.Manager.create(cli.path("mgr"), "shake-128f")
    del m
    cli.run("group", "join", "--dir", "mgr", "--username", "bob", "--cred", "bob.cred")
    cli.run(
        "group", "csr", "--cred", "bob.cred", "--user-sk", "bob.sk", "--count", "2",
        "--req", "bob.req", "--pending", "bob.pending",
    )
    cli.run("group", "cert", "--dir", "mgr", "--req", "bob.req", "--certs", "bob.certs")
    user = dgsp.UserKey.from_bytes(cli.path("bob.sk").read_bytes())
    pk = cli.path("mgr/manager.pk").read_bytes()
    sig, pending, certs, cred = dgsp.sign(
        user,
        cli.path("bob.pending").read_bytes(),
        cli.path("bob.certs").read_bytes(),
        pk,
        b"from python",
        cli.path("bob.cred").read_bytes(),
    )
    cli.path("py.sig").write_bytes(sig)
    cli.path("m").write_bytes(b"from python")
    cli.run("group", "verify", "--pk", "mgr/manager.pk", "--msg", "m", "--sig", "py.sig", "--dir", "mgr")
    opened = json.loads(cli.run("group", "open", "--dir", "mgr", "--msg", "m", "--sig", "py.sig", "--json").stdout)
    assert opened["username"] == "bob"
    cli.run("group", "revoke", "--dir", "mgr", "--id", str(opened["id"]))
    with pytest.raises(alibi.Revoked):
        dgsp.Manager.load(cli.path("mgr")).verify(b"from python", sig)
