//! The relay as an operator runs it, through OS processes: `serve --config` and `check-config`
//! (the annotated example of docs/relay.md checks and serves; every broken file is refused with
//! exit 2 naming its key; a flag wins over the file), `--log-format json` (one object a line,
//! each line of a request with its id, no password or message body), `backup` of a running
//! relay and its restore, and the systemd unit.

use crate::common;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

use alibi_testkit::pki::test_pki;
use common::relay_process::{pair, RelayProcess};
use common::{alibi, code, path, stderr, stdout};

/// The TOML block of docs/relay.md's "Configuration" section.
fn documented_example() -> String {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/relay.md"))
        .expect("docs/relay.md");
    let section = doc
        .split("## Configuration")
        .nth(1)
        .expect("a Configuration section");
    let block = section
        .split("```toml\n")
        .nth(1)
        .expect("a toml block in it");
    block.split("```").next().expect("its end").to_string()
}

/// The documented example with its directories moved under `dir` (and the files it names made):
/// the settings file's path.
fn example_in(dir: &Path) -> String {
    let (etc, var) = (dir.join("etc"), dir.join("var"));
    std::fs::create_dir_all(&etc).unwrap();
    std::fs::create_dir_all(&var).unwrap();
    let text = documented_example()
        .replace("/etc/alibi-relay/", &format!("{}/", etc.display()))
        .replace("/var/lib/alibi-relay/", &format!("{}/", var.display()));
    let pki = test_pki();
    std::fs::write(etc.join("relay-chain.pem"), &pki.cert).unwrap();
    std::fs::write(etc.join("relay-key.pem"), &pki.key).unwrap();
    std::fs::write(dir.join("ca.pem"), &pki.ca).unwrap();
    let file = etc.join("relay.toml");
    std::fs::write(&file, text).unwrap();
    file.display().to_string()
}

