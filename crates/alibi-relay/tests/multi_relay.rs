//! The scale-out path: two relay servers on one PostgreSQL database. A sender talks to one, the
//! receiver is connected to the other; every message arrives exactly once, and once acknowledged
//! it is not delivered again by either relay.

mod common;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use alibi_identity::IdentityKeyPair;
use alibi_messenger::relay::RelayClient;
use alibi_relay::local::LocalRelay;
use alibi_relay::server::Config;
use alibi_relay::store::postgres::PgRelayStore;
use alibi_relay::store::RelayStore;
use alibi_relay_api::messages::OutgoingMessage;

async fn relay(url: &str, config: Config) -> LocalRelay {
    let store: Arc<dyn RelayStore> = Arc::new(PgRelayStore::connect(url).await.unwrap());
    LocalRelay::start_on(store, config).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_relays_one_database_exactly_once() {
    let Some(url) = common::fresh_postgres().await else {
        return;
    };
    let config = Config::default();
    let (relay_a, relay_b) = (relay(&url, config.clone()).await, relay(&url, config).await);
    let (a, b) = (relay_a.url.as_str(), relay_b.url.as_str());
    let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
    let s_id = IdentityKeyPair::generate(&mut rng);
    let r_id = IdentityKeyPair::generate(&mut rng);
    let sender = RelayClient::register(a, &s_id.identity.serialize(), 7, "sender-secret-0123456")
        .await
        .unwrap();
    let receiver_b =
        RelayClient::register(b, &r_id.identity.serialize(), 8, "receiver-secret-012345")
            .await
            .unwrap();
    let receiver_a = RelayClient::existing(a, receiver_b.account, 1, "receiver-secret-012345");

    let mut rx = receiver_b.receive();
    for i in 0..100u32 {
        let m = OutgoingMessage {
            kind: 1,
            destination_device_id: 1,
            destination_registration_id: 8,
            content: i.to_be_bytes().to_vec(),
        };
        sender
            .send(receiver_b.account, vec![m])
            .await
            .unwrap()
            .unwrap();
    }
    let mut seen = HashSet::new();
    while seen.len() < 100 {
        let e = tokio::time::timeout(Duration::from_secs(10), rx.next())
            .await
            .unwrap_or_else(|_| panic!("delivered by the other relay; seen {}", seen.len()))
            .unwrap();
        assert!(seen.insert(e.content().to_vec()), "a message arrived twice");
        rx.ack(&e);
    }
    // Let the acknowledgements land, then look through the first relay: nothing is left.
    tokio::time::sleep(Duration::from_millis(500)).await;
    drop(rx);
    let mut rx = receiver_a.receive();
    assert!(
        tokio::time::timeout(Duration::from_millis(800), rx.next())
            .await
            .is_err(),
        "redelivered after ack"
    );
}

/// Push between nodes: a message accepted by relay A reaches a device connected to relay B at
/// once, through PostgreSQL's LISTEN/NOTIFY (the store re-read is a 30-second backstop, so
/// anything slower than a second would mean the push failed). Then B's listening connection is
/// killed: a message sent while it reconnects is recovered from the store when it is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_on_one_node_is_pushed_to_a_device_on_another() {
    let Some(url) = common::fresh_postgres().await else {
        return;
    };
    assert!(alibi_relay::server::POLL >= Duration::from_secs(10));
    let config = Config::default();
    let (relay_a, relay_b) = (relay(&url, config.clone()).await, relay(&url, config).await);
    let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
    let s_id = IdentityKeyPair::generate(&mut rng);
    let r_id = IdentityKeyPair::generate(&mut rng);
    let sender = RelayClient::register(
        &relay_a.url,
        &s_id.identity.serialize(),
        7,
        "sender-secret-0123456",
    )
    .await
    .unwrap();
    let receiver = RelayClient::register(
        &relay_b.url,
        &r_id.identity.serialize(),
        8,
        "receiver-secret-012345",
    )
    .await
    .unwrap();
    let mut rx = receiver.receive();
    let msg = |i: u32| OutgoingMessage {
        kind: 1,
        destination_device_id: 1,
        destination_registration_id: 8,
        content: i.to_be_bytes().to_vec(),
    };
    // Let the socket settle, then one message at a time, timing each hand-over.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut latencies = vec![];
    for i in 0..50u32 {
        let start = std::time::Instant::now();
        sender
            .send(receiver.account, vec![msg(i)])
            .await
            .unwrap()
            .unwrap();
        let e = tokio::time::timeout(Duration::from_secs(1), rx.next())
            .await
            .expect("pushed across nodes within a second")
            .unwrap();
        latencies.push(start.elapsed());
        assert_eq!(e.content(), i.to_be_bytes());
        rx.ack(&e);
    }
    latencies.sort();
    println!(
        "cross-node send-to-delivery: median {:?}, p99 {:?}",
        latencies[latencies.len() / 2],
        latencies[latencies.len() * 99 / 100]
    );
    // Kill relay B's LISTEN connection; mail sent meanwhile still arrives.
    let (c, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let killed = c
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = current_database() AND query = 'LISTEN alibi_mail'",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(killed.len(), 2, "both relays listen");
    sender
        .send(receiver.account, vec![msg(999)])
        .await
        .unwrap()
        .unwrap();
    let e = tokio::time::timeout(Duration::from_secs(5), rx.next())
        .await
        .expect("recovered after the listener reconnected")
        .unwrap();
    assert_eq!(e.content(), 999u32.to_be_bytes());
}
