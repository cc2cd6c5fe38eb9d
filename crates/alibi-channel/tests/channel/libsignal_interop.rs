//! Interop with libsignal itself: the npm package `@signalapp/libsignal-client` (its prebuilt
//! native library), driven through `alibi-testkit`'s Node peer, which the test installs with npm
//! into `target/node-peers/`.
//!
//! * 0.90.0, the newest release before SPQR became mandatory (0.92): PQXDH with Kyber1024, both
//!   directions, 100-message conversations each way delivered out of order.
//! * 0.72.1, the newest release that still accepts X3DH (removed in 0.75): the same with X3DH.
//! * The golden transcript `tests/vectors/libsignal-0.90.0-transcript.json` (libsignal opening a
//!   session to our deterministic Bob, and our replies) is replayed byte for byte by the always-on
//!   test `golden_transcript`; `ALIBI_RECORD_GOLDEN=1` re-records it against the live peer.

use crate::common;

use std::time::SystemTime;

use alibi_channel::cipher::{
    decrypt, encrypt, encrypt_with_rng, process_prekey_bundle, CiphertextMessage,
};
use alibi_channel::{Address, InMemoryStore, ProtocolStore};
use alibi_handshake::PreKeyBundle;
use alibi_identity::KemKeyType;
use alibi_testkit::node::{signal_peer, NodePeer};
use alibi_testkit::{hex, ok, unhex};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::{json, Value};

const PQXDH_VERSION: &str = "0.90.0";
/// The last release with X3DH, and a PQXDH peer without SPQR (SPQR came in 0.75).
const X3DH_VERSION: &str = "0.72.1";
/// The newest libsignal, which requires SPQR.
const SPQR_VERSION: &str = "0.103.0";

/// The libsignal peer's address as we see it, and ours as it sees us ("alibi", 1).
fn peer_addr() -> Address {
    Address::new("libsignal", 1)
}

/// The peer's `process_bundle` command: the bundle's fields at the top level.
fn process_bundle_request(b: &PreKeyBundle) -> Value {
    let mut req = common::bundle_json(b);
    req["cmd"] = json!("process_bundle");
    req
}

/// We send `n` messages; libsignal decrypts them in a shuffled order.
fn we_send(
    peer: &mut NodePeer,
    us: &mut InMemoryStore,
    n: usize,
    tag: &str,
    rng: &mut ChaCha20Rng,
) {
    we_send_lossy(peer, us, n, 0, tag, rng)
}

/// We send `n` messages; `lost` of them never arrive, the rest arrive shuffled.
fn we_send_lossy(
    peer: &mut NodePeer,
    us: &mut InMemoryStore,
    n: usize,
    lost: usize,
    tag: &str,
    rng: &mut ChaCha20Rng,
) {
    let mut batch: Vec<(Vec<u8>, CiphertextMessage)> = (0..n)
        .map(|i| {
            let pt = format!("alibi {tag} #{i}").into_bytes();
            let m = encrypt_with_rng(&peer_addr(), us, &pt, SystemTime::now(), rng).unwrap();
            (pt, m)
        })
        .collect();
    common::shuffle(&mut batch, rng);
    batch.truncate(n - lost);
    for (pt, m) in batch {
        let r = ok(peer.call(
            &json!({"cmd": "decrypt", "type": m.message_type(), "body": hex(m.serialize())}),
        ));
        assert_eq!(unhex(&r["plaintext"]), pt);
    }
}

/// libsignal sends `n` messages; we decrypt them in a shuffled order.
fn they_send(
    peer: &mut NodePeer,
    us: &mut InMemoryStore,
    n: usize,
    tag: &str,
    rng: &mut ChaCha20Rng,
) {
    they_send_lossy(peer, us, n, 0, tag, rng)
}

