//! Shamir sharing with Feldman commitments over any [`DkgCurve`] (BLS12-381's G1 for BLS keys,
//! Ed25519 and secp256k1 for refreshing FROST keys), Lagrange interpolation at zero, and BLS's
//! interpolation in G2. Parties are numbered 1..=n and party i's share is f(i).

use blstrs::{G2Projective, Scalar};
use ff::{Field, PrimeField};
use group::Group;
use rand_core::CryptoRng;

use crate::curve::{Bls12, DkgCurve};
use crate::{Error, PartyIndex, Result};

/// A secret polynomial f(x) = a_0 + a_1 x + ... + a_t x^t over `C`'s scalars.
pub struct Polynomial<C: DkgCurve = Bls12> {
    coefficients: Vec<C::Scalar>,
}

impl<C: DkgCurve> Drop for Polynomial<C> {
    fn drop(&mut self) {
        self.coefficients.iter_mut().for_each(wipe);
    }
}

/// Overwrites a secret scalar with zero: not every curve's scalars have `Zeroize`, and
/// `black_box` keeps the compiler from eliding a store to memory that is not read again.
pub(crate) fn wipe<S: Field>(s: &mut S) {
    *s = S::ZERO;
    std::hint::black_box(s);
}

impl<C: DkgCurve> Polynomial<C> {
    /// A random polynomial of degree `t`.
    pub fn random<R: CryptoRng + ?Sized>(t: usize, rng: &mut R) -> Self {
        Self {
            coefficients: (0..=t).map(|_| C::random_scalar(&mut *rng)).collect(),
        }
    }

    /// A random polynomial of degree `t` with f(0) = `a0` (resharing deals an old share, or
    /// zero).
    pub fn with_constant<R: CryptoRng + ?Sized>(t: usize, a0: C::Scalar, rng: &mut R) -> Self {
        let mut f = Self::random(t, rng);
        f.coefficients[0] = a0;
        f
    }

    /// f(x) at a party's index.
    pub fn eval(&self, i: PartyIndex) -> C::Scalar {
        let x = C::Scalar::from(u64::from(i));
        self.coefficients
            .iter()
            .rev()
            .fold(C::Scalar::ZERO, |acc, c| acc * x + c)
    }

    /// The Feldman commitment: g^{a_l} for each coefficient, in the curve's wire encoding
    /// ([`DkgCurve::encode_points`]).
    pub fn commitment(&self) -> Vec<Vec<u8>> {
        let points: Vec<C::Point> = self.coefficients.iter().map(C::generator_times).collect();
        C::encode_points(&points)
    }
}

/// A decoded Feldman commitment.
#[derive(Clone, Debug)]
pub struct Commitment<C: DkgCurve = Bls12>(pub Vec<C::Point>);

impl<C: DkgCurve> Commitment<C> {
    /// Decodes wire points, each checked to be on the curve but not (yet) to be in the
    /// prime-order subgroup: for G1 that check costs as much as the rest of a dealer's
    /// decoding, so key generation makes it once, on the qualified dealers' joint commitment
    /// ([`Commitment::in_subgroup`]). Points with a small-order part only ever enter share
    /// checks, whose outcome every party computes alike from the same (echoed) bytes, and a
    /// share accepted against them is the share of the prime-order part.
    pub fn decode<P: AsRef<[u8]>>(points: &[P]) -> Result<Self> {
        points
            .iter()
            .map(|p| C::decode_point(p.as_ref()).ok_or(Error::Malformed("commitment point")))
            .collect::<Result<Vec<_>>>()
            .map(Self)
    }

    /// Whether every point is in the prime-order subgroup (G1 for BLS).
    pub fn in_subgroup(&self) -> bool {
        self.0.iter().all(C::in_subgroup)
    }

    /// g^{f(i)}: the commitment evaluated at i by Horner's rule; each step multiplies by the
    /// small integer i (double-and-add over its bits, from its top bit: bitlen(i) - 1 doublings),
    /// far cheaper than a multi-exponentiation by the full-size powers of i.
    pub fn eval(&self, i: PartyIndex) -> C::Point {
        let Some((top, rest)) = self.0.split_last() else {
            return C::Point::identity();
        };
        if i == 0 {
            return self.0[0];
        }
        let bits = 16 - i.leading_zeros();
        let times_i = |p: C::Point| {
            let mut acc = p;
            for bit in (0..bits - 1).rev() {
                acc = acc.double();
                if (i >> bit) & 1 == 1 {
                    acc += p;
                }
            }
            acc
        };
        rest.iter().rev().fold(*top, |acc, c| times_i(acc) + c)
    }

