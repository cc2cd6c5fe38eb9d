//! The `alibi falcon` commands end to end, with the exit-code contract, and interop through files
//! with PQClean (pqcrypto-falcon).

use crate::common;
use common::{alibi, code, scratch as dir};
use pqcrypto_traits::sign::{DetachedSignature as _, PublicKey as _, SecretKey as _};
use std::path::Path;

fn p(d: &Path, f: &str) -> String {
    d.join(f).to_str().unwrap().to_string()
}

#[test]
fn keygen_sign_verify_both_levels() {
    let d = dir("roundtrip");
    std::fs::write(p(&d, "msg"), b"attack at dawn").unwrap();
    std::fs::write(p(&d, "other"), b"attack at dusk").unwrap();
    for level in ["512", "1024"] {
        let (pk, sk, sig) = (p(&d, "pk"), p(&d, "sk"), p(&d, "sig"));
        assert_eq!(
            code(&alibi(&[
                "falcon", "keygen", "--level", level, "--pk", &pk, "--sk", &sk, "--force"
            ])),
            0
        );
        let pk_len = std::fs::read(&pk).unwrap().len();
        assert_eq!(pk_len, if level == "512" { 897 } else { 1793 });
        let m = p(&d, "msg");
        assert_eq!(
            code(&alibi(&[
                "falcon", "sign", "--sk", &sk, "--msg", &m, "--out", &sig, "--force"
            ])),
            0
        );
        assert_eq!(
            code(&alibi(&[
                "falcon", "verify", "--pk", &pk, "--msg", &m, "--sig", &sig
            ])),
            0
        );
        let o = p(&d, "other");
        assert_eq!(
            code(&alibi(&[
                "falcon", "verify", "--pk", &pk, "--msg", &o, "--sig", &sig
            ])),
            1
        );
        // Malformed inputs are usage errors (2), never panics.
        let junk = p(&d, "junk");
        std::fs::write(&junk, [0x39u8, 1, 2, 3]).unwrap();
        assert_eq!(
            code(&alibi(&[
                "falcon", "verify", "--pk", &pk, "--msg", &m, "--sig", &junk
            ])),
            2
        );
        assert_eq!(
            code(&alibi(&[
                "falcon", "verify", "--pk", &junk, "--msg", &m, "--sig", &sig
            ])),
            2
        );
        assert_eq!(
            code(&alibi(&[
                "falcon", "sign", "--sk", &pk, "--msg", &m, "--out", &sig
            ])),
            2
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(code(&alibi(&["falcon"])), 2);
    assert_eq!(code(&alibi(&["falcon", "frobnicate"])), 2);
    assert_eq!(
        code(&alibi(&[
            "falcon", "keygen", "--level", "768", "--pk", "a", "--sk", "b"
        ])),
        2
    );
    assert_eq!(code(&alibi(&["falcon", "sign", "--sk"])), 2);
    assert_eq!(
        code(&alibi(&[
            "falcon",
            "verify",
            "--pk",
            "/nonexistent/x",
            "--msg",
            "a",
            "--sig",
            "b"
        ])),
        2
    );
    assert_eq!(code(&alibi(&["nonsense"])), 2);
}

#[test]
fn files_interoperate_with_pqclean() {
    use pqcrypto_falcon::falcon512 as pq;
    let d = dir("interop");
    let (pq_pk, pq_sk) = pq::keypair();
    let (pk, sk, m, sig) = (p(&d, "pk"), p(&d, "sk"), p(&d, "msg"), p(&d, "sig"));
    std::fs::write(&pk, pq_pk.as_bytes()).unwrap();
    std::fs::write(&sk, pq_sk.as_bytes()).unwrap();
    std::fs::write(&m, b"interop").unwrap();
    std::fs::write(&sig, pq::detached_sign(b"interop", &pq_sk).as_bytes()).unwrap();
    assert_eq!(
        code(&alibi(&[
            "falcon", "verify", "--pk", &pk, "--msg", &m, "--sig", &sig
        ])),
        0
    );
    assert_eq!(
        code(&alibi(&[
            "falcon", "sign", "--sk", &sk, "--msg", &m, "--out", &sig, "--force"
        ])),
        0
    );
    let ours = pq::DetachedSignature::from_bytes(&std::fs::read(&sig).unwrap()).unwrap();
    assert!(pq::verify_detached_signature(&ours, b"interop", &pq_pk).is_ok());
}

#[test]
fn demo_runs() {
    let o = alibi(&[]);
    assert_eq!(code(&o), 0);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("verify: genuine message true, other message false"));
    assert!(out.contains("plain BLS verification under the group key: true"));
    assert!(out.contains("group is "));
    assert!(out.contains("[2 members] Bob signs (1276 B"));
    assert!(out.contains("verifies: true; on another message: false"));
    assert!(out.contains("Bob recovers the key: true"));
    assert!(out.contains("decapsulates the same way: true"));
    assert!(out.contains("judge agrees: true; after revocation verifies: false"));
}
