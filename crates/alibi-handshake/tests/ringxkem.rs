//! RingXKEM: agreement, authentication, deniability (the responder's simulation is accepted) and
//! rejection of tampered messages.

use alibi_akem::pq::Suite;
use alibi_handshake::ringxkem::{self, Identity, Message, PreKey};
use alibi_handshake::Error;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

#[test]
fn agree_authenticate_and_deny() {
    let mut rng = ChaCha20Rng::from_seed([4; 32]);
    for suite in [
        Suite::MlKem512Falcon512,
        Suite::MlKem768Falcon1024,
        Suite::Bat257Mitaka512,
    ] {
        let alice = Identity::generate(suite, &mut rng);
        let bob = Identity::generate(suite, &mut rng);
        let eve = Identity::generate(suite, &mut rng);
        let pk = PreKey::generate(&bob, 42, &mut rng);
        let bundle = pk.bundle(&bob);

        let (msg, k_a) = ringxkem::initiate(&alice, &bundle, &mut rng).unwrap();
        let wire = msg.to_bytes();
        let msg2 = Message::from_bytes(suite, &wire).unwrap();
        assert_eq!(msg, msg2);
        let k_b = ringxkem::respond(&bob, &pk, alice.public_key(), &msg2).unwrap();
        assert_eq!(*k_a.root_key, *k_b.root_key);
        assert_eq!(*k_a.chain_key, *k_b.chain_key);

        // The message does not authenticate anyone but Alice (and Bob himself).
        assert_eq!(
            ringxkem::respond(&bob, &pk, eve.public_key(), &msg).err(),
            Some(Error::RingXKem("ring signature does not verify"))
        );

        // Deniability: Bob alone makes a message accepted as Alice's.
        let (fake, k_f) = ringxkem::simulate(&bob, &pk, alice.public_key(), &mut rng).unwrap();
        let k_f2 = ringxkem::respond(&bob, &pk, alice.public_key(), &fake).unwrap();
        assert_eq!(*k_f.root_key, *k_f2.root_key);
        assert_eq!(wire.len(), fake.to_bytes().len());

        // Tampering with either ciphertext: the prekey part changes the keys, the identity part
        // breaks the ring signature.
        let mut t = msg.clone();
        t.c_prekey[3] ^= 1;
        let k_t = ringxkem::respond(&bob, &pk, alice.public_key(), &t).unwrap();
        assert_ne!(*k_t.root_key, *k_a.root_key);
        let mut t = msg.clone();
        let n = t.c_identity.len();
        t.c_identity[n - 5] ^= 1;
        assert!(ringxkem::respond(&bob, &pk, alice.public_key(), &t).is_err());
        assert!(Message::from_bytes(suite, &wire[..wire.len() - 1]).is_err());

        // A forged prekey signature is refused by the initiator.
        let mut b = bundle.clone();
        b.pre_key[0] ^= 1;
        assert_eq!(
            ringxkem::initiate(&alice, &b, &mut rng).err(),
            Some(Error::BadSignature("RingXKEM prekey"))
        );
    }
}
