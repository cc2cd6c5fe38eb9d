//! `alibi relay bench`: N clients (the messenger's relay client) over loopback against a relay,
//! 1:1 and multi-recipient sends;
//! messages per second and delivery latency percentiles. A [`Load`] names the scenarios, [`start`]
//! runs the measured relay in this process when there is no remote one, [`measure`] gives a
//! scenario's [`Row`] ([`measure_reporting`] also says, while it lasts, what it waits for), and
//! [`head`] and [`Row::markdown`] print the table row by row.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use alibi_identity::{IdentityKeyPair, PrivateKey};
use alibi_sealed_sender::v2::{self, Recipient};
use alibi_sealed_sender::{
    ContentType, SenderCertificate, ServerCertificate, ServiceId, UnidentifiedSenderMessageContent,
};
use getrandom::SysRng;
use rand_core::{Rng, UnwrapErr};
use tokio::sync::Mutex;

use alibi_messenger::relay::{Endpoint, RelayClient};
use alibi_relay::local::LocalRelay;
use alibi_relay::server::{AddressLimits, Config, Rate};
use alibi_relay::store::RelayStore;
use alibi_relay_api::access::{combine, derive_access_key, AccessKey};
use alibi_relay_api::messages::OutgoingMessage;

use crate::table::{self, Cell};
use crate::Error;

type Result<T> = std::result::Result<T, Error>;

/// What to measure.
#[derive(Clone, Debug)]
pub struct Load {
    /// Sender/receiver pairs of the 1:1 scenario.
    pub pairs: usize,
    /// Messages of the 1:1 scenario, split among the pairs.
    pub messages: usize,
    /// Recipient counts of the multi-recipient scenarios.
    pub recipients: Vec<usize>,
    /// Sends per multi-recipient scenario.
    pub sends: usize,
}

/// One scenario of a [`Load`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// [`one_to_one`], 8 requests in flight per sender.
    OneToOne {
        /// Pairs.
        pairs: usize,
        /// Messages each sender sends.
        per_sender: usize,
    },
    /// [`multi_recipient`] to the first node.
    MultiRecipient {
        /// Recipients of each send.
        recipients: usize,
        /// Sends.
        sends: usize,
    },
}

impl Load {
    /// Its scenarios, in order: 1:1, then multi-recipient per recipient count. Every count must
    /// be at least 1.
    pub fn scenarios(&self) -> Result<Vec<Scenario>> {
        if self.pairs == 0 || self.messages == 0 || self.sends == 0 || self.recipients.contains(&0)
        {
            return Err(Error::EmptyLoad);
        }
        let mut v = vec![Scenario::OneToOne {
            pairs: self.pairs,
            per_sender: (self.messages / self.pairs).max(1),
        }];
        v.extend(
            self.recipients
                .iter()
                .map(|&recipients| Scenario::MultiRecipient {
                    recipients,
                    sends: self.sends,
                }),
        );
        Ok(v)
    }
}

/// The relay configuration the bench measures: every account is created, and every socket
/// opened, from this one address, and the per-device rate is what is measured; the other limits
/// stay as `alibi relay serve` sets them.
pub fn config() -> Config {
    Config {
        rate_per_device: 1e9,
        max_connections_per_address: usize::MAX,
        per_address: AddressLimits {
            account_creations: Rate::new(u32::MAX, 1e9),
            ..AddressLimits::default()
        },
        ..Config::default()
    }
}

/// A relay in this process with the bench's [`config`], on `store` or a temporary redb store.
pub async fn start(store: Option<Arc<dyn RelayStore>>) -> Result<LocalRelay> {
    let started = match store {
        Some(s) => LocalRelay::start_on(s, config()).await,
        None => LocalRelay::start(config()).await,
    };
    started.map_err(Error::harness)
}

