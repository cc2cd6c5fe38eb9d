//! Distributed key generation: Joint-Feldman as Yang and Zhang run it (seed 002, section 2: commit,
//! decommit, Feldman shares point-to-point, proof of the share), upgraded so that a cheater is
//! named instead of the run aborting, and so that the honest parties agree on who that is
//! (docs/mpc.md, "What key generation and signing guarantee"):
//!
//! 1. **Commit** (broadcast): H(session, i, A_i, nonce) for the Feldman commitment
//!    A_i = (g1^a_i0, ..., g1^a_it).
//! 2. **Decommit** (broadcast): A_i and the nonce.
//! 3. **Shares** (point-to-point): f_i(j), signed by the dealer. Double Ratchet messages are
//!    deniable, so without the dealer's signature a victim could not prove what it got. All
//!    shares are checked at once with random weights, each alone only if that fails.
//! 4. **Complaints** (broadcast): a bad share is shown with its signature; a missing one is named.
//! 5. **Reveals** (broadcast, by everyone, usually empty): the accused dealer publishes each share
//!    complained about; a complaint with evidence is judged: the dealer or the accuser is named.
//! 6. **Confirm** (broadcast): the party's verification key with a proof of knowledge of the final
//!    share (the paper's "proof of sk", [`crate::share_proof`]) and a digest of the outcome
//!    (qualified set, group key, named parties). Repeated (7, 8) if round 5's settlement names a
//!    qualified party.
//! 10. **Close** (broadcast, empty): settles the confirmations.
//!
//! Every broadcast is signed and carries the attestations of the sender's previous broadcast
//! round ([`crate::run`]): round r's equivocators are named when round r+1 (or the next
//! broadcast round) is read, by every party alike. A missing message is asked for, from its
//! sender and then from everyone, before anyone is named silent.
//!
//! The qualified set is every party not named; the group key is the sum of their A_i0 and party
//! j's share the sum of their f_i(j). Everyone's verification key g1^x_j follows from the
//! commitments, so signing can check each partial signature. A party finishes only if every
//! party that confirmed announced its outcome.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use blstrs::{G1Affine, G1Projective, Scalar};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::Curve;
use group::Group;
use rand_core::CryptoRng;
use serde::{Deserialize, Serialize};
use zeroize::{Zeroize, Zeroizing};

use crate::engine::{Expect, Transport};
use crate::poly::{random_weight, scalar_from_bytes, scalar_to_bytes, Commitment, Polynomial};
use crate::run::{Run, BROADCAST};
use crate::share_proof::{self, ShareProof};
use crate::{
    bls, check_indices, decode, digest, encode, Blame, Error, Fault, Party, PartyIndex, Result,
    SessionId,
};

const R_COMMIT: u16 = 1;
const R_DECOMMIT: u16 = 2;
const R_SHARES: u16 = 3;
const R_COMPLAIN: u16 = 4;
const R_REVEAL: u16 = 5;
const R_CONFIRM: u16 = 6;
/// After the confirmations (6, and 7 and 8 should a confirmation be repeated).
const R_CLOSE: u16 = 10;

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

/// One party's result of key generation.
#[derive(Clone)]
pub struct KeyShare {
    /// This party's index.
    pub index: PartyIndex,
    /// t.
    pub threshold: usize,
    /// All parties of the run.
    pub parties: Vec<PartyIndex>,
    /// The parties whose dealings make up the key.
    pub qualified: Vec<PartyIndex>,
    /// The group public key (G1, compressed).
    pub group_key: Vec<u8>,
    /// Every party's verification key g1^x_j (G1, compressed).
    pub verification_keys: BTreeMap<PartyIndex, Vec<u8>>,
    /// Who was named during key generation (they are not asked to sign).
    pub blamed: Vec<Blame>,
    secret: Zeroizing<[u8; 32]>,
}

