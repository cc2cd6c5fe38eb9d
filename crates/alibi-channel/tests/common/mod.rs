//! A party with a store and published keys, for the channel tests.
#![allow(dead_code)]

use alibi_channel::store::{KyberPreKeyRecord, SignedPreKeyRecord};
use alibi_channel::{InMemoryStore, ProtocolStore};
use alibi_handshake::{IdentityKeyPair, KemKeyPair, KemKeyType, KeyPair, PreKeyBundle};
use rand_core::CryptoRngCore;

/// Publishes a signed prekey (id 7), a one-time prekey (id 3) if asked, and a KEM prekey (id 11)
/// of the given type if asked, into `store`; returns the bundle.
pub fn publish<S: ProtocolStore>(
    store: &mut S,
    rng: &mut impl CryptoRngCore,
    one_time: bool,
    kem: Option<KemKeyType>,
) -> PreKeyBundle {
    let id = store.identity_key_pair().unwrap();
    let spk = KeyPair::generate(rng);
    let sig = id.sign(&spk.public.serialize(), rng).to_vec();
    store
        .save_signed_pre_key(&SignedPreKeyRecord {
            id: 7,
            key_pair: spk.clone(),
            signature: sig.clone(),
        })
        .unwrap();
    let opk = one_time.then(|| {
        let k = KeyPair::generate(rng);
        store.save_pre_key(3, &k).unwrap();
        (3, k.public)
    });
    let kyber = kem.map(|ty| {
        let k = KemKeyPair::generate(ty, rng);
        let s = id.sign(&k.public.serialize(), rng).to_vec();
        store
            .save_kyber_pre_key(&KyberPreKeyRecord {
                id: 11,
                key_pair: k.clone(),
                signature: s.clone(),
                last_resort: false,
            })
            .unwrap();
        (11, k.public, s)
    });
    PreKeyBundle {
        registration_id: store.local_registration_id().unwrap(),
        device_id: 1,
        pre_key: opk,
        signed_pre_key_id: 7,
        signed_pre_key: spk.public,
        signed_pre_key_signature: sig,
        identity_key: id.identity,
        kyber_pre_key: kyber,
    }
}

pub fn party(rng: &mut impl CryptoRngCore, registration_id: u32) -> InMemoryStore {
    InMemoryStore::new(IdentityKeyPair::generate(rng), registration_id)
}

use alibi_channel::sealed_sender::{SenderCertificate, ServerCertificate};
use alibi_handshake::PrivateKey;

/// A trust root, a server certificate under it, and the server's key.
pub struct Authority {
    pub root: PrivateKey,
    pub server: ServerCertificate,
    pub server_key: PrivateKey,
}

impl Authority {
    pub fn new(rng: &mut impl CryptoRngCore) -> Self {
        let root = PrivateKey::generate(rng);
        let server_key = PrivateKey::generate(rng);
        let server = ServerCertificate::new(1, server_key.public_key(), &root, rng);
        Self {
            root,
            server,
            server_key,
        }
    }

    /// A sender certificate for (uuid, device) and the store's identity, valid until `expires`.
    pub fn certify<S: ProtocolStore>(
        &self,
        store: &S,
        uuid: &str,
        device: u32,
        expires: u64,
        rng: &mut impl CryptoRngCore,
    ) -> SenderCertificate {
        SenderCertificate::new(
            uuid.to_string(),
            None,
            store.identity_key_pair().unwrap().identity.0,
            device,
            expires,
            self.server.clone(),
            &self.server_key,
            rng,
        )
    }
}
