//! One JSON shape (issue 66, item 6; docs/cli.md, "JSON"): every verb's `--json` output is one
//! object on one line; a file it names is always `{"path", "bytes"}` with the file's size; a key
//! it shows is hex; `scheme` is a command-line name; a failure prints one object with `error`,
//! `exit` and `kind`. The checks run over the output of every verb below.

use crate::common;

use std::path::Path;
use std::process::{Child, Output};

use common::mpc::{keygen_with, relay, run, s, setup, sign_with};
use common::{code, stdout};
use serde_json::Value;

/// Fields that name a file a command wrote (or, `database`, keeps): never a bare path.
const FILE_FIELDS: [&str; 16] = [
    "public_key",
    "secret_key",
    "signature",
    "ciphertext",
    "key",
    "confirm",
    "share",
    "out",
    "card",
    "primes",
    "database",
    "cred",
    "req",
    "certs",
    "key_set",
    "extended_key",
];

/// Scheme names as the command line takes them or as docs/cli.md lists them for output.
const SCHEMES: [&str; 16] = [
    "Falcon-512",
    "Falcon-1024",
    "TACHYON-128",
    "TACHYON-192",
    "TACHYON-256",
    "TACHYON-128s",
    "falcon512",
    "falcon1024",
    "mitaka512",
    "mayo1",
    "mayo2",
    "dh",
    "pq",
    "shadowfax",
    "bls",
    "frost-ed25519",
];

/// The one object a `--json` command printed, checked against the conventions; `dir` resolves
/// the relative paths it names.
fn checked(o: &Output, dir: &Path) -> Value {
    let out = stdout(o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "one JSON line: {out}");
    let v: Value = serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("{e}: {out}"));
    let obj = v.as_object().unwrap_or_else(|| panic!("an object: {out}"));
    for (name, value) in obj {
        if FILE_FIELDS.contains(&name.as_str()) || value.get("path").is_some() {
            if value.is_null() {
                continue; // an optional output not asked for
            }
            let path = value["path"]
                .as_str()
                .unwrap_or_else(|| panic!("{name}: a file object, not {value}: {out}"));
            let bytes = value["bytes"].as_u64().unwrap();
            assert_eq!(value.as_object().unwrap().len(), 2, "{name}: {out}");
            // A database changes size as it closes; what a command wrote does not.
            if path != "-" && name != "database" {
                let len = std::fs::metadata(dir.join(path)).unwrap().len();
                assert_eq!(bytes, len, "{name}: its size: {out}");
            }
        }
    }
    if let Some(scheme) = obj.get("scheme") {
        let scheme = scheme.as_str().unwrap();
        assert!(SCHEMES.contains(&scheme), "scheme {scheme}: {out}");
    }
    for (name, value) in obj.iter().filter(|(n, _)| n.ends_with("_hex")) {
        let hex_text = value.as_str().unwrap_or_default();
        assert!(
            !hex_text.is_empty() && hex::decode(hex_text).is_ok(),
            "{name} is hex: {out}"
        );
    }
    v
}

/// `alibi ARGS --json` in `dir`.
fn json_in(dir: &Path, args: &[&str]) -> Output {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args(args)
        .arg("--json")
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{args:?}: {}", common::stderr(&o));
    o
}

