//! Group interop with libsignal itself (`@signalapp/libsignal-client` under Node, installed by the
//! test into `target/node-peers/`): sender-key messages both ways, sealed sender v1 both ways, and
//! a sealed-sender v2 message to three recipients made by us and opened by three libsignal
//! parties, and one made by libsignal and opened by three of ours. Certificates go both ways too:
//! libsignal validates ours and we validate its.
//!
//! Every test runs against 0.90.0 and against 0.103.0 (the newest, which requires SPQR): sealed
//! sender v1 carries a 1:1 session message, so it checks our SPQR sessions inside sealed sender.

use crate::common;

use std::time::SystemTime;

use alibi_channel::cipher::{encrypt, process_prekey_bundle};
use alibi_channel::sealed_sender;
use alibi_channel::sender_keys::{
    create_distribution_message, group_decrypt, group_encrypt, process_distribution_message,
    SenderKeyDistributionMessage,
};
use alibi_channel::{Address, InMemoryStore, ProtocolStore};
use alibi_handshake::PreKeyBundle;
use alibi_identity::{KemKeyType, PrivateKey};
use alibi_sealed_sender::v2::{Recipient, SentMessage};
use alibi_sealed_sender::{v1, v2, ContentType, SenderCertificate, ServiceId};
use alibi_testkit::node::{signal_peer, NodePeer};
use alibi_testkit::{hex, ok, unhex};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::{json, Value};
use uuid::Uuid;

/// The last release before SPQR became mandatory.
const PRE_SPQR: &str = "0.90.0";
/// The newest release.
const NEWEST: &str = "0.103.0";
const NOW: u64 = 1_800_000_000_000;
const LATER: u64 = NOW + 86_400_000;

fn uuid_of(i: u8) -> String {
    format!("bbbbbbbb-7000-11eb-b32a-33b8a8a487{i:02x}")
}

fn addr_json(a: &Address) -> Value {
    json!({"name": a.name, "device_id": a.device_id})
}

/// A libsignal party named by a UUID; returns it, its address and its published bundle.
fn libsignal_party(version: &str, name: &str) -> Option<(NodePeer, Address, PreKeyBundle)> {
    let mut p = signal_peer(version)?;
    let reg = 100 + name.as_bytes()[name.len() - 1] as u32;
    let v =
        ok(p.call(&json!({"cmd": "init", "name": name, "device_id": 1, "registration_id": reg})));
    let bundle = common::bundle_from_json(&v);
    Some((p, Address::new(name, 1), bundle))
}

fn bundle_request(b: &PreKeyBundle, to: &Address) -> Value {
    let mut req = common::bundle_json(b);
    req["cmd"] = json!("process_bundle");
    req["address"] = addr_json(to);
    req
}

fn shuffled(n: usize, rng: &mut ChaCha20Rng) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    common::shuffle(&mut v, rng);
    v
}

#[test]
fn sender_key_messages_both_ways() {
    sender_key_messages(PRE_SPQR);
}

#[test]
fn sender_key_messages_both_ways_libsignal_0_103() {
    sender_key_messages(NEWEST);
}

