//! Refresh of a FROST key: givre has none, so alibi's own key generation rounds run in the
//! key's group (Ed25519 or secp256k1, [`crate::curve`]) with every party dealing its old share
//! ([`Resharing`]), as a BLS refresh does, and with the same evidence, blame and agreement.
//! The new sharing goes back into givre's share ([`alibi_frost::KeyShare::refreshed`]): the
//! same key, threshold and chain code, every party's new public share.
//!
//! The scheme's evaluation points (givre's `I`: 1..=n at key generation) are the old indices;
//! the new sharing is evaluated at the parties' group indices, which the new share records.

use std::collections::BTreeMap;

use super::external::Held;
use crate::curve::DkgCurve;
use crate::dkg::{KeyShare, Resharing};
use crate::{Error, PartyIndex, Result};

fn frost_error(e: alibi_frost::Error) -> Error {
    Error::Parameters(format!("this FROST share cannot be refreshed: {e}"))
}

/// What a refresh of `held` (a FROST share) carries over: the old sharing, each party of the
/// run dealing its old share, and the FROST share the new sharing goes back into.
pub(crate) fn frost_resharing<C: DkgCurve>(
    held: &Held,
) -> Result<(Resharing<C>, alibi_frost::KeyShare)> {
    let frost = alibi_frost::KeyShare::from_bytes(held.inner()).map_err(frost_error)?;
    let sharing = frost.sharing().map_err(frost_error)?;
    let points = sharing.points.clone();
    let me_old = *points
        .get(usize::from(sharing.position))
        .ok_or(Error::Malformed(
            "FROST share: its position is past its parties",
        ))?;
    let old = KeyShare {
        index: me_old,
        threshold: usize::from(sharing.threshold),
        parties: points.clone(),
        qualified: points.clone(),
        group_key: sharing.group_key.clone(),
        verification_keys: points
            .iter()
            .copied()
            .zip(sharing.public_shares.iter().cloned())
            .collect(),
        blamed: vec![],
        secret: sharing.secret.clone(),
    };
    let holders: BTreeMap<PartyIndex, PartyIndex> =
        held.parties.iter().copied().zip(points).collect();
    let resharing = Resharing::new(&old.key_set(), holders, Some(&old))?;
    Ok((resharing, frost))
}

/// The FROST share of the new sharing `new` (the refresh's outcome) of `held`'s key. A refresh
/// that named a party gives no share: FROST has no share that leaves a party out, so the parties
/// keep their old ones and the named are reported.
pub(crate) fn frost_refreshed(
    held: &Held,
    frost: &alibi_frost::KeyShare,
    new: KeyShare,
) -> Result<Held> {
    if !new.blamed.is_empty() {
        return Err(Error::Aborted {
            reason: "the refresh named parties; a FROST key is refreshed by all its parties or \
                     not at all, so the old shares stay"
                .into(),
            blamed: new.blamed,
        });
    }
    let public_shares = held
        .parties
        .iter()
        .map(|p| new.verification_keys.get(p).cloned())
        .collect::<Option<Vec<Vec<u8>>>>()
        .ok_or(Error::Verification(
            "the refresh left a party without a public share",
        ))?;
    let refreshed = frost
        .refreshed(&held.parties, &public_shares, &new.secret)
        .map_err(|_| Error::Verification("the refreshed FROST share is not a share of the key"))?;
    Held::from_scheme(
        held.scheme,
        held.parties.clone(),
        held.me,
        &refreshed.to_bytes(),
    )
}
