//! `alibi group` end to end: a manager directory, a member's credential, certificates, signing
//! (one-time keys consumed from the files), verification, opening, judging and revocation.

mod common;
use common::{alibi, code};

#[test]
fn manager_and_member_on_files() {
    let d = common::scratch("group");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    let dir = p("manager");
    let pk = format!("{dir}/manager.pk");
    std::fs::write(p("msg"), b"the group says hi").unwrap();
    std::fs::write(p("other"), b"the group says bye").unwrap();
    assert_eq!(
        code(&alibi(&[
            "group",
            "manager-keygen",
            "--params",
            "shake-128f",
            "--dir",
            &dir
        ])),
        0
    );
    let o = alibi(&[
        "group",
        "join",
        "--dir",
        &dir,
        "--username",
        "alice",
        "--cred",
        &p("cred"),
    ]);
    assert_eq!(code(&o), 0);
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "0");
    assert_eq!(
        code(&alibi(&[
            "group",
            "join",
            "--dir",
            &dir,
            "--username",
            "alice",
            "--cred",
            &p("x")
        ])),
        2
    );
    let (usk, req, pend, certs) = (p("user.sk"), p("req"), p("pending"), p("certs"));
    assert_eq!(
        code(&alibi(&[
            "group",
            "csr",
            "--cred",
            &p("cred"),
            "--user-sk",
            &usk,
            "--count",
            "2",
            "--req",
            &req,
            "--pending",
            &pend
        ])),
        0
    );
    assert_eq!(
        code(&alibi(&[
            "group", "cert", "--dir", &dir, "--req", &req, "--certs", &certs
        ])),
        0
    );
    let (msg, sig) = (p("msg"), p("sig"));
    let sign = |out: &str| {
        code(&alibi(&[
            "group",
            "sign",
            "--user-sk",
            &usk,
            "--pending",
            &pend,
            "--certs",
            &certs,
            "--pk",
            &pk,
            "--msg",
            &msg,
            "--out",
            out,
        ]))
    };
    assert_eq!(sign(&sig), 0);
    assert_eq!(sign(&p("sig2")), 0);
    // Two one-time keys, two signatures: the third attempt has no key left.
    assert_eq!(sign(&p("sig3")), 2);
    assert_ne!(
        std::fs::read(&sig).unwrap(),
        std::fs::read(p("sig2")).unwrap()
    );
    assert_eq!(
        code(&alibi(&[
            "group", "verify", "--pk", &pk, "--msg", &msg, "--sig", &sig, "--dir", &dir
        ])),
        0
    );
    assert_eq!(
        code(&alibi(&[
            "group",
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
    let o = alibi(&["group", "open", "--dir", &dir, "--msg", &msg, "--sig", &sig]);
    assert_eq!(code(&o), 0);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let parts: Vec<&str> = out.split_whitespace().collect();
    assert_eq!(&parts[..2], &["0", "alice"]);
    assert_eq!(
        code(&alibi(&[
            "group", "judge", "--pk", &pk, "--msg", &msg, "--sig", &sig, "--id", "0", "--pi",
            parts[2]
        ])),
        0
    );
    assert_eq!(
        code(&alibi(&[
            "group", "judge", "--pk", &pk, "--msg", &msg, "--sig", &sig, "--id", "1", "--pi",
            parts[2]
        ])),
        1
    );
    assert_eq!(
        code(&alibi(&["group", "revoke", "--dir", &dir, "--id", "0"])),
        0
    );
    assert_eq!(
        code(&alibi(&[
            "group", "verify", "--pk", &pk, "--msg", &msg, "--sig", &sig, "--dir", &dir
        ])),
        1
    );
    // Malformed inputs.
    std::fs::write(p("junk"), [1u8, 2, 3]).unwrap();
    assert_eq!(
        code(&alibi(&[
            "group",
            "verify",
            "--pk",
            &pk,
            "--msg",
            &msg,
            "--sig",
            &p("junk")
        ])),
        2
    );
    assert_eq!(
        code(&alibi(&[
            "group",
            "manager-keygen",
            "--params",
            "rsa",
            "--dir",
            &dir
        ])),
        2
    );
    assert_eq!(code(&alibi(&["group"])), 2);
}
