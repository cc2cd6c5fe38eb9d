//! A party with a store and published keys, for the channel tests.
#![allow(dead_code)]

use alibi_channel::store::{KyberPreKeyRecord, SignedPreKeyRecord};
use alibi_channel::{InMemoryStore, ProtocolStore};
use alibi_handshake::PreKeyBundle;
use alibi_identity::{IdentityKeyPair, KemKeyPair, KemKeyType, KeyPair};
use rand_core::CryptoRng;

/// Publishes a signed prekey (id 7), a one-time prekey (id 3) if asked, and a KEM prekey (id 11)
/// of the given type if asked, into `store`; returns the bundle.
pub fn publish<S: ProtocolStore, R: CryptoRng + ?Sized>(
    store: &mut S,
    rng: &mut R,
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

pub fn party<R: CryptoRng + ?Sized>(rng: &mut R, registration_id: u32) -> InMemoryStore {
    InMemoryStore::new(IdentityKeyPair::generate(rng), registration_id)
}

use alibi_identity::PrivateKey;
use alibi_sealed_sender::{SenderCertificate, ServerCertificate};

/// A trust root, a server certificate under it, and the server's key.
pub struct Authority {
    pub root: PrivateKey,
    pub server: ServerCertificate,
    pub server_key: PrivateKey,
}

impl Authority {
    pub fn new<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
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
    pub fn certify<S: ProtocolStore, R: CryptoRng + ?Sized>(
        &self,
        store: &S,
        uuid: &str,
        device: u32,
        expires: u64,
        rng: &mut R,
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

use alibi_identity::{IdentityKey, KemPublicKey, PublicKey};
use alibi_sealed_sender::{ContentType, UnidentifiedSenderMessageContent};
use alibi_testkit::{hex, unhex};
use serde_json::{json, Value};

/// A USMC with the default content hint and no group id.
pub fn usmc(
    ty: ContentType,
    cert: SenderCertificate,
    contents: &[u8],
) -> UnidentifiedSenderMessageContent {
    UnidentifiedSenderMessageContent::new(ty, cert, contents.to_vec(), 0, None)
}

/// A bundle in the Node peer's JSON form (the `init` answer, the `process_bundle` fields).
pub fn bundle_json(b: &PreKeyBundle) -> Value {
    json!({
        "registration_id": b.registration_id,
        "device_id": b.device_id,
        "identity_key": hex(&b.identity_key.serialize()),
        "pre_key_id": b.pre_key.map(|p| p.0),
        "pre_key": b.pre_key.map(|p| hex(&p.1.serialize())),
        "signed_pre_key_id": b.signed_pre_key_id,
        "signed_pre_key": hex(&b.signed_pre_key.serialize()),
        "signed_pre_key_signature": hex(&b.signed_pre_key_signature),
        "kyber_pre_key_id": b.kyber_pre_key.as_ref().map(|k| k.0),
        "kyber_pre_key": b.kyber_pre_key.as_ref().map(|k| hex(&k.1.serialize())),
        "kyber_pre_key_signature": b.kyber_pre_key.as_ref().map(|k| hex(&k.2)),
    })
}

/// The inverse of [`bundle_json`].
pub fn bundle_from_json(v: &Value) -> PreKeyBundle {
    let key = |k: &str| PublicKey::deserialize(&unhex(&v[k])).unwrap();
    let id = |k: &str| v[k].as_u64().map(|x| x as u32);
    PreKeyBundle {
        registration_id: id("registration_id").unwrap(),
        device_id: id("device_id").unwrap(),
        pre_key: id("pre_key_id").map(|i| (i, key("pre_key"))),
        signed_pre_key_id: id("signed_pre_key_id").unwrap(),
        signed_pre_key: key("signed_pre_key"),
        signed_pre_key_signature: unhex(&v["signed_pre_key_signature"]),
        identity_key: IdentityKey(key("identity_key")),
        kyber_pre_key: id("kyber_pre_key_id").map(|i| {
            (
                i,
                KemPublicKey::deserialize(&unhex(&v["kyber_pre_key"])).unwrap(),
                unhex(&v["kyber_pre_key_signature"]),
            )
        }),
    }
}

/// A Fisher-Yates shuffle driven by the test's generator.
pub fn shuffle<T, R: CryptoRng + ?Sized>(v: &mut [T], rng: &mut R) {
    for i in (1..v.len()).rev() {
        v.swap(i, rng.next_u32() as usize % (i + 1));
    }
}
