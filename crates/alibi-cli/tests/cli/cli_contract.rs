//! The command-line contract every command keeps: `--help` and `--version` on every area and
//! verb, usage errors that exit 2 with one line, secrets created 0600 and never replaced without
//! `--force`, one file never named twice, non-UTF-8 paths, and no panic when stdout is full.

use crate::common;
use common::{alibi, alibi_os, code, path, stderr, stdout};
use std::process::{Command, Stdio};

/// Every command path, found by reading `--help` from the top down.
fn command_paths() -> Vec<Vec<String>> {
    let mut out = vec![];
    let mut todo = vec![vec![]];
    while let Some(p) = todo.pop() {
        let args: Vec<&str> = p.iter().map(String::as_str).chain(["--help"]).collect();
        let o = alibi(&args);
        assert_eq!(code(&o), 0, "alibi {args:?}");
        let text = stdout(&o);
        assert!(text.contains("Usage: alibi"), "alibi {args:?}: {text}");
        let mut in_commands = false;
        for line in text.lines() {
            if line.starts_with("Commands:") {
                in_commands = true;
                continue;
            }
            if in_commands {
                // A command line is "  name  description"; wrapped descriptions are indented
                // further.
                let Some(rest) = line.strip_prefix("  ") else {
                    break;
                };
                if rest.starts_with(' ') {
                    continue;
                }
                let name = rest.split_whitespace().next().unwrap_or_default();
                if name != "help" {
                    let mut q = p.clone();
                    q.push(name.to_string());
                    todo.push(q);
                }
            }
        }
        out.push(p);
    }
    out
}

#[test]
fn help_and_version_on_every_command() {
    let paths = command_paths();
    // 8 areas and the 37 verbs of seven of them (`bench` takes options, no verb), plus the top
    // level (hidden verbs are not listed).
    assert_eq!(paths.len(), 1 + 8 + 37, "{paths:?}");
    for p in &paths {
        let mut args: Vec<&str> = p.iter().map(String::as_str).collect();
        args.push("--version");
        let o = alibi(&args);
        assert_eq!(code(&o), 0, "{args:?}");
        // Every command names the program, not clap's "alibi-falcon-keygen".
        let want = concat!("alibi ", env!("CARGO_PKG_VERSION"), "\n");
        assert_eq!(stdout(&o), want, "{args:?}");
        // `bench` without its required --out: exit 2, one line naming it.
        if p == &["bench"] {
            let o = alibi(&["bench"]);
            assert_eq!(code(&o), 2);
            assert!(stderr(&o).contains("--out"), "{}", stderr(&o));
            continue;
        }
        // An area without a verb: exit 2, one line naming the verbs.
        if p.len() == 1 {
            let o = alibi(&[p[0].as_str()]);
            assert_eq!(code(&o), 2);
            assert!(stderr(&o).contains("needs a verb"), "{}", stderr(&o));
        }
    }
    assert_eq!(code(&alibi(&["--version"])), 0);
    assert_eq!(code(&alibi(&["falcon", "keygen", "--level=512"])), 2);
    assert_eq!(code(&alibi(&["bogus"])), 2);
}

