//! secp256k1 as a [`DkgCurve`] (k256's `group` impls).

use ff::PrimeField;
use group::GroupEncoding;
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use super::DkgCurve;
use crate::{Error, Result};

/// secp256k1 (cofactor 1): FROST-secp256k1-tr keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Secp256k1;

impl DkgCurve for Secp256k1 {
    type Scalar = k256::Scalar;
    type Point = k256::ProjectivePoint;
    const NAME: &'static str = "secp256k1";
    const POINT_LEN: usize = 33;

    /// Rejection sampling: 32 random bytes are below the order but for a 2^-128 chance.
    fn random_scalar<R: CryptoRng + ?Sized>(rng: &mut R) -> Self::Scalar {
        loop {
            let mut b = Zeroizing::new([0u8; 32]);
            rng.fill_bytes(&mut *b);
            if let Ok(s) = Self::scalar_from_bytes(&b) {
                return s;
            }
        }
    }

    fn scalar_from_bytes(b: &[u8; 32]) -> Result<Self::Scalar> {
        Option::from(k256::Scalar::from_repr((*b).into()))
            .ok_or(Error::Malformed("scalar: not below the group order"))
    }

    fn scalar_to_bytes(s: &Self::Scalar) -> Zeroizing<[u8; 32]> {
        let mut b = Zeroizing::new([0u8; 32]);
        b.copy_from_slice(&s.to_repr());
        b
    }

    fn generator_times(s: &Self::Scalar) -> Self::Point {
        k256::ProjectivePoint::GENERATOR * s
    }

    fn encode_points(points: &[Self::Point]) -> Vec<Vec<u8>> {
        Self::key_bytes(points)
    }

    fn decode_point(bytes: &[u8]) -> Option<Self::Point> {
        Self::key_from_bytes(bytes)
    }

    fn in_subgroup(_: &Self::Point) -> bool {
        true
    }

    fn key_bytes(points: &[Self::Point]) -> Vec<Vec<u8>> {
        points.iter().map(|p| p.to_bytes().to_vec()).collect()
    }

    fn key_from_bytes(bytes: &[u8]) -> Option<Self::Point> {
        if bytes.len() != Self::POINT_LEN {
            return None;
        }
        let repr = k256::CompressedPoint::clone_from_slice(bytes);
        Option::from(k256::ProjectivePoint::from_bytes(&repr))
    }

    fn small_order_point() -> Option<Self::Point> {
        None
    }
}
