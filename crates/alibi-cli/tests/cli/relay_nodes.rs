//! Several relay processes on one PostgreSQL database, each `alibi relay serve` in an OS process
//! of its own: mail sent through any node reaches a device connected to any other exactly once;
//! a node killed with SIGKILL mid-load loses no accepted message and its clients carry on through
//! the others; a node stopped with SIGTERM drains without loss.

use crate::common;

use std::ffi::OsString;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alibi_messenger::Endpoint;
use common::relay_process::{load, pair, postgres_args, Action, RelayProcess};

/// `n` relay processes on a fresh database (sharing a trust root), or `None` when PostgreSQL is
/// not installed (after the peer policy's skip).
async fn nodes(n: usize) -> Option<(Vec<RelayProcess>, tempfile::TempDir)> {
    let url = alibi_testkit::postgres::fresh_postgres().await?;
    let dir = tempfile::tempdir().unwrap();
    let args: Vec<OsString> = postgres_args(&url, &dir.path().join("root"));
    // The first creates the trust root file the others read.
    let mut v = vec![RelayProcess::start(0, &args)];
    for _ in 1..n {
        v.push(RelayProcess::start(0, &args));
    }
    Some((v, dir))
}

/// The nodes' URLs starting at `first`, then the others in turn: a client's failover order.
fn from(nodes: &[RelayProcess], first: usize) -> Endpoint {
    let n = nodes.len();
    let list: Vec<&str> = (0..n)
        .map(|i| nodes[(first + i) % n].url.as_str())
        .collect();
    Endpoint::new(&list.join(","))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_message_arrives_exactly_once_whichever_nodes_the_two_sides_use() {
    let Some((relays, _dir)) = nodes(3).await else {
        return;
    };
    // Every (sender node, receiver node) combination, each side on its node alone.
    let mut pairs = vec![];
    for s in &relays {
        for r in &relays {
            pairs.push(pair(s.url.as_str().into(), r.url.as_str().into()).await);
        }
    }
    const TOTAL: u64 = 1_800;
    let outcome = load(&pairs, TOTAL, vec![]).await;
    let twice = outcome.none_lost(TOTAL);
    assert_eq!(twice, 0, "no message arrives twice");
    assert_eq!(outcome.received.len() as u64, TOTAL, "nothing else arrives");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_killed_mid_load_loses_no_accepted_message_and_its_clients_move_on() {
    let Some((relays, _dir)) = nodes(3).await else {
        return;
    };
    // Four pairs, each side starting on a different node: node 0 serves senders and receivers.
    let mut pairs = vec![];
    for i in 0..4 {
        pairs.push(pair(from(&relays, i % 3), from(&relays, (i + 1) % 3)).await);
    }
    let victim_url = relays[0].url.clone();
    let relays = Arc::new(Mutex::new(relays));
    let kill = {
        let relays = relays.clone();
        Box::new(move || relays.lock().unwrap()[0].kill()) as Box<dyn FnOnce() + Send>
    };
    const TOTAL: u64 = 10_000;
    let actions: Vec<Action> = vec![(3_000, kill)];
    let outcome = load(&pairs, TOTAL, actions).await;
    let twice = outcome.none_lost(TOTAL);
    println!("{TOTAL} accepted across 3 nodes, one killed at 3,000: all delivered, {twice} twice");
    // Whoever was on the killed node went on through another.
    for (s, r) in &pairs {
        for c in [s, r] {
            assert_ne!(c.endpoint().current().0, victim_url);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_a_node_without_loss() {
    let Some((relays, _dir)) = nodes(2).await else {
        return;
    };
    let mut pairs = vec![];
    for _ in 0..2 {
        pairs.push(pair(from(&relays, 0), from(&relays, 0)).await);
    }
    let relays = Arc::new(Mutex::new(relays));
    let status = Arc::new(Mutex::new(None));
    let stop = {
        let (relays, status) = (relays.clone(), status.clone());
        Box::new(move || {
            let s = relays.lock().unwrap()[0].terminate(Duration::from_secs(15));
            *status.lock().unwrap() = Some(s);
        }) as Box<dyn FnOnce() + Send>
    };
    const TOTAL: u64 = 4_000;
    let outcome = load(&pairs, TOTAL, vec![(1_500, stop)]).await;
    let status = status.lock().unwrap().expect("stopped");
    assert!(status.success(), "a drained relay exits 0: {status:?}");
    let twice = outcome.none_lost(TOTAL);
    assert_eq!(
        twice, 0,
        "a drain commits the acknowledgements it received before closing, so nothing comes twice"
    );
}

#[test]
fn relay_bench_spreads_pairs_over_nodes() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let Some((relays, _dir)) = rt.block_on(nodes(2)) else {
        return;
    };
    let list = format!("{},{}", relays[0].url, relays[1].url);
    let o = common::alibi(&[
        "relay",
        "bench",
        "--nodes",
        &list,
        "--pairs",
        "4",
        "--messages",
        "400",
        "--recipients",
        "2",
        "--sends",
        "2",
    ]);
    assert_eq!(common::code(&o), 0, "{}", common::stderr(&o));
    assert!(
        common::stdout(&o).contains("| 1:1, 4 pairs across 2 nodes | 400 |"),
        "{}",
        common::stdout(&o)
    );
}
