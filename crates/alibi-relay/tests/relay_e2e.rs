//! The relay end to end over loopback, on the redb store: registration, keys, a PQXDH session
//! through the prekey directory and mailboxes, a sealed-sender v2 group message through one
//! multi-recipient request, and the answers the API owes to wrong requests.

use std::time::{Duration, SystemTime};

use alibi_channel::cipher::{decrypt, encrypt, process_prekey_bundle, CiphertextMessage};
use alibi_channel::sealed_sender;
use alibi_channel::sender_keys::{
    create_distribution_message, group_encrypt, process_distribution_message,
    SenderKeyDistributionMessage,
};
use alibi_channel::{Address, InMemoryStore, ProtocolStore};
use alibi_identity::{IdentityKeyPair, KeyPair, PublicKey};
use alibi_messenger::relay::{Receiver, RelayClient, SendError};
use alibi_messenger::{generate_keys, to_prekey_bundle};
use alibi_relay::local::LocalRelay;
use alibi_relay::server::{self, Config};
use alibi_relay_api::access::{combine, derive_access_key, AccessKey};
use alibi_relay_api::keys::{KeysUpload, SignedKey};
use alibi_relay_api::messages::OutgoingMessage;
use alibi_relay_api::proto::envelope::Type;
use alibi_relay_api::proto::Envelope;
use alibi_sealed_sender::v2::Recipient;
use alibi_sealed_sender::{
    v2, ContentType, SenderCertificate, ServiceId, UnidentifiedSenderMessageContent,
};
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use uuid::Uuid;

async fn start(config: Config) -> LocalRelay {
    LocalRelay::start(config).await.unwrap()
}

/// A party: its protocol store (with the private halves of its keys), its relay client, and the
/// keys it published.
struct Party {
    store: InMemoryStore,
    client: RelayClient,
    at: Address,
    access_key: AccessKey,
    keys: KeysUpload,
}

