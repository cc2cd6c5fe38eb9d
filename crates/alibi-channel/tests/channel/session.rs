//! Sessions between two of our own parties: X3DH and PQXDH (Kyber1024 and ML-KEM-1024), long
//! conversations with reordering, the limits, records that serialize and restore, the redb store,
//! and bad input that must leave the session state unchanged.

use crate::common;

use std::time::SystemTime;

use alibi_channel::cipher::{decrypt, encrypt, process_prekey_bundle, CiphertextMessage};
use alibi_channel::{Address, Error, InMemoryStore, ProtocolStore, RedbStore, SessionRecord};
use alibi_identity::{IdentityKeyPair, KemKeyType};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn alice_addr() -> Address {
    Address::new("alice", 1)
}
fn bob_addr() -> Address {
    Address::new("bob", 1)
}

/// Alice processes Bob's bundle and sends; Bob answers; returns both stores.
fn setup(
    rng: &mut ChaCha20Rng,
    kem: Option<KemKeyType>,
    one_time: bool,
) -> (InMemoryStore, InMemoryStore) {
    let mut alice = common::party(rng, 1111);
    let mut bob = common::party(rng, 2222);
    let bundle = common::publish(&mut bob, rng, one_time, kem);
    process_prekey_bundle(&bob_addr(), &mut alice, &bundle, SystemTime::now(), rng).unwrap();
    let m = encrypt(&bob_addr(), &mut alice, b"hello bob", SystemTime::now()).unwrap();
    assert_eq!(m.message_type(), 3);
    let parsed = CiphertextMessage::deserialize(3, m.serialize()).unwrap();
    assert_eq!(parsed, m);
    assert_eq!(
        decrypt(&alice_addr(), &mut bob, &parsed, rng).unwrap(),
        b"hello bob"
    );
    let r = encrypt(&alice_addr(), &mut bob, b"hello alice", SystemTime::now()).unwrap();
    assert_eq!(r.message_type(), 2);
    assert_eq!(
        decrypt(&bob_addr(), &mut alice, &r, rng).unwrap(),
        b"hello alice"
    );
    (alice, bob)
}

#[test]
fn handshakes_of_every_kind() {
    let mut rng = ChaCha20Rng::from_seed([10; 32]);
    for kem in [
        None,
        Some(KemKeyType::Kyber1024),
        Some(KemKeyType::MlKem1024),
    ] {
        for one_time in [true, false] {
            let (alice, bob) = setup(&mut rng, kem, one_time);
            let v = if kem.is_some() { 4 } else { 3 };
            let s = alice.load_session(&bob_addr()).unwrap().unwrap();
            assert_eq!(s.current().unwrap().version(), v);
            assert!(!s.current().unwrap().has_pending_pre_key());
            // Used prekeys are consumed.
            assert!(bob.get_pre_key(3).unwrap().is_none());
            assert!(bob.get_kyber_pre_key(11).unwrap().is_none());
            assert!(bob.get_signed_pre_key(7).unwrap().is_some());
        }
    }
}

#[test]
fn reordered_conversation_both_ways() {
    let mut rng = ChaCha20Rng::from_seed([11; 32]);
    let (mut alice, mut bob) = setup(&mut rng, Some(KemKeyType::Kyber1024), true);
    for round in 0..10 {
        // A burst each way, delivered in a shuffled order, interleaved so that ratchets turn.
        let (from, to, from_addr, to_addr) = if round % 2 == 0 {
            (&mut alice, &mut bob, alice_addr(), bob_addr())
        } else {
            (&mut bob, &mut alice, bob_addr(), alice_addr())
        };
        let msgs: Vec<(Vec<u8>, CiphertextMessage)> = (0..10)
            .map(|i| {
                let pt = format!("round {round} message {i}").into_bytes();
                let m = encrypt(&to_addr, from, &pt, SystemTime::now()).unwrap();
                (pt, m)
            })
            .collect();
        let mut order: Vec<usize> = (0..msgs.len()).collect();
        common::shuffle(&mut order, &mut rng);
        for i in order {
            let (pt, m) = &msgs[i];
            let wire = CiphertextMessage::deserialize(m.message_type(), m.serialize()).unwrap();
            assert_eq!(&decrypt(&from_addr, to, &wire, &mut rng).unwrap(), pt);
        }
    }
}