/// Measures one scenario against `nodes` (relays on one store; at least one).
pub async fn measure(nodes: &[Endpoint], scenario: Scenario) -> Result<Row> {
    measure_with(nodes, scenario, &Arc::new(Progress::default())).await
}

/// [`measure`], calling `report` with what the scenario waits for and how far it has come every
/// `every` while it lasts (registering devices can take minutes when the relay limits password
/// checks; a relay that stops delivering keeps the receivers waiting up to [`DELIVERY_PATIENCE`]).
pub async fn measure_reporting(
    nodes: &[Endpoint],
    scenario: Scenario,
    every: Duration,
    report: impl FnMut(String),
) -> Result<Row> {
    let progress = Arc::new(Progress::default());
    reporting(
        measure_with(nodes, scenario, &progress),
        &progress,
        every,
        report,
    )
    .await
}

async fn measure_with(
    nodes: &[Endpoint],
    scenario: Scenario,
    progress: &Arc<Progress>,
) -> Result<Row> {
    match scenario {
        Scenario::OneToOne { pairs, per_sender } => {
            one_to_one_within(nodes, pairs, per_sender, 8, DELIVERY_PATIENCE, progress).await
        }
        Scenario::MultiRecipient { recipients, sends } => {
            let first = nodes.first().ok_or_else(no_node)?;
            multi_recipient_with(first, recipients, sends, progress).await
        }
    }
}

/// How often [`measure_reporting`]'s caller hears of a wait that goes on.
pub const REPORT_EVERY: Duration = Duration::from_secs(5);

/// Runs `run`, calling `report` with `progress` described every `every` until it ends.
async fn reporting<T>(
    run: impl std::future::Future<Output = T>,
    progress: &Progress,
    every: Duration,
    mut report: impl FnMut(String),
) -> T {
    let start = Instant::now();
    tokio::pin!(run);
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    loop {
        tokio::select! {
            out = &mut run => return out,
            _ = ticks.tick() => report(format!(
                "{}, {} s so far",
                progress.describe(),
                start.elapsed().as_secs()
            )),
        }
    }
}

/// How far a scenario has come: its stage and how many of the stage's steps are done.
#[derive(Default)]
struct Progress {
    stage: std::sync::Mutex<Stage>,
    done: AtomicUsize,
}

/// A scenario's stage, with its number of steps.
#[derive(Clone, Copy, Default)]
enum Stage {
    #[default]
    Starting,
    /// Devices registered with the relay (each a password check the relay may rate-limit).
    Registering(usize),
    /// 1:1 messages delivered to their receivers.
    Delivering(usize),
    /// Multi-recipient sends the relay answered.
    Sending(usize),
}

impl Progress {
    fn enter(&self, stage: Stage) {
        *self.stage.lock().unwrap_or_else(|e| e.into_inner()) = stage;
        self.done.store(0, Ordering::Relaxed);
    }

    fn step(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }

    /// The stage and its count, for people.
    fn describe(&self) -> String {
        let done = self.done.load(Ordering::Relaxed);
        match *self.stage.lock().unwrap_or_else(|e| e.into_inner()) {
            Stage::Starting => "starting".into(),
            Stage::Registering(of) => format!(
                "waiting for the relay to register devices: {done} of {of} (each a password \
                 check, which a relay may rate-limit: `alibi relay serve --password-checks`)"
            ),
            Stage::Delivering(of) => {
                format!("waiting for the relay to deliver 1:1 messages: {done} of {of} received")
            }
            Stage::Sending(of) => {
                format!("waiting for the relay to answer multi-recipient sends: {done} of {of}")
            }
        }
    }
}

fn no_node() -> Error {
    relay_error("no relay node to measure".into())
}

/// A relay failure, in the relay client's words.
fn relay_error(m: String) -> Error {
    Error::Messenger(alibi_messenger::Error::Relay(m))
}

/// The columns of the table.
pub const COLUMNS: [&str; 5] = ["scenario", "messages", "messages/s", "p50 (ms)", "p99 (ms)"];

