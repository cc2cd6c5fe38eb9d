//! A FROST key share seen as a Shamir sharing with public shares ([`Sharing`]), and a share of
//! the same key rebuilt from a new sharing ([`KeyShare::refreshed`]): what a refresh outside
//! givre (alibi-mpc's key generation rounds, dealing each old share again) reads and writes.
//! givre itself has no refresh.

use givre::generic_ec::{Curve, NonZero, Point, Scalar, SecretScalar};
use givre::key_share::{Validate, VssSetup};
use zeroize::Zeroizing;

use crate::suite::sealed::AnyShare;
use crate::suite::{Ed25519, FrostSuite, Secp256k1Tr};
use crate::{Error, KeyShare};

/// A share's sharing: every party's evaluation point and public share, by position (givre's
/// index `i`), the group key before any tweak, and this party's secret share.
///
/// Points are compressed (32 bytes on Ed25519, 33 on secp256k1); scalars are 32 bytes
/// big-endian on both curves.
pub struct Sharing {
    /// t: the sharing polynomial's degree.
    pub threshold: u16,
    /// This party's position, `0 <= position < n`.
    pub position: u16,
    /// Each party's evaluation point x_k (givre's `I`), by position.
    pub points: Vec<u16>,
    /// The group key, untweaked (the taproot internal key for `frost-secp256k1-tr`).
    pub group_key: Vec<u8>,
    /// Each party's public share g^x_k, by position.
    pub public_shares: Vec<Vec<u8>>,
    /// This party's secret share.
    pub secret: Zeroizing<[u8; 32]>,
}

impl core::fmt::Debug for Sharing {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.debug_struct("Sharing")
            .field("threshold", &self.threshold)
            .field("position", &self.position)
            .field("points", &self.points)
            .finish_non_exhaustive()
    }
}

/// A small evaluation point as an integer (alibi and givre's key generation use 1..=n).
fn small<E: Curve>(x: &Scalar<E>) -> Option<u16> {
    let be = x.to_be_bytes();
    let (high, low) = be.as_ref().split_at(be.as_ref().len() - 2);
    high.iter()
        .all(|b| *b == 0)
        .then(|| u16::from_be_bytes([low[0], low[1]]))
}

fn sharing_of<E: Curve>(s: &givre::KeyShare<E>) -> Result<Sharing, Error> {
    let vss = s
        .vss_setup
        .as_ref()
        .ok_or(Error::Malformed("key share: not a threshold share"))?;
    let points = vss
        .I
        .iter()
        .map(|x| small(x.as_ref()))
        .collect::<Option<Vec<u16>>>()
        .ok_or(Error::Malformed("key share: an evaluation point past 2^16"))?;
    let secret: &Scalar<E> = s.x.as_ref();
    let mut bytes = Zeroizing::new([0u8; 32]);
    bytes.copy_from_slice(secret.to_be_bytes().as_ref());
    Ok(Sharing {
        threshold: vss.min_signers - 1,
        position: s.i,
        points,
        group_key: s.shared_public_key.to_bytes(true).to_vec(),
        public_shares: s
            .public_shares
            .iter()
            .map(|p| p.to_bytes(true).to_vec())
            .collect(),
        secret: bytes,
    })
}

/// `s` with a new sharing of its key: the same position, threshold, group key and chain code;
/// key-share's validation checks that the public shares interpolate to the group key and that
/// the secret matches this party's public share.
fn refreshed_of<C: FrostSuite>(
    s: &givre::KeyShare<C::Curve>,
    points: &[u16],
    public_shares: &[Vec<u8>],
    secret: &[u8; 32],
) -> Result<KeyShare, Error> {
    let bad = Error::Malformed;
    let n = s.public_shares.len();
    if points.len() != n || public_shares.len() != n {
        return Err(bad("refreshed share: another number of parties"));
    }
    let mut dirty = s.clone().into_inner();
    dirty.key_info.public_shares = public_shares
        .iter()
        .map(|p| Point::from_bytes(p).ok().and_then(NonZero::from_point))
        .collect::<Option<Vec<_>>>()
        .ok_or(bad("refreshed share: a public share"))?;
    let min_signers = s
        .vss_setup
        .as_ref()
        .map(|v| v.min_signers)
        .ok_or(bad("key share: not a threshold share"))?;
    dirty.key_info.vss_setup = Some(VssSetup {
        min_signers,
        I: points
            .iter()
            .map(|&x| NonZero::from_scalar(Scalar::from(x)))
            .collect::<Option<Vec<_>>>()
            .ok_or(bad("refreshed share: evaluation point 0"))?,
    });
    let mut x = Scalar::<C::Curve>::from_be_bytes(secret)
        .map_err(|_| bad("refreshed share: the secret share"))?;
    dirty.x = NonZero::from_secret_scalar(SecretScalar::new(&mut x))
        .ok_or(bad("refreshed share: a zero secret share"))?;
    let share = dirty
        .validate()
        .map_err(|_| bad("refreshed share: it does not match its key"))?;
    KeyShare::from_givre::<C>(share)
}

impl KeyShare {
    /// This share as a sharing ([`Sharing`]).
    pub fn sharing(&self) -> Result<Sharing, Error> {
        match &self.inner {
            AnyShare::Ed25519(s) => sharing_of(s),
            AnyShare::Secp256k1Tr(s) => sharing_of(s),
        }
    }

    /// A share of the same key from a new sharing: each party's evaluation point and public
    /// share by position (as [`Sharing`]) and this party's new secret share. Fails unless the
    /// result is a valid share of this key (same group key, threshold, position and chain code).
    pub fn refreshed(
        &self,
        points: &[u16],
        public_shares: &[Vec<u8>],
        secret: &[u8; 32],
    ) -> Result<KeyShare, Error> {
        let new = match &self.inner {
            AnyShare::Ed25519(s) => refreshed_of::<Ed25519>(s, points, public_shares, secret)?,
            AnyShare::Secp256k1Tr(s) => {
                refreshed_of::<Secp256k1Tr>(s, points, public_shares, secret)?
            }
        };
        if new.public_key != self.public_key {
            return Err(Error::Malformed("refreshed share: another group key"));
        }
        Ok(new)
    }
}
