//! What a party is told to run: the parameters of one key generation.

use std::time::Duration;

use crate::{PartyIndex, SessionId};

/// Deliberate misbehaviour, for the tests that check a cheater is named (never set otherwise).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Misbehaviour {
    /// Deal a wrong (but signed) share to this party.
    BadShareTo(PartyIndex),
    /// Deal this party a share off by this much (signed): two colluders with opposite offsets
    /// to one victim cancel out in an unweighted sum.
    OffsetShareTo(PartyIndex, i64),
    /// As [`Misbehaviour::OffsetShareTo`], then fall silent after round 3 (so that the colluder's
    /// offset would be left alone in the victim's share).
    OffsetShareThenSilent(PartyIndex, i64),
    /// Send no broadcast to this party, and answer no wants (signing too).
    WithholdBroadcastFrom(PartyIndex),
    /// Send this party an invalid partial signature and the others a valid one (signing).
    EquivocatePartial,
    /// Send no share to this party in round 3 (then answer its complaint with a public reveal).
    WithholdShareFrom(PartyIndex),
    /// Send a different round-1 commitment to the lowest-numbered other party.
    EquivocateCommit,
    /// Sign partial signatures with a wrong key (see [`crate::sign`]).
    BadPartial,
    /// Commit to points outside G1 that still pass every share check (needs t >= 3).
    TorsionCommitment,
    /// Prove knowledge of a share one more than its own: a valid Schnorr proof for a
    /// verification key that is not the joint commitment's value at its index.
    WrongShareProof,
    /// Sign a second round-2 broadcast and hand it to this colluder alone, before round 6 (long
    /// after round 2: no honest party could echo it).
    SecretVersionTo(PartyIndex),
    /// A colluder of [`Misbehaviour::SecretVersionTo`]: confirm a wrong outcome (so that the
    /// honest parties stop), then in the closing round send this party alone the proof of the
    /// other's equivocation (the last moment: nobody echoes the closing round).
    ReleaseLateTo(PartyIndex),
    /// A colluder of [`Misbehaviour::SecretVersionTo`]: in the confirm round, send this party
    /// alone the proof of the other's equivocation, so that it alone confirms again.
    ShowInConfirmTo(PartyIndex),
    /// Broadcast random bytes (validly signed) instead of the round's message.
    Garbage {
        /// The round.
        round: u16,
    },
    /// Send a signed stop notice at the start, as a party whose transport failed would, though
    /// nothing failed (signing too).
    Stop,
}

/// The parameters of one key generation.
#[derive(Clone, Debug)]
pub struct KeygenConfig {
    /// The run's identifier, the same for every party.
    pub session: SessionId,
    /// t: the polynomial degree; any t+1 shares sign, t reveal nothing.
    pub threshold: usize,
    /// All parties' indices.
    pub parties: Vec<PartyIndex>,
    /// How long to wait for a round's messages before naming the silent.
    pub timeout: Duration,
    /// Test hook: how this party cheats.
    #[doc(hidden)]
    pub misbehaviour: Option<Misbehaviour>,
}
