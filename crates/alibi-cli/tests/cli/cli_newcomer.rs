//! Issue 66: what a new user meets running the README's commands as written.

use crate::common;

use std::process::Child;

use common::code;
use common::mpc::{keygen_with, relay, s, setup, sign_with};

/// The README's MPC commands give every party the same `--pk-out group.pk` and `--out sig.bin`,
/// the parties started together in one directory. Every party keeps its share and exits 0: the
/// share is written first, and a public key or signature already there with the same bytes is no
/// clash. Before, the first party to finish wrote `group.pk` and the others exited 2 ("already
/// exists"), discarding their freshly made shares: the key could never sign.
#[test]
fn parties_sharing_one_pk_out_keep_their_shares() {
    let d = common::scratch("newcomer-shared-outputs");
    let relay = relay(&d);
    let names = ["ann", "bo", "cy"];
    let (dirs, group) = setup(&d, &relay, &names, 1);
    let pk = d.join("group.pk");
    for scheme in ["bls", "frost-ed25519"] {
        let session = format!("shared-{scheme}");
        let more = ["--scheme", scheme, "--session", session.as_str()];
        let children: Vec<Child> = dirs
            .iter()
            .map(|dir| keygen_with(dir, &group, &pk, "30", &more))
            .collect();
        for (i, c) in children.into_iter().enumerate() {
            let o = c.wait_with_output().unwrap();
            assert_eq!(
                code(&o),
                0,
                "{scheme}, {}: {}",
                names[i],
                common::stderr(&o)
            );
        }
        for dir in &dirs {
            let shares = std::fs::read_dir(dir.join("shares")).unwrap().count();
            assert!(shares >= 1, "{scheme}: {} kept its share", dir.display());
        }
        let msg = d.join("msg.txt");
        std::fs::write(&msg, b"pay 1").unwrap();
        let sig = d.join(format!("{scheme}.sig"));
        let more = ["--scheme", scheme, "--signers", "ann,bo"];
        let children: Vec<Child> = dirs[..2]
            .iter()
            .map(|dir| sign_with(dir, &group, (&msg, &session), &sig, &more))
            .collect();
        for c in children {
            let o = c.wait_with_output().unwrap();
            assert_eq!(code(&o), 0, "{scheme} sign: {}", common::stderr(&o));
        }
        std::fs::remove_file(&pk).unwrap();
    }
}

/// `alibi ARGS` with stdout closed (`>&-`), through `sh`: its output.
fn with_stdout_closed(args: &[&str]) -> std::process::Output {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let line = format!("'{}' {} >&-", env!("CARGO_BIN_EXE_alibi"), quoted.join(" "));
    std::process::Command::new("sh")
        .args(["-c", &line])
        .output()
        .unwrap()
}

/// An output to stdout with stdout closed is an error (exit 2), the command's other outputs
/// undone. Before, Rust's stdout took the write to a closed descriptor as done: exit 0, the public
/// key or signature lost.
#[test]
fn a_closed_stdout_is_an_error_not_a_lost_output() {
    let d = common::scratch("newcomer-closed-stdout");
    let sk = s(&d.join("f.sk"));
    let o = with_stdout_closed(&[
        "falcon", "keygen", "--level", "512", "--pk", "-", "--sk", &sk,
    ]);
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("stdout is closed"),
        "{}",
        common::stderr(&o)
    );
    assert!(!d.join("f.sk").exists(), "all outputs or none");
    let pk = s(&d.join("f.pk"));
    let made = common::alibi(&[
        "falcon", "keygen", "--level", "512", "--pk", &pk, "--sk", &sk,
    ]);
    assert_eq!(code(&made), 0);
    let msg = s(&d.join("msg"));
    std::fs::write(&msg, b"m").unwrap();
    let o = with_stdout_closed(&["falcon", "sign", "--sk", &sk, "--msg", &msg, "--out", "-"]);
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
}