/// libsignal sends `n` messages; `lost` of them never arrive, the rest arrive shuffled.
fn they_send_lossy(
    peer: &mut NodePeer,
    us: &mut InMemoryStore,
    n: usize,
    lost: usize,
    tag: &str,
    rng: &mut ChaCha20Rng,
) {
    let mut batch: Vec<(Vec<u8>, Value)> = (0..n)
        .map(|i| {
            let pt = format!("libsignal {tag} #{i}").into_bytes();
            (
                pt.clone(),
                ok(peer.call(&json!({"cmd": "encrypt", "plaintext": hex(&pt)}))),
            )
        })
        .collect();
    common::shuffle(&mut batch, rng);
    batch.truncate(n - lost);
    for (pt, r) in batch {
        let ty = r["type"].as_u64().unwrap() as u8;
        let m = CiphertextMessage::deserialize(ty, &unhex(&r["body"])).unwrap();
        assert_eq!(m.serialize(), &unhex(&r["body"])[..], "kept as received");
        assert_eq!(decrypt(&peer_addr(), us, &m, rng).unwrap(), pt);
    }
}

/// 100 messages each way, in rounds of 10 that alternate direction (so the DH ratchet turns)
/// and arrive out of order.
fn conversation(peer: &mut NodePeer, us: &mut InMemoryStore, rng: &mut ChaCha20Rng) {
    for round in 0..10 {
        we_send(peer, us, 10, &format!("round {round}"), rng);
        they_send(peer, us, 10, &format!("round {round}"), rng);
    }
}

/// 1,000 messages each way with SPQR: rounds of 10 alternating direction, shuffled, one in
/// ten lost. The ML-KEM Braid must carry its keys and ciphertexts across the losses, so the
/// SPQR epochs advance on both sides.
fn long_spqr_conversation(peer: &mut NodePeer, us: &mut InMemoryStore, rng: &mut ChaCha20Rng) {
    for round in 0..100 {
        we_send_lossy(peer, us, 10, 1, &format!("round {round}"), rng);
        they_send_lossy(peer, us, 10, 1, &format!("round {round}"), rng);
    }
    let record = us.load_session(&peer_addr()).unwrap().unwrap();
    let state = record.current().unwrap();
    assert_eq!(state.spqr_version(), alibi_spqr::Version::V1);
    assert!(
        state.spqr_epoch() >= 10,
        "SPQR reached only epoch {}",
        state.spqr_epoch()
    );
}

fn we_initiate(version: &str, kyber: bool, seed: u8) {
    we_initiate_with(version, kyber, seed, conversation)
}

fn we_initiate_with(
    version: &str,
    kyber: bool,
    seed: u8,
    talk: fn(&mut NodePeer, &mut InMemoryStore, &mut ChaCha20Rng),
) {
    let Some(mut peer) = signal_peer(version) else {
        return;
    };
    let mut rng = ChaCha20Rng::from_seed([seed; 32]);
    let v = ok(peer
        .call(&json!({"cmd": "init", "registration_id": 4321, "kyber": kyber, "one_time": true})));
    let bundle = common::bundle_from_json(&v);
    assert_eq!(bundle.kyber_pre_key.is_some(), kyber);
    let mut us = common::party(&mut rng, 1234);
    process_prekey_bundle(&peer_addr(), &mut us, &bundle, SystemTime::now(), &mut rng).unwrap();
    // The first messages are PreKey messages until libsignal answers.
    let first = encrypt(&peer_addr(), &mut us, b"hello libsignal", SystemTime::now()).unwrap();
    assert_eq!(first.message_type(), 3);
    assert_eq!(first.serialize()[0], if kyber { 0x44 } else { 0x34 });
    let r = ok(peer.call(&json!({"cmd": "decrypt", "type": 3, "body": hex(first.serialize())})));
    assert_eq!(unhex(&r["plaintext"]), b"hello libsignal");
    talk(&mut peer, &mut us, &mut rng);
}

fn they_initiate(version: &str, kem: Option<KemKeyType>, seed: u8) {
    they_initiate_with(version, kem, seed, conversation)
}

