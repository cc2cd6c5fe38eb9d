//! `alibi mpc keygen|sign|verify` end to end on an in-process relay, the exit-code contract, and
//! `bench --replot` on a CSV it wrote.

mod common;
use common::{alibi, code};

#[test]
fn keygen_sign_verify_and_exit_codes() {
    let d = common::scratch("mpc");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    let keys = p("keys");
    std::fs::write(p("m"), b"threshold message").unwrap();
    std::fs::write(p("other"), b"another message").unwrap();
    for transport in ["group", "pairwise"] {
        let o = alibi(&[
            "mpc",
            "keygen",
            "--parties",
            "4",
            "--threshold",
            "2",
            "--transport",
            transport,
            "--out",
            &keys,
            "--force",
        ]);
        assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(std::fs::read(p("keys/group.pk")).unwrap().len(), 48);
        let sign = |signers: &str| {
            code(&alibi(&[
                "mpc",
                "sign",
                "--keys",
                &keys,
                "--msg",
                &p("m"),
                "--out",
                &p("sig"),
                "--signers",
                signers,
                "--transport",
                transport,
            ]))
        };
        assert_eq!(sign("2,3,4"), 0);
        assert_eq!(std::fs::read(p("sig")).unwrap().len(), 96);
        let verify = |msg: &str, pk: &str| {
            code(&alibi(&[
                "mpc",
                "verify",
                "--pk",
                pk,
                "--msg",
                msg,
                "--sig",
                &p("sig"),
            ]))
        };
        assert_eq!(verify(&p("m"), &p("keys/group.pk")), 0);
        assert_eq!(verify(&p("other"), &p("keys/group.pk")), 1);
        assert_eq!(verify(&p("m"), &p("m")), 2);
        // Too few signers, or a signer without a share file.
        assert_eq!(sign("1,2"), 2);
        assert_eq!(sign("1,2,9"), 2);
    }
    // A share file whose secret was altered is refused.
    let share = std::fs::read_to_string(p("keys/share-1.json")).unwrap();
    let pos = share.find("\"secret\": \"").unwrap() + 11;
    let mut bad = share.clone().into_bytes();
    bad[pos] = if bad[pos] == b'1' { b'2' } else { b'1' };
    std::fs::write(p("keys/share-1.json"), bad).unwrap();
    assert_eq!(
        code(&alibi(&[
            "mpc",
            "sign",
            "--keys",
            &keys,
            "--msg",
            &p("m"),
            "--out",
            &p("sig")
        ])),
        2
    );
    assert_eq!(
        code(&alibi(&[
            "mpc",
            "keygen",
            "--parties",
            "3",
            "--threshold",
            "3"
        ])),
        2
    );
    assert_eq!(
        code(&alibi(&["mpc", "keygen", "--transport", "carrier-pigeon"])),
        2
    );
    assert_eq!(code(&alibi(&["mpc"])), 2);
}

#[test]
fn bench_writes_a_csv_that_replots() {
    let d = common::scratch("mpc-bench");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    let o = alibi(&[
        "mpc",
        "bench",
        "--parties",
        "3",
        "--delays",
        "0",
        "--later",
        "1",
        "--csv",
        &p("b.csv"),
        "--plot",
        &p("b.svg"),
    ]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(p("b.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 4, "{csv}");
    assert!(std::fs::read_to_string(p("b.svg"))
        .unwrap()
        .starts_with("<svg"));
    let o = alibi(&[
        "mpc",
        "bench",
        "--replot",
        &p("b.csv"),
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