#[test]
fn secrets_are_0600_and_never_replaced_without_force() {
    let d = common::scratch("contract-keys");
    let (pk, sk) = (path(&d, "k.pk"), path(&d, "k.sk"));
    let keygen = |extra: &[&str]| {
        let mut a = vec!["falcon", "keygen", "--level=512", "--pk", &pk, "--sk", &sk];
        a.extend(extra);
        alibi(&a)
    };
    assert_eq!(code(&keygen(&[])), 0);
    #[cfg(unix)]
    {
        assert_eq!(common::mode(&sk), 0o600);
        assert_eq!(common::mode(&pk), 0o644);
    }
    let before = std::fs::read(&sk).unwrap();
    let o = keygen(&[]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("already exists; use --force"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&sk).unwrap(), before, "refused, so unchanged");
    // Only the public key exists: still refused, and the secret key is not written either.
    std::fs::remove_file(&sk).unwrap();
    assert_eq!(code(&keygen(&[])), 2);
    assert!(std::fs::metadata(&sk).is_err(), "all or none");
    assert_eq!(code(&keygen(&["--force"])), 0);
    assert_ne!(std::fs::read(&sk).unwrap(), before);
    #[cfg(unix)]
    assert_eq!(common::mode(&sk), 0o600);
    // No temporary files are left beside the keys.
    let names: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with(".alibi-")), "{names:?}");

    // The same file for both keys, however spelled: refused before anything is written.
    let same = path(&d, "same");
    let dotted = format!("{}/./same", d.display());
    for (a, b) in [(&same, &same), (&same, &dotted)] {
        let o = alibi(&["tachyon", "keygen", "--level", "128", "--pk", a, "--sk", b]);
        assert_eq!(code(&o), 2);
        assert!(stderr(&o).contains("name the same file"), "{}", stderr(&o));
        assert!(std::fs::metadata(&same).is_err());
    }

    // Each area's secret outputs.
    for scheme in ["dh", "pq", "shadowfax"] {
        let (p, s) = (
            path(&d, &format!("{scheme}.pk")),
            path(&d, &format!("{scheme}.sk")),
        );
        assert_eq!(
            code(&alibi(&[
                "akem", "keygen", "--scheme", scheme, "--pk", &p, "--sk", &s
            ])),
            0
        );
        #[cfg(unix)]
        assert_eq!(common::mode(&s), 0o600);
    }
    let (ct, key) = (path(&d, "ct"), path(&d, "key"));
    let encap = [
        "akem",
        "encap",
        "--scheme",
        "dh",
        "--sender-sk",
        &path(&d, "dh.sk"),
        "--receiver-pk",
        &path(&d, "dh.pk"),
        "--ct",
        &ct,
        "--key",
        &key,
    ];
    assert_eq!(code(&alibi(&encap)), 0);
    #[cfg(unix)]
    assert_eq!(common::mode(&key), 0o600);
    assert_eq!(code(&alibi(&encap)), 2, "the shared key is not replaced");
    let mut forced = encap.to_vec();
    forced.push("--force");
    assert_eq!(code(&alibi(&forced)), 0);
}

#[test]
fn a_live_group_manager_is_never_replaced() {
    let d = common::scratch("contract-manager");
    let dir = path(&d, "mgr");
    let keygen = [
        "group",
        "manager-keygen",
        "--params",
        "shake-128f",
        "--dir",
        &dir,
    ];
    assert_eq!(code(&alibi(&keygen)), 0);
    #[cfg(unix)]
    {
        assert_eq!(common::mode(&format!("{dir}/manager.sk")), 0o600);
        assert_eq!(common::mode(&format!("{dir}/members.redb")), 0o600);
    }
    let cred = path(&d, "cred");
    let join = [
        "group",
        "join",
        "--dir",
        &dir,
        "--username",
        "alice",
        "--cred",
        &cred,
    ];
    assert_eq!(code(&alibi(&join)), 0);
    #[cfg(unix)]
    assert_eq!(common::mode(&cred), 0o600);
    let sk = std::fs::read(format!("{dir}/manager.sk")).unwrap();
    let o = alibi(&keygen);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("already holds a group manager"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(format!("{dir}/manager.sk")).unwrap(), sk);
    // A directory holding only the database is a manager too.
    std::fs::remove_file(format!("{dir}/manager.sk")).unwrap();
    std::fs::remove_file(format!("{dir}/manager.pk")).unwrap();
    assert_eq!(code(&alibi(&keygen)), 2);
}

#[cfg(unix)]
#[test]
fn non_utf8_paths_work() {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;
    let d = common::scratch("contract-nonutf8");
    let name = |s: &[u8]| {
        let mut b = d.as_os_str().to_os_string().into_vec();
        b.push(b'/');
        b.extend_from_slice(s);
        OsString::from_vec(b)
    };
    let (pk, sk, msg, sig) = (
        name(b"pk-\xff"),
        name(b"sk-\xfe"),
        name(b"m\xff"),
        name(b"s\xff"),
    );
    std::fs::write(&msg, b"bytes").unwrap();
    let os = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
    let run = |words: &[&str], files: &[(&str, &OsString)]| {
        let mut a = os(words);
        for (flag, f) in files {
            a.push(OsString::from(flag));
            a.push((*f).clone());
        }
        code(&alibi_os(&a))
    };
    assert_eq!(
        run(
            &["falcon", "keygen", "--level", "512"],
            &[("--pk", &pk), ("--sk", &sk)]
        ),
        0
    );
    assert_eq!(
        run(
            &["falcon", "sign"],
            &[("--sk", &sk), ("--msg", &msg), ("--out", &sig)]
        ),
        0
    );
    assert_eq!(
        run(
            &["falcon", "verify"],
            &[("--pk", &pk), ("--msg", &msg), ("--sig", &sig)]
        ),
        0
    );
    // A ring list of non-UTF-8 names, comma-separated.
    let mut ring = pk.clone();
    ring.push(",");
    let other_pk = name(b"o\xff.pk");
    assert_eq!(
        run(
            &["ring", "keygen", "--scheme", "falcon512"],
            &[("--pk", &other_pk), ("--sk", &name(b"o\xff.sk"))]
        ),
        0
    );
    ring.push(&other_pk);
    // The Falcon signature is replaced: an existing output needs --force (issue 43).
    assert_eq!(
        run(
            &["ring", "sign", "--force"],
            &[
                ("--sk", &sk),
                ("--ring", &ring),
                ("--msg", &msg),
                ("--out", &sig)
            ]
        ),
        0
    );
    assert_eq!(
        run(
            &["ring", "verify"],
            &[("--ring", &ring), ("--msg", &msg), ("--sig", &sig)]
        ),
        0
    );
    // A missing non-UTF-8 file: exit 2, one line, no panic.
    assert_eq!(
        run(
            &["falcon", "verify"],
            &[
                ("--pk", &name(b"nope\xff")),
                ("--msg", &msg),
                ("--sig", &sig)
            ]
        ),
        2
    );
}

