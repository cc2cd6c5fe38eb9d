//! MPC parties as separate OS processes through the CLI: a relay process and five party
//! processes (init, group, keygen t=2 n=5, signing by three, the signature checked with plain
//! blst); a party killed with SIGKILL during key generation is named by the others, who finish;
//! wrong passphrases and tampered shares exit 2; secret files are 0600; `bench --replot`.

use crate::common;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use alibi_relay_api::b64;
use common::mpc::{
    keygen, keygen_with, party_cmd, relay, relay_on, run, s, setup, setup_at, setup_each,
    sign_with, wait_all, PASS,
};
use common::{alibi, code};

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
fn bench_times_each_round_and_the_rounds_add_up_to_the_run() {
    let d = common::scratch("mpc-bench-rounds");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    let (csv, rounds) = (p("b.csv"), p("r.csv"));
    let args = [
        "mpc",
        "bench",
        "--parties",
        "3",
        "--delays",
        "0",
        "--transports",
        "group",
        "--later",
        "1",
        "--processes",
        "--csv",
        &csv,
        "--plot",
        &p("b.svg"),
        "--rounds",
        &rounds,
    ];
    let o = alibi(&args);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("| bls | 3 | 0 ms | group | keygen | 1 |"));
    let runs = std::fs::read_to_string(&csv).unwrap();
    let text = std::fs::read_to_string(&rounds).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("scheme,n,delay_ms,transport,run,phase,round,ms")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    for (run, name) in [("0", "first"), ("1", "later")] {
        let timed = runs
            .lines()
            .find(|l| l.contains(&format!(",{name},")))
            .expect("a row per run");
        let cols: Vec<&str> = timed.split(',').collect();
        for (phase, col) in [("keygen", 6), ("sign", 7)] {
            let steps: Vec<&Vec<&str>> = rows
                .iter()
                .filter(|r| r[4] == run && r[5] == phase)
                .collect();
            assert_eq!(steps[0][6], "start", "{text}");
            assert!(steps.len() >= 3, "{text}");
            let sum: f64 = steps.iter().map(|r| r[7].parse::<f64>().unwrap()).sum();
            let total: f64 = cols[col].parse().unwrap();
            assert!(
                (sum - total).abs() < 0.1 * steps.len() as f64,
                "{sum} against {total}"
            );
        }
    }
    // Rounds are timed by the party processes only.
    let tasks = ["mpc", "bench", "--parties", "3", "--rounds", &rounds];
    assert_eq!(code(&alibi(&tasks)), 2);
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
    // Presignatures: threshold ECDSA's alone, and parties as processes only.
    let o = alibi(&["mpc", "bench", "--presigned", "--processes"]);
    assert_eq!(code(&o), 2, "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--presigned: presignatures are for"));
    let o = alibi(&["mpc", "bench", "--presigned", "--scheme", "ecdsa-secp256k1"]);
    assert_eq!(code(&o), 2, "{}", String::from_utf8_lossy(&o.stderr));
    // --primes that are not sets of safe primes in hex, or no file: refused before measuring.
    std::fs::write(p("primes.hex"), "00ff\n").unwrap();
    for primes in [p("primes.hex"), p("absent.hex")] {
        let args = [
            "mpc",
            "bench",
            "--scheme",
            "ecdsa-secp256k1",
            "--primes",
            primes.as_str(),
        ];
        let o = alibi(&args);
        assert_eq!(code(&o), 2, "{}", String::from_utf8_lossy(&o.stderr));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&primes) && err.lines().count() == 1, "{err}");
    }
}

/// `mpc bench --presigned`: threshold ECDSA by 2 party processes, presigning timed apart and
/// signing online with the presignature (a first and a later run, the key generated in the
/// first only), in the JSON too.
#[test]
fn bench_presigned_times_presigning_apart_from_online_signing() {
    let d = common::scratch("mpc-bench-presigned");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    let args = [
        "mpc",
        "bench",
        "--scheme",
        "ecdsa-secp256k1",
        "--parties",
        "2",
        "--delays",
        "0",
        "--transports",
        "group",
        "--later",
        "1",
        "--processes",
        "--presigned",
        "--json",
        "--csv",
        &p("b.csv"),
        "--plot",
        &p("b.svg"),
    ];
    let o = alibi(&args);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let presign = &v["presign"][0];
    assert_eq!(
        (presign["n"].as_u64(), presign["transport"].as_str()),
        (Some(2), Some("group"))
    );
    let offline = presign["first_ms"].as_f64().unwrap();
    let online = v["rows"][0]["sign_group_ms"].as_f64().unwrap();
    assert!(offline > 0.0 && online > 0.0, "{v}");
    // Every run's own figures, as they end, for the spread: the first and the one later run.
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .collect();
    // Without a terminal the wait is still told: the cell as it starts.
    let cell = events
        .iter()
        .find(|e| e["event"] == "cell")
        .expect("a cell event");
    assert_eq!(
        (cell["n"].as_u64(), cell["scheme"].as_str()),
        (Some(2), Some("ecdsa-secp256k1"))
    );
    let runs: Vec<&serde_json::Value> = events.iter().filter(|e| e["event"] == "run").collect();
    assert_eq!(runs.len(), 2, "{}", String::from_utf8_lossy(&o.stderr));
    for (k, r) in runs.iter().enumerate() {
        assert_eq!(
            (r["run"].as_u64(), r["of"].as_u64()),
            (Some(k as u64 + 1), Some(2))
        );
        assert!(r["presign_ms"].as_f64().unwrap() > 0.0 && r["sign_ms"].as_f64().unwrap() > 0.0);
    }
    assert_eq!(runs[0]["presign_ms"].as_f64(), Some(offline));
    // The key is generated once, in the first run; the later one presigns and signs with it.
    let keygen = |k: usize| runs[k]["keygen_ms"].as_f64().unwrap();
    assert!(keygen(0) > 0.0 && keygen(1) == 0.0, "{runs:?}");
    // Issue 70, item 3: each run's CPU time, the party processes' and the relay's.
    let cpu = |k: usize, what: &str| runs[k]["cpu"][what].as_f64().unwrap();
    assert!(cpu(0, "keygen_ms") > 0.0 && cpu(1, "keygen_ms") < cpu(0, "keygen_ms"));
    assert!(
        cpu(1, "presign_ms") > 0.0 && cpu(1, "sign_ms") > 0.0,
        "{runs:?}"
    );
    let later = &v["cpu"][1];
    assert_eq!(
        (later["run"].as_str(), later["n"].as_u64()),
        (Some("later"), Some(2))
    );
    assert_eq!(
        later["cpu"]["presign_ms"].as_f64(),
        Some(cpu(1, "presign_ms"))
    );
}

