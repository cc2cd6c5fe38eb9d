//! `alibi akem` end to end for the three schemes (and the BAT suite's two), with the exit-code
//! contract.

use crate::common;
use common::{alibi, code};

#[test]
fn keygen_encap_decap_all_schemes() {
    let d = common::scratch("akem");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    for scheme in ["dh", "pq", "shadowfax", "pq-bat", "shadowfax-bat"] {
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

/// The artifact's SHADOWFAX[X25519, BAT, GANDALF[Antrag, Mitaka]] keys and ciphertext as files: plain
/// `--scheme shadowfax` finds the BAT suite from the key lengths and decapsulates to the artifact's
/// key; a BAT scheme with another suite is a usage error.
#[test]
fn artifact_bat_ciphertext_decapsulates_from_files() {
    let d = common::scratch("akem-bat");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/shadowfax-artifact-bat-mitaka/shadowfax_bat.jsonl"
    ))
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    for k in ["receiver_sk", "sender_pk", "ct"] {
        std::fs::write(p(k), hex::decode(v[k].as_str().unwrap()).unwrap()).unwrap();
    }
    let (rsk, spk, ct, key) = (p("receiver_sk"), p("sender_pk"), p("ct"), p("key"));
    let decap = |scheme: &str, extra: &[&str]| {
        let mut args = vec![
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
            "--force",
            "--key",
            &key,
        ];
        args.extend_from_slice(extra);
        code(&alibi(&args))
    };
    for scheme in ["shadowfax", "shadowfax-bat"] {
        assert_eq!(decap(scheme, &[]), 0, "{scheme}");
        assert_eq!(
            hex::encode(std::fs::read(p("key")).unwrap()),
            v["decap_key"].as_str().unwrap()
        );
    }
    assert_eq!(
        decap("shadowfax-bat", &["--suite", "mlkem512-falcon512"]),
        2
    );
    assert_eq!(decap("pq-bat", &[]), 2, "a SHADOWFAX key is no PQ-AKEM key");
}