/// Runs `alibi` with stdout on /dev/full.
#[cfg(target_os = "linux")]
fn to_full(args: &[&str]) -> std::process::Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args(args)
        .stdout(Stdio::from(full))
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_stdout_is_an_error_not_a_panic() {
    let d = common::scratch("contract-full");
    let (pk, sk, msg, sig) = (path(&d, "pk"), path(&d, "sk"), path(&d, "m"), path(&d, "s"));
    std::fs::write(&msg, b"m").unwrap();
    for args in [
        vec!["--help"],
        vec!["falcon", "keygen", "--help"],
        vec!["--version"],
        vec![
            "falcon", "keygen", "--level", "512", "--pk", &pk, "--sk", &sk,
        ],
    ] {
        let o = to_full(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(
            stderr(&o).contains("cannot write to stdout"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    // The key generation whose report failed kept no key (issue 43): make the pair again.
    assert!(!d.join("sk").exists() && !d.join("pk").exists());
    assert_eq!(
        code(&alibi(&[
            "falcon", "keygen", "--level", "512", "--pk", &pk, "--sk", &sk,
        ])),
        0
    );
    assert_eq!(
        code(&alibi(&[
            "falcon", "sign", "--sk", &sk, "--msg", &msg, "--out", &sig
        ])),
        0
    );
    for json in [false, true] {
        let mut a = vec![
            "falcon", "verify", "--pk", &pk, "--msg", &msg, "--sig", &sig,
        ];
        if json {
            a.push("--json");
        }
        assert_eq!(code(&to_full(&a)), 2);
    }
    // The demo prints the most: it too stops with one line.
    let o = to_full(&[]);
    assert_eq!(code(&o), 2);
}

#[cfg(unix)]
#[test]
fn a_closed_stdout_ends_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args(["--help"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    // Quiet: ended by SIGPIPE (or done before the reader left), never a message or a panic.
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    assert!(o.status.code().is_none_or(|c| c == 0), "{:?}", o.status);
}

#[test]
fn json_reports_parse() {
    let d = common::scratch("contract-json");
    let (pk, sk, msg, sig) = (path(&d, "pk"), path(&d, "sk"), path(&d, "m"), path(&d, "s"));
    std::fs::write(&msg, b"m").unwrap();
    let json = |o: &std::process::Output| -> serde_json::Value {
        serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
    };
    let o = alibi(&[
        "tachyon", "keygen", "--level", "128", "--pk", &pk, "--sk", &sk, "--json",
    ]);
    assert_eq!(code(&o), 0);
    let v = json(&o);
    assert_eq!(v["scheme"], "TACHYON-128");
    assert_eq!(v["public_key"]["bytes"], std::fs::read(&pk).unwrap().len());
    assert_eq!(
        code(&alibi(&[
            "tachyon", "sign", "--sk", &sk, "--msg", &msg, "--out", &sig
        ])),
        0
    );
    let o = alibi(&[
        "tachyon", "verify", "--pk", &pk, "--msg", &msg, "--sig", &sig, "--json",
    ]);
    assert_eq!(code(&o), 0);
    assert_eq!(json(&o)["valid"], true);
    std::fs::write(&msg, b"other").unwrap();
    let o = alibi(&[
        "tachyon", "verify", "--pk", &pk, "--msg", &msg, "--sig", &sig, "--json",
    ]);
    assert_eq!(code(&o), 1);
    assert_eq!(json(&o)["valid"], false);
}
