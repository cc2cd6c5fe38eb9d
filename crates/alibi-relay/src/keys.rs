//! The client's side of the prekey directory: generating the keys a device publishes (keeping the
//! private halves in its protocol store), and turning a fetched bundle into the handshake's
//! [`PreKeyBundle`].

use alibi_channel::store::{KyberPreKeyRecord, SignedPreKeyRecord};
use alibi_channel::ProtocolStore;
use alibi_handshake::{
    IdentityKey, KemKeyPair, KemKeyType, KemPublicKey, KeyPair, PreKeyBundle, PublicKey,
};
use rand_core::CryptoRng;

use crate::store::{DeviceBundle, KeysUpload, OneTimeKey, SignedKey};
use crate::{Error, Result};

/// Key ids of what [`generate_keys`] makes: the signed prekey, the first one-time EC and KEM
/// prekeys (counting up), and the last-resort KEM prekey.
pub const SIGNED_PRE_KEY_ID: u32 = 1;
/// First one-time EC prekey id.
pub const FIRST_EC_ID: u32 = 100;
/// First one-time KEM prekey id.
pub const FIRST_PQ_ID: u32 = 10_000;
/// The last-resort KEM prekey's id.
pub const LAST_RESORT_ID: u32 = 999_999;

fn store_err(e: impl core::fmt::Display) -> Error {
    Error::Client(format!("protocol store: {e}"))
}

/// Generates a signed prekey, `n_ec` one-time EC prekeys, `n_pq` one-time Kyber1024 prekeys and a
/// last-resort Kyber1024 prekey, all signed by the store's identity key; saves the private halves
/// in `store` and returns the upload (`PUT /v2/keys`).
pub fn generate_keys<S: ProtocolStore + ?Sized>(
    store: &mut S,
    n_ec: u32,
    n_pq: u32,
    rng: &mut impl CryptoRng,
) -> Result<KeysUpload> {
    let id = store.identity_key_pair().map_err(store_err)?;
    let spk = KeyPair::generate(rng);
    let signature = id.sign(&spk.public.serialize(), rng).to_vec();
    store
        .save_signed_pre_key(&SignedPreKeyRecord {
            id: SIGNED_PRE_KEY_ID,
            key_pair: spk.clone(),
            signature: signature.clone(),
        })
        .map_err(store_err)?;
    let mut keys = KeysUpload {
        signed_pre_key: Some(SignedKey {
            id: SIGNED_PRE_KEY_ID,
            public: spk.public.serialize().to_vec(),
            signature,
        }),
        ..Default::default()
    };
    for i in 0..n_ec {
        let k = KeyPair::generate(rng);
        store.save_pre_key(FIRST_EC_ID + i, &k).map_err(store_err)?;
        keys.pre_keys.push(OneTimeKey {
            id: FIRST_EC_ID + i,
            public: k.public.serialize().to_vec(),
        });
    }
    let ids = (0..n_pq)
        .map(|i| (FIRST_PQ_ID + i, false))
        .chain([(LAST_RESORT_ID, true)]);
    for (kid, last_resort) in ids {
        let k = KemKeyPair::generate(KemKeyType::Kyber1024, rng);
        let signature = id.sign(&k.public.serialize(), rng).to_vec();
        store
            .save_kyber_pre_key(&KyberPreKeyRecord {
                id: kid,
                key_pair: k.clone(),
                signature: signature.clone(),
                last_resort,
            })
            .map_err(store_err)?;
        let sk = SignedKey {
            id: kid,
            public: k.public.serialize(),
            signature,
        };
        if last_resort {
            keys.pq_last_resort_pre_key = Some(sk);
        } else {
            keys.pq_pre_keys.push(sk);
        }
    }
    Ok(keys)
}

impl DeviceBundle {
    /// The handshake's view of this bundle, with the account's identity key (as fetched).
    pub fn to_prekey_bundle(&self, identity_key: &[u8]) -> Result<PreKeyBundle> {
        let bad = |what: &str| Error::Client(format!("bundle: bad {what}"));
        Ok(PreKeyBundle {
            registration_id: self.registration_id.into(),
            device_id: self.device_id.into(),
            pre_key: self
                .pre_key
                .as_ref()
                .map(|k| PublicKey::deserialize(&k.public).map(|p| (k.id, p)))
                .transpose()
                .map_err(|_| bad("one-time prekey"))?,
            signed_pre_key_id: self.signed_pre_key.id,
            signed_pre_key: PublicKey::deserialize(&self.signed_pre_key.public)
                .map_err(|_| bad("signed prekey"))?,
            signed_pre_key_signature: self.signed_pre_key.signature.clone(),
            identity_key: IdentityKey::deserialize(identity_key)
                .map_err(|_| bad("identity key"))?,
            kyber_pre_key: Some((
                self.pq_pre_key.id,
                KemPublicKey::deserialize(&self.pq_pre_key.public)
                    .map_err(|_| bad("KEM prekey"))?,
                self.pq_pre_key.signature.clone(),
            )),
        })
    }
}
