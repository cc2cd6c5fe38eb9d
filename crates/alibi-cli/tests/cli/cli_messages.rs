//! Messages that name the file and the cause (issue 43, items 7-9): ring members by file, a ring
//! in another order, one key as both AKEM parties, a DH public key given as a secret key, DGSP's
//! pending-key messages, a malformed `--pi`, a restored `.pending` backup, a busy store, help
//! texts against measured sizes, one spelling of each scheme name, no debug text, no temporary
//! paths, no colours in a relay log that is not a terminal.

use crate::common;
use common::group::Group;
use common::{alibi, code, path, scratch, stderr, stdout};

/// `ring keygen` of `scheme` into `d/NAME.pk`, `d/NAME.sk`.
fn ring_keys(d: &std::path::Path, scheme: &str, names: &[&str]) {
    for n in names {
        let (pk, sk) = (path(d, &format!("{n}.pk")), path(d, &format!("{n}.sk")));
        let o = alibi(&[
            "ring", "keygen", "--scheme", scheme, "--pk", &pk, "--sk", &sk,
        ]);
        assert_eq!(code(&o), 0);
    }
}

/// A ring member that does not decode is named by its file; two files of one key are named both.
#[test]
fn ring_errors_name_the_member_file() {
    let d = scratch("msg-ring-member");
    ring_keys(&d, "falcon512", &["a", "b"]);
    let bad = path(&d, "broken.pk");
    std::fs::write(&bad, vec![0x59; 897]).unwrap();
    let (msg, sig) = (path(&d, "m"), path(&d, "sig"));
    std::fs::write(&msg, b"hi").unwrap();
    std::fs::write(&sig, b"x").unwrap();
    let ring = format!("{},{bad}", path(&d, "a.pk"));
    let o = alibi(&[
        "ring", "verify", "--ring", &ring, "--msg", &msg, "--sig", &sig,
    ]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(err.contains("broken.pk") && err.contains("0x59"), "{err}");

    let a = path(&d, "a.pk");
    let copy = path(&d, "a-again.pk");
    std::fs::copy(&a, &copy).unwrap();
    let ring = format!("{a},{copy}");
    let o = alibi(&[
        "ring", "verify", "--ring", &ring, "--msg", &msg, "--sig", &sig,
    ]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.contains("a.pk") && err.contains("a-again.pk") && err.contains("same public key"),
        "{err}"
    );
}

/// A ring listed in another order than at signing is told as such (exit 1), with the order that
/// verifies; a signature invalid in every order says only that.
#[test]
fn a_reordered_ring_is_named_as_such() {
    let d = scratch("msg-ring-order");
    ring_keys(&d, "mitaka512", &["a", "b", "c"]);
    let p = |f: &str| path(&d, f);
    std::fs::write(p("m"), b"we met").unwrap();
    std::fs::write(p("other"), b"we did not").unwrap();
    let signed = format!("{},{},{}", p("a.pk"), p("b.pk"), p("c.pk"));
    let o = alibi(&[
        "ring",
        "sign",
        "--sk",
        &p("b.sk"),
        "--ring",
        &signed,
        "--msg",
        &p("m"),
        "--out",
        &p("sig"),
    ]);
    assert_eq!(code(&o), 0, "a three-member Mitaka ring signs");
    let verify = |ring: &str, msg: &str| {
        alibi(&[
            "ring",
            "verify",
            "--ring",
            ring,
            "--msg",
            msg,
            "--sig",
            &p("sig"),
        ])
    };
    assert_eq!(code(&verify(&signed, &p("m"))), 0);
    let swapped = format!("{},{},{}", p("b.pk"), p("a.pk"), p("c.pk"));
    let o = verify(&swapped, &p("m"));
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(
        err.contains("another order") && err.contains(&signed),
        "{err}"
    );
    let o = verify(&swapped, &p("other"));
    assert_eq!(code(&o), 1);
    assert!(!stderr(&o).contains("order"), "{}", stderr(&o));
}

/// PQ-AKEM and SHADOWFAX with one key pair as both parties: "the same key", not a ring error.
#[test]
fn akem_sender_and_receiver_the_same_key() {
    let d = scratch("msg-akem-same");
    let p = |f: &str| path(&d, f);
    for scheme in ["pq", "shadowfax"] {
        let o = alibi(&[
            "akem",
            "keygen",
            "--scheme",
            scheme,
            "--pk",
            &p("k.pk"),
            "--sk",
            &p("k.sk"),
            "--force",
        ]);
        assert_eq!(code(&o), 0);
        let o = alibi(&[
            "akem",
            "encap",
            "--scheme",
            scheme,
            "--sender-sk",
            &p("k.sk"),
            "--receiver-pk",
            &p("k.pk"),
            "--ct",
            &p("ct"),
            "--key",
            &p("key"),
        ]);
        assert_eq!(code(&o), 2, "{scheme}");
        let err = stderr(&o);
        assert!(
            err.contains("sender and receiver are the same key") && !err.contains("ring"),
            "{scheme}: {err}"
        );
    }
}

/// A DH-AKEM public key passed as the receiver's secret key is refused (exit 2), not turned into a
/// wrong shared key with exit 0; the real secret key still decapsulates.
#[test]
fn dh_public_key_as_secret_key_is_refused() {
    let d = scratch("msg-dh-pk");
    let p = |f: &str| path(&d, f);
    for n in ["s", "r"] {
        let (pk, sk) = (p(&format!("{n}.pk")), p(&format!("{n}.sk")));
        let o = alibi(&["akem", "keygen", "--scheme", "dh", "--pk", &pk, "--sk", &sk]);
        assert_eq!(code(&o), 0);
    }
    let o = alibi(&[
        "akem",
        "encap",
        "--scheme",
        "dh",
        "--sender-sk",
        &p("s.sk"),
        "--receiver-pk",
        &p("r.pk"),
        "--ct",
        &p("ct"),
        "--key",
        &p("k1"),
    ]);
    assert_eq!(code(&o), 0);
    let decap = |rsk: &str, key: &str| {
        alibi(&[
            "akem",
            "decap",
            "--scheme",
            "dh",
            "--receiver-sk",
            rsk,
            "--sender-pk",
            &p("s.pk"),
            "--ct",
            &p("ct"),
            "--key",
            key,
        ])
    };
    let o = decap(&p("r.pk"), &p("k2"));
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("public key"), "{}", stderr(&o));
    assert!(!std::path::Path::new(&p("k2")).exists());
    assert_eq!(code(&decap(&p("r.sk"), &p("k3"))), 0);
    assert_eq!(
        std::fs::read(p("k1")).unwrap(),
        std::fs::read(p("k3")).unwrap()
    );
}

