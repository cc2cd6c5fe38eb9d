//! Threshold schemes of established crates through the CLI, every party its own OS process on
//! a relay process: FROST-Ed25519 and FROST-secp256k1 (taproot) from givre, CGGMP24 threshold
//! ECDSA from cggmp24, with 3 parties (t = 1) and 5 (t = 2); FROST keys refreshed before they
//! sign. Each signature is checked by an independent verifier (ed25519-dalek's strict
//! verification, k256) and by `alibi mpc verify`.

use crate::common;
use std::path::{Path, PathBuf};
use std::process::Child;

use common::code;
use common::mpc::{keygen_with, relay, run, s, setup, sign_with, spawn_party, wait_all, Relay};

/// Key generation for `scheme` by every party of `dirs`, each its own process; the public key.
fn keygen_all(d: &Path, dirs: &[PathBuf], group: &str, scheme: &str) -> Vec<u8> {
    let pk = |i: usize| d.join(format!("{i}.{scheme}.pk"));
    let more = ["--scheme", scheme];
    let children: Vec<Child> = (0..dirs.len())
        .map(|i| keygen_with(&dirs[i], group, &pk(i), "300", &more))
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert_eq!(code(&o), 0, "{scheme}: {}", common::stderr(&o));
        assert!(common::stdout(&o).contains(&format!("keygen {scheme}")));
    }
    let key = std::fs::read(pk(0)).unwrap();
    assert!((1..dirs.len()).all(|i| std::fs::read(pk(i)).unwrap() == key));
    key
}

/// Signing of `msg` by the parties `who` (indices into `dirs`, named in `names`), each its own
/// process, under the key at `path` (`m`: the group key); the signature every signer wrote
/// (all equal for FROST; each valid for ECDSA).
fn sign_all(
    d: &Path,
    (dirs, names): (&[PathBuf], &[&str]),
    group: &str,
    (scheme, path): (&str, &str),
    who: &[usize],
) -> Vec<Vec<u8>> {
    let msg = d.join("msg");
    std::fs::write(&msg, MSG).unwrap();
    let signers: Vec<&str> = who.iter().map(|&i| names[i]).collect();
    let children: Vec<(Child, PathBuf)> = who
        .iter()
        .map(|&i| {
            let out = d.join(format!("{i}.{scheme}.sig"));
            let args: Vec<String> = [
                "mpc",
                "sign",
                "--scheme",
                scheme,
                "--dir",
                &s(&dirs[i]),
                "--group",
                group,
                "--msg",
                &s(&msg),
                "--session",
                "one",
                "--signers",
                &signers.join(","),
                "--out",
                &s(&out),
                "--timeout-s",
                "300",
                "--path",
                path,
            ]
            .iter()
            .map(|a| a.to_string())
            .collect();
            (spawn_party(&args), out)
        })
        .collect();
    children
        .into_iter()
        .map(|(c, out)| {
            let o = c.wait_with_output().unwrap();
            assert_eq!(code(&o), 0, "{scheme}: {}", common::stderr(&o));
            std::fs::read(out).unwrap()
        })
        .collect()
}

/// `alibi mpc verify --scheme`: its exit code for this key, message and signature.
fn cli_verify(d: &Path, scheme: &str, pk: &[u8], msg: &[u8], sig: &[u8]) -> i32 {
    let (pkf, msgf, sigf) = (d.join("v.pk"), d.join("v.msg"), d.join("v.sig"));
    std::fs::write(&pkf, pk).unwrap();
    std::fs::write(&msgf, msg).unwrap();
    std::fs::write(&sigf, sig).unwrap();
    let o = run(&[
        "mpc",
        "verify",
        "--scheme",
        scheme,
        "--pk",
        &s(&pkf),
        "--msg",
        &s(&msgf),
        "--sig",
        &s(&sigf),
    ]);
    code(&o)
}

/// What `sign_all` signs.
const MSG: &[u8] = b"bring your own protocol";