/// Issue 70, item 3: `mpc bench --in-memory` runs the parties as tasks over the in-memory
/// transport and prints each run's CPU seconds beside its wall-clock seconds, as a table or one
/// JSON object; it writes no CSV or plot, and refuses what only a relay has.
#[test]
fn bench_in_memory_prints_cpu_beside_wall_clock_and_writes_no_file() {
    let d = common::scratch("mpc-bench-memory");
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    let (csv, svg) = (p("m.csv"), p("m.svg"));
    let args = [
        "mpc",
        "bench",
        "--in-memory",
        "--scheme",
        "bls,frost-ed25519",
        "--parties",
        "3",
        "--later",
        "1",
        "--csv",
        &csv,
        "--plot",
        &svg,
    ];
    let o = alibi(&args);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("| bls | 3 | 2 | in memory | later |"), "{out}");
    assert!(
        out.contains("| frost-ed25519 | 3 | 2 | in memory | first |"),
        "{out}"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("n = 3, in memory") && err.contains("; CPU: keygen "),
        "{err}"
    );
    assert!(!Path::new(&csv).exists() && !Path::new(&svg).exists());
    let o = alibi(&[&args[..5], &["--parties", "2", "--later", "1", "--json"]].concat());
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["cpu"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{v}");
    for r in rows {
        assert_eq!(
            (r["in_memory"].as_bool(), r["n"].as_u64()),
            (Some(true), Some(2))
        );
        let cpu = |what: &str| r["cpu"][what].as_f64().unwrap();
        assert!(cpu("keygen_ms") > 0.0 && cpu("sign_ms") > 0.0, "{r}");
    }
    for relay_only in [
        &["--processes"][..],
        &["--delays", "50"],
        &["--transports", "group"],
    ] {
        let o = alibi(&[&args[..], relay_only].concat());
        assert_eq!(code(&o), 2, "{relay_only:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("--in-memory"));
    }
}

/// Issue 65, item 2: one party's path to the relay stops moving bytes in the middle of a key
/// generation, its sockets left open: a TCP forwarder holds every byte from the party's first
/// message send on (the request never reaches the relay, nor any answer the party). The party must
/// not wait for ever: every request, socket and send is bounded, and it exits 3 within about a
/// round timeout (here 8 s: one for the stalled send, the stop notices to the others bounded
/// alike), with a line that says what stalled. Before, the send waited for ever (the report: still
/// running after 122 s with `--timeout-s 8`, printing nothing).
#[test]
fn a_stalled_path_to_the_relay_ends_the_party_within_about_a_round_timeout() {
    let d = common::scratch("mpc-stall");
    let relay = relay(&d);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let stall = rt.block_on(alibi_testkit::stall::StallProxy::start(&relay.url));
    let parties = [("s1", &relay.url), ("s2", &relay.url), ("s3", &stall.url)];
    let parties: Vec<(&str, &str)> = parties.iter().map(|(n, u)| (*n, u.as_str())).collect();
    let (dirs, group) = setup_each(&d, &relay.trust_root, &parties, 1);
    let pk = |i: usize| d.join(format!("{i}.pk"));
    stall.stall_on(b"PUT /v1/messages");
    let started = std::time::Instant::now();
    let mut children: Vec<Child> = (0..3)
        .map(|i| keygen(&dirs[i], &group, &pk(i), "8"))
        .collect();
    let mut s3 = children.pop().unwrap();
    while s3.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            s3.kill().unwrap();
            panic!("s3 still running 60 s after it started");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let o = s3.wait_with_output().unwrap();
    let took = started.elapsed();
    let err = common::stderr(&o);
    assert!(
        stall.held.load(std::sync::atomic::Ordering::SeqCst) > 0,
        "the stall held s3's traffic: {err}"
    );
    assert_eq!(code(&o), 3, "{err}");
    assert!(took < std::time::Duration::from_secs(24), "{took:?}: {err}");
    println!("s3 exited {took:?} after it started: {err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.contains("within 8.0 s") || last.contains("nothing heard"),
        "names what stalled: {err}"
    );
    for c in children {
        let _ = c.wait_with_output();
    }
}

/// Four party processes whose relay (a process) sits behind a relay in the middle (the proxy, in
/// this test): when it loses one delivery (three positions tried, a run each) the lost message is
/// asked for again and all four exit 0 with the same key; when it serves party 2's bundle for
/// party 3's to four new parties, the others refuse the impostor and all exit 3, a transport
/// fault that names the contact or the parties not heard from, and blames no party.
#[test]
fn processes_behind_a_relay_that_loses_or_lies() {
    let d = common::scratch("mpc-proxy");
    let relay = relay(&d);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let proxy = rt.block_on(alibi_testkit::proxy::Proxy::start(&relay.url));
    let names = ["q1", "q2", "q3", "q4"];
    let (dirs, group) = setup_at(&d, &proxy.url, &relay.trust_root, &names, 1);
    let pk = |i: usize, run: usize| d.join(format!("{}-{run}.pk", names[i]));
    for (run, lost) in [None, Some(3), Some(20), Some(45)].into_iter().enumerate() {
        proxy.rules.lock().unwrap().drop_delivery = lost;
        proxy.count_from_zero();
        let session = format!("run-{run}");
        let more = ["--session", session.as_str(), "--force"];
        let children: Vec<Child> = (0..4)
            .map(|i| keygen_with(&dirs[i], &group, &pk(i, run), "20", &more))
            .collect();
        for (i, c) in children.into_iter().enumerate() {
            let o = c.wait_with_output().unwrap();
            assert_eq!(
                code(&o),
                0,
                "run {run}, lost {lost:?}: {}: {}",
                names[i],
                common::stderr(&o)
            );
            assert!(common::stdout(&o).contains("qualified: q1, q2, q3, q4"));
        }
        let key = std::fs::read(pk(0, run)).unwrap();
        assert!(
            (1..4).all(|i| std::fs::read(pk(i, run)).unwrap() == key),
            "run {run}"
        );
    }
    proxy.rules.lock().unwrap().drop_delivery = None;
    // The relay lies about who party 2 is, to parties that have no session yet.
    let names = ["r1", "r2", "r3", "r4"];
    let lied = d.join("lied");
    std::fs::create_dir_all(&lied).unwrap();
    let (dirs, group) = setup_at(&lied, &proxy.url, &relay.trust_root, &names, 1);
    let account = |i: usize| -> String {
        let card: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dirs[i].join("card.json")).unwrap())
                .unwrap();
        card["account"].as_str().unwrap().to_string()
    };
    proxy.rules.lock().unwrap().rewrite = vec![(
        format!("/v2/keys/{}/", account(1)),
        format!("/v2/keys/{}/", account(2)),
    )];
    let more = ["--session", "lied-to", "--force"];
    // Party 2 starts once the others have fetched its (false) bundle: had its own first message
    // reached them before, they would have its session from it and never ask the relay.
    let mut children: Vec<Child> = [0, 2, 3]
        .iter()
        .map(|&i| keygen_with(&dirs[i], &group, &pk(i, 9), "3", &more))
        .collect();
    let start = std::time::Instant::now();
    while proxy.rewritten.load(std::sync::atomic::Ordering::SeqCst) < 3
        && start.elapsed() < std::time::Duration::from_secs(60)
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    children.insert(1, keygen_with(&dirs[1], &group, &pk(1, 9), "3", &more));
    let outputs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let all = outputs
        .iter()
        .zip(names)
        .map(|(o, n)| {
            format!(
                "{n}: {:?} {} {}",
                o.status,
                common::stdout(o),
                common::stderr(o)
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    for (i, o) in outputs.iter().enumerate() {
        let err = common::stderr(o);
        assert_eq!(code(o), 3, "{}: {err}\n{all}", names[i]);
        assert!(err.contains("no party blamed"), "{}: {err}", names[i]);
        if i != 1 {
            assert!(err.contains("r2"), "{}: {err}", names[i]);
        }
    }
}

/// A group file whose entries clash or whose threshold is out of range is refused when read,
/// exit 2, naming the entry.
#[test]
fn a_bad_group_file_is_refused_naming_the_entry() {
    let d = common::scratch("mpc-group-file");
    let relay = relay(&d);
    let names = ["g1", "g2", "g3"];
    let (dirs, group) = setup(&d, &relay, &names, 1);
    let good: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&group).unwrap()).unwrap();
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "same account",
            Box::new(|g| g["parties"][2]["account"] = g["parties"][0]["account"].clone()),
            "card 1 (g1) and card 3 (g3) have the same account",
        ),
        (
            "same identity",
            Box::new(|g| g["parties"][1]["identityKey"] = g["parties"][0]["identityKey"].clone()),
            "card 1 (g1) and card 2 (g2) have the same identity key",
        ),
        (
            "threshold 0",
            Box::new(|g| g["threshold"] = 0.into()),
            "threshold 0 for 3 parties",
        ),
        (
            "threshold n",
            Box::new(|g| g["threshold"] = 3.into()),
            "threshold 3 for 3 parties",
        ),
    ];
    for (what, change, says) in cases {
        let mut g = good.clone();
        change(&mut g);
        let path = d.join(format!("{}.json", what.replace(' ', "-")));
        std::fs::write(&path, g.to_string()).unwrap();
        let o = keygen(&dirs[0], &s(&path), &d.join("x.pk"), "2")
            .wait_with_output()
            .unwrap();
        assert_eq!(code(&o), 2, "{what}: {}", common::stderr(&o));
        assert!(
            common::stderr(&o).contains(says),
            "{what}: {}",
            common::stderr(&o)
        );
    }
}

