//! Both storage backends against the same conformance suite, and two relay processes' worth of
//! stores on one PostgreSQL database delivering every envelope exactly once.

mod common;

use std::collections::HashSet;
use std::sync::Arc;

use alibi_relay::store::postgres::PgRelayStore;
use alibi_relay::store::redb::RedbRelayStore;
use alibi_relay::store::{MailboxQuota, RelayStore};
use alibi_relay::Error;
use uuid::Uuid;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redb_conformance() {
    let dir = tempfile::tempdir().unwrap();
    common::conformance(Arc::new(
        RedbRelayStore::create(dir.path().join("r.redb")).unwrap(),
    ))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_conformance() {
    let Some(url) = common::fresh_postgres().await else {
        return;
    };
    common::conformance(Arc::new(PgRelayStore::connect(&url).await.unwrap())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_stores_on_one_database_deliver_exactly_once() {
    let Some(url) = common::fresh_postgres().await else {
        return;
    };
    let one: Arc<dyn RelayStore> = Arc::new(PgRelayStore::connect(&url).await.unwrap());
    let two: Arc<dyn RelayStore> = Arc::new(PgRelayStore::connect(&url).await.unwrap());
    let acct = Uuid::new_v4();
    one.create_account(acct, &[5; 33], common::device(1, 1))
        .await
        .unwrap();
    // Both enqueue 500 each while both drain: every envelope acked exactly once.
    let mut tasks = vec![];
    for (i, s) in [one.clone(), two.clone()].into_iter().enumerate() {
        tasks.push(tokio::spawn(async move {
            for j in 0..500u32 {
                let e = common::envelope(&(i as u32 * 1000 + j).to_be_bytes(), None);
                s.enqueue(
                    vec![(acct, 1, e)],
                    None,
                    common::ANYONE,
                    MailboxQuota::UNLIMITED,
                )
                .await
                .unwrap();
            }
            Vec::new()
        }));
    }
    for s in [one.clone(), two.clone()] {
        tasks.push(tokio::spawn(async move {
            let mut got = Vec::new();
            let mut idle = 0;
            while idle < 50 {
                let p = s.pending(acct, 1, 16).await.unwrap();
                if p.is_empty() {
                    idle += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    continue;
                }
                idle = 0;
                for e in p {
                    // Only the relay whose ack succeeds counts as delivering it.
                    if s.ack(acct, 1, e.guid().expect("a UUID server_guid"))
                        .await
                        .unwrap()
                    {
                        got.push(u32::from_be_bytes(e.content()[..4].try_into().unwrap()));
                    }
                }
            }
            got
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    let unique: HashSet<u32> = all.iter().copied().collect();
    assert_eq!(all.len(), 1000, "each envelope acknowledged once");
    assert_eq!(unique.len(), 1000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_store_reconnects_after_its_connections_drop() {
    let Some(url) = common::fresh_postgres().await else {
        return;
    };
    let store = PgRelayStore::connect(&url).await.unwrap();
    let acct = Uuid::new_v4();
    store
        .create_account(acct, &[5; 33], common::device(1, 1))
        .await
        .unwrap();
    // The server ends every connection of the store (as a restart or a failover would).
    let (admin, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let ended = admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .await
        .unwrap()
        .get::<_, i64>(0);
    assert!(ended >= 1);
    // Until the backends are gone, then a moment for the store's side to see its sockets closed.
    for _ in 0..100 {
        let left: i64 = admin
            .query_one(
                "SELECT count(*) FROM pg_stat_activity
                 WHERE datname = current_database() AND pid <> pg_backend_pid()",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        if left == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    // Every pooled connection is reopened on its next use.
    for i in 0..16u32 {
        let e = common::envelope(&i.to_be_bytes(), None);
        store
            .enqueue(
                vec![(acct, 1, e)],
                None,
                common::ANYONE,
                MailboxQuota::UNLIMITED,
            )
            .await
            .unwrap();
    }
    assert_eq!(store.pending(acct, 1, 100).await.unwrap().len(), 16);
}

#[test]
fn a_redb_store_with_unsalted_password_hashes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.redb");
    {
        // The first layout: a device row of registration id and SHA-256, no layout version.
        let db = redb::Database::create(&path).unwrap();
        let t = db.begin_write().unwrap();
        {
            let def = redb::TableDefinition::<&[u8], &[u8]>::new("devices");
            let mut d = t.open_table(def).unwrap();
            d.insert(&[1u8; 17][..], &[0u8; 34][..]).unwrap();
        }
        t.commit().unwrap();
    }
    match RedbRelayStore::create(&path) {
        Err(Error::OutdatedStore(why)) => assert!(why.contains("SHA-256"), "{why}"),
        Err(e) => panic!("refused, but not clearly: {e}"),
        Ok(_) => panic!("a store of unsalted password hashes was opened"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_store_with_unsalted_password_hashes_is_refused() {
    let Some(url) = common::fresh_postgres().await else {
        return;
    };
    let (c, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    c.batch_execute(
        "CREATE TABLE devices (uuid BYTEA NOT NULL, device SMALLINT NOT NULL,
             registration_id INT NOT NULL, secret_hash BYTEA NOT NULL, PRIMARY KEY (uuid, device))",
    )
    .await
    .unwrap();
    match PgRelayStore::connect(&url).await {
        Err(Error::OutdatedStore(why)) => assert!(why.contains("SHA-256"), "{why}"),
        Err(e) => panic!("refused, but not clearly: {e}"),
        Ok(_) => panic!("a database of unsalted password hashes was opened"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redb_mailbox_sizes_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.redb");
    let three = MailboxQuota {
        messages: 3,
        bytes: u64::MAX,
        ..MailboxQuota::UNLIMITED
    };
    let acct = Uuid::new_v4();
    {
        let store = RedbRelayStore::create(&path).unwrap();
        for i in 0..3u8 {
            store
                .enqueue(
                    vec![(acct, 1, common::envelope(&[i], None))],
                    None,
                    common::ANYONE,
                    three,
                )
                .await
                .unwrap();
        }
    }
    // The writer lets go of the file once its queue closes.
    let mut reopened = None;
    for _ in 0..100 {
        if let Ok(s) = RedbRelayStore::create(&path) {
            reopened = Some(s);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let store = reopened.expect("the store reopens");
    let r = store
        .enqueue(
            vec![(acct, 1, common::envelope(&[9], None))],
            None,
            common::ANYONE,
            three,
        )
        .await;
    assert!(matches!(r, Err(Error::MailboxFull(..))), "{r:?}");
}
