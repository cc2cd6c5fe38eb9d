//! The contract gaps a new user found, each closed: what each command now says and exits with.

use crate::common;
use common::{alibi, code, path, stderr, stdout};

fn run(args: &[&str]) -> (i32, String, String) {
    let o = alibi(args);
    (code(&o), stdout(&o), stderr(&o))
}

#[test]
fn dh_akem_says_it_authenticates_implicitly_and_offers_confirmation() {
    let d = common::scratch("gaps-dh");
    let p = |f: &str| path(&d, f);
    for who in ["alice", "bob", "eve"] {
        let (pk, sk) = (p(&format!("{who}.pk")), p(&format!("{who}.sk")));
        assert_eq!(
            run(&["akem", "keygen", "--scheme", "dh", "--pk", &pk, "--sk", &sk]).0,
            0
        );
    }
    let (ct, k1, k2, tag) = (p("ct"), p("k1"), p("k2"), p("tag"));
    let encap = [
        "akem",
        "encap",
        "--scheme",
        "dh",
        "--sender-sk",
        &p("alice.sk"),
        "--receiver-pk",
        &p("bob.pk"),
        "--ct",
        &ct,
        "--key",
        &k1,
        "--confirm",
        &tag,
    ];
    assert_eq!(run(&encap).0, 0);
    assert_eq!(std::fs::read(&tag).unwrap().len(), 32);
    let bob_sk = p("bob.sk");
    let decap = |sender: &str, confirm: bool| {
        let mut a = vec![
            "akem",
            "decap",
            "--scheme",
            "dh",
            "--receiver-sk",
            &bob_sk,
            "--sender-pk",
            sender,
            "--ct",
            &ct,
            "--key",
            &k2,
            "--force",
        ];
        if confirm {
            a.extend(["--confirm", &tag]);
        }
        run(&a)
    };
    // The right sender, with or without the tag.
    assert_eq!(decap(&p("alice.pk"), true).0, 0);
    assert_eq!(std::fs::read(&k1).unwrap(), std::fs::read(&k2).unwrap());
    let (c, out, _) = decap(&p("alice.pk"), false);
    assert_eq!(c, 0);
    assert!(out.contains("not authenticated"), "{out}");
    // The wrong sender: exit 0 and a different key without the tag (and it says so); exit 1 and
    // no key with it.
    let (c, out, _) = decap(&p("eve.pk"), false);
    assert_eq!(c, 0);
    assert!(out.contains("implicitly"), "{out}");
    assert_ne!(std::fs::read(&k1).unwrap(), std::fs::read(&k2).unwrap());
    std::fs::remove_file(&k2).unwrap();
    let (c, _, err) = decap(&p("eve.pk"), true);
    assert_eq!(c, 1);
    assert!(err.contains("key confirmation failed"), "{err}");
    assert!(
        std::fs::metadata(&k2).is_err(),
        "no key written on a failed confirmation"
    );
    // The help says it too.
    let (_, help, _) = run(&["akem", "decap", "--help"]);
    assert!(help.contains("authenticates implicitly"), "{help}");
    assert_eq!(
        run(&[
            "akem",
            "keygen",
            "--scheme",
            "dh",
            "--suite",
            "mlkem768-falcon1024",
            "--pk",
            &p("x.pk"),
            "--sk",
            &p("x.sk")
        ])
        .0,
        2
    );
}

