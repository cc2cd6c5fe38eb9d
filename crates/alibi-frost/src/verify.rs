//! [`Signature`] and [`verify`], on verifiers independent of givre.

use alibi_encoding::LengthChecked;

use crate::{Error, Scheme};

/// The bytes of a signature of either scheme.
pub const SIGNATURE_LEN: usize = 64;
/// The bytes of a public key of either scheme.
pub const PUBLIC_KEY_LEN: usize = 32;

/// A FROST signature in its standard 64-byte encoding: Ed25519's `R || S` (S little-endian) or
/// BIP-340's `r || s` (big-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    scheme: Scheme,
    bytes: [u8; SIGNATURE_LEN],
}

impl Signature {
    /// A signature of `scheme` from its 64 bytes (not checked until [`verify`]).
    pub fn new(scheme: Scheme, bytes: [u8; SIGNATURE_LEN]) -> Self {
        Signature { scheme, bytes }
    }

    /// The scheme the signature was made with.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The 64 bytes.
    pub fn as_bytes(&self) -> &[u8; SIGNATURE_LEN] {
        &self.bytes
    }

    /// The 64 bytes, by value.
    pub fn to_bytes(&self) -> [u8; SIGNATURE_LEN] {
        self.bytes
    }
}

/// Checks `sig` on `msg` under `public_key` (as [`crate::KeyShare::public_key`] gives it) with a
/// verifier that shares no code with givre: ed25519-dalek's `verify_strict` (which also refuses
/// small-order keys and non-canonical `R`) for `frost-ed25519`, k256's BIP-340 verification of
/// the raw message for `frost-secp256k1-tr`.
///
/// Wrong lengths give [`Error::Length`], bytes that are no key or no signature
/// [`Error::Malformed`], a well-formed signature that does not verify [`Error::InvalidSignature`].
pub fn verify(scheme: Scheme, public_key: &[u8], msg: &[u8], sig: &[u8]) -> Result<(), Error> {
    Error::check_len("FROST public key", PUBLIC_KEY_LEN, public_key.len())?;
    Error::check_len("FROST signature", SIGNATURE_LEN, sig.len())?;
    match scheme {
        Scheme::Ed25519 => verify_ed25519(public_key, msg, sig),
        Scheme::Secp256k1Tr => verify_bip340(public_key, msg, sig),
    }
}

fn verify_ed25519(public_key: &[u8], msg: &[u8], sig: &[u8]) -> Result<(), Error> {
    let key: [u8; PUBLIC_KEY_LEN] = alibi_encoding::array("Ed25519 public key", public_key)?;
    let sig: [u8; SIGNATURE_LEN] = alibi_encoding::array("Ed25519 signature", sig)?;
    let key = ed25519_dalek::VerifyingKey::from_bytes(&key)
        .map_err(|_| Error::Malformed("Ed25519 public key"))?;
    let sig = ed25519_dalek::Signature::from_bytes(&sig);
    key.verify_strict(msg, &sig)
        .map_err(|_| Error::InvalidSignature)
}

fn verify_bip340(public_key: &[u8], msg: &[u8], sig: &[u8]) -> Result<(), Error> {
    let key = k256::schnorr::VerifyingKey::from_bytes(public_key)
        .map_err(|_| Error::Malformed("BIP-340 public key"))?;
    // The encoding check refuses r >= p and s >= n (or s = 0): not a signature at all.
    let sig = k256::schnorr::Signature::try_from(sig)
        .map_err(|_| Error::Malformed("BIP-340 signature"))?;
    // BIP-340 signs the message itself (any length); k256's `Verifier` impl would hash it first.
    key.verify_raw(msg, &sig)
        .map_err(|_| Error::InvalidSignature)
}