fn check(d: &Path, scheme: &str, pk: &[u8], sig: &[u8]) {
    let msg = MSG;
    match scheme {
        "frost-ed25519" => {
            let key = ed25519_dalek::VerifyingKey::from_bytes(pk.try_into().unwrap()).unwrap();
            let sig = ed25519_dalek::Signature::from_slice(sig).unwrap();
            key.verify_strict(msg, &sig).expect("ed25519-dalek accepts");
        }
        "frost-secp256k1-tr" => {
            let key = k256::schnorr::VerifyingKey::from_bytes(pk).unwrap();
            let sig = k256::schnorr::Signature::try_from(sig).unwrap();
            key.verify_raw(msg, &sig).expect("k256 BIP-340 accepts");
        }
        _ => {
            use k256::ecdsa::signature::Verifier;
            let key = k256::ecdsa::VerifyingKey::from_sec1_bytes(pk).unwrap();
            let sig = k256::ecdsa::Signature::from_slice(sig).unwrap();
            key.verify(msg, &sig).expect("k256 ECDSA accepts");
        }
    }
    assert_eq!(cli_verify(d, scheme, pk, msg, sig), 0);
    assert_eq!(cli_verify(d, scheme, pk, b"another message", sig), 1);
}

/// A group of `n` parties with threshold `t` in its own directory under `d`.
fn group_of(
    d: &Path,
    relay: &Relay,
    n: usize,
    t: usize,
    tag: &str,
) -> (PathBuf, Vec<PathBuf>, Vec<String>, String) {
    let here = d.join(tag);
    std::fs::create_dir_all(&here).unwrap();
    let names: Vec<String> = (0..n).map(|i| format!("{tag}{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let (dirs, group) = setup(&here, relay, &refs, t);
    (here, dirs, names, group)
}

/// `mpc keys` as the party of `dir` (the key's extended public key), then `mpc derive` at
/// `path`: the child key, which Python's `bip32` package derives alike from the same `xpub`
/// for the secp256k1 schemes (frost-ed25519's derivation is no standard).
fn derived_key(here: &Path, dir: &Path, group: &str, (scheme, path): (&str, &str)) -> Vec<u8> {
    let xpub = here.join(format!("{scheme}.xpub"));
    let o = run(&[
        "mpc",
        "keys",
        "--scheme",
        scheme,
        "--dir",
        &s(dir),
        "--group",
        group,
        "--out",
        &s(&xpub),
    ]);
    assert_eq!(code(&o), 0, "keys: {}", common::stderr(&o));
    let child = here.join(format!("{scheme}.child.pk"));
    let o = run(&[
        "mpc",
        "derive",
        "--scheme",
        scheme,
        "--xpub",
        &s(&xpub),
        "--path",
        path,
        "--out",
        &s(&child),
        "--json",
    ]);
    assert_eq!(code(&o), 0, "derive: {}", common::stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&common::stdout(&o)).unwrap();
    let key = std::fs::read(&child).unwrap();
    assert_eq!(report["public_key_hex"], hex::encode(&key));
    let text = std::fs::read_to_string(&xpub).unwrap();
    if scheme != "frost-ed25519" {
        let taproot = scheme == "frost-secp256k1-tr";
        let child_xpub = report["xpub"].as_str().unwrap();
        python_derives(text.trim(), path, (child_xpub, &key), taproot);
    }
    key
}

#[test]
fn frost_by_3_and_5_processes() {
    let d = common::scratch("mpc-frost");
    let relay = relay(&d);
    for (scheme, n, t, path) in [
        ("frost-ed25519", 3, 1, "m"),
        ("frost-ed25519", 5, 2, "m/1/2"),
        ("frost-secp256k1-tr", 3, 1, "m/0/7"),
    ] {
        let (here, dirs, names, group) =
            group_of(&d, &relay, n, t, &format!("{}{n}", &scheme[6..9]));
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let pk = keygen_all(&here, &dirs, &group, scheme);
        if n == 3 {
            // Issue 68: the key refreshed (alibi's rounds on the key's curve); the new shares
            // sign under the same key, and under the same child keys (the chain code stays).
            refresh_all(&dirs, &group, scheme);
        }
        let key = match path {
            "m" => pk.clone(),
            _ => derived_key(&here, &dirs[1], &group, (scheme, path)),
        };
        let who: Vec<usize> = (0..n).rev().take(t + 1).collect();
        let sigs = sign_all(&here, (&dirs, &names), &group, (scheme, path), &who);
        assert!(
            sigs.iter().all(|s| *s == sigs[0]),
            "{scheme}: one signature"
        );
        check(&here, scheme, &key, &sigs[0]);
        if path != "m" {
            assert_eq!(
                cli_verify(&here, scheme, &pk, MSG, &sigs[0]),
                1,
                "not the group key's"
            );
        }
    }
}

/// `mpc refresh` by every party of `dirs`, each its own process: every share replaced by a
/// new one of the same key.
fn refresh_all(dirs: &[PathBuf], group: &str, scheme: &str) {
    let children: Vec<Child> = dirs
        .iter()
        .map(|dir| {
            let args = [
                "mpc",
                "refresh",
                "--scheme",
                scheme,
                "--dir",
                &s(dir),
                "--group",
                group,
                "--session",
                "r1",
                "--timeout-s",
                "300",
            ];
            spawn_party(&args.map(String::from))
        })
        .collect();
    all_say(scheme, children, "new share of the same group key");
}

/// Every party process of `children` exits 0 and prints `expect`.
fn all_say(what: &str, children: Vec<Child>, expect: &str) {
    for o in wait_all(children) {
        assert_eq!(code(&o), 0, "{what}: {}", common::stderr(&o));
        let out = common::stdout(&o);
        assert!(out.contains(expect), "{what}: {out}");
    }
}

/// Test-only safe primes (public!), made by alibi-threshold-ecdsa's `pregenerate_primes`.
fn fixture_primes() -> Vec<Vec<u8>> {
    include_str!("../../../alibi-threshold-ecdsa/tests/vectors/primes.hex")
        .lines()
        .map(|l| hex::decode(l.trim()).unwrap())
        .collect()
}

/// Seals test-only primes in each party's directory (`mpc aux --from`).
fn aux_all(here: &Path, dirs: &[PathBuf]) {
    let primes = fixture_primes();
    for (i, dir) in dirs.iter().enumerate() {
        let file = here.join(format!("{i}.primes"));
        std::fs::write(&file, &primes[i]).unwrap();
        let o = run(&["mpc", "aux", "--dir", &s(dir), "--from", &s(&file)]);
        assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    }
}

/// Threshold ECDSA by 5 processes (t = 2), signing under the key itself.
#[test]
fn ecdsa_by_5_processes() {
    let d = common::scratch("mpc-ecdsa-5");
    let relay = relay(&d);
    let (here, dirs, names, group) = group_of(&d, &relay, 5, 2, "e5");
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let pk = ecdsa_keygen(&here, &dirs, &group);
    ecdsa_sign_under(&here, (&dirs, &names), &group, (&pk, "m"), 2);
}

/// Threshold ECDSA key generation by every party of `dirs`, each with test-only primes sealed
/// first (`mpc aux`), which it uses up; the public key.
fn ecdsa_keygen(here: &Path, dirs: &[PathBuf], group: &str) -> Vec<u8> {
    aux_all(here, dirs);
    let pk = keygen_all(here, dirs, group, "ecdsa-secp256k1");
    assert!(
        dirs.iter().all(|d| !d.join("primes.sealed").exists()),
        "primes serve once"
    );
    pk
}

/// Signing by the first t+1 under the key at `path` of the group key `pk`, each signature
/// checked by k256 and `mpc verify`; under a child (issue 68: `mpc derive` matches Python's
/// BIP-32), also by Python's `cryptography`, and not under the group key.
fn ecdsa_sign_under(
    here: &Path,
    (dirs, names): (&[PathBuf], &[&str]),
    group: &str,
    (pk, path): (&[u8], &str),
    t: usize,
) {
    let scheme = "ecdsa-secp256k1";
    let key = match path {
        "m" => pk.to_vec(),
        _ => derived_key(here, &dirs[2], group, (scheme, path)),
    };
    let who: Vec<usize> = (0..t + 1).collect();
    let sigs = sign_all(here, (dirs, names), group, (scheme, path), &who);
    for sig in &sigs {
        check(here, scheme, &key, sig);
    }
    if path != "m" {
        assert_eq!(
            cli_verify(here, scheme, pk, MSG, &sigs[0]),
            1,
            "not the group key's"
        );
        let checks = sigs
            .iter()
            .map(|sig| (key.clone(), MSG.to_vec(), sig.clone()));
        python_verifies(&checks.collect::<Vec<_>>());
    }
}

/// Usage the schemes refuse before anything is sent (exit 2, one line).
#[test]
fn scheme_usage_is_refused() {
    let d = common::scratch("mpc-scheme-usage");
    let relay = relay(&d);
    let (here, dirs, _, group) = group_of(&d, &relay, 3, 1, "u");
    keygen_all(&here, &dirs, &group, "frost-ed25519");
    let msg = here.join("m");
    std::fs::write(&msg, b"m").unwrap();
    let sign = |more: &[&str]| {
        let mut args = vec![
            "mpc",
            "sign",
            "--scheme",
            "frost-ed25519",
            "--dir",
            dirs[0].to_str().unwrap(),
            "--group",
            &group,
            "--msg",
            msg.to_str().unwrap(),
            "--session",
            "x",
            "--out",
        ];
        let out = here.join("x.sig");
        let out = s(&out);
        args.push(&out);
        args.extend_from_slice(more);
        run(&args)
    };
    // Without --signers: FROST signs with exactly t+1 of the 3.
    let o = sign(&[]);
    assert_eq!(code(&o), 2);
    assert!(
        common::stderr(&o).contains("exactly t+1 = 2"),
        "{}",
        common::stderr(&o)
    );
    let o = sign(&["--signers", "u0,u1,u2"]);
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    // A path is non-hardened, and never signs with a presignature.
    let o = sign(&["--signers", "u0,u1", "--path", "m/0'"]);
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("hardened"),
        "{}",
        common::stderr(&o)
    );
    let o = sign(&["--signers", "u0,u1", "--presigned", "--path", "m/0"]);
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("cannot be used with"),
        "{}",
        common::stderr(&o)
    );
    // An Ed25519 extended key derives no secp256k1 key; junk is no extended key.
    let xpub = here.join("u.xpub");
    let o = run(&[
        "mpc",
        "keys",
        "--scheme",
        "frost-ed25519",
        "--dir",
        &s(&dirs[0]),
        "--group",
        &group,
        "--out",
        &s(&xpub),
    ]);
    assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    let derive = |scheme: &str, file: &Path| {
        run(&[
            "mpc",
            "derive",
            "--scheme",
            scheme,
            "--xpub",
            &s(file),
            "--path",
            "m/1",
        ])
    };
    assert_eq!(code(&derive("frost-ed25519", &xpub)), 0);
    let o = derive("ecdsa-secp256k1", &xpub);
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    let o = derive("frost-ed25519", &msg);
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("Base58Check"),
        "{}",
        common::stderr(&o)
    );
    // Presignatures are threshold ECDSA's only.
    let o = sign(&["--presigned"]);
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    assert!(common::stderr(&o).contains("presignatures are for ecdsa-secp256k1, not frost-ed25519"));
    let o = run(&[
        "mpc",
        "presign",
        "--scheme",
        "frost-ed25519",
        "--dir",
        &s(&dirs[0]),
        "--group",
        &group,
        "--session",
        "p",
    ]);
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    // ECDSA keys are not refreshed (cggmp21 refreshes non-threshold shares only); FROST keys
    // are refreshed, never moved to another group; a FROST refresh leaves no party out.
    let with = |verb: &str, scheme: &str, more: &[&str]| {
        let mut args = vec!["mpc", verb, "--scheme", scheme, "--dir"];
        let dir = s(&dirs[0]);
        args.extend([dir.as_str(), "--session", "r"]);
        args.extend_from_slice(more);
        run(&args)
    };
    let o = with("refresh", "ecdsa-secp256k1", &["--group", &group]);
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("non-threshold"),
        "{}",
        common::stderr(&o)
    );
    let o = with(
        "reshare",
        "frost-ed25519",
        &["--from", &group, "--to", &group],
    );
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("not moved"),
        "{}",
        common::stderr(&o)
    );
    let more = [
        "--group",
        group.as_str(),
        "--exclude",
        "u2",
        "--timeout-s",
        "5",
    ];
    let o = with("refresh", "frost-ed25519", &more);
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("every party"),
        "{}",
        common::stderr(&o)
    );
    // No share of this scheme yet.
    let o = run(&[
        "mpc",
        "sign",
        "--scheme",
        "ecdsa-secp256k1",
        "--dir",
        &s(&dirs[0]),
        "--group",
        &group,
        "--msg",
        &s(&msg),
        "--session",
        "x",
        "--out",
        &s(&here.join("y.sig")),
        "--signers",
        "u0,u1",
    ]);
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    // Primes that are not primes.
    let junk = here.join("junk");
    std::fs::write(&junk, b"not primes").unwrap();
    let o = run(&["mpc", "aux", "--dir", &s(&dirs[0]), "--from", &s(&junk)]);
    assert_eq!(code(&o), 2);
}