#[test]
fn akem_at_both_suites_with_the_suite_read_from_the_keys() {
    let d = common::scratch("gaps-suites");
    let p = |f: &str| path(&d, f);
    for scheme in ["pq", "shadowfax"] {
        for suite in ["mlkem512-falcon512", "mlkem768-falcon1024"] {
            let f = |w: &str| p(&format!("{scheme}-{suite}-{w}"));
            for who in ["s", "r"] {
                let k = [
                    "akem",
                    "keygen",
                    "--scheme",
                    scheme,
                    "--suite",
                    suite,
                    "--pk",
                    &f(&format!("{who}.pk")),
                    "--sk",
                    &f(&format!("{who}.sk")),
                ];
                assert_eq!(run(&k).0, 0);
            }
            let (ct, k1, k2) = (f("ct"), f("k1"), f("k2"));
            let e = [
                "akem",
                "encap",
                "--scheme",
                scheme,
                "--sender-sk",
                &f("s.sk"),
                "--receiver-pk",
                &f("r.pk"),
                "--ct",
                &ct,
                "--key",
                &k1,
            ];
            assert_eq!(run(&e).0, 0);
            let dec = [
                "akem",
                "decap",
                "--scheme",
                scheme,
                "--receiver-sk",
                &f("r.sk"),
                "--sender-pk",
                &f("s.pk"),
                "--ct",
                &ct,
                "--key",
                &k2,
                "--json",
            ];
            let (c, out, _) = run(&dec);
            assert_eq!(c, 0);
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["authenticated"], true);
            assert_eq!(std::fs::read(&k1).unwrap(), std::fs::read(&k2).unwrap());
            // A tampered ciphertext: exit 1, and the message says "rejected" once.
            let mut c = std::fs::read(&ct).unwrap();
            c[40] ^= 1;
            std::fs::write(&ct, &c).unwrap();
            std::fs::remove_file(&k2).unwrap();
            let (code, _, err) = run(&dec);
            assert_eq!(code, 1);
            assert_eq!(err.matches("rejected").count(), 1, "{err}");
            // A public key where the secret key goes is named as such.
            let wrong = [
                "akem",
                "encap",
                "--scheme",
                scheme,
                "--sender-sk",
                &f("s.pk"),
                "--receiver-pk",
                &f("r.pk"),
                "--ct",
                &ct,
                "--key",
                &p("k3"),
            ];
            let (code, _, err) = run(&wrong);
            assert_eq!(code, 2);
            assert!(err.contains("public key") && err.contains(suite), "{err}");
        }
        // Keys of two suites: named as a mismatch.
        let f = |suite: &str, w: &str| p(&format!("{scheme}-{suite}-{w}"));
        let mixed = [
            "akem",
            "encap",
            "--scheme",
            scheme,
            "--sender-sk",
            &f("mlkem768-falcon1024", "s.sk"),
            "--receiver-pk",
            &f("mlkem512-falcon512", "r.pk"),
            "--ct",
            &p("mixed.ct"),
            "--key",
            &p("mixed.key"),
        ];
        let (code, _, err) = run(&mixed);
        assert_eq!(code, 2);
        assert!(err.contains("both must use one suite"), "{err}");
    }
}

#[test]
fn messages_name_the_real_problem() {
    let d = common::scratch("gaps-messages");
    let p = |f: &str| path(&d, f);
    let (pk, sk, msg, empty) = (p("pk"), p("sk"), p("m"), p("empty"));
    std::fs::write(&msg, b"m").unwrap();
    std::fs::write(&empty, b"").unwrap();
    assert_eq!(
        run(&["falcon", "keygen", "--level", "512", "--pk", &pk, "--sk", &sk]).0,
        0
    );
    // An empty signature file.
    let (c, _, err) = run(&[
        "falcon", "verify", "--pk", &pk, "--msg", &msg, "--sig", &empty,
    ]);
    assert_eq!(c, 2);
    assert!(
        err.contains("is empty") && !err.contains("42 bytes"),
        "{err}"
    );
    // A secret key given as the public key.
    let (c, _, err) = run(&[
        "falcon", "verify", "--pk", &sk, "--msg", &msg, "--sig", &empty,
    ]);
    assert_eq!(c, 2);
    assert!(err.contains("holds a Falcon secret key"), "{err}");
    // A public key given as the secret key.
    let (c, _, err) = run(&[
        "falcon",
        "sign",
        "--sk",
        &pk,
        "--msg",
        &msg,
        "--out",
        &p("s"),
    ]);
    assert_eq!(c, 2);
    assert!(err.contains("holds a Falcon public key"), "{err}");
    // The same for TACHYON, whose keys share a header byte.
    let (tpk, tsk) = (p("t.pk"), p("t.sk"));
    assert_eq!(
        run(&["tachyon", "keygen", "--level", "192", "--pk", &tpk, "--sk", &tsk]).0,
        0
    );
    let (c, _, err) = run(&[
        "tachyon", "verify", "--pk", &tsk, "--msg", &msg, "--sig", &msg,
    ]);
    assert_eq!(c, 2);
    assert!(err.contains("holds a TACHYON-192 secret key"), "{err}");
    // A bad relay URL is named, not reported as a client "builder error".
    let (c, _, err) = run(&[
        "mpc",
        "init",
        "--relay",
        "localhost:8080",
        "--dir",
        &p("party"),
        "--name",
        "a",
    ]);
    assert_eq!(c, 2);
    assert!(
        err.contains("is not a relay URL") && !err.contains("builder"),
        "{err}"
    );
    let (c, _, err) = run(&["relay", "bench", "--url", "http//x"]);
    assert_eq!(c, 2);
    assert!(err.contains("is not a relay URL"), "{err}");
}

