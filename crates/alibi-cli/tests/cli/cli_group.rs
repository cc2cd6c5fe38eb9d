//! `alibi group` end to end: a manager directory, a member's credential, certificates, signing
//! (one-time keys consumed from the files), verification, opening, judging and revocation.

use crate::common;
use common::{alibi, code};

/// A member's files in a scratch directory: its secret key, credential (`cred`), certificate
/// request, pending one-time keys and certificates.
struct Member {
    usk: String,
    cred: String,
    req: String,
    pend: String,
    certs: String,
}

impl Member {
    fn in_dir(d: &std::path::Path) -> Self {
        let p = |f: &str| d.join(f).to_str().unwrap().to_string();
        Member {
            usk: p("user.sk"),
            cred: p("cred"),
            req: p("req"),
            pend: p("pending"),
            certs: p("certs"),
        }
    }

    /// `group csr` for `count` one-time keys with credential `cred`, then `group cert` by the
    /// manager in `dir`: the two exit codes.
    fn enrol(&self, dir: &str, cred: &str, count: usize) -> (i32, i32) {
        let n = count.to_string();
        let (usk, req, pend) = (&self.usk, &self.req, &self.pend);
        let csr = [
            "group",
            "csr",
            "--cred",
            cred,
            "--user-sk",
            usk,
            "--count",
            &n,
            "--req",
            req,
            "--pending",
            pend,
        ];
        let cert = [
            "group",
            "cert",
            "--dir",
            dir,
            "--req",
            req,
            "--certs",
            &self.certs,
        ];
        (code(&alibi(&csr)), code(&alibi(&cert)))
    }

    /// `group sign` of `msg` into `out` under the group key `pk`: the exit code.
    fn sign(&self, pk: &str, msg: &str, out: &str) -> i32 {
        let (usk, pend, certs) = (&self.usk, &self.pend, &self.certs);
        code(&alibi(&[
            "group",
            "sign",
            "--user-sk",
            usk,
            "--cred",
            &self.cred,
            "--pending",
            pend,
            "--certs",
            certs,
            "--pk",
            pk,
            "--msg",
            msg,
            "--out",
            out,
        ]))
    }
}

#[test]
fn manager_and_member_on_files() {
    let d = common::scratch("group");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    let dir = p("manager");
    let pk = format!("{dir}/manager.pk");
    let (msg, sig) = (p("msg"), p("sig"));
    std::fs::write(&msg, b"the group says hi").unwrap();
    std::fs::write(p("other"), b"the group says bye").unwrap();
    let run = |args: &[&str]| alibi(&[&["group"][..], args].concat());
    let keygen = ["manager-keygen", "--params", "shake-128f", "--dir", &dir];
    assert_eq!(code(&run(&keygen)), 0);
    let join =
        |name: &str, cred: &str| run(&["join", "--dir", &dir, "--username", name, "--cred", cred]);
    let o = join("alice", &p("cred"));
    assert_eq!(code(&o), 0);
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "0");
    assert_eq!(code(&join("alice", &p("x"))), 2);
    let m = Member::in_dir(&d);
    assert_eq!(m.enrol(&dir, &p("cred"), 2), (0, 0));
    let sign = |out: &str| m.sign(&pk, &msg, out);
    assert_eq!(sign(&sig), 0);
    assert_eq!(sign(&p("sig2")), 0);
    // Two one-time keys, two signatures: the third attempt has no key left.
    assert_eq!(sign(&p("sig3")), 2);
    assert_ne!(
        std::fs::read(&sig).unwrap(),
        std::fs::read(p("sig2")).unwrap()
    );
    let verify = |m: &str, s: &str, with_dir: bool| {
        let mut a = vec!["verify", "--pk", &pk, "--msg", m, "--sig", s];
        if with_dir {
            a.extend(["--dir", &dir]);
        }
        code(&run(&a))
    };
    assert_eq!(verify(&msg, &sig, true), 0);
    assert_eq!(verify(&p("other"), &sig, false), 1);
    let o = run(&["open", "--dir", &dir, "--msg", &msg, "--sig", &sig]);
    assert_eq!(code(&o), 0);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let parts: Vec<&str> = out.split_whitespace().collect();
    assert_eq!(&parts[..2], &["0", "alice"]);
    let judge = |id: &str| {
        code(&run(&[
            "judge", "--pk", &pk, "--msg", &msg, "--sig", &sig, "--id", id, "--pi", parts[2],
        ]))
    };
    assert_eq!(judge("0"), 0);
    assert_eq!(judge("1"), 1);
    assert_eq!(code(&run(&["revoke", "--dir", &dir, "--id", "0"])), 0);
    assert_eq!(verify(&msg, &sig, true), 1);
    // Malformed inputs.
    std::fs::write(p("junk"), [1u8, 2, 3]).unwrap();
    assert_eq!(verify(&msg, &p("junk"), false), 2);
    assert_eq!(
        code(&run(&["manager-keygen", "--params", "rsa", "--dir", &dir])),
        2
    );
    assert_eq!(code(&alibi(&["group"])), 2);
}

/// `verify --dir` checks revocation against the directory's list: a directory of another group
/// (whose list does not hold this group's revocations) is refused with exit 2, naming both keys,
/// not answered "valid" for a member revoked in its own group.
#[test]
fn verify_refuses_another_groups_directory() {
    let d = common::scratch("group-dir");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    let (mgr, mgr2) = (p("mgr"), p("mgr2"));
    let pk = format!("{mgr}/manager.pk");
    let run = |args: &[&str]| alibi(&[&["group"][..], args].concat());
    for dir in [&mgr, &mgr2] {
        let keygen = ["manager-keygen", "--params", "shake-128f", "--dir", dir];
        assert_eq!(code(&run(&keygen)), 0);
    }
    let cred = p("cred");
    let join = ["join", "--dir", &mgr, "--username", "bob", "--cred", &cred];
    assert_eq!(code(&run(&join)), 0);
    let m = Member::in_dir(&d);
    assert_eq!(m.enrol(&mgr, &cred, 1), (0, 0));
    let (msg, sig) = (p("msg"), p("sig"));
    std::fs::write(&msg, b"hi").unwrap();
    assert_eq!(m.sign(&pk, &msg, &sig), 0);
    assert_eq!(code(&run(&["revoke", "--dir", &mgr, "--id", "0"])), 0);
    let verify = |dir: &str| {
        run(&[
            "verify", "--pk", &pk, "--msg", &msg, "--sig", &sig, "--dir", dir,
        ])
    };
    assert_eq!(code(&verify(&mgr)), 1, "revoked in its own group");
    let o = verify(&mgr2);
    assert_eq!(code(&o), 2, "another group's directory");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("another group") && err.contains("mgr2") && err.contains(&pk),
        "{err}"
    );
    // A directory without a manager is refused as well.
    std::fs::create_dir_all(p("empty")).unwrap();
    assert_eq!(code(&verify(&p("empty"))), 2);
}
