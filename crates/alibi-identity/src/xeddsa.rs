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
use curve25519_dalek::traits::{IsIdentity, VartimeMultiscalarMul};
use rand_core::CryptoRng;
use sha2::{Digest, Sha512};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::curve::{IdentityKey, IdentityKeyPair, PrivateKey, PublicKey};
use crate::{Error, Result};

/// The error of a signature that does not verify.
const BAD: Error = Error::BadSignature("XEdDSA signature");

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

/// What both verification equations read from a signature: A (from the key and the sign bit),
/// R's encoding, s (below 2^253, the specification's check that s < q as libsignal applies it)
/// and the challenge c = SHA-512(R || A || msg).
struct Parts {
    a: EdwardsPoint,
    r: [u8; 32],
    s: Scalar,
    c: Scalar,
}

impl Parts {
    fn of(key: &PublicKey, msg: &[&[u8]], sig: &[u8]) -> Result<Self> {
        let sig: &[u8; 64] = sig
            .try_into()
            .map_err(|_| Error::length("XEdDSA signature", 64, sig.len()))?;
        let (a, big_a) = edwards_key(key.u(), sig[63] >> 7).ok_or(BAD)?;
        let r: [u8; 32] = sig[..32].try_into().expect("32 bytes");
        let mut s = [0u8; 32];
        s.copy_from_slice(&sig[32..]);
        s[31] &= 0x7F;
        if s[31] & 0xE0 != 0 {
            return Err(BAD);
        }
        let mut h = Sha512::new();
        h.update(r);
        h.update(big_a.as_bytes());
        for m in msg {
            h.update(m);
        }
        Ok(Self {
            a,
            r,
            s: Scalar::from_bytes_mod_order(s),
            c: Scalar::from_hash(h),
        })
    }
}

/// Verifies a signature on the concatenation of `msg` parts: [`Error::Length`] for a signature
/// that is not 64 bytes, [`Error::BadSignature`] for one that does not verify.
pub fn verify(key: &PublicKey, msg: &[&[u8]], sig: &[u8]) -> Result<()> {
    let Parts { a, r, s, c } = Parts::of(key, msg, sig)?;
    let r_check = EdwardsPoint::vartime_double_scalar_mul_basepoint(&c, &-a, &s).compress();
    if bool::from(r_check.as_bytes().ct_eq(&r)) {
        Ok(())
    } else {
        Err(BAD)
    }
}

/// One signature's parts for the cofactored equation `[8](s·B - c·A - R) = 0`: the checks that
/// need no group operation done, and the decoded points and scalars.
struct Cofactored {
    a: EdwardsPoint,
    r: EdwardsPoint,
    s: Scalar,
    c: Scalar,
}

/// p = 2^255 - 19, little-endian: an encoding of y at or above it is not canonical.
const P_BYTES: [u8; 32] = {
    let mut p = [0xFF; 32];
    p[0] = 0xED;
    p[31] = 0x7F;
    p
};

/// Whether `r` is the one encoding of its point: y below p, and no sign bit on a point whose x
/// is 0 (y = 1 or y = p - 1). Without it, `R` and `R` encoded otherwise would both verify.
fn canonical(r: &[u8; 32]) -> bool {
    let mut y = *r;
    y[31] &= 0x7F;
    let below_p = y
        .iter()
        .rev()
        .zip(P_BYTES.iter().rev())
        .find(|(a, b)| a != b)
        .is_some_and(|(a, b)| a < b);
    let mut one = [0u8; 32];
    one[0] = 1;
    let mut p_minus_one = P_BYTES;
    p_minus_one[0] -= 1;
    let x_is_zero = y == one || y == p_minus_one;
    below_p && !(x_is_zero && r[31] & 0x80 != 0)
}

impl Cofactored {
    fn parse(key: &PublicKey, msg: &[&[u8]], sig: &[u8]) -> Result<Self> {
        let Parts { a, r, s, c } = Parts::of(key, msg, sig)?;
        if !canonical(&r) {
            return Err(BAD);
        }
        let r = CompressedEdwardsY(r).decompress().ok_or(BAD)?;
        Ok(Self { a, r, s, c })
    }
}

