//! MPC parties and relays as separate OS processes: what the `alibi mpc` tests share.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use super::code;

pub const PASS: &str = "correct horse battery staple";

/// A relay process on a free port; killed when dropped.
pub struct Relay {
    /// The relay process.
    pub child: Child,
    /// Its URL.
    pub url: String,
    /// Its trust root, base64.
    pub trust_root: String,
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn relay(dir: &Path) -> Relay {
    relay_with(dir, &[])
}

/// A relay process on a free port with more `relay serve` arguments (its limits, say).
pub fn relay_with(dir: &Path, more: &[&str]) -> Relay {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    relay_on_with(&dir.join("relay.redb"), port, more)
}

/// A relay process on `port` with its database at `db` (to restart one where it was).
pub fn relay_on(db: &Path, port: u16) -> Relay {
    relay_on_with(db, port, &[])
}

fn relay_on_with(db: &Path, port: u16, more: &[&str]) -> Relay {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_alibi"))
        .args([
            "relay",
            "serve",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--db",
        ])
        .arg(db)
        .args(more)
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

pub fn party_cmd(args: &[&str], pass: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_alibi"));
    c.args(args).env("ALIBI_PASSPHRASE", pass);
    c
}

pub fn run(args: &[&str]) -> Output {
    party_cmd(args, PASS).output().unwrap()
}

pub fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// Registers parties `names` on the relay and writes the group file; returns their dirs.
pub fn setup(d: &Path, relay: &Relay, names: &[&str], t: usize) -> (Vec<PathBuf>, String) {
    setup_at(d, &relay.url, &relay.trust_root, names, t)
}

/// As [`setup`], the parties registering through `url` (a proxy, say) and pinning `trust_root`.
pub fn setup_at(
    d: &Path,
    url: &str,
    trust_root: &str,
    names: &[&str],
    t: usize,
) -> (Vec<PathBuf>, String) {
    let with_urls: Vec<(&str, &str)> = names.iter().map(|n| (*n, url)).collect();
    setup_each(d, trust_root, &with_urls, t)
}

/// As [`setup_at`], each party with its own relay URL: `(name, url)`.
pub fn setup_each(
    d: &Path,
    trust_root: &str,
    parties: &[(&str, &str)],
    t: usize,
) -> (Vec<PathBuf>, String) {
    let mut dirs = vec![];
    for (n, url) in parties {
        let dir = d.join(n);
        let o = run(&[
            "mpc",
            "init",
            "--dir",
            &s(&dir),
            "--relay",
            url,
            "--name",
            n,
            "--trust-root",
            trust_root,
        ]);
        assert_eq!(code(&o), 0, "{}", super::stderr(&o));
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
    assert_eq!(code(&o), 0, "{}", super::stderr(&o));
    (dirs, group)
}

pub fn keygen(dir: &Path, group: &str, pk: &Path, timeout: &str) -> Child {
    keygen_with(dir, group, pk, timeout, &[])
}

/// A keygen process with more arguments.
pub fn keygen_with(dir: &Path, group: &str, pk: &Path, timeout: &str, more: &[&str]) -> Child {
    let mut args = vec![
        "mpc".to_string(),
        "keygen".into(),
        "--dir".into(),
        s(dir),
        "--group".into(),
        group.into(),
        "--pk-out".into(),
        s(pk),
        "--timeout-s".into(),
        timeout.into(),
    ];
    args.extend(more.iter().map(|a| a.to_string()));
    spawn_party(&args)
}

/// A signing party: `mpc sign` in `dir` of `msg` under `session`, writing `out`, with `more`.
pub fn sign_with(
    dir: &Path,
    group: &str,
    (msg, session): (&Path, &str),
    out: &Path,
    more: &[&str],
) -> Child {
    let mut args: Vec<String> = [
        "mpc",
        "sign",
        "--dir",
        &s(dir),
        "--group",
        group,
        "--msg",
        &s(msg),
        "--session",
        session,
        "--out",
        &s(out),
    ]
    .map(String::from)
    .to_vec();
    args.extend(more.iter().map(|a| a.to_string()));
    spawn_party(&args)
}

/// Every party's output, in order, once all have ended.
pub fn wait_all(children: Vec<Child>) -> Vec<Output> {
    children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect()
}

/// A party process with these arguments, its output piped.
pub fn spawn_party(args: &[String]) -> Child {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    party_cmd(&args, PASS)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}