/// Cheaters as processes (the hidden `--misbehave` hook), five parties, t = 2. Two colluders deal
/// the first party shares off by +5 and -5, and the second then falls silent: both are named, and
/// the three honest parties exit 0 with the same key. Then one party equivocates its commitment
/// and another sends its broadcasts to all but the first: the equivocator is named by all, the
/// withholder by none (the others forward its messages), and the four finish alike.
#[test]
fn cheating_processes_are_named_alike_by_every_honest_party() {
    let d = common::scratch("mpc-cheaters");
    let relay = relay(&d);
    let names = ["c1", "c2", "c3", "c4", "c5"];
    let (dirs, group) = setup(&d, &relay, &names, 2);
    let pk = |i: usize, run: &str| d.join(format!("{}-{run}.pk", names[i]));
    // (session, cheaters by position with their specs, who finishes, what they print)
    type Run<'a> = (
        &'a str,
        &'a [(usize, &'a str)],
        &'a [usize],
        &'a str,
        &'a str,
    );
    let runs: [Run; 2] = [
        (
            "colluders",
            &[
                (3, "offset-share:1:5"),
                (4, "offset-share-then-silent:1:-5"),
            ],
            &[0, 1, 2],
            "qualified: c1, c2, c3",
            "excluded: c4 (dealt a bad share), c5 (silent in round 4)",
        ),
        (
            "equivocation",
            // The withholding itself leaves no trace in the processes' output or files (nor in
            // the relay's counters), so it is not checked here; agreement.rs's
            // a_broadcast_withheld_from_one_party_reaches_it_through_the_others checks, on the
            // in-memory network, that the hook withholds and that the others forward.
            &[(1, "equivocate-commit"), (2, "withhold-broadcast:1")],
            &[0, 2, 3, 4],
            "qualified: c1, c3, c4, c5",
            "excluded: c2 (equivocated in round 1)",
        ),
    ];
    for (run, cheats, finish, qualified, excluded) in runs {
        let children: Vec<Child> = (0..5)
            .map(|i| {
                let mut more = vec!["--session", run, "--force"];
                if let Some((_, spec)) = cheats.iter().find(|(c, _)| *c == i) {
                    more.extend(["--misbehave", spec]);
                }
                keygen_with(&dirs[i], &group, &pk(i, run), "3", &more)
            })
            .collect();
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        for &i in finish {
            let o = &outs[i];
            assert_eq!(code(o), 0, "{run}: {}: {}", names[i], common::stderr(o));
            let out = common::stdout(o);
            assert!(out.contains(qualified), "{run}: {}: {out}", names[i]);
            assert!(out.contains(excluded), "{run}: {}: {out}", names[i]);
            assert_eq!(
                std::fs::read(pk(i, run)).unwrap(),
                std::fs::read(pk(finish[0], run)).unwrap()
            );
        }
    }
}

