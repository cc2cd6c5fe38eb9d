//! Shared by the relay's store tests: a fresh PostgreSQL database from the project's test server,
//! and the conformance suite every backend must pass.
#![allow(dead_code)]

pub mod clients;

use std::sync::Arc;

use alibi_relay::store::{
    DeviceInfo, KeysUpload, MailboxQuota, OneTimeKey, RelayStore, Sender, SignedKey,
};
use alibi_relay::Error;
use alibi_relay_api::proto::{envelope, Envelope};
use uuid::Uuid;

// Not every test binary that shares this module starts PostgreSQL.
#[allow(unused_imports)]
pub use alibi_testkit::postgres::fresh_postgres;

/// The sender of a test's sends where the per-sender share is not the point.
pub const ANYONE: Sender = Sender([0; 17]);

pub fn device(id: u8, reg: u16) -> DeviceInfo {
    DeviceInfo {
        device_id: id,
        registration_id: reg,
        password_hash: format!("$argon2id$v=19$m=8,t=1,p=1$device{id}"),
    }
}

/// A stored envelope as the relay makes one (proto2: every field optional), numbered by
/// [`alibi_relay::next_message_id`]; `shared` is the key of a multi-recipient send's shared part.
pub fn envelope(content: &[u8], shared: Option<Uuid>) -> Envelope {
    Envelope {
        r#type: Some(envelope::Type::Ciphertext.into()),
        client_timestamp: Some(1),
        content: Some(content.to_vec()),
        server_guid: Some(alibi_relay::next_message_id().to_string()),
        server_timestamp: Some(2),
        shared_mrm_key: shared.map(|k| k.as_bytes().to_vec()),
        ..Envelope::default()
    }
}

/// The id of a bundle's KEM prekey: the store never hands out a bundle without one.
fn kem_id(b: &alibi_relay::store::DeviceBundle) -> u32 {
    b.pq_pre_key
        .as_ref()
        .expect("a bundle carries a KEM prekey")
        .id
}

fn signed(id: u32) -> SignedKey {
    SignedKey {
        id,
        public: vec![id as u8; 33],
        signature: vec![1; 64],
    }
}