#[test]
fn group_cert_and_verify_gaps() {
    let d = common::scratch("gaps-group");
    let p = |f: &str| path(&d, f);
    let dir = p("mgr");
    let pk = format!("{dir}/manager.pk");
    let g = |a: &[&str]| run(&[&["group"][..], a].concat());
    assert_eq!(
        g(&["manager-keygen", "--params", "shake-128f", "--dir", &dir]).0,
        0
    );
    let (cred, usk, req, pend, certs) = (p("cred"), p("usk"), p("req"), p("pend"), p("certs"));
    assert_eq!(
        g(&[
            "join",
            "--dir",
            &dir,
            "--username",
            "alice",
            "--cred",
            &cred
        ])
        .0,
        0
    );
    // A credential is no request: exit 2 and no empty certificate file.
    let (c, _, err) = g(&["cert", "--dir", &dir, "--req", &cred, "--certs", &certs]);
    assert_eq!(c, 2);
    assert!(err.contains("credential"), "{err}");
    assert!(std::fs::metadata(&certs).is_err());
    // An empty request names the emptiness, not a parameter set.
    std::fs::write(p("empty"), b"").unwrap();
    let (c, _, err) = g(&[
        "cert",
        "--dir",
        &dir,
        "--req",
        &p("empty"),
        "--certs",
        &certs,
    ]);
    assert_eq!(c, 2);
    assert!(
        err.contains("is empty") && !err.contains("parameter set"),
        "{err}"
    );
    let csr = [
        "csr",
        "--cred",
        &cred,
        "--user-sk",
        &usk,
        "--count",
        "2",
        "--req",
        &req,
        "--pending",
        &pend,
    ];
    assert_eq!(g(&csr).0, 0);
    assert_eq!(
        g(&csr).0,
        2,
        "pending keys are not thrown away without --force"
    );
    assert_eq!(
        g(&["cert", "--dir", &dir, "--req", &req, "--certs", &certs]).0,
        0
    );
    let (msg, sig) = (p("msg"), p("sig"));
    std::fs::write(&msg, b"hello").unwrap();
    assert_eq!(
        g(&[
            "sign",
            "--user-sk",
            &usk,
            "--cred",
            &cred,
            "--pending",
            &pend,
            "--certs",
            &certs,
            "--pk",
            &pk,
            "--msg",
            &msg,
            "--out",
            &sig
        ])
        .0,
        0
    );
    #[cfg(unix)]
    assert_eq!(
        common::mode(&pend),
        0o600,
        "the rewritten pending file stays private"
    );
    // Without --dir, "valid" says that revocation was not checked.
    let (c, out, _) = g(&["verify", "--pk", &pk, "--msg", &msg, "--sig", &sig]);
    assert_eq!(c, 0);
    assert!(out.contains("revocation not checked"), "{out}");
    let (c, out, _) = g(&[
        "verify", "--pk", &pk, "--msg", &msg, "--sig", &sig, "--dir", &dir,
    ]);
    assert_eq!((c, out.trim()), (0, "valid"));
    // A revoked member's request: a usage error (2), not an invalid signature (1).
    assert_eq!(g(&["revoke", "--dir", &dir, "--id", "0"]).0, 0);
    let (c, _, err) = g(&["cert", "--dir", &dir, "--req", &req, "--certs", &p("c2")]);
    assert_eq!(c, 2);
    assert!(err.contains("revoked"), "{err}");
    let (c, _, _) = g(&[
        "verify", "--pk", &pk, "--msg", &msg, "--sig", &sig, "--dir", &dir,
    ]);
    assert_eq!(c, 1);
}

