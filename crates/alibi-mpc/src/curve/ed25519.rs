//! The Edwards form of Curve25519 as a [`DkgCurve`] (curve25519-dalek 4's `group` impls).

use rand_core::CryptoRng;
use zeroize::Zeroizing;

use super::DkgCurve;
use crate::{Error, Result};

/// The Edwards form of Curve25519: FROST-Ed25519 keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ed25519;

impl DkgCurve for Ed25519 {
    type Scalar = dalek::Scalar;
    type Point = dalek::EdwardsPoint;
    const NAME: &'static str = "Ed25519";
    const POINT_LEN: usize = 32;

    fn random_scalar<R: CryptoRng + ?Sized>(rng: &mut R) -> Self::Scalar {
        let mut wide = Zeroizing::new([0u8; 64]);
        rng.fill_bytes(&mut *wide);
        dalek::Scalar::from_bytes_mod_order_wide(&wide)
    }

    fn scalar_from_bytes(b: &[u8; 32]) -> Result<Self::Scalar> {
        let mut le = Zeroizing::new(*b);
        le.reverse();
        Option::from(dalek::Scalar::from_canonical_bytes(*le))
            .ok_or(Error::Malformed("scalar: not below the group order"))
    }

    fn scalar_to_bytes(s: &Self::Scalar) -> Zeroizing<[u8; 32]> {
        let mut b = Zeroizing::new(s.to_bytes());
        b.reverse();
        b
    }

    fn generator_times(s: &Self::Scalar) -> Self::Point {
        dalek::EdwardsPoint::mul_base(s)
    }

    fn encode_points(points: &[Self::Point]) -> Vec<Vec<u8>> {
        Self::key_bytes(points)
    }

    /// Canonical encodings only: decompression alone also takes y >= p and a sign bit on
    /// x = 0, so two byte strings could name one point.
    fn decode_point(bytes: &[u8]) -> Option<Self::Point> {
        let b: [u8; 32] = bytes.try_into().ok()?;
        dalek::edwards::CompressedEdwardsY(b)
            .decompress()
            .filter(|p| p.compress().to_bytes() == b)
    }

    fn in_subgroup(p: &Self::Point) -> bool {
        p.is_torsion_free()
    }

    fn key_bytes(points: &[Self::Point]) -> Vec<Vec<u8>> {
        points
            .iter()
            .map(|p| p.compress().to_bytes().to_vec())
            .collect()
    }

    fn key_from_bytes(bytes: &[u8]) -> Option<Self::Point> {
        Self::decode_point(bytes).filter(Self::in_subgroup)
    }

    fn small_order_point() -> Option<Self::Point> {
        // (0, -1), of order 2: j^3 - j is even, so hidden in a_3 and taken from a_1 it cancels
        // in every share check.
        let mut b = [0u8; 32];
        b[0] = 0xec;
        b[1..31].fill(0xff);
        b[31] = 0x7f;
        dalek::edwards::CompressedEdwardsY(b).decompress()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use group::Group;

    /// The identity's canonical encoding (y = 1) decodes; y = p + 1, and y = 1 with the sign
    /// bit of x = 0 set, name the same point and do not.
    #[test]
    fn only_canonical_encodings_decode() {
        let mut one = [0u8; 32];
        one[0] = 1;
        let identity = Ed25519::decode_point(&one).expect("canonical");
        assert!(bool::from(identity.is_identity()));
        let mut p_plus_1 = [0xff; 32];
        p_plus_1[0] = 0xee;
        p_plus_1[31] = 0x7f;
        let mut signed = one;
        signed[31] |= 0x80;
        for bad in [p_plus_1, signed] {
            // dalek decompresses both, to the identity: the check is this file's own.
            let p = dalek::edwards::CompressedEdwardsY(bad).decompress();
            assert!(p.is_some_and(|p| bool::from(p.is_identity())));
            assert!(Ed25519::decode_point(&bad).is_none());
        }
    }
}