/// `--handshake ringxkem`: three parties, each its own process, run key generation over
/// RingXKEM sessions (fully post-quantum, deniable, SPQR required) and agree on one key.
#[test]
fn keygen_over_ringxkem_sessions() {
    let d = common::scratch("mpc-ringxkem");
    let relay = relay(&d);
    let names = ["r1", "r2", "r3"];
    let (dirs, _) = setup(&d, &relay, &names, 1);
    // The group file records the handshake, so that every party uses the same.
    let cards: Vec<String> = dirs.iter().map(|d| s(&d.join("card.json"))).collect();
    let group = s(&d.join("group-ringxkem.json"));
    let o = run(&[
        "mpc",
        "group",
        "--threshold",
        "1",
        "--cards",
        &cards.join(","),
        "--handshake",
        "ringxkem",
        "--out",
        &group,
    ]);
    assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    let children: Vec<Child> = (0..3)
        .map(|i| {
            keygen_with(
                &dirs[i],
                &group,
                &pk_path(&d, names[i]),
                "60",
                &["--transport", "pairwise"],
            )
        })
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        let o = c.wait_with_output().unwrap();
        assert_eq!(code(&o), 0, "{}: {}", names[i], common::stderr(&o));
    }
    let pk = std::fs::read(pk_path(&d, "r1")).unwrap();
    assert_eq!(pk.len(), 48);
    for n in &names[1..] {
        assert_eq!(std::fs::read(pk_path(&d, n)).unwrap(), pk);
    }
    // A party asking for PQXDH among parties on RingXKEM would be heard by nobody (its PreKey
    // messages name the wrong kind of identity, and theirs it refuses): it is refused at once,
    // naming the group's handshake, and the two on RingXKEM exclude it as silent and finish.
    let children: Vec<Child> = (0..3)
        .map(|i| {
            let h = if i == 0 { "pqxdh" } else { "ringxkem" };
            keygen_with(
                &dirs[i],
                &group,
                &pk_path(&d, &format!("mixed-{}", names[i])),
                "4",
                &["--handshake", h, "--session", "mixed", "--force"],
            )
        })
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        let o = c.wait_with_output().unwrap();
        if i == 0 {
            assert_eq!(code(&o), 2, "r1: {}", common::stdout(&o));
            assert!(
                common::stderr(&o).contains("the group file records ringxkem"),
                "{}",
                common::stderr(&o)
            );
        } else {
            assert_eq!(code(&o), 0, "{}: {}", names[i], common::stderr(&o));
            assert!(
                common::stdout(&o).contains("excluded: r1 ("),
                "{}",
                common::stdout(&o)
            );
        }
    }
}