fn they_initiate_with(
    version: &str,
    kem: Option<KemKeyType>,
    seed: u8,
    talk: fn(&mut NodePeer, &mut InMemoryStore, &mut ChaCha20Rng),
) {
    let Some(mut peer) = signal_peer(version) else {
        return;
    };
    let mut rng = ChaCha20Rng::from_seed([seed; 32]);
    ok(peer.call(&json!({"cmd": "init", "registration_id": 4321, "kyber": kem.is_some()})));
    let mut us = common::party(&mut rng, 1234);
    let bundle = common::publish(&mut us, &mut rng, true, kem);
    ok(peer.call(&process_bundle_request(&bundle)));
    let r = ok(peer.call(&json!({"cmd": "encrypt", "plaintext": hex(b"hello alibi")})));
    assert_eq!(r["type"], 3);
    let m = CiphertextMessage::deserialize(3, &unhex(&r["body"])).unwrap();
    assert_eq!(
        decrypt(&peer_addr(), &mut us, &m, &mut rng).unwrap(),
        b"hello alibi"
    );
    // Bob's one-time and KEM prekeys are consumed, the signed prekey stays.
    assert!(us.get_pre_key(3).unwrap().is_none());
    assert!(us.get_kyber_pre_key(11).unwrap().is_none());
    talk(&mut peer, &mut us, &mut rng);
}

#[test]
fn pqxdh_we_initiate_libsignal_0_90() {
    we_initiate(PQXDH_VERSION, true, 20);
}

#[test]
fn pqxdh_libsignal_0_90_initiates() {
    they_initiate(PQXDH_VERSION, Some(KemKeyType::Kyber1024), 21);
}

#[test]
fn pqxdh_spqr_we_initiate_libsignal_0_103() {
    we_initiate_with(SPQR_VERSION, true, 25, long_spqr_conversation);
}

#[test]
fn pqxdh_spqr_libsignal_0_103_initiates() {
    they_initiate_with(
        SPQR_VERSION,
        Some(KemKeyType::Kyber1024),
        26,
        long_spqr_conversation,
    );
}

/// 100 messages each way with a peer that has no SPQR, then: our session settled on SPQR
/// version 0 (the peer's first message carried no field, and a session may drop to 0 until then).
fn conversation_spqr_off(peer: &mut NodePeer, us: &mut InMemoryStore, rng: &mut ChaCha20Rng) {
    conversation(peer, us, rng);
    let record = us.load_session(&peer_addr()).unwrap().unwrap();
    let state = record.current().unwrap();
    assert_eq!(state.version(), 4, "a PQXDH session");
    assert_eq!(state.spqr_version(), alibi_spqr::Version::V0);
}

/// libsignal 0.72.1 runs PQXDH but has no SPQR: version negotiation turns it off, both ways.
#[test]
fn pqxdh_spqr_negotiated_off_we_initiate_libsignal_0_72() {
    we_initiate_with(X3DH_VERSION, true, 28, conversation_spqr_off);
}

#[test]
fn pqxdh_spqr_negotiated_off_libsignal_0_72_initiates() {
    they_initiate_with(
        X3DH_VERSION,
        Some(KemKeyType::Kyber1024),
        29,
        conversation_spqr_off,
    );
}

#[test]
fn x3dh_we_initiate_libsignal_0_72() {
    we_initiate(X3DH_VERSION, false, 22);
}

#[test]
fn x3dh_libsignal_0_72_initiates() {
    they_initiate(X3DH_VERSION, None, 23);
}

#[test]
fn libsignal_rejects_our_tampered_messages() {
    let Some(mut peer) = signal_peer(PQXDH_VERSION) else {
        return;
    };
    let mut rng = ChaCha20Rng::from_seed([24; 32]);
    let bundle =
        common::bundle_from_json(&ok(peer.call(&json!({"cmd": "init", "registration_id": 9}))));
    let mut us = common::party(&mut rng, 8);
    process_prekey_bundle(&peer_addr(), &mut us, &bundle, SystemTime::now(), &mut rng).unwrap();
    let m = encrypt(&peer_addr(), &mut us, b"x", SystemTime::now()).unwrap();
    let mut bad = m.serialize().to_vec();
    let n = bad.len();
    bad[n - 3] ^= 1; // inside the inner message's MAC
    let r = peer.call(&json!({"cmd": "decrypt", "type": 3, "body": hex(&bad)}));
    assert!(
        r.get("error").is_some(),
        "libsignal accepted a forged MAC: {r}"
    );
    let r = ok(peer.call(&json!({"cmd": "decrypt", "type": 3, "body": hex(m.serialize())})));
    assert_eq!(unhex(&r["plaintext"]), b"x");
}