/// DH-AKEM's two key halves are both 32 bytes: the file says which, as ssh does, never the key's
/// bytes. A secret key in a file others can read is refused, whatever its bytes (before, only when
/// they also made a prime-order point: one genuine key in sixteen, at random); a file private to
/// its owner is not taken as a public key (before, `--receiver-pk b.sk` encapsulated to the secret
/// key's bytes and exited 0).
#[test]
fn dh_key_halves_are_told_by_their_files() {
    use std::os::unix::fs::PermissionsExt;
    let d = common::scratch("newcomer-dh-halves");
    let p = |f: &str| s(&d.join(f));
    for who in ["a", "b"] {
        let o = common::alibi(&[
            "akem",
            "keygen",
            "--scheme",
            "dh",
            "--pk",
            &p(&format!("{who}.pk")),
            "--sk",
            &p(&format!("{who}.sk")),
        ]);
        assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    }
    let encap = |sk: &str, pk: &str| {
        common::alibi(&[
            "akem",
            "encap",
            "--scheme",
            "dh",
            "--sender-sk",
            sk,
            "--receiver-pk",
            pk,
            "--ct",
            &p("ct"),
            "--key",
            &p("k"),
        ])
    };
    let o = encap(&p("a.sk"), &p("b.sk"));
    assert_eq!(code(&o), 2, "a secret key as the receiver's public key");
    assert!(
        common::stderr(&o).contains("private to its owner"),
        "{}",
        common::stderr(&o)
    );
    std::fs::set_permissions(d.join("a.sk"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let o = encap(&p("a.sk"), &p("b.pk"));
    assert_eq!(code(&o), 2, "a secret key others can read");
    assert!(
        common::stderr(&o).contains("chmod 600"),
        "{}",
        common::stderr(&o)
    );
    std::fs::set_permissions(d.join("a.sk"), std::fs::Permissions::from_mode(0o600)).unwrap();
    let o = encap(&p("a.sk"), &p("b.pk"));
    assert_eq!(code(&o), 0, "{}", common::stderr(&o));
}

/// A list argument with spaces after its commas names the files without them, and
/// `--passphrase-file -` reads the passphrase from stdin, as `-` means for every file read.
/// Before: "cannot read  b.pk", and `-` was refused.
#[test]
fn lists_are_trimmed_and_a_passphrase_comes_from_stdin() {
    use std::io::Write;
    let d = common::scratch("newcomer-lists");
    let p = |f: &str| s(&d.join(f));
    for who in ["a", "b"] {
        let o = common::alibi(&[
            "ring",
            "keygen",
            "--scheme",
            "falcon512",
            "--pk",
            &p(&format!("{who}.pk")),
            "--sk",
            &p(&format!("{who}.sk")),
        ]);
        assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    }
    std::fs::write(d.join("msg"), b"m").unwrap();
    let ring = format!("{}, {}", p("a.pk"), p("b.pk"));
    let o = common::alibi(&[
        "ring",
        "sign",
        "--sk",
        &p("a.sk"),
        "--ring",
        &ring,
        "--msg",
        &p("msg"),
        "--out",
        &p("r.sig"),
    ]);
    assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args([
            "mpc",
            "aux",
            "--dir",
            &p("nobody"),
            "--passphrase-file",
            "-",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let written = child.stdin.take().unwrap().write_all(b"from stdin\n");
    // The party may refuse the directory before it has read the passphrase: a pipe it closed
    // is no failure of this test (a refused `-` would be a usage error naming it).
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    let o = child.wait_with_output().unwrap();
    // No party there: `-` is taken as the passphrase file, and the directory is what is refused.
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    assert!(
        !common::stderr(&o).contains("--passphrase-file"),
        "{}",
        common::stderr(&o)
    );
    assert!(
        common::stderr(&o).contains("no party here"),
        "{}",
        common::stderr(&o)
    );
}

/// A username that would break `group open`'s output line (empty, or with a newline) is refused
/// at `join`. Before, it was taken, and `open` printed a line the reader could not split.
#[test]
fn a_username_must_fit_on_one_line() {
    let d = common::scratch("newcomer-username");
    let mgr = s(&d.join("mgr"));
    let o = common::alibi(&[
        "group",
        "manager-keygen",
        "--params",
        "shake-128f",
        "--dir",
        &mgr,
    ]);
    assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    for name in ["", "two\nlines", "bell\u{7}"] {
        let cred = s(&d.join("x.cred"));
        let o = common::alibi(&[
            "group",
            "join",
            "--dir",
            &mgr,
            "--username",
            name,
            "--cred",
            &cred,
        ]);
        assert_eq!(code(&o), 2, "{name:?}: {}", common::stderr(&o));
        assert!(
            common::stderr(&o).contains("username"),
            "{}",
            common::stderr(&o)
        );
        assert!(!d.join("x.cred").exists());
    }
}

/// An ECDSA key generation without `mpc aux` primes searches for them first (tens of seconds).
/// When the run then fails (here: the others never start), the primes stay sealed in the
/// party's directory for the rerun. Before, they were thrown away and the rerun searched again.
/// While it searches, pb (its primes imported with `mpc aux --from`) is told who keeps it
/// waiting and for about how long (pa's signed note, in pb's waiting lines); while pa waits, it
/// says why a party not heard from may be late.
#[test]
fn primes_found_by_a_failed_ecdsa_keygen_are_kept() {
    let d = common::scratch("newcomer-primes-kept");
    let relay = relay(&d);
    let (dirs, group) = setup(&d, &relay, &["pa", "pb", "pc"], 1);
    let primes = dirs[0].join("primes.sealed");
    assert!(!primes.exists());
    let fixture = include_str!("../../../alibi-threshold-ecdsa/tests/vectors/primes.hex");
    let file = d.join("pb.primes");
    std::fs::write(
        &file,
        hex::decode(fixture.lines().next().unwrap().trim()).unwrap(),
    )
    .unwrap();
    let o = common::mpc::run(&["mpc", "aux", "--dir", &s(&dirs[1]), "--from", &s(&file)]);
    assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    let more = ["--scheme", "ecdsa-secp256k1", "--session", "alone"];
    let pa = keygen_with(&dirs[0], &group, &d.join("pa.pk"), "7", &more);
    let pb = keygen_with(&dirs[1], &group, &d.join("pb.pk"), "11", &more);
    let pb = pb.wait_with_output().unwrap();
    let o = pa.wait_with_output().unwrap();
    assert_eq!(code(&o), 3, "{}", common::stderr(&o));
    // pb reports its wait every 5 s: a search shorter than that (rare) leaves nothing to show.
    let searched: u64 = common::stderr(&o)
        .split("safe primes ready after ")
        .nth(1)
        .and_then(|t| t.split(' ').next()?.parse().ok())
        .expect("pa reports its search");
    let told = "pa: searching for its safe primes before it takes part: a minute or more";
    if searched >= 6 {
        assert!(
            common::stderr(&pb).contains(told),
            "{}",
            common::stderr(&pb)
        );
    }
    assert!(
        common::stderr(&o).contains("safe primes"),
        "the search was reported: {}",
        common::stderr(&o)
    );
    assert!(primes.exists(), "the primes found were kept");
    assert!(
        common::stderr(&o)
            .contains("waiting for pc (heard from pb) (not started yet, or searching"),
        "{}",
        common::stderr(&o)
    );
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&primes).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
}

/// A peer's Ctrl-C, as a stranger meets it: alice starts first, sends round 1 and waits; her
/// process is interrupted (SIGINT; a party installs no handler, so it ends at once). bob and
/// carol start after: they read her round 1 from the relay and wait for her round 2. Each names
/// the round its waiting lines named, in its final report (exit 3, nobody blamed). The issue saw
/// "round 2: waiting for alice" followed by a report of round 1.
#[test]
fn after_a_peers_ctrl_c_the_report_names_the_round_waited_for() {
    use std::io::BufRead;
    let d = common::scratch("newcomer-ctrl-c");
    let relay = relay(&d);
    let names = ["alice", "bob", "carol"];
    let (dirs, group) = setup(&d, &relay, &names, 2);
    let more = ["--session", "interrupted"];
    let pk = |i: usize| d.join(format!("{}.pk", names[i]));
    let mut alice = keygen_with(&dirs[0], &group, &pk(0), "60", &more);
    // Her first waiting line: round 1 is sent, she waits for the others.
    let mut lines = std::io::BufReader::new(alice.stderr.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.contains("round 1: waiting for bob, carol"), "{first}");
    // The shell's own kill: a fresh machine may have no kill program.
    let interrupted = std::process::Command::new("sh")
        .args(["-c", &format!("kill -INT {}", alice.id())])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let _ = alice.wait();
    let others: Vec<Child> = (1..3)
        .map(|i| keygen_with(&dirs[i], &group, &pk(i), "8", &more))
        .collect();
    for (i, o) in common::mpc::wait_all(others).iter().enumerate() {
        let err = common::stderr(o);
        assert_eq!(code(o), 3, "{}: {err}", names[i + 1]);
        let waited: Vec<&str> = err
            .lines()
            .filter_map(|l| l.split(": round ").nth(1)?.split(':').next())
            .collect();
        let reported = err
            .split("nothing heard from alice in round ")
            .nth(1)
            .and_then(|t| t.split(' ').next())
            .unwrap_or_else(|| panic!("{}: {err}", names[i + 1]));
        assert!(!waited.is_empty(), "{}: {err}", names[i + 1]);
        assert!(
            waited.iter().all(|r| *r == reported),
            "{}: {err}",
            names[i + 1]
        );
        assert_ne!(reported, "1", "alice's round 1 was heard: {err}");
    }
}
