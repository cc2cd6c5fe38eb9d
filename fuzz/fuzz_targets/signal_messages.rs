//! The pairwise channel's decoders on untrusted bytes: SignalMessage, PreKeySignalMessage,
//! RingXKEM first messages and session records. No panic; a parsed message's bytes are kept as received; decrypting whatever
//! parses, on a live session, fails cleanly and leaves the session as it was.
#![no_main]
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

use alibi_channel::cipher::{decrypt, encrypt, process_prekey_bundle, CiphertextMessage};
use alibi_channel::store::SignedPreKeyRecord;
use alibi_channel::{Address, InMemoryStore, ProtocolStore, SessionRecord};
use alibi_handshake::PreKeyBundle;
use alibi_identity::{IdentityKeyPair, KeyPair};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// Bob's store holding an X3DH session with Alice (small keys keep the fixture quick).
fn fixture() -> &'static Mutex<InMemoryStore> {
    static F: OnceLock<Mutex<InMemoryStore>> = OnceLock::new();
    F.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let mut alice = InMemoryStore::new(IdentityKeyPair::generate(&mut rng), 1);
        let bob_id = IdentityKeyPair::generate(&mut rng);
        let mut bob = InMemoryStore::new(bob_id.clone(), 2);
        let spk = KeyPair::generate(&mut rng);
        let sig = bob_id.sign(&spk.public.serialize(), &mut rng).to_vec();
        bob.save_signed_pre_key(&SignedPreKeyRecord {
            id: 1,
            key_pair: spk.clone(),
            signature: sig.clone(),
        })
        .unwrap();
        let bundle = PreKeyBundle {
            registration_id: 2,
            device_id: 1,
            pre_key: None,
            signed_pre_key_id: 1,
            signed_pre_key: spk.public,
            signed_pre_key_signature: sig,
            identity_key: bob_id.identity,
            kyber_pre_key: None,
        };
        let (a, b) = (Address::new("a", 1), Address::new("b", 1));
        process_prekey_bundle(&b, &mut alice, &bundle, SystemTime::now(), &mut rng).unwrap();
        let m = encrypt(&b, &mut alice, b"hi", SystemTime::now()).unwrap();
        decrypt(&a, &mut bob, &m, &mut rng).unwrap();
        Mutex::new(bob)
    })
}

fuzz_target!(|data: &[u8]| {
    let _ = SessionRecord::deserialize(data);
    let mut bob = fixture().lock().unwrap();
    let a = Address::new("a", 1);
    let before = bob.load_session(&a).unwrap().unwrap().serialize();
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    for ty in [2u8, 3, 5] {
        if let Ok(m) = CiphertextMessage::deserialize(ty, data) {
            assert_eq!(m.serialize(), data);
            assert!(decrypt(&a, &mut *bob, &m, &mut rng).is_err());
        }
    }
    assert_eq!(bob.load_session(&a).unwrap().unwrap().serialize(), before);
});
