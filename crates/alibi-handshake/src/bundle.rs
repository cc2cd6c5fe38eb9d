//! The prekey bundle a responder publishes (libsignal's `PreKeyBundle`), and the initiator's checks.

use crate::{Error, Result};
use alibi_identity::curve::{IdentityKey, PublicKey};
use alibi_identity::kem::KemPublicKey;

/// A responder's published keys, as one device's entry of a prekey fetch.
#[derive(Clone, Debug)]
pub struct PreKeyBundle {
    /// The responder's registration id.
    pub registration_id: u32,
    /// The responder's device id.
    pub device_id: u32,
    /// A one-time EC prekey, if one was left: (id, key).
    pub pre_key: Option<(u32, PublicKey)>,
    /// The signed prekey's id.
    pub signed_pre_key_id: u32,
    /// The signed prekey (also the responder's first ratchet key).
    pub signed_pre_key: PublicKey,
    /// XEdDSA signature by the identity key on the signed prekey's 33-byte encoding.
    pub signed_pre_key_signature: Vec<u8>,
    /// The responder's identity key.
    pub identity_key: IdentityKey,
    /// The KEM prekey (id, key, XEdDSA signature on its 1569-byte encoding); `None` only for the
    /// legacy X3DH handshake.
    pub kyber_pre_key: Option<(u32, KemPublicKey, Vec<u8>)>,
}

impl PreKeyBundle {
    /// Checks the signatures the identity key made on the signed prekey and on the KEM prekey.
    pub fn verify(&self) -> Result<()> {
        if self
            .identity_key
            .verify(
                &self.signed_pre_key.serialize(),
                &self.signed_pre_key_signature,
            )
            .is_err()
        {
            return Err(Error::BadSignature("signed prekey"));
        }
        if let Some((_, kem, sig)) = &self.kyber_pre_key {
            if self.identity_key.verify(&kem.serialize(), sig).is_err() {
                return Err(Error::BadSignature("KEM prekey"));
            }
        }
        Ok(())
    }
}
