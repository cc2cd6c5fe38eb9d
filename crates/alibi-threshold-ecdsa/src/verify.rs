//! Verification with k256's ECDSA verifier, independent of cggmp24: what any secp256k1 ECDSA
//! verifier would accept.

use k256::ecdsa::signature::hazmat::PrehashVerifier;
use k256::ecdsa::signature::Verifier;
use k256::ecdsa::{Signature, VerifyingKey};

use crate::{Error, PUBLIC_KEY_LEN, SIGNATURE_LEN};

/// Parses a 33-byte compressed public key and a 64-byte `r || s` signature.
fn parse(public_key: &[u8], sig: &[u8]) -> Result<(VerifyingKey, Signature), Error> {
    if public_key.len() != PUBLIC_KEY_LEN {
        return Err(Error::Malformed(
            "public key: not 33 bytes (SEC1 compressed)",
        ));
    }
    if sig.len() != SIGNATURE_LEN {
        return Err(Error::Malformed("signature: not 64 bytes"));
    }
    let key = VerifyingKey::from_sec1_bytes(public_key)
        .map_err(|_| Error::Malformed("public key: not a point of secp256k1"))?;
    let sig = Signature::from_slice(sig)
        .map_err(|_| Error::Malformed("signature: r or s out of range"))?;
    Ok((key, sig))
}

/// Verifies a signature of [`crate::sign`]: `public_key` SEC1 compressed (33 bytes), `msg` as
/// signed (hashed here with SHA-256), `sig` = `r || s` (64 bytes) with `s` low, as k256
/// requires.
pub fn verify(public_key: &[u8], msg: &[u8], sig: &[u8]) -> Result<(), Error> {
    let (key, sig) = parse(public_key, sig)?;
    key.verify(msg, &sig).map_err(|_| Error::InvalidSignature)
}

/// Verifies a signature of [`crate::sign_prehash`] over a 32-byte prehash.
pub fn verify_prehash(public_key: &[u8], prehash: &[u8], sig: &[u8]) -> Result<(), Error> {
    if prehash.len() != 32 {
        return Err(Error::Malformed("prehash: not 32 bytes"));
    }
    let (key, sig) = parse(public_key, sig)?;
    key.verify_prehash(prehash, &sig)
        .map_err(|_| Error::InvalidSignature)
}