/// Verifies a signature by the cofactored equation `[8](s·B - c·A - R) = 0` (R canonical), the
/// one [`verify_batch`] checks many at once: a protocol whose parties must all reach the same
/// verdict on a signature, some checking it alone and some in a batch, uses these two and not
/// [`verify`]. (Cofactorless verification cannot be batched soundly: a signature whose `R` has a
/// small-order part fails it alone but passes a random-weight batch with probability up to 1/2.)
/// Every signature [`verify`] accepts, this accepts; it also accepts such a signature with a
/// small-order point added to `R`, which only its signer or someone holding it can make.
pub fn verify_cofactored(key: &PublicKey, msg: &[&[u8]], sig: &[u8]) -> Result<()> {
    let p = Cofactored::parse(key, msg, sig)?;
    let check = EdwardsPoint::vartime_double_scalar_mul_basepoint(&p.c, &-p.a, &p.s) - p.r;
    if check.mul_by_cofactor().is_identity() {
        Ok(())
    } else {
        Err(BAD)
    }
}

/// One signature of a batch: the signer's key, the message's parts and the signature.
pub type BatchItem<'a> = (&'a PublicKey, &'a [&'a [u8]], &'a [u8]);

/// Verifies `(key, message parts, signature)` triples together: `Ok` when every one satisfies
/// [`verify_cofactored`]'s equation, checked as one multi-scalar multiplication with random
/// 128-bit weights z_i, `[8](Σ z_i s_i · B - Σ z_i · R_i - Σ z_i c_i · A_i) = 0`; a batch with a
/// signature that does not verify passes with probability at most 2^-128. An error says only
/// that some signature failed (verify them one by one to learn which).
pub fn verify_batch<R: CryptoRng + ?Sized>(items: &[BatchItem<'_>], rng: &mut R) -> Result<()> {
    if let [(key, msg, sig)] = items {
        return verify_cofactored(key, msg, sig);
    }
    let mut scalars = Vec::with_capacity(2 * items.len() + 1);
    let mut points = Vec::with_capacity(2 * items.len() + 1);
    let mut b = Scalar::ZERO;
    for (key, msg, sig) in items {
        let p = Cofactored::parse(key, msg, sig)?;
        let mut w = [0u8; 32];
        rng.fill_bytes(&mut w[..16]);
        let z = Scalar::from_bytes_mod_order(w);
        b += z * p.s;
        scalars.push(-z);
        points.push(p.r);
        scalars.push(-(z * p.c));
        points.push(p.a);
    }
    scalars.push(b);
    points.push(curve25519_dalek::constants::ED25519_BASEPOINT_POINT);
    let check = EdwardsPoint::vartime_multiscalar_mul(scalars, points);
    if check.mul_by_cofactor().is_identity() {
        Ok(())
    } else {
        Err(Error::BadSignature("XEdDSA signature in a batch"))
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

    /// [`verify_cofactored`] of a signature on `msg` by this identity: for protocols that also
    /// check such signatures in batches ([`verify_batch`]).
    pub fn verify_cofactored(&self, msg: &[u8], sig: &[u8]) -> Result<()> {
        verify_cofactored(&self.0, &[msg], sig)
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

    /// A signature on `msg` whose R has a part of the given small order: made with the private
    /// key, as only a signer can (R = r·B + T, then s = r + c·a over that R). The cofactored
    /// equation holds for it and the cofactorless one does not.
    fn sign_with_torsion(key: &PrivateKey, msg: &[u8], order: usize) -> [u8; 64] {
        use curve25519_dalek::constants::EIGHT_TORSION;
        let t = EIGHT_TORSION
            .iter()
            .find(|t| {
                let (mut p, mut k) = (**t, 1);
                while !p.is_identity() {
                    p += **t;
                    k += 1;
                }
                k == order
            })
            .unwrap();
        let a = Scalar::from_bytes_mod_order(*key.scalar_bytes());
        let big_a = (&a * ED25519_BASEPOINT_TABLE).compress();
        let r = Scalar::from_bytes_mod_order([7; 32]);
        let big_r = ((&r * ED25519_BASEPOINT_TABLE) + t).compress();
        let mut h = Sha512::new();
        h.update(big_r.as_bytes());
        h.update(big_a.as_bytes());
        h.update(msg);
        let s = Scalar::from_hash(h) * a + r;
        let mut sig = [0u8; 64];
        sig[..32].copy_from_slice(big_r.as_bytes());
        sig[32..].copy_from_slice(s.as_bytes());
        sig[63] = (sig[63] & 0x7F) | (big_a.as_bytes()[31] & 0x80);
        sig
    }

    #[test]
    fn cofactored_accepts_what_verify_accepts_and_rejects_tampering() {
        let mut rng = ChaCha20Rng::from_seed([2; 32]);
        for _ in 0..20 {
            let k = PrivateKey::generate(&mut rng);
            let sig = sign(&k, &[b"m"], &mut rng);
            assert!(verify_cofactored(&k.public_key(), &[b"m"], &sig).is_ok());
            assert!(verify_cofactored(&k.public_key(), &[b"n"], &sig).is_err());
            for i in [0, 31, 32, 62, 63] {
                let mut bad = sig;
                bad[i] ^= 0x01;
                assert!(verify_cofactored(&k.public_key(), &[b"m"], &bad).is_err());
            }
        }
    }

    #[test]
    fn canonical_encodings_only() {
        let mut p = P_BYTES;
        assert!(!canonical(&p));
        p[0] -= 1; // p - 1: y = -1, x = 0
        assert!(canonical(&p));
        p[31] |= 0x80; // the same point with a sign bit: a second encoding
        assert!(!canonical(&p));
        let mut one = [0u8; 32];
        one[0] = 1;
        assert!(canonical(&one));
        one[31] = 0x80;
        assert!(!canonical(&one));
        assert!(!canonical(&[0xFF; 32]));
        assert!(canonical(&[0; 32]));
    }

    /// The attack on batching cofactorless signatures: a signature with an order-2 point added
    /// to R fails alone but would pass a random-weight batch whenever its weight is even. Here
    /// every verdict, alone or in any batch, is the same on every draw of the weights.
    #[test]
    fn batch_and_single_verdicts_agree_on_small_order_parts() {
        let mut rng = ChaCha20Rng::from_seed([3; 32]);
        let keys: Vec<PrivateKey> = (0..6).map(|_| PrivateKey::generate(&mut rng)).collect();
        let pubs: Vec<PublicKey> = keys.iter().map(|k| k.public_key()).collect();
        let msgs: Vec<[u8; 1]> = (0..6u8).map(|i| [i]).collect();
        let mut sigs: Vec<[u8; 64]> = keys
            .iter()
            .zip(&msgs)
            .map(|(k, m)| sign(k, &[m], &mut rng))
            .collect();
        sigs[1] = sign_with_torsion(&keys[1], &msgs[1], 2);
        sigs[2] = sign_with_torsion(&keys[2], &msgs[2], 8);
        assert!(verify(&pubs[1], &[&msgs[1]], &sigs[1]).is_err());
        assert!(verify_cofactored(&pubs[1], &[&msgs[1]], &sigs[1]).is_ok());
        assert!(verify(&pubs[2], &[&msgs[2]], &sigs[2]).is_err());
        assert!(verify_cofactored(&pubs[2], &[&msgs[2]], &sigs[2]).is_ok());
        // A bad one: another key's signature, with a small-order part as well.
        let forged = sign_with_torsion(&keys[4], &msgs[5], 4);
        assert!(verify_cofactored(&pubs[5], &[&msgs[5]], &forged).is_err());
        let parts: Vec<[&[u8]; 1]> = msgs.iter().map(|m| [&m[..]]).collect();
        let items: Vec<BatchItem> = (0..4)
            .map(|i| (&pubs[i], &parts[i][..], &sigs[i][..]))
            .collect();
        let mut bad = items.clone();
        bad.push((&pubs[5], &parts[5][..], &forged[..]));
        for _ in 0..64 {
            assert!(verify_batch(&items, &mut rng).is_ok());
            assert!(verify_batch(&bad, &mut rng).is_err());
        }
        assert!(verify_batch(&[], &mut rng).is_ok());
    }
}
