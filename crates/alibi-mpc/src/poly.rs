//! Shamir sharing over the BLS12-381 scalar field with Feldman commitments in G1, and Lagrange
//! interpolation at zero (for combining partial signatures in G2). Parties are numbered 1..=n and
//! party i's share is f(i).

use blstrs::{G1Affine, G1Projective, G2Projective, Scalar};
use ff::{Field, PrimeField};
use group::prime::PrimeCurveAffine;
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
        self.coefficients.iter_mut().for_each(wipe);
    }
}

/// Overwrites a secret scalar with zero: blstrs scalars have no `Zeroize`, and `black_box` keeps
/// the compiler from eliding a store to memory that is not read again.
pub(crate) fn wipe(s: &mut Scalar) {
    *s = Scalar::ZERO;
    std::hint::black_box(s);
}

impl Polynomial {
    /// A random polynomial of degree `t`.
    pub fn random<R: CryptoRng + ?Sized>(t: usize, rng: &mut R) -> Self {
        Self {
            coefficients: (0..=t).map(|_| random_scalar(&mut *rng)).collect(),
        }
    }

    /// A random polynomial of degree `t` with f(0) = `a0` (resharing deals an old share, or
    /// zero).
    pub fn with_constant<R: CryptoRng + ?Sized>(t: usize, a0: Scalar, rng: &mut R) -> Self {
        let mut f = Self::random(t, rng);
        f.coefficients[0] = a0;
        f
    }

    /// f(x) at a party's index.
    pub fn eval(&self, i: PartyIndex) -> Scalar {
        let x = Scalar::from(u64::from(i));
        self.coefficients
            .iter()
            .rev()
            .fold(Scalar::ZERO, |acc, c| acc * x + c)
    }

    /// The Feldman commitment: g1^{a_l} for each coefficient, uncompressed (96 bytes): a
    /// receiver reads a point without the square root decompression costs, and n dealers' t+1
    /// points are most of what key generation decodes.
    pub fn commitment(&self) -> Vec<[u8; 96]> {
        let points: Vec<G1Projective> = self.coefficients.iter().map(generator_times).collect();
        let mut affine = vec![G1Affine::identity(); points.len()];
        G1Projective::batch_normalize(&points, &mut affine);
        affine.iter().map(G1Affine::to_uncompressed).collect()
    }
}

/// g1^c for a secret c, from a table of the generator's multiples built once per process: c's
/// 64 nibbles each select one of 16 points of its window, every entry read (constant time), and
/// 64 mixed additions sum them; about a third of the cost of a generic scalar multiplication,
/// which a dealer pays t + 1 times.
pub(crate) fn generator_times(c: &Scalar) -> G1Projective {
    use std::sync::OnceLock;
    use subtle::{ConditionallySelectable, ConstantTimeEq};
    /// Row w holds k·16^w·g1 for k = 0..16 (k = 0 the identity).
    static TABLE: OnceLock<Vec<[G1Affine; 16]>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut base = G1Projective::generator();
        (0..64)
            .map(|_| {
                let mut row = [G1Projective::identity(); 16];
                for k in 1..16 {
                    row[k] = row[k - 1] + base;
                }
                let mut affine = [G1Affine::identity(); 16];
                G1Projective::batch_normalize(&row, &mut affine);
                base = row[15] + base;
                affine
            })
            .collect()
    });
    let bytes = Zeroizing::new(c.to_bytes_le());
    let mut acc = G1Projective::identity();
    for (w, row) in table.iter().enumerate() {
        let nibble = (bytes[w / 2] >> (4 * (w % 2))) & 0xf;
        let mut pick = G1Affine::identity();
        for (k, point) in row.iter().enumerate() {
            pick.conditional_assign(point, (k as u8).ct_eq(&nibble));
        }
        acc += pick;
    }
    acc
}

/// A decoded Feldman commitment.
#[derive(Clone, Debug)]
pub struct Commitment(pub Vec<G1Projective>);

impl Commitment {
    /// Decodes uncompressed points, each checked to be on the curve but not (yet) to be in G1:
    /// that check costs as much as the rest of a dealer's decoding, so key generation makes it
    /// once, on the qualified dealers' joint commitment ([`Commitment::in_g1`]). Points with a
    /// torsion part only ever enter share checks, whose outcome every party computes alike from
    /// the same (echoed) bytes, and a share accepted against them is the share of the G1 part.
    pub fn decode(points: &[[u8; 96]]) -> Result<Self> {
        points
            .iter()
            .map(|p| {
                Option::<G1Affine>::from(G1Affine::from_uncompressed_unchecked(p))
                    .filter(|a| bool::from(a.is_on_curve()))
                    .map(G1Projective::from)
                    .ok_or(Error::Malformed("commitment point"))
            })
            .collect::<Result<Vec<_>>>()
            .map(Self)
    }