/// Registers, and publishes a signed prekey, `n_ec` one-time EC prekeys, `n_pq` one-time KEM
/// prekeys and a last-resort KEM prekey (one-time ids random, as `alibi_messenger` draws them).
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
        keys,
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
        let resp = alice
            .client
            .fetch_bundles(to.client.account, None)
            .await
            .unwrap();
        assert_eq!(resp.devices.len(), 1);
        assert_eq!(resp.devices[0].device_id, 1);
        // The relay's copy of the identity key is the one the party registered (the one a card
        // would pin).
        let pinned = to.store.identity_key_pair().unwrap().identity;
        assert_eq!(resp.identity_key, pinned.serialize());
        process_prekey_bundle(
            &to.at,
            &mut alice.store,
            &to_prekey_bundle(&resp.devices[0], &pinned, false).unwrap(),
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
        assert_eq!(env.r#type(), Type::PrekeyBundle);
        assert_eq!(
            env.source_service_id.as_deref(),
            Some(alice.at.name.as_str())
        );
        assert_eq!(env.source(), Some(alice.client.account));
        assert_eq!(env.source_device, Some(1));
        assert_eq!(
            env.destination_service_id,
            Some(p.client.account.to_string())
        );
        assert!(env.guid().is_some(), "server_guid is a UUID string");
        let m = CiphertextMessage::deserialize(3, env.content()).unwrap();
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
    assert!(cert.validate(&[root], alibi_relay_api::now_ms()));
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
        match alice
            .client
            .multi_send(sent.clone(), &wrong, false)
            .await
            .unwrap()
        {
            Err(SendError::Other(401, _)) => {}
            other => panic!("expected 401, got {other:?}"),
        }
    }
    let both = combine([&bob.access_key, &carol.access_key]);
    alice
        .client
        .multi_send(sent.clone(), &both, false)
        .await
        .unwrap()
        .unwrap();
    let mut inboxes = [bob.client.receive(), carol.client.receive()];
    let mut firsts = vec![];
    for (p, rx) in [&mut bob, &mut carol].into_iter().zip(&mut inboxes) {
        let env = next_sealed(rx).await;
        assert!(
            env.source_service_id.is_none() && env.source_device.is_none(),
            "sealed: the relay does not name the sender"
        );
        assert_eq!(
            env.destination_service_id,
            Some(p.client.account.to_string())
        );
        let d = sealed_sender::decrypt(
            env.content(),
            &[root],
            alibi_relay_api::now_ms(),
            &p.at,
            &mut p.store,
            &mut rng,
        )
        .unwrap();
        assert_eq!(d.plaintext, b"hello group");
        assert_eq!(d.sender_uuid, alice.at.name);
        assert_eq!(env.device_part, None);
        rx.ack(&env);
        firsts.push(env.content().to_vec());
    }

    // With parts: each reaches its device alone, in its envelope.
    let parts = [b"for bob alone".to_vec(), vec![]];
    let short = &parts[..1];
    match alice
        .client
        .multi_send_parts(sent.clone(), short, &both, false)
        .await
    {
        Ok(Err(SendError::Other(400, _))) => {}
        other => panic!("one length for two entries: expected 400, got {other:?}"),
    }
    let sending = alice
        .client
        .multi_send_parts(sent.clone(), &parts, &both, false)
        .await;
    sending.unwrap().unwrap();
    let expected = [Some(parts[0].clone()), None];
    for ((rx, part), first) in inboxes.iter_mut().zip(expected).zip(&firsts) {
        let env = next_sealed(rx).await;
        assert_eq!(env.device_part, part);
        assert_eq!(
            env.content(),
            first,
            "the sealed message is as without parts"
        );
        rx.ack(&env);
    }

    // Carol links a second device: the 409 names her account alone, with its lists
    // (Signal-Server's `[{uuid, devices}]`), so nobody corrects Bob's. Sent to the listed
    // devices alone (`alibi-listed-devices`), the message goes through to device 1.
    carol
        .client
        .add_device(2, 77, "a-second-device-password")
        .await
        .unwrap();
    match alice.client.multi_send(sent.clone(), &both, false).await {
        Ok(Err(SendError::Accounts(a))) => {
            assert_eq!(a.len(), 1, "{a:?}");
            assert_eq!(a[0].0, carol.client.account);
            assert_eq!(a[0].1.missing_devices, [2]);
        }
        other => panic!("expected a 409 naming Carol's account, got {other:?}"),
    }
    alice
        .client
        .multi_send(sent, &both, true)
        .await
        .unwrap()
        .unwrap();
    let env = next_sealed(&mut inboxes[1]).await;
    assert_eq!(
        env.destination_service_id,
        Some(carol.client.account.to_string())
    );
}

