//! `alibi tachyon` end to end with the exit-code contract.

use std::process::{Command, Output};

fn alibi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args(args)
        .output()
        .expect("run alibi")
}

fn code(o: &Output) -> i32 {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "panic: {err}");
    if o.status.code() != Some(0) {
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "one-line message: {err:?}"
        );
    }
    o.status.code().unwrap()
}

#[test]
fn keygen_sign_verify_every_level() {
    let d = std::env::temp_dir().join(format!("alibi-cli-tachyon-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    std::fs::write(p("msg"), b"fast signatures").unwrap();
    std::fs::write(p("other"), b"slow signatures").unwrap();
    for level in ["128", "192", "256"] {
        let (pk, sk, sig, msg) = (p("pk"), p("sk"), p("sig"), p("msg"));
        assert_eq!(
            code(&alibi(&[
                "tachyon", "keygen", "--level", level, "--pk", &pk, "--sk", &sk
            ])),
            0
        );
        assert_eq!(
            code(&alibi(&[
                "tachyon", "sign", "--sk", &sk, "--msg", &msg, "--out", &sig
            ])),
            0
        );
        assert_eq!(
            code(&alibi(&[
                "tachyon", "verify", "--pk", &pk, "--msg", &msg, "--sig", &sig
            ])),
            0
        );
        assert_eq!(
            code(&alibi(&[
                "tachyon",
                "verify",
                "--pk",
                &pk,
                "--msg",
                &p("other"),
                "--sig",
                &sig
            ])),
            1
        );
        let mut s = std::fs::read(&sig).unwrap();
        s.pop();
        std::fs::write(p("short"), &s).unwrap();
        assert_eq!(
            code(&alibi(&[
                "tachyon",
                "verify",
                "--pk",
                &pk,
                "--msg",
                &msg,
                "--sig",
                &p("short")
            ])),
            2
        );
        assert_eq!(
            code(&alibi(&[
                "tachyon", "verify", "--pk", &sk, "--msg", &msg, "--sig", &sig
            ])),
            2
        );
    }
    assert_eq!(
        code(&alibi(&[
            "tachyon", "keygen", "--level", "100", "--pk", "a", "--sk", "b"
        ])),
        2
    );
    assert_eq!(code(&alibi(&["tachyon"])), 2);
}