/// The table's heading and rule, to print before its rows.
pub fn head() -> String {
    table::markdown_head(&COLUMNS.map(String::from))
}

/// One row of the table.
#[derive(Clone, Debug)]
pub struct Row {
    /// What was measured.
    pub name: String,
    /// Messages delivered (acknowledged by their recipients).
    pub messages: usize,
    /// Delivered messages per second, first send to last acknowledgement.
    pub per_second: f64,
    /// Median latency in milliseconds (send to receipt; for multi-recipient sends, the request's
    /// round trip, i.e. the server's handling time on loopback).
    pub p50_ms: f64,
    /// 99th percentile latency, in milliseconds.
    pub p99_ms: f64,
}

impl Row {
    /// The row as a line of the Markdown table under [`head`].
    pub fn markdown(&self) -> String {
        table::markdown_row(
            &[
                self.name.clone(),
                self.messages.to_string(),
                format!("{:.0}", self.per_second),
                format!("{:.1}", self.p50_ms),
                format!("{:.1}", self.p99_ms),
            ]
            .map(Cell::from),
        )
    }
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) as f64 * p).round() as usize]
}

async fn register(relay: &Endpoint, i: usize) -> Result<(RelayClient, IdentityKeyPair, AccessKey)> {
    let id = IdentityKeyPair::generate(&mut UnwrapErr(SysRng));
    let reg = (i % 16000 + 1) as u16;
    let c = RelayClient::register(
        relay,
        &id.identity.serialize(),
        reg,
        "bench-device-secret-0000",
    )
    .await?;
    let mut profile_key = [0u8; 32];
    UnwrapErr(SysRng).fill_bytes(&mut profile_key);
    let access_key = derive_access_key(&profile_key);
    c.set_access_key(&access_key).await?;
    Ok((c, id, access_key))
}

/// Microseconds since the Unix epoch: the send time a 1:1 message carries.
fn now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

/// 1:1: `pairs` senders each send `per_sender` messages (100 bytes, a send timestamp inside) to
/// their own receiver, `concurrency` requests in flight per sender; receivers acknowledge each.
/// With several `nodes` (relays on one store), pair i's sender uses node i and its receiver node
/// i + 1 (modulo their number), so every message crosses from one node to another.
pub async fn one_to_one(
    nodes: &[Endpoint],
    pairs: usize,
    per_sender: usize,
    concurrency: usize,
) -> Result<Row> {
    let progress = Arc::new(Progress::default());
    one_to_one_within(
        nodes,
        pairs,
        per_sender,
        concurrency,
        DELIVERY_PATIENCE,
        &progress,
    )
    .await
}

/// How long a 1:1 receiver waits for its next message before the run ends with the shortfall: a
/// relay that accepted every send but delivers nothing more would otherwise keep it waiting for
/// ever, silently. Twice the relay's fallback poll of its store
/// ([`alibi_relay::server::delivery::POLL`]), so that mail a relay finds only by polling still
/// counts.
pub const DELIVERY_PATIENCE: Duration = Duration::from_secs(60);

