//! G1 of BLS12-381 as a [`DkgCurve`], and the pieces of BLS's own key generation that are G1's:
//! the generator's table, scalars to and from bytes, and a point of order 3 for the tests.

use blstrs::{G1Affine, G1Projective, Scalar};
use ff::PrimeField;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use super::DkgCurve;
use crate::bls::Weights;
use crate::{Error, Result};

/// G1 of BLS12-381: threshold BLS keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bls12;

impl DkgCurve for Bls12 {
    type Scalar = Scalar;
    type Point = G1Projective;
    const NAME: &'static str = "BLS12-381 G1";
    const POINT_LEN: usize = 96;

    fn random_scalar<R: CryptoRng + ?Sized>(rng: &mut R) -> Self::Scalar {
        random_scalar(rng)
    }

    fn scalar_from_bytes(b: &[u8; 32]) -> Result<Self::Scalar> {
        scalar_from_bytes(b)
    }

    fn scalar_to_bytes(s: &Self::Scalar) -> Zeroizing<[u8; 32]> {
        scalar_to_bytes(s)
    }

    fn generator_times(s: &Self::Scalar) -> Self::Point {
        generator_times(s)
    }

    /// Uncompressed (96 bytes): a receiver reads a point without the square root decompression
    /// costs, and n dealers' t+1 points are most of what key generation decodes.
    fn encode_points(points: &[Self::Point]) -> Vec<Vec<u8>> {
        let mut affine = vec![G1Affine::identity(); points.len()];
        G1Projective::batch_normalize(points, &mut affine);
        affine
            .iter()
            .map(|a| a.to_uncompressed().to_vec())
            .collect()
    }

    /// On the curve only: the G1 check costs as much as the rest of a dealer's decoding, so key
    /// generation makes it once, on the qualified dealers' joint commitment.
    fn decode_point(bytes: &[u8]) -> Option<Self::Point> {
        let b: &[u8; 96] = bytes.try_into().ok()?;
        Option::<G1Affine>::from(G1Affine::from_uncompressed_unchecked(b))
            .filter(|a| bool::from(a.is_on_curve()))
            .map(Self::Point::from)
    }

    /// Checked decoding of the affine point, without the projective round trip.
    fn decode_subgroup_point(bytes: &[u8]) -> Option<Self::Point> {
        let b: &[u8; 96] = bytes.try_into().ok()?;
        Option::<G1Affine>::from(G1Affine::from_uncompressed(b)).map(G1Projective::from)
    }

    fn in_subgroup(p: &Self::Point) -> bool {
        bool::from(p.to_affine().is_torsion_free())
    }

    fn key_bytes(points: &[Self::Point]) -> Vec<Vec<u8>> {
        let mut affine = vec![G1Affine::identity(); points.len()];
        G1Projective::batch_normalize(points, &mut affine);
        affine.iter().map(|a| a.to_compressed().to_vec()).collect()
    }

    fn key_from_bytes(bytes: &[u8]) -> Option<Self::Point> {
        let b: &[u8; 48] = bytes.try_into().ok()?;
        Option::<G1Affine>::from(G1Affine::from_compressed(b)).map(Self::Point::from)
    }

    fn msm(points: &[Self::Point], scalars: &[Self::Scalar]) -> Self::Point {
        G1Projective::multi_exp(points, scalars)
    }

    fn weighted_sum(w: &Weights, points: &[Self::Point]) -> Self::Point {
        w.g1(points)
    }

    fn small_order_point() -> Option<Self::Point> {
        Some(torsion_of_order_3())
    }
}

/// g1^c for a secret c, from a table of the generator's multiples built once per process: c's
/// 64 nibbles each select one of 16 points of its window, every entry read (constant time), and
/// 64 mixed additions sum them; about a third of the cost of a generic scalar multiplication,
/// which a dealer pays t + 1 times.
pub fn generator_times(c: &Scalar) -> G1Projective {
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
    use ff::Field;
    use getrandom::SysRng;
    use rand_core::UnwrapErr;

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
}
