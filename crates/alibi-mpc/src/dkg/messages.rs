//! The messages of key generation as they travel, and what their signatures and digests cover
//! (docs/mpc.md, "Key generation"). Each body is bincode of the struct here, inside a signed
//! broadcast or a point-to-point message.

use serde::{Deserialize, Serialize};

use crate::{digest, encode, Blame, PartyIndex, SessionId};

/// Round 2: the Feldman commitment A_i (uncompressed G1 points) and the nonce of round 1's hash.
#[derive(Serialize, Deserialize)]
pub(super) struct Decommit {
    #[serde(with = "crate::byte_strings")]
    pub(super) commitment: Vec<Vec<u8>>,
    pub(super) nonce: [u8; 32],
}

/// Round 2's point-to-point part: a share f_i(j), signed by its dealer so that a victim can show
/// it.
#[derive(Serialize, Deserialize)]
pub(super) struct SignedShare {
    pub(super) value: [u8; 32],
    #[serde(with = "serde_bytes")]
    pub(super) sig: Vec<u8>,
}

/// Round 4: one complaint against a dealer, with the bad share as evidence or none if missing.
#[derive(Serialize, Deserialize)]
pub(super) struct Complaint {
    pub(super) dealer: PartyIndex,
    pub(super) evidence: Option<SignedShare>,
}

/// Round 4: a party's complaints and, from a party with none, its early confirmation of the
/// outcome as it stands (it holds if nobody complains: round 5 settles that).
#[derive(Serialize, Deserialize)]
pub(super) struct Complaints {
    pub(super) against: Vec<Complaint>,
    pub(super) confirm: Option<Confirm>,
}

/// Round 5: the shares a dealer was asked to reveal, by accuser.
#[derive(Serialize, Deserialize)]
pub(super) struct Reveal {
    pub(super) shares: Vec<(PartyIndex, SignedShare)>,
}

/// Rounds 4 and 6: a proof of the final share ([`crate::share_proof`]) and the outcome's digest.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Confirm {
    #[serde(with = "serde_bytes")]
    pub(super) proof: Vec<u8>,
    pub(super) outcome: [u8; 32],
}

/// What the share proofs of one confirm round are bound to: the run, the round and the outcome
/// (qualified set and group key).
pub(super) fn proof_context(session: &SessionId, round: u16, outcome: &[u8; 32]) -> Vec<u8> {
    let mut m = session.to_vec();
    m.extend_from_slice(&round.to_be_bytes());
    m.extend_from_slice(outcome);
    m
}

/// Round 1's hash: what a party commits to before it sees the others' commitments.
pub(super) fn commit_digest(
    session: &SessionId,
    i: PartyIndex,
    commitment: &[Vec<u8>],
    nonce: &[u8; 32],
) -> [u8; 32] {
    let mut m = b"alibi-mpc v1 dkg commit".to_vec();
    m.extend_from_slice(session);
    m.extend_from_slice(&i.to_be_bytes());
    for p in commitment {
        m.extend_from_slice(p);
    }
    m.extend_from_slice(nonce);
    digest(&m)
}

/// What a dealer signs for the share `value` it deals `to`.
pub(super) fn share_transcript(
    session: &SessionId,
    dealer: PartyIndex,
    to: PartyIndex,
    value: &[u8; 32],
) -> Vec<u8> {
    let mut m = b"alibi-mpc v1 dkg share".to_vec();
    m.extend_from_slice(session);
    m.extend_from_slice(&dealer.to_be_bytes());
    m.extend_from_slice(&to.to_be_bytes());
    m.extend_from_slice(value);
    m
}

/// The digest of a key generation's outcome: the qualified set, the group key and who was named.
pub(super) fn outcome_digest(
    qualified: &[PartyIndex],
    group_key: &[u8],
    blamed: &[Blame],
) -> [u8; 32] {
    let mut named: Vec<PartyIndex> = blamed.iter().map(|b| b.party).collect();
    named.sort_unstable();
    let mut m = b"alibi-mpc v2 dkg outcome".to_vec();
    m.extend_from_slice(&encode(&qualified));
    m.extend_from_slice(group_key);
    m.extend_from_slice(&encode(&named));
    digest(&m)
}