fn sender_key_messages(version: &str) {
    let mut rng = ChaCha20Rng::from_seed([50; 32]);
    let Some((mut peer, p_at, _)) = libsignal_party(version, &uuid_of(1)) else {
        return;
    };
    let us_at = Address::new(uuid_of(2), 1);
    let mut us = common::party(&mut rng, 2);
    let dist = Uuid::parse_str("d1d1d1d1-7000-41eb-b32a-33b8a8a48701").unwrap();

    // Theirs to us.
    let v =
        ok(peer
            .call(&json!({"cmd": "sender_key_distribution", "distribution_id": dist.to_string()})));
    let skdm = SenderKeyDistributionMessage::deserialize(&unhex(&v["skdm"])).unwrap();
    assert_eq!(skdm.distribution_id, dist);
    process_distribution_message(&p_at, &skdm, &mut us).unwrap();
    let sent: Vec<(Vec<u8>, Vec<u8>)> = (0..20)
        .map(|i| {
            let pt = format!("libsignal to the group #{i}").into_bytes();
            let v = ok(peer.call(&json!({"cmd": "group_encrypt", "distribution_id": dist.to_string(), "plaintext": hex(&pt)})));
            (pt, unhex(&v["body"]))
        })
        .collect();
    for i in shuffled(sent.len(), &mut rng) {
        assert_eq!(
            group_decrypt(&sent[i].1, &mut us, &p_at).unwrap(),
            sent[i].0
        );
    }

    // Ours to them.
    let skdm = create_distribution_message(&us_at, dist, &mut us, &mut rng).unwrap();
    ok(peer.call(&json!({"cmd": "process_sender_key_distribution", "address": addr_json(&us_at), "skdm": hex(skdm.serialized())})));
    let sent: Vec<(Vec<u8>, Vec<u8>)> = (0..20)
        .map(|i| {
            let pt = format!("alibi to the group #{i}").into_bytes();
            let m = group_encrypt(&mut us, &us_at, dist, &pt, &mut rng).unwrap();
            (pt, m.serialized().to_vec())
        })
        .collect();
    for i in shuffled(sent.len(), &mut rng) {
        let v = ok(peer.call(
            &json!({"cmd": "group_decrypt", "address": addr_json(&us_at), "body": hex(&sent[i].1)}),
        ));
        assert_eq!(unhex(&v["plaintext"]), sent[i].0);
    }
    // libsignal refuses a message whose signature we broke.
    let mut bad = sent[0].1.clone();
    let n = bad.len();
    bad[n - 10] ^= 1;
    let v = peer
        .call(&json!({"cmd": "group_decrypt", "address": addr_json(&us_at), "body": hex(&bad)}));
    assert!(v.get("error").is_some(), "{v}");
}

#[test]
fn sealed_sender_v1_both_ways_and_certificates() {
    sealed_sender_v1(PRE_SPQR);
}

#[test]
fn sealed_sender_v1_both_ways_and_certificates_libsignal_0_103() {
    sealed_sender_v1(NEWEST);
}

