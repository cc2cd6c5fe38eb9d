//! MPC parties as separate OS processes through the CLI: a relay process and five party
//! processes (init, group, keygen t=2 n=5, signing by three, the signature checked with plain
//! blst); a party killed with SIGKILL during key generation is named by the others, who finish;
//! wrong passphrases and tampered shares exit 2; secret files are 0600; `bench --replot`.

mod common;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use common::{alibi, code};

const PASS: &str = "correct horse battery staple";

/// A relay process on a free port; killed when dropped.
struct Relay {
    child: Child,
    url: String,
    trust_root: String,
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn relay(dir: &Path) -> Relay {
    use std::io::BufRead;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args([
            "relay",
            "serve",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--db",
        ])
        .arg(dir.join("relay.redb"))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let trust_root = line.trim().rsplit(' ').next().unwrap().to_string();
    Relay {
        child,
        url: format!("http://127.0.0.1:{port}"),
        trust_root,
    }
}

fn party_cmd(args: &[&str], pass: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_alibi"));
    c.args(args).env("ALIBI_PASSPHRASE", pass);
    c
}

fn run(args: &[&str]) -> Output {
    party_cmd(args, PASS).output().unwrap()
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// Registers parties `names` on the relay and writes the group file; returns their dirs.
fn setup(d: &Path, relay: &Relay, names: &[&str], t: usize) -> (Vec<PathBuf>, String) {
    let mut dirs = vec![];
    for n in names {
        let dir = d.join(n);
        let o = run(&[
            "mpc",
            "init",
            "--dir",
            &s(&dir),
            "--relay",
            &relay.url,
            "--name",
            n,
            "--trust-root",
            &relay.trust_root,
        ]);
        assert_eq!(code(&o), 0, "{}", common::stderr(&o));
        dirs.push(dir);
    }
    let cards: Vec<String> = dirs.iter().map(|d| s(&d.join("card.json"))).collect();
    let group = s(&d.join("group.json"));
    let o = run(&[
        "mpc",
        "group",
        "--threshold",
        &t.to_string(),
        "--cards",
        &cards.join(","),
        "--out",
        &group,
    ]);
    assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    (dirs, group)
}

fn keygen(dir: &Path, group: &str, pk: &Path, timeout: &str) -> Child {
    party_cmd(
        &[
            "mpc",
            "keygen",
            "--dir",
            &s(dir),
            "--group",
            group,
            "--pk-out",
            &s(pk),
            "--timeout-s",
            timeout,
        ],
        PASS,
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap()
}

fn share_of(dir: &Path) -> PathBuf {
    std::fs::read_dir(dir.join("shares"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
}

#[test]
fn five_party_processes_keygen_then_three_sign() {
    let d = common::scratch("mpc-processes");
    let relay = relay(&d);
    let names = ["ann", "ben", "cat", "dan", "eve"];
    let (dirs, group) = setup(&d, &relay, &names, 2);
    let pk = |i: usize| d.join(format!("{}.pk", names[i]));
    let children: Vec<Child> = (0..5)
        .map(|i| keygen(&dirs[i], &group, &pk(i), "60"))
        .collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    for (i, o) in outs.iter().enumerate() {
        assert_eq!(code(o), 0, "{}: {}", names[i], common::stderr(o));
        assert!(common::stdout(o).contains("qualified: ann, ben, cat, dan, eve"));
    }
    let key = std::fs::read(pk(0)).unwrap();
    assert_eq!(key.len(), 48);
    assert!((1..5).all(|i| std::fs::read(pk(i)).unwrap() == key));
    // Secrets at rest: 0600, and the share is no plaintext JSON.
    for dir in &dirs {
        for f in [
            dir.join("identity.sealed"),
            dir.join("store.redb"),
            share_of(dir),
        ] {
            assert_eq!(common::mode(&s(&f)), 0o600, "{}", f.display());
        }
        assert!(!std::fs::read_to_string(share_of(dir)).is_ok_and(|t| t.contains("secret")));
    }
    // Three sign, each in its own process, each writing the same signature.
    let msg = d.join("msg");
    std::fs::write(&msg, b"pay 10 to carol").unwrap();
    let signers = [1, 3, 4];
    let children: Vec<Child> = signers
        .iter()
        .map(|&i| {
            party_cmd(
                &[
                    "mpc",
                    "sign",
                    "--dir",
                    &s(&dirs[i]),
                    "--group",
                    &group,
                    "--msg",
                    &s(&msg),
                    "--session",
                    "payment-1",
                    "--signers",
                    "ben,dan,eve",
                    "--out",
                    &s(&d.join(format!("{i}.sig"))),
                ],
                PASS,
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    }
    let sig = std::fs::read(d.join("1.sig")).unwrap();
    assert!(signers
        .iter()
        .all(|i| std::fs::read(d.join(format!("{i}.sig"))).unwrap() == sig));
    // Plain blst, nothing of ours: the POP ciphersuite's verification under the group key.
    let dst = b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_";
    let pk = blst::min_pk::PublicKey::key_validate(&key).unwrap();
    let sg = blst::min_pk::Signature::sig_validate(&sig, true).unwrap();
    assert_eq!(
        sg.verify(true, b"pay 10 to carol", dst, &[], &pk, true),
        blst::BLST_ERROR::BLST_SUCCESS
    );
    assert_eq!(
        code(&alibi(&[
            "mpc",
            "verify",
            "--pk",
            &s(&pk_path(&d, "ann")),
            "--msg",
            &s(&msg),
            "--sig",
            &s(&d.join("1.sig"))
        ])),
        0
    );
    // A wrong passphrase, a tampered share, a missing passphrase: exit 2 with one line.
    let sign_as = |i: usize, pass: &str| {
        party_cmd(
            &[
                "mpc",
                "sign",
                "--dir",
                &s(&dirs[i]),
                "--group",
                &group,
                "--msg",
                &s(&msg),
                "--session",
                "x",
                "--out",
                &s(&d.join("x.sig")),
                "--timeout-s",
                "1",
            ],
            pass,
        )
        .output()
        .unwrap()
    };
    let o = sign_as(0, "not the passphrase");
    assert_eq!(code(&o), 2);
    assert!(
        common::stderr(&o).contains("wrong passphrase"),
        "{}",
        common::stderr(&o)
    );
    let share = share_of(&dirs[0]);
    let mut b = std::fs::read(&share).unwrap();
    let last = b.len() - 3;
    b[last] ^= 0x40;
    std::fs::write(&share, &b).unwrap();
    let o = sign_as(0, PASS);
    assert_eq!(code(&o), 2);
    assert!(
        common::stderr(&o).contains("modified"),
        "{}",
        common::stderr(&o)
    );
    let o = Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args([
            "mpc",
            "sign",
            "--dir",
            &s(&dirs[0]),
            "--group",
            &group,
            "--msg",
            &s(&msg),
            "--session",
            "x",
            "--out",
            &s(&d.join("x.sig")),
        ])
        .env_remove("ALIBI_PASSPHRASE")
        .output()
        .unwrap();
    assert_eq!(code(&o), 2);
    assert!(common::stderr(&o).contains("ALIBI_PASSPHRASE"));
    // Keygen again for the same group refuses to replace the share without --force.
    let o = keygen(&dirs[1], &group, &d.join("again.pk"), "1")
        .wait_with_output()
        .unwrap();
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    assert!(common::stderr(&o).contains("--force"));
}

fn pk_path(d: &Path, name: &str) -> PathBuf {
    d.join(format!("{name}.pk"))
}

/// A party killed with SIGKILL during key generation: the others name it and finish with the
/// qualified set (exit 0).
#[test]
fn a_party_killed_during_keygen_is_named() {
    let d = common::scratch("mpc-sigkill");
    let relay = relay(&d);
    let names = ["p1", "p2", "p3", "p4"];
    let (dirs, group) = setup(&d, &relay, &names, 1);
    // p4 starts first, sends its first round and waits for the others' (up to 4 s): it is
    // killed there, in the middle of key generation, before the others start.
    let mut p4 = keygen(&dirs[3], &group, &pk_path(&d, "p4"), "4");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(
        p4.try_wait().unwrap().is_none(),
        "p4 is still waiting for the others"
    );
    p4.kill().unwrap();
    p4.wait().unwrap();
    let children: Vec<Child> = (0..3)
        .map(|i| keygen(&dirs[i], &group, &pk_path(&d, names[i]), "4"))
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        let o = c.wait_with_output().unwrap();
        assert_eq!(code(&o), 0, "{}: {}", names[i], common::stderr(&o));
        let out = common::stdout(&o);
        assert!(out.contains("excluded: p4 ("), "{}: {out}", names[i]);
        assert!(out.contains("qualified: p1, p2, p3"), "{out}");
    }
    assert_eq!(
        std::fs::read(pk_path(&d, "p1")).unwrap(),
        std::fs::read(pk_path(&d, "p3")).unwrap()
    );
}

/// Usage errors of the party verbs: exit 2, one line, before anything is registered.
#[test]
fn party_verbs_refuse_bad_usage() {
    let d = common::scratch("mpc-usage");
    let o = run(&[
        "mpc",
        "init",
        "--dir",
        &s(&d.join("x")),
        "--relay",
        "ftp://x",
        "--name",
        "a",
    ]);
    assert_eq!(code(&o), 2);
    let o = run(&[
        "mpc",
        "init",
        "--dir",
        &s(&d.join("x")),
        "--relay",
        "http://127.0.0.1:1",
        "--name",
        "a,b",
    ]);
    assert_eq!(code(&o), 2);
    assert!(!d.join("x").join("identity.sealed").exists());
    std::fs::write(d.join("card.json"), "{}").unwrap();
    let o = run(&[
        "mpc",
        "group",
        "--threshold",
        "1",
        "--cards",
        &s(&d.join("card.json")),
        "--out",
        &s(&d.join("g.json")),
    ]);
    assert_eq!(code(&o), 2);
    assert_eq!(code(&alibi(&["mpc", "keygen", "--parties", "3"])), 2);
    assert_eq!(code(&alibi(&["mpc"])), 2);
}

#[test]
fn bench_writes_a_csv_that_replots() {
    let d = common::scratch("mpc-bench");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    for processes in [false, true] {
        let mut args = vec![
            "mpc",
            "bench",
            "--parties",
            "3",
            "--delays",
            "0",
            "--later",
            "1",
            "--csv",
            "",
            "--plot",
            "",
        ];
        let (csv, svg) = (
            p(&format!("b{processes}.csv")),
            p(&format!("b{processes}.svg")),
        );
        args[9] = &csv;
        args[11] = &svg;
        if processes {
            args.push("--processes");
        }
        let o = alibi(&args);
        assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&csv).unwrap();
        assert_eq!(text.lines().count(), 1 + 6, "{text}");
        assert!(text.contains(",pairwise-concurrent,"));
        assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    }
    let o = alibi(&[
        "mpc",
        "bench",
        "--replot",
        &p("btrue.csv"),
        "--plot",
        &p("c.svg"),
    ]);
    assert_eq!(code(&o), 0);
    assert!(String::from_utf8_lossy(&o.stdout).contains("| 3 | 2 | 0 ms | later |"));
    std::fs::write(p("bad.csv"), "n,t\n1,2\n").unwrap();
    assert_eq!(
        code(&alibi(&["mpc", "bench", "--replot", &p("bad.csv")])),
        2
    );
}