#[test]
fn every_single_process_verb_has_one_shape() {
    let d = common::scratch("json-verbs");
    std::fs::write(d.join("m"), b"a message").unwrap();
    let runs: &[&[&str]] = &[
        &[
            "falcon", "keygen", "--level", "512", "--pk", "f.pk", "--sk", "f.sk",
        ],
        &[
            "falcon", "sign", "--sk", "f.sk", "--msg", "m", "--out", "f.sig",
        ],
        &[
            "falcon", "verify", "--pk", "f.pk", "--msg", "m", "--sig", "f.sig",
        ],
        &[
            "tachyon", "keygen", "--level", "128", "--pk", "t.pk", "--sk", "t.sk",
        ],
        &[
            "tachyon", "sign", "--sk", "t.sk", "--msg", "m", "--out", "t.sig",
        ],
        &[
            "tachyon", "verify", "--pk", "t.pk", "--msg", "m", "--sig", "t.sig",
        ],
        &[
            "ring", "keygen", "--scheme", "mayo1", "--pk", "a.pk", "--sk", "a.sk",
        ],
        &[
            "ring", "keygen", "--scheme", "mayo1", "--pk", "b.pk", "--sk", "b.sk",
        ],
        &[
            "ring",
            "sign",
            "--sk",
            "a.sk",
            "--ring",
            "a.pk,b.pk",
            "--msg",
            "m",
            "--out",
            "r.sig",
        ],
        &[
            "ring",
            "verify",
            "--ring",
            "a.pk,b.pk",
            "--msg",
            "m",
            "--sig",
            "r.sig",
        ],
        &[
            "akem",
            "keygen",
            "--scheme",
            "shadowfax",
            "--pk",
            "x.pk",
            "--sk",
            "x.sk",
        ],
        &[
            "akem",
            "keygen",
            "--scheme",
            "shadowfax",
            "--pk",
            "y.pk",
            "--sk",
            "y.sk",
        ],
        &[
            "akem",
            "encap",
            "--scheme",
            "shadowfax",
            "--sender-sk",
            "x.sk",
            "--receiver-pk",
            "y.pk",
            "--ct",
            "c",
            "--key",
            "kx",
        ],
        &[
            "akem",
            "decap",
            "--scheme",
            "shadowfax",
            "--receiver-sk",
            "y.sk",
            "--sender-pk",
            "x.pk",
            "--ct",
            "c",
            "--key",
            "ky",
        ],
        &[
            "group",
            "manager-keygen",
            "--params",
            "shake-128f",
            "--dir",
            "mgr",
        ],
        &[
            "group",
            "join",
            "--dir",
            "mgr",
            "--username",
            "al",
            "--cred",
            "al.cred",
        ],
        &[
            "group",
            "csr",
            "--cred",
            "al.cred",
            "--user-sk",
            "al.sk",
            "--count",
            "2",
            "--req",
            "al.req",
            "--pending",
            "al.pending",
        ],
        &[
            "group", "cert", "--dir", "mgr", "--req", "al.req", "--certs", "al.certs",
        ],
        &[
            "group",
            "sign",
            "--user-sk",
            "al.sk",
            "--cred",
            "al.cred",
            "--pending",
            "al.pending",
            "--certs",
            "al.certs",
            "--pk",
            "mgr/manager.pk",
            "--msg",
            "m",
            "--out",
            "g.sig",
        ],
        &[
            "group",
            "verify",
            "--pk",
            "mgr/manager.pk",
            "--msg",
            "m",
            "--sig",
            "g.sig",
            "--dir",
            "mgr",
        ],
        &[
            "group", "open", "--dir", "mgr", "--msg", "m", "--sig", "g.sig",
        ],
        &["group", "revoke", "--dir", "mgr", "--id", "0"],
        &[
            "mpc",
            "bench",
            "--life",
            "--scheme",
            "bls",
            "--parties",
            "3",
            "--delays",
            "0",
            "--later",
            "1",
        ],
    ];
    for args in runs {
        let v = checked(&json_in(&d, args), &d);
        // A key's life: one row per step, each with the first life's cost and the later's.
        if args.contains(&"--life") {
            let steps: Vec<&str> = v["life"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["step"].as_str().unwrap())
                .collect();
            assert_eq!(
                steps,
                ["generate", "sign", "refresh", "reshare to n + 1"],
                "{v}"
            );
            assert!(
                v["life"][0]["later"]["requests"].as_u64().unwrap() > 0,
                "{v}"
            );
            // It writes no CSV or plot, so it refuses to be told where to.
            for (flag, file) in [("--csv", "life.csv"), ("--plot", "life.svg")] {
                let o = alibi_in(&d, &[*args, &[flag, file][..]].concat());
                assert_eq!(code(&o), 2, "{flag}");
                assert!(!d.join(file).exists(), "{flag}");
            }
        }
        // The AKEMs name their suite, whichever side.
        if args[0] == "akem" && args[1] != "keygen" {
            assert_eq!(v["suite"], "mlkem512-falcon512", "{args:?}: {v}");
        }
    }
}

