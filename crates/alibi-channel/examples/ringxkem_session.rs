//! A RingXKEM session end to end in memory: Bob publishes a bundle, Alice opens a fully
//! post-quantum, deniable session to him, they talk both ways on the triple ratchet (the Double
//! Ratchet with SPQR), and Bob shows that he alone could have made Alice's first message.
//!
//! `cargo run --release -p alibi-channel --example ringxkem_session`

use std::time::SystemTime;

use alibi_akem::pq::Suite;
use alibi_channel::cipher::{decrypt, encrypt, CiphertextMessage};
use alibi_channel::ringxkem::{self, fingerprint, RingXkemPreKey};
use alibi_channel::{Address, InMemoryStore, ProtocolStore};
use alibi_handshake::ringxkem::Identity;
use alibi_identity::IdentityKeyPair;
use getrandom::SysRng;
use rand_core::UnwrapErr;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = UnwrapErr(SysRng);
    let (alice_at, bob_at) = (Address::new("alice", 1), Address::new("bob", 1));
    let alice_pq = Identity::generate(Suite::MlKem768Falcon1024, &mut rng);
    let bob_pq = Identity::generate(Suite::MlKem768Falcon1024, &mut rng);
    let mut alice = InMemoryStore::new(IdentityKeyPair::generate(&mut rng), 1);
    let mut bob = InMemoryStore::new(IdentityKeyPair::generate(&mut rng), 2);
    // Each pins the other's PQ identity, as a contact card would.
    alice.save_identity(&bob_at, &fingerprint(bob_pq.public_key()))?;
    bob.save_identity(&alice_at, &fingerprint(alice_pq.public_key()))?;

    let pre_key = RingXkemPreKey::generate(&bob_pq, 1, &mut rng);
    let bundle = pre_key.bundle(&bob_pq, 2);
    let now = SystemTime::now();
    ringxkem::initiate(&bob_at, &mut alice, &alice_pq, &bundle, now, &mut rng)?;
    let CiphertextMessage::RingXkem(first) = encrypt(&bob_at, &mut alice, b"hello Bob", now)?
    else {
        return Err("a new RingXKEM session sends a RingXKEM first message".into());
    };
    println!("Alice's first message: {} bytes", first.serialized().len());
    let pt = ringxkem::accept(&alice_at, &mut bob, &bob_pq, &pre_key, &first, &mut rng)?;
    println!("Bob reads: {}", String::from_utf8_lossy(&pt));

    for i in 0..50 {
        let m = encrypt(&alice_at, &mut bob, format!("Bob {i}").as_bytes(), now)?;
        decrypt(&bob_at, &mut alice, &m, &mut rng)?;
        let m = encrypt(&bob_at, &mut alice, format!("Alice {i}").as_bytes(), now)?;
        decrypt(&alice_at, &mut bob, &m, &mut rng)?;
    }
    let record = alice.load_session(&bob_at)?.ok_or("session")?;
    let state = record.current().ok_or("current session")?;
    println!(
        "after 100 messages: session version {}, SPQR {:?} at epoch {}",
        state.version(),
        state.spqr_version(),
        state.spqr_epoch()
    );

    // Deniability: Bob alone makes a first message that his accept path takes as Alice's.
    let fake = ringxkem::simulate(
        &bob_pq,
        &pre_key,
        alice_pq.public_key(),
        first.registration_id,
        b"hello Bob",
        now,
        &mut rng,
    )?;
    let mut judge = InMemoryStore::new(IdentityKeyPair::generate(&mut rng), 2);
    judge.save_identity(&alice_at, &fingerprint(alice_pq.public_key()))?;
    let pt = ringxkem::accept(&alice_at, &mut judge, &bob_pq, &pre_key, &fake, &mut rng)?;
    println!(
        "Bob's simulation: {} bytes, accepted as Alice's: {}",
        fake.serialized().len(),
        String::from_utf8_lossy(&pt)
    );
    Ok(())
}