/// The two "no key" cases say what is missing: certificates not issued yet, or the pending keys
/// used up (these two messages were swapped).
#[test]
fn dgsp_no_certificate_and_no_pending_key_are_told_apart() {
    let g = Group::new("msg-dgsp-none");
    assert_eq!(
        code(&g.csr("1", &g.p("bob.req"), &g.p("bob.pending"), &[])),
        0
    );
    std::fs::write(g.p("none.certs"), b"").unwrap();
    let o = g.sign(&g.p("none.certs"), &g.p("s0"), &[]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.contains("no certificate") && err.contains("none.certs") && err.contains("cert"),
        "{err}"
    );
    assert_eq!(code(&g.cert(&g.p("bob.req"), &g.p("bob.certs"), &[])), 0);
    assert_eq!(code(&g.sign(&g.p("bob.certs"), &g.p("s1"), &[])), 0);
    let o = g.sign(&g.p("bob.certs"), &g.p("s2"), &[]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.contains("no pending one-time key left") && err.contains("bob.pending"),
        "{err}"
    );
}

/// A `--pi` of the wrong length is malformed input (exit 2), not an opening that fails (1).
#[test]
fn dgsp_short_pi_exits_2() {
    let g = Group::new("msg-dgsp-pi");
    assert_eq!(
        code(&g.csr("1", &g.p("bob.req"), &g.p("bob.pending"), &[])),
        0
    );
    assert_eq!(code(&g.cert(&g.p("bob.req"), &g.p("bob.certs"), &[])), 0);
    assert_eq!(code(&g.sign(&g.p("bob.certs"), &g.p("sig"), &[])), 0);
    let judge = |pi: &str| {
        g.run(&[
            "judge",
            "--pk",
            &g.p("mgr/manager.pk"),
            "--msg",
            &g.p("m"),
            "--sig",
            &g.p("sig"),
            "--id",
            "0",
            "--pi",
            pi,
        ])
    };
    let o = judge("abcd");
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--pi"), "{}", stderr(&o));
    assert_eq!(
        code(&judge(&"ab".repeat(16))),
        1,
        "right length, wrong proof"
    );
}

