//! The prime-order groups key generation's rounds run in ([`crate::dkg`]): G1 of BLS12-381 for
//! BLS keys, and the groups of FROST's two curves, Ed25519 and secp256k1, whose keys the same
//! rounds refresh ([`crate::dkg::Resharing`]). One trait, [`DkgCurve`], says what the rounds
//! need of a group beyond `ff` and `group`: the wire encoding of a commitment point, the
//! compressed encoding of a key, the subgroup check, and products by the generator.
//!
//! Scalars travel as 32 big-endian bytes on every curve, so that a share's bytes read the same
//! way whatever the curve.

mod bls12;
mod ed25519;
mod secp256k1;

use core::fmt::Debug;

use ff::PrimeField;
use group::Group;
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::bls::Weights;
use crate::Result;

#[doc(hidden)]
pub use bls12::torsion_of_order_3;
pub use bls12::{generator_times, random_scalar, scalar_from_bytes, scalar_to_bytes, Bls12};
pub use ed25519::Ed25519;
pub use secp256k1::Secp256k1;

/// A prime-order group key generation runs in.
pub trait DkgCurve: Clone + Copy + Debug + PartialEq + Eq + Send + Sync + 'static {
    /// The scalar field.
    type Scalar: PrimeField + Send + Sync;
    /// The group's points (projective).
    type Point: Group<Scalar = Self::Scalar> + Debug + Send + Sync;
    /// The curve's name, for messages.
    const NAME: &'static str;
    /// The length of a point in its wire encoding ([`DkgCurve::encode_points`]).
    const POINT_LEN: usize;

    /// A uniform scalar.
    fn random_scalar<R: CryptoRng + ?Sized>(rng: &mut R) -> Self::Scalar;

    /// A scalar from 32 big-endian bytes (below the group order).
    fn scalar_from_bytes(b: &[u8; 32]) -> Result<Self::Scalar>;

    /// A scalar's 32 big-endian bytes, wiped on drop.
    fn scalar_to_bytes(s: &Self::Scalar) -> Zeroizing<[u8; 32]>;

    /// g·s for a secret s, in constant time.
    fn generator_times(s: &Self::Scalar) -> Self::Point;

    /// Commitment points as they go on the wire.
    fn encode_points(points: &[Self::Point]) -> Vec<Vec<u8>>;

    /// A commitment point from the wire: on the curve, perhaps not in the prime-order subgroup
    /// yet ([`DkgCurve::in_subgroup`] is checked on the joint commitment).
    fn decode_point(bytes: &[u8]) -> Option<Self::Point>;

    /// Whether `p` has no small-order part.
    fn in_subgroup(p: &Self::Point) -> bool;

    /// A point from the wire that must be in the prime-order subgroup (a share proof's).
    fn decode_subgroup_point(bytes: &[u8]) -> Option<Self::Point> {
        Self::decode_point(bytes).filter(Self::in_subgroup)
    }

    /// Keys (group and verification keys) in their compressed standard encoding.
    fn key_bytes(points: &[Self::Point]) -> Vec<Vec<u8>>;

    /// A key from its compressed encoding, checked to be in the prime-order subgroup.
    fn key_from_bytes(bytes: &[u8]) -> Option<Self::Point>;

    /// Σ s_i P_i over points that may be public (variable time).
    fn msm(points: &[Self::Point], scalars: &[Self::Scalar]) -> Self::Point {
        points
            .iter()
            .zip(scalars)
            .fold(Self::Point::identity(), |acc, (p, s)| acc + *p * s)
    }

    /// Σ w_i P_i for random 128-bit weights.
    fn weighted_sum(w: &Weights, points: &[Self::Point]) -> Self::Point {
        let scalars: Vec<Self::Scalar> = (0..w.len())
            .map(|i| Self::Scalar::from_u128(w.value(i)))
            .collect();
        Self::msm(points, &scalars)
    }

    /// Test hook: a point of small order that a cheating dealer can hide in its commitment
    /// without any share check failing (`None` on a prime-order curve).
    fn small_order_point() -> Option<Self::Point>;
}