#[test]
fn mpc_gaps() {
    let d = common::scratch("gaps-mpc");
    let p = |f: &str| path(&d, f);
    // --replot of a file that is no bench CSV, or one without rows: exit 2, no empty table.
    std::fs::write(p("junk.csv"), b"hello,world\n1,2\n").unwrap();
    std::fs::write(
        p("empty.csv"),
        b"n,t,delay_ms,run,transport,keygen_ms,sign_ms,requests\n",
    )
    .unwrap();
    for f in ["junk.csv", "empty.csv"] {
        let (c, out, err) = run(&["mpc", "bench", "--replot", &p(f), "--plot", &p("x.svg")]);
        assert_eq!(c, 2, "{f}");
        assert!(out.is_empty(), "{out}");
        assert!(err.contains(&p(f)), "{err}");
    }
    // Cards that name one party twice, or a threshold out of range: exit 2, nothing written.
    let card = |name: &str, account: &str| {
        let k = |b: u8, n: usize| {
            let mut v = vec![b; n];
            v[0] = 5;
            base64_std(&v)
        };
        format!(
            r#"{{"name":"{name}","account":"{account}","devices":[{{"id":1,"registrationId":7}}],
               "identityKey":"{}","relay":"http://127.0.0.1:1","trustRoot":"{}","accessKey":"{}"}}"#,
            k(name.len() as u8, 33),
            k(9, 33),
            base64_std(&[1; 16])
        )
    };
    let a = "00000000-0000-4000-8000-000000000001";
    std::fs::write(p("a.json"), card("a", a)).unwrap();
    std::fs::write(p("b.json"), card("bb", a)).unwrap();
    std::fs::write(
        p("c.json"),
        card("ccc", "00000000-0000-4000-8000-000000000003"),
    )
    .unwrap();
    let group = |cards: &str, t: &str| {
        run(&[
            "mpc",
            "group",
            "--threshold",
            t,
            "--cards",
            cards,
            "--out",
            &p("g.json"),
        ])
    };
    let (c, _, err) = group(&format!("{},{}", p("a.json"), p("b.json")), "1");
    assert_eq!(c, 2);
    assert!(
        err.contains("card 1 (a) and card 2 (bb) have the same account"),
        "{err}"
    );
    let (c, _, err) = group(&format!("{},{}", p("a.json"), p("c.json")), "2");
    assert_eq!(c, 2);
    assert!(err.contains("threshold 2 for 2 parties"), "{err}");
    assert!(!std::path::Path::new(&p("g.json")).exists());
    assert_eq!(group(&format!("{},{}", p("a.json"), p("c.json")), "1").0, 0);
    // A group file that does not parse is named.
    std::fs::write(p("bad.json"), b"{}").unwrap();
    let (c, _, err) = run(&[
        "mpc",
        "keygen",
        "--dir",
        &p("nobody"),
        "--group",
        &p("bad.json"),
        "--pk-out",
        &p("k"),
    ]);
    assert_eq!(c, 2);
    assert!(err.contains("bad.json"), "{err}");
}

fn base64_std(b: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in b.chunks(3) {
        let n = c
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &x)| n | u32::from(x) << (16 - 8 * i));
        for i in 0..=c.len() {
            out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
        out.push_str(&"=".repeat(3 - c.len()));
    }
    out
}

#[test]
fn relay_serve_gaps() {
    let d = common::scratch("gaps-relay");
    let p = |f: &str| path(&d, f);
    let db = p("relay.redb");
    // No silent default address, and one store only.
    assert_eq!(run(&["relay", "serve", "--db", &db]).0, 2);
    assert_eq!(run(&["relay", "serve", "--listen", "127.0.0.1:0"]).0, 2);
    let (c, _, err) = run(&[
        "relay",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--db",
        &db,
        "--postgres",
        "host=x",
    ]);
    assert_eq!(c, 2);
    assert!(err.contains("--postgres") || err.contains("--db"), "{err}");
    // A failed start leaves nothing behind: a port in use ...
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = busy.local_addr().unwrap().to_string();
    let (c, _, err) = run(&["relay", "serve", "--listen", &addr, "--db", &db]);
    assert_eq!(c, 2);
    assert!(err.contains("cannot listen"), "{err}");
    // ... or a bad trust-root file, found after the store was opened.
    std::fs::write(p("root"), [1u8; 5]).unwrap();
    let (c, _, err) = run(&[
        "relay",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--db",
        &db,
        "--trust-root",
        &p("root"),
    ]);
    assert_eq!(c, 2);
    assert!(err.contains("32 bytes"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        left,
        vec!["root".to_string()],
        "nothing but the test's own file"
    );
}

/// Plain http to a relay that is not on loopback would send the device password in clear:
/// `mpc init` and `relay bench` refuse it before anything else (no passphrase read, no
/// connection, no file) unless `--insecure-http` is given.
#[test]
fn plain_http_to_a_remote_relay_needs_insecure_http() {
    let d = common::scratch("gaps-insecure-http");
    let dir = path(&d, "alice");
    let missing = path(&d, "no-passphrase-here");
    let init = |more: &[&str]| {
        let mut args = vec![
            "mpc",
            "init",
            "--dir",
            &dir,
            "--relay",
            "http://example.invalid:8080",
            "--name",
            "alice",
            "--passphrase-file",
            &missing,
        ];
        args.extend_from_slice(more);
        run(&args)
    };
    let (c, _, err) = init(&[]);
    assert_eq!(c, 2);
    assert!(
        err.contains("plain http") && err.contains("--insecure-http"),
        "{err}"
    );
    // With the flag the URL passes; the command goes on and stops at the missing passphrase
    // file, still before any connection.
    let (c, _, err) = init(&["--insecure-http"]);
    assert_eq!(c, 2);
    assert!(
        !err.contains("plain http") && err.contains("no-passphrase-here"),
        "{err}"
    );
    let (c, _, err) = run(&["relay", "bench", "--url", "http://example.invalid:8080"]);
    assert_eq!(c, 2);
    assert!(err.contains("--insecure-http"), "{err}");
    assert!(!std::path::Path::new(&dir).exists());
}