#[test]
fn bad_input_leaves_state_unchanged() {
    let mut rng = ChaCha20Rng::from_seed([12; 32]);
    let (mut alice, mut bob) = setup(&mut rng, Some(KemKeyType::Kyber1024), true);
    let m = encrypt(&alice_addr(), &mut bob, b"once", SystemTime::now()).unwrap();
    let before = alice
        .load_session(&bob_addr())
        .unwrap()
        .unwrap()
        .serialize();
    let wire = m.serialize().to_vec();

    // Every single-bit flip is rejected (or fails to parse) and changes nothing.
    for i in 0..wire.len() {
        let mut bad = wire.clone();
        bad[i] ^= 0x04;
        if let Ok(parsed) = CiphertextMessage::deserialize(2, &bad) {
            assert!(
                decrypt(&bob_addr(), &mut alice, &parsed, &mut rng).is_err(),
                "byte {i}"
            );
        }
        assert_eq!(
            alice
                .load_session(&bob_addr())
                .unwrap()
                .unwrap()
                .serialize(),
            before
        );
    }
    // Truncations do not parse or do not authenticate.
    for n in 0..wire.len() {
        if let Ok(parsed) = CiphertextMessage::deserialize(2, &wire[..n]) {
            assert!(decrypt(&bob_addr(), &mut alice, &parsed, &mut rng).is_err());
        }
    }
    assert_eq!(
        alice
            .load_session(&bob_addr())
            .unwrap()
            .unwrap()
            .serialize(),
        before
    );

    // The genuine message decrypts once; its replay is a duplicate and changes nothing.
    assert_eq!(
        decrypt(&bob_addr(), &mut alice, &m, &mut rng).unwrap(),
        b"once"
    );
    let after = alice
        .load_session(&bob_addr())
        .unwrap()
        .unwrap()
        .serialize();
    assert!(matches!(
        decrypt(&bob_addr(), &mut alice, &m, &mut rng),
        Err(Error::Duplicate { .. })
    ));
    assert_eq!(
        alice
            .load_session(&bob_addr())
            .unwrap()
            .unwrap()
            .serialize(),
        after
    );
}

#[test]
fn prekey_message_tampering_and_replay() {
    let mut rng = ChaCha20Rng::from_seed([13; 32]);
    let mut alice = common::party(&mut rng, 1);
    let mut bob = common::party(&mut rng, 2);
    let bundle = common::publish(&mut bob, &mut rng, true, Some(KemKeyType::Kyber1024));
    process_prekey_bundle(
        &bob_addr(),
        &mut alice,
        &bundle,
        SystemTime::now(),
        &mut rng,
    )
    .unwrap();
    let m = encrypt(&bob_addr(), &mut alice, b"first", SystemTime::now()).unwrap();
    let wire = m.serialize().to_vec();
    for i in (0..wire.len()).step_by(7) {
        let mut bad = wire.clone();
        bad[i] ^= 0x10;
        if let Ok(parsed) = CiphertextMessage::deserialize(3, &bad) {
            assert!(
                decrypt(&alice_addr(), &mut bob, &parsed, &mut rng).is_err(),
                "byte {i}"
            );
        }
        // Nothing consumed, no session made.
        assert!(bob.load_session(&alice_addr()).unwrap().is_none());
        assert!(bob.get_pre_key(3).unwrap().is_some());
        assert!(bob.get_kyber_pre_key(11).unwrap().is_some());
    }
    assert_eq!(
        decrypt(&alice_addr(), &mut bob, &m, &mut rng).unwrap(),
        b"first"
    );
    assert!(matches!(
        decrypt(&alice_addr(), &mut bob, &m, &mut rng),
        Err(Error::Duplicate { .. })
    ));
    // A second PreKey message of the same handshake still decrypts (the session is found by its
    // base key although the prekeys are gone).
    let m2 = encrypt(&bob_addr(), &mut alice, b"second", SystemTime::now()).unwrap();
    assert_eq!(m2.message_type(), 3);
    assert_eq!(
        decrypt(&alice_addr(), &mut bob, &m2, &mut rng).unwrap(),
        b"second"
    );
}

#[test]
fn limits_skipped_keys_and_forward_jump() {
    let mut rng = ChaCha20Rng::from_seed([14; 32]);
    let (mut alice, mut bob) = setup(&mut rng, Some(KemKeyType::Kyber1024), false);
    // 2,001 messages; deliver the last first: 2,000 keys are stored, the oldest one dropped.
    let msgs: Vec<_> = (0..2002)
        .map(|i| encrypt(&alice_addr(), &mut bob, &[i as u8], SystemTime::now()).unwrap())
        .collect();
    assert_eq!(
        decrypt(&bob_addr(), &mut alice, &msgs[2001], &mut rng).unwrap(),
        [2001u32 as u8]
    );
    assert!(decrypt(&bob_addr(), &mut alice, &msgs[0], &mut rng).is_err());
    assert_eq!(
        decrypt(&bob_addr(), &mut alice, &msgs[1], &mut rng).unwrap(),
        [1]
    );
    assert_eq!(
        decrypt(&bob_addr(), &mut alice, &msgs[2000], &mut rng).unwrap(),
        [2000u32 as u8]
    );

    // A jump of more than 25,000 on a chain is refused.
    let mut last = None;
    for _ in 0..25_002 {
        last = Some(encrypt(&alice_addr(), &mut bob, b"j", SystemTime::now()).unwrap());
    }
    assert!(matches!(
        decrypt(&bob_addr(), &mut alice, &last.unwrap(), &mut rng),
        Err(Error::TooFarAhead(_))
    ));
}