/// N8 (issue 41): a party's signed stop notice aborted every run and its sender was never named.
/// Now every honest party names it Stopped alike (exit 3); each notes why in its directory, and
/// the next run with `--exclude` leaves it out, records the exclusion and the reason in the group
/// file, and finishes without it; signing then leaves it out by default.
#[test]
fn a_party_that_stops_every_run_is_named_and_excluded_from_the_next() {
    let d = common::scratch("mpc-stopper");
    let relay = relay(&d);
    let names = ["s1", "s2", "s3", "s4"];
    let (dirs, group) = setup(&d, &relay, &names, 1);
    let pk = |i: usize, run: &str| d.join(format!("{}-{run}.pk", names[i]));
    let children: Vec<Child> = (0..4)
        .map(|i| {
            let mut more = vec!["--session", "first"];
            if i == 3 {
                more.extend(["--misbehave", "stop"]);
            }
            keygen_with(&dirs[i], &group, &pk(i, "first"), "3", &more)
        })
        .collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    for (i, o) in outs.iter().enumerate().take(3) {
        let err = common::stderr(o);
        assert_eq!(code(o), 3, "{}: {err}", names[i]);
        assert!(err.contains("named Stopped: s4"), "{}: {err}", names[i]);
        assert!(err.contains("--exclude s4"), "{}: {err}", names[i]);
    }
    let children: Vec<Child> = (0..3)
        .map(|i| {
            let more = ["--session", "second", "--exclude", "s4"];
            keygen_with(&dirs[i], &group, &pk(i, "second"), "5", &more)
        })
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        let o = c.wait_with_output().unwrap();
        assert_eq!(code(&o), 0, "{}: {}", names[i], common::stderr(&o));
        assert!(common::stdout(&o).contains("qualified: s1, s2, s3"));
    }
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(&group).unwrap()).unwrap();
    let excluded = &file["excluded"][0];
    assert_eq!(excluded["name"], "s4", "{file}");
    assert!(
        excluded["reason"]
            .as_str()
            .unwrap()
            .contains("stopped key generation"),
        "{file}"
    );
    // The excluded party's own commands are refused, naming why.
    let o = keygen_with(
        &dirs[3],
        &group,
        &pk(3, "third"),
        "3",
        &["--session", "third"],
    )
    .wait_with_output()
    .unwrap();
    assert_eq!(code(&o), 2, "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("excluded"),
        "{}",
        common::stderr(&o)
    );
}

/// Key generation by every party of `dirs` at once (group keys `I.pk` in `d`); all must finish.
fn keygen_everyone(d: &Path, dirs: &[PathBuf], group: &str) {
    let children: Vec<Child> = (0..dirs.len())
        .map(|i| keygen(&dirs[i], group, &d.join(format!("{i}.pk")), "60"))
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    }
}

/// `mpc sign` processes for `who` (index, message file) under one session; their outputs.
fn sign_processes(
    dirs: &[PathBuf],
    group: &str,
    who: &[(usize, &Path)],
    session: &str,
    more: &[&str],
) -> Vec<Output> {
    let children: Vec<Child> = who
        .iter()
        .map(|(i, msg)| {
            let out = dirs[*i].join(format!("{session}.sig"));
            sign_with(&dirs[*i], group, (msg, session), &out, more)
        })
        .collect();
    wait_all(children)
}

/// Issue 65, item 4: a party never runs one session twice. Before, a key generation or signing run
/// again under its old name (the default key generation, or the same `--session`) signed new
/// round messages under the old session id; a cheater who kept the old run's signed round-1
/// broadcast forwarded it beside the new one, and every party named the honest sender for
/// equivocating. Now each party records the sessions it ran (`DIR/sessions.txt`) and refuses a
/// rerun before it sends anything (exit 2, saying to give the run a new `--session`).
#[test]
fn a_party_never_runs_one_session_twice() {
    let d = common::scratch("mpc-session-once");
    let relay = relay(&d);
    let (dirs, group) = setup(&d, &relay, &["ian", "jo", "kim"], 1);
    keygen_everyone(&d, &dirs, &group);
    for (i, dir) in dirs.iter().enumerate() {
        let pk = d.join(format!("{i}.pk"));
        let o = keygen_with(dir, &group, &pk, "5", &["--force"])
            .wait_with_output()
            .unwrap();
        let err = common::stderr(&o);
        assert_eq!(code(&o), 2, "{err}");
        assert!(
            err.contains("already ran key generation without --session")
                && err.contains("new --session"),
            "{err}"
        );
    }
    let msg = d.join("msg");
    std::fs::write(&msg, b"pay 1").unwrap();
    for (run, want) in [("first", 0), ("again", 2)] {
        let outs = sign_processes(
            &dirs,
            &group,
            &[(0, &msg), (1, &msg)],
            "pay-1",
            &["--force"],
        );
        for o in &outs {
            let err = common::stderr(o);
            assert_eq!(code(o), want, "{run}: {err}");
            if want == 2 {
                assert!(err.contains("already ran signing --session pay-1"), "{err}");
            }
        }
    }
    let ledger = std::fs::read_to_string(dirs[0].join("sessions.txt")).unwrap();
    assert_eq!(ledger.lines().count(), 2, "{ledger}");
}

