//! The relay end to end over loopback, on the redb store: registration, keys, a PQXDH session
//! through the prekey directory and mailboxes, a sealed-sender v2 group message through one
//! multi-recipient request, and the answers the API owes to wrong requests.

use std::time::{Duration, SystemTime};

use alibi_channel::cipher::{decrypt, encrypt, process_prekey_bundle, CiphertextMessage};
use alibi_channel::sealed_sender::v2::Recipient;
use alibi_channel::sealed_sender::{
    self, v2, ContentType, SenderCertificate, ServiceId, UnidentifiedSenderMessageContent,
};
use alibi_channel::sender_keys::{
    create_distribution_message, group_encrypt, process_distribution_message,
    SenderKeyDistributionMessage,
};
use alibi_channel::{Address, InMemoryStore, ProtocolStore};
use alibi_handshake::{IdentityKeyPair, KeyPair, PublicKey};
use alibi_relay::access::{combine, derive_access_key, AccessKey};
use alibi_relay::client::{RelayClient, SendError};
use alibi_relay::keys::{generate_keys, FIRST_EC_ID, FIRST_PQ_ID, LAST_RESORT_ID};
use alibi_relay::local::LocalRelay;
use alibi_relay::server::{self, Config, OutgoingMessage};
use alibi_relay::store::{KeysUpload, SignedKey};
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use uuid::Uuid;

async fn start(config: Config) -> LocalRelay {
    LocalRelay::start(config).await.unwrap()
}

/// A party: its protocol store, its relay client, and the private keys it published.
struct Party {
    store: InMemoryStore,
    client: RelayClient,
    at: Address,
    access_key: AccessKey,
}

/// Registers, and publishes a signed prekey, `n_ec` one-time EC prekeys, `n_pq` one-time KEM
/// prekeys and a last-resort KEM prekey (ids as `alibi_relay::keys` numbers them).
async fn party(relay: &LocalRelay, rng: &mut ChaCha20Rng, reg: u16, n_ec: u32, n_pq: u32) -> Party {
    let id = IdentityKeyPair::generate(rng);
    let mut store = InMemoryStore::new(id.clone(), reg.into());
    let client = RelayClient::register(
        &relay.url,
        &id.identity.serialize(),
        reg,
        "a-long-device-secret-123",
    )
    .await
    .unwrap();
    let keys = generate_keys(&mut store, n_ec, n_pq, rng).unwrap();
    client.upload_keys(&keys).await.unwrap();
    let mut profile_key = [0u8; 32];
    rng.fill_bytes(&mut profile_key);
    let access_key = derive_access_key(&profile_key);
    client.set_access_key(&access_key).await.unwrap();
    let at = Address::new(client.account.to_string(), 1);
    Party {
        store,
        client,
        at,
        access_key,
    }
}