// ---- The golden transcript ----

const GOLDEN: &str = "tests/vectors/libsignal-0.90.0-transcript.json";
const GOLDEN_SEED: [u8; 32] = [0x60; 32];

/// Our Bob for the golden transcript: every key from one seeded generator.
fn golden_bob(rng: &mut ChaCha20Rng) -> (InMemoryStore, PreKeyBundle) {
    let mut bob = common::party(rng, 5150);
    let bundle = common::publish(&mut bob, rng, true, Some(KemKeyType::Kyber1024));
    (bob, bundle)
}

/// The exchange: libsignal opens with a PreKey message; then alternating bursts (one message
/// from libsignal answered by two of ours, and so on). Returns the events.
fn record() -> Option<Value> {
    let mut peer = signal_peer(PQXDH_VERSION)?;
    let mut rng = ChaCha20Rng::from_seed(GOLDEN_SEED);
    let (mut bob, bundle) = golden_bob(&mut rng);
    ok(peer.call(&json!({"cmd": "init", "registration_id": 777})));
    ok(peer.call(&process_bundle_request(&bundle)));
    let mut events = vec![];
    for i in 0..6 {
        let pt = format!("libsignal says {i}").into_bytes();
        let r = ok(peer.call(&json!({"cmd": "encrypt", "plaintext": hex(&pt)})));
        let ty = r["type"].as_u64().unwrap() as u8;
        let m = CiphertextMessage::deserialize(ty, &unhex(&r["body"])).unwrap();
        assert_eq!(decrypt(&peer_addr(), &mut bob, &m, &mut rng).unwrap(), pt);
        events.push(
            json!({"from": "libsignal", "type": ty, "body": r["body"], "plaintext": hex(&pt)}),
        );
        for j in 0..2 {
            let pt = format!("alibi answers {i}.{j}").into_bytes();
            let m =
                encrypt_with_rng(&peer_addr(), &mut bob, &pt, SystemTime::now(), &mut rng).unwrap();
            let r = ok(peer.call(
                &json!({"cmd": "decrypt", "type": m.message_type(), "body": hex(m.serialize())}),
            ));
            assert_eq!(unhex(&r["plaintext"]), pt);
            events.push(json!({"from": "alibi", "type": m.message_type(), "body": hex(m.serialize()), "plaintext": hex(&pt)}));
        }
    }
    Some(json!({
        "description": "libsignal-client 0.90.0 (Alice) opens a PQXDH (Kyber1024) session to alibi's Bob, whose keys come from ChaCha20Rng seed [0x60; 32] as in tests/libsignal_interop.rs; both sides run SPQR version 1 (libsignal 0.90.0 offers it, allowing version 0); alibi's messages, SPQR fields included, were decrypted by libsignal when recorded",
        "bob_bundle": common::bundle_json(&bundle),
        "events": events,
    }))
}

#[test]
fn golden_transcript() {
    if std::env::var("ALIBI_RECORD_GOLDEN").as_deref() == Ok("1") {
        if let Some(v) = record() {
            std::fs::create_dir_all("tests/vectors").unwrap();
            std::fs::write(GOLDEN, serde_json::to_string_pretty(&v).unwrap() + "\n").unwrap();
        }
    }
    let v: Value = serde_json::from_str(&std::fs::read_to_string(GOLDEN).unwrap()).unwrap();
    let mut rng = ChaCha20Rng::from_seed(GOLDEN_SEED);
    let (mut bob, bundle) = golden_bob(&mut rng);
    assert_eq!(
        common::bundle_json(&bundle),
        v["bob_bundle"],
        "Bob's keys are regenerated identically"
    );
    let events = v["events"].as_array().unwrap();
    assert_eq!(events.len(), 18);
    for e in events {
        let ty = e["type"].as_u64().unwrap() as u8;
        let body = unhex(&e["body"]);
        let pt = unhex(&e["plaintext"]);
        if e["from"] == "libsignal" {
            let m = CiphertextMessage::deserialize(ty, &body).unwrap();
            assert_eq!(decrypt(&peer_addr(), &mut bob, &m, &mut rng).unwrap(), pt);
        } else {
            let m =
                encrypt_with_rng(&peer_addr(), &mut bob, &pt, SystemTime::now(), &mut rng).unwrap();
            assert_eq!(m.message_type(), ty);
            assert_eq!(
                m.serialize(),
                &body[..],
                "our message is byte-identical to the recorded one"
            );
        }
    }
}