#[test]
fn the_documented_example_is_checked_and_served() {
    let dir = tempfile::tempdir().unwrap();
    let file = example_in(dir.path());
    let o = alibi(&["relay", "check-config", &file]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains(": ok (listen 0.0.0.0:8443, store redb"),
        "{}",
        stdout(&o)
    );
    let o = alibi(&["relay", "check-config", &file, "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(
        (v["ok"].as_bool(), v["tls"].as_bool()),
        (Some(true), Some(true))
    );

    // Served as written (the test's --listen replacing the file's port 8443).
    let log_path = dir.path().join("relay.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let args: Vec<OsString> = vec!["--config".into(), file.into()];
    let mut relay = RelayProcess::start_logging(0, &args, log);
    assert!(relay.url.starts_with("https://127.0.0.1:"), "{}", relay.url);
    let ca = path(dir.path(), "ca.pem");
    let a = [
        "relay",
        "bench",
        "--url",
        &relay.url,
        "--ca",
        &ca,
        "--pairs",
        "2",
        "--messages",
        "100",
        "--recipients",
        "2",
        "--sends",
        "2",
    ];
    let ok = alibi(&a);
    let relay_log = std::fs::read_to_string(&log_path).unwrap_or_default();
    assert_eq!(
        code(&ok),
        0,
        "{}\nthe relay's log:\n{relay_log}",
        stderr(&ok)
    );
    assert!(relay.terminate(Duration::from_secs(20)).success());
    // The trust root was created where the file said, owner-only.
    assert_eq!(
        common::mode(&path(&dir.path().join("var"), "trust-root")) & 0o777,
        0o600
    );
}

/// A settings file in `dir` holding `text`.
fn settings(dir: &Path, text: &str) -> String {
    let f = dir.join("relay.toml");
    std::fs::write(&f, text).unwrap();
    f.display().to_string()
}

#[test]
fn check_config_refuses_every_broken_file_naming_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = test_pki();
    std::fs::write(d.join("cert.pem"), &pki.cert).unwrap();
    std::fs::write(d.join("junk.pem"), "not pem").unwrap();
    std::fs::write(d.join("short-root"), [7u8; 31]).unwrap();
    let ok = "listen = \"127.0.0.1:0\"\ndb = \"relay.redb\"\n";
    let pg = "listen = \"127.0.0.1:0\"\ntrust-root = \"root\"\n";
    let broken: Vec<(String, &str)> = vec![
        (format!("{ok}max-conections = 5\n"), "max-conections"),
        (format!("{ok}[limits]\nrate = 5\n"), "limits"),
        (
            format!("{ok}max-connections = \"many\"\n"),
            "max-connections",
        ),
        (format!("{ok}max-connections = -1\n"), "max-connections"),
        (
            format!("{ok}max-connections = 0\n"),
            "max-connections: at least 1",
        ),
        (
            format!("{ok}idle-timeout = 0\n"),
            "idle-timeout: at least 1",
        ),
        (
            format!("{ok}account-creations = \"lots\"\n"),
            "account-creations",
        ),
        (
            format!("{ok}account-creations = \"0,1\"\n"),
            "account-creations",
        ),
        (format!("{ok}rate = 0\n"), "rate: a positive number"),
        (format!("{ok}expiry-days = 100000\n"), "expiry-days"),
        (format!("{ok}mailbox-mib = 100000000\n"), "mailbox-mib"),
        (format!("{ok}log-level = \"loud\"\n"), "log-level"),
        (format!("{ok}log-format = \"xml\"\n"), "log-format"),
        (format!("{ok}listen = \"127.0.0.1:1\"\n"), "listen"),
        ("listen = \n".into(), "line 1"),
        (
            format!("{ok}postgres = \"host=/tmp dbname=relay\"\n"),
            "postgres",
        ),
        ("listen = \"127.0.0.1:0\"\n".into(), "db or postgres"),
        ("db = \"relay.redb\"\n".into(), "listen"),
        (
            "listen = \"127.0.0.1\"\ndb = \"relay.redb\"\n".into(),
            "listen",
        ),
        (
            format!("{pg}postgres = \"host=/tmp dbname=relay password=hunter2\"\n"),
            "postgres",
        ),
        (
            format!("{pg}postgres = \"postgresql://relay:hunter2@localhost/relay\"\n"),
            "postgres",
        ),
        (
            "listen = \"127.0.0.1:0\"\npostgres = \"host=/tmp dbname=r\"\n".into(),
            "trust-root",
        ),
        (
            format!("{pg}postgres = \"host=/tmp\"\npostgres-password-file = \"none\"\n"),
            "postgres-password-file",
        ),
        (format!("{ok}tls-cert = \"cert.pem\"\n"), "tls-cert"),
        (format!("{ok}tls-key = \"cert.pem\"\n"), "tls-key"),
        (
            format!("{ok}tls-cert = \"missing.pem\"\ntls-key = \"junk.pem\"\n"),
            "tls-cert",
        ),
        (
            format!("{ok}tls-cert = \"cert.pem\"\ntls-key = \"junk.pem\"\n"),
            "tls-key",
        ),
        (format!("{ok}trust-root = \"short-root\"\n"), "trust-root"),
        (
            format!("{ok}trust-root = \"no/such/dir/root\"\n"),
            "trust-root",
        ),
        (
            "listen = \"127.0.0.1:0\"\ndb = \"no/such/dir/relay.redb\"\n".into(),
            "db",
        ),
    ];
    for (text, key) in &broken {
        let f = settings(d, text);
        let o = alibi(&["relay", "check-config", &f]);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "accepted:\n{text}\n{err}");
        assert!(
            err.contains("relay.toml"),
            "no file named for\n{text}\n{err}"
        );
        assert!(err.contains(key), "'{key}' not named for\n{text}\n{err}");
        assert!(!err.contains("hunter2"), "the password echoed: {err}");
    }
    // The same file refused by `serve`, before anything is created.
    let f = settings(d, &broken[4].0);
    let o = alibi(&["relay", "serve", "--config", &f]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("relay.toml: max-connections: at least 1"),
        "{}",
        stderr(&o)
    );
    assert!(!d.join("relay.redb").exists());
    let o = alibi(&["relay", "check-config", &path(d, "missing.toml")]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

#[test]
fn a_flag_given_on_the_command_line_wins_over_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = settings(
        dir.path(),
        "listen = \"127.0.0.1:1\"\ndb = \"relay.redb\"\nmax-connections = 0\n",
    );
    // The file alone: refused, naming its key.
    let o = alibi(&["relay", "serve", "--config", &f]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("max-connections"), "{}", stderr(&o));
    // With the flag: the relay starts (on the flag's listen address too), its store where the
    // file said, relative to the file.
    let args: Vec<OsString> = ["--config", &f, "--max-connections", "10"]
        .iter()
        .map(Into::into)
        .collect();
    let mut relay = RelayProcess::start(0, &args);
    assert!(relay.port != 1);
    assert!(dir.path().join("relay.redb").exists());
    assert!(relay.terminate(Duration::from_secs(20)).success());
}

/// `GET path` on a plain HTTP relay at `port`: the whole answer, head and body.
fn http_get(port: u16, path: &str) -> String {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    answer
}

#[test]
fn json_logs_carry_request_ids_and_no_secret() {
    use alibi_relay_api::messages::OutgoingMessage;
    const BODY: &[u8] = b"message-body-canary-5c1f";
    let dir = tempfile::tempdir().unwrap();
    let f = settings(dir.path(), "db = \"relay.redb\"\nlog-format = \"json\"\n");
    let log_path = dir.path().join("relay.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let args: Vec<OsString> = ["--config", &f, "--log-level", "trace"]
        .iter()
        .map(Into::into)
        .collect();
    let mut relay = RelayProcess::start_logging(0, &args, log);
    let url = relay.url.clone();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let e = || alibi_messenger::Endpoint::new(&url);
        let (s, r) = pair(e(), e()).await;
        let m = OutgoingMessage {
            kind: 1,
            destination_device_id: 1,
            destination_registration_id: 2,
            content: BODY.to_vec(),
        };
        s.send(r.account, vec![m]).await.unwrap().unwrap();
        let mut rx = r.receive();
        let env = tokio::time::timeout(Duration::from_secs(20), rx.next())
            .await
            .expect("delivered in time")
            .expect("delivered");
        assert_eq!(env.content(), BODY);
        rx.ack(&env);
        tokio::time::sleep(Duration::from_millis(300)).await;
    });
    let health = http_get(relay.port, "/health");
    let id = health
        .lines()
        .find_map(|l| l.strip_prefix("x-request-id: "))
        .expect("an x-request-id header")
        .trim()
        .to_string();
    assert!(health.ends_with("ok\n"), "{health}");
    assert!(http_get(relay.port, "/health/live").ends_with("alive\n"));
    assert!(relay.terminate(Duration::from_secs(20)).success());

    let log = std::fs::read_to_string(&log_path).unwrap();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    for l in &lines {
        for field in ["timestamp", "level", "target"] {
            assert!(l.get(field).is_some(), "no {field}: {l}");
        }
    }
    // The /health request's line carries the id it was answered with.
    assert!(
        lines.iter().any(|l| l["span"]["id"] == id.as_str()
            && l["message"] == "request"
            && l["route"] == "/health"),
        "no line of request {id} in\n{log}"
    );
    // Every request's line has an id.
    let requests: Vec<_> = lines.iter().filter(|l| l["message"] == "request").collect();
    assert!(requests.len() >= 5, "{log}");
    assert!(requests
        .iter()
        .all(|l| l["span"]["id"].as_str().is_some_and(|s| s.len() == 16)));
    let b64 = |b: &[u8]| base64::Engine::encode(&base64::engine::general_purpose::STANDARD, b);
    for secret in [
        "sender-device-secret-01".as_bytes(),
        b"receiver-device-secret-1",
        BODY,
    ] {
        let text = String::from_utf8_lossy(secret);
        assert!(!log.contains(&*text), "'{text}' in the log");
        assert!(!log.contains(&b64(secret)), "'{text}' in base64 in the log");
        assert!(
            !log.contains(&hex::encode(secret)),
            "'{text}' in hex in the log"
        );
    }
}

