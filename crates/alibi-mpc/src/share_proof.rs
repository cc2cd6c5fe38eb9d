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

use blstrs::{G1Affine, G1Projective, Scalar};
use ff::Field;
use group::{Curve, Group};
use rand_core::CryptoRng;
use sha2::{Digest, Sha512};

use crate::poly::{random_scalar, random_weight, scalar_from_bytes, wipe, Commitment};
use crate::{Error, PartyIndex, Result};

/// The length of an encoded proof: vk_j and R uncompressed (96 bytes each), s big-endian (32).
pub const PROOF_LEN: usize = 224;

const DOMAIN: &[u8] = b"alibi-mpc v1 dkg share proof";

/// A party's announced verification key with its proof of knowledge of the share behind it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareProof {
    key: G1Affine,
    r: G1Affine,
    s: Scalar,
}

/// e = H(domain, context, j, vk_j, R), 512 bits reduced modulo the group order.
fn challenge(context: &[u8], index: PartyIndex, key: &G1Affine, r: &G1Affine) -> Scalar {
    let mut h = Sha512::new();
    h.update(DOMAIN);
    h.update((context.len() as u64).to_be_bytes());
    h.update(context);
    h.update(index.to_be_bytes());
    h.update(key.to_uncompressed());
    h.update(r.to_uncompressed());
    let wide = h.finalize();
    // Horner over the eight big-endian words: the 512-bit integer modulo r, bias below 2^-256.
    wide.chunks_exact(8).fold(Scalar::ZERO, |acc, w| {
        let word = u64::from_be_bytes(w.try_into().expect("8-byte chunk"));
        acc * Scalar::from(1u64 << 32) * Scalar::from(1u64 << 32) + Scalar::from(word)
    })
}

fn point(bytes: &[u8]) -> Result<G1Affine> {
    let b: &[u8; 96] = bytes
        .try_into()
        .map_err(|_| Error::Malformed("share proof point"))?;
    // Checked decoding: on the curve and in G1. A torsion part could otherwise cancel in the
    // random linear combination with a probability as high as 1/3.
    Option::from(G1Affine::from_uncompressed(b)).ok_or(Error::Malformed("share proof point"))
}

impl ShareProof {
    /// Party `index` proves knowledge of its share `share` under `context` (which binds the
    /// proof to the run and its outcome).
    pub fn generate<R: CryptoRng + ?Sized>(
        context: &[u8],
        index: PartyIndex,
        share: &Scalar,
        rng: &mut R,
    ) -> Self {
        let g = G1Projective::generator();
        let key = (g * share).to_affine();
        let mut k = random_scalar(rng);
        let r = (g * k).to_affine();
        let s = k + challenge(context, index, &key, &r) * share;
        wipe(&mut k);
        Self { key, r, s }
    }

    /// The announced verification key vk_j = g1^x_j.
    pub fn key(&self) -> &G1Affine {
        &self.key
    }

    /// The encoding: vk_j, R, s.
    pub fn to_bytes(&self) -> [u8; PROOF_LEN] {
        let mut out = [0u8; PROOF_LEN];
        out[..96].copy_from_slice(&self.key.to_uncompressed());
        out[96..192].copy_from_slice(&self.r.to_uncompressed());
        out[192..].copy_from_slice(&self.s.to_bytes_be());
        out
    }

    /// Decodes a proof; both points must be in G1 and s a canonical scalar.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != PROOF_LEN {
            return Err(Error::Malformed("share proof length"));
        }
        let s: &[u8; 32] = bytes[192..].try_into().expect("32 bytes");
        Ok(Self {
            key: point(&bytes[..96])?,
            r: point(&bytes[96..192])?,
            s: scalar_from_bytes(s)?,
        })
    }

    /// Checks this proof alone: the Schnorr equation g1^s = R vk_j^e, and that vk_j is the
    /// joint commitment evaluated at `index`.
    pub fn verify(&self, context: &[u8], index: PartyIndex, joint: &Commitment) -> Result<()> {
        let e = challenge(context, index, &self.key, &self.r);
        let key = G1Projective::from(self.key);
        let schnorr = G1Projective::generator() * self.s == G1Projective::from(self.r) + key * e;
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
pub fn verify_batch<R: CryptoRng + ?Sized>(
    context: &[u8],
    joint: &Commitment,
    proofs: &[(PartyIndex, &ShareProof)],
    rng: &mut R,
) -> Vec<PartyIndex> {
    if proofs.is_empty() {
        return vec![];
    }
    let mut points = Vec::with_capacity(1 + 2 * proofs.len() + joint.0.len());
    let mut scalars = Vec::with_capacity(points.capacity());
    let mut on_c = vec![Scalar::ZERO; joint.0.len()];
    let mut on_g = Scalar::ZERO;
    for (j, p) in proofs {
        let a = random_weight(rng);
        let b = random_weight(rng);
        let e = challenge(context, *j, &p.key, &p.r);
        on_g += a * p.s;
        points.push(G1Projective::from(p.r));
        scalars.push(-a);
        points.push(G1Projective::from(p.key));
        scalars.push(b - a * e);
        // b_j j^k for every k, accumulated per commitment point.
        let x = Scalar::from(u64::from(*j));
        let mut term = b;
        for c in on_c.iter_mut() {
            *c -= term;
            term *= x;
        }
    }
    points.push(G1Projective::generator());
    scalars.push(on_g);
    points.extend_from_slice(&joint.0);
    scalars.extend_from_slice(&on_c);
    if bool::from(G1Projective::multi_exp(&points, &scalars).is_identity()) {
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
    use getrandom::SysRng;
    use rand_core::UnwrapErr;

    fn setup(n: u16, t: usize) -> (Commitment, Vec<Scalar>) {
        let rng = &mut UnwrapErr(SysRng);
        let dealers: Vec<Polynomial> = (0..n).map(|_| Polynomial::random(t, rng)).collect();
        let commitments: Vec<Commitment> = dealers
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
        assert!(ShareProof::from_bytes(&good[..PROOF_LEN - 1]).is_err());
        let tor = crate::poly::torsion_of_order_3();
        let mut bad = good;
        let r = G1Projective::from(point(&good[96..192]).unwrap()) + tor;
        bad[96..192].copy_from_slice(&r.to_affine().to_uncompressed());
        assert!(ShareProof::from_bytes(&bad).is_err());
        let mut bad = good;
        bad[192..].copy_from_slice(&[0xff; 32]);
        assert!(ShareProof::from_bytes(&bad).is_err());
    }
}
