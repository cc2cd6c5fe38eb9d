//! The relay under abuse (issue 21): each test is an attack that worked on the relay before its
//! defence, and checks the defence holds.

use std::sync::Arc;
use std::time::{Duration, Instant};

use alibi_relay::local::LocalRelay;
use alibi_relay::server::{Config, MAX_RECIPIENTS};
use alibi_relay::store::redb::RedbRelayStore;
use alibi_relay_api::{access, b64, paths};
use uuid::Uuid;

/// A sealed-sender v2 `SentMessage` (0x23) listing `excluded` accounts, all excluded (no device),
/// and a shared part of `shared` bytes (the ephemeral key and ciphertext).
fn excluded_only(excluded: &[Uuid], shared: usize) -> Vec<u8> {
    let mut body = vec![0x23];
    prost::encode_length_delimiter(excluded.len(), &mut body).unwrap();
    for u in excluded {
        body.push(0x00);
        body.extend_from_slice(u.as_bytes());
        body.push(0);
    }
    body.extend(std::iter::repeat_n(0x5a, shared));
    body
}

async fn put_multi(url: &str, body: Vec<u8>) -> (u16, String) {
    let r = reqwest::Client::new()
        .put(format!("{url}{}", paths::MULTI_RECIPIENT))
        .header(access::HEADER, b64::encode(&[0u8; 16]))
        .header("content-type", "application/vnd.signal-messenger.mrm")
        .body(body)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_recipient_sends_with_nobody_to_deliver_to_store_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("relay.redb");
    let store = RedbRelayStore::create(&path).unwrap();
    let relay = LocalRelay::start_on(Arc::new(store), Config::default())
        .await
        .unwrap();
    let before = std::fs::metadata(&path).unwrap().len();
    // No recipient at all, and only excluded ones: the access key of nobody is all zero.
    for excluded in [vec![], vec![Uuid::new_v4(), Uuid::new_v4()]] {
        for _ in 0..8 {
            let (status, text) = put_multi(&relay.url, excluded_only(&excluded, 1 << 20)).await;
            assert_eq!(status, 400, "{text}");
            assert!(text.contains("no recipient"), "{text}");
        }
    }
    let after = std::fs::metadata(&path).unwrap().len();
    assert_eq!(
        before, after,
        "the store grew from {before} to {after} bytes"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_recipients_is_refused_at_once() {
    let relay = LocalRelay::start(Config::default()).await.unwrap();
    let many: Vec<Uuid> = (0..100_000).map(|_| Uuid::new_v4()).collect();
    let body = excluded_only(&many, 64);
    let start = Instant::now();
    let (status, text) = put_multi(&relay.url, body).await;
    let took = start.elapsed();
    assert_eq!(status, 413, "{text}");
    // It took 13.6 s when every recipient was parsed and merged with a linear search.
    assert!(took < Duration::from_secs(1), "{took:?}");
    // At the bound the body is parsed (in linear time) and refused for having nobody to deliver to.
    let body = excluded_only(&many[..MAX_RECIPIENTS], 64);
    let (status, text) = put_multi(&relay.url, body).await;
    assert_eq!(status, 400, "{text}");
}