fn sealed_sender_v1(version: &str) {
    let mut rng = ChaCha20Rng::from_seed([51; 32]);
    let Some((mut peer, p_at, p_bundle)) = libsignal_party(version, &uuid_of(3)) else {
        return;
    };
    let us_at = Address::new(uuid_of(4), 1);
    let mut us = common::party(&mut rng, 4);
    let auth = common::Authority::new(&mut rng);
    let root = auth.root.public_key();
    let root_json = hex(&root.serialize());

    // Our certificate, checked by libsignal: valid, expired, and under another root.
    let cert = auth.certify(&us, &us_at.name, 1, LATER, &mut rng);
    let check = |peer: &mut NodePeer, c: &SenderCertificate, time: u64, root: &str| {
        ok(peer.call(&json!({"cmd": "validate_certificate", "sender_certificate": hex(c.serialized()), "trust_root": root, "time": time})))["valid"]
            .as_bool()
            .unwrap()
    };
    assert!(check(&mut peer, &cert, NOW, &root_json));
    assert!(!check(&mut peer, &cert, LATER + 1, &root_json));
    let other_root = hex(&PrivateKey::generate(&mut rng).public_key().serialize());
    assert!(!check(&mut peer, &cert, NOW, &other_root));

    // Sealed v1, ours to theirs: the first (PreKey) message of a new session.
    process_prekey_bundle(&p_at, &mut us, &p_bundle, SystemTime::now(), &mut rng).unwrap();
    for i in 0..3 {
        let pt = format!("sealed from alibi #{i}").into_bytes();
        let inner = encrypt(&p_at, &mut us, &pt, SystemTime::now()).unwrap();
        let ty = if inner.message_type() == 3 {
            ContentType::PreKey
        } else {
            ContentType::Whisper
        };
        let usmc = common::usmc(ty, cert.clone(), inner.serialize());
        let sealed = v1::encrypt(
            &usmc,
            &us.identity_key_pair().unwrap(),
            &p_bundle.identity_key.0,
            &mut rng,
        );
        let v = ok(peer.call(&json!({"cmd": "sealed_decrypt_v1", "body": hex(&sealed), "trust_root": root_json, "timestamp": NOW})));
        assert_eq!(unhex(&v["plaintext"]), pt);
        assert_eq!(v["sender_uuid"], us_at.name.as_str());
    }
    // libsignal refuses our message under an expired certificate.
    let old = auth.certify(&us, &us_at.name, 1, NOW - 1, &mut rng);
    let inner = encrypt(&p_at, &mut us, b"late", SystemTime::now()).unwrap();
    let usmc = common::usmc(ContentType::PreKey, old, inner.serialize());
    let sealed = v1::encrypt(
        &usmc,
        &us.identity_key_pair().unwrap(),
        &p_bundle.identity_key.0,
        &mut rng,
    );
    let v = peer.call(&json!({"cmd": "sealed_decrypt_v1", "body": hex(&sealed), "trust_root": root_json, "timestamp": NOW}));
    assert!(v.get("error").is_some(), "{v}");

    // Theirs to ours, under a certificate libsignal makes with the same trust root.
    let v = ok(peer.call(&json!({
        "cmd": "make_certificates",
        "trust_root_private": hex(&auth.root.to_bytes()[..]),
        "server_key_private": hex(&auth.server_key.to_bytes()[..]),
        "server_key_id": 7,
        "sender_uuid": p_at.name,
        "sender_device_id": 1,
        "expiration": LATER,
    })));
    let their_cert = SenderCertificate::deserialize(&unhex(&v["sender_certificate"])).unwrap();
    assert!(their_cert.validate(&[root], NOW));
    assert!(!their_cert.validate(&[root], LATER + 1));
    assert_eq!(their_cert.key, p_bundle.identity_key.0);
    for i in 0..3 {
        let pt = format!("sealed from libsignal #{i}").into_bytes();
        let v = ok(peer.call(&json!({
            "cmd": "sealed_encrypt_v1", "address": addr_json(&us_at),
            "sender_certificate": hex(their_cert.serialized()), "plaintext": hex(&pt),
        })));
        let d = sealed_sender::decrypt(&unhex(&v["body"]), &[root], NOW, &us_at, &mut us, &mut rng)
            .unwrap();
        assert_eq!(d.plaintext, pt);
        assert_eq!(
            (d.sender_uuid.as_str(), d.device_id),
            (p_at.name.as_str(), 1)
        );
    }
}

#[test]
fn sealed_sender_v2_three_recipients_both_ways() {
    sealed_sender_v2(PRE_SPQR);
}

#[test]
fn sealed_sender_v2_three_recipients_both_ways_libsignal_0_103() {
    sealed_sender_v2(NEWEST);
}

