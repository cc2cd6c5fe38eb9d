//! # alibi-bls
//!
//! The single-signer BLS primitive of ciphersuite `BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_`
//! (draft-irtf-cfrg-bls-signature-05, section 4.2.3): public keys in G1 (48 bytes compressed),
//! signatures in G2 (96 bytes), proofs of possession under their own tag. All of it is `blst`'s
//! `min_pk` API; this module fixes the tags and turns blst's error codes into ours.

//!
//! ```
//! let sk = alibi_bls::keygen(&[7u8; 32])?;
//! let pk = alibi_bls::public_key(&sk)?;
//! let sig = alibi_bls::sign(&sk, b"message")?;
//! alibi_bls::verify(&pk, b"message", &sig)?;
//! assert!(alibi_bls::verify(&pk, b"another", &sig).is_err());
//! # Ok::<(), alibi_bls::Error>(())
//! ```

#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

use blst::min_pk::{AggregateSignature, PublicKey, SecretKey, Signature};
use blst::BLST_ERROR;
use zeroize::Zeroizing;

/// Why a BLS operation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Bytes that do not decode (a key, signature or list that is not one).
    #[error("malformed: {0}")]
    Malformed(&'static str),
    /// A signature or proof of possession that does not verify.
    #[error("does not verify: {0}")]
    Verification(&'static str),
}

/// The crate's result type.
pub type Result<T> = core::result::Result<T, Error>;

/// The signature tag (draft section 4.2.3).
pub const DST_SIG: &[u8] = b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_";
/// The proof-of-possession tag (draft section 4.2.3).
pub const DST_POP: &[u8] = b"BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_";

/// A compressed public key (G1).
pub type PublicKeyBytes = [u8; 48];
/// A compressed signature (G2).
pub type SignatureBytes = [u8; 96];

fn secret(sk: &[u8; 32]) -> Result<SecretKey> {
    // blst refuses zero and anything not below the group order r (KeyValidate of the secret).
    SecretKey::from_bytes(sk).map_err(|_| Error::Malformed("secret key: a scalar in 1..r"))
}

fn public(pk: &[u8]) -> Result<PublicKey> {
    // KeyValidate (draft section 2.5): on the curve, in G1, not the identity.
    PublicKey::key_validate(pk).map_err(|_| Error::Malformed("public key"))
}

fn signature(sig: &[u8]) -> Result<Signature> {
    // On the curve and in G2; the identity is a valid encoding (it just verifies nothing).
    Signature::sig_validate(sig, false).map_err(|_| Error::Malformed("signature"))
}

/// KeyGen (draft section 2.3) from at least 32 bytes of key material.
pub fn keygen(ikm: &[u8]) -> Result<Zeroizing<[u8; 32]>> {
    let sk =
        SecretKey::key_gen(ikm, &[]).map_err(|_| Error::Malformed("ikm: at least 32 bytes"))?;
    Ok(Zeroizing::new(sk.to_bytes()))
}

/// SkToPk.
pub fn public_key(sk: &[u8; 32]) -> Result<PublicKeyBytes> {
    Ok(secret(sk)?.sk_to_pk().compress())
}

/// Sign.
pub fn sign(sk: &[u8; 32], msg: &[u8]) -> Result<SignatureBytes> {
    Ok(secret(sk)?.sign(msg, DST_SIG, &[]).compress())
}

/// Succeeds when `code` is blst's success, and names what failed otherwise.
fn check(code: BLST_ERROR, what: &'static str) -> Result<()> {
    if code == BLST_ERROR::BLST_SUCCESS {
        Ok(())
    } else {
        Err(Error::Verification(what))
    }
}

/// Verify: [`Error::Malformed`] for a malformed key or signature, [`Error::Verification`] for a
/// wrong one.
pub fn verify(pk: &[u8], msg: &[u8], sig: &[u8]) -> Result<()> {
    let (pk, sig) = (public(pk)?, signature(sig)?);
    check(
        sig.verify(false, msg, DST_SIG, &[], &pk, false),
        "signature",
    )
}

/// PopProve (draft section 3.3.2): a signature on the public key's encoding under [`DST_POP`].
pub fn pop_prove(sk: &[u8; 32]) -> Result<SignatureBytes> {
    let sk = secret(sk)?;
    let pk = sk.sk_to_pk().compress();
    Ok(sk.sign(&pk, DST_POP, &[]).compress())
}

/// PopVerify.
pub fn pop_verify(pk: &[u8], proof: &[u8]) -> Result<()> {
    let (key, sig) = (public(pk)?, signature(proof)?);
    check(
        sig.verify(false, pk, DST_POP, &[], &key, false),
        "proof of possession",
    )
}

/// Aggregate (draft section 2.8); fails on an empty list or a malformed signature.
pub fn aggregate(sigs: &[&[u8]]) -> Result<SignatureBytes> {
    if sigs.is_empty() {
        return Err(Error::Malformed("aggregate: no signatures"));
    }
    let sigs = sigs
        .iter()
        .map(|s| signature(s))
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&Signature> = sigs.iter().collect();
    let agg =
        AggregateSignature::aggregate(&refs, false).map_err(|_| Error::Malformed("aggregate"))?;
    Ok(agg.to_signature().compress())
}

/// FastAggregateVerify (draft section 3.3.4): one message, keys whose possession was proven.
pub fn fast_aggregate_verify(pks: &[&[u8]], msg: &[u8], sig: &[u8]) -> Result<()> {
    let pks = pks.iter().map(|p| public(p)).collect::<Result<Vec<_>>>()?;
    let sig = signature(sig)?;
    if pks.is_empty() {
        return Err(Error::Malformed("aggregate: no public keys"));
    }
    let refs: Vec<&PublicKey> = pks.iter().collect();
    check(
        sig.fast_aggregate_verify(false, msg, DST_SIG, &refs),
        "aggregate signature",
    )
}

/// AggregateVerify (draft section 3.1.1): distinct messages, one per key.
pub fn aggregate_verify(pks: &[&[u8]], msgs: &[&[u8]], sig: &[u8]) -> Result<()> {
    if pks.is_empty() || pks.len() != msgs.len() {
        return Err(Error::Malformed("aggregate: one message per public key"));
    }
    let pks = pks.iter().map(|p| public(p)).collect::<Result<Vec<_>>>()?;
    let sig = signature(sig)?;
    let refs: Vec<&PublicKey> = pks.iter().collect();
    check(
        sig.aggregate_verify(false, msgs, DST_SIG, &refs, false),
        "aggregate signature",
    )
}

/// Whether `pk` decodes to a point of G1 (the identity included; verification still refuses
/// the identity as a key, KeyValidate).
pub fn g1_decodes(pk: &[u8]) -> bool {
    let mut identity = [0u8; 48];
    identity[0] = 0xC0;
    PublicKey::from_bytes(pk).is_ok_and(|k| pk == identity || k.validate().is_ok())
}

/// Whether `sig` decodes to a point of G2 (the identity included).
pub fn g2_decodes(sig: &[u8]) -> bool {
    signature(sig).is_ok()
}

/// hash_to_curve into G2 (RFC 9380, suite BLS12381G2_XMD:SHA-256_SSWU_RO_) under `dst`,
/// uncompressed (192 bytes); with [`DST_SIG`] it is the H(m) that every signature and partial
/// signature is a multiple of.
pub fn hash_to_g2(msg: &[u8], dst: &[u8]) -> [u8; 192] {
    blstrs::G2Affine::from(blstrs::G2Projective::hash_to_curve(msg, dst, &[])).to_uncompressed()
}

fn random_scalar<R: rand_core::CryptoRng + ?Sized>(rng: &mut R) -> blst::blst_scalar {
    // 128 random bits: a batch that holds one invalid triple passes with probability 2^-128.
    let mut b = [0u8; 32];
    rng.fill_bytes(&mut b[..16]);
    blst::blst_scalar { b }
}

fn batch_under<R: rand_core::CryptoRng + ?Sized>(
    dst: &[u8],
    items: &[(&[u8], &[u8], &[u8])],
    rng: &mut R,
) -> Result<()> {
    if items.is_empty() {
        return Err(Error::Malformed("batch: empty"));
    }
    let pks = items
        .iter()
        .map(|(p, _, _)| public(p))
        .collect::<Result<Vec<_>>>()?;
    let sigs = items
        .iter()
        .map(|(_, _, s)| signature(s))
        .collect::<Result<Vec<_>>>()?;
    let msgs: Vec<&[u8]> = items.iter().map(|(_, m, _)| *m).collect();
    let rands: Vec<blst::blst_scalar> = items.iter().map(|_| random_scalar(rng)).collect();
    let pk_refs: Vec<&PublicKey> = pks.iter().collect();
    let sig_refs: Vec<&Signature> = sigs.iter().collect();
    check(
        Signature::verify_multiple_aggregate_signatures(
            &msgs, dst, &pk_refs, false, &sig_refs, false, &rands, 128,
        ),
        "batch",
    )
}

/// Verifies many (public key, message, signature) triples at once with a random linear
/// combination (blst's multi-verification): `Ok` only if every one would verify alone.
pub fn batch_verify<R: rand_core::CryptoRng + ?Sized>(
    items: &[(&[u8], &[u8], &[u8])],
    rng: &mut R,
) -> Result<()> {
    batch_under(DST_SIG, items, rng)
}

/// Verifies many (public key, proof of possession) pairs at once, as [`batch_verify`] does.
pub fn batch_pop_verify<R: rand_core::CryptoRng + ?Sized>(
    items: &[(&[u8], &[u8])],
    rng: &mut R,
) -> Result<()> {
    let triples: Vec<(&[u8], &[u8], &[u8])> = items.iter().map(|(p, s)| (*p, *p, *s)).collect();
    batch_under(DST_POP, &triples, rng)
}

/// Verifies signatures by many keys on one message at once: with H = H(m) hashed once and random
/// r_i, e(g1, sum r_i sig_i) = e(sum r_i pk_i, H); it succeeds only if every one would verify alone
/// (up to 2^-128): `Ok` only then. The keys must be valid (KeyValidate) and the signatures in G2.
pub fn batch_verify_one_message<R: rand_core::CryptoRng + ?Sized>(
    items: &[(&[u8], &[u8])],
    msg: &[u8],
    rng: &mut R,
) -> Result<()> {
    use blstrs::{G1Affine, G2Affine};
    let mut points = Vec::with_capacity(items.len());
    for (pk, sig) in items {
        public(pk)?;
        let (Ok(pk), Ok(sig)) = (<[u8; 48]>::try_from(*pk), <[u8; 96]>::try_from(*sig)) else {
            return Err(Error::Malformed("batch: key or signature length"));
        };
        let (Some(pk), Some(sig)) = (
            Option::<G1Affine>::from(G1Affine::from_compressed(&pk)),
            Option::<G2Affine>::from(G2Affine::from_compressed(&sig)),
        ) else {
            return Err(Error::Malformed("batch: key or signature not on the curve"));
        };
        points.push((pk.into(), sig.into()));
    }
    batch_verify_points(&points, msg, rng)
}

/// [`batch_verify_one_message`] on decoded points (keys in G1, not the identity; signatures in
/// G2), for callers that keep the points, as threshold signing does to combine them after.
pub fn batch_verify_points<R: rand_core::CryptoRng + ?Sized>(
    items: &[(blstrs::G1Projective, blstrs::G2Projective)],
    msg: &[u8],
    rng: &mut R,
) -> Result<()> {
    use blstrs::{Bls12, G1Affine, G1Projective, G2Prepared, G2Projective};
    use group::{Curve, Group};
    use pairing::{MillerLoopResult, MultiMillerLoop};
    if items.is_empty() || items.iter().any(|(pk, _)| bool::from(pk.is_identity())) {
        return Err(Error::Malformed("batch: empty, or an identity public key"));
    }
    let w = Weights::random(items.len(), rng);
    let pks: Vec<G1Projective> = items.iter().map(|(p, _)| *p).collect();
    let sigs: Vec<G2Projective> = items.iter().map(|(_, s)| *s).collect();
    let s = G2Prepared::from(w.g2(&sigs).to_affine());
    let v = w.g1(&pks).to_affine();
    let h = G2Prepared::from(G2Projective::hash_to_curve(msg, DST_SIG, &[]).to_affine());
    // e(g1, s) = e(v, h) as e(-g1, s) e(v, h) = 1: one final exponentiation instead of two.
    let minus_g1 = G1Affine::from(-G1Projective::generator());
    let product = Bls12::multi_miller_loop(&[(&minus_g1, &s), (&v, &h)]).final_exponentiation();
    if bool::from(product.is_identity()) {
        Ok(())
    } else {
        Err(Error::Verification("batch"))
    }
}

/// A random 128-bit weight for a random linear combination (batch checks): a false equation
/// survives the combination with probability at most 2^-128.
pub fn random_weight<R: rand_core::CryptoRng + ?Sized>(rng: &mut R) -> blstrs::Scalar {
    use ff::PrimeField;
    blstrs::Scalar::from_u128(random_u128(rng))
}

/// A random 128-bit weight as an integer (for groups other than BLS12-381's).
pub fn random_u128<R: rand_core::CryptoRng + ?Sized>(rng: &mut R) -> u128 {
    let mut b = [0u8; 16];
    rng.fill_bytes(&mut b);
    u128::from_be_bytes(b)
}

/// `Weights::$name`: the sum of w_i P_i over one group, by blst's Pippenger over 128-bit scalars.
macro_rules! weighted_sum {
    ($(#[$doc:meta])* $name:ident, $point:ident, $raw:ident, $affines:ident) => {
        $(#[$doc])*
        pub fn $name(&self, points: &[blstrs::$point]) -> blstrs::$point {
            use group::Group;
            let n = points.len().min(self.0.len());
            let mut out = blstrs::$point::identity();
            if n > 0 {
                let ps: Vec<blst::$raw> = points[..n].iter().map(|p| *p.as_ref()).collect();
                let bytes = self.scalar_bytes();
                *out.as_mut() = blst::$affines::from(&ps).mult(&bytes[..16 * n], 128);
            }
            out
        }
    };
}

/// Random 128-bit weights for a random linear combination of points (batch checks), and the
/// combinations themselves: blst's Pippenger over 128-bit scalars, about half the work of a
/// multi-scalar multiplication by full-size scalars.
pub struct Weights(Vec<u128>);

impl Weights {
    /// `n` weights drawn from `rng`, each as [`random_weight`] draws one.
    pub fn random<R: rand_core::CryptoRng + ?Sized>(n: usize, rng: &mut R) -> Self {
        Self((0..n).map(|_| random_u128(rng)).collect())
    }

    /// The i-th weight as a scalar.
    pub fn scalar(&self, i: usize) -> blstrs::Scalar {
        use ff::PrimeField;
        blstrs::Scalar::from_u128(self.0[i])
    }

    /// The i-th weight as an integer (for groups other than BLS12-381's).
    pub fn value(&self, i: usize) -> u128 {
        self.0[i]
    }

    /// The combinations take this many points: one per weight.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no weights.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn scalar_bytes(&self) -> Vec<u8> {
        self.0.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    weighted_sum!(
        /// Sum of w_i P_i over G1 (points beyond the weights are left out; missing ones count as
        /// the identity).
        g1, G1Projective, blst_p1, p1_affines
    );
    weighted_sum!(
        /// Sum of w_i P_i over G2, as [`Self::g1`].
        g2, G2Projective, blst_p2, p2_affines
    );
}
