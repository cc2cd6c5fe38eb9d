//! `alibi ring` end to end: keys from `ring keygen` and from `falcon keygen` in one ring, the
//! exit-code contract on good, bad and malformed input.

mod common;
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
                "ring", "keygen", "--scheme", scheme, "--pk", &a_pk, "--sk", &a_sk
            ])),
            0
        );
        assert_eq!(
            code(&alibi(&[
                "ring", "keygen", "--scheme", scheme, "--pk", &b_pk, "--sk", &b_sk
            ])),
            0
        );
        // A plain Falcon key joins the ring too.
        assert_eq!(
            code(&alibi(&[
                "falcon", "keygen", "--level", level, "--pk", &c_pk, "--sk", &c_sk
            ])),
            0
        );
        let ring = format!("{a_pk},{b_pk},{c_pk}");
        let (msg, sig) = (p("msg"), p("sig"));
        assert_eq!(
            code(&alibi(&[
                "ring", "sign", "--sk", &b_sk, "--ring", &ring, "--msg", &msg, "--out", &sig
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
