//! `alibi tachyon` end to end with the exit-code contract.

use crate::common;
use common::{alibi, code};

#[test]
fn keygen_sign_verify_every_level() {
    let d = common::scratch("tachyon");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    std::fs::write(p("msg"), b"fast signatures").unwrap();
    std::fs::write(p("other"), b"slow signatures").unwrap();
    for level in ["128", "192", "256"] {
        let (pk, sk, sig, msg) = (p("pk"), p("sk"), p("sig"), p("msg"));
        let verify = |pk: &str, msg: &str, sig: &str| {
            code(&alibi(&[
                "tachyon", "verify", "--pk", pk, "--msg", msg, "--sig", sig,
            ]))
        };
        let keygen = [
            "tachyon", "keygen", "--level", level, "--pk", &pk, "--sk", &sk, "--force",
        ];
        assert_eq!(code(&alibi(&keygen)), 0);
        let sign = [
            "tachyon", "sign", "--sk", &sk, "--msg", &msg, "--out", &sig, "--force",
        ];
        assert_eq!(code(&alibi(&sign)), 0);
        assert_eq!(verify(&pk, &msg, &sig), 0);
        assert_eq!(verify(&pk, &p("other"), &sig), 1);
        let mut s = std::fs::read(&sig).unwrap();
        s.pop();
        std::fs::write(p("short"), &s).unwrap();
        assert_eq!(verify(&pk, &msg, &p("short")), 2);
        assert_eq!(verify(&sk, &msg, &sig), 2);
    }
    let bad = [
        "tachyon", "keygen", "--level", "100", "--pk", "a", "--sk", "b",
    ];
    assert_eq!(code(&alibi(&bad)), 2);
    assert_eq!(code(&alibi(&["tachyon"])), 2);
}