/// A restored backup of the pending file (and certificates) would sign again with a used WOTS+
/// key; with `--cred` the credential's count refuses it, and nothing is written.
#[test]
fn dgsp_restored_pending_backup_is_refused() {
    let g = Group::new("msg-dgsp-backup");
    assert_eq!(
        code(&g.csr("2", &g.p("bob.req"), &g.p("bob.pending"), &[])),
        0
    );
    assert_eq!(code(&g.cert(&g.p("bob.req"), &g.p("bob.certs"), &[])), 0);
    std::fs::copy(g.p("bob.pending"), g.p("pending.bak")).unwrap();
    std::fs::copy(g.p("bob.certs"), g.p("certs.bak")).unwrap();
    assert_eq!(code(&g.sign(&g.p("bob.certs"), &g.p("s1"), &[])), 0);
    std::fs::copy(g.p("pending.bak"), g.p("bob.pending")).unwrap();
    std::fs::copy(g.p("certs.bak"), g.p("bob.certs")).unwrap();
    let cred_before = std::fs::read(g.p("bob.cred")).unwrap();
    let o = g.sign(&g.p("bob.certs"), &g.p("s2"), &[]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.contains("bob.pending") && err.contains("used already") && err.contains("bob.cred"),
        "{err}"
    );
    assert!(!std::path::Path::new(&g.p("s2")).exists());
    assert_eq!(std::fs::read(g.p("bob.cred")).unwrap(), cred_before);
    assert_eq!(
        std::fs::read(g.p("bob.pending")).unwrap(),
        std::fs::read(g.p("pending.bak")).unwrap()
    );
}

/// A members database another process holds: "busy", naming the file, exit 2; not "malformed".
#[test]
fn a_locked_members_database_is_busy() {
    let g = Group::new("msg-busy");
    let db = std::path::PathBuf::from(g.p("mgr/members.redb"));
    let held = alibi_dgsp::storage::RedbStore::open(&db).unwrap();
    let join = [
        "join",
        "--dir",
        &g.p("mgr"),
        "--username",
        "carol",
        "--cred",
        &g.p("carol.cred"),
    ];
    let o = g.run(&join);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.contains("busy: another alibi process is using") && err.contains("members.redb"),
        "{err}"
    );
    assert!(!err.contains("malformed"), "{err}");
    assert!(!std::path::Path::new(&g.p("carol.cred")).exists());
    drop(held);
    assert_eq!(code(&g.run(&join)), 0, "free again");
}

/// `tachyon keygen --help` says what 128s changes as measured: a smaller public key, the same
/// signature size; its name has no parameters in it, in text and JSON.
#[test]
fn tachyon_help_and_names_match_the_measured_sizes() {
    let help = stdout(&alibi(&["tachyon", "keygen", "--help"]));
    assert!(!help.contains("smaller signatures"), "{help}");
    assert!(
        help.contains("221,217") && help.contains("884,769"),
        "{help}"
    );
    let d = scratch("msg-tachyon");
    let (pk, sk) = (path(&d, "t.pk"), path(&d, "t.sk"));
    let o = alibi(&[
        "tachyon", "keygen", "--level", "128s", "--pk", &pk, "--sk", &sk, "--json",
    ]);
    assert_eq!(code(&o), 0);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["scheme"], "TACHYON-128s");
    assert_eq!(v["public_key"]["bytes"], 221_217);
    let (msg, sig) = (path(&d, "m"), path(&d, "sig"));
    std::fs::write(&msg, b"m").unwrap();
    let o = alibi(&["tachyon", "sign", "--sk", &sk, "--msg", &msg, "--out", &sig]);
    assert_eq!(code(&o), 0);
    assert_eq!(std::fs::metadata(&sig).unwrap().len(), 4_160);
}

