//! `alibi relay serve` as a separate OS process: started on a store, its URL read from the line
//! it prints, stopped with SIGKILL or SIGTERM.

use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A running relay process.
pub struct RelayProcess {
    child: Child,
    /// Its base URL, as it printed it.
    pub url: String,
    /// Its port.
    pub port: u16,
}

impl RelayProcess {
    /// Starts `alibi relay serve --listen 127.0.0.1:PORT` (0 for any) with `args` (the store and
    /// anything else), and returns once it has printed where it listens.
    pub fn start(port: u16, args: &[OsString]) -> Self {
        Self::start_logging(port, args, Stdio::inherit())
    }

    /// [`Self::start`] with the relay's log (its stderr) going to `log`.
    pub fn start_logging(port: u16, args: &[OsString], log: impl Into<Stdio>) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_alibi"))
            .args(["relay", "serve", "--listen", &format!("127.0.0.1:{port}")])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("start alibi relay serve");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            if let Some(Ok(first)) = lines.next() {
                let _ = tx.send(first);
            }
            for _ in lines {}
        });
        let Ok(line) = rx.recv_timeout(Duration::from_secs(30)) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the relay did not start");
        };
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://") || w.starts_with("https://"))
            .unwrap_or_else(|| panic!("no URL in {line:?}"))
            .to_string();
        let port = url.rsplit(':').next().unwrap().parse().unwrap();
        Self { child, url, port }
    }

    /// SIGKILL, and waits for the process to be gone.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM; the exit status, within `limit`.
    pub fn terminate(&mut self, limit: Duration) -> ExitStatus {
        super::sigterm(self.child.id());
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                start.elapsed() < limit,
                "the relay did not stop within {limit:?} of SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for RelayProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Arguments of a relay on PostgreSQL at `url`, its trust root in `root` (nodes of one
/// deployment share it), its mailboxes sized for a load of 10,000 messages and retries.
pub fn postgres_args(url: &str, root: &std::path::Path) -> Vec<OsString> {
    vec![
        "--postgres".into(),
        url.into(),
        "--trust-root".into(),
        root.into(),
        "--mailbox-messages".into(),
        "20000".into(),
        "--log-level".into(),
        "warn".into(),
    ]
}

/// A sender and its receiver, registered (the receiver with registration id 2).
pub async fn pair(
    sender: alibi_messenger::Endpoint,
    receiver: alibi_messenger::Endpoint,
) -> (alibi_messenger::RelayClient, alibi_messenger::RelayClient) {
    use alibi_messenger::RelayClient;
    let id = || {
        alibi_identity::IdentityKeyPair::generate(&mut rand_core::UnwrapErr(getrandom::SysRng))
            .identity
            .serialize()
            .to_vec()
    };
    let s = RelayClient::register(sender, &id(), 1, "sender-device-secret-01")
        .await
        .expect("register the sender");
    let r = RelayClient::register(receiver, &id(), 2, "receiver-device-secret-1")
        .await
        .expect("register the receiver");
    (s, r)
}

/// What a load came to: the ids the relay answered 2xx for, and how often each id arrived.
pub struct Outcome {
    /// Ids of sends the relay accepted.
    pub acked: std::collections::HashSet<u64>,
    /// Per id: how many times a receiver got it.
    pub received: std::collections::HashMap<u64, u32>,
}

/// Something to do once this many sends were accepted (kill a node, restart it).
pub type Action = (usize, Box<dyn FnOnce() + Send>);

/// Sends ids `0..total` over 16 lanes, id i from pair i mod n's sender to its receiver, retrying a
/// send until the relay accepts it; the receivers take and acknowledge what comes meanwhile.
/// `actions` run as the accepted count passes their thresholds. Returns once every accepted id
/// has arrived (or after 60 s, with what arrived).
pub async fn load(
    pairs: &[(alibi_messenger::RelayClient, alibi_messenger::RelayClient)],
    total: u64,
    actions: Vec<Action>,
) -> Outcome {
    use alibi_relay_api::messages::OutgoingMessage;
    use std::collections::{HashMap, HashSet};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};

    let acked = Arc::new(Mutex::new(HashSet::new()));
    let received: Arc<Mutex<HashMap<u64, u32>>> = Arc::default();
    let mut receivers = vec![];
    for (_, r) in pairs {
        let mut rx = r.receive();
        let received = received.clone();
        receivers.push(tokio::spawn(async move {
            while let Some(env) = rx.next().await {
                if let Some(id) = env.content().get(..8) {
                    let id = u64::from_be_bytes(id.try_into().unwrap());
                    let mut got = received.lock().unwrap();
                    let n = got.entry(id).or_default();
                    *n += 1;
                    if *n > 1 && std::env::var("ALIBI_DEBUG_LOAD").is_ok() {
                        eprintln!("again {id}: {:?} at {:?}", env.server_guid, Instant::now());
                    }
                }
                rx.ack(&env);
            }
        }));
    }
    let next = Arc::new(AtomicU64::new(0));
    let mut lanes = vec![];
    for _ in 0..16 {
        let (acked, next) = (acked.clone(), next.clone());
        let pairs: Vec<_> = pairs.iter().map(|(s, r)| (s.clone(), r.account)).collect();
        lanes.push(tokio::spawn(async move {
            loop {
                let id = next.fetch_add(1, Ordering::SeqCst);
                if id >= total {
                    return;
                }
                let (sender, to) = &pairs[(id % pairs.len() as u64) as usize];
                loop {
                    let m = OutgoingMessage {
                        kind: 1,
                        destination_device_id: 1,
                        destination_registration_id: 2,
                        content: id.to_be_bytes().to_vec(),
                    };
                    match sender.send(*to, vec![m]).await {
                        Ok(Ok(())) => {
                            acked.lock().unwrap().insert(id);
                            break;
                        }
                        e => {
                            if std::env::var("ALIBI_DEBUG_LOAD").is_ok() {
                                eprintln!("send {id}: {e:?}");
                            }
                        }
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }));
    }
    for (at, action) in actions {
        while acked.lock().unwrap().len() < at {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        tokio::task::spawn_blocking(action).await.unwrap();
    }
    for l in lanes {
        l.await.unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        let all = {
            let got = received.lock().unwrap();
            acked.iter().all(|id| got.contains_key(id))
        };
        if all {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A moment more, for anything delivered twice to show.
    tokio::time::sleep(Duration::from_millis(300)).await;
    for r in receivers {
        r.abort();
    }
    let received = received.lock().unwrap().clone();
    Outcome { acked, received }
}

impl Outcome {
    /// Panics unless every accepted id arrived; returns how many arrived more than once.
    pub fn none_lost(&self, total: u64) -> usize {
        assert_eq!(self.acked.len() as u64, total, "every send was accepted");
        let lost: Vec<_> = self
            .acked
            .iter()
            .filter(|id| !self.received.contains_key(id))
            .collect();
        assert!(
            lost.is_empty(),
            "{} accepted messages never arrived, e.g. {:?}",
            lost.len(),
            &lost[..lost.len().min(5)]
        );
        self.received.values().filter(|&&n| n > 1).count()
    }
}
