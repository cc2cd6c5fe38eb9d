//! Shamir sharing over the BLS12-381 scalar field with Feldman commitments in G1, and Lagrange
//! interpolation at zero (for combining partial signatures in G2). Parties are numbered 1..=n and
//! party i's share is f(i).

use blstrs::{G1Affine, G1Projective, G2Projective, Scalar};
use ff::{Field, PrimeField};
use group::{Curve, Group};
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::{Error, PartyIndex, Result};

/// A secret polynomial f(x) = a_0 + a_1 x + ... + a_t x^t.
pub struct Polynomial {
    coefficients: Vec<Scalar>,
}

impl Drop for Polynomial {
    fn drop(&mut self) {
        // blstrs scalars have no Zeroize; overwrite them with zero before the memory goes.
        for c in &mut self.coefficients {
            *c = Scalar::ZERO;
        }
    }
}

impl Polynomial {
    /// A random polynomial of degree `t`.
    pub fn random(t: usize, rng: &mut impl CryptoRng) -> Self {
        Self {
            coefficients: (0..=t).map(|_| random_scalar(&mut *rng)).collect(),
        }
    }

    /// f(x) at a party's index.
    pub fn eval(&self, i: PartyIndex) -> Scalar {
        let x = Scalar::from(u64::from(i));
        self.coefficients
            .iter()
            .rev()
            .fold(Scalar::ZERO, |acc, c| acc * x + c)
    }

    /// The Feldman commitment: g1^{a_l} for each coefficient, compressed.
    pub fn commitment(&self) -> Vec<[u8; 48]> {
        self.coefficients
            .iter()
            .map(|c| (G1Projective::generator() * c).to_affine().to_compressed())
            .collect()
    }
}

/// A decoded Feldman commitment.
#[derive(Clone, Debug)]
pub struct Commitment(pub Vec<G1Projective>);

impl Commitment {
    /// Decodes compressed points (each on the curve and in G1).
    pub fn decode(points: &[[u8; 48]]) -> Result<Self> {
        points
            .iter()
            .map(|p| {
                Option::<G1Affine>::from(G1Affine::from_compressed(p))
                    .map(G1Projective::from)
                    .ok_or(Error::Malformed("commitment point"))
            })
            .collect::<Result<Vec<_>>>()
            .map(Self)
    }

    /// g1^{f(i)}: the commitment evaluated at i, as one multi-exponentiation of the points
    /// by the powers of i.
    pub fn eval(&self, i: PartyIndex) -> G1Projective {
        let x = Scalar::from(u64::from(i));
        let powers: Vec<Scalar> = core::iter::successors(Some(Scalar::ONE), |p| Some(p * x))
            .take(self.0.len())
            .collect();
        G1Projective::multi_exp(&self.0, &powers)
    }

    /// The sum of several commitments of the same degree (the qualified dealers' joint one).
    pub fn sum<'a>(all: impl IntoIterator<Item = &'a Commitment>) -> Option<Commitment> {
        let mut it = all.into_iter();
        let mut acc = it.next()?.0.clone();
        for c in it {
            for (a, b) in acc.iter_mut().zip(&c.0) {
                *a += b;
            }
        }
        Some(Commitment(acc))
    }

    /// Checks that `share` is f(i) for the committed f ([`Error::Verification`] otherwise).
    pub fn verify_share(&self, i: PartyIndex, share: &Scalar) -> Result<()> {
        if G1Projective::generator() * share == self.eval(i) {
            Ok(())
        } else {
            Err(Error::Verification("share"))
        }
    }
}

/// A scalar from its 32-byte big-endian encoding (must be below r).
pub fn scalar_from_bytes(b: &[u8; 32]) -> Result<Scalar> {
    Option::from(Scalar::from_bytes_be(b)).ok_or(Error::Malformed("scalar: not below r"))
}

/// A scalar's 32-byte big-endian encoding, in memory that is wiped on drop.
pub fn scalar_to_bytes(s: &Scalar) -> Zeroizing<[u8; 32]> {
    Zeroizing::new(s.to_bytes_be())
}

/// The Lagrange coefficient of party `i` at zero over the set `set` (which contains `i`):
/// prod_{j != i} j / (j - i).
pub fn lagrange_at_zero(i: PartyIndex, set: &[PartyIndex]) -> Scalar {
    let xi = Scalar::from(u64::from(i));
    let (mut num, mut den) = (Scalar::ONE, Scalar::ONE);
    for &j in set.iter().filter(|&&j| j != i) {
        let xj = Scalar::from(u64::from(j));
        num *= xj;
        den *= xj - xi;
    }
    // The set holds distinct indices, so den is not zero.
    num * den.invert().unwrap_or(Scalar::ZERO)
}

/// Interpolates G2 points y_i = f(i)·P at zero: sum of lambda_i y_i.
pub fn interpolate_g2(points: &[(PartyIndex, G2Projective)]) -> G2Projective {
    let set: Vec<PartyIndex> = points.iter().map(|(i, _)| *i).collect();
    let scalars: Vec<Scalar> = set.iter().map(|&i| lagrange_at_zero(i, &set)).collect();
    let bases: Vec<G2Projective> = points.iter().map(|(_, p)| *p).collect();
    G2Projective::multi_exp(&bases, &scalars)
}

/// A uniform scalar from our RNG. `ff::Field::random` takes rand_core 0.6's `RngCore`, which our
/// code does not use; this is the same rejection sampling (four little-endian words, the top bit
/// cleared, retried until below r), so a seeded RNG gives the same scalars as before.
pub fn random_scalar<R: CryptoRng + ?Sized>(rng: &mut R) -> Scalar {
    loop {
        let mut raw = [0u64; 4];
        for word in raw.iter_mut() {
            *word = rng.next_u64();
        }
        raw[3] &= u64::MAX >> (256 - Scalar::NUM_BITS);
        if let Some(s) = Option::<Scalar>::from(Scalar::from_u64s_le(&raw)) {
            return s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use getrandom::SysRng;
    use rand_core::UnwrapErr;

    #[test]
    fn shares_check_against_the_commitment_and_interpolate_to_the_secret() {
        let f = Polynomial::random(2, &mut UnwrapErr(SysRng));
        let c = Commitment::decode(&f.commitment()).unwrap();
        for i in 1..=5 {
            assert!(c.verify_share(i, &f.eval(i)).is_ok());
            assert!(c.verify_share(i, &(f.eval(i) + Scalar::ONE)).is_err());
        }
        let h = G2Projective::generator();
        let pts: Vec<_> = [1, 3, 5].iter().map(|&i| (i, h * f.eval(i))).collect();
        assert_eq!(interpolate_g2(&pts), h * f.eval(0));
        let pts: Vec<_> = [2, 4, 5].iter().map(|&i| (i, h * f.eval(i))).collect();
        assert_eq!(interpolate_g2(&pts), h * f.eval(0));
        // Two points do not determine a degree-2 polynomial.
        let pts: Vec<_> = [1, 2].iter().map(|&i| (i, h * f.eval(i))).collect();
        assert_ne!(interpolate_g2(&pts), h * f.eval(0));
    }
}
