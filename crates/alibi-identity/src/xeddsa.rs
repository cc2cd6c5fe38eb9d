//! XEdDSA (Signal's XEdDSA and VXEdDSA specification, section 2.3 and 4.1) on X25519 keys.
//!
//! The Edwards public key A is derived from the Montgomery private scalar; its sign bit, which the
//! specification forces to zero by negating the scalar, is instead carried in the top bit of the
//! signature's last byte, as libsignal (and libsignal-protocol-java before it) do. Signatures are
//! 64 bytes, `R || s`.

use alibi_encoding::LengthChecked;
use curve25519_dalek::constants::ED25519_BASEPOINT_TABLE;
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::montgomery::MontgomeryPoint;
use curve25519_dalek::scalar::Scalar;
use rand_core::CryptoRng;
use sha2::{Digest, Sha512};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::curve::{IdentityKey, IdentityKeyPair, PrivateKey, PublicKey};
use crate::{Error, Result};

/// Length of an XEdDSA signature.
pub const SIGNATURE_LEN: usize = 64;

/// hash_1 of the specification: the first 32 bytes are `2^256 - 1 - 1`, so that no X25519 input
/// and no other hash_i prefix can collide with it (section 2.5).
const HASH1_PREFIX: [u8; 32] = {
    let mut p = [0xFF; 32];
    p[0] = 0xFE;
    p
};

/// Signs the concatenation of `msg` parts with `key`; 64 random bytes `Z` come from `rng`.
pub fn sign<R: CryptoRng + ?Sized>(key: &PrivateKey, msg: &[&[u8]], rng: &mut R) -> [u8; 64] {
    let mut z = Zeroizing::new([0u8; 64]);
    rng.fill_bytes(&mut z[..]);
    let k = key.scalar_bytes();
    let a = Zeroizing::new(Scalar::from_bytes_mod_order(*k));
    let big_a = (&*a * ED25519_BASEPOINT_TABLE).compress();
    let sign_bit = big_a.as_bytes()[31] & 0x80;

    let mut h = Sha512::new();
    h.update(HASH1_PREFIX);
    h.update(&k[..]);
    for m in msg {
        h.update(m);
    }
    h.update(&z[..]);
    let r = Zeroizing::new(Scalar::from_hash(h));
    let big_r = (&*r * ED25519_BASEPOINT_TABLE).compress();

    let mut h = Sha512::new();
    h.update(big_r.as_bytes());
    h.update(big_a.as_bytes());
    for m in msg {
        h.update(m);
    }
    let c = Scalar::from_hash(h);
    let s = c * *a + *r;

    let mut sig = [0u8; 64];
    sig[..32].copy_from_slice(big_r.as_bytes());
    sig[32..].copy_from_slice(s.as_bytes());
    sig[63] = (sig[63] & 0x7F) | sign_bit;
    sig
}

/// The Edwards form of a Montgomery public key with the given sign bit, and its encoding.
/// Converting costs two field inversions and a square root, and a verifier sees the same few keys
/// again and again (identity keys, server keys): the conversions are kept, for at most 4,096
/// keys (the table is emptied when full, so no input grows it without bound). Only public values
/// are kept.
fn edwards_key(u: &[u8; 32], sign: u8) -> Option<(EdwardsPoint, CompressedEdwardsY)> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    type Table = HashMap<([u8; 32], u8), Option<(EdwardsPoint, CompressedEdwardsY)>>;
    static KEYS: Mutex<Option<Table>> = Mutex::new(None);
    let mut keys = KEYS.lock().unwrap_or_else(|e| e.into_inner());
    let table = keys.get_or_insert_with(HashMap::new);
    if let Some(hit) = table.get(&(*u, sign)) {
        return *hit;
    }
    let converted = MontgomeryPoint(*u)
        .to_edwards(sign)
        .map(|a| (a, a.compress()));
    if table.len() >= 4096 {
        table.clear();
    }
    table.insert((*u, sign), converted);
    converted
}

/// Verifies a signature on the concatenation of `msg` parts: [`Error::Length`] for a signature
/// that is not 64 bytes, [`Error::BadSignature`] for one that does not verify.
pub fn verify(key: &PublicKey, msg: &[&[u8]], sig: &[u8]) -> Result<()> {
    const BAD: Error = Error::BadSignature("XEdDSA signature");
    let sig: &[u8; 64] = sig
        .try_into()
        .map_err(|_| Error::length("XEdDSA signature", 64, sig.len()))?;
    let Some((a, big_a)) = edwards_key(key.u(), sig[63] >> 7) else {
        return Err(BAD);
    };
    let mut s = [0u8; 32];
    s.copy_from_slice(&sig[32..]);
    s[31] &= 0x7F;
    // s must be below 2^253 (the specification's check that s < q, as libsignal applies it).
    if s[31] & 0xE0 != 0 {
        return Err(BAD);
    }
    let mut h = Sha512::new();
    h.update(&sig[..32]);
    h.update(big_a.as_bytes());
    for m in msg {
        h.update(m);
    }
    let c = Scalar::from_hash(h);
    let r_check = EdwardsPoint::vartime_double_scalar_mul_basepoint(
        &c,
        &-a,
        &Scalar::from_bytes_mod_order(s),
    )
    .compress();
    if bool::from(r_check.as_bytes().ct_eq(&sig[..32])) {
        Ok(())
    } else {
        Err(BAD)
    }
}

// The identity keys' signatures are here, not in curve.rs with the types: this file builds on
// curve.rs, which then needs nothing from it.
impl IdentityKey {
    /// Checks an XEdDSA signature on `msg` made by this identity ([`Error::BadSignature`] or
    /// [`Error::Length`] when it does not verify).
    pub fn verify(&self, msg: &[u8], sig: &[u8]) -> Result<()> {
        verify(&self.0, &[msg], sig)
    }
}

impl IdentityKeyPair {
    /// An XEdDSA signature on `msg`.
    pub fn sign<R: CryptoRng + ?Sized>(&self, msg: &[u8], rng: &mut R) -> [u8; 64] {
        sign(&self.private, &[msg], rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn sign_verify_and_tamper() {
        let mut rng = ChaCha20Rng::from_seed([1; 32]);
        for _ in 0..20 {
            let k = PrivateKey::generate(&mut rng);
            let msg = b"alibi xeddsa";
            let sig = sign(&k, &[msg], &mut rng);
            assert!(verify(&k.public_key(), &[msg], &sig).is_ok());
            assert!(verify(&k.public_key(), &[&msg[..5], &msg[5..]], &sig).is_ok());
            assert!(verify(&k.public_key(), &[b"other"], &sig).is_err());
            for i in [0, 31, 32, 62, 63] {
                let mut bad = sig;
                bad[i] ^= 0x01;
                assert!(verify(&k.public_key(), &[msg], &bad).is_err());
            }
            assert!(verify(&k.public_key(), &[msg], &sig[..63]).is_err());
        }
    }
}