#[test]
fn the_systemd_unit_verifies_and_fits_the_connection_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let unit = std::fs::read_to_string(root.join("deploy/alibi-relay.service")).unwrap();
    let nofile: usize = unit
        .lines()
        .find_map(|l| l.strip_prefix("LimitNOFILE="))
        .expect("LimitNOFILE")
        .parse()
        .unwrap();
    let connections = alibi_relay::server::Config::default().max_connections;
    assert!(
        nofile >= connections + 64,
        "LimitNOFILE={nofile} for {connections} connections"
    );
    for needed in [
        "User=alibi-relay",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "StateDirectory=alibi-relay",
        "ExecStart=/usr/local/bin/alibi relay serve --config /etc/alibi-relay/relay.toml",
    ] {
        assert!(
            unit.lines().any(|l| l == needed),
            "no '{needed}' in the unit"
        );
    }
    if std::process::Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        alibi_testkit::skip("systemd-analyze is not installed: the unit is not verified");
        return;
    }
    // verify checks that the binary exists: the one built for these tests stands in.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("alibi-relay.service");
    std::fs::write(
        &file,
        unit.replace("/usr/local/bin/alibi", env!("CARGO_BIN_EXE_alibi")),
    )
    .unwrap();
    let o = std::process::Command::new("systemd-analyze")
        .arg("verify")
        .arg(&file)
        .output()
        .unwrap();
    // An unknown or misspelt setting is only a warning: none is accepted.
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && said.trim().is_empty(),
        "systemd-analyze verify:\n{said}"
    );
}