fn sealed_sender_v2(version: &str) {
    let mut rng = ChaCha20Rng::from_seed([52; 32]);
    let mut peers = vec![];
    for i in 10..13 {
        let Some(p) = libsignal_party(version, &uuid_of(i)) else {
            return;
        };
        peers.push(p);
    }
    let auth = common::Authority::new(&mut rng);
    let root = auth.root.public_key();
    let root_json = hex(&root.serialize());
    let dist = Uuid::parse_str("d1d1d1d1-7000-41eb-b32a-33b8a8a48702").unwrap();

    // Ours to three libsignal parties: one sender-key message, one multi-recipient request.
    let us_at = Address::new(uuid_of(20), 1);
    let mut us = common::party(&mut rng, 20);
    let cert = auth.certify(&us, &us_at.name, 1, LATER, &mut rng);
    let skdm = create_distribution_message(&us_at, dist, &mut us, &mut rng).unwrap();
    for (p, _, _) in peers.iter_mut() {
        ok(p.call(&json!({"cmd": "process_sender_key_distribution", "address": addr_json(&us_at), "skdm": hex(skdm.serialized())})));
    }
    let recipients: Vec<Recipient> = peers
        .iter()
        .map(|(_, at, b)| Recipient {
            service_id: ServiceId::parse(&at.name).unwrap(),
            identity: b.identity_key,
            devices: vec![(1, b.registration_id as u16)],
        })
        .collect();
    let skm = group_encrypt(
        &mut us,
        &us_at,
        dist,
        b"one message, three readers",
        &mut rng,
    )
    .unwrap();
    let usmc = common::usmc(ContentType::SenderKey, cert, skm.serialized());
    let sent = v2::encrypt(
        &usmc,
        &us.identity_key_pair().unwrap(),
        &recipients,
        &[],
        &mut rng,
    )
    .unwrap();
    let parsed = SentMessage::parse(&sent).unwrap();
    for ((p, _, _), r) in peers.iter_mut().zip(&parsed.recipients) {
        let received = parsed.received_message(r).unwrap();
        let v = ok(p.call(&json!({"cmd": "sealed_decrypt_v2", "body": hex(&received), "trust_root": root_json, "timestamp": NOW})));
        assert_eq!(unhex(&v["plaintext"]), b"one message, three readers");
        assert_eq!(v["sender_uuid"], us_at.name.as_str());
        // libsignal's own server-side split of our request agrees with ours byte for byte.
        let split = ok(p.call(&json!({"cmd": "sent_to_received", "body": hex(&sent), "recipient": r.service_id.to_string()})));
        assert_eq!(unhex(&split["body"]), received);
    }
    // A tampered authentication tag is refused by libsignal.
    let mut bad = parsed.received_message(&parsed.recipients[0]).unwrap();
    bad[40] ^= 1;
    let v = peers[0].0.call(&json!({"cmd": "sealed_decrypt_v2", "body": hex(&bad), "trust_root": root_json, "timestamp": NOW}));
    assert!(v.get("error").is_some(), "{v}");

    // libsignal (the first peer) to three of ours.
    let (sender, s_at, s_bundle) = &mut peers[0];
    let mut ours: Vec<(Address, InMemoryStore, PreKeyBundle)> = (30..33)
        .map(|i| {
            let mut s = common::party(&mut rng, 300 + i as u32);
            let b = common::publish(&mut s, &mut rng, true, Some(KemKeyType::Kyber1024));
            (Address::new(uuid_of(i), 1), s, b)
        })
        .collect();
    for (at, _, b) in &ours {
        ok(sender.call(&bundle_request(b, at)));
    }
    let v = ok(sender
        .call(&json!({"cmd": "sender_key_distribution", "distribution_id": dist.to_string()})));
    let their_skdm = SenderKeyDistributionMessage::deserialize(&unhex(&v["skdm"])).unwrap();
    for (_, s, _) in ours.iter_mut() {
        process_distribution_message(s_at, &their_skdm, s).unwrap();
    }
    let v = ok(sender.call(&json!({
        "cmd": "make_certificates",
        "trust_root_private": hex(&auth.root.to_bytes()[..]),
        "server_key_private": hex(&auth.server_key.to_bytes()[..]),
        "server_key_id": 7,
        "sender_uuid": s_at.name,
        "sender_device_id": 1,
        "expiration": LATER,
    })));
    let v = ok(sender.call(&json!({
        "cmd": "sealed_encrypt_v2",
        "addresses": ours.iter().map(|(at, _, _)| addr_json(at)).collect::<Vec<_>>(),
        "sender_certificate": v["sender_certificate"],
        "distribution_id": dist.to_string(),
        "plaintext": hex(b"from libsignal to three"),
    })));
    let sent = unhex(&v["body"]);
    assert_eq!(sent[0], 0x23);
    let parsed = SentMessage::parse(&sent).unwrap();
    assert_eq!(parsed.recipients.len(), 3);
    for (r, (at, s, b)) in parsed.recipients.iter().zip(ours.iter_mut()) {
        assert_eq!(r.service_id.to_string(), at.name);
        assert_eq!(r.devices, vec![(1, b.registration_id as u16)]);
        let d = sealed_sender::decrypt(
            &parsed.received_message(r).unwrap(),
            &[root],
            NOW,
            at,
            s,
            &mut rng,
        )
        .unwrap();
        assert_eq!(d.plaintext, b"from libsignal to three");
        assert_eq!(
            (d.sender_uuid.as_str(), d.msg_type),
            (s_at.name.as_str(), ContentType::SenderKey)
        );
    }
    let _ = s_bundle;
}