/// The README's `mpc sign` line with t+1 of n parties (no `--signers`) returns as soon as their
/// partials are in, naming nobody; signers given different messages are told so (exit 1),
/// never named for a bad partial. Before, the first waited the whole timeout and named the
/// parties nobody asked `Silent`, and the second named each other `BadPartial`.
#[test]
fn t_plus_1_of_n_sign_at_once_and_a_different_message_is_named_as_such() {
    let d = common::scratch("mpc-any-t-plus-1");
    let relay = relay(&d);
    let (dirs, group) = setup(&d, &relay, &["ada", "bob", "cyd"], 1);
    keygen_everyone(&d, &dirs, &group);
    let (msg, other) = (d.join("msg"), d.join("other"));
    std::fs::write(&msg, b"pay 1").unwrap();
    std::fs::write(&other, b"pay 1000").unwrap();
    let start = std::time::Instant::now();
    let outs = sign_processes(&dirs, &group, &[(0, &msg), (2, &msg)], "pay-1", &[]);
    let took = start.elapsed();
    for o in &outs {
        assert_eq!(code(o), 0, "{}", common::stderr(o));
        assert!(
            !common::stdout(o).contains("named"),
            "{}",
            common::stdout(o)
        );
    }
    assert!(took < std::time::Duration::from_secs(20), "took {took:?}");
    let outs = sign_processes(
        &dirs,
        &group,
        &[(0, &msg), (1, &other)],
        "pay-2",
        &["--signers", "ada,bob", "--timeout-s", "5"],
    );
    for (o, other) in outs.iter().zip(["bob", "ada"]) {
        let err = common::stderr(o);
        assert_eq!(code(o), 1, "{err}");
        assert!(
            err.contains(&format!("{other}: it signs another message")),
            "{err}"
        );
        assert!(!err.contains("bad partial"), "{err}");
    }
}

/// Relay faults follow the exit-code contract: a relay killed and back within the round timeout
/// loses nothing (the signers started while it was down finish, exit 0); a relay that stays down
/// is a transport fault (exit 3, not 2); a relay on a fresh database answers 401, reported as a
/// transport fault with the hint to register again. Before, the first two exited 2 at once
/// ("Connection refused") and the third 2 ("relay refused (401)").
#[test]
fn relay_faults_are_retried_then_exit_3_with_a_hint() {
    let d = common::scratch("mpc-relay-faults");
    let relay = relay(&d);
    let port: u16 = relay.url.rsplit(':').next().unwrap().parse().unwrap();
    let (dirs, group) = setup(&d, &relay, &["ann", "bo", "cy"], 1);
    keygen_everyone(&d, &dirs, &group);
    let msg = d.join("msg");
    std::fs::write(&msg, b"pay 1").unwrap();
    drop(relay);
    let signing = std::thread::spawn({
        let (dirs, group, msg) = (dirs.clone(), group.clone(), msg.clone());
        move || sign_processes(&dirs, &group, &[(0, &msg), (2, &msg)], "back", &[])
    });
    std::thread::sleep(std::time::Duration::from_secs(4));
    let relay = relay_on(&d.join("relay.redb"), port);
    for o in signing.join().unwrap() {
        assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    }
    drop(relay);
    let o = &sign_processes(&dirs, &group, &[(0, &msg)], "down", &["--timeout-s", "2"])[0];
    let err = common::stderr(o);
    assert_eq!(code(o), 3, "{err}");
    assert!(err.contains("Connection refused"), "{err}");
    // The wait for the relay said what it waited for while it lasted.
    assert!(
        err.starts_with("alibi: relay unreachable (") && err.contains("trying again; 0 s of 2 s"),
        "{err}"
    );
    let _fresh = relay_on(&d.join("fresh.redb"), port);
    let o = &sign_processes(&dirs, &group, &[(0, &msg)], "fresh", &["--timeout-s", "2"])[0];
    assert_eq!(code(o), 3, "{}", common::stderr(o));
    assert!(
        common::stderr(o).contains("register again"),
        "{}",
        common::stderr(o)
    );
}