/// The Python of ALIBI_PYTHON (else `python3`) if it imports `modules`; `None` after a skip
/// (a failure under ALIBI_REQUIRE_PEERS=1) if not.
fn python_with(modules: &str) -> Option<String> {
    let python = std::env::var("ALIBI_PYTHON").unwrap_or_else(|_| "python3".into());
    let has = std::process::Command::new(&python)
        .args(["-c", &format!("import {modules}")])
        .output();
    if matches!(&has, Ok(o) if o.status.success()) {
        return Some(python);
    }
    alibi_testkit::skip(&format!("{python} cannot import {modules}"));
    None
}

/// ECDSA signatures checked by Python's `cryptography` (OpenSSL): each `(key, message,
/// signature)` must verify, and none of them over another message. Python or the package
/// missing is a skip (a failure under ALIBI_REQUIRE_PEERS=1); ALIBI_PYTHON names the interpreter.
fn python_verifies(checks: &[(Vec<u8>, Vec<u8>, Vec<u8>)]) {
    const SCRIPT: &str = r#"
import json, sys
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, utils
for pk, msg, sig in json.load(sys.stdin):
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256K1(), bytes.fromhex(pk))
    sig = bytes.fromhex(sig)
    der = utils.encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
    key.verify(der, bytes.fromhex(msg), ec.ECDSA(hashes.SHA256()))
    try:
        key.verify(der, bytes.fromhex(msg) + b"!", ec.ECDSA(hashes.SHA256()))
        sys.exit("accepted another message")
    except InvalidSignature:
        pass