/// A failure prints one object too, with the line stderr shows and the exit code, also when the
/// command line does not parse; an invalid verdict prints its own object and no second one.
#[test]
fn a_failure_is_one_object() {
    let d = common::scratch("json-failures");
    for (args, exit, kind) in [
        (&["falcon", "verify", "--json"][..], 2, "usage"),
        (
            &[
                "falcon", "verify", "--pk", "none.pk", "--msg", "m", "--sig", "s", "--json",
            ][..],
            2,
            "usage",
        ),
        (
            &[
                "mpc",
                "init",
                "--dir",
                "p",
                "--relay",
                "http://127.0.0.1:1",
                "--name",
                "p",
                "--json",
            ][..],
            3,
            "transport",
        ),
    ] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_alibi"))
            .args(args)
            .current_dir(&d)
            .env("ALIBI_PASSPHRASE", "a passphrase for this test")
            .output()
            .unwrap();
        assert_eq!(code(&o), exit, "{args:?}: {}", common::stderr(&o));
        let v = checked(&o, &d);
        assert_eq!(v["exit"], exit, "{v}");
        assert_eq!(v["kind"], kind, "{v}");
        let shown = common::stderr(&o);
        assert_eq!(
            format!("alibi: {}", v["error"].as_str().unwrap()),
            shown.trim_end(),
            "the same line as stderr"
        );
    }
    // Invalid: the verdict's object alone.
    std::fs::write(d.join("m"), b"m").unwrap();
    for args in [
        &[
            "falcon", "keygen", "--level", "512", "--pk", "f.pk", "--sk", "f.sk",
        ][..],
        &[
            "falcon", "sign", "--sk", "f.sk", "--msg", "m", "--out", "f.sig",
        ],
    ] {
        assert_eq!(code(&alibi_in(&d, args)), 0);
    }
    std::fs::write(d.join("m"), b"another message").unwrap();
    let o = alibi_in(
        &d,
        &[
            "falcon", "verify", "--pk", "f.pk", "--msg", "m", "--sig", "f.sig", "--json",
        ],
    );
    assert_eq!(code(&o), 1);
    let v = checked(&o, &d);
    assert_eq!(v["valid"], false, "{v}");
}

fn alibi_in(dir: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// The MPC verbs: init, group, keygen and sign of BLS and FROST, verify; key generation names
/// its scheme and shows the key as hex beside the `--pk-out` file, as every scheme does.
#[test]
fn the_mpc_verbs_have_the_same_shape() {
    let d = common::scratch("json-mpc");
    let relay = relay(&d);
    let names = ["ja", "jb"];
    let (dirs, group) = setup(&d, &relay, &names, 1);
    std::fs::write(d.join("m"), b"m").unwrap();
    for scheme in ["bls", "frost-ed25519"] {
        let more = ["--scheme", scheme, "--json"];
        let keygens: Vec<Child> = dirs
            .iter()
            .map(|dir| keygen_with(dir, &group, &dir.join(format!("{scheme}.pk")), "30", &more))
            .collect();
        for c in keygens {
            let v = checked(&c.wait_with_output().unwrap(), &d);
            assert_eq!(v["scheme"], scheme, "{v}");
            assert!(v["public_key_hex"].is_string(), "{v}");
        }
        let more = [
            "--scheme",
            scheme,
            "--signers",
            "ja,jb",
            "--timeout-s",
            "30",
            "--json",
        ];
        let msg = d.join("m");
        let signs: Vec<Child> = dirs
            .iter()
            .map(|dir| {
                let sig = dir.join(format!("{scheme}.sig"));
                sign_with(dir, &group, (&msg, "j1"), &sig, &more)
            })
            .collect();
        for c in signs {
            let v = checked(&c.wait_with_output().unwrap(), &d);
            assert_eq!(v["scheme"], scheme, "{v}");
        }
        let pk = format!("{}/{scheme}.pk", s(&dirs[0]));
        let sig = format!("{}/{scheme}.sig", s(&dirs[0]));
        let o = json_in(
            &d,
            &[
                "mpc", "verify", "--scheme", scheme, "--pk", &pk, "--msg", "m", "--sig", &sig,
            ],
        );
        assert_eq!(checked(&o, &d)["scheme"], scheme);
    }
    // The extended public key of the FROST key, and a child key derived from it.
    let xpub = format!("{}/x.xpub", s(&dirs[0]));
    let keys = [
        "mpc",
        "keys",
        "--scheme",
        "frost-ed25519",
        "--dir",
        &s(&dirs[0]),
        "--group",
        &group,
        "--out",
        &xpub,
        "--json",
    ];
    let v = checked(&run(&keys), &d);
    assert!(v["xpub"].as_str().unwrap().starts_with("xpub"), "{v}");
    let derive = [
        "mpc",
        "derive",
        "--scheme",
        "frost-ed25519",
        "--xpub",
        &xpub,
        "--path",
        "m/3",
        "--out",
        "child.pk",
    ];
    let v = checked(&json_in(&d, &derive), &d);
    assert_eq!(v["path"], "m/3", "{v}");
}