/// Every wait explains itself: a signer waiting for a party that was never started says so on
/// stderr every few seconds (the round, whom it waits for, whom it heard), in words or as JSON
/// lines with `--json`, and ends naming whom nothing was heard from, exit 3, blaming nobody.
/// Before, it was silent until the timeout. A second command of the waiting party finds its
/// store busy (before: "malformed ... Cannot acquire lock").
#[test]
fn a_wait_for_a_party_not_started_is_reported_while_it_lasts() {
    let d = common::scratch("mpc-waits");
    let relay = relay(&d);
    let (dirs, group) = setup(&d, &relay, &["al", "bea", "cal"], 1);
    keygen_everyone(&d, &dirs, &group);
    let msg = d.join("msg");
    std::fs::write(&msg, b"pay 1").unwrap();
    let more = ["--signers", "al,bea", "--timeout-s", "7"];
    let o = &sign_processes(&dirs, &group, &[(0, &msg)], "alone", &more)[0];
    let err = common::stderr(o);
    assert_eq!(code(o), 3, "{err}");
    assert!(
        err.contains("signing: round 1: waiting for bea (nothing yet); 5 s of 7 s"),
        "{err}"
    );
    assert!(
        err.lines()
            .last()
            .unwrap()
            .contains("nothing heard from bea"),
        "{err}"
    );
    let signing = std::thread::spawn({
        let (dirs, group, msg) = (dirs.clone(), group.clone(), msg.clone());
        let mut json: Vec<&'static str> = more.to_vec();
        json.push("--json");
        move || sign_processes(&dirs, &group, &[(0, &msg)], "alone-json", &json)
    });
    // Meanwhile the party's store is in use: a key generation of the same party is refused as
    // busy, not reported as a malformed database, and does not start (--force: its share file
    // exists, which key generation checks first).
    std::thread::sleep(std::time::Duration::from_secs(2));
    let o = keygen_with(
        &dirs[0],
        &group,
        &d.join("again.pk"),
        "60",
        &["--session", "again", "--force"],
    )
    .wait_with_output()
    .unwrap();
    let err = common::stderr(&o);
    assert_eq!(code(&o), 2, "{err}");
    assert!(
        err.contains("busy: another alibi process is using"),
        "{err}"
    );
    let o = &signing.join().unwrap()[0];
    let line = common::stderr(o)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    let v: serde_json::Value = serde_json::from_str(&line).expect(&line);
    assert_eq!(v["event"], "waiting", "{line}");
    assert_eq!(v["waiting_for"], serde_json::json!(["bea"]), "{line}");
}

/// `mpc init --trust-root` with a root the relay does not announce is refused at once (exit 3,
/// both roots named), leaving no directory; before, it was accepted and `mpc group` later
/// blamed a correct card.
#[test]
fn init_refuses_a_trust_root_the_relay_does_not_have() {
    let d = common::scratch("mpc-init-root");
    let relay = relay(&d);
    let dir = d.join("dee");
    let wrong = b64::encode(&[2u8; 33]);
    let o = run(&[
        "mpc",
        "init",
        "--dir",
        &s(&dir),
        "--relay",
        &relay.url,
        "--name",
        "dee",
        "--trust-root",
        &wrong,
    ]);
    let err = common::stderr(&o);
    assert_eq!(code(&o), 3, "{err}");
    assert!(
        err.contains("announces the trust root") && err.contains(&wrong),
        "{err}"
    );
    assert!(err.contains(&relay.trust_root), "{err}");
    assert!(!dir.exists(), "no directory left");
}

/// A party started after the others closed its key generation without it learns so at once from
/// their signed closed notices (exit 3, naming them, blaming nobody), instead of waiting the
/// whole timeout for rounds nobody will send.
#[test]
fn a_party_started_after_the_run_closed_is_told_so() {
    let d = common::scratch("mpc-late");
    let relay = relay(&d);
    let (dirs, group) = setup(&d, &relay, &["ed", "flo", "gus"], 1);
    let more = ["--session", "late"];
    let children: Vec<Child> = (0..2)
        .map(|i| keygen_with(&dirs[i], &group, &d.join(format!("{i}.pk")), "3", &more))
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert_eq!(code(&o), 0, "{}", common::stderr(&o));
        assert!(common::stdout(&o).contains("excluded: gus (silent in round 1)"));
    }
    let start = std::time::Instant::now();
    let o = keygen_with(&dirs[2], &group, &d.join("2.pk"), "60", &more)
        .wait_with_output()
        .unwrap();
    let err = common::stderr(&o);
    assert_eq!(code(&o), 3, "{err}");
    assert!(
        err.contains("ed, flo already closed this run without gus"),
        "{err}"
    );
    assert!(
        start.elapsed() < std::time::Duration::from_secs(30),
        "waited"
    );
    assert!(!d.join("2.pk").exists());
}

/// `alibi mpc <verb>` in `dir` with `more`, its own process.
fn party_verb(verb: &str, dir: &Path, more: &[&str]) -> Child {
    let mut args = vec!["mpc".to_string(), verb.into(), "--dir".into(), s(dir)];
    args.extend(
        ["--timeout-s", "60"]
            .iter()
            .chain(more)
            .map(|a| a.to_string()),
    );
    common::mpc::spawn_party(&args)
}

/// Every child's output, each required to exit 0 with `expect` on stdout.
fn all_finish(what: &str, children: Vec<Child>, expect: &str) {
    for o in wait_all(children) {
        assert_eq!(code(&o), 0, "{what}: {}", common::stderr(&o));
        let out = common::stdout(&o);
        assert!(out.contains(expect), "{what}: {out}");
    }
}