/// [`one_to_one`], a receiver giving up after `patience` without a message.
async fn one_to_one_within(
    nodes: &[Endpoint],
    pairs: usize,
    per_sender: usize,
    concurrency: usize,
    patience: Duration,
    progress: &Arc<Progress>,
) -> Result<Row> {
    let n = nodes.len();
    if n == 0 {
        return Err(no_node());
    }
    let mut senders = vec![];
    let mut receivers = vec![];
    progress.enter(Stage::Registering(2 * pairs));
    for i in 0..pairs {
        senders.push(register(&nodes[i % n], 2 * i).await?.0);
        progress.step();
        receivers.push(register(&nodes[(i + 1) % n], 2 * i + 1).await?.0);
        progress.step();
    }
    progress.enter(Stage::Delivering(pairs * per_sender));
    let latencies = Arc::new(Mutex::new(Vec::with_capacity(pairs * per_sender)));
    let start = Instant::now();
    let receiving: Vec<_> = receivers
        .iter()
        .map(|r| {
            let (rx, lat, progress) = (r.receive(), latencies.clone(), progress.clone());
            tokio::spawn(receive_timed(rx, per_sender, patience, lat, progress))
        })
        .collect();
    let mut sending = vec![];
    for (i, (s, r)) in senders.iter().zip(&receivers).enumerate() {
        let reg = ((2 * i + 1) % 16000 + 1) as u16;
        for lane in 0..concurrency {
            let count = per_sender / concurrency + usize::from(lane < per_sender % concurrency);
            sending.push(tokio::spawn(send_timed(s.clone(), r.account, reg, count)));
        }
    }
    // A send the relay refused (its rate limits answer 429) would leave its receiver waiting
    // for a message that never comes: the first failure ends the run, with its reason.
    if let Some(e) = first_failure(sending, "sending").await {
        receiving.iter().for_each(|t| t.abort());
        return Err(e);
    }
    // Each receiver gives up after `patience` without a message, with the shortfall.
    if let Some(e) = first_failure(receiving, "receiving").await {
        return Err(e);
    }
    let secs = start.elapsed().as_secs_f64();
    let mut l = latencies.lock().await.clone();
    Ok(Row {
        name: if n == 1 {
            format!("1:1, {pairs} pairs")
        } else {
            format!("1:1, {pairs} pairs across {n} nodes")
        },
        messages: l.len(),
        per_second: l.len() as f64 / secs,
        p50_ms: percentile(&mut l, 0.5),
        p99_ms: percentile(&mut l, 0.99),
    })
}

/// One 1:1 receiver: takes `expected` messages, recording each one's latency from the send time
/// it carries; gives up after `patience` without a message, with the shortfall.
async fn receive_timed(
    mut rx: alibi_messenger::relay::Receiver,
    expected: usize,
    patience: Duration,
    latencies: Arc<Mutex<Vec<f64>>>,
    progress: Arc<Progress>,
) -> Result<()> {
    let mut got = 0;
    while got < expected {
        let Ok(next) = tokio::time::timeout(patience, rx.next()).await else {
            return Err(relay_error(format!(
                "the relay accepted every 1:1 send but delivered {got} of a receiver's \
                 {expected} messages, then none for {} s",
                patience.as_secs()
            )));
        };
        let Some(env) = next else { break };
        let sent = u64::from_be_bytes(
            env.content()
                .get(..8)
                .and_then(|b| b.try_into().ok())
                .unwrap_or([0; 8]),
        );
        latencies
            .lock()
            .await
            .push(now_us().saturating_sub(sent) as f64 / 1e3);
        rx.ack(&env);
        progress.step();
        got += 1;
    }
    Ok(())
}

/// One 1:1 sending lane: `count` messages of 100 bytes to `to` (registration `reg`), one at a
/// time, each carrying its send time.
async fn send_timed(sender: RelayClient, to: uuid::Uuid, reg: u16, count: usize) -> Result<()> {
    for _ in 0..count {
        let mut content = now_us().to_be_bytes().to_vec();
        content.resize(100, 0xAB);
        let m = OutgoingMessage {
            kind: 1,
            destination_device_id: 1,
            destination_registration_id: reg,
            content,
        };
        sender
            .send(to, vec![m])
            .await?
            .map_err(|e| relay_error(format!("the relay refused a 1:1 send ({e})")))?;
    }
    Ok(())
}

/// Waits for every task; the first one's error, if any failed.
async fn first_failure(
    tasks: Vec<tokio::task::JoinHandle<Result<()>>>,
    what: &str,
) -> Option<Error> {
    let mut failed = None;
    for t in tasks {
        let r = t
            .await
            .unwrap_or_else(|e| Err(relay_error(format!("a {what} task failed: {e}"))));
        if let (Err(e), None) = (r, &failed) {
            failed = Some(e);
        }
    }
    failed
}

