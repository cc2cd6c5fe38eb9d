//! Stores written by an earlier release (`tests/fixtures/`, made by `examples/store_fixture.rs`;
//! provenance in `tests/fixtures/README.md`) open with this relay, which upgrades their layout,
//! and deliver every message they held exactly once: on redb, across a restart, and on
//! PostgreSQL through two relay nodes.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use alibi_messenger::RelayClient;
use alibi_relay::local::LocalRelay;
use alibi_relay::server::Config;
use alibi_relay::store::RelayStore;

use alibi_testkit::relay_fixture::{devices as manifest, path as fixture, Device};

/// Receives on `d`'s socket at `url` until `expected` messages came, then half a second more
/// (anything delivered twice shows), acknowledging each; returns the contents in order.
async fn drain(url: &str, d: &Device, expected: usize) -> Vec<String> {
    let client = RelayClient::existing(url, d.account, d.device, &d.password);
    let mut rx = client.receive();
    let mut got = vec![];
    loop {
        let wait = if got.len() < expected {
            Duration::from_secs(20)
        } else {
            Duration::from_millis(500)
        };
        match tokio::time::timeout(wait, rx.next()).await {
            Ok(Some(env)) => {
                got.push(String::from_utf8_lossy(env.content()).into_owned());
                rx.ack(&env);
            }
            Ok(None) => panic!("{}: the socket closed", d.name),
            Err(_) => break,
        }
    }
    // The acknowledgements commit before the socket goes.
    tokio::time::sleep(Duration::from_millis(300)).await;
    got
}

/// Every device at its node (`urls[i % n]`) gets exactly what waited for it, in order.
async fn every_message_once(urls: &[&str], devices: &[Device]) {
    for (i, d) in devices.iter().enumerate() {
        let got = drain(urls[i % urls.len()], d, d.waiting.len()).await;
        assert_eq!(got, d.waiting, "{}", d.name);
    }
}

async fn relay(store: Arc<dyn RelayStore>) -> LocalRelay {
    LocalRelay::start_on(store, Config::default())
        .await
        .expect("a relay")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redb_store_of_the_last_release_delivers_everything_once() {
    let devices = manifest("redb");
    assert!(devices.iter().map(|d| d.waiting.len()).sum::<usize>() >= 10);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("relay.redb");
    std::fs::copy(fixture("redb"), &db).expect("the fixture");
    {
        let store = alibi_relay::store::redb::RedbRelayStore::create(&db).expect("upgraded");
        assert_eq!(store.queued().await.unwrap(), 13);
        let r = relay(Arc::new(store)).await;
        // alice.1 and bob.1 now; alice.2 after a restart.
        for d in [&devices[0], &devices[2]] {
            assert_eq!(
                drain(&r.url, d, d.waiting.len()).await,
                d.waiting,
                "{}",
                d.name
            );
        }
    }
    let store = reopen(&db).await;
    assert_eq!(store.queued().await.unwrap(), 5);
    let r = relay(Arc::new(store)).await;
    let d = &devices[1];
    assert_eq!(drain(&r.url, d, d.waiting.len()).await, d.waiting);
    // Nothing comes twice.
    for d in &devices {
        assert!(drain(&r.url, d, 0).await.is_empty(), "{} again", d.name);
    }
}

/// The redb store at `db` once its last holder let go of the file.
async fn reopen(db: &Path) -> alibi_relay::store::redb::RedbRelayStore {
    for _ in 0..200 {
        if let Ok(s) = alibi_relay::store::redb::RedbRelayStore::create(db) {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the store did not reopen");
}

/// The fixture's dump loaded into a fresh database: its URL.
async fn restored_dump() -> Option<String> {
    let url = common::fresh_postgres().await?;
    let dump = std::fs::read_to_string(fixture("pgdump.sql")).expect("the dump");
    alibi_testkit::postgres::restore(&url, &dump).await;
    Some(url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_dump_of_the_last_release_delivers_everything_once_through_two_nodes() {
    let Some(url) = restored_dump().await else {
        return;
    };
    let devices = manifest("pgdump");
    // Two nodes start together on the old database: one upgrades it, the other waits.
    let (a, b) = tokio::join!(
        alibi_relay::store::postgres::PgRelayStore::connect(&url),
        alibi_relay::store::postgres::PgRelayStore::connect(&url),
    );
    let (a, b) = (a.expect("node a"), b.expect("node b"));
    assert_eq!(a.queued().await.unwrap(), 13);
    let (ra, rb) = (relay(Arc::new(a)).await, relay(Arc::new(b)).await);
    every_message_once(&[&ra.url, &rb.url], &devices).await;
    for d in &devices {
        assert!(drain(&rb.url, d, 0).await.is_empty(), "{} again", d.name);
    }
    let (c, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let versions: Vec<i32> = c
        .query("SELECT version FROM relay_schema ORDER BY version", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(versions, vec![1, 2], "each step recorded once");
}