    /// Whether every point is in G1 (free of a cofactor-torsion part).
    pub fn in_g1(&self) -> bool {
        self.0
            .iter()
            .all(|p| bool::from(p.to_affine().is_torsion_free()))
    }

    /// g1^{f(i)}: the commitment evaluated at i by Horner's rule; each step multiplies by the
    /// small integer i (double-and-add over its bits, from its top bit: bitlen(i) - 1 doublings),
    /// far cheaper than a multi-exponentiation by the full-size powers of i.
    pub fn eval(&self, i: PartyIndex) -> G1Projective {
        let Some((top, rest)) = self.0.split_last() else {
            return G1Projective::identity();
        };
        if i == 0 {
            return self.0[0];
        }
        let bits = 16 - i.leading_zeros();
        let times_i = |p: G1Projective| {
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

    /// The commitment to s·f: every point times `s` (resharing weighs each dealer by its
    /// Lagrange coefficient).
    pub fn times(&self, s: &Scalar) -> Commitment {
        Commitment(self.0.iter().map(|p| p * s).collect())
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

/// Test hook: a point of order 3 (on the curve, outside G1): r·h/3 times a curve point, which
/// keeps only the order-3 part of the cofactor torsion. A dealer that adds it to its a_3
/// commitment and subtracts it from a_1 passes every share check (j^3 = j mod 3) while its
/// commitment is not in G1.
#[doc(hidden)]
pub fn torsion_of_order_3() -> G1Projective {
    const N: [u8; 48] = [
        0x08, 0xab, 0x05, 0xf8, 0xbd, 0xd5, 0x4c, 0xde, 0x19, 0x09, 0x37, 0xe7, 0x6b, 0xc3, 0xe4,
        0x47, 0xcc, 0x27, 0xc3, 0xd6, 0xfb, 0xd7, 0x06, 0x3f, 0xcd, 0x10, 0x46, 0x35, 0xa7, 0x90,
        0x52, 0x0c, 0x0a, 0x39, 0x55, 0x54, 0xe5, 0xc6, 0xaa, 0xaa, 0xd9, 0x55, 0x55, 0x55, 0x55,
        0x55, 0x8e, 0x39,
    ];
    for x in 1u8..=u8::MAX {
        let mut b = [0u8; 48];
        b[0] = 0x80;
        b[47] = x;
        let Some(p) = Option::<G1Affine>::from(G1Affine::from_compressed_unchecked(&b)) else {
            continue;
        };
        let p = G1Projective::from(p);
        let t = N.iter().fold(G1Projective::identity(), |acc, byte| {
            (0..8).rev().fold(acc, |acc, bit| {
                let acc = acc.double();
                if (byte >> bit) & 1 == 1 {
                    acc + p
                } else {
                    acc
                }
            })
        });
        if !bool::from(t.is_identity()) {
            return t;
        }
    }
    G1Projective::identity()
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

pub use alibi_bls::{random_weight, Weights};

#[cfg(test)]
mod tests {
    use super::*;
    use getrandom::SysRng;
    use rand_core::UnwrapErr;

    /// Horner's rule over the points gives g1^f(i) at every index (0, the small ones, and
    /// some with long bit strings), and the empty commitment the identity.
    #[test]
    fn evaluation_matches_the_polynomial_at_every_small_index() {
        let mut rng = UnwrapErr(SysRng);
        for t in [0, 1, 5] {
            let f = Polynomial::random(t, &mut rng);
            let c = Commitment::decode(&f.commitment()).unwrap();
            for i in (0..=70).chain([255, 256, 1000, u16::MAX]) {
                let want = G1Projective::generator() * f.eval(i);
                assert_eq!(c.eval(i), want, "t = {t}, i = {i}");
            }
        }
        assert_eq!(Commitment(vec![]).eval(5), G1Projective::identity());
    }

    /// The table's products are the generic scalar multiplication's, for scalars with every
    /// nibble value in every window (0, 1, -1, nibble patterns) and random ones.
    #[test]
    fn generator_table_matches_scalar_multiplication() {
        let g = G1Projective::generator();
        let mut scalars = vec![Scalar::ZERO, Scalar::ONE, -Scalar::ONE, Scalar::from(16u64)];
        for k in 0..16u8 {
            let mut b = [k | (k << 4); 32];
            b[31] &= 0x3f;
            scalars.extend(Option::<Scalar>::from(Scalar::from_bytes_le(&b)));
        }
        scalars.extend((0..20).map(|_| random_scalar(&mut UnwrapErr(SysRng))));
        for c in &scalars {
            assert_eq!(generator_times(c), g * c, "{c:?}");
        }
    }

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
