//! `alibi ring` end to end: keys from `ring keygen` and from `falcon keygen` in one ring, the
//! exit-code contract on good, bad and malformed input.

use crate::common;
use common::{alibi, code};

#[test]
fn ring_keygen_sign_verify() {
    let d = common::scratch("ring");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    std::fs::write(p("msg"), b"one of us said this").unwrap();
    for (scheme, level) in [("falcon512", "512"), ("falcon1024", "1024")] {
        let (a_pk, a_sk, b_pk, b_sk, c_pk, c_sk) = (
            p("a.pk"),
            p("a.sk"),
            p("b.pk"),
            p("b.sk"),
            p("c.pk"),
            p("c.sk"),
        );
        assert_eq!(
            code(&alibi(&[
                "ring", "keygen", "--scheme", scheme, "--pk", &a_pk, "--sk", &a_sk, "--force"
            ])),
            0
        );
        assert_eq!(
            code(&alibi(&[
                "ring", "keygen", "--scheme", scheme, "--pk", &b_pk, "--sk", &b_sk, "--force"
            ])),
            0
        );
        // A plain Falcon key joins the ring too.
        assert_eq!(
            code(&alibi(&[
                "falcon", "keygen", "--level", level, "--pk", &c_pk, "--sk", &c_sk, "--force"
            ])),
            0
        );
        let ring = format!("{a_pk},{b_pk},{c_pk}");
        let (msg, sig) = (p("msg"), p("sig"));
        assert_eq!(
            code(&alibi(&[
                "ring", "sign", "--sk", &b_sk, "--ring", &ring, "--msg", &msg, "--out", &sig,
                "--force"
            ])),
            0
        );
        assert_eq!(
            code(&alibi(&[
                "ring", "verify", "--ring", &ring, "--msg", &msg, "--sig", &sig
            ])),
            0
        );
        // Reordered ring: a valid encoding that does not verify.
        let reordered = format!("{b_pk},{a_pk},{c_pk}");
        assert_eq!(
            code(&alibi(&[
                "ring", "verify", "--ring", &reordered, "--msg", &msg, "--sig", &sig
            ])),
            1
        );
        // Another message.
        std::fs::write(p("other"), b"nobody said this").unwrap();
        assert_eq!(
            code(&alibi(&[
                "ring",
                "verify",
                "--ring",
                &ring,
                "--msg",
                &p("other"),
                "--sig",
                &sig
            ])),
            1
        );
        // A ring of the wrong size for the signature: malformed (2).
        let two = format!("{a_pk},{b_pk}");
        assert_eq!(
            code(&alibi(&[
                "ring", "verify", "--ring", &two, "--msg", &msg, "--sig", &sig
            ])),
            2
        );
        // Signer outside the ring, one-member ring, junk key: usage errors.
        assert_eq!(
            code(&alibi(&[
                "ring", "sign", "--sk", &c_sk, "--ring", &two, "--msg", &msg, "--out", &sig
            ])),
            2
        );
        assert_eq!(
            code(&alibi(&[
                "ring", "verify", "--ring", &a_pk, "--msg", &msg, "--sig", &sig
            ])),
            2
        );
        std::fs::write(p("junk"), [1u8, 2, 3]).unwrap();
        let junk = format!("{a_pk},{}", p("junk"));
        assert_eq!(
            code(&alibi(&[
                "ring", "verify", "--ring", &junk, "--msg", &msg, "--sig", &sig
            ])),
            2
        );
    }
    assert_eq!(
        code(&alibi(&[
            "ring", "keygen", "--scheme", "rsa", "--pk", "x", "--sk", "y"
        ])),
        2
    );
    assert_eq!(code(&alibi(&["ring"])), 2);
}

#[test]
fn mayo_ring_keygen_sign_verify() {
    let d = common::scratch("ring-mayo");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    std::fs::write(p("msg"), b"one of us said this").unwrap();
    std::fs::write(p("other"), b"nobody said this").unwrap();
    let run = |args: &[&str]| code(&alibi(args));
    for scheme in ["mayo1", "mayo2"] {
        for who in ["a", "b", "c"] {
            let (pk, sk) = (p(&format!("{who}.pk")), p(&format!("{who}.sk")));
            assert_eq!(
                run(&["ring", "keygen", "--scheme", scheme, "--pk", &pk, "--sk", &sk, "--force"]),
                0
            );
        }
        let ring = format!("{},{},{}", p("a.pk"), p("b.pk"), p("c.pk"));
        let (msg, sig) = (p("msg"), p("sig"));
        let sign = |sk: &str, ring: &str, extra: &[&str]| {
            let mut args = vec!["ring", "sign", "--sk", sk, "--ring", ring, "--msg", &msg];
            args.extend(["--out", &sig, "--force"]);
            args.extend(extra);
            run(&args)
        };
        let verify = |ring: &str, msg: &str, extra: &[&str]| {
            let mut args = vec![
                "ring", "verify", "--ring", ring, "--msg", msg, "--sig", &sig,
            ];
            args.extend(extra);
            run(&args)
        };
        assert_eq!(sign(&p("c.sk"), &ring, &[]), 0);
        assert_eq!(verify(&ring, &msg, &[]), 0);
        assert_eq!(verify(&ring, &msg, &["--scheme", scheme]), 0);
        // Another message, another order: invalid (1).
        assert_eq!(verify(&ring, &p("other"), &[]), 1);
        let reordered = format!("{},{},{}", p("b.pk"), p("a.pk"), p("c.pk"));
        assert_eq!(verify(&reordered, &msg, &[]), 1);
        // The wrong scheme, a ring of another size, a truncated signature: malformed (2).
        let wrong = if scheme == "mayo1" { "mayo2" } else { "mayo1" };
        assert_eq!(verify(&ring, &msg, &["--scheme", wrong]), 2);
        assert_eq!(
            verify(&format!("{},{}", p("a.pk"), p("b.pk")), &msg, &[]),
            2
        );
        let bytes = std::fs::read(&sig).unwrap();
        std::fs::write(&sig, &bytes[..bytes.len() - 1]).unwrap();
        assert_eq!(verify(&ring, &msg, &[]), 2);
        // An outsider's key and a secret key of the wrong length: usage errors (2).
        let (x_pk, x_sk) = (p("x.pk"), p("x.sk"));
        assert_eq!(
            run(&["ring", "keygen", "--scheme", scheme, "--pk", &x_pk, "--sk", &x_sk, "--force"]),
            0
        );
        assert_eq!(sign(&x_sk, &ring, &[]), 2);
        std::fs::write(p("short.sk"), [0u8; 5]).unwrap();
        assert_eq!(sign(&p("short.sk"), &ring, &[]), 2);
    }
}