/// Every trait method's contract.
pub async fn conformance(store: Arc<dyn RelayStore>) {
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    store
        .create_account(a, &[5; 33], device(1, 10))
        .await
        .unwrap();
    assert!(matches!(
        store.create_account(a, &[5; 33], device(1, 10)).await,
        Err(Error::AccountExists)
    ));
    store
        .create_account(b, &[6; 33], device(1, 20))
        .await
        .unwrap();
    store.add_device(a, device(2, 11)).await.unwrap();
    assert!(matches!(
        store.add_device(Uuid::new_v4(), device(2, 1)).await,
        Err(Error::NotFound(_))
    ));
    assert_eq!(store.identity_key(a).await.unwrap(), Some(vec![5; 33]));
    assert_eq!(store.identity_key(Uuid::new_v4()).await.unwrap(), None);
    assert_eq!(
        store.devices(a).await.unwrap(),
        vec![device(1, 10), device(2, 11)]
    );
    // add_device replaces a device of the same id.
    store.add_device(a, device(3, 12)).await.unwrap();
    let mut replaced = device(3, 13);
    replaced.password_hash = "$argon2id$v=19$m=8,t=1,p=1$replaced".into();
    store.add_device(a, replaced.clone()).await.unwrap();
    assert_eq!(
        store.devices(a).await.unwrap(),
        vec![device(1, 10), device(2, 11), replaced]
    );
    assert_eq!(store.devices(Uuid::new_v4()).await.unwrap(), vec![]);

    // Access keys: none until set, replaced by the next, only for existing accounts.
    assert_eq!(store.access_key(a).await.unwrap(), None);
    store.set_access_key(a, [1; 16]).await.unwrap();
    store.set_access_key(a, [2; 16]).await.unwrap();
    assert_eq!(store.access_key(a).await.unwrap(), Some([2; 16]));
    // Many accounts in one call: in the order asked, an unknown one with nothing.
    let ghost = Uuid::new_v4();
    let want = vec![
        (store.devices(b).await.unwrap(), None),
        (vec![], None),
        (store.devices(a).await.unwrap(), Some([2; 16])),
    ];
    assert_eq!(store.accounts(&[b, ghost, a]).await.unwrap(), want);
    assert_eq!(store.accounts(&[]).await.unwrap(), vec![]);
    assert_eq!(store.access_key(b).await.unwrap(), None);
    assert!(matches!(
        store.set_access_key(Uuid::new_v4(), [3; 16]).await,
        Err(Error::NotFound(_))
    ));

    // Keys: no bundle before a signed prekey; then one-time keys in id order, then last resort.
    assert_eq!(store.take_bundle(a, 1).await.unwrap(), None);
    let upload = KeysUpload {
        signed_pre_key: Some(signed(1)),
        pre_keys: (0..3)
            .map(|i| OneTimeKey {
                id: 100 + i,
                public: vec![i as u8; 33],
            })
            .collect(),
        pq_pre_keys: (0..2).map(|i| signed(200 + i)).collect(),
        pq_last_resort_pre_key: Some(signed(999)),
        ringxkem_pre_key: Some(alibi_relay_api::keys::RingXkemKey {
            id: 7,
            bundle: vec![7; 4000],
        }),
    };
    store.upload_keys(a, 1, upload).await.unwrap();
    assert_eq!(store.key_counts(a, 1).await.unwrap(), (3, 2));
    let mut got = vec![];
    for _ in 0..4 {
        let bnd = store.take_bundle(a, 1).await.unwrap().unwrap();
        assert_eq!((bnd.registration_id, bnd.signed_pre_key.id), (10, 1));
        // The RingXKEM bundle is handed out with every bundle and not consumed.
        let r = bnd.ringxkem_pre_key.as_ref().expect("RingXKEM bundle");
        assert_eq!((r.id, r.bundle.len()), (7, 4000));
        got.push((bnd.pre_key.as_ref().map(|k| k.id), kem_id(&bnd)));
    }
    assert_eq!(
        got,
        vec![
            (Some(100), 200),
            (Some(101), 201),
            (Some(102), 999),
            (None, 999)
        ]
    );
    assert_eq!(store.key_counts(a, 1).await.unwrap(), (0, 0));

    // Uploads append one-time keys and leave absent parts as they were; a new signed prekey or
    // last-resort key replaces the old one.
    store
        .upload_keys(
            a,
            1,
            KeysUpload {
                pre_keys: vec![OneTimeKey {
                    id: 300,
                    public: vec![3; 33],
                }],
                ..Default::default()
            },
        )
        .await
        .unwrap();
    store
        .upload_keys(
            a,
            1,
            KeysUpload {
                signed_pre_key: Some(signed(2)),
                pre_keys: vec![OneTimeKey {
                    id: 301,
                    public: vec![3; 33],
                }],
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(store.key_counts(a, 1).await.unwrap(), (2, 0));
    let bnd = store.take_bundle(a, 1).await.unwrap().unwrap();
    assert_eq!(
        (
            bnd.signed_pre_key.clone(),
            bnd.pre_key.as_ref().map(|k| k.id),
            kem_id(&bnd)
        ),
        (signed(2), Some(300), 999)
    );
    store
        .upload_keys(
            a,
            1,
            KeysUpload {
                pq_last_resort_pre_key: Some(signed(998)),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let bnd = store.take_bundle(a, 1).await.unwrap().unwrap();
    assert_eq!(
        (
            bnd.signed_pre_key.id,
            bnd.pre_key.as_ref().map(|k| k.id),
            bnd.pq_pre_key
        ),
        (2, Some(301), Some(signed(998)))
    );
    // Keys are per device; without any KEM prekey there is no bundle, and the failed fetch
    // consumes nothing.
    assert_eq!(store.key_counts(a, 2).await.unwrap(), (0, 0));
    store
        .upload_keys(
            a,
            2,
            KeysUpload {
                signed_pre_key: Some(signed(5)),
                pre_keys: vec![OneTimeKey {
                    id: 7,
                    public: vec![7; 33],
                }],
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(store.take_bundle(a, 2).await.unwrap(), None);
    assert_eq!(store.key_counts(a, 2).await.unwrap(), (1, 0));
    assert_eq!(store.key_counts(a, 1).await.unwrap(), (0, 0));
    assert_eq!(
        store.take_bundle(a, 9).await.unwrap(),
        None,
        "no such device"
    );
    assert_eq!(store.take_bundle(Uuid::new_v4(), 1).await.unwrap(), None);

    // Concurrent fetches never share a one-time key.
    store
        .upload_keys(
            b,
            1,
            KeysUpload {
                signed_pre_key: Some(signed(1)),
                pre_keys: (0..8)
                    .map(|i| OneTimeKey {
                        id: i,
                        public: vec![0; 33],
                    })
                    .collect(),
                pq_pre_keys: (0..8).map(signed).collect(),
                pq_last_resort_pre_key: Some(signed(999)),
                ringxkem_pre_key: None,
            },
        )
        .await
        .unwrap();
    let mut tasks = vec![];
    for _ in 0..8 {
        let s = store.clone();
        tasks.push(tokio::spawn(async move {
            s.take_bundle(b, 1).await.unwrap().unwrap()
        }));
    }
    let mut ec = std::collections::HashSet::new();
    let mut pq = std::collections::HashSet::new();
    for t in tasks {
        let bnd = t.await.unwrap();
        assert!(ec.insert(bnd.pre_key.as_ref().unwrap().id));
        assert!(pq.insert(kem_id(&bnd)));
    }
    assert_eq!((ec.len(), pq.len()), (8, 8));

    // Mailboxes: order, isolation between devices and accounts, acks.
    let e1 = envelope(b"one", None);
    let e2 = envelope(b"two", None);
    let e3 = envelope(b"three", None);
    store
        .enqueue(
            vec![(a, 1, e1.clone()), (a, 1, e2.clone()), (a, 2, e3.clone())],
            None,
            ANYONE,
            MailboxQuota::UNLIMITED,
        )
        .await
        .unwrap();
    assert_eq!(
        store.pending(a, 1, 10).await.unwrap(),
        vec![e1.clone(), e2.clone()]
    );
    assert_eq!(store.pending(a, 2, 10).await.unwrap(), vec![e3.clone()]);
    assert_eq!(store.pending(a, 1, 1).await.unwrap(), vec![e1.clone()]);
    assert_eq!(store.pending(b, 1, 10).await.unwrap(), vec![]);
    let g = |e: &Envelope| e.guid().expect("a UUID server_guid");
    assert!(
        !store.ack(a, 2, g(&e1)).await.unwrap(),
        "another device cannot ack it"
    );
    assert!(
        !store.ack(b, 1, g(&e1)).await.unwrap(),
        "another account cannot ack it"
    );
    assert!(store.ack(a, 1, g(&e1)).await.unwrap());
    assert!(!store.ack(a, 1, g(&e1)).await.unwrap(), "only once");
    assert_eq!(store.pending(a, 1, 10).await.unwrap(), vec![e2.clone()]);

    // A multi-recipient send: the shared part once, gone with the last ack.
    let key = Uuid::new_v4();
    let m1 = envelope(&[1; 48], Some(key));
    let m2 = envelope(&[2; 48], Some(key));
    store
        .enqueue(
            vec![(b, 1, m1.clone()), (a, 2, m2.clone())],
            Some((key, vec![9; 500])),
            ANYONE,
            MailboxQuota::UNLIMITED,
        )
        .await
        .unwrap();
    assert_eq!(store.shared(key).await.unwrap(), Some(vec![9; 500]));
    assert!(store.ack(b, 1, g(&m1)).await.unwrap());
    assert_eq!(store.shared(key).await.unwrap(), Some(vec![9; 500]));
    assert!(store.ack(a, 2, g(&m2)).await.unwrap());
    assert_eq!(store.shared(key).await.unwrap(), None);

    // 1,000 envelopes in, all out in order.
    let batch: Vec<_> = (0..1000u32)
        .map(|i| (b, 1, envelope(&i.to_be_bytes(), None)))
        .collect();
    store
        .enqueue(batch, None, ANYONE, MailboxQuota::UNLIMITED)
        .await
        .unwrap();
    let mut seen = 0u32;
    loop {
        let p = store.pending(b, 1, 64).await.unwrap();
        if p.is_empty() {
            break;
        }
        for e in p {
            assert_eq!(e.content(), seen.to_be_bytes());
            assert!(store.ack(b, 1, g(&e)).await.unwrap());
            seen += 1;
        }
    }
    assert_eq!(seen, 1000);

    quotas_and_expiry(&*store).await;
    counters_and_shares(&*store).await;
}

/// The kept counters follow every send, acknowledgement and expiry, and one sender's share of a
/// mailbox is bounded (issue 41, N4 and N7): the same for every store.
async fn counters_and_shares(store: &dyn RelayStore) {
    let g = |e: &Envelope| e.guid().expect("a UUID server_guid");
    let v = Uuid::new_v4();
    let (x, y, z) = (
        Sender::address("198.51.100.1".parse().unwrap()),
        Sender::address("192.0.2.7".parse().unwrap()),
        Sender::address("2001:db8::1".parse().unwrap()),
    );
    let quota = MailboxQuota {
        messages: 4,
        bytes: u64::MAX,
        sender_messages: 2,
        sender_bytes: u64::MAX,
    };
    let before = store.queued().await.unwrap();
    let send = |who: Sender, e: Envelope| async move {
        store.enqueue(vec![(v, 1, e)], None, who, quota).await
    };
    let (x1, x2) = (envelope(&[1; 10], None), envelope(&[2; 20], None));
    send(x, x1.clone()).await.unwrap();
    send(x, x2.clone()).await.unwrap();
    let r = send(x, envelope(&[3], None)).await;
    assert!(
        matches!(r, Err(Error::SenderShareFull(a, 1)) if a == v),
        "{r:?}"
    );
    use prost::Message as _;
    let size = (x1.encoded_len() + x2.encoded_len()) as u64;
    let usage = store.mailbox_usage(v, 1, x).await.unwrap();
    assert_eq!(
        (
            usage.messages,
            usage.bytes,
            usage.sender_messages,
            usage.sender_bytes
        ),
        (2, size, 2, size)
    );
    // Others still have room, up to the mailbox's bound.
    send(y, envelope(&[4], None)).await.unwrap();
    send(y, envelope(&[5], None)).await.unwrap();
    let r = send(z, envelope(&[6], None)).await;
    assert!(matches!(r, Err(Error::MailboxFull(..))), "{r:?}");
    assert_eq!(store.queued().await.unwrap(), before + 4);
    assert_eq!(
        store.mailbox_usage(v, 1, y).await.unwrap().sender_messages,
        2
    );
    assert_eq!(
        store.mailbox_usage(v, 1, z).await.unwrap().sender_messages,
        0
    );
    // An acknowledgement gives the sender its room back.
    assert!(store.ack(v, 1, g(&x1)).await.unwrap());
    let usage = store.mailbox_usage(v, 1, x).await.unwrap();
    assert_eq!((usage.messages, usage.sender_messages), (3, 1));
    assert_eq!(usage.sender_bytes, x2.encoded_len() as u64);
    send(x, envelope(&[7], None)).await.unwrap();
    // A multi-recipient envelope counts its shared part against its device and its sender.
    let w = Uuid::new_v4();
    let key = Uuid::new_v4();
    let m = envelope(&[8; 48], Some(key));
    store
        .enqueue(vec![(w, 2, m.clone())], Some((key, vec![0; 300])), z, quota)
        .await
        .unwrap();
    let usage = store.mailbox_usage(w, 2, z).await.unwrap();
    assert_eq!(usage.bytes, (m.encoded_len() + 300) as u64);
    assert_eq!(usage.sender_bytes, usage.bytes);
    // Expiry takes everything off the counters.
    store.expire(alibi_relay_api::now_ms() + 1).await.unwrap();
    for (a, d, who) in [(v, 1, x), (v, 1, y), (w, 2, z)] {
        assert_eq!(
            store.mailbox_usage(a, d, who).await.unwrap(),
            Default::default()
        );
    }
    assert_eq!(store.queued().await.unwrap(), 0);
    send(x, envelope(&[9], None)).await.unwrap();
    send(x, envelope(&[9], None)).await.unwrap();
}

/// Mailbox quotas (a send refused whole, the sizes following acks) and expiry (shared parts
/// released with the envelopes).
async fn quotas_and_expiry(store: &dyn RelayStore) {
    let g = |e: &Envelope| e.guid().expect("a UUID server_guid");
    let c = Uuid::new_v4();
    let three = MailboxQuota {
        messages: 3,
        bytes: u64::MAX,
        ..MailboxQuota::UNLIMITED
    };
    let mut kept = vec![];
    for i in 0..3u8 {
        let e = envelope(&[i; 10], None);
        store
            .enqueue(vec![(c, 1, e.clone())], None, ANYONE, three)
            .await
            .unwrap();
        kept.push(e);
    }
    let r = store
        .enqueue(
            vec![(c, 2, envelope(&[7], None)), (c, 1, envelope(&[8], None))],
            None,
            ANYONE,
            three,
        )
        .await;
    assert!(
        matches!(r, Err(Error::MailboxFull(a, 1)) if a == c),
        "{r:?}"
    );
    assert!(
        store.pending(c, 2, 10).await.unwrap().is_empty(),
        "all or none"
    );
    assert!(store.ack(c, 1, g(&kept[0])).await.unwrap());
    store
        .enqueue(vec![(c, 1, envelope(&[9], None))], None, ANYONE, three)
        .await
        .expect("room again after an ack");

    // Bytes: a multi-recipient envelope counts its shared part in full.
    let d = Uuid::new_v4();
    let kb = MailboxQuota {
        messages: 100,
        bytes: 1000,
        ..MailboxQuota::UNLIMITED
    };
    let (k1, k2) = (Uuid::new_v4(), Uuid::new_v4());
    let m1 = envelope(&[1; 48], Some(k1));
    store
        .enqueue(
            vec![(d, 1, m1.clone())],
            Some((k1, vec![1; 800])),
            ANYONE,
            kb,
        )
        .await
        .unwrap();
    let m2 = envelope(&[2; 48], Some(k2));
    let r = store
        .enqueue(
            vec![(d, 1, m2.clone())],
            Some((k2, vec![2; 800])),
            ANYONE,
            kb,
        )
        .await;
    assert!(matches!(r, Err(Error::MailboxFull(..))), "{r:?}");
    assert_eq!(store.shared(k2).await.unwrap(), None, "nothing stored");
    assert!(store.ack(d, 1, g(&m1)).await.unwrap());
    store
        .enqueue(
            vec![(d, 1, m2.clone())],
            Some((k2, vec![2; 800])),
            ANYONE,
            kb,
        )
        .await
        .expect("room again after an ack");

    // Expiry: everything stored before the cut goes, shared parts with it.
    let before = alibi_relay_api::now_ms() + 1;
    let n = store.expire(before).await.unwrap();
    assert!(n >= 4, "{n}");
    assert!(store.pending(c, 1, 10).await.unwrap().is_empty());
    assert!(store.pending(d, 1, 10).await.unwrap().is_empty());
    assert_eq!(store.shared(k2).await.unwrap(), None);
    assert_eq!(store.expire(before).await.unwrap(), 0);
    for _ in 0..3 {
        store
            .enqueue(vec![(c, 1, envelope(&[1], None))], None, ANYONE, three)
            .await
            .expect("expired envelopes no longer count");
    }
}
