//! `alibi relay serve` over TLS, end to end through OS processes: the relay on a certificate of
//! a test CA, `alibi relay bench` trusting that CA file; refused without it; bad files exit 2.

use crate::common;

use std::ffi::OsString;

use alibi_testkit::pki::test_pki;
use common::relay_process::RelayProcess;
use common::{alibi, code, path, stderr, stdout};

/// A fresh test PKI written to `dir`: the CA's, the relay's certificate's and its key's paths.
fn pki_files(dir: &std::path::Path) -> (String, String, String) {
    let pki = test_pki();
    let files = (
        path(dir, "ca.pem"),
        path(dir, "relay.pem"),
        path(dir, "relay.key"),
    );
    std::fs::write(&files.0, &pki.ca).unwrap();
    std::fs::write(&files.1, &pki.cert).unwrap();
    std::fs::write(&files.2, &pki.key).unwrap();
    files
}

#[test]
fn a_relay_over_tls_serves_clients_that_trust_its_ca() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = pki_files(dir.path());
    let args: Vec<OsString> = [
        "--db",
        &path(dir.path(), "relay.redb"),
        "--tls-cert",
        &cert,
        "--tls-key",
        &key,
        "--log-level",
        "debug",
    ]
    .iter()
    .map(Into::into)
    .collect();
    // The relay's log (a failed handshake is logged at debug) goes to a file, shown if a bench
    // fails: this test once saw its first connection reset, cause unknown.
    let log_path = dir.path().join("relay.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let relay = RelayProcess::start_logging(0, &args, log);
    assert!(relay.url.starts_with("https://127.0.0.1:"), "{}", relay.url);
    let relay_log = || std::fs::read_to_string(&log_path).unwrap_or_default();

    let bench = |extra: &[&str]| {
        let mut a = vec![
            "relay",
            "bench",
            "--url",
            &relay.url,
            "--pairs",
            "2",
            "--messages",
            "200",
            "--recipients",
            "3",
            "--sends",
            "2",
        ];
        a.extend_from_slice(extra);
        alibi(&a)
    };
    let ok = bench(&["--ca", &ca]);
    assert_eq!(
        code(&ok),
        0,
        "{}\nthe relay's log:\n{}",
        stderr(&ok),
        relay_log()
    );
    assert!(
        stdout(&ok).contains("| 1:1, 2 pairs | 200 |"),
        "{}",
        stdout(&ok)
    );

    // Without the CA the client trusts the public roots only, which did not issue this one.
    let untrusted = bench(&[]);
    assert_eq!(code(&untrusted), 2);
    assert!(
        stderr(&untrusted).contains("certificate"),
        "{}",
        stderr(&untrusted)
    );
}

#[test]
fn bad_tls_files_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (_, cert, key) = pki_files(dir.path());
    let junk = path(dir.path(), "junk");
    std::fs::write(&junk, "not pem").unwrap();
    let db = path(dir.path(), "r.redb");
    // `alibi relay serve` on the test's store with `extra` arguments.
    let serve = |extra: &[&str]| {
        let mut a = vec!["relay", "serve", "--listen", "127.0.0.1:0", "--db", &db];
        a.extend_from_slice(extra);
        alibi(&a)
    };
    for (c, k) in [(&junk, &key), (&cert, &junk), (&key, &cert)] {
        let o = serve(&["--tls-cert", c, "--tls-key", k]);
        assert_eq!(code(&o), 2, "{}", stderr(&o));
    }
    // One without the other is refused by the parser, and so is an unknown log level.
    let o = serve(&["--tls-cert", &cert]);
    assert_eq!(code(&o), 2);
    let o = serve(&["--log-level", "loud"]);
    assert_eq!(code(&o), 2);
}
