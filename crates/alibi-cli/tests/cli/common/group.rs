//! A DGSP group for the CLI tests: a manager (SHAKE-128f) in `mgr`, member bob joined (his
//! credential in `bob.cred`) and a message file `m`, with the member's verbs as commands.

use std::process::Output;

use super::{alibi, code, path, scratch, Scratch};

/// The group's scratch directory.
pub struct Group {
    d: Scratch,
}

impl Group {
    /// The manager set up and bob joined, in a fresh scratch directory named after `name`.
    pub fn new(name: &str) -> Self {
        let g = Group { d: scratch(name) };
        let mgr = g.p("mgr");
        let o = g.run(&["manager-keygen", "--params", "shake-128f", "--dir", &mgr]);
        assert_eq!(code(&o), 0);
        let cred = g.p("bob.cred");
        let o = g.run(&["join", "--dir", &mgr, "--username", "bob", "--cred", &cred]);
        assert_eq!(code(&o), 0);
        std::fs::write(g.p("m"), b"the minutes").unwrap();
        g
    }

    /// A file in the directory.
    pub fn p(&self, f: &str) -> String {
        path(&self.d, f)
    }

    /// `alibi group ARGS`.
    pub fn run(&self, args: &[&str]) -> Output {
        alibi(&[&["group"][..], args].concat())
    }

    /// bob's `csr` of `count` keys (his member key in `bob.sk`) into `req` and `pending`.
    pub fn csr(&self, count: &str, req: &str, pending: &str, extra: &[&str]) -> Output {
        let (cred, sk) = (self.p("bob.cred"), self.p("bob.sk"));
        let mut a = vec![
            "csr",
            "--cred",
            &cred,
            "--user-sk",
            &sk,
            "--count",
            count,
            "--req",
            req,
            "--pending",
            pending,
        ];
        a.extend_from_slice(extra);
        self.run(&a)
    }

    /// The manager's `cert` of `req` into `certs`.
    pub fn cert(&self, req: &str, certs: &str, extra: &[&str]) -> Output {
        let dir = self.p("mgr");
        let mut a = vec!["cert", "--dir", &dir, "--req", req, "--certs", certs];
        a.extend_from_slice(extra);
        self.run(&a)
    }

    /// bob signs `m` with his next key (pending in `bob.pending`, certified in `certs`) into
    /// `out`.
    pub fn sign(&self, certs: &str, out: &str, extra: &[&str]) -> Output {
        let (sk, pend, pk, msg) = (
            self.p("bob.sk"),
            self.p("bob.pending"),
            self.p("mgr/manager.pk"),
            self.p("m"),
        );
        let cred = self.p("bob.cred");
        let mut a = vec![
            "sign",
            "--user-sk",
            &sk,
            "--cred",
            &cred,
            "--pending",
            &pend,
            "--certs",
            certs,
            "--pk",
            &pk,
            "--msg",
            &msg,
            "--out",
            out,
        ];
        a.extend_from_slice(extra);
        self.run(&a)
    }
}
