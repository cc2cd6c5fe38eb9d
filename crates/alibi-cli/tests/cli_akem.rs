//! `alibi akem` end to end for the three schemes, with the exit-code contract.

mod common;
use common::{alibi, code};

#[test]
fn keygen_encap_decap_all_schemes() {
    let d = common::scratch("akem");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    for scheme in ["dh", "pq", "shadowfax"] {
        let (spk, ssk, rpk, rsk) = (p("s.pk"), p("s.sk"), p("r.pk"), p("r.sk"));
        let (ct, k1, k2) = (p("ct"), p("k1"), p("k2"));
        let keygen = |pk: &str, sk: &str| {
            code(&alibi(&[
                "akem", "keygen", "--scheme", scheme, "--pk", pk, "--sk", sk, "--force",
            ]))
        };
        let encap = |sender_sk: &str, receiver_pk: &str| {
            code(&alibi(&[
                "akem",
                "encap",
                "--scheme",
                scheme,
                "--sender-sk",
                sender_sk,
                "--receiver-pk",
                receiver_pk,
                "--ct",
                &ct,
                "--key",
                &k1,
                "--force",
            ]))
        };
        let decap = || {
            code(&alibi(&[
                "akem",
                "decap",
                "--scheme",
                scheme,
                "--receiver-sk",
                &rsk,
                "--sender-pk",
                &spk,
                "--ct",
                &ct,
                "--key",
                &k2,
                "--force",
            ]))
        };
        assert_eq!(keygen(&spk, &ssk), 0);
        assert_eq!(keygen(&rpk, &rsk), 0);
        assert_eq!(encap(&ssk, &rpk), 0);
        assert_eq!(decap(), 0);
        assert_eq!(std::fs::read(&k1).unwrap(), std::fs::read(&k2).unwrap());
        assert_eq!(std::fs::read(&k1).unwrap().len(), 32);
        // A tampered ciphertext: rejected (1) for the authenticated PQ schemes; DH-AKEM derives a
        // different key (implicit authentication).
        let mut c = std::fs::read(&ct).unwrap();
        let last = c.len() - 1;
        c[last] ^= 1;
        std::fs::write(&ct, &c).unwrap();
        if scheme == "dh" {
            assert_eq!(decap(), 0);
            assert_ne!(std::fs::read(&k1).unwrap(), std::fs::read(&k2).unwrap());
        } else {
            assert_eq!(decap(), 1);
        }
        // Truncated ciphertext and wrong-size keys in either role: malformed (2).
        std::fs::write(&ct, &c[..c.len() - 1]).unwrap();
        assert_eq!(decap(), 2);
        let junk = p("junk");
        std::fs::write(&junk, [1u8, 2, 3, 4, 5]).unwrap();
        assert_eq!(encap(&junk, &rpk), 2, "{scheme}");
        assert_eq!(encap(&ssk, &junk), 2, "{scheme}");
    }
    assert_eq!(
        code(&alibi(&[
            "akem", "keygen", "--scheme", "rsa", "--pk", "a", "--sk", "b"
        ])),
        2
    );
    assert_eq!(code(&alibi(&["akem"])), 2);
}
