//! RingXKEM sessions: the fully post-quantum, deniable handshake starting the triple ratchet.
//! Messages both ways across SPQR epochs, pinned identities enforced, signed bundles, and
//! executable deniability (the responder alone makes a first message the accept path takes).

use crate::common;

use std::time::SystemTime;

use alibi_akem::pq::Suite;
use alibi_channel::cipher::{decrypt, encrypt_with_rng, CiphertextMessage};
use alibi_channel::ringxkem::{self, fingerprint, RingXkemMessage, RingXkemPreKey};
use alibi_channel::{Address, Error, InMemoryStore, ProtocolStore};
use alibi_handshake::ringxkem::Identity;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn alice_at() -> Address {
    Address::new("alice", 1)
}
fn bob_at() -> Address {
    Address::new("bob", 1)
}

struct Party {
    id: Identity,
    store: InMemoryStore,
}

fn party(rng: &mut ChaCha20Rng, reg: u32) -> Party {
    Party {
        id: Identity::generate(Suite::MlKem512Falcon512, rng),
        store: common::party(rng, reg),
    }
}

fn send(from: &mut Party, to: &Address, pt: &[u8], rng: &mut ChaCha20Rng) -> CiphertextMessage {
    encrypt_with_rng(to, &mut from.store, pt, SystemTime::now(), rng).unwrap()
}

/// Alice opens a session to Bob (each pinning the other), sends `first`; Bob accepts it.
fn open(rng: &mut ChaCha20Rng) -> (Party, Party, RingXkemPreKey) {
    let mut alice = party(rng, 1);
    let mut bob = party(rng, 2);
    let pk = RingXkemPreKey::generate(&bob.id, 42, rng);
    let bundle = pk.bundle(&bob.id, 2);
    alice
        .store
        .save_identity(&bob_at(), &fingerprint(bob.id.public_key()))
        .unwrap();
    bob.store
        .save_identity(&alice_at(), &fingerprint(alice.id.public_key()))
        .unwrap();
    ringxkem::initiate(
        &bob_at(),
        &mut alice.store,
        &alice.id,
        &bundle,
        SystemTime::now(),
        rng,
    )
    .unwrap();
    (alice, bob, pk)
}

/// Ten messages from `from` to `to`, arriving shuffled.
fn burst(
    from: &mut Party,
    to: &mut Party,
    from_at: &Address,
    to_at: &Address,
    round: usize,
    rng: &mut ChaCha20Rng,
) {
    let mut batch: Vec<(Vec<u8>, CiphertextMessage)> = (0..10)
        .map(|i| {
            let pt = format!("round {round} #{i}").into_bytes();
            let m = send(from, to_at, &pt, rng);
            (pt, m)
        })
        .collect();
    common::shuffle(&mut batch, rng);
    for (pt, m) in batch {
        assert_eq!(m.message_type(), 2, "answered sessions send plain messages");
        assert_eq!(decrypt(from_at, &mut to.store, &m, rng).unwrap(), pt);
    }
}

#[test]
fn messages_flow_both_ways_across_spqr_epochs() {
    let mut rng = ChaCha20Rng::from_seed([70; 32]);
    let (mut alice, mut bob, pk) = open(&mut rng);
    // Until Bob answers, Alice's messages carry the handshake (type 5).
    let firsts: Vec<CiphertextMessage> = (0..3)
        .map(|i| {
            send(
                &mut alice,
                &bob_at(),
                format!("hello {i}").as_bytes(),
                &mut rng,
            )
        })
        .collect();
    for m in &firsts {
        assert_eq!(m.message_type(), ringxkem::MESSAGE_TYPE);
        assert_eq!(m.serialize()[0], 0x54);
    }
    // Bob takes the second first (with the prekey), then the others through decrypt().
    let CiphertextMessage::RingXkem(m1) = &firsts[1] else {
        unreachable!()
    };
    let wire = RingXkemMessage::deserialize(m1.serialized()).unwrap();
    assert_eq!(&wire, m1);
    let pt = ringxkem::accept(&alice_at(), &mut bob.store, &bob.id, &pk, &wire, &mut rng).unwrap();
    assert_eq!(pt, b"hello 1");
    for (i, m) in [(0, &firsts[0]), (2, &firsts[2])] {
        let pt = decrypt(&alice_at(), &mut bob.store, m, &mut rng).unwrap();
        assert_eq!(pt, format!("hello {i}").as_bytes());
    }
    // Replays are refused.
    assert!(decrypt(&alice_at(), &mut bob.store, &firsts[0], &mut rng).is_err());
    // Rounds of ten each way, shuffled.
    for round in 0..40 {
        burst(
            &mut bob,
            &mut alice,
            &bob_at(),
            &alice_at(),
            round,
            &mut rng,
        );
        burst(
            &mut alice,
            &mut bob,
            &alice_at(),
            &bob_at(),
            round,
            &mut rng,
        );
    }
    for (p, peer) in [(&alice, bob_at()), (&bob, alice_at())] {
        let record = p.store.load_session(&peer).unwrap().unwrap();
        let s = record.current().unwrap();
        assert_eq!(s.version(), 5);
        assert_eq!(s.spqr_version(), alibi_spqr::Version::V1);
        assert!(s.spqr_epoch() >= 5, "SPQR epoch {}", s.spqr_epoch());
    }
}