/// The next sealed envelope from `rx` (others skipped), within 10 s.
async fn next_sealed(rx: &mut Receiver) -> Envelope {
    loop {
        let e = tokio::time::timeout(Duration::from_secs(10), rx.next())
            .await
            .unwrap()
            .unwrap();
        if e.r#type() == Type::UnidentifiedSender {
            return e;
        }
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

    // Prekey exhaustion: two one-time EC keys (in id order) and one KEM key, then the
    // last-resort KEM key. The one-time ids are random: they come from Bob's upload.
    let mut ec_ids: Vec<u32> = bob.keys.pre_keys.iter().map(|k| k.id).collect();
    ec_ids.sort_unstable();
    assert_eq!(ec_ids.len(), 2);
    assert_eq!(bob.keys.pq_pre_keys.len(), 1);
    let pq_id = bob.keys.pq_pre_keys[0].id;
    let last_resort = bob.keys.pq_last_resort_pre_key.as_ref().unwrap().id;
    let signed_id = bob.keys.signed_pre_key.as_ref().unwrap().id;
    assert_ne!(
        pq_id, last_resort,
        "the sequence tells one-time from last resort"
    );
    let mut seen = vec![];
    for _ in 0..4 {
        let resp = alice
            .client
            .fetch_bundles(bob.client.account, Some(1))
            .await
            .unwrap();
        assert_eq!(resp.devices.len(), 1);
        let d = &resp.devices[0];
        assert_eq!((d.device_id, d.registration_id), (1, 22));
        assert_eq!(d.signed_pre_key.id, signed_id);
        seen.push((
            d.pre_key.as_ref().map(|k| k.id),
            d.pq_pre_key.as_ref().map(|k| k.id),
        ));
    }
    assert_eq!(
        seen,
        vec![
            (Some(ec_ids[0]), Some(pq_id)),
            (Some(ec_ids[1]), Some(last_resort)),
            (None, Some(last_resort)),
            (None, Some(last_resort))
        ]
    );

    // 409: a device left out; 410: a stale registration id.
    let bob2 = bob
        .client
        .add_device(2, 23, "another-device-secret-456")
        .await
        .unwrap();
    // Each device's message names it in its content, so a receiver can tell whose it got.
    let msg = |d: u8, reg: u16| OutgoingMessage {
        kind: 1,
        destination_device_id: d,
        destination_registration_id: reg,
        content: vec![d, 2, 3],
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
    // (Envelopes carry no device field: which receiver got which content tells.)
    let mut rx2 = bob2.receive();
    let e2 = tokio::time::timeout(Duration::from_secs(10), rx2.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(e2.content(), [2, 2, 3]);
    assert_eq!(
        e2.destination_service_id,
        Some(bob.client.account.to_string())
    );
    assert!(
        tokio::time::timeout(Duration::from_millis(500), rx2.next())
            .await
            .is_err(),
        "device 2 gets nothing else"
    );
    let mut rx1 = bob.client.receive();
    let e1 = tokio::time::timeout(Duration::from_secs(10), rx1.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(e1.content(), [1, 2, 3]);
    assert_ne!(e1.guid(), e2.guid());
    rx2.ack(&e1); // not its envelope: ignored
    rx2.ack(&e2);
    drop(rx1);
    let mut rx1 = bob.client.receive();
    let again = tokio::time::timeout(Duration::from_secs(10), rx1.next())
        .await
        .unwrap()
        .unwrap();
    assert!(again.guid().is_some());
    assert_eq!(
        again.guid(),
        e1.guid(),
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
    assert_eq!(
        oversized_put_status(&relay.url, "/v1/messages/multi_recipient", 3 * 1024 * 1024).await,
        413
    );
    // With parts: a body that is no MultiRecipientParts, and one whose message is malformed.
    for body in [vec![0xff, 0xff], vec![0x0a, 0x02, 0x23, 0xff]] {
        let r = http
            .put(format!("{}/v1/messages/multi_recipient/parts", relay.url))
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400);
    }
    assert_eq!(
        oversized_put_status(&relay.url, "/v1/messages/multi_recipient/parts", 3 << 20).await,
        413
    );
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
    // A RingXKEM bundle (opaque to the relay) past its size bound is refused.
    let oversized = KeysUpload {
        ringxkem_pre_key: Some(alibi_relay_api::keys::RingXkemKey {
            id: 1,
            bundle: vec![0; alibi_relay_api::keys::MAX_RINGXKEM_BUNDLE + 1],
        }),
        ..Default::default()
    };
    assert!(alice
        .client
        .upload_keys(&oversized)
        .await
        .unwrap_err()
        .to_string()
        .contains("413"));

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
        all.push(u32::from_be_bytes(e.content()[..4].try_into().unwrap()));
        rx.ack(e);
    }
    while all.len() < 200 {
        let e = tokio::time::timeout(Duration::from_secs(10), rx.next())
            .await
            .unwrap()
            .unwrap();
        all.push(u32::from_be_bytes(e.content()[..4].try_into().unwrap()));
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
        (env.r#type(), env.content()),
        (Type::UnidentifiedSender, &b"sealed bytes"[..])
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

/// The names of a JSON object's fields.
fn fields(v: &serde_json::Value) -> std::collections::BTreeSet<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .map(String::as_str)
        .collect()
}

/// A standard base64 JSON string's bytes.
fn b64(v: &serde_json::Value) -> Vec<u8> {
    use base64::Engine;
    let s = v.as_str().unwrap_or_else(|| panic!("not a string: {v}"));
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// The JSON the relay answers with, read as plain JSON (no `alibi-relay-api` types), so a renamed
/// field in the contract crate fails here rather than only in other clients: Signal-Server's names
/// for accounts, certificates, key counts and bundles, and the device lists of 409 and 410.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_answers_use_signal_server_names() {
    use base64::Engine;
    use serde_json::{json, Value};
    let b64e = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let relay = start(Config::default()).await;
    let mut rng = ChaCha20Rng::from_seed([64; 32]);
    let alice = party(&relay, &mut rng, 11, 1, 1).await;
    let bob = party(&relay, &mut rng, 22, 1, 1).await;
    let secret = "a-long-device-secret-123";
    let http = reqwest::Client::new();
    let get = |path: &str, user: String| {
        http.get(format!("{}{path}", relay.url))
            .basic_auth(user, Some(secret))
            .send()
    };
    let (alice_user, bob_user) = (
        format!("{}.1", alice.client.account),
        format!("{}.1", bob.client.account),
    );

    // POST /v1/accounts, written by hand: {"uuid", "deviceId"}.
    let id = IdentityKeyPair::generate(&mut rng);
    let r = http
        .post(format!("{}/v1/accounts", relay.url))
        .json(&json!({
            "identityKey": b64e(&id.identity.serialize()),
            "registrationId": 33,
            "password": secret,
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(fields(&v), ["deviceId", "uuid"].into());
    assert_eq!(v["deviceId"], 1);
    Uuid::parse_str(v["uuid"].as_str().unwrap()).unwrap();

    // Certificates: {"trustRoot"} and {"certificate"}.
    let r = http
        .get(format!("{}/v1/certificate/trust_root", relay.url))
        .send()
        .await
        .unwrap();
    let v: Value = r.json().await.unwrap();
    assert_eq!(fields(&v), ["trustRoot"].into());
    assert_eq!(b64(&v["trustRoot"]).len(), 33);
    let v: Value = get("/v1/certificate/delivery", alice_user.clone())
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(fields(&v), ["certificate"].into());
    SenderCertificate::deserialize(&b64(&v["certificate"])).unwrap();

    // GET /v2/keys: {"count", "pqCount"}.
    let r = get("/v2/keys", bob_user.clone()).await.unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v, json!({"count": 1, "pqCount": 1}));

    // GET /v2/keys/{account}/1: {"identityKey", "devices": [{"deviceId", "registrationId",
    // "signedPreKey": {"keyId", "publicKey", "signature"}, "preKey": {"keyId", "publicKey"},
    // "pqPreKey": {"keyId", "publicKey", "signature"}}]}, bytes as standard base64.
    let path = format!("/v2/keys/{}/1", bob.client.account);
    let r = get(&path, alice_user.clone()).await.unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(fields(&v), ["devices", "identityKey"].into());
    assert_eq!(
        b64(&v["identityKey"]),
        bob.store.identity_key_pair().unwrap().identity.serialize()
    );
    assert_eq!(v["devices"].as_array().unwrap().len(), 1);
    let dev = &v["devices"][0];
    assert_eq!(
        fields(dev),
        [
            "deviceId",
            "pqPreKey",
            "preKey",
            "registrationId",
            "signedPreKey"
        ]
        .into()
    );
    assert_eq!(
        (&dev["deviceId"], &dev["registrationId"]),
        (&json!(1), &json!(22))
    );
    let signed_fields = ["keyId", "publicKey", "signature"].into();
    let check_signed = |got: &Value, want: &SignedKey| {
        assert_eq!(fields(got), signed_fields);
        assert_eq!(got["keyId"], want.id);
        assert_eq!(b64(&got["publicKey"]), want.public);
        assert_eq!(b64(&got["signature"]), want.signature);
    };
    check_signed(
        &dev["signedPreKey"],
        bob.keys.signed_pre_key.as_ref().unwrap(),
    );
    check_signed(&dev["pqPreKey"], &bob.keys.pq_pre_keys[0]);
    assert_eq!(fields(&dev["preKey"]), ["keyId", "publicKey"].into());
    assert_eq!(dev["preKey"]["keyId"], bob.keys.pre_keys[0].id);
    assert_eq!(
        b64(&dev["preKey"]["publicKey"]),
        bob.keys.pre_keys[0].public
    );
    // Once the one-time keys are gone: no EC prekey, and the last-resort KEM prekey.
    let v: Value = get(&path, alice_user.clone())
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let dev = &v["devices"][0];
    assert!(dev["preKey"].is_null(), "{dev}");
    check_signed(
        &dev["pqPreKey"],
        bob.keys.pq_last_resort_pre_key.as_ref().unwrap(),
    );

    // PUT /v1/messages/{account}, written by hand. Type 8 (plaintext content) is accepted and
    // answered {"needsSync": false}; an unknown type is a 400 with only {"error"}.
    let send = |messages: Value| {
        http.put(format!("{}/v1/messages/{}", relay.url, bob.client.account))
            .basic_auth(alice_user.clone(), Some(secret))
            .json(&json!({"messages": messages, "timestamp": 5}))
            .send()
    };
    let m = |kind: u32, d: u8, reg: u16| {
        json!({
            "type": kind,
            "destinationDeviceId": d,
            "destinationRegistrationId": reg,
            "content": b64e(&[kind as u8, d]),
        })
    };
    let r = send(json!([m(8, 1, 22)])).await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"needsSync": false})
    );
    let r = send(json!([m(2, 1, 22)])).await.unwrap();
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert_eq!(fields(&v), ["error"].into());
    assert!(!v["error"].as_str().unwrap().is_empty());
    let mut rx = bob.client.receive();
    let env = tokio::time::timeout(Duration::from_secs(10), rx.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (env.r#type(), env.content()),
        (Type::PlaintextContent, &[8u8, 1][..])
    );
    assert_eq!(env.source(), Some(alice.client.account));
    assert_eq!(env.client_timestamp, Some(5));
    rx.ack(&env);

    // 409: {"error", "missingDevices", "extraDevices"}, both arrays present even when empty.
    bob.client
        .add_device(2, 23, "another-device-secret-456")
        .await
        .unwrap();
    let r = send(json!([m(1, 1, 22)])).await.unwrap();
    assert_eq!(r.status(), 409);
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        fields(&v),
        ["error", "extraDevices", "missingDevices"].into()
    );
    assert_eq!(
        (&v["missingDevices"], &v["extraDevices"]),
        (&json!([2]), &json!([]))
    );
    let r = send(json!([m(1, 1, 22), m(1, 2, 23), m(1, 3, 1)]))
        .await
        .unwrap();
    assert_eq!(r.status(), 409);
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        (&v["missingDevices"], &v["extraDevices"]),
        (&json!([]), &json!([3]))
    );
    // 410: {"error", "staleDevices"}.
    let r = send(json!([m(1, 1, 21), m(1, 2, 23)])).await.unwrap();
    assert_eq!(r.status(), 410);
    let v: Value = r.json().await.unwrap();
    assert_eq!(fields(&v), ["error", "staleDevices"].into());
    assert_eq!(v["staleDevices"], json!([1]));
    // 404 for an unknown account: {"error"} only.
    let r = http
        .put(format!("{}/v1/messages/{}", relay.url, Uuid::new_v4()))
        .basic_auth(alice_user.clone(), Some(secret))
        .json(&json!({"messages": [m(1, 1, 1)], "timestamp": 5}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let v: Value = r.json().await.unwrap();
    assert_eq!(fields(&v), ["error"].into());
}

/// A sender (registration id 7) and a receiver (8) registered on `relay`.
async fn sender_and_receiver(relay: &LocalRelay, seed: u8) -> (RelayClient, RelayClient) {
    let mut rng = ChaCha20Rng::from_seed([seed; 32]);
    let mut clients = vec![];
    for (reg, password) in [(7, "sender-pass-012345"), (8, "receiver-pass-01234")] {
        let id = IdentityKeyPair::generate(&mut rng);
        let key = id.identity.serialize();
        clients.push(
            RelayClient::register(&relay.url, &key, reg, password)
                .await
                .unwrap(),
        );
    }
    let receiver = clients.pop().unwrap();
    (clients.pop().unwrap(), receiver)
}

/// An envelope pushed and never acknowledged is pushed again on the same socket after the
/// acknowledgement timeout (it neither waits for the socket to close nor keeps one of the
/// window's slots); once acknowledged it stops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unacknowledged_envelope_is_pushed_again() {
    let relay = LocalRelay::start(Config {
        ack_timeout: Duration::from_millis(300),
        ..Config::default()
    })
    .await
    .unwrap();
    let (sender, receiver) = sender_and_receiver(&relay, 90).await;
    let mut rx = receiver.receive();
    let m = OutgoingMessage {
        kind: 1,
        destination_device_id: 1,
        destination_registration_id: 8,
        content: b"lost ack".to_vec(),
    };
    sender
        .send(receiver.account, vec![m])
        .await
        .unwrap()
        .unwrap();
    let first = tokio::time::timeout(Duration::from_secs(3), rx.next())
        .await
        .expect("an envelope")
        .unwrap();
    // Not acknowledged: it comes again, the same envelope.
    let again = tokio::time::timeout(Duration::from_secs(3), rx.next())
        .await
        .expect("pushed again")
        .unwrap();
    assert_eq!(first.server_guid, again.server_guid);
    assert_eq!(again.content(), b"lost ack");
    rx.ack(&again);
    assert!(
        tokio::time::timeout(Duration::from_millis(1200), rx.next())
            .await
            .is_err(),
        "pushed again after its acknowledgement"
    );
}

/// `GET /metrics` counts what the relay did (stored, pushed, acknowledged, refused logins, store
/// calls) and `GET /health` answers while the store does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_and_health() {
    let relay = LocalRelay::start(Config {
        auth_failure_delay: Duration::ZERO,
        ..Config::default()
    })
    .await
    .unwrap();
    let http = reqwest::Client::new();
    let health = http
        .get(format!("{}/health", relay.url))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    let (sender, receiver) = sender_and_receiver(&relay, 91).await;
    let mut rx = receiver.receive();
    for i in 0..3u8 {
        let m = OutgoingMessage {
            kind: 1,
            destination_device_id: 1,
            destination_registration_id: 8,
            content: vec![i],
        };
        sender
            .send(receiver.account, vec![m])
            .await
            .unwrap()
            .unwrap();
    }
    for _ in 0..3 {
        let e = tokio::time::timeout(Duration::from_secs(3), rx.next())
            .await
            .unwrap()
            .unwrap();
        rx.ack(&e);
    }
    let wrong = RelayClient::existing(&relay.url, receiver.account, 1, "not-the-password-0");
    assert!(wrong.key_counts().await.is_err());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let text = http
        .get(format!("{}/metrics", relay.url))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let value = |name: &str| -> f64 {
        text.lines()
            .find(|l| l.starts_with(name) && !l.starts_with('#'))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name} missing from:\n{text}"))
    };
    assert_eq!(value("alibi_relay_envelopes_accepted_total"), 3.0);
    assert_eq!(value("alibi_relay_envelopes_pushed_total"), 3.0);
    assert_eq!(value("alibi_relay_envelopes_delivered_total"), 3.0);
    assert_eq!(value("alibi_relay_envelopes_queued"), 0.0);
    assert_eq!(value("alibi_relay_sockets"), 1.0);
    assert!(value("alibi_relay_auth_failures_total") >= 1.0);
    assert_eq!(
        value("alibi_relay_store_seconds_count{op=\"enqueue\"}"),
        3.0
    );
    assert!(value("alibi_relay_store_seconds_count{op=\"ack\"}") >= 3.0);
}

/// A device that reconnects at once (its new socket replacing the old) keeps its place: the old
/// socket's task, ending after the new one started, removes only its own entry, so the relay
/// still counts one socket and hands mail straight to the new one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fast_reconnect_keeps_the_new_socket_in_place() {
    use futures_util::StreamExt;
    use prost::Message as _;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let relay = LocalRelay::start(Config::default()).await.unwrap();
    let (sender, receiver) = sender_and_receiver(&relay, 92).await;
    let socket = || async {
        let mut req = format!("{}/v1/websocket/", relay.url.replacen("http", "ws", 1))
            .into_client_request()
            .unwrap();
        let cred = base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            format!("{}.1:receiver-pass-01234", receiver.account),
        );
        req.headers_mut()
            .insert("Authorization", format!("Basic {cred}").parse().unwrap());
        tokio_tungstenite::connect_async(req).await.unwrap().0
    };
    let mut old = socket().await;
    let mut new = socket().await;
    // The old socket is closed by the relay (its end comes after the new one took the place).
    while let Ok(Some(Ok(m))) = tokio::time::timeout(Duration::from_secs(3), old.next()).await {
        if m.is_close() {
            break;
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let metrics = reqwest::get(format!("{}/metrics", relay.url))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.lines().any(|l| l == "alibi_relay_sockets 1"),
        "the new socket is still in place:\n{metrics}"
    );
    let m = OutgoingMessage {
        kind: 1,
        destination_device_id: 1,
        destination_registration_id: 8,
        content: b"to the new socket".to_vec(),
    };
    sender
        .send(receiver.account, vec![m])
        .await
        .unwrap()
        .unwrap();
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(3), new.next())
            .await
            .expect("delivered on the new socket")
            .unwrap()
            .unwrap();
        let msg = alibi_relay_api::proto::WebSocketMessage::decode(&frame.into_data()[..]).unwrap();
        let Some(req) = msg.request else { continue };
        if req.path() == alibi_relay_api::paths::WS_MESSAGE {
            let env = alibi_relay_api::proto::Envelope::decode(req.body()).unwrap();
            assert_eq!(env.content(), b"to the new socket");
            break;
        }
    }
}