print("ok")
"#;
    let Some(python) = python_with("cryptography") else {
        return;
    };
    let list: Vec<[String; 3]> = checks
        .iter()
        .map(|(k, m, sg)| [hex::encode(k), hex::encode(m), hex::encode(sg)])
        .collect();
    let mut child = std::process::Command::new(&python)
        .args(["-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let input = serde_json::to_vec(&list).unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "cryptography refused: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Python's `bip32` package (on libsecp256k1) derives the child of `xpub` at `path`: its
/// extended key must equal `child_xpub`, and its public key `key`, which for taproot is the
/// child's BIP-341 output key (tweaked here with coincurve, without this crate's code). The
/// package missing is a skip (a failure under ALIBI_REQUIRE_PEERS=1).
fn python_derives(xpub: &str, path: &str, (child_xpub, key): (&str, &[u8]), taproot: bool) {
    const SCRIPT: &str = r#"
import hashlib, sys
from bip32 import BIP32
from coincurve import PublicKey
xpub, path, want_xpub, want_key, taproot = sys.argv[1:6]
w = BIP32.from_xpub(xpub)
assert w.get_xpub_from_path(path) == want_xpub, "child xpub"
key = w.get_pubkey_from_path(path)
if taproot == "1":
    x = key[1:]
    tag = hashlib.sha256(b"TapTweak").digest()
    t = hashlib.sha256(tag + tag + x).digest()
    key = PublicKey(b"\x02" + x).add(t).format(compressed=True)[1:]
assert key.hex() == want_key, "child key"
print("ok")
"#;
    let Some(python) = python_with("bip32, coincurve") else {
        return;
    };
    let flag = if taproot { "1" } else { "0" };
    let o = std::process::Command::new(&python)
        .args([
            "-c",
            SCRIPT,
            xpub,
            path,
            child_xpub,
            &hex::encode(key),
            flag,
        ])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "bip32 disagrees: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `mpc presign` with `--signers` and `--count`, as each of `who`, each its own process.
fn presign_all(dirs: &[PathBuf], group: &str, names: &[&str], who: &[usize], count: &str) {
    let signers: Vec<&str> = who.iter().map(|&i| names[i]).collect();
    let children = who
        .iter()
        .map(|&i| {
            let args = [
                "mpc",
                "presign",
                "--dir",
                &s(&dirs[i]),
                "--group",
                group,
                "--session",
                "batch",
                "--signers",
                &signers.join(","),
                "--count",
                count,
                "--timeout-s",
                "300",
            ];
            spawn_party(&args.map(String::from))
        })
        .collect();
    all_say("presign", children, &format!("presigned {count}"));
}

/// Issue 68's acceptance, with 3 parties (separate processes, a relay process) and one key
/// generation for both: they sign interactively under the BIP-32 child m/0/7 of their key
/// ([`ecdsa_sign_under`]); then they presign 5 and sign 5 messages online, each signature
/// checked by k256, `mpc verify` and Python's `cryptography`; a sixth online signature is
/// refused, and so is a restored copy of the stored presignatures.
#[test]
fn ecdsa_by_3_under_a_derived_key_then_presigns_5_and_signs_5_online_then_refuses() {
    let d = common::scratch("mpc-presign");
    let relay = relay(&d);
    let (here, dirs, names, group) = group_of(&d, &relay, 3, 1, "p");
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let pk = ecdsa_keygen(&here, &dirs, &group);
    ecdsa_sign_under(&here, (&dirs, &names), &group, (&pk, "m/0/7"), 1);
    let who = [0, 2];
    presign_all(&dirs, &group, &names, &who, "5");
    let store = |i: usize| {
        let shares = dirs[i].join("shares");
        let mut found = std::fs::read_dir(&shares)
            .unwrap()
            .flatten()
            .map(|e| e.path());
        found
            .find(|p| p.extension().is_some_and(|x| x == "presignatures"))
            .unwrap()
    };
    assert_eq!(common::mode(&s(&store(0))) & 0o777, 0o600);
    let backup = std::fs::read(store(0)).unwrap();
    let mut checks = vec![];
    let ecdsa = [
        "--scheme",
        "ecdsa-secp256k1",
        "--presigned",
        "--timeout-s",
        "120",
    ];
    for k in 0..5 {
        let msg = here.join(format!("m{k}"));
        std::fs::write(&msg, format!("online message {k}")).unwrap();
        let outs: Vec<PathBuf> = who
            .iter()
            .map(|i| here.join(format!("{k}.{i}.sig")))
            .collect();
        let session = format!("m{k}");
        let children = who
            .iter()
            .zip(&outs)
            .map(|(&i, out)| sign_with(&dirs[i], &group, (&msg, &session), out, &ecdsa))
            .collect();
        for o in wait_all(children) {
            assert_eq!(code(&o), 0, "sign --presigned {k}: {}", common::stderr(&o));
            let left = format!("with presignature #{k} (used up); {} left", 4 - k);
            assert!(common::stdout(&o).contains(&left), "{}", common::stdout(&o));
        }
        for out in &outs {
            let sig = std::fs::read(out).unwrap();
            use k256::ecdsa::signature::Verifier;
            let key = k256::ecdsa::VerifyingKey::from_sec1_bytes(&pk).unwrap();
            let parsed = k256::ecdsa::Signature::from_slice(&sig).unwrap();
            let bytes = std::fs::read(&msg).unwrap();
            key.verify(&bytes, &parsed).expect("k256 accepts");
            assert_eq!(cli_verify(&here, "ecdsa-secp256k1", &pk, &bytes, &sig), 0);
            checks.push((pk.clone(), bytes, sig));
        }
    }
    python_verifies(&checks);
    // A sixth: none left, refused before anything is sent.
    let msg = here.join("m5");
    std::fs::write(&msg, "a sixth").unwrap();
    let o = wait_all(vec![sign_with(
        &dirs[0],
        &group,
        (&msg, "m5"),
        &here.join("6.sig"),
        &ecdsa,
    )]);
    assert_eq!(code(&o[0]), 2, "{}", common::stderr(&o[0]));
    assert!(
        common::stderr(&o[0]).contains("no presignature left"),
        "{}",
        common::stderr(&o[0])
    );
    // The store restored from before the five: refused, each presignature thrown away.
    std::fs::write(store(0), &backup).unwrap();
    let o = wait_all(vec![sign_with(
        &dirs[0],
        &group,
        (&msg, "m6"),
        &here.join("7.sig"),
        &ecdsa,
    )]);
    assert_eq!(code(&o[0]), 2, "{}", common::stderr(&o[0]));
    let err = common::stderr(&o[0]);
    assert!(
        err.contains("presignature #0 was used already (the share counts #5"),
        "{err}"
    );
    let o = wait_all(vec![sign_with(
        &dirs[0],
        &group,
        (&msg, "m7"),
        &here.join("8.sig"),
        &ecdsa,
    )]);
    assert!(
        common::stderr(&o[0]).contains("no presignature left"),
        "{}",
        common::stderr(&o[0])
    );
    assert!(!here.join("7.sig").exists() && !here.join("8.sig").exists());
}