/// libsignal's Node builds, 0.90.0 and 0.103.0 alike, refuse a bundle whose KEM prekey is
/// ML-KEM-1024 (type 0x0A; libsignal compiles that type only behind a Rust feature its packages do
/// not enable), so our 0x0A prekeys are checked against RustCrypto's ml-kem only
/// (`alibi-identity/tests/kem_peer.rs`). Should a release accept them, this fails and the interop
/// belongs beside the Kyber1024 one.
#[test]
fn libsignal_refuses_ml_kem_1024_prekeys() {
    for (version, seed) in [(PQXDH_VERSION, 81), ("0.103.0", 82)] {
        let Some(mut peer) = signal_peer(version) else {
            return;
        };
        let mut rng = ChaCha20Rng::from_seed([seed; 32]);
        ok(peer.call(&json!({"cmd": "init", "registration_id": 4321, "kyber": true})));
        let mut us = common::party(&mut rng, 1234);
        let bundle = common::publish(&mut us, &mut rng, true, Some(KemKeyType::MlKem1024));
        let r = peer.call(&process_bundle_request(&bundle));
        assert!(
            r["error"]
                .as_str()
                .is_some_and(|e| e.contains("bad KEM key type <0x0a>")),
            "libsignal {version}: {r}"
        );
    }
}

/// Bad SPQR input from a real libsignal 0.103.0 session: a forged chunk, a wrong epoch and a
/// replay are each refused, and each refusal leaves the session able to take the genuine
/// message.
#[test]
fn spqr_bad_input_is_refused_and_changes_nothing() {
    let Some(mut peer) = signal_peer(SPQR_VERSION) else {
        return;
    };
    let mut rng = ChaCha20Rng::from_seed([27; 32]);
    ok(peer.call(&json!({"cmd": "init", "registration_id": 4321, "kyber": true})));
    let mut us = common::party(&mut rng, 1234);
    let bundle = common::publish(&mut us, &mut rng, true, Some(KemKeyType::Kyber1024));
    ok(peer.call(&process_bundle_request(&bundle)));
    they_send(&mut peer, &mut us, 1, "opening", &mut rng);
    we_send(&mut peer, &mut us, 1, "answer", &mut rng);
    let r = ok(peer.call(&json!({"cmd": "encrypt", "plaintext": hex(b"genuine")})));
    let body = unhex(&r["body"]);
    let m = alibi_channel::SignalMessage::deserialize(&body).unwrap();
    let pq = m.pq_ratchet().to_vec();
    assert_eq!(pq[0], 1, "libsignal 0.103.0 sends SPQR version 1");
    let at = body
        .windows(pq.len())
        .position(|w| w == &pq[..])
        .expect("the field is in the message");
    let before = us.load_session(&peer_addr()).unwrap().unwrap().serialize();
    // A forged chunk byte (the last byte of the field), then a wrong epoch (byte 1).
    for offset in [pq.len() - 1, 1] {
        let mut bad = body.clone();
        bad[at + offset] ^= 0x10;
        let bad = CiphertextMessage::deserialize(2, &bad).unwrap();
        assert!(decrypt(&peer_addr(), &mut us, &bad, &mut rng).is_err());
        assert_eq!(
            us.load_session(&peer_addr()).unwrap().unwrap().serialize(),
            before,
            "a refused message changed the session"
        );
    }
    let good = CiphertextMessage::deserialize(2, &body).unwrap();
    assert_eq!(
        decrypt(&peer_addr(), &mut us, &good, &mut rng).unwrap(),
        b"genuine"
    );
    let after = us.load_session(&peer_addr()).unwrap().unwrap().serialize();
    assert!(
        decrypt(&peer_addr(), &mut us, &good, &mut rng).is_err(),
        "a replay"
    );
    assert_eq!(
        us.load_session(&peer_addr()).unwrap().unwrap().serialize(),
        after
    );
}
