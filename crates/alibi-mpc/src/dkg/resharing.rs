//! Resharing: key generation's rounds run again so that the parties of a (possibly new) group
//! end with fresh shares of an existing key (Desmedt and Jajodia's redistribution, made
//! verifiable with Feldman commitments as Wong, Wang and Wing do). Every party of the run deals
//! as in key generation, but with its constant term fixed: a holder of an old share deals that
//! share (its commitment's constant term must be its old verification key), any other party
//! deals zero (the identity). With Q the qualified dealers and λ_i the Lagrange coefficients of
//! the old holders in Q over their old indices, party j's new share is
//! Σ_{i∈Q, old} λ_i f_i(j) + Σ_{i∈Q, new} f_i(j): a degree-t' sharing of the same secret, so the
//! group key is unchanged, and independent of the old polynomial, so old shares and new ones do
//! not combine. Refresh is the resharing of a group onto itself.
//!
//! Everyone checks each dealer's constant term against the old verification keys the user
//! pinned (the old share, or the old key set for a party new to the key), so all name the same
//! dealer for a wrong one.

use std::collections::BTreeMap;

use ff::Field;
use group::Group;
use zeroize::Zeroizing;

use super::{KeySet, KeyShare};
use crate::curve::{Bls12, DkgCurve};
use crate::poly::lagrange_at_zero;
use crate::{Error, PartyIndex, Result};

/// What a resharing carries over from the old key: its threshold, group key, and the old index
/// and verification key of each party of the run that holds an old share, in the group of `C`
/// (BLS12-381's G1 for BLS keys; Ed25519 or secp256k1 to refresh a FROST key).
#[derive(Clone)]
pub struct Resharing<C: DkgCurve = Bls12> {
    old_threshold: usize,
    group_key: C::Point,
    /// By index in the run: (old index, old verification key).
    holders: BTreeMap<PartyIndex, (PartyIndex, C::Point)>,
    /// This party's old share, if it holds one.
    secret: Option<Zeroizing<[u8; 32]>>,
}

impl<C: DkgCurve> core::fmt::Debug for Resharing<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.debug_struct("Resharing")
            .field("old_threshold", &self.old_threshold)
            .field("holders", &self.holders.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

fn key<C: DkgCurve>(bytes: &[u8]) -> Result<C::Point> {
    C::key_from_bytes(bytes).ok_or(Error::Malformed("a key: not a point of the curve's group"))
}

impl<C: DkgCurve> Resharing<C> {
    /// The refresh of `share`'s key among its own parties (same indices, same threshold): every
    /// eligible party deals its share.
    pub fn refresh(share: &KeyShare) -> Result<Self> {
        let holders = share
            .eligible_signers()
            .into_iter()
            .map(|p| (p, p))
            .collect();
        Self::new(&share.key_set(), holders, Some(share))
    }

    /// A resharing of the key `old`: `holders` maps each party of the run that was a party of
    /// the old key to its old index, and `mine` is this party's old share if it has one. Only
    /// the eligible old parties deal their shares ([`KeySet::eligible`]); a party key generation
    /// named deals zero, as a party new to the key does. Needs t+1 eligible holders.
    pub fn new(
        old: &KeySet,
        holders: BTreeMap<PartyIndex, PartyIndex>,
        mine: Option<&KeyShare>,
    ) -> Result<Self> {
        let group_key = key::<C>(&old.group_key)?;
        if let Some(s) = mine {
            if s.key_set() != *old || !holders.values().any(|o| *o == s.index) {
                return Err(Error::Parameters(
                    "this party's old share is not one of the old key's holders'".into(),
                ));
            }
        }
        let mut keyed = BTreeMap::new();
        for (p, o) in holders
            .into_iter()
            .filter(|(_, o)| old.eligible.contains(o))
        {
            let vk = old
                .verification_keys
                .get(&o)
                .ok_or_else(|| Error::Parameters(format!("no old key of old party {o}")))?;
            keyed.insert(p, (o, key::<C>(vk)?));
        }
        let old_threshold = old.threshold;
        if keyed.len() <= old_threshold {
            return Err(Error::Parameters(format!(
                "{} holders of the old key take part; its threshold {old_threshold} needs {}",
                keyed.len(),
                old_threshold + 1
            )));
        }
        let secret = mine
            .filter(|s| old.eligible.contains(&s.index))
            .map(|s| s.secret.clone());
        Ok(Resharing {
            old_threshold,
            group_key,
            holders: keyed,
            secret,
        })
    }

    /// What `dealer` must commit to as its constant term.
    pub(super) fn constant_of(&self, dealer: PartyIndex) -> C::Point {
        self.holders
            .get(&dealer)
            .map_or(C::Point::identity(), |(_, vk)| *vk)
    }

    /// This party's constant term: its old share, or zero. `me` must be a holder exactly when
    /// this party has an old share.
    pub(super) fn my_constant(&self, me: PartyIndex) -> Result<C::Scalar> {
        match (&self.secret, self.holders.contains_key(&me)) {
            (Some(s), true) => C::scalar_from_bytes(s),
            (None, false) => Ok(C::Scalar::ZERO),
            _ => Err(Error::Parameters(
                "an old holder without its share, or a share without a holder's place".into(),
            )),
        }
    }

    /// Each qualified dealer's weight: λ_i over the old indices of the qualified holders, 1 for
    /// the others. Fails (names nobody: the caller reports too few) when fewer than t+1 holders
    /// of the old key qualified.
    pub(super) fn weights(
        &self,
        qualified: &[PartyIndex],
    ) -> core::result::Result<BTreeMap<PartyIndex, C::Scalar>, String> {
        let old: Vec<PartyIndex> = qualified
            .iter()
            .filter_map(|p| self.holders.get(p).map(|(o, _)| *o))
            .collect();
        if old.len() <= self.old_threshold {
            return Err(format!(
                "only {} qualified holders of the old key left for its t = {}",
                old.len(),
                self.old_threshold
            ));
        }
        Ok(qualified
            .iter()
            .map(|p| {
                let w = self
                    .holders
                    .get(p)
                    .map_or(C::Scalar::ONE, |(o, _)| lagrange_at_zero(*o, &old));
                (*p, w)
            })
            .collect())
    }

    /// The old group key, which the new one must equal.
    pub(super) fn group_key(&self) -> C::Point {
        self.group_key
    }
}