/// Multi-recipient: one sender seals `sends` group messages to `recipients` accounts (sealed sender
/// v2) and sends each in one request; latency is the request's round trip (server time).
pub async fn multi_recipient(relay: &Endpoint, recipients: usize, sends: usize) -> Result<Row> {
    multi_recipient_with(relay, recipients, sends, &Arc::new(Progress::default())).await
}

async fn multi_recipient_with(
    relay: &Endpoint,
    recipients: usize,
    sends: usize,
    progress: &Progress,
) -> Result<Row> {
    progress.enter(Stage::Registering(recipients + 1));
    let (sender, sid, _) = register(relay, 0).await?;
    progress.step();
    let mut rs = vec![];
    let mut keys = vec![];
    for i in 0..recipients {
        let (c, id, key) = register(relay, i + 1).await?;
        progress.step();
        keys.push(key);
        rs.push(Recipient {
            service_id: ServiceId::aci(c.account),
            identity: id.identity,
            devices: vec![(1, ((i + 1) % 16000 + 1) as u16)],
        });
    }
    let root = PrivateKey::generate(&mut UnwrapErr(SysRng));
    let server = PrivateKey::generate(&mut UnwrapErr(SysRng));
    let sc = ServerCertificate::new(1, server.public_key(), &root, &mut UnwrapErr(SysRng));
    let cert = SenderCertificate::new(
        sender.account.to_string(),
        None,
        sid.identity.0,
        1,
        u64::MAX,
        sc,
        &server,
        &mut UnwrapErr(SysRng),
    );
    let usmc = UnidentifiedSenderMessageContent::new(
        ContentType::SenderKey,
        cert,
        vec![0x33; 120],
        0,
        None,
    );
    let mut lat = vec![];
    let start = Instant::now();
    let mut busy = Duration::ZERO;
    progress.enter(Stage::Sending(sends));
    for _ in 0..sends {
        let sent = v2::encrypt(&usmc, &sid, &rs, &[], &mut UnwrapErr(SysRng))
            .map_err(|e| relay_error(e.to_string()))?;
        let t = Instant::now();
        sender
            .multi_send(sent, &combine(&keys), false)
            .await?
            .map_err(|e| relay_error(e.to_string()))?;
        progress.step();
        let d = t.elapsed();
        busy += d;
        lat.push(d.as_secs_f64() * 1e3);
    }
    let _ = start.elapsed();
    Ok(Row {
        name: format!("multi-recipient, {recipients} recipients"),
        messages: sends * recipients,
        per_second: (sends * recipients) as f64 / busy.as_secs_f64(),
        p50_ms: percentile(&mut lat, 0.5),
        p99_ms: percentile(&mut lat, 0.99),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alibi_relay::store::redb::RedbRelayStore;

    #[test]
    fn a_load_is_its_scenarios_in_order() {
        let load = Load {
            pairs: 16,
            messages: 20_000,
            recipients: vec![1, 10],
            sends: 20,
        };
        assert_eq!(
            load.scenarios().unwrap(),
            [
                Scenario::OneToOne {
                    pairs: 16,
                    per_sender: 1250
                },
                Scenario::MultiRecipient {
                    recipients: 1,
                    sends: 20
                },
                Scenario::MultiRecipient {
                    recipients: 10,
                    sends: 20
                },
            ]
        );
        for empty in [
            Load {
                pairs: 0,
                ..load.clone()
            },
            Load {
                messages: 0,
                ..load.clone()
            },
            Load {
                sends: 0,
                ..load.clone()
            },
            Load {
                recipients: vec![3, 0],
                ..load.clone()
            },
        ] {
            assert!(matches!(empty.scenarios(), Err(Error::EmptyLoad)));
        }
    }

    /// A relay that refuses sends (its per-device rate spent: 429) ends the 1:1 run with the
    /// relay's answer, instead of leaving the receivers waiting for messages never sent.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_refused_send_ends_the_run_with_its_reason() {
        let relay = LocalRelay::start(Config {
            rate_per_device: 1.0,
            ..config()
        })
        .await
        .expect("relay");
        let nodes = [Endpoint::from(relay.url.as_str())];
        let run = one_to_one(&nodes, 1, 50, 8);
        let r = tokio::time::timeout(Duration::from_secs(60), run)
            .await
            .expect("the run ends rather than waiting");
        let e = r
            .expect_err("sends beyond the rate are refused")
            .to_string();
        assert!(e.contains("refused a 1:1 send (429"), "{e}");
    }

    /// Relays that accept every 1:1 send and deliver none within a receiver's patience end the
    /// run with the shortfall, instead of leaving the receivers waiting without a word. Two
    /// relays in one process on one redb store are such relays for a patience of 2 s: a redb
    /// store signals no mail from one node to the other, so the receiver's node finds it only
    /// at its next poll of the store, 30 s on. Without the patience the run waits for that poll
    /// and succeeds.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_relay_that_never_delivers_ends_the_run_with_the_shortfall() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let inner = RedbRelayStore::create(dir.path().join("relay.redb")).expect("store");
        let store: Arc<dyn RelayStore> = Arc::new(inner);
        let a = start(Some(store.clone())).await.expect("relay");
        let b = start(Some(store)).await.expect("relay");
        let nodes = [
            Endpoint::from(a.url.as_str()),
            Endpoint::from(b.url.as_str()),
        ];
        let progress = Arc::new(Progress::default());
        // Enough messages that the receiver's socket opens while they are still being sent
        // (with 5, a slow socket once found all of them stored at its first look, in .ci/run).
        let run = one_to_one_within(&nodes, 1, 400, 2, Duration::from_secs(2), &progress);
        let mut said = vec![];
        let every = Duration::from_millis(500);
        let run = reporting(run, &progress, every, |line| said.push(line));
        let r = tokio::time::timeout(Duration::from_secs(60), run)
            .await
            .expect("the run ends rather than waiting");
        let e = r.expect_err("nothing was delivered").to_string();
        // Mail stored before the receiver's socket opened comes with its first look at the
        // store; the rest waits for the poll.
        assert!(
            e.contains("of a receiver's 400 messages, then none for 2 s"),
            "{e}"
        );
        // The wait was not silent: it said what it waited for while it lasted.
        assert!(
            said.iter().any(
                |l| l.starts_with("waiting for the relay to deliver 1:1 messages: ")
                    && l.contains(" of 400 received, ")
            ),
            "{said:?}"
        );
    }

    /// Every stage says what it waits for, with its count.
    #[test]
    fn progress_says_what_it_waits_for() {
        let p = Progress::default();
        assert_eq!(p.describe(), "starting");
        p.enter(Stage::Registering(1001));
        p.step();
        assert!(p
            .describe()
            .starts_with("waiting for the relay to register devices: 1 of 1001 "));
        p.enter(Stage::Sending(20));
        p.step();
        p.step();
        assert_eq!(
            p.describe(),
            "waiting for the relay to answer multi-recipient sends: 2 of 20"
        );
    }

    #[test]
    fn rows_print_under_the_head() {
        assert_eq!(
            head(),
            "| scenario | messages | messages/s | p50 (ms) | p99 (ms) |\n|---|---|---|---|---|"
        );
        let row = Row {
            name: "1:1, 4 pairs".into(),
            messages: 400,
            per_second: 1234.56,
            p50_ms: 1.25,
            p99_ms: 9.99,
        };
        assert_eq!(row.markdown(), "| 1:1, 4 pairs | 400 | 1235 | 1.2 | 10.0 |");
    }
}