/// GANDALF[Antrag, Mitaka]: fresh keys round-trip through keygen, sign and verify; the artifact's
/// raw keys and one of its signatures (vectors/shadowfax-artifact-bat-mitaka) verify as files.
#[test]
fn mitaka_ring_keygen_sign_verify() {
    let d = common::scratch("ring-mitaka");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    let run = |args: &[&str]| code(&alibi(args));
    std::fs::write(p("msg"), b"one of us said this").unwrap();
    std::fs::write(p("other"), b"nobody said this").unwrap();
    for who in ["a", "b", "c"] {
        let (pk, sk) = (p(&format!("{who}.pk")), p(&format!("{who}.sk")));
        assert_eq!(
            run(&[
                "ring",
                "keygen",
                "--scheme",
                "mitaka512",
                "--pk",
                &pk,
                "--sk",
                &sk,
                "--force"
            ]),
            0
        );
        assert_eq!(std::fs::read(&pk).unwrap().len(), 896);
        assert_eq!(std::fs::read(&sk).unwrap().len(), 2048);
    }
    let ring = format!("{},{},{}", p("a.pk"), p("b.pk"), p("c.pk"));
    let (msg, sig) = (p("msg"), p("sig"));
    assert_eq!(
        run(&[
            "ring",
            "sign",
            "--sk",
            &p("c.sk"),
            "--ring",
            &ring,
            "--msg",
            &msg,
            "--out",
            &sig
        ]),
        0
    );
    assert_eq!(std::fs::read(&sig).unwrap().len(), 3 * 626 + 24);
    // The scheme follows from the 896-byte keys; naming it agrees.
    assert_eq!(
        run(&["ring", "verify", "--ring", &ring, "--msg", &msg, "--sig", &sig]),
        0
    );
    assert_eq!(
        run(&[
            "ring",
            "verify",
            "--scheme",
            "mitaka512",
            "--ring",
            &ring,
            "--msg",
            &msg,
            "--sig",
            &sig
        ]),
        0
    );
    assert_eq!(
        run(&[
            "ring",
            "verify",
            "--ring",
            &ring,
            "--msg",
            &p("other"),
            "--sig",
            &sig
        ]),
        1
    );
    // A Falcon scheme named over Antrag keys, and a Falcon secret key for an Antrag ring.
    assert_eq!(
        run(&[
            "ring",
            "verify",
            "--scheme",
            "falcon512",
            "--ring",
            &ring,
            "--msg",
            &msg,
            "--sig",
            &sig
        ]),
        2
    );
    assert_eq!(
        run(&[
            "falcon",
            "keygen",
            "--level",
            "512",
            "--pk",
            &p("f.pk"),
            "--sk",
            &p("f.sk"),
            "--force"
        ]),
        0
    );
    assert_eq!(
        run(&[
            "ring",
            "sign",
            "--sk",
            &p("f.sk"),
            "--ring",
            &ring,
            "--msg",
            &msg,
            "--out",
            &sig
        ]),
        2
    );

    // The artifact's first honest line, as files.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/shadowfax-artifact-bat-mitaka/gandalf_mitaka.jsonl"
    ))
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(text.lines().nth(2).unwrap()).unwrap();
    let field = |k: &str| hex::decode(v[k].as_str().unwrap()).unwrap();
    for k in ["h0", "h1", "msg", "sig", "sk0"] {
        std::fs::write(p(k), field(k)).unwrap();
    }
    let ring = format!("{},{}", p("h0"), p("h1"));
    assert_eq!(
        run(&[
            "ring",
            "verify",
            "--ring",
            &ring,
            "--msg",
            &p("msg"),
            "--sig",
            &p("sig")
        ]),
        0
    );
    // The artifact's secret key signs for its ring.
    assert_eq!(
        run(&[
            "ring",
            "sign",
            "--sk",
            &p("sk0"),
            "--ring",
            &ring,
            "--msg",
            &msg,
            "--out",
            &sig,
            "--force"
        ]),
        0
    );
    assert_eq!(
        run(&["ring", "verify", "--ring", &ring, "--msg", &msg, "--sig", &sig]),
        0
    );
}