/// AKEM names: the scheme as `--scheme` names it and the suite beside it, the same in keygen
/// and decap, text and JSON (docs/cli.md).
#[test]
fn akem_scheme_names_are_spelled_one_way() {
    let d = scratch("msg-akem-names");
    let p = |f: &str| path(&d, f);
    let keygen = |scheme: &str, n: &str, json: bool| {
        let (pk, sk) = (p(&format!("{n}.pk")), p(&format!("{n}.sk")));
        let mut a = vec![
            "akem", "keygen", "--scheme", scheme, "--pk", &pk, "--sk", &sk,
        ];
        if json {
            a.push("--json");
        }
        let o = alibi(&a);
        assert_eq!(code(&o), 0);
        stdout(&o)
    };
    let v: serde_json::Value = serde_json::from_str(&keygen("dh", "dh", true)).unwrap();
    assert_eq!(v["scheme"], "dh");
    assert!(v.get("suite").is_none());
    let v: serde_json::Value = serde_json::from_str(&keygen("pq", "a", true)).unwrap();
    assert_eq!(
        (&v["scheme"], &v["suite"]),
        (&"pq".into(), &"mlkem512-falcon512".into())
    );
    let text = keygen("pq", "b", false);
    assert!(
        text.starts_with("pq (mlkem512-falcon512) key pair"),
        "{text}"
    );
    let o = alibi(&[
        "akem",
        "encap",
        "--scheme",
        "pq",
        "--sender-sk",
        &p("a.sk"),
        "--receiver-pk",
        &p("b.pk"),
        "--ct",
        &p("ct"),
        "--key",
        &p("k"),
    ]);
    assert_eq!(code(&o), 0);
    let o = alibi(&[
        "akem",
        "decap",
        "--scheme",
        "pq",
        "--receiver-sk",
        &p("b.sk"),
        "--sender-pk",
        &p("a.pk"),
        "--ct",
        &p("ct"),
        "--key",
        &p("k2"),
        "--json",
    ]);
    assert_eq!(code(&o), 0);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (&v["scheme"], &v["suite"]),
        (&"pq".into(), &"mlkem512-falcon512".into())
    );
}

/// Text for people: "malformed Falcon signature", not "malformed a Falcon signature"; no Rust
/// debug quoting in a refused option; no temporary file's path in a write error.
#[test]
fn messages_have_no_debug_text_bad_grammar_or_temporary_paths() {
    let d = scratch("msg-text");
    let p = |f: &str| path(&d, f);
    let o = alibi(&[
        "falcon",
        "keygen",
        "--level",
        "512",
        "--pk",
        &p("f.pk"),
        "--sk",
        &p("f.sk"),
    ]);
    assert_eq!(code(&o), 0);
    std::fs::write(p("m"), b"hello").unwrap();
    let o = alibi(&[
        "falcon",
        "verify",
        "--pk",
        &p("f.pk"),
        "--msg",
        &p("m"),
        "--sig",
        &p("m"),
    ]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(err.contains("malformed Falcon signature"), "{err}");

    let out = p("missing-dir/sig");
    let o = alibi(&[
        "falcon",
        "sign",
        "--sk",
        &p("f.sk"),
        "--msg",
        &p("m"),
        "--out",
        &out,
    ]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(err.contains(&out) && !err.contains(".alibi-"), "{err}");

    let o = alibi(&[
        "relay",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--db",
        &p("r.redb"),
        "--password-checks",
        "many",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("'many'") && !err.contains("\"many\""), "{err}");
}

/// The relay's log, written to a pipe (not a terminal), holds no ANSI colour codes.
#[cfg(unix)]
#[test]
fn relay_log_to_a_file_has_no_colours() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let d = scratch("msg-relay-log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args(["relay", "serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(d.join("r.redb"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first stdout line says where it listens: the server is up and has logged its start.
    let mut first = [0u8; 1];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    common::sigterm(child.id());
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    let _ = child.wait();
    assert!(!log.is_empty(), "the relay logs its start");
    assert!(!log.contains('\u{1b}'), "{log:?}");
}