async fn send_pairwise(from: &mut Party, to: &Party, plaintext: &[u8]) {
    let m = encrypt(&to.at, &mut from.store, plaintext, SystemTime::now()).unwrap();
    let reg = from
        .store
        .load_session(&to.at)
        .unwrap()
        .unwrap()
        .current()
        .unwrap()
        .remote_registration_id() as u16;
    let out = OutgoingMessage {
        kind: if m.message_type() == 3 { 3 } else { 1 },
        destination_device_id: 1,
        destination_registration_id: reg,
        content: m.serialize().to_vec(),
    };
    from.client
        .send(to.client.account, vec![out])
        .await
        .unwrap()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pqxdh_session_and_group_message_through_the_relay() {
    let relay = start(Config::default()).await;
    let mut rng = ChaCha20Rng::from_seed([60; 32]);
    let mut alice = party(&relay, &mut rng, 11, 5, 5).await;
    let mut bob = party(&relay, &mut rng, 22, 5, 5).await;
    let mut carol = party(&relay, &mut rng, 33, 5, 5).await;

    // Alice opens sessions with Bob and Carol from the directory and sends her sender key.
    let dist = Uuid::parse_str("d1d1d1d1-7000-41eb-b32a-33b8a8a48777").unwrap();
    let skdm = create_distribution_message(&alice.at, dist, &mut alice.store, &mut rng).unwrap();
    for to in [&bob, &carol] {
        let (ik, devices) = alice
            .client
            .fetch_bundles(to.client.account, None)
            .await
            .unwrap();
        assert_eq!(devices.len(), 1);
        process_prekey_bundle(
            &to.at,
            &mut alice.store,
            &devices[0].to_prekey_bundle(&ik).unwrap(),
            SystemTime::now(),
            &mut rng,
        )
        .unwrap();
        send_pairwise(&mut alice, to, skdm.serialized()).await;
    }
    for p in [&mut bob, &mut carol] {
        let mut rx = p.client.receive();
        let env = tokio::time::timeout(Duration::from_secs(10), rx.next())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(env.r#type, 3);
        assert_eq!(
            env.source_service_id.as_deref(),
            Some(alice.at.name.as_str())
        );
        let m = CiphertextMessage::deserialize(3, &env.content).unwrap();
        let pt = decrypt(&alice.at, &mut p.store, &m, &mut rng).unwrap();
        process_distribution_message(
            &alice.at,
            &SenderKeyDistributionMessage::deserialize(&pt).unwrap(),
            &mut p.store,
        )
        .unwrap();
        rx.ack(&env);
    }

    // One group message, sealed once for both, sent in one request.
    let root = PublicKey::deserialize(&alice.client.trust_root().await.unwrap()).unwrap();
    let cert =
        SenderCertificate::deserialize(&alice.client.sender_certificate().await.unwrap()).unwrap();
    assert!(cert.validate(&[root], alibi_relay::now_ms()));
    let skm = group_encrypt(&mut alice.store, &alice.at, dist, b"hello group", &mut rng).unwrap();
    let usmc = UnidentifiedSenderMessageContent::new(
        ContentType::SenderKey,
        cert,
        skm.serialized().to_vec(),
        0,
        None,
    );
    let recipients: Vec<Recipient> = [&bob, &carol]
        .iter()
        .map(|p| Recipient {
            service_id: ServiceId::aci(p.client.account),
            identity: p.store.identity_key_pair().unwrap().identity,
            devices: vec![(1, p.store.local_registration_id().unwrap() as u16)],
        })
        .collect();
    let sent = v2::encrypt(
        &usmc,
        &alice.store.identity_key_pair().unwrap(),
        &recipients,
        &[],
        &mut rng,
    )
    .unwrap();
    // Without the XOR of both recipients' access keys the relay refuses it.
    for wrong in [
        [0u8; 16],
        bob.access_key,
        combine([&bob.access_key, &alice.access_key]),
    ] {
        match alice.client.multi_send(sent.clone(), &wrong).await.unwrap() {
            Err(SendError::Other(401, _)) => {}
            other => panic!("expected 401, got {other:?}"),
        }
    }
    let both = combine([&bob.access_key, &carol.access_key]);
    alice.client.multi_send(sent, &both).await.unwrap().unwrap();
    for p in [&mut bob, &mut carol] {
        let mut rx = p.client.receive();
        let env = loop {
            let e = tokio::time::timeout(Duration::from_secs(10), rx.next())
                .await
                .unwrap()
                .unwrap();
            if e.r#type == 6 {
                break e;
            }
        };
        assert!(
            env.source_service_id.is_none(),
            "sealed: the relay does not name the sender"
        );
        let d = sealed_sender::decrypt(
            &env.content,
            &[root],
            alibi_relay::now_ms(),
            &p.at,
            &mut p.store,
            &mut rng,
        )
        .unwrap();
        assert_eq!(d.plaintext, b"hello group");
        assert_eq!(d.sender_uuid, alice.at.name);
        rx.ack(&env);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_requests_get_clear_4xx() {
    let relay = start(Config {
        rate_per_device: 20.0,
        ..Config::default()
    })
    .await;
    let mut rng = ChaCha20Rng::from_seed([61; 32]);
    let alice = party(&relay, &mut rng, 11, 2, 1).await;
    let bob = party(&relay, &mut rng, 22, 2, 1).await;
    let http = reqwest::Client::new();

    // Prekey exhaustion: two one-time EC keys and one KEM key, then the last-resort KEM key.
    let mut seen = vec![];
    for _ in 0..4 {
        let (_, d) = alice
            .client
            .fetch_bundles(bob.client.account, Some(1))
            .await
            .unwrap();
        seen.push((d[0].pre_key.as_ref().map(|k| k.id), d[0].pq_pre_key.id));
    }
    assert_eq!(
        seen,
        vec![
            (Some(FIRST_EC_ID), FIRST_PQ_ID),
            (Some(FIRST_EC_ID + 1), LAST_RESORT_ID),
            (None, LAST_RESORT_ID),
            (None, LAST_RESORT_ID)
        ]
    );

    // 409: a device left out; 410: a stale registration id.
    let bob2 = bob
        .client
        .add_device(2, 23, "another-device-secret-456")
        .await
        .unwrap();
    let msg = |d: u8, reg: u16| OutgoingMessage {
        kind: 1,
        destination_device_id: d,
        destination_registration_id: reg,
        content: vec![1, 2, 3],
    };
    assert_eq!(
        alice
            .client
            .send(bob.client.account, vec![msg(1, 22)])
            .await
            .unwrap(),
        Err(SendError::MismatchedDevices {
            missing: vec![2],
            extra: vec![]
        })
    );
    assert_eq!(
        alice
            .client
            .send(bob.client.account, vec![msg(1, 22), msg(2, 23), msg(3, 1)])
            .await
            .unwrap(),
        Err(SendError::MismatchedDevices {
            missing: vec![],
            extra: vec![3]
        })
    );
    assert_eq!(
        alice
            .client
            .send(bob.client.account, vec![msg(1, 21), msg(2, 23)])
            .await
            .unwrap(),
        Err(SendError::StaleDevices(vec![1]))
    );
    alice
        .client
        .send(bob.client.account, vec![msg(1, 22), msg(2, 23)])
        .await
        .unwrap()
        .unwrap();

    // Mailboxes are per device: device 2 sees its own envelope only, and cannot ack device 1's.
    let mut rx2 = bob2.receive();
    let e2 = tokio::time::timeout(Duration::from_secs(10), rx2.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(e2.destination_device, 2);
    let mut rx1 = bob.client.receive();
    let e1 = tokio::time::timeout(Duration::from_secs(10), rx1.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(e1.destination_device, 1);
    rx2.ack(&e1); // not its envelope: ignored
    rx2.ack(&e2);
    drop(rx1);
    let mut rx1 = bob.client.receive();
    let again = tokio::time::timeout(Duration::from_secs(10), rx1.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        again.server_guid, e1.server_guid,
        "unacknowledged envelopes come again"
    );

    // Bad credentials, malformed and oversized bodies, unknown accounts: 4xx with a reason.
    let wrong = RelayClient::existing(&relay.url, bob.client.account, 1, "not-the-secret-at-all");
    assert!(wrong
        .key_counts()
        .await
        .unwrap_err()
        .to_string()
        .contains("401"));
    let r = http
        .put(format!("{}/v2/keys", relay.url))
        .basic_auth(
            format!("{}.1", alice.client.account),
            Some("a-long-device-secret-123"),
        )
        .body("{not json")
        .header("content-type", "application/json")
        .send()
        .await
        .unwrap();
    assert!(r.status().is_client_error(), "{}", r.status());
    let r = http
        .put(format!("{}/v1/messages/multi_recipient", relay.url))
        .body(vec![0x23, 0xff])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let r = http
        .put(format!("{}/v1/messages/multi_recipient", relay.url))
        .body(vec![0u8; 3 * 1024 * 1024])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413);
    assert_eq!(
        alice
            .client
            .send(Uuid::new_v4(), vec![msg(1, 1)])
            .await
            .unwrap(),
        Err(SendError::Other(404, "no such account".into()))
    );
    let forged = KeysUpload {
        signed_pre_key: Some(SignedKey {
            id: 2,
            public: KeyPair::generate(&mut rng).public.serialize().to_vec(),
            signature: vec![0; 64],
        }),
        ..Default::default()
    };
    assert!(alice
        .client
        .upload_keys(&forged)
        .await
        .unwrap_err()
        .to_string()
        .contains("400"));

    // Per-device rate limit: a burst past twice the rate gets 429.
    let mut limited = false;
    for _ in 0..100 {
        if let Err(e) = alice.client.key_counts().await {
            assert!(e.to_string().contains("429"), "{e}");
            limited = true;
            break;
        }
    }
    assert!(limited);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_holds_at_most_a_window_of_unacknowledged_envelopes() {
    let relay = start(Config::default()).await;
    let mut rng = ChaCha20Rng::from_seed([62; 32]);
    let alice = party(&relay, &mut rng, 11, 0, 0).await;
    let bob = party(&relay, &mut rng, 22, 0, 0).await;
    for i in 0..200u32 {
        let m = OutgoingMessage {
            kind: 1,
            destination_device_id: 1,
            destination_registration_id: 22,
            content: i.to_be_bytes().to_vec(),
        };
        alice
            .client
            .send(bob.client.account, vec![m])
            .await
            .unwrap()
            .unwrap();
    }
    let mut rx = bob.client.receive();
    let mut held = vec![];
    while let Ok(Some(e)) = tokio::time::timeout(Duration::from_millis(700), rx.next()).await {
        held.push(e);
    }
    assert_eq!(
        held.len(),
        server::WINDOW,
        "the relay stops at its window until acknowledgements come"
    );
    // Acknowledging lets the rest through, in order.
    let mut all: Vec<u32> = vec![];
    for e in &held {
        all.push(u32::from_be_bytes(e.content[..4].try_into().unwrap()));
        rx.ack(e);
    }
    while all.len() < 200 {
        let e = tokio::time::timeout(Duration::from_secs(10), rx.next())
            .await
            .unwrap()
            .unwrap();
        all.push(u32::from_be_bytes(e.content[..4].try_into().unwrap()));
        rx.ack(&e);
    }
    assert_eq!(all, (0..200).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn injected_delay_applies_to_every_request() {
    let relay = start(Config {
        delay: Duration::from_millis(60),
        ..Config::default()
    })
    .await;
    let mut rng = ChaCha20Rng::from_seed([63; 32]);
    let alice = party(&relay, &mut rng, 11, 0, 0).await;
    let t = std::time::Instant::now();
    alice.client.key_counts().await.unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(60),
        "{:?}",
        t.elapsed()
    );
}

/// A sealed 1:1 send without the sender's credentials: the recipient's access key lets it in, the
/// envelope names no sender, and a wrong key, an unsealed type or an account without a key is
/// refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unidentified_sends_need_the_recipients_access_key() {
    let relay = start(Config::default()).await;
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let alice = party(&relay, &mut rng, 11, 1, 1).await;
    let bob = party(&relay, &mut rng, 12, 1, 1).await;
    let sealed = |kind| OutgoingMessage {
        kind,
        destination_device_id: 1,
        destination_registration_id: 12,
        content: b"sealed bytes".to_vec(),
    };
    let to_bob = bob.client.account;
    let status = |r: Result<(), SendError>| match r {
        Ok(()) => 200,
        Err(SendError::Other(s, _)) => s,
        Err(e) => panic!("{e:?}"),
    };
    let r = alice
        .client
        .send_unidentified(to_bob, vec![sealed(6)], &alice.access_key);
    assert_eq!(status(r.await.unwrap()), 401);
    let r = alice
        .client
        .send_unidentified(to_bob, vec![sealed(1)], &bob.access_key);
    assert_eq!(status(r.await.unwrap()), 400);
    let r = alice
        .client
        .send_unidentified(Uuid::new_v4(), vec![sealed(6)], &bob.access_key);
    assert_eq!(status(r.await.unwrap()), 401);
    let r = alice
        .client
        .send_unidentified(to_bob, vec![sealed(6)], &bob.access_key);
    assert_eq!(status(r.await.unwrap()), 200);
    let mut rx = bob.client.receive();
    let env = tokio::time::timeout(Duration::from_secs(10), rx.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (env.r#type, env.content.as_slice()),
        (6, &b"sealed bytes"[..])
    );
    assert_eq!((env.source_service_id, env.source_device), (None, None));

    // An account that never published a key cannot be reached unidentified.
    let id = IdentityKeyPair::generate(&mut rng);
    let carol = RelayClient::register(
        &relay.url,
        &id.identity.serialize(),
        13,
        "a-long-device-secret-123",
    )
    .await
    .unwrap();
    let r = alice
        .client
        .send_unidentified(carol.account, vec![sealed(6)], &[0; 16]);
    assert_eq!(status(r.await.unwrap()), 401);
}