/// The status the relay answers a PUT of `len` bytes with, over a raw connection: the request head,
/// then as much of the body as the relay takes before it answers. The relay refuses an oversized
/// body before reading it and closes the connection, so an HTTP client still writing the body may
/// see a broken pipe instead of the answer (reqwest does, now and then); reading the answer
/// ourselves checks the refusal itself.
async fn oversized_put_status(url: &str, path: &str, len: usize) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = url.trim_start_matches("http://");
    let conn = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut rd, mut wr) = conn.into_split();
    let head = format!("PUT {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {len}\r\n\r\n");
    wr.write_all(head.as_bytes()).await.unwrap();
    // The body, while the answer is read: the relay may answer and close at any point of it, so
    // write errors are expected and ignored.
    let writer = tokio::spawn(async move {
        let chunk = vec![0u8; 64 * 1024];
        let mut sent = 0;
        while sent < len {
            let k = chunk.len().min(len - sent);
            if wr.write_all(&chunk[..k]).await.is_err() {
                break;
            }
            sent += k;
        }
        wr
    });
    let mut answer = vec![0u8; 1024];
    let n = tokio::time::timeout(Duration::from_secs(10), rd.read(&mut answer))
        .await
        .expect("the relay answers in time")
        .unwrap();
    writer.abort();
    let line = String::from_utf8_lossy(&answer[..n]);
    line.split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP status in {line:?}"))
}
