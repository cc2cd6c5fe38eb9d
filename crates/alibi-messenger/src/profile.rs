//! The messenger's own secrets: identity key, device password, profile key and the store key,
//! with the account they belong to and the pinned trust root; sealed under the user's passphrase
//! in `identity.sealed` (alibi-keyfile: Argon2id + XChaCha20-Poly1305).

use alibi_identity::{IdentityKeyPair, PrivateKey, PublicKey};
use serde::{Deserialize, Serialize};
use uuid::Uuid;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::{Error, Result};

/// The keyfile purpose label: an MPC share sealed under the same passphrase does not open as an
/// identity.
pub(crate) const PURPOSE: &str = "alibi messenger identity v1";

/// What `identity.sealed` holds.
#[derive(Clone, Serialize, Deserialize, Zeroize, ZeroizeOnDrop)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Profile {
    pub name: String,
    /// The relay's nodes, comma-separated.
    pub relay: String,
    /// PEM CA certificates trusted for the relay instead of the public roots; empty for none.
    #[serde(default, with = "alibi_relay_api::b64")]
    pub relay_ca: Vec<u8>,
    /// Plain http to relay nodes that are not loopback was allowed at registration
    /// (`--insecure-http`); later opens keep that choice.
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    #[zeroize(skip)]
    pub insecure_http: bool,
    #[zeroize(skip)]
    pub account: Uuid,
    pub device: u8,
    pub registration_id: u16,
    pub password: String,
    #[serde(with = "alibi_relay_api::b64")]
    pub identity: Vec<u8>,
    #[serde(with = "alibi_relay_api::b64")]
    pub profile_key: Vec<u8>,
    #[serde(with = "alibi_relay_api::b64")]
    pub trust_root: Vec<u8>,
    #[serde(with = "alibi_relay_api::b64")]
    pub store_key: Vec<u8>,
    /// The post-quantum identity (RingXKEM), secret; empty in profiles made before it.
    #[serde(default, with = "alibi_relay_api::b64")]
    pub pq_identity: Vec<u8>,
    /// The RingXKEM session prekey (secret), published as the device's RingXKEM bundle.
    #[serde(default, with = "alibi_relay_api::b64")]
    pub ringxkem_pre_key: Vec<u8>,
}

impl Profile {
    /// The relay's nodes with the TLS trust pinned at registration.
    pub fn endpoint(&self) -> Result<crate::Endpoint> {
        let e = crate::Endpoint::new(&self.relay).allow_insecure_http(self.insecure_http);
        if self.relay_ca.is_empty() {
            Ok(e)
        } else {
            e.with_ca(&self.relay_ca)
        }
    }

    pub fn identity_key_pair(&self) -> Result<IdentityKeyPair> {
        let key = PrivateKey::deserialize(&self.identity).map_err(|_| self.corrupt())?;
        Ok(IdentityKeyPair::from_private(key))
    }

    pub fn trust_root(&self) -> Result<PublicKey> {
        PublicKey::deserialize(&self.trust_root).map_err(|_| self.corrupt())
    }

    pub fn store_key(&self) -> Result<Zeroizing<[u8; 32]>> {
        let k: [u8; 32] = self
            .store_key
            .as_slice()
            .try_into()
            .map_err(|_| self.corrupt())?;
        Ok(Zeroizing::new(k))
    }

    pub fn profile_key(&self) -> Result<[u8; 32]> {
        self.profile_key
            .as_slice()
            .try_into()
            .map_err(|_| self.corrupt())
    }

    /// The PQ identity and RingXKEM prekey, if this profile has them.
    pub fn ringxkem(
        &self,
    ) -> Result<
        Option<(
            alibi_handshake::ringxkem::Identity,
            alibi_channel::ringxkem::RingXkemPreKey,
        )>,
    > {
        if self.pq_identity.is_empty() {
            return Ok(None);
        }
        let suite = crate::card::PQ_SUITE;
        let id = alibi_handshake::ringxkem::Identity::from_bytes(suite, &self.pq_identity)
            .map_err(|_| self.corrupt())?;
        let pk = alibi_channel::ringxkem::RingXkemPreKey::from_bytes(suite, &self.ringxkem_pre_key)
            .map_err(|_| self.corrupt())?;
        Ok(Some((id, pk)))
    }

    /// A profile with fresh keys and made-up relay details, as JSON (for [`crate::fuzzing`]).
    pub(crate) fn sample<R: rand_core::CryptoRng + ?Sized>(rng: &mut R) -> Vec<u8> {
        let identity = PrivateKey::generate(rng);
        let root = PrivateKey::generate(rng);
        let pq = alibi_handshake::ringxkem::Identity::generate(crate::card::PQ_SUITE, rng);
        let pre_key = alibi_channel::ringxkem::RingXkemPreKey::generate(&pq, 1, rng);
        let p = Profile {
            name: "A".into(),
            relay: "https://a.invalid,https://b.invalid:8443".into(),
            relay_ca: vec![],
            insecure_http: false,
            account: Uuid::from_u128(1),
            device: 1,
            registration_id: 7,
            password: "0123456789abcdef".into(),
            identity: identity.to_bytes().to_vec(),
            profile_key: vec![3; 32],
            trust_root: root.public_key().serialize().to_vec(),
            store_key: vec![4; 32],
            pq_identity: pq.to_bytes().to_vec(),
            ringxkem_pre_key: pre_key.to_bytes().to_vec(),
        };
        serde_json::to_vec(&p).expect("a profile serializes")
    }

    fn corrupt(&self) -> Error {
        Error::Corrupt("identity.sealed".into())
    }

    pub fn seal<R: rand_core::CryptoRng + ?Sized>(
        &self,
        passphrase: &[u8],
        params: alibi_keyfile::Params,
        rng: &mut R,
    ) -> Result<Vec<u8>> {
        let json = Zeroizing::new(serde_json::to_vec(self).map_err(|_| self.corrupt())?);
        Ok(alibi_keyfile::seal(
            PURPOSE, &json, passphrase, params, rng,
        )?)
    }

    pub fn open(sealed: &[u8], passphrase: &[u8]) -> Result<Self> {
        let json = alibi_keyfile::open(PURPOSE, sealed, passphrase)?;
        serde_json::from_slice(&json).map_err(|_| Error::Corrupt("identity.sealed".into()))
    }
}