#[test]
fn records_restore_and_redb_store() {
    let mut rng = ChaCha20Rng::from_seed([15; 32]);
    let dir = tempfile::tempdir().unwrap();
    let bob_id = IdentityKeyPair::generate(&mut rng);
    let mut bob = RedbStore::create(dir.path().join("bob.redb"), &bob_id, 77).unwrap();
    let mut alice = common::party(&mut rng, 1);
    let bundle = common::publish(&mut bob, &mut rng, true, Some(KemKeyType::Kyber1024));
    process_prekey_bundle(
        &bob_addr(),
        &mut alice,
        &bundle,
        SystemTime::now(),
        &mut rng,
    )
    .unwrap();
    let m = encrypt(&bob_addr(), &mut alice, b"to disk", SystemTime::now()).unwrap();
    assert_eq!(
        decrypt(&alice_addr(), &mut bob, &m, &mut rng).unwrap(),
        b"to disk"
    );
    drop(bob);
    // Reopen: the session survives, answers, and the conversation goes on.
    let mut bob = RedbStore::open(dir.path().join("bob.redb")).unwrap();
    assert_eq!(bob.local_registration_id().unwrap(), 77);
    assert_eq!(bob.identity_key_pair().unwrap().identity, bob_id.identity);
    assert!(bob.get_pre_key(3).unwrap().is_none());
    let r = encrypt(&alice_addr(), &mut bob, b"from disk", SystemTime::now()).unwrap();
    assert_eq!(
        decrypt(&bob_addr(), &mut alice, &r, &mut rng).unwrap(),
        b"from disk"
    );

    // A record round-trips through its encoding; garbage is a typed error.
    let rec = alice.load_session(&bob_addr()).unwrap().unwrap();
    let enc = rec.serialize();
    assert_eq!(SessionRecord::deserialize(&enc).unwrap().serialize(), enc);
    assert!(SessionRecord::deserialize(&[0xFF, 0x01, 0x02]).is_err());
    assert!(SessionRecord::deserialize(&enc[..enc.len() / 2]).is_err());
}

#[test]
fn new_handshake_archives_the_old_session() {
    let mut rng = ChaCha20Rng::from_seed([16; 32]);
    let (mut alice, mut bob) = setup(&mut rng, Some(KemKeyType::Kyber1024), false);
    let old = encrypt(&alice_addr(), &mut bob, b"late", SystemTime::now()).unwrap();
    // Alice starts over from a fresh bundle; Bob's late message on the old session still opens.
    let bundle = common::publish(&mut bob, &mut rng, false, Some(KemKeyType::Kyber1024));
    process_prekey_bundle(
        &bob_addr(),
        &mut alice,
        &bundle,
        SystemTime::now(),
        &mut rng,
    )
    .unwrap();
    assert_eq!(
        alice.load_session(&bob_addr()).unwrap().unwrap().archived(),
        1
    );
    assert_eq!(
        decrypt(&bob_addr(), &mut alice, &old, &mut rng).unwrap(),
        b"late"
    );
}

#[test]
fn untrusted_identity_is_refused() {
    let mut rng = ChaCha20Rng::from_seed([17; 32]);
    let mut alice = common::party(&mut rng, 1);
    let mut bob = common::party(&mut rng, 2);
    let mut mallory = common::party(&mut rng, 3);
    let b = common::publish(&mut bob, &mut rng, false, Some(KemKeyType::Kyber1024));
    process_prekey_bundle(&bob_addr(), &mut alice, &b, SystemTime::now(), &mut rng).unwrap();
    let m = common::publish(&mut mallory, &mut rng, false, Some(KemKeyType::Kyber1024));
    assert!(matches!(
        process_prekey_bundle(&bob_addr(), &mut alice, &m, SystemTime::now(), &mut rng),
        Err(Error::UntrustedIdentity(_))
    ));
}