/// Sends `texts` from `s` to `r` (device 1, registration id 2).
async fn send_all(
    s: &alibi_messenger::RelayClient,
    r: &alibi_messenger::RelayClient,
    texts: &[&str],
) {
    use alibi_relay_api::messages::OutgoingMessage;
    for t in texts {
        let m = OutgoingMessage {
            kind: 1,
            destination_device_id: 1,
            destination_registration_id: 2,
            content: t.as_bytes().to_vec(),
        };
        s.send(r.account, vec![m]).await.unwrap().unwrap();
    }
}

/// What reaches `r` at `url` until two seconds pass with nothing, acknowledged.
async fn received(url: &str, r: &alibi_messenger::RelayClient) -> Vec<String> {
    received_by(url, r.account, 1, "receiver-device-secret-1").await
}

/// What reaches device `device` of `account` at `url` until two seconds pass with nothing,
/// acknowledged.
async fn received_by(url: &str, account: uuid::Uuid, device: u8, password: &str) -> Vec<String> {
    let me = alibi_messenger::RelayClient::existing(url, account, device, password);
    let mut rx = me.receive();
    let mut got = vec![];
    while let Ok(Some(env)) = tokio::time::timeout(Duration::from_secs(2), rx.next()).await {
        got.push(String::from_utf8_lossy(env.content()).into_owned());
        rx.ack(&env);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    got
}

#[test]
fn a_running_relay_is_backed_up_and_the_copy_restores_its_mail() {
    let dir = tempfile::tempdir().unwrap();
    let db = path(dir.path(), "relay.redb");
    let args: Vec<OsString> = vec!["--db".into(), db.clone().into()];
    let mut relay = RelayProcess::start(0, &args);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let e = |u: &str| alibi_messenger::Endpoint::new(u);
    let (s, r) = rt.block_on(pair(e(&relay.url), e(&relay.url)));
    rt.block_on(send_all(&s, &r, &["one", "two", "three"]));
    let snap = path(dir.path(), "snap.redb");
    let o = alibi(&["relay", "backup", "--db", &db, "--out", &snap]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("by the running relay"),
        "{}",
        stdout(&o)
    );
    assert_eq!(common::mode(&snap) & 0o777, 0o600);
    // Never over a file.
    let o = alibi(&["relay", "backup", "--db", &db, "--out", &snap, "--json"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    // Mail after the copy is not in it.
    rt.block_on(send_all(&s, &r, &["four"]));
    assert!(relay.terminate(Duration::from_secs(20)).success());
    assert!(
        !Path::new(&format!("{db}.control")).exists(),
        "the control socket stayed"
    );

    // Restored: the copy in a store's place, a relay on it.
    let restored = tempfile::tempdir().unwrap();
    let db2 = path(restored.path(), "relay.redb");
    std::fs::copy(&snap, &db2).unwrap();
    let args: Vec<OsString> = vec!["--db".into(), db2.clone().into()];
    let mut relay = RelayProcess::start(0, &args);
    let got = rt.block_on(received(&relay.url, &r));
    assert_eq!(got, ["one", "two", "three"]);
    assert!(relay.terminate(Duration::from_secs(20)).success());
    // A store no relay has open is copied from its file.
    let snap2 = path(dir.path(), "snap2.redb");
    let o = alibi(&["relay", "backup", "--db", &db2, "--out", &snap2, "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["from_running_relay"], false);
}

/// What each fixture device receives at its node (`urls[i % n]`), added to `got`.
fn take(
    rt: &tokio::runtime::Runtime,
    devices: &[alibi_testkit::relay_fixture::Device],
    urls: &[&str],
    got: &mut [Vec<String>],
) {
    for (i, d) in devices.iter().enumerate() {
        let url = urls[i % urls.len()];
        got[i].extend(rt.block_on(received_by(url, d.account, d.device, &d.password)));
    }
}

#[test]
fn a_redb_store_of_the_last_release_delivers_its_mail_once_across_sigterm() {
    use alibi_testkit::relay_fixture as fixture;
    let devices = fixture::devices("redb");
    let dir = tempfile::tempdir().unwrap();
    let db = path(dir.path(), "relay.redb");
    std::fs::copy(fixture::path("redb"), &db).unwrap();
    let args: Vec<OsString> = vec!["--db".into(), db.into()];
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut got = vec![vec![]; devices.len()];
    // The new binary upgrades the store; alice.1 takes its mail; SIGTERM; the rest after.
    let mut relay = RelayProcess::start(0, &args);
    let d = &devices[0];
    got[0] = rt.block_on(received_by(&relay.url, d.account, d.device, &d.password));
    assert!(relay.terminate(Duration::from_secs(20)).success());
    let mut relay = RelayProcess::start(0, &args);
    take(&rt, &devices, &[&relay.url], &mut got);
    assert!(relay.terminate(Duration::from_secs(20)).success());
    for (d, got) in devices.iter().zip(&got) {
        assert_eq!(got, &d.waiting, "{}", d.name);
    }
}

#[test]
fn a_postgres_database_of_the_last_release_serves_two_new_nodes_without_loss() {
    use alibi_testkit::relay_fixture as fixture;
    let rt = tokio::runtime::Runtime::new().unwrap();
    let Some(url) = rt.block_on(alibi_testkit::postgres::fresh_postgres()) else {
        return;
    };
    let dump = std::fs::read_to_string(fixture::path("pgdump.sql")).unwrap();
    rt.block_on(alibi_testkit::postgres::restore(&url, &dump));
    let dir = tempfile::tempdir().unwrap();
    let args = common::relay_process::postgres_args(&url, &dir.path().join("trust-root"));
    let devices = fixture::devices("pgdump");
    let mut got = vec![vec![]; devices.len()];
    let mut a = RelayProcess::start(0, &args);
    let mut b = RelayProcess::start(0, &args);
    // bob.1 on node a takes its mail; node a stops (SIGTERM) and comes back; then every device.
    let bob = &devices[2];
    got[2] = rt.block_on(received_by(&a.url, bob.account, bob.device, &bob.password));
    assert!(a.terminate(Duration::from_secs(20)).success());
    let mut a = RelayProcess::start(0, &args);
    take(&rt, &devices, &[&a.url, &b.url], &mut got);
    for (d, got) in devices.iter().zip(&got) {
        assert_eq!(got, &d.waiting, "{}", d.name);
    }
    assert!(a.terminate(Duration::from_secs(20)).success());
    assert!(b.terminate(Duration::from_secs(20)).success());
}
