//! Outputs are safe (issue 43, item 1): an output is never one of the command's inputs or another
//! output, an existing output needs `--force`, and even with it a signature, ciphertext, shared
//! key, certificate or credential never replaces a secret key, a keyfile, a store or a manager's or
//! party's state; a failed command leaves no output and no new directory. And (item 9) `-` is
//! stdin or stdout, and every verb that writes something reports it with `--json`.

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::group::Group;
use common::{alibi, code, path, stderr, stdout};

/// Runs `alibi` in `dir` with `input` on stdin.
fn alibi_in(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run alibi");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input).expect("write stdin");
    drop(stdin);
    child.wait_with_output().expect("wait")
}

/// Runs `alibi` with stdout on /dev/full.
#[cfg(target_os = "linux")]
fn alibi_full(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args(args)
        .stdout(std::fs::File::create("/dev/full").expect("/dev/full"))
        .output()
        .expect("run alibi")
}

/// A refusal: exit 2, the message naming what it should.
fn refused(o: &Output, words: &[&str]) {
    assert_eq!(code(o), 2, "{}", stderr(o));
    let e = stderr(o);
    for w in words {
        assert!(e.contains(w), "{w:?} not in {e:?}");
    }
}

fn falcon_keygen(pk: &str, sk: &str) {
    let o = alibi(&["falcon", "keygen", "--level", "512", "--pk", pk, "--sk", sk]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// The Falcon cases of the issue: `--out` the secret key it signs with, another owner-only key,
/// the message; with `--force` too. Each file keeps its bytes and mode.
#[test]
fn falcon_sign_never_writes_over_an_input_or_a_secret() {
    let d = common::scratch("out-falcon");
    let (pk, sk, vsk, msg) = (
        path(&d, "pk.bin"),
        path(&d, "sk.bin"),
        path(&d, "victim.sk"),
        path(&d, "msg.txt"),
    );
    falcon_keygen(&pk, &sk);
    falcon_keygen(&path(&d, "victim.pk"), &vsk);
    std::fs::write(&msg, b"pay bob 10").unwrap();
    let before: Vec<Vec<u8>> = [&sk, &vsk, &msg]
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let sign = |out: &str, force: bool| {
        let mut a = vec!["falcon", "sign", "--sk", &sk, "--msg", &msg, "--out", out];
        if force {
            a.push("--force");
        }
        alibi(&a)
    };
    for force in [false, true] {
        refused(&sign(&sk, force), &["--out", "--sk", "same file"]);
        refused(
            &sign(&vsk, force),
            &[
                "refusing to write a signature over",
                "victim.sk",
                "secret key",
            ],
        );
        refused(&sign(&msg, force), &["--out", "--msg", "same file"]);
    }
    // A hard link to the message is the same file, whatever its name.
    let link = path(&d, "link.txt");
    std::fs::hard_link(&msg, &link).unwrap();
    refused(&sign(&link, true), &["--msg", "same file"]);
    for (p, b) in [&sk, &vsk, &msg].iter().zip(&before) {
        assert_eq!(&std::fs::read(p).unwrap(), b, "{p} unchanged");
    }
    #[cfg(unix)]
    assert_eq!(common::mode(&vsk), 0o600);
}

/// A signature that exists is replaced only with `--force`; a signature is public (0644).
#[test]
fn an_existing_signature_needs_force() {
    let d = common::scratch("out-force");
    let (pk, sk, msg, sig) = (
        path(&d, "pk"),
        path(&d, "sk"),
        path(&d, "msg"),
        path(&d, "sig"),
    );
    falcon_keygen(&pk, &sk);
    std::fs::write(&msg, b"m").unwrap();
    let sign = |extra: &[&str]| {
        let mut a = vec!["falcon", "sign", "--sk", &sk, "--msg", &msg, "--out", &sig];
        a.extend_from_slice(extra);
        alibi(&a)
    };
    assert_eq!(code(&sign(&[])), 0);
    let first = std::fs::read(&sig).unwrap();
    refused(&sign(&[]), &["--out", "already exists", "--force"]);
    assert_eq!(std::fs::read(&sig).unwrap(), first);
    assert_eq!(code(&sign(&["--force"])), 0);
    assert_ne!(std::fs::read(&sig).unwrap(), first, "a fresh salt");
    #[cfg(unix)]
    assert_eq!(common::mode(&sig), 0o644);
    // TACHYON's sign follows the same rules.
    let (tpk, tsk) = (path(&d, "t.pk"), path(&d, "t.sk"));
    let o = alibi(&[
        "tachyon", "keygen", "--level", "128", "--pk", &tpk, "--sk", &tsk,
    ]);
    assert_eq!(code(&o), 0);
    let o = alibi(&[
        "tachyon", "sign", "--sk", &tsk, "--msg", &msg, "--out", &tsk,
    ]);
    refused(&o, &["--out", "--sk"]);
    let o = alibi(&[
        "tachyon", "sign", "--sk", &tsk, "--msg", &msg, "--out", &sig, "--force",
    ]);
    assert_eq!(code(&o), 0);
}

/// `ring sign ... --out mayo1/bob.sk` (another member's secret key) is refused, with or without
/// `--force`.
#[test]
fn ring_sign_never_writes_over_a_members_secret_key() {
    let d = common::scratch("out-ring");
    std::fs::create_dir(d.join("mayo1")).unwrap();
    let (apk, ask, bpk, bsk, msg) = (
        path(&d, "mayo1/alice.pk"),
        path(&d, "mayo1/alice.sk"),
        path(&d, "mayo1/bob.pk"),
        path(&d, "mayo1/bob.sk"),
        path(&d, "msg"),
    );
    for (pk, sk) in [(&apk, &ask), (&bpk, &bsk)] {
        let o = alibi(&[
            "ring", "keygen", "--scheme", "mayo1", "--pk", pk, "--sk", sk,
        ]);
        assert_eq!(code(&o), 0);
    }
    std::fs::write(&msg, b"m").unwrap();
    let ring = format!("{apk},{bpk}");
    let bob = std::fs::read(&bsk).unwrap();
    for extra in [None, Some("--force")] {
        let mut a = vec![
            "ring", "sign", "--sk", &ask, "--ring", &ring, "--msg", &msg, "--out", &bsk,
        ];
        a.extend(extra);
        refused(
            &alibi(&a),
            &["refusing to write a signature over", "bob.sk"],
        );
        // A ring member's public key is an input.
        let mut a = vec![
            "ring", "sign", "--sk", &ask, "--ring", &ring, "--msg", &msg, "--out", &bpk,
        ];
        a.extend(extra);
        refused(&alibi(&a), &["--out", "--ring", "same file"]);
    }
    assert_eq!(std::fs::read(&bsk).unwrap(), bob);
}

/// `akem encap ... --ct alice.sk` is refused; a shared key never replaces a secret key, even
/// one of its length (an X25519 key) with `--force`, but replaces an earlier shared key.
#[test]
fn akem_encap_never_writes_over_a_secret_key() {
    let d = common::scratch("out-akem");
    let p = |f: &str| path(&d, f);
    for who in ["alice", "bob"] {
        dh_key_pair(&d, who);
    }
    let alice = std::fs::read(p("alice.sk")).unwrap();
    let bob = std::fs::read(p("bob.sk")).unwrap();
    let encap = |ct: &str, key: &str, force: bool| {
        let (ssk, rpk) = (p("alice.sk"), p("bob.pk"));
        let mut a = vec![
            "akem",
            "encap",
            "--scheme",
            "dh",
            "--sender-sk",
            &ssk,
            "--receiver-pk",
            &rpk,
            "--ct",
            ct,
            "--key",
            key,
        ];
        if force {
            a.push("--force");
        }
        alibi(&a)
    };
    for force in [false, true] {
        refused(
            &encap(&p("alice.sk"), &p("k"), force),
            &["--ct", "--sender-sk", "same file"],
        );
        refused(
            &encap(&p("ct"), &p("bob.sk"), force),
            &["refusing to write a shared key over", "bob.sk"],
        );
    }
    assert!(
        !d.join("k").exists() && !d.join("ct").exists(),
        "nothing written"
    );
    assert_eq!(code(&encap(&p("ct"), &p("k"), false)), 0);
    assert_eq!(
        code(&encap(&p("ct"), &p("k"), true)),
        0,
        "an earlier shared key"
    );
    assert_eq!(std::fs::read(p("alice.sk")).unwrap(), alice);
    assert_eq!(std::fs::read(p("bob.sk")).unwrap(), bob);
}

/// `group cert --certs mgr/manager.sk`, `group join --cred mgr/manager.sk --force` and
/// `group csr --pending bob.sk --force` (the member key it reads) are refused; the manager and
/// the member keep their keys.
#[test]
fn group_outputs_never_replace_the_managers_state_or_a_members_key() {
    let g = Group::new("out-group");
    let (req, pending) = (g.p("bob.req"), g.p("bob.pending"));
    assert_eq!(code(&g.csr("2", &req, &pending, &[])), 0);
    #[cfg(unix)]
    assert_eq!(common::mode(&pending), 0o600);
    let msk = g.p("mgr/manager.sk");
    let manager = std::fs::read(&msk).unwrap();
    for extra in [&[][..], &["--force"][..]] {
        refused(
            &g.cert(&req, &msk, extra),
            &["--certs", "mgr/manager.sk", "--dir"],
        );
        refused(
            &g.cert(&req, &g.p("mgr/members.redb"), extra),
            &["members.redb"],
        );
    }
    let mut join = vec!["group", "join", "--username", "zed", "--force", "--dir"];
    let (dir, cred_out) = (g.p("mgr"), msk.clone());
    join.extend([dir.as_str(), "--cred", &cred_out]);
    refused(&alibi(&join), &["--cred", "manager.sk"]);
    assert_eq!(std::fs::read(&msk).unwrap(), manager);
    // The member key is an input of csr: never its --pending, with --force or not.
    let bob = std::fs::read(g.p("bob.sk")).unwrap();
    refused(
        &g.csr("2", &g.p("r2"), &g.p("bob.sk"), &["--force"]),
        &["--pending", "--user-sk", "same file"],
    );
    assert_eq!(std::fs::read(g.p("bob.sk")).unwrap(), bob);
    // A pending file replaces an earlier one with --force, never a credential.
    refused(&g.csr("2", &g.p("r2"), &pending, &[]), &["already exists"]);
    assert_eq!(code(&g.csr("2", &g.p("r2"), &pending, &["--force"])), 0);
    refused(
        &g.csr("2", &g.p("r3"), &g.p("bob.cred"), &["--force"]),
        &["--pending", "--cred", "same file"],
    );
}

/// `group sign --out` is checked before the one-time key leaves the files: an existing
/// signature without `--force` costs no key.
#[test]
fn group_sign_checks_out_before_using_a_key() {
    let g = Group::new("out-group-sign");
    let (req, pending, certs) = (g.p("bob.req"), g.p("bob.pending"), g.p("bob.certs"));
    assert_eq!(code(&g.csr("2", &req, &pending, &[])), 0);
    assert_eq!(code(&g.cert(&req, &certs, &[])), 0);
    refused(&g.cert(&req, &certs, &[]), &["already exists"]);
    let (sig, sk) = (g.p("sig"), g.p("bob.sk"));
    std::fs::write(&sig, b"an old signature").unwrap();
    let sign = |out: &str, extra: &[&str]| g.sign(&certs, out, extra);
    let left = std::fs::read(&pending).unwrap();
    refused(&sign(&sig, &[]), &["already exists"]);
    refused(&sign(&sk, &["--force"]), &["--user-sk", "same file"]);
    assert_eq!(std::fs::read(&pending).unwrap(), left, "no key used");
    let o = sign(&sig, &["--force", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["signature"]["path"], sig.as_str());
    assert_eq!(v["pending_left"], 1);
}

/// `mpc sign ... --out eve/identity.sealed` is refused before anything is run.
#[test]
fn mpc_sign_never_writes_over_a_partys_identity() {
    let d = common::scratch("out-mpc");
    std::fs::create_dir(d.join("eve")).unwrap();
    let id = path(&d, "eve/identity.sealed");
    std::fs::write(&id, b"alibi-keyfile\0 sealed").unwrap();
    std::fs::write(d.join("group.json"), b"{}").unwrap();
    std::fs::write(d.join("msg"), b"m").unwrap();
    let o = alibi(&[
        "mpc",
        "sign",
        "--dir",
        &path(&d, "eve"),
        "--group",
        &path(&d, "group.json"),
        "--msg",
        &path(&d, "msg"),
        "--session",
        "s",
        "--out",
        &id,
        "--force",
    ]);
    refused(&o, &["--out", "identity.sealed"]);
    assert_eq!(std::fs::read(&id).unwrap(), b"alibi-keyfile\0 sealed");
}

/// A failed `mpc init` leaves no directory behind.
#[test]
fn failed_mpc_init_leaves_no_directory() {
    let d = common::scratch("out-mpc-init");
    let dir = path(&d, "newdir");
    let o = Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args([
            "mpc",
            "init",
            "--dir",
            &dir,
            "--relay",
            "http://127.0.0.1:1",
            "--name",
            "eve",
        ])
        .env("ALIBI_PASSPHRASE", "correct horse")
        .output()
        .unwrap();
    // The run failed where it should: at the relay (exit 3, a transport fault), which `mpc init`
    // contacts only after creating the directory; a usage error (exit 2) would have stopped it
    // before, leaving nothing to clean up and this test nothing to check.
    let e = stderr(&o);
    assert_eq!(code(&o), 3, "{e}");
    assert!(
        e.starts_with("alibi: relay: ") && e.contains("http://127.0.0.1:1/"),
        "{e}"
    );
    assert!(!d.join("newdir").exists(), "{dir} left behind");
}

/// Key generation whose report cannot be written (stdout on a full disk) exits 2 and leaves no
/// key file; a key file on a device is refused, and the device is untouched.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_leaves_no_output() {
    use std::os::unix::fs::FileTypeExt;
    let d = common::scratch("out-full");
    let (pk, sk) = (path(&d, "pk"), path(&d, "sk"));
    let o = alibi_full(&[
        "falcon", "keygen", "--level", "512", "--pk", &pk, "--sk", &sk,
    ]);
    refused(&o, &["stdout"]);
    assert!(!d.join("pk").exists() && !d.join("sk").exists());
    let o = alibi(&[
        "falcon",
        "keygen",
        "--level",
        "512",
        "--pk",
        &pk,
        "--sk",
        "/dev/full",
        "--force",
    ]);
    refused(&o, &["/dev/full", "not a regular file"]);
    assert!(!d.join("pk").exists());
    assert!(std::fs::metadata("/dev/full")
        .unwrap()
        .file_type()
        .is_char_device());
    // A signature with --json on a full stdout: no signature kept.
    falcon_keygen(&pk, &sk);
    let (msg, sig) = (path(&d, "msg"), path(&d, "sig"));
    std::fs::write(&msg, b"m").unwrap();
    let o = alibi_full(&[
        "falcon", "sign", "--sk", &sk, "--msg", &msg, "--out", &sig, "--json",
    ]);
    refused(&o, &["stdout"]);
    assert!(!d.join("sig").exists());
}

/// `-` is stdin for a file read and stdout for one written (never a file named `-`); a secret
/// never goes to stdout, stdin is read once, and `--json` does not share stdout with an output.
#[test]
fn dash_is_stdin_or_stdout() {
    let d = common::scratch("out-dash");
    let (pk, sk) = (path(&d, "pk"), path(&d, "sk"));
    falcon_keygen(&pk, &sk);
    let o = alibi_in(
        &d,
        &["falcon", "sign", "--sk", &sk, "--msg", "-", "--out", "-"],
        b"from stdin",
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!d.join("-").exists(), "no file named -");
    let sig = o.stdout;
    assert_eq!(sig[0] >> 4, 0x3, "a Falcon signature on stdout");
    std::fs::write(d.join("msg"), b"from stdin").unwrap();
    let o = alibi_in(
        &d,
        &[
            "falcon", "verify", "--pk", &pk, "--msg", "msg", "--sig", "-",
        ],
        &sig,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = alibi_in(
        &d,
        &["falcon", "verify", "--pk", &pk, "--msg", "-", "--sig", "-"],
        &sig,
    );
    refused(&o, &["stdin"]);
    let o = alibi_in(
        &d,
        &[
            "falcon", "sign", "--sk", &sk, "--msg", "msg", "--out", "-", "--json",
        ],
        b"",
    );
    refused(&o, &["--json", "--out -"]);
    let o = alibi_in(
        &d,
        &[
            "falcon", "keygen", "--level", "512", "--pk", "p2", "--sk", "-",
        ],
        b"",
    );
    refused(&o, &["--sk -", "stdout"]);
    assert!(!d.join("p2").exists());
}

/// `--json` on every verb that writes: what was written, where, how many bytes.
#[test]
fn writing_verbs_report_json() {
    let d = common::scratch("out-json");
    let p = |f: &str| path(&d, f);
    falcon_keygen(&p("pk"), &p("sk"));
    std::fs::write(p("msg"), b"m").unwrap();
    let json = |o: Output| -> serde_json::Value {
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).expect("one JSON object")
    };
    let (sk, msg, sig) = (p("sk"), p("msg"), p("sig"));
    let v = json(alibi(&[
        "falcon", "sign", "--sk", &sk, "--msg", &msg, "--out", &sig, "--json",
    ]));
    assert_eq!(v["signature"]["path"], sig.as_str());
    assert_eq!(v["signature"]["bytes"], std::fs::read(&sig).unwrap().len());
    let (rsig, ring) = (p("rsig"), format!("{},{}", p("pk"), p("pk")));
    let o = alibi(&[
        "ring", "sign", "--sk", &sk, "--ring", &ring, "--msg", &msg, "--out", &rsig, "--json",
    ]);
    // A ring of one key twice may be refused by the scheme; only a success is checked here.
    if o.status.success() {
        assert!(json(o)["signature"]["bytes"].as_u64().unwrap() > 0);
    }
    for who in ["a", "b"] {
        dh_key_pair(&d, who);
    }
    let v = json(alibi(&[
        "akem",
        "encap",
        "--scheme",
        "dh",
        "--sender-sk",
        &p("a.sk"),
        "--receiver-pk",
        &p("b.pk"),
        "--ct",
        &p("ct"),
        "--key",
        &p("k"),
        "--json",
    ]));
    assert_eq!(v["ciphertext"]["bytes"], 32);
    assert_eq!(v["key"]["path"], p("k").as_str());
    #[cfg(unix)]
    assert_eq!(common::mode(&p("k")), 0o600);
    let g = Group::new("out-json-group");
    let (req, pending, certs) = (g.p("r"), g.p("pend"), g.p("certs"));
    let v = json(g.csr("2", &req, &pending, &["--json"]));
    let id = v["id"].to_string();
    assert_eq!(v["request"]["path"], req.as_str());
    assert_eq!(v["count"], 2);
    let v = json(g.cert(&req, &certs, &["--json"]));
    assert_eq!(v["certificates"]["path"], certs.as_str());
    assert_eq!(v["count"], 2);
    let v = json(alibi(&[
        "group",
        "revoke",
        "--dir",
        &g.p("mgr"),
        "--id",
        &id,
        "--json",
    ]));
    assert_eq!(v["revoked"].to_string(), id);
}

/// A DH-AKEM key pair `WHO.pk`, `WHO.sk` in `d`.
fn dh_key_pair(d: &Path, who: &str) {
    let (pk, sk) = (path(d, &format!("{who}.pk")), path(d, &format!("{who}.sk")));
    let o = alibi(&["akem", "keygen", "--scheme", "dh", "--pk", &pk, "--sk", &sk]);
    assert_eq!(code(&o), 0);
}
