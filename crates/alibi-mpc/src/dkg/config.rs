//! What a party is told to run: the parameters of one key generation.

use std::time::Duration;

use crate::curve::{Bls12, DkgCurve};
use crate::{PartyIndex, SessionId};

/// The parameters of one key generation in the group of `C` (BLS12-381's G1 unless a FROST key
/// is refreshed).
#[derive(Clone, Debug)]
pub struct KeygenConfig<C: DkgCurve = Bls12> {
    /// The run's identifier, the same for every party.
    pub session: SessionId,
    /// t: the polynomial degree; any t+1 shares sign, t reveal nothing.
    pub threshold: usize,
    /// All parties' indices.
    pub parties: Vec<PartyIndex>,
    /// How long to wait for a round's messages before naming the silent.
    pub timeout: Duration,
    /// A resharing of an existing key instead of a new one ([`super::Resharing`]).
    pub resharing: Option<super::Resharing<C>>,
    /// Test hook: how this party cheats.
    #[cfg(feature = "adversary")]
    pub misbehaviour: Option<crate::adversary::Misbehaviour>,
}

impl<C: DkgCurve> KeygenConfig<C> {
    /// A key generation of `parties` with threshold t, waiting `timeout` per round.
    pub fn new(
        session: SessionId,
        threshold: usize,
        parties: Vec<PartyIndex>,
        timeout: Duration,
    ) -> Self {
        KeygenConfig {
            session,
            threshold,
            parties,
            timeout,
            resharing: None,
            #[cfg(feature = "adversary")]
            misbehaviour: None,
        }
    }
}