#[test]
fn pinned_identities_are_enforced() {
    let mut rng = ChaCha20Rng::from_seed([71; 32]);
    let (mut alice, _bob, _pk) = open(&mut rng);
    let m = send(&mut alice, &bob_at(), b"x", &mut rng);
    let CiphertextMessage::RingXkem(m) = m else {
        unreachable!()
    };
    // A Bob who pinned someone else for "alice" refuses the message.
    let mut rng2 = ChaCha20Rng::from_seed([72; 32]);
    let mut other_bob = party(&mut rng2, 3);
    let mallory = Identity::generate(Suite::MlKem512Falcon512, &mut rng2);
    other_bob
        .store
        .save_identity(&alice_at(), &fingerprint(mallory.public_key()))
        .unwrap();
    let pk = RingXkemPreKey::generate(&other_bob.id, 42, &mut rng2);
    assert_eq!(
        ringxkem::accept(
            &alice_at(),
            &mut other_bob.store,
            &other_bob.id,
            &pk,
            &m,
            &mut rng2
        ),
        Err(Error::UntrustedIdentity(alice_at().to_string()))
    );
    // An initiator refuses a bundle from an identity other than the pinned one.
    let mut carol = party(&mut rng2, 4);
    carol
        .store
        .save_identity(&bob_at(), &fingerprint(mallory.public_key()))
        .unwrap();
    let bob2 = Identity::generate(Suite::MlKem512Falcon512, &mut rng2);
    let bundle = RingXkemPreKey::generate(&bob2, 1, &mut rng2).bundle(&bob2, 5);
    assert_eq!(
        ringxkem::initiate(
            &bob_at(),
            &mut carol.store,
            &carol.id,
            &bundle,
            SystemTime::now(),
            &mut rng2
        ),
        Err(Error::UntrustedIdentity(bob_at().to_string()))
    );
    // A swapped ratchet key breaks the bundle's signature.
    let mut bad = bundle.clone();
    bad.ratchet_key = alibi_identity::KeyPair::generate(&mut rng2).public;
    assert!(bad.verify().is_err());
}

/// Executable deniability: Bob alone, with Alice's public identity, makes a first message that
/// his accept path takes as Alice's, of the very same shape as a real one.
#[test]
fn the_responder_alone_makes_an_accepted_first_message() {
    let mut rng = ChaCha20Rng::from_seed([73; 32]);
    let (mut alice, mut bob, pk) = open(&mut rng);
    let CiphertextMessage::RingXkem(real) = send(&mut alice, &bob_at(), b"meet at noon", &mut rng)
    else {
        unreachable!()
    };
    let fake = ringxkem::simulate(
        &bob.id,
        &pk,
        alice.id.public_key(),
        real.registration_id,
        b"meet at noon",
        SystemTime::now(),
        &mut rng,
    )
    .unwrap();
    assert_eq!(fake.serialized().len(), real.serialized().len());
    assert_eq!(fake.initiator, real.initiator);
    // A judge holding Bob's keys (a fresh store pinning Alice) accepts both alike.
    for m in [&real, &fake] {
        let mut judge = common::party(&mut rng, 2);
        judge
            .save_identity(&alice_at(), &fingerprint(alice.id.public_key()))
            .unwrap();
        let pt = ringxkem::accept(&alice_at(), &mut judge, &bob.id, &pk, m, &mut rng).unwrap();
        assert_eq!(pt, b"meet at noon");
    }
    // And Bob's own session with the real one works as usual.
    ringxkem::accept(&alice_at(), &mut bob.store, &bob.id, &pk, &real, &mut rng).unwrap();
}

#[test]
fn malformed_first_messages_are_errors() {
    for b in [&[][..], &[0x54], &[0x44, 0], &[0x54, 0xff, 0xff]] {
        assert!(RingXkemMessage::deserialize(b).is_err());
        assert!(CiphertextMessage::deserialize(5, b).is_err());
    }
}