/// Signs `msg` with `group` by `who` (each its own process); each output.
fn sign_by(d: &Path, dirs: &[&PathBuf], group: &str, names: &str, tag: &str) -> Vec<Output> {
    let msg = d.join(format!("{tag}.msg"));
    std::fs::write(&msg, tag).unwrap();
    let children = dirs
        .iter()
        .enumerate()
        .map(|(i, dir)| {
            let out = d.join(format!("{tag}.{i}.sig"));
            let more = ["--signers", names, "--timeout-s", "20"];
            sign_with(dir, group, (&msg, tag), &out, &more)
        })
        .collect();
    wait_all(children)
}

/// Whether the signature signer `i` of run `tag` wrote verifies under `pk` by `mpc verify`.
fn verifies(d: &Path, pk: &Path, tag: &str, i: usize) -> bool {
    let msg = d.join(format!("{tag}.msg"));
    let sig = d.join(format!("{tag}.{i}.sig"));
    let o = run(&[
        "mpc",
        "verify",
        "--pk",
        &s(pk),
        "--msg",
        &s(&msg),
        "--sig",
        &s(&sig),
    ]);
    code(&o) == 0
}

#[test]
fn a_key_refreshed_then_reshared_from_2_of_3_to_3_of_5_signs_under_the_same_key() {
    let d = common::scratch("mpc-reshare");
    let relay = relay(&d);
    let (old_dirs, old_group) = setup(&d, &relay, &["r0", "r1", "r2"], 1);
    let pk = d.join("r0.pk");
    let children = (0..3)
        .map(|i| keygen(&old_dirs[i], &old_group, &d.join(format!("r{i}.pk")), "60"))
        .collect();
    all_finish("keygen", children, "group key");

    // Refresh: the same key; r0's old share no longer signs beside r1's new one.
    let before = std::fs::read(share_of(&old_dirs[0])).unwrap();
    let children = old_dirs
        .iter()
        .map(|dir| party_verb("refresh", dir, &["--group", &old_group, "--session", "f1"]))
        .collect();
    all_finish("refresh", children, "new share of the same group key");
    assert_eq!(common::mode(&s(&share_of(&old_dirs[0]))) & 0o777, 0o600);
    let refreshed = std::fs::read(share_of(&old_dirs[0])).unwrap();
    std::fs::write(share_of(&old_dirs[0]), &before).unwrap();
    let mixed = sign_by(
        &d,
        &[&old_dirs[0], &old_dirs[1]],
        &old_group,
        "r0,r1",
        "mixed",
    );
    assert_eq!(code(&mixed[1]), 1, "{}", common::stderr(&mixed[1]));
    assert!(
        common::stderr(&mixed[1]).contains("r0"),
        "{}",
        common::stderr(&mixed[1])
    );
    std::fs::write(share_of(&old_dirs[0]), &refreshed).unwrap();
    let o = sign_by(
        &d,
        &[&old_dirs[0], &old_dirs[2]],
        &old_group,
        "r0,r2",
        "fresh",
    );
    assert!(o.iter().all(|o| code(o) == 0), "{}", common::stderr(&o[0]));
    assert!(verifies(&d, &pk, "fresh", 0));

    // Reshare to 3-of-5: r0 and r1 carry the key over (at other places), r2 is left out, three
    // parties are new to it and take the key set r0 writes.
    let keys = d.join("keys.json");
    let o = run(&[
        "mpc",
        "keys",
        "--dir",
        &s(&old_dirs[0]),
        "--group",
        &old_group,
        "--out",
        &s(&keys),
    ]);
    assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    for n in ["n0", "n1", "n2"] {
        let o = run(&[
            "mpc",
            "init",
            "--dir",
            &s(&d.join(n)),
            "--relay",
            &relay.url,
            "--name",
            n,
            "--trust-root",
            &relay.trust_root,
        ]);
        assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    }
    let new_dirs = [
        d.join("n0"),
        old_dirs[0].clone(),
        d.join("n1"),
        old_dirs[1].clone(),
        d.join("n2"),
    ];
    let cards: Vec<String> = new_dirs.iter().map(|p| s(&p.join("card.json"))).collect();
    let new_group = s(&d.join("new.json"));
    let o = run(&[
        "mpc",
        "group",
        "--threshold",
        "2",
        "--cards",
        &cards.join(","),
        "--out",
        &new_group,
    ]);
    assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    let old_share = share_of(&old_dirs[0]);
    let keys = s(&keys);
    let children = new_dirs
        .iter()
        .enumerate()
        .map(|(i, dir)| {
            let mut more = vec!["--from", &old_group, "--to", &new_group, "--session", "m1"];
            if i % 2 == 0 {
                more.extend(["--keys", keys.as_str()]);
            }
            party_verb("reshare", dir, &more)
        })
        .collect();
    all_finish("reshare", children, "new share of the same group key");
    assert!(!old_share.exists(), "a holder's old share is deleted");
    let o = sign_by(
        &d,
        &[&new_dirs[0], &new_dirs[2], &new_dirs[3]],
        &new_group,
        "n0,n1,r1",
        "moved",
    );
    assert!(o.iter().all(|o| code(o) == 0), "{}", common::stderr(&o[0]));
    assert!(verifies(&d, &pk, "moved", 0) && verifies(&d, &pk, "moved", 2));
}