    /// The sum of several commitments of the same degree (the qualified dealers' joint one).
    pub fn sum<'a>(all: impl IntoIterator<Item = &'a Commitment<C>>) -> Option<Commitment<C>> {
        let mut it = all.into_iter();
        let mut acc = it.next()?.0.clone();
        for c in it {
            for (a, b) in acc.iter_mut().zip(&c.0) {
                *a += b;
            }
        }
        Some(Commitment(acc))
    }

    /// The commitment to s·f: every point times `s` (resharing weighs each dealer by its
    /// Lagrange coefficient).
    pub fn times(&self, s: &C::Scalar) -> Commitment<C> {
        Commitment(self.0.iter().map(|p| *p * s).collect())
    }

    /// Checks that `share` is f(i) for the committed f ([`Error::Verification`] otherwise).
    pub fn verify_share(&self, i: PartyIndex, share: &C::Scalar) -> Result<()> {
        if C::Point::generator() * share == self.eval(i) {
            Ok(())
        } else {
            Err(Error::Verification("share"))
        }
    }
}

/// The Lagrange coefficient of party `i` at zero over the set `set` (which contains `i`):
/// prod_{j != i} j / (j - i), in any prime field.
pub fn lagrange_at_zero<S: PrimeField>(i: PartyIndex, set: &[PartyIndex]) -> S {
    let xi = S::from(u64::from(i));
    let (mut num, mut den) = (S::ONE, S::ONE);
    for &j in set.iter().filter(|&&j| j != i) {
        let xj = S::from(u64::from(j));
        num *= xj;
        den *= xj - xi;
    }
    // The set holds distinct indices, so den is not zero.
    num * den.invert().unwrap_or(S::ZERO)
}

/// Interpolates G2 points y_i = f(i)·P at zero: sum of lambda_i y_i.
pub fn interpolate_g2(points: &[(PartyIndex, G2Projective)]) -> G2Projective {
    let set: Vec<PartyIndex> = points.iter().map(|(i, _)| *i).collect();
    let scalars: Vec<Scalar> = set.iter().map(|&i| lagrange_at_zero(i, &set)).collect();
    let bases: Vec<G2Projective> = points.iter().map(|(_, p)| *p).collect();
    G2Projective::multi_exp(&bases, &scalars)
}

pub use alibi_bls::{random_u128, random_weight, Weights};

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::G1Projective;
    use getrandom::SysRng;
    use rand_core::UnwrapErr;

    /// Horner's rule over the points gives g1^f(i) at every index (0, the small ones, and
    /// some with long bit strings), and the empty commitment the identity.
    #[test]
    fn evaluation_matches_the_polynomial_at_every_small_index() {
        let mut rng = UnwrapErr(SysRng);
        for t in [0, 1, 5] {
            let f = Polynomial::<Bls12>::random(t, &mut rng);
            let c = Commitment::<Bls12>::decode(&f.commitment()).unwrap();
            for i in (0..=70).chain([255, 256, 1000, u16::MAX]) {
                let want = G1Projective::generator() * f.eval(i);
                assert_eq!(c.eval(i), want, "t = {t}, i = {i}");
            }
        }
        assert_eq!(
            Commitment::<Bls12>(vec![]).eval(5),
            G1Projective::identity()
        );
    }

    #[test]
    fn shares_check_against_the_commitment_and_interpolate_to_the_secret() {
        let f = Polynomial::<Bls12>::random(2, &mut UnwrapErr(SysRng));
        let c = Commitment::<Bls12>::decode(&f.commitment()).unwrap();
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

    /// Ed25519's order-2 point hides in a commitment (moved from a_1 to a_3) without any share
    /// check failing, and the subgroup check on the commitment catches it; a key with it does
    /// not decode.
    #[test]
    fn a_small_order_part_passes_share_checks_but_not_the_subgroup_check() {
        let rng = &mut UnwrapErr(SysRng);
        let tor = crate::curve::Ed25519::small_order_point().unwrap();
        assert!(!crate::curve::Ed25519::in_subgroup(&tor));
        assert!(bool::from((tor + tor).is_identity()));
        let f = Polynomial::<crate::curve::Ed25519>::random(3, rng);
        let mut c = Commitment::<crate::curve::Ed25519>::decode(&f.commitment()).unwrap();
        c.0[1] -= tor;
        c.0[3] += tor;
        for i in 1..=9 {
            assert!(c.verify_share(i, &f.eval(i)).is_ok());
        }
        assert!(!c.in_subgroup());
        let bad = crate::curve::Ed25519::encode_points(&[c.0[1]]).remove(0);
        assert!(crate::curve::Ed25519::key_from_bytes(&bad).is_none());
        assert!(crate::curve::Ed25519::decode_point(&bad).is_some());
        assert!(crate::curve::Secp256k1::small_order_point().is_none());
    }
}