impl core::fmt::Debug for KeyShare {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.debug_struct("KeyShare")
            .field("index", &self.index)
            .field("threshold", &self.threshold)
            .field("group_key", &self.group_key)
            .field("blamed", &self.blamed)
            .finish_non_exhaustive()
    }
}

impl KeyShare {
    /// This party's secret share x_i (32 bytes, big-endian).
    pub fn secret(&self) -> &[u8; 32] {
        &self.secret
    }

    /// The parties that may sign: all but the blamed.
    pub fn eligible_signers(&self) -> Vec<PartyIndex> {
        self.parties
            .iter()
            .copied()
            .filter(|p| !self.blamed.iter().any(|b| b.party == *p))
            .collect()
    }
}

#[derive(Serialize, Deserialize)]
struct Decommit {
    commitment: Vec<Vec<u8>>,
    nonce: [u8; 32],
}

#[derive(Serialize, Deserialize)]
struct SignedShare {
    value: [u8; 32],
    sig: Vec<u8>,
}

#[derive(Serialize, Deserialize)]
struct Complaint {
    dealer: PartyIndex,
    evidence: Option<SignedShare>,
}

#[derive(Serialize, Deserialize)]
struct Complaints {
    against: Vec<Complaint>,
}

#[derive(Serialize, Deserialize)]
struct Reveal {
    shares: Vec<(PartyIndex, SignedShare)>,
}

#[derive(Serialize, Deserialize)]
struct Confirm {
    proof: Vec<u8>,
    outcome: [u8; 32],
}

/// What the share proofs of one confirm round are bound to: the run, the round and the outcome
/// (qualified set and group key).
fn proof_context(session: &SessionId, round: u16, outcome: &[u8; 32]) -> Vec<u8> {
    let mut m = session.to_vec();
    m.extend_from_slice(&round.to_be_bytes());
    m.extend_from_slice(outcome);
    m
}

