//! The paper's "proof of sk" (seed 002, section 2, key generation step iv): at the end of key
//! generation each party announces its verification key vk_j = g1^x_j and proves that it knows
//! x_j, its share of the qualified dealers' joint polynomial.
//!
//! The proof is a Schnorr proof of knowledge in G1 made non-interactive with Fiat-Shamir
//! (R = g1^k, e = H(context, j, vk_j, R), s = k + e x_j). It replaces a BLS proof of possession
//! because a round's proofs and announced keys can then be checked together: one random linear
//! combination of the n Schnorr equations and of the n claims vk_j = prod_k C_k^(j^k) against the
//! joint Feldman commitment C is a single multi-scalar multiplication, with no pairing and no
//! evaluation of the commitment at every index (at n = 64 the pairing-based batch and the 64
//! evaluations cost a party about 50 ms, this check with its decoding about 9; docs/mpc.md).

use ff::{Field, PrimeField};
use group::Group;
use rand_core::CryptoRng;
use sha2::{Digest, Sha512};

use crate::curve::{Bls12, DkgCurve};
use crate::poly::{random_u128, wipe, Commitment};
use crate::{Error, PartyIndex, Result};

const DOMAIN: &[u8] = b"alibi-mpc v1 dkg share proof";

/// A party's announced verification key with its proof of knowledge of the share behind it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareProof<C: DkgCurve = Bls12> {
    key: C::Point,
    r: C::Point,
    s: C::Scalar,
    /// vk_j and R in their wire encoding, as the challenge hashes them (kept: encoding a
    /// projective point again costs an inversion).
    wire: Vec<u8>,
}

/// e = H(domain, context, j, vk_j || R), 512 bits reduced modulo the group order.
fn challenge<C: DkgCurve>(context: &[u8], index: PartyIndex, key_and_r: &[u8]) -> C::Scalar {
    let mut h = Sha512::new();
    h.update(DOMAIN);
    h.update((context.len() as u64).to_be_bytes());
    h.update(context);
    h.update(index.to_be_bytes());
    h.update(key_and_r);
    let wide = h.finalize();
    // Horner over the eight big-endian words: the 512-bit integer modulo the order, bias below
    // 2^-256 for BLS12-381 (2^-259 and 2^-256 for Ed25519 and secp256k1).
    let two_32 = C::Scalar::from(1u64 << 32);
    wide.chunks_exact(8).fold(C::Scalar::ZERO, |acc, w| {
        let word = u64::from_be_bytes(w.try_into().expect("8-byte chunk"));
        acc * two_32 * two_32 + C::Scalar::from(word)
    })
}

/// The length of an encoded proof: vk_j and R in the curve's wire encoding, then s (32 bytes).
pub fn proof_len<C: DkgCurve>() -> usize {
    2 * C::POINT_LEN + 32
}

/// A point of a proof: on the curve and in the prime-order subgroup. A torsion part could
/// otherwise cancel in the random linear combination with a probability as high as 1/3.
fn point<C: DkgCurve>(bytes: &[u8]) -> Result<C::Point> {
    C::decode_subgroup_point(bytes).ok_or(Error::Malformed("share proof point"))
}

impl<C: DkgCurve> ShareProof<C> {
    /// Party `index` proves knowledge of its share `share` under `context` (which binds the
    /// proof to the run and its outcome).
    pub fn generate<R: CryptoRng + ?Sized>(
        context: &[u8],
        index: PartyIndex,
        share: &C::Scalar,
        rng: &mut R,
    ) -> Self {
        let key = C::generator_times(share);
        let mut k = C::random_scalar(rng);
        let r = C::generator_times(&k);
        let wire = C::encode_points(&[key, r]).concat();
        let s = k + challenge::<C>(context, index, &wire) * share;
        wipe(&mut k);
        Self { key, r, s, wire }
    }

    /// The announced verification key vk_j = g^x_j.
    pub fn key(&self) -> &C::Point {
        &self.key
    }

    /// The encoding: vk_j, R, s.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(proof_len::<C>());
        out.extend_from_slice(&self.wire);
        out.extend_from_slice(&*C::scalar_to_bytes(&self.s));
        out
    }

    /// Decodes a proof; both points must be in the prime-order subgroup and s a canonical
    /// scalar.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let p = C::POINT_LEN;
        if bytes.len() != proof_len::<C>() {
            return Err(Error::Malformed("share proof length"));
        }
        let s: &[u8; 32] = bytes[2 * p..].try_into().expect("32 bytes");
        Ok(Self {
            key: point::<C>(&bytes[..p])?,
            r: point::<C>(&bytes[p..2 * p])?,
            s: C::scalar_from_bytes(s)?,
            wire: bytes[..2 * p].to_vec(),
        })
    }

    /// e for this proof.
    fn challenge(&self, context: &[u8], index: PartyIndex) -> C::Scalar {
        challenge::<C>(context, index, &self.wire)
    }

    /// Checks this proof alone: the Schnorr equation g^s = R vk_j^e, and that vk_j is the
    /// joint commitment evaluated at `index`.
    pub fn verify(&self, context: &[u8], index: PartyIndex, joint: &Commitment<C>) -> Result<()> {
        let e = self.challenge(context, index);
        let key = self.key;
        let schnorr = C::Point::generator() * self.s == self.r + key * e;
        if schnorr && key == joint.eval(index) {
            Ok(())
        } else {
            Err(Error::Verification("share proof"))
        }
    }
}

