//! The client's side of the prekey directory: generating the keys a device publishes (keeping the
//! private halves in its protocol store), topping the one-time ones up, and turning a fetched
//! bundle into the handshake's [`PreKeyBundle`].

use alibi_channel::store::{KyberPreKeyRecord, SignedPreKeyRecord};
use alibi_channel::ProtocolStore;
use alibi_handshake::PreKeyBundle;
use alibi_identity::{IdentityKey, KemKeyPair, KemKeyType, KemPublicKey, KeyPair, PublicKey};
use alibi_relay_api::keys::{DeviceBundle, KeysUpload, OneTimeKey, SignedKey};
use rand_core::CryptoRng;

use crate::{Error, Result};

/// The signed prekey's id.
pub const SIGNED_PRE_KEY_ID: u32 = 1;
/// The last-resort KEM prekey's id.
pub const LAST_RESORT_ID: u32 = 2;

/// A fresh one-time prekey id: random in 3..2^24 (Signal's id space), so top-ups need no counter.
fn fresh_id<R: CryptoRng + ?Sized>(rng: &mut R) -> u32 {
    3 + rng.next_u32() % ((1 << 24) - 3)
}

/// Generates a signed prekey, a last-resort Kyber1024 prekey and `n_ec` one-time EC and `n_pq`
/// one-time Kyber1024 prekeys, all signed by the store's identity key; saves the private halves in
/// `store` and returns the upload (`PUT /v2/keys`).
pub fn generate_keys<S: ProtocolStore + ?Sized, R: CryptoRng + ?Sized>(
    store: &mut S,
    n_ec: u32,
    n_pq: u32,
    rng: &mut R,
) -> Result<KeysUpload> {
    let id = store.identity_key_pair()?;
    let spk = KeyPair::generate(rng);
    let signature = id.sign(&spk.public.serialize(), rng).to_vec();
    store.save_signed_pre_key(&SignedPreKeyRecord {
        id: SIGNED_PRE_KEY_ID,
        key_pair: spk.clone(),
        signature: signature.clone(),
    })?;
    let mut keys = one_time_keys(store, n_ec, n_pq, rng)?;
    keys.signed_pre_key = Some(SignedKey {
        id: SIGNED_PRE_KEY_ID,
        public: spk.public.serialize().to_vec(),
        signature,
    });
    keys.pq_last_resort_pre_key = Some(kem_key(store, LAST_RESORT_ID, true, rng)?);
    Ok(keys)
}

/// `n_ec` one-time EC and `n_pq` one-time Kyber1024 prekeys under fresh ids (the top-up upload).
pub fn one_time_keys<S: ProtocolStore + ?Sized, R: CryptoRng + ?Sized>(
    store: &mut S,
    n_ec: u32,
    n_pq: u32,
    rng: &mut R,
) -> Result<KeysUpload> {
    let mut keys = KeysUpload::default();
    while keys.pre_keys.len() < n_ec as usize {
        let kid = fresh_id(rng);
        if store.get_pre_key(kid)?.is_some() {
            continue;
        }
        let k = KeyPair::generate(rng);
        store.save_pre_key(kid, &k)?;
        keys.pre_keys.push(OneTimeKey {
            id: kid,
            public: k.public.serialize().to_vec(),
        });
    }
    while keys.pq_pre_keys.len() < n_pq as usize {
        let kid = fresh_id(rng);
        if store.get_kyber_pre_key(kid)?.is_some() {
            continue;
        }
        keys.pq_pre_keys.push(kem_key(store, kid, false, rng)?);
    }
    Ok(keys)
}

fn kem_key<S: ProtocolStore + ?Sized, R: CryptoRng + ?Sized>(
    store: &mut S,
    kid: u32,
    last_resort: bool,
    rng: &mut R,
) -> Result<SignedKey> {
    let id = store.identity_key_pair()?;
    let k = KemKeyPair::generate(KemKeyType::Kyber1024, rng);
    let signature = id.sign(&k.public.serialize(), rng).to_vec();
    store.save_kyber_pre_key(&KyberPreKeyRecord {
        id: kid,
        key_pair: k.clone(),
        signature: signature.clone(),
        last_resort,
    })?;
    Ok(SignedKey {
        id: kid,
        public: k.public.serialize(),
        signature,
    })
}

/// The handshake's view of a fetched bundle, with `identity_key` (the pinned one: the caller has
/// compared the relay's answer with it). A bundle without a KEM prekey (X3DH) is refused unless
/// `legacy`.
pub fn to_prekey_bundle(
    bundle: &DeviceBundle,
    identity_key: &IdentityKey,
    legacy: bool,
) -> Result<PreKeyBundle> {
    let bad = |what: &str| Error::Relay(format!("bundle: bad {what}"));
    let kyber_pre_key = match &bundle.pq_pre_key {
        Some(k) => Some((
            k.id,
            KemPublicKey::deserialize(&k.public).map_err(|_| bad("KEM prekey"))?,
            k.signature.clone(),
        )),
        None if legacy => None,
        None => return Err(Error::Relay("bundle without a KEM prekey".into())),
    };
    Ok(PreKeyBundle {
        registration_id: bundle.registration_id.into(),
        device_id: bundle.device_id.into(),
        pre_key: bundle
            .pre_key
            .as_ref()
            .map(|k| PublicKey::deserialize(&k.public).map(|p| (k.id, p)))
            .transpose()
            .map_err(|_| bad("one-time prekey"))?,
        signed_pre_key_id: bundle.signed_pre_key.id,
        signed_pre_key: PublicKey::deserialize(&bundle.signed_pre_key.public)
            .map_err(|_| bad("signed prekey"))?,
        signed_pre_key_signature: bundle.signed_pre_key.signature.clone(),
        identity_key: *identity_key,
        kyber_pre_key,
    })
}