fn commit_digest(
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

fn share_transcript(
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

/// Runs key generation as `party` over `transport`.
pub async fn keygen<T: Transport>(
    party: &Party,
    config: &KeygenConfig,
    transport: &mut T,
    rng: &mut impl CryptoRng,
) -> Result<KeyShare> {
    let n = config.parties.len();
    let t = config.threshold;
    let me = party.index;
    check_indices(&config.parties)?;
    if t == 0 || t >= n || !config.parties.contains(&me) {
        return Err(Error::Parameters(format!(
            "need 1 <= t < n and this party among the parties (t = {t}, n = {n})"
        )));
    }
    let cheat = config.misbehaviour;
    let mut run = Run::new(
        party,
        config.session,
        transport,
        config.timeout,
        rng,
        config.parties.iter().copied(),
    );
    if let Some(Misbehaviour::WithholdBroadcastFrom(v)) = cheat {
        run.withhold_from = Some(v);
    }
    if cheat == Some(Misbehaviour::Stop) {
        return Err(run.stop_falsely().await);
    }
    if let Some(Misbehaviour::ReleaseLateTo(v)) = cheat {
        run.equivocate_to = Some(v);
        run.release_late = Some(R_CLOSE);
    }
    if let Some(Misbehaviour::ShowInConfirmTo(v)) = cheat {
        run.equivocate_to = Some(v);
        run.release_late = Some(R_CONFIRM);
    }
    let everyone: Vec<PartyIndex> = config
        .parties
        .iter()
        .copied()
        .filter(|&p| p != me)
        .collect();

    // Round 1: commit.
    let f = Polynomial::random(t, &mut *run.rng);
    let mut points = f.commitment();
    if cheat == Some(Misbehaviour::TorsionCommitment) && points.len() > 3 {
        let tor = crate::poly::torsion_of_order_3();
        for (k, sign) in [(1, -tor), (3, tor)] {
            if let Some(a) =
                Option::<G1Affine>::from(G1Affine::from_uncompressed_unchecked(&points[k]))
            {
                points[k] = G1Affine::from(G1Projective::from(a) + sign).to_uncompressed();
            }
        }
    }
    let commitment: Vec<Vec<u8>> = points.iter().map(|p| p.to_vec()).collect();
    let mut nonce = [0u8; 32];
    run.rng.fill_bytes(&mut nonce);
    let my_commit = commit_digest(&config.session, me, &commitment, &nonce);
    let equivocate = (cheat == Some(Misbehaviour::EquivocateCommit)).then(|| {
        let mut other = my_commit;
        other[0] ^= 1;
        encode(&other)
    });
    let garble = |round: u16, body: Vec<u8>| match cheat {
        Some(Misbehaviour::Garbage { round: r }) if r == round => {
            let mut junk = vec![0u8; body.len().max(8)];
            rand_core::Rng::fill_bytes(&mut rand_core::UnwrapErr(getrandom::SysRng), &mut junk);
            junk
        }
        _ => body,
    };
    let r1 = run
        .round(
            R_COMMIT,
            Some(garble(R_COMMIT, encode(&my_commit))),
            vec![],
            &everyone,
            BROADCAST,
            equivocate,
        )
        .await?;
    let mut commits: BTreeMap<PartyIndex, [u8; 32]> = BTreeMap::new();
    for (p, g) in r1 {
        match g.body.as_deref().map(decode::<[u8; 32]>) {
            Some(Ok(c)) => {
                commits.insert(p, c);
            }
            _ => run.blame(p, Fault::Malformed { round: R_COMMIT }),
        }
    }

    // Round 2: decommit. Its attestations settle round 1: an equivocator is named here.
    let decommit = Decommit {
        commitment: commitment.clone(),
        nonce,
    };
    let r2 = run
        .broadcast_round(R_DECOMMIT, garble(R_DECOMMIT, encode(&decommit)))
        .await?;
    let mut commitments: BTreeMap<PartyIndex, Commitment> = BTreeMap::new();
    commitments.insert(me, Commitment::decode(&points)?);
    for (p, g) in r2 {
        let Some(Ok(d)) = g.body.as_deref().map(decode::<Decommit>) else {
            run.blame(p, Fault::Malformed { round: R_DECOMMIT });
            continue;
        };
        let opens =
            commits.get(&p) == Some(&commit_digest(&config.session, p, &d.commitment, &d.nonce));
        let decoded = (d.commitment.len() == t + 1)
            .then(|| {
                let pts: Option<Vec<[u8; 96]>> = d
                    .commitment
                    .iter()
                    .map(|c| c.as_slice().try_into().ok())
                    .collect();
                pts.and_then(|p| Commitment::decode(&p).ok())
            })
            .flatten();
        match (opens, decoded) {
            (true, Some(c)) => {
                commitments.insert(p, c);
            }
            _ => run.blame(p, Fault::BadDecommitment),
        }
    }

    // Round 3: signed shares, point-to-point, to everyone still in.
    let dealt: Vec<(PartyIndex, Vec<u8>)> = run
        .active
        .iter()
        .filter(|&&j| cheat != Some(Misbehaviour::WithholdShareFrom(j)))
        .map(|&j| {
            let mut value = f.eval(j);
            match cheat {
                Some(Misbehaviour::BadShareTo(v)) if v == j => value += Scalar::ONE,
                Some(
                    Misbehaviour::OffsetShareTo(v, by) | Misbehaviour::OffsetShareThenSilent(v, by),
                ) if v == j => {
                    let off = Scalar::from(by.unsigned_abs());
                    value = if by < 0 { value - off } else { value + off };
                }
                _ => {}
            }
            let value = *scalar_to_bytes(&value);
            let sig = party
                .identity
                .sign(
                    &share_transcript(&config.session, me, j, &value),
                    &mut *run.rng,
                )
                .to_vec();
            (j, encode(&SignedShare { value, sig }))
        })
        .collect();
    let dealers: Vec<PartyIndex> = run.active.iter().copied().collect();
    let r3 = run
        .round(
            R_SHARES,
            None,
            dealt,
            &dealers,
            Expect {
                broadcast: false,
                p2p: true,
                required: false,
            },
            None,
        )
        .await?;
    if let Some(Misbehaviour::OffsetShareThenSilent(..)) = cheat {
        return Err(Error::Aborted {
            reason: "test: fell silent after dealing".into(),
            blamed: vec![],
        });
    }
    let mut shares: BTreeMap<PartyIndex, Scalar> = BTreeMap::new();
    shares.insert(me, f.eval(me));
    let mut complaints = vec![];
    let mut candidates: BTreeMap<PartyIndex, (Scalar, SignedShare)> = BTreeMap::new();
    for &d in &dealers {
        let signed = r3
            .get(&d)
            .and_then(|g| g.p2p.as_deref())
            .and_then(|b| decode::<SignedShare>(b).ok())
            .filter(|s| {
                party.roster[&d]
                    .verify(&share_transcript(&config.session, d, me, &s.value), &s.sig)
                    .is_ok()
            });
        let value = signed
            .as_ref()
            .and_then(|s| scalar_from_bytes(&s.value).ok());
        match (value, signed) {
            (Some(v), Some(s)) if commitments.contains_key(&d) => {
                candidates.insert(d, (v, s));
            }
            (_, evidence) => complaints.push(Complaint {
                dealer: d,
                evidence,
            }),
        }
    }
    // One check for all shares with random weights, so that bad shares cannot cancel out; each
    // share alone only if it fails, to find the bad ones.
    let all_good = shares_pass(&commitments, &candidates, me, &mut *run.rng);
    for (d, (v, s)) in candidates {
        if all_good || commitments[&d].verify_share(me, &v).is_ok() {
            shares.insert(d, v);
        } else {
            complaints.push(Complaint {
                dealer: d,
                evidence: Some(s),
            });
        }
    }

    // Round 4: complaints. Its attestations settle round 2.
    let mine = Complaints {
        against: complaints,
    };
    // A victim of a withheld share waited a whole timeout in round 3 before complaining: give
    // it that long again here, so that nobody names it silent for having waited.
    run.timeout = config.timeout * 2;
    let r4 = run
        .broadcast_round(R_COMPLAIN, garble(R_COMPLAIN, encode(&mine)))
        .await?;
    run.timeout = config.timeout;
    let mut all: Vec<(PartyIndex, Complaints)> = vec![(me, mine)];
    for (p, g) in r4 {
        match g.body.as_deref().map(decode::<Complaints>) {
            Some(Ok(c)) => all.push((p, c)),
            _ => run.blame(p, Fault::Malformed { round: R_COMPLAIN }),
        }
    }
    // Complaints without evidence, (dealer, accuser): the dealer reveals that share in round 5.
    let mut pending: BTreeSet<(PartyIndex, PartyIndex)> = BTreeSet::new();
    let mut evidenced: Vec<(PartyIndex, PartyIndex, SignedShare)> = vec![];
    for (accuser, c) in all {
        for complaint in c.against {
            match complaint.evidence {
                None => {
                    pending.insert((complaint.dealer, accuser));
                }
                Some(ev) => evidenced.push((complaint.dealer, accuser, ev)),
            }
        }
    }

    // Round 5: every party broadcasts the shares it was asked to reveal (often none). Its
    // attestations settle round 4, so a complaint shown to some parties only is void.
    let rng = &mut *run.rng;
    let reveal = Reveal {
        shares: pending
            .iter()
            .filter(|(d, _)| *d == me)
            .map(|&(_, a)| {
                let value = *scalar_to_bytes(&f.eval(a));
                let sig = party
                    .identity
                    .sign(&share_transcript(&config.session, me, a, &value), &mut *rng)
                    .to_vec();
                (a, SignedShare { value, sig })
            })
            .collect(),
    };
    let r5 = run
        .broadcast_round(R_REVEAL, garble(R_REVEAL, encode(&reveal)))
        .await?;
    let mut reveals: BTreeMap<PartyIndex, Reveal> = BTreeMap::new();
    for (p, g) in r5 {
        match g.body.as_deref().map(decode::<Reveal>) {
            Some(Ok(r)) => {
                reveals.insert(p, r);
            }
            _ => run.blame(p, Fault::Malformed { round: R_REVEAL }),
        }
    }
    // Complaints with evidence: a signed share that fails the dealer's commitment names the
    // dealer, anything else the accuser. Judged by everyone on the same signed bytes.
    for (d, accuser, ev) in evidenced {
        if run.is_blamed(accuser) || accuser == d {
            continue;
        }
        let Some(cm) = commitments.get(&d) else {
            continue;
        };
        let signed = party.roster.get(&d).is_some_and(|k| {
            k.verify(
                &share_transcript(&config.session, d, accuser, &ev.value),
                &ev.sig,
            )
            .is_ok()
        });
        let valid =
            scalar_from_bytes(&ev.value).is_ok_and(|v| cm.verify_share(accuser, &v).is_ok());
        if signed && !valid {
            run.blame(d, Fault::BadShare);
        } else {
            run.blame(accuser, Fault::FalseComplaint);
        }
    }
    for (d, a) in pending {
        if d == me || d == a || run.is_blamed(a) || run.is_blamed(d) {
            continue;
        }
        let Some(cm) = commitments.get(&d) else {
            continue;
        };
        let revealed = reveals
            .get(&d)
            .and_then(|r| r.shares.iter().find(|(x, _)| *x == a))
            .map(|(_, s)| s);
        let ok = revealed.and_then(|s| {
            let v = scalar_from_bytes(&s.value).ok()?;
            let signed = party.roster[&d]
                .verify(&share_transcript(&config.session, d, a, &s.value), &s.sig)
                .is_ok();
            (signed && cm.verify_share(a, &v).is_ok()).then_some(v)
        });
        match ok {
            Some(v) if a == me => {
                shares.insert(d, v);
            }
            Some(_) => {}
            None => run.blame(d, Fault::FailedReveal),
        }
    }

    // Test hook: the second version reaches the colluder only now, long after round 2.
    if let Some(Misbehaviour::SecretVersionTo(c)) = cheat {
        let secret = party.sign_broadcast(&config.session, R_DECOMMIT, b"secret".to_vec());
        let packet = crate::engine::Packet::Round {
            broadcast: Some(secret),
            p2p: None,
        };
        let _ = run
            .transport
            .send_packet(config.session, R_DECOMMIT, c, packet)
            .await;
    }
    // Round 6: confirm the outcome (qualified set, group key, who was named) with the
    // verification key and a proof of the share. Its attestations settle round 5; should they
    // name a qualified party, everyone confirms again without it.
    let mut confirm_round = R_CONFIRM;
    let (qualified, joint, group_key, secret, outcome, my_proof, confirms) = loop {
        let qualified: Vec<PartyIndex> = config
            .parties
            .iter()
            .copied()
            .filter(|p| !run.is_blamed(*p) && commitments.contains_key(p))
            .collect();
        if qualified.len() <= t {
            return Err(run.too_few(format!(
                "only {} qualified parties left for t = {t}",
                qualified.len()
            )));
        }
        if qualified.iter().any(|d| !shares.contains_key(d)) {
            return Err(run.too_few("a qualified dealer's share is missing".into()));
        }
        let joint = Commitment::sum(qualified.iter().map(|d| &commitments[d])).expect("not empty");
        if !joint.in_g1() {
            // A dealer committed to points outside G1 (decoding checked the curve only): find
            // it, name it and leave it out. Every party sees the same commitments, so all name
            // the same dealers.
            for d in &qualified {
                if !commitments[d].in_g1() {
                    run.blame(*d, Fault::BadDecommitment);
                }
            }
            continue;
        }
        let group_key = G1Affine::from(joint.0[0]).to_compressed().to_vec();
        let x = qualified
            .iter()
            .fold(Scalar::ZERO, |acc, d| acc + shares[d]);
        // The share against the final qualified set's joint commitment: the batch check above
        // covered every dealer, this covers the sum actually kept.
        if joint.verify_share(me, &x).is_err() {
            return Err(Error::Verification(
                "this party's share does not match the joint commitment",
            ));
        }
        let secret = scalar_to_bytes(&x);
        let outcome = outcome_digest(&qualified, &group_key, &run.blamed);
        let context = proof_context(&config.session, confirm_round, &outcome);
        let mut x = x;
        if cheat == Some(Misbehaviour::WrongShareProof) {
            x += Scalar::ONE;
        }
        let my_proof = ShareProof::generate(&context, me, &x, &mut *run.rng);
        x = Scalar::ZERO;
        std::hint::black_box(&x);
        let mut confirm = Confirm {
            proof: my_proof.to_bytes().to_vec(),
            outcome,
        };
        if let Some(Misbehaviour::ReleaseLateTo(_)) = cheat {
            confirm.outcome[0] ^= 1;
        }
        if let Some(Misbehaviour::ShowInConfirmTo(_)) = cheat {
            run.await_unread_version().await;
        }
        let before: Vec<PartyIndex> = run.blamed.iter().map(|b| b.party).collect();
        let r6 = run
            .broadcast_round(confirm_round, garble(R_CONFIRM, encode(&confirm)))
            .await?;
        // Parties this party heard nothing from in this round closed the run instead: a cheater
        // showed this party alone other evidence (a proof, or its confirmation only to the
        // others), so it would confirm again alone. They are no more silent than it is.
        let went_on = run.went_on(confirm_round, R_CLOSE);
        if !went_on.is_empty() {
            let mut blamed = run.blamed;
            blamed.sort_by_key(|b| b.party);
            return Err(Error::Aborted {
                reason: format!(
                    "parties {went_on:?} closed the run after round {confirm_round}, which this \
                     party was shown differently; it stops without a share"
                ),
                blamed,
            });
        }
        let newly_out = qualified
            .iter()
            .any(|q| run.is_blamed(*q) && !before.contains(q));
        if newly_out && confirm_round < R_CONFIRM + 2 {
            confirm_round += 1;
            continue;
        }
        break (qualified, joint, group_key, secret, outcome, my_proof, r6);
    };
    // The closing round: its attestations settle the confirmations, so a party that confirmed
    // differently to different parties is named by all.
    run.closing_round(R_CLOSE).await?;
    let mut confirms_ok = BTreeMap::new();
    for (p, g) in confirms {
        if run.is_blamed(p) {
            continue;
        }
        match g.body.as_deref().map(decode::<Confirm>) {
            Some(Ok(c)) => {
                confirms_ok.insert(p, c);
            }
            _ => run.blame(
                p,
                Fault::Malformed {
                    round: confirm_round,
                },
            ),
        }
    }
    // A party whose outcome differs saw another run: finishing would leave the parties with
    // different keys, so nobody finishes.
    let disagree: Vec<PartyIndex> = confirms_ok
        .iter()
        .filter(|(_, c)| c.outcome != outcome)
        .map(|(p, _)| *p)
        .collect();
    if !disagree.is_empty() {
        // Another outcome is no evidence against anyone (an honest party may have been shown
        // less): name only whom the stopping parties agree is proven to have cheated.
        let steps = (n - t) as u16;
        let blamed = run.agree(steps, &[], &config.parties).await.blames();
        return Err(Error::Aborted {
            reason: format!(
                "parties {disagree:?} confirmed another outcome (qualified set, key or named \
                 parties); named: the parties proven to have cheated"
            ),
            blamed,
        });
    }
    // Every announced verification key and proof in one check against the joint commitment;
    // each alone only if that fails (share_proof::verify_batch).
    let context = proof_context(&config.session, confirm_round, &outcome);
    let mut proofs: Vec<(PartyIndex, ShareProof)> = vec![];
    for (p, c) in &confirms_ok {
        match ShareProof::from_bytes(&c.proof) {
            Ok(proof) => proofs.push((*p, proof)),
            Err(_) => run.blame(*p, Fault::BadProof),
        }
    }
    let refs: Vec<(PartyIndex, &ShareProof)> = proofs.iter().map(|(p, q)| (*p, q)).collect();
    for p in share_proof::verify_batch(&context, &joint, &refs, &mut *run.rng) {
        run.blame(p, Fault::BadProof);
    }
    // The verification keys: announced and checked ones as they came, our own, and the joint
    // commitment's value for anyone else.
    let mut checked: BTreeMap<PartyIndex, G1Projective> = proofs
        .iter()
        .filter(|(p, _)| !run.is_blamed(*p))
        .map(|(p, q)| (*p, G1Projective::from(*q.key())))
        .collect();
    if cheat != Some(Misbehaviour::WrongShareProof) {
        checked.insert(me, G1Projective::from(*my_proof.key()));
    }
    let vks: Vec<G1Projective> = config
        .parties
        .iter()
        .map(|j| checked.get(j).copied().unwrap_or_else(|| joint.eval(*j)))
        .collect();
    let mut affine = vec![G1Affine::identity(); vks.len()];
    G1Projective::batch_normalize(&vks, &mut affine);
    let verification_keys: BTreeMap<PartyIndex, Vec<u8>> = config
        .parties
        .iter()
        .zip(&affine)
        .map(|(&j, a)| (j, a.to_compressed().to_vec()))
        .collect();
    // The received shares are summed into `secret`; wipe them.
    for v in shares.values_mut() {
        *v = Scalar::ZERO;
    }
    let mut blamed = run.blamed;
    blamed.sort_by_key(|b| b.party);
    Ok(KeyShare {
        index: me,
        threshold: t,
        parties: config.parties.clone(),
        qualified,
        group_key,
        verification_keys,
        blamed,
        secret,
    })
}

/// Whether every candidate share passes its dealer's commitment, checked at once: with random
/// 128-bit weights w_d, g1^(sum w_d s_d) = sum_d w_d C_d(i), where C_d(i) is dealer d's commitment
/// evaluated at this party's index by Horner's rule (i is small, so each step is a few doublings:
/// cheaper than one multi-scalar multiplication over every coefficient by the full-size w_d i^k,
/// see `benches/keygen_party.rs`). Without the weights two dealers' errors could cancel; with them
/// a batch containing a bad share passes with probability about 2^-128.
fn shares_pass(
    commitments: &BTreeMap<PartyIndex, Commitment>,
    candidates: &BTreeMap<PartyIndex, (Scalar, SignedShare)>,
    me: PartyIndex,
    rng: &mut impl CryptoRng,
) -> bool {
    if candidates.is_empty() {
        return true;
    }
    let mut points = vec![];
    let mut scalars = vec![];
    let mut on_g = Scalar::ZERO;
    for (d, (v, _)) in candidates {
        let w = random_weight(rng);
        on_g += w * v;
        points.push(commitments[d].eval(me));
        scalars.push(-w);
    }
    points.push(G1Projective::generator());
    scalars.push(on_g);
    bool::from(G1Projective::multi_exp(&points, &scalars).is_identity())
}

/// The digest of a key generation's outcome: the qualified set, the group key and who was named.
fn outcome_digest(qualified: &[PartyIndex], group_key: &[u8], blamed: &[Blame]) -> [u8; 32] {
    let mut named: Vec<PartyIndex> = blamed.iter().map(|b| b.party).collect();
    named.sort_unstable();
    let mut m = b"alibi-mpc v2 dkg outcome".to_vec();
    m.extend_from_slice(&encode(&qualified));
    m.extend_from_slice(group_key);
    m.extend_from_slice(&encode(&named));
    digest(&m)
}

/// A key share as a file holds it: JSON, bytes in hex.
#[derive(Serialize, Deserialize)]
struct KeyShareFile {
    index: PartyIndex,
    threshold: usize,
    parties: Vec<PartyIndex>,
    qualified: Vec<PartyIndex>,
    group_key: String,
    verification_keys: BTreeMap<PartyIndex, String>,
    blamed: Vec<Blame>,
    secret: String,
}

fn from_hex(s: &str) -> Result<Vec<u8>> {
    hex::decode(s).map_err(|_| Error::Malformed("hex"))
}

impl KeyShare {
    /// The share as JSON (the secret included: keep the file private).
    pub fn to_json(&self) -> Zeroizing<String> {
        let file = KeyShareFile {
            index: self.index,
            threshold: self.threshold,
            parties: self.parties.clone(),
            qualified: self.qualified.clone(),
            group_key: hex::encode(&self.group_key),
            verification_keys: self
                .verification_keys
                .iter()
                .map(|(p, k)| (*p, hex::encode(k)))
                .collect(),
            blamed: self.blamed.clone(),
            secret: hex::encode(self.secret.as_ref()),
        };
        let json = serde_json::to_string_pretty(&file).expect("in-memory JSON");
        let mut file = file;
        file.secret.zeroize();
        Zeroizing::new(json)
    }

    /// Reads a share written by [`KeyShare::to_json`], checking that every key decodes and that
    /// the secret matches this party's verification key.
    pub fn from_json(json: &str) -> Result<Self> {
        let f: KeyShareFile =
            serde_json::from_str(json).map_err(|_| Error::Malformed("key share file"))?;
        let secret: [u8; 32] = from_hex(&f.secret)?
            .try_into()
            .map_err(|_| Error::Malformed("secret: 32 bytes"))?;
        let secret = Zeroizing::new(secret);
        let group_key = from_hex(&f.group_key)?;
        let verification_keys: BTreeMap<PartyIndex, Vec<u8>> = f
            .verification_keys
            .iter()
            .map(|(p, k)| Ok((*p, from_hex(k)?)))
            .collect::<Result<_>>()?;
        if !bls::g1_decodes(&group_key) || !verification_keys.values().all(|k| bls::g1_decodes(k)) {
            return Err(Error::Malformed("key share file: a key is not a G1 point"));
        }
        let mine = verification_keys
            .get(&f.index)
            .ok_or(Error::Malformed("key share file: no own key"))?;
        if bls::public_key(&secret)?.as_slice() != mine.as_slice() {
            return Err(Error::Malformed(
                "key share file: the secret does not match its key",
            ));
        }
        if f.threshold == 0 || f.threshold >= f.parties.len() {
            return Err(Error::Malformed("key share file: threshold"));
        }
        if check_indices(&f.parties).is_err() || !f.parties.contains(&f.index) {
            return Err(Error::Malformed("key share file: party indices"));
        }
        Ok(KeyShare {
            index: f.index,
            threshold: f.threshold,
            parties: f.parties,
            qualified: f.qualified,
            group_key,
            verification_keys,
            blamed: f.blamed,
            secret,
        })
    }
}

/// Decodes `data` as each key-generation message (for the fuzz target).
#[doc(hidden)]
pub fn fuzz_decoders(data: &[u8]) {
    let _ = decode::<[u8; 32]>(data);
    let _ = ShareProof::from_bytes(data);
    let _ = decode::<Decommit>(data).map(|d| {
        let pts: Option<Vec<[u8; 96]>> = d
            .commitment
            .iter()
            .map(|c| c.as_slice().try_into().ok())
            .collect();
        pts.map(|p| Commitment::decode(&p).map(|c| c.eval(1)))
    });
    let _ = decode::<SignedShare>(data).map(|s| scalar_from_bytes(&s.value));
    let _ = decode::<Complaints>(data);
    let _ = decode::<Reveal>(data);
    let _ = decode::<Confirm>(data).map(|c| ShareProof::from_bytes(&c.proof));
    let _ = KeyShare::from_json(&String::from_utf8_lossy(data));
}