/// Checks many parties' proofs at once against the joint commitment `joint` (already known to be
/// in G1). With random 128-bit weights a_j, b_j it checks
///
/// g1^(sum a_j s_j) = prod_j R_j^a_j vk_j^(a_j e_j) and prod_j vk_j^b_j = prod_k C_k^(sum_j b_j j^k)
///
/// as one multi-scalar multiplication, which holds (up to 2^-128) only if every proof would pass
/// [`ShareProof::verify`]. When it fails, each is checked alone; returns the parties whose proofs
/// fail (empty when all pass).
pub fn verify_batch<C: DkgCurve, R: CryptoRng + ?Sized>(
    context: &[u8],
    joint: &Commitment<C>,
    proofs: &[(PartyIndex, &ShareProof<C>)],
    rng: &mut R,
) -> Vec<PartyIndex> {
    if proofs.is_empty() {
        return vec![];
    }
    let mut points = Vec::with_capacity(1 + 2 * proofs.len() + joint.0.len());
    let mut scalars = Vec::with_capacity(points.capacity());
    let mut on_c = vec![C::Scalar::ZERO; joint.0.len()];
    let mut on_g = C::Scalar::ZERO;
    let weight = |rng: &mut R| C::Scalar::from_u128(random_u128(rng));
    for (j, p) in proofs {
        let a = weight(rng);
        let b = weight(rng);
        let e = p.challenge(context, *j);
        on_g += a * p.s;
        points.push(p.r);
        scalars.push(-a);
        points.push(p.key);
        scalars.push(b - a * e);
        // b_j j^k for every k, accumulated per commitment point.
        let x = C::Scalar::from(u64::from(*j));
        let mut term = b;
        for c in on_c.iter_mut() {
            *c -= term;
            term *= x;
        }
    }
    points.push(C::Point::generator());
    scalars.push(on_g);
    points.extend_from_slice(&joint.0);
    scalars.extend_from_slice(&on_c);
    if bool::from(C::msm(&points, &scalars).is_identity()) {
        return vec![];
    }
    proofs
        .iter()
        .filter(|(j, p)| p.verify(context, *j, joint).is_err())
        .map(|(j, _)| *j)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::Polynomial;
    use blstrs::{G1Projective, Scalar};
    use group::Curve;

    type ShareProof = super::ShareProof<Bls12>;
    const PROOF_LEN: usize = 224;
    use getrandom::SysRng;
    use rand_core::UnwrapErr;

    fn setup(n: u16, t: usize) -> (Commitment<Bls12>, Vec<Scalar>) {
        let rng = &mut UnwrapErr(SysRng);
        let dealers: Vec<Polynomial<Bls12>> = (0..n).map(|_| Polynomial::random(t, rng)).collect();
        let commitments: Vec<Commitment<Bls12>> = dealers
            .iter()
            .map(|f| Commitment::decode(&f.commitment()).unwrap())
            .collect();
        let joint = Commitment::sum(commitments.iter()).unwrap();
        let shares = (1..=n)
            .map(|j| dealers.iter().map(|f| f.eval(j)).sum())
            .collect();
        (joint, shares)
    }

    /// Every party's honest proof under the context `ctx`.
    fn prove_all(shares: &[Scalar]) -> Vec<ShareProof> {
        (1..)
            .zip(shares)
            .map(|(j, x)| ShareProof::generate(b"ctx", j, x, &mut UnwrapErr(SysRng)))
            .collect()
    }

    #[test]
    fn honest_proofs_pass_alone_and_in_a_batch() {
        let rng = &mut UnwrapErr(SysRng);
        let (joint, shares) = setup(5, 2);
        let proofs = prove_all(&shares);
        for (j, p) in (1..=5u16).zip(&proofs) {
            assert!(p.verify(b"ctx", j, &joint).is_ok());
            let back = ShareProof::from_bytes(&p.to_bytes()).unwrap();
            assert_eq!(&back, p);
        }
        let refs: Vec<_> = (1..=5u16).zip(&proofs).collect();
        assert!(verify_batch(b"ctx", &joint, &refs, rng).is_empty());
        // Another context, or another index, fails.
        assert!(proofs[0].verify(b"other", 1, &joint).is_err());
        assert!(proofs[0].verify(b"ctx", 2, &joint).is_err());
    }

    #[test]
    fn a_valid_proof_for_a_key_off_the_commitment_is_caught() {
        let rng = &mut UnwrapErr(SysRng);
        let (joint, shares) = setup(4, 2);
        // Party 3 proves knowledge of a share it made up: the Schnorr equation holds, the key
        // does not match the commitment.
        let mut proofs = prove_all(&shares);
        proofs[2] = ShareProof::generate(b"ctx", 3, &(shares[2] + Scalar::ONE), rng);
        let refs: Vec<_> = (1..=4u16).zip(&proofs).collect();
        assert_eq!(verify_batch(b"ctx", &joint, &refs, rng), vec![3]);
    }

    #[test]
    fn a_forged_response_or_swapped_proofs_are_caught() {
        let rng = &mut UnwrapErr(SysRng);
        let (joint, shares) = setup(4, 1);
        let mut proofs = prove_all(&shares);
        proofs[0].s += Scalar::ONE;
        proofs.swap(2, 3);
        let refs: Vec<_> = (1..=4u16).zip(&proofs).collect();
        assert_eq!(verify_batch(b"ctx", &joint, &refs, rng), vec![1, 3, 4]);
    }

    #[test]
    fn points_outside_g1_and_bad_lengths_do_not_decode() {
        let rng = &mut UnwrapErr(SysRng);
        let (_, shares) = setup(3, 1);
        let good = ShareProof::generate(b"ctx", 1, &shares[0], rng).to_bytes();
        assert_eq!(good.len(), PROOF_LEN);
        assert!(ShareProof::from_bytes(&good[..PROOF_LEN - 1]).is_err());
        let tor = crate::curve::torsion_of_order_3();
        let mut bad = good.clone();
        let r = point::<Bls12>(&good[96..192]).unwrap() + tor;
        let _: G1Projective = r;
        bad[96..192].copy_from_slice(&r.to_affine().to_uncompressed());
        assert!(ShareProof::from_bytes(&bad).is_err());
        let mut bad = good.clone();
        bad[192..].copy_from_slice(&[0xff; 32]);
        assert!(ShareProof::from_bytes(&bad).is_err());
    }

    /// Scalars and points through their encodings, shares against commitments, and share
    /// proofs alone and in a batch, on one curve.
    fn sharing_works<C: DkgCurve>() {
        let rng = &mut UnwrapErr(SysRng);
        let x = C::random_scalar(rng);
        assert_eq!(C::scalar_from_bytes(&C::scalar_to_bytes(&x)).unwrap(), x);
        assert!(C::scalar_from_bytes(&[0xff; 32]).is_err(), "{}", C::NAME);
        let p = C::generator_times(&x);
        assert_eq!(p, C::Point::generator() * x, "{}", C::NAME);
        let key = C::key_bytes(&[p]).remove(0);
        assert_eq!(C::key_from_bytes(&key), Some(p));
        let wire = C::encode_points(&[p]).remove(0);
        assert_eq!(C::decode_point(&wire), Some(p));
        assert!(C::decode_point(&wire[1..]).is_none());

        let f = Polynomial::<C>::random(2, rng);
        let c = Commitment::<C>::decode(&f.commitment()).unwrap();
        assert!(c.in_subgroup());
        for i in 1..=5 {
            assert!(c.verify_share(i, &f.eval(i)).is_ok());
            assert!(c.verify_share(i, &(f.eval(i) + C::Scalar::ONE)).is_err());
        }
        let proofs: Vec<super::ShareProof<C>> = (1..=4)
            .map(|j| super::ShareProof::generate(b"ctx", j, &f.eval(j), rng))
            .collect();
        for (j, q) in (1..=4).zip(&proofs) {
            let back = super::ShareProof::<C>::from_bytes(&q.to_bytes()).unwrap();
            assert_eq!(&back, q);
            assert!(back.verify(b"ctx", j, &c).is_ok());
        }
        let refs: Vec<(u16, &super::ShareProof<C>)> = (1..=4).zip(&proofs).collect();
        assert!(
            verify_batch(b"ctx", &c, &refs, rng).is_empty(),
            "{}",
            C::NAME
        );
        // Parties 1 and 2 swap proofs: both are caught.
        let refs: Vec<(u16, &super::ShareProof<C>)> =
            [2, 1, 3, 4].into_iter().zip(&proofs).collect();
        assert_eq!(verify_batch(b"ctx", &c, &refs, rng), vec![2, 1]);
    }

    #[test]
    fn every_curve_shares_commits_and_proves() {
        sharing_works::<crate::curve::Bls12>();
        sharing_works::<crate::curve::Ed25519>();
        sharing_works::<crate::curve::Secp256k1>();
    }
}
