//! The rounds of key generation, one function each, in the order of docs/mpc.md's table:
//! [`keygen`] reads as that table.

use std::collections::{BTreeMap, BTreeSet};

use ff::{Field, PrimeField};
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use super::config::KeygenConfig;
use super::key_share::KeyShare;
use super::messages::{
    commit_digest, outcome_digest, proof_context, share_transcript, Complaint, Complaints, Confirm,
    Decommit, Reveal, SignedShare,
};
use crate::adversary;
use crate::curve::DkgCurve;
use crate::echo::{Got, Run, BROADCAST};
use crate::poly::{wipe, Commitment, Polynomial, Weights};
use crate::share_proof::{self, ShareProof};
use crate::transport::{Expect, Transport};
use crate::{check_indices, decode, encode, Error, Fault, Party, PartyIndex, Result};

const R_COMMIT: u16 = 1;
/// Also the shares, point-to-point beside the decommitment (round 3 carried them alone before
/// issue 46; the later rounds keep their numbers).
const R_DECOMMIT: u16 = 2;
const R_COMPLAIN: u16 = 4;
const R_REVEAL: u16 = 5;
const R_CONFIRM: u16 = 6;
/// After the confirmations (6, and 7 and 8 should a confirmation be repeated).
const R_CLOSE: u16 = 10;

/// Runs key generation as `party` over `transport`, in the group of `C`.
pub async fn keygen<C: DkgCurve, T: Transport, R: CryptoRng + ?Sized>(
    party: &Party,
    config: &KeygenConfig<C>,
    transport: &mut T,
    rng: &mut R,
) -> Result<KeyShare> {
    let n = config.parties.len();
    let t = config.threshold;
    check_indices(&config.parties)?;
    if t == 0 || t >= n || !config.parties.contains(&party.index) {
        return Err(Error::Parameters(format!(
            "need 1 <= t < n and this party among the parties (t = {t}, n = {n})"
        )));
    }
    let run = Run::new(
        party,
        config.session,
        transport,
        config.timeout,
        rng,
        config.parties.iter().copied(),
    );
    let mut k = Keygen::new(run, config).await?;
    let opening = k.commit().await?;
    let complaints = k.decommit_and_deal(opening).await?;
    let (disputes, early) = k.complain(complaints).await?;
    k.reveal(disputes).await?;
    let confirmed = match early.filter(|e| k.stands(e)) {
        Some(early) => early.confirmed,
        None => k.confirm().await?,
    };
    k.close(confirmed).await
}

/// One party's key generation in progress: what the rounds so far have settled.
struct Keygen<'a, C: DkgCurve, T: Transport, R: CryptoRng + ?Sized> {
    run: Run<'a, T, R>,
    config: &'a KeygenConfig<C>,
    /// This party's polynomial f_i.
    f: Polynomial<C>,
    /// Round 1: each party's commitment digest.
    commits: BTreeMap<PartyIndex, [u8; 32]>,
    /// Round 2: each party's opened Feldman commitment, this party's own included.
    commitments: BTreeMap<PartyIndex, Commitment<C>>,
    /// Rounds 2 and 5: the shares this party holds, by dealer, its own included.
    shares: BTreeMap<PartyIndex, C::Scalar>,
}

/// Round 4's complaints, to be settled in round 5.
struct Disputes {
    /// Without evidence, (dealer, accuser): the dealer reveals that share.
    pending: BTreeSet<(PartyIndex, PartyIndex)>,
    /// With evidence, (dealer, accuser, the signed share).
    evidenced: Vec<(PartyIndex, PartyIndex, SignedShare)>,
}

/// What a party computes from the qualified set, and confirms.
struct Outcome<C: DkgCurve> {
    qualified: Vec<PartyIndex>,
    joint: Commitment<C>,
    group_key: Vec<u8>,
    secret: Zeroizing<[u8; 32]>,
    digest: [u8; 32],
}

/// The outcome this party confirmed, its proof, and the others' confirmations (`None` for one
/// whose body did not decode: the closing round names its sender).
struct Confirmed<C: DkgCurve> {
    outcome: Outcome<C>,
    round: u16,
    proof: ShareProof<C>,
    confirms: BTreeMap<PartyIndex, Option<Confirm>>,
}

/// Round 4's early confirmations, and who was named when their outcome was computed (they
/// hold only if round 5 names nobody else for rounds 1 to 4: [`Keygen::stands`]).
struct Early<C: DkgCurve> {
    confirmed: Confirmed<C>,
    named: BTreeSet<PartyIndex>,
}

impl<'a, C: DkgCurve, T: Transport, R: CryptoRng + ?Sized> Keygen<'a, C, T, R> {
    /// Draws the polynomial (a cheater sets its hooks, or stops at once).
    async fn new(mut run: Run<'a, T, R>, config: &'a KeygenConfig<C>) -> Result<Self> {
        run.hooks = adversary::keygen_hooks(config);
        if let Some(e) = adversary::stop_falsely(&mut run).await {
            return Err(e);
        }
        let f = match &config.resharing {
            None => Polynomial::random(config.threshold, &mut *run.rng),
            Some(r) => {
                let a0 = adversary::constant(&run.hooks, r.my_constant(run.party.index)?);
                Polynomial::with_constant(config.threshold, a0, &mut *run.rng)
            }
        };
        Ok(Keygen {
            run,
            config,
            f,
            commits: BTreeMap::new(),
            commitments: BTreeMap::new(),
            shares: BTreeMap::new(),
        })
    }

    fn me(&self) -> PartyIndex {
        self.run.party.index
    }

    /// The round's body, as a cheater may garble it.
    fn garble(&self, round: u16, body: Vec<u8>) -> Vec<u8> {
        adversary::garble(&self.run.hooks, round, body)
    }

    /// Round 1: commit to the Feldman commitment A_i; returns its opening for round 2.
    async fn commit(&mut self) -> Result<Decommit> {
        let me = self.me();
        let mut points = self.f.commitment();
        adversary::commitment::<C>(&self.run.hooks, &mut points);
        let commitment: Vec<Vec<u8>> = points.clone();
        let mut nonce = [0u8; 32];
        self.run.rng.fill_bytes(&mut nonce);
        let my_commit = commit_digest(&self.config.session, me, &commitment, &nonce);
        adversary::equivocate_commit(&mut self.run.hooks, &my_commit);
        let everyone: Vec<PartyIndex> = self
            .config
            .parties
            .iter()
            .copied()
            .filter(|&p| p != me)
            .collect();
        let body = self.garble(R_COMMIT, encode(&my_commit));
        let r1 = self
            .run
            .round(R_COMMIT, Some(body), vec![], &everyone, BROADCAST)
            .await?;
        for (p, g) in r1 {
            match g.body.as_deref().map(decode::<[u8; 32]>) {
                Some(Ok(c)) => {
                    self.commits.insert(p, c);
                }
                _ => self.run.blame(p, Fault::Malformed { round: R_COMMIT }),
            }
        }
        self.commitments
            .insert(me, Commitment::<C>::decode(&points)?);
        Ok(Decommit { commitment, nonce })
    }

    /// Round 2: open the commitments (broadcast) and deal the signed shares (point-to-point, to
    /// everyone still in, in the same message: the dealer is bound by its round-1 commitment
    /// already, so seeing the others' openings first gains it nothing). Its attestations settle
    /// round 1: an equivocator is named here. Returns the complaints about the shares received.
    async fn decommit_and_deal(&mut self, opening: Decommit) -> Result<Vec<Complaint>> {
        let body = self.garble(R_DECOMMIT, encode(&opening));
        let dealt = self.dealings();
        let from: Vec<PartyIndex> = self.run.active.iter().copied().collect();
        // A missing decommitment names its sender silent; a missing share is complained of.
        let expect = Expect {
            p2p: true,
            ..BROADCAST
        };
        let r2 = self
            .run
            .round(R_DECOMMIT, Some(body), dealt, &from, expect)
            .await?;
        if let Some(e) = adversary::silent_after_dealing(&self.run.hooks) {
            return Err(e);
        }
        self.open_commitments(&r2);
        Ok(self.check_shares(&r2))
    }

    /// Round 2's decommitments: each must open its sender's round-1 digest to t + 1 points on
    /// the curve.
    fn open_commitments(&mut self, r2: &BTreeMap<PartyIndex, Got>) {
        let t = self.config.threshold;
        for (&p, g) in r2 {
            let Some(Ok(d)) = g.body.as_deref().map(decode::<Decommit>) else {
                self.run.blame(p, Fault::Malformed { round: R_DECOMMIT });
                continue;
            };
            let opened = commit_digest(&self.config.session, p, &d.commitment, &d.nonce);
            let opens = self.commits.get(&p) == Some(&opened);
            let decoded = (d.commitment.len() == t + 1)
                .then(|| Commitment::<C>::decode(&d.commitment).ok())
                .flatten();
            match (opens, decoded) {
                (true, Some(c)) if !self.constant_holds(p, &c) => {
                    self.run.blame(p, Fault::WrongConstant)
                }
                (true, Some(c)) => {
                    self.commitments.insert(p, c);
                }
                _ => self.run.blame(p, Fault::BadDecommitment),
            }
        }
    }

    /// Whether `dealer`'s commitment has the constant term a resharing fixes (always, for a
    /// new key).
    fn constant_holds(&self, dealer: PartyIndex, c: &Commitment<C>) -> bool {
        self.config
            .resharing
            .as_ref()
            .is_none_or(|r| c.0[0] == r.constant_of(dealer))
    }

    /// Round 2's shares from the dealers still in: the complaints about them (a share missing,
    /// unsigned, or failing its dealer's commitment).
    fn check_shares(&mut self, r2: &BTreeMap<PartyIndex, Got>) -> Vec<Complaint> {
        let dealers: Vec<PartyIndex> = self.run.active.iter().copied().collect();
        let me = self.me();
        self.shares.insert(me, self.f.eval(me));
        let mut complaints = vec![];
        let mut candidates: BTreeMap<PartyIndex, (C::Scalar, SignedShare)> = BTreeMap::new();
        for &d in &dealers {
            let signed = r2
                .get(&d)
                .and_then(|g| g.p2p.as_deref())
                .and_then(|b| decode::<SignedShare>(b).ok())
                .filter(|s| self.signed_share(d, me, s));
            let value = signed
                .as_ref()
                .and_then(|s| C::scalar_from_bytes(&s.value).ok());
            match (value, signed) {
                (Some(v), Some(s)) if self.commitments.contains_key(&d) => {
                    candidates.insert(d, (v, s));
                }
                (_, evidence) => complaints.push(Complaint {
                    dealer: d,
                    evidence,
                }),
            }
        }
        // One check for all shares with random weights, so that bad shares cannot cancel out;
        // each share alone only if it fails, to find the bad ones.
        let all_good = shares_pass(&self.commitments, &candidates, me, &mut *self.run.rng);
        for (d, (v, s)) in candidates {
            if all_good || self.commitments[&d].verify_share(me, &v).is_ok() {
                self.shares.insert(d, v);
            } else {
                complaints.push(Complaint {
                    dealer: d,
                    evidence: Some(s),
                });
            }
        }
        complaints
    }

    /// Whether `s` is the share `dealer` signed for `to`.
    fn signed_share(&self, dealer: PartyIndex, to: PartyIndex, s: &SignedShare) -> bool {
        let m = share_transcript(&self.config.session, dealer, to, &s.value);
        self.run
            .party
            .roster
            .get(&dealer)
            .is_some_and(|k| k.verify(&m, &s.sig).is_ok())
    }

    /// The share f_i(j) for each party j still in, signed, as round 2 sends them.
    fn dealings(&mut self) -> Vec<(PartyIndex, Vec<u8>)> {
        let (me, session) = (self.me(), self.config.session);
        let to: Vec<PartyIndex> = self.run.active.iter().copied().collect();
        to.into_iter()
            .filter(|&j| adversary::deals_to(&self.run.hooks, j))
            .map(|j| {
                let value = adversary::share_for(&self.run.hooks, j, self.f.eval(j));
                let value = *C::scalar_to_bytes(&value);
                let sig = self
                    .run
                    .party
                    .identity
                    .sign(
                        &share_transcript(&session, me, j, &value),
                        &mut *self.run.rng,
                    )
                    .to_vec();
                (j, encode(&SignedShare { value, sig }))
            })
            .collect()
    }

    /// Round 4: complaints, and from a party with none its early confirmation of the outcome as
    /// it stands. Its attestations settle round 2. Returns the disputes, and the early
    /// confirmations if nobody complained or was named in this round and every party confirmed
    /// this party's outcome (they hold if round 5 names nobody for rounds 1 to 4, see
    /// [`Self::stands`]).
    async fn complain(
        &mut self,
        complaints: Vec<Complaint>,
    ) -> Result<(Disputes, Option<Early<C>>)> {
        let early = match complaints.is_empty() && adversary::confirms_early(&self.run.hooks) {
            true => self.early_outcome(),
            false => None,
        };
        let mine = Complaints {
            against: complaints,
            confirm: early.as_ref().map(|(_, _, c)| Confirm {
                proof: c.proof.clone(),
                outcome: c.outcome,
            }),
        };
        let named = self.named();
        // A victim of a withheld share waited a whole timeout in round 2 before complaining:
        // give it that long again here, so that nobody names it silent for having waited.
        self.run.timeout = self.config.timeout * 2;
        let body = self.garble(R_COMPLAIN, encode(&mine));
        let r4 = self.run.broadcast_round(R_COMPLAIN, body).await?;
        self.run.timeout = self.config.timeout;
        let mut all: Vec<(PartyIndex, Complaints)> = vec![(self.me(), mine)];
        for (p, g) in r4 {
            match g.body.as_deref().map(decode::<Complaints>) {
                Some(Ok(c)) => all.push((p, c)),
                _ => self.run.blame(p, Fault::Malformed { round: R_COMPLAIN }),
            }
        }
        let early = early
            .filter(|_| self.named() == named)
            .and_then(|(outcome, proof, _)| {
                let confirms = early_confirms(&all, &outcome.digest, self.me())?;
                let confirmed = Confirmed {
                    outcome,
                    round: R_COMPLAIN,
                    proof,
                    confirms,
                };
                Some(Early { confirmed, named })
            });
        let mut disputes = Disputes {
            pending: BTreeSet::new(),
            evidenced: vec![],
        };
        for (accuser, c) in all {
            for complaint in c.against {
                match complaint.evidence {
                    None => {
                        disputes.pending.insert((complaint.dealer, accuser));
                    }
                    Some(ev) => disputes.evidenced.push((complaint.dealer, accuser, ev)),
                }
            }
        }
        Ok((disputes, early))
    }

    /// The parties named so far.
    fn named(&self) -> BTreeSet<PartyIndex> {
        self.run.blamed.iter().map(|b| b.party).collect()
    }

    /// The outcome as it stands after round 2, with this party's proof and confirmation for
    /// round 4; `None` if it cannot be computed now (round 6 computes it again, or stops).
    fn early_outcome(&mut self) -> Option<(Outcome<C>, ShareProof<C>, Confirm)> {
        loop {
            match self.outcome() {
                Ok(Some(o)) => {
                    let (proof, confirm) = self.confirmation(R_COMPLAIN, &o).ok()?;
                    return Some((o, proof, confirm));
                }
                // A dealer committed outside the subgroup and is named: compute again
                // without it.
                Ok(None) => continue,
                Err(_) => return None,
            }
        }
    }

    /// Whether round 4's early confirmations hold after round 5: it named nobody for anything
    /// in rounds 1 to 4 (an equivocation in round 4, which round 5's attestations bring to
    /// light, names its sender and so does not hold). A party named for round 5 alone (silent,
    /// garbage, two versions) stays in the outcome everyone confirmed: what it did there can
    /// have been shown to some parties only, and is settled by the closing round's
    /// attestations, which name it at every party.
    fn stands(&self, early: &Early<C>) -> bool {
        self.run.blamed.iter().all(|b| {
            early.named.contains(&b.party)
                || matches!(
                    b.fault,
                    Fault::Silent { round: R_REVEAL }
                        | Fault::Malformed { round: R_REVEAL }
                        | Fault::Equivocation { round: R_REVEAL }
                )
        })
    }

    /// Round 5: every party broadcasts the shares it was asked to reveal (often none), and
    /// every complaint is judged. Its attestations settle round 4, so a complaint shown to some
    /// parties only is void.
    async fn reveal(&mut self, disputes: Disputes) -> Result<()> {
        let (me, session) = (self.me(), self.config.session);
        let asked: Vec<PartyIndex> = disputes
            .pending
            .iter()
            .filter(|(d, _)| *d == me)
            .map(|&(_, a)| a)
            .collect();
        let mut shares = vec![];
        for a in asked {
            let value = *C::scalar_to_bytes(&self.f.eval(a));
            let transcript = share_transcript(&session, me, a, &value);
            let sig = self
                .run
                .party
                .identity
                .sign(&transcript, &mut *self.run.rng);
            let sig = sig.to_vec();
            shares.push((a, SignedShare { value, sig }));
        }
        let body = self.garble(R_REVEAL, encode(&Reveal { shares }));
        let r5 = self.run.broadcast_round(R_REVEAL, body).await?;
        let mut reveals: BTreeMap<PartyIndex, Reveal> = BTreeMap::new();
        for (p, g) in r5 {
            match g.body.as_deref().map(decode::<Reveal>) {
                Some(Ok(r)) => {
                    reveals.insert(p, r);
                }
                _ => self.run.blame(p, Fault::Malformed { round: R_REVEAL }),
            }
        }
        self.judge_evidence(disputes.evidenced);
        self.judge_reveals(disputes.pending, &reveals);
        Ok(())
    }

    /// Complaints with evidence: a signed share that fails the dealer's commitment names the
    /// dealer, anything else the accuser. Judged by everyone on the same signed bytes.
    fn judge_evidence(&mut self, evidenced: Vec<(PartyIndex, PartyIndex, SignedShare)>) {
        for (d, accuser, ev) in evidenced {
            if self.run.is_blamed(accuser) || accuser == d {
                continue;
            }
            let Some(cm) = self.commitments.get(&d) else {
                continue;
            };
            let valid =
                C::scalar_from_bytes(&ev.value).is_ok_and(|v| cm.verify_share(accuser, &v).is_ok());
            if self.signed_share(d, accuser, &ev) && !valid {
                self.run.blame(d, Fault::BadShare);
            } else {
                self.run.blame(accuser, Fault::FalseComplaint);
            }
        }
    }

    /// Complaints without evidence: the dealer must have revealed a valid signed share, or it is
    /// named. A share revealed for this party is taken.
    fn judge_reveals(
        &mut self,
        pending: BTreeSet<(PartyIndex, PartyIndex)>,
        reveals: &BTreeMap<PartyIndex, Reveal>,
    ) {
        let me = self.me();
        for (d, a) in pending {
            if d == me || d == a || self.run.is_blamed(a) || self.run.is_blamed(d) {
                continue;
            }
            let Some(cm) = self.commitments.get(&d) else {
                continue;
            };
            let revealed = reveals
                .get(&d)
                .and_then(|r| r.shares.iter().find(|(x, _)| *x == a))
                .map(|(_, s)| s);
            let ok = revealed.and_then(|s| {
                let v = C::scalar_from_bytes(&s.value).ok()?;
                (self.signed_share(d, a, s) && cm.verify_share(a, &v).is_ok()).then_some(v)
            });
            match ok {
                Some(v) if a == me => {
                    self.shares.insert(d, v);
                }
                Some(_) => {}
                None => self.run.blame(d, Fault::FailedReveal),
            }
        }
    }

    /// Round 6: confirm the outcome (qualified set, group key, who was named) with the
    /// verification key and a proof of the share. Its attestations settle round 5; should they
    /// name a qualified party, everyone confirms again without it (rounds 7, 8).
    async fn confirm(&mut self) -> Result<Confirmed<C>> {
        adversary::send_secret_version(&mut self.run).await;
        let mut round = R_CONFIRM;
        loop {
            let Some(outcome) = self.outcome()? else {
                continue;
            };
            let named = self.named();
            let (proof, confirms) = self.confirm_round(round, &outcome).await?;
            let newly_out = outcome
                .qualified
                .iter()
                .any(|q| self.run.is_blamed(*q) && !named.contains(q));
            if newly_out && round < R_CONFIRM + 2 {
                round += 1;
                continue;
            }
            return Ok(Confirmed {
                outcome,
                round,
                proof,
                confirms,
            });
        }
    }

    /// The outcome of the parties still qualified: their joint commitment, the group key and
    /// this party's share. `None` when a dealer committed outside the prime-order subgroup (it
    /// is named: compute again without it).
    fn outcome(&mut self) -> Result<Option<Outcome<C>>> {
        let t = self.config.threshold;
        let qualified: Vec<PartyIndex> = self
            .config
            .parties
            .iter()
            .copied()
            .filter(|p| !self.run.is_blamed(*p) && self.commitments.contains_key(p))
            .collect();
        if qualified.len() <= t {
            let reason = format!(
                "only {} qualified parties left for t = {t}",
                qualified.len()
            );
            return Err(self.run.too_few(reason));
        }
        if qualified.iter().any(|d| !self.shares.contains_key(d)) {
            let reason = "a qualified dealer's share is missing".into();
            return Err(self.run.too_few(reason));
        }
        let weights = match &self.config.resharing {
            None => None,
            Some(r) => match r.weights(&qualified) {
                Ok(w) => Some(w),
                Err(reason) => return Err(self.run.too_few(reason)),
            },
        };
        let weight = |d: &PartyIndex| weights.as_ref().map(|w| w[d]);
        let weighted: Vec<Commitment<C>> = qualified
            .iter()
            .map(|d| match weight(d) {
                Some(w) => self.commitments[d].times(&w),
                None => self.commitments[d].clone(),
            })
            .collect();
        let joint = Commitment::sum(&weighted).expect("not empty");
        if !joint.in_subgroup() {
            // A dealer committed to points outside the subgroup (decoding checked the curve
            // only): find it, name it and leave it out. Every party sees the same commitments,
            // so all name the same dealers.
            for d in &qualified {
                if !self.commitments[d].in_subgroup() {
                    self.run.blame(*d, Fault::BadDecommitment);
                }
            }
            return Ok(None);
        }
        let group_key = C::key_bytes(&joint.0[..1]).remove(0);
        if let Some(r) = &self.config.resharing {
            if joint.0[0] != r.group_key() {
                return Err(Error::Verification(
                    "the reshared key is not the old group key",
                ));
            }
        }
        let x = qualified.iter().fold(C::Scalar::ZERO, |acc, d| {
            acc + weight(d).map_or(self.shares[d], |w| w * self.shares[d])
        });
        // The share against the final qualified set's joint commitment: the batch check
        // covered every dealer, this covers the sum actually kept.
        if joint.verify_share(self.me(), &x).is_err() {
            return Err(Error::Verification(
                "this party's share does not match the joint commitment",
            ));
        }
        let secret = C::scalar_to_bytes(&x);
        let digest = outcome_digest(&qualified, &group_key, &self.run.blamed);
        Ok(Some(Outcome {
            qualified,
            joint,
            group_key,
            secret,
            digest,
        }))
    }

    /// One confirm round: this party's proof of its share for `outcome`, and everyone's
    /// confirmations. Stops without a share when the others closed the run instead.
    async fn confirm_round(
        &mut self,
        round: u16,
        outcome: &Outcome<C>,
    ) -> Result<(ShareProof<C>, BTreeMap<PartyIndex, Option<Confirm>>)> {
        let (proof, mut confirm) = self.confirmation(round, outcome)?;
        adversary::before_confirm(&mut self.run, &mut confirm.outcome).await;
        let body = self.garble(R_CONFIRM, encode(&confirm));
        let confirms = self.run.broadcast_round(round, body).await?;
        // Parties this party heard nothing from in this round closed the run instead: a
        // cheater showed this party alone other evidence (a proof, or its confirmation only to
        // the others), so it would confirm again alone. They are no more silent than it is.
        let went_on = self.run.went_on(round, R_CLOSE);
        if !went_on.is_empty() {
            let mut blamed = std::mem::take(&mut self.run.blamed);
            blamed.sort_by_key(|b| b.party);
            return Err(Error::Aborted {
                reason: format!(
                    "parties {} closed the run after round {round}, which this party was \
                     shown differently; it stops without a share",
                    crate::list(&went_on)
                ),
                blamed,
            });
        }
        let confirms = confirms
            .into_iter()
            .map(|(p, g)| (p, g.body.and_then(|b| decode::<Confirm>(&b).ok())))
            .collect();
        Ok((proof, confirms))
    }

    /// This party's proof of its share for `outcome` and its confirmation, for `round`.
    fn confirmation(
        &mut self,
        round: u16,
        outcome: &Outcome<C>,
    ) -> Result<(ShareProof<C>, Confirm)> {
        let context = proof_context(&self.config.session, round, &outcome.digest);
        let x = C::scalar_from_bytes(&outcome.secret)?;
        let mut x = adversary::proven_share(&self.run.hooks, x);
        let proof = ShareProof::<C>::generate(&context, self.me(), &x, &mut *self.run.rng);
        wipe(&mut x);
        let confirm = Confirm {
            proof: proof.to_bytes(),
            outcome: outcome.digest,
        };
        Ok((proof, confirm))
    }

    /// Round 10, the closing round: its attestations settle the confirmations, so a party that
    /// confirmed differently to different parties is named by all. Finishes if every
    /// confirmation announced this party's outcome.
    async fn close(mut self, mut confirmed: Confirmed<C>) -> Result<KeyShare> {
        self.run.closing_round(R_CLOSE).await?;
        let mut confirms_ok = BTreeMap::new();
        for (p, c) in std::mem::take(&mut confirmed.confirms) {
            if self.run.is_blamed(p) {
                continue;
            }
            match c {
                Some(c) => {
                    confirms_ok.insert(p, c);
                }
                None => self.run.blame(
                    p,
                    Fault::Malformed {
                        round: confirmed.round,
                    },
                ),
            }
        }
        // A party whose outcome differs saw another run: finishing would leave the parties with
        // different keys, so nobody finishes.
        let disagree: Vec<PartyIndex> = confirms_ok
            .iter()
            .filter(|(_, c)| c.outcome != confirmed.outcome.digest)
            .map(|(p, _)| *p)
            .collect();
        if !disagree.is_empty() {
            // Another outcome is no evidence against anyone (an honest party may have been
            // shown less): name only whom the stopping parties agree is proven to have cheated.
            let steps = (self.config.parties.len() - self.config.threshold) as u16;
            let parties = &self.config.parties;
            let blamed = self.run.agree(steps, &[], parties).await.blames();
            return Err(Error::Aborted {
                reason: format!(
                    "parties {} confirmed another outcome (qualified set, key or named \
                     parties); named: the parties proven to have cheated",
                    crate::list(&disagree)
                ),
                blamed,
            });
        }
        // Settled: a party named silent, started late, learns the run is over.
        self.run.announce_closed().await;
        Ok(self.finish(confirmed, confirms_ok))
    }

    /// The key share: every announced verification key and proof checked in one batch against
    /// the joint commitment (each alone only if that fails, [`share_proof::verify_batch`]);
    /// the joint commitment's value for anyone else.
    fn finish(
        mut self,
        confirmed: Confirmed<C>,
        confirms: BTreeMap<PartyIndex, Confirm>,
    ) -> KeyShare {
        let Confirmed {
            outcome,
            round,
            proof: my_proof,
            ..
        } = confirmed;
        let me = self.me();
        let context = proof_context(&self.config.session, round, &outcome.digest);
        let mut proofs: Vec<(PartyIndex, ShareProof<C>)> = vec![];
        for (p, c) in &confirms {
            match ShareProof::<C>::from_bytes(&c.proof) {
                Ok(proof) => proofs.push((*p, proof)),
                Err(_) => self.run.blame(*p, Fault::BadProof),
            }
        }
        let refs: Vec<(PartyIndex, &ShareProof<C>)> = proofs.iter().map(|(p, q)| (*p, q)).collect();
        let joint = &outcome.joint;
        for p in share_proof::verify_batch(&context, joint, &refs, &mut *self.run.rng) {
            self.run.blame(p, Fault::BadProof);
        }
        let mut checked: BTreeMap<PartyIndex, C::Point> = proofs
            .iter()
            .filter(|(p, _)| !self.run.is_blamed(*p))
            .map(|(p, q)| (*p, *q.key()))
            .collect();
        if adversary::proves_own_key(&self.run.hooks) {
            checked.insert(me, *my_proof.key());
        }
        let parties = &self.config.parties;
        let vks: Vec<C::Point> = parties
            .iter()
            .map(|j| checked.get(j).copied().unwrap_or_else(|| joint.eval(*j)))
            .collect();
        let verification_keys: BTreeMap<PartyIndex, Vec<u8>> =
            parties.iter().copied().zip(C::key_bytes(&vks)).collect();
        // The received shares are summed into the secret; wipe them.
        self.shares.values_mut().for_each(wipe);
        let mut blamed = std::mem::take(&mut self.run.blamed);
        blamed.sort_by_key(|b| b.party);
        KeyShare {
            index: me,
            threshold: self.config.threshold,
            parties: parties.clone(),
            qualified: outcome.qualified,
            group_key: outcome.group_key,
            verification_keys,
            blamed,
            secret: outcome.secret,
        }
    }
}

/// Round 4's early confirmations as received (this party's own left out), if every party sent
/// one of `outcome` and nobody complained.
fn early_confirms(
    all: &[(PartyIndex, Complaints)],
    outcome: &[u8; 32],
    me: PartyIndex,
) -> Option<BTreeMap<PartyIndex, Option<Confirm>>> {
    let mut confirms = BTreeMap::new();
    for (p, c) in all {
        let confirm = c.confirm.as_ref().filter(|c| c.outcome == *outcome)?;
        if !c.against.is_empty() {
            return None;
        }
        if *p != me {
            confirms.insert(*p, Some(confirm.clone()));
        }
    }
    Some(confirms)
}

/// Whether every candidate share passes its dealer's commitment, checked at once: with random
/// 128-bit weights w_d, g1^(sum w_d s_d) = sum_d w_d C_d(i), where C_d(i) is dealer d's commitment
/// evaluated at this party's index by Horner's rule (i is small, so each step is a few doublings:
/// cheaper than one multi-scalar multiplication over every coefficient by the full-size w_d i^k,
/// see `benches/keygen_party.rs`). The right side is one multiplication by 128-bit weights, the
/// left one by the generator's table (the sum holds secrets). Without the weights two dealers'
/// errors could cancel; with them a batch containing a bad share passes with probability about
/// 2^-128.
fn shares_pass<C: DkgCurve, R: CryptoRng + ?Sized>(
    commitments: &BTreeMap<PartyIndex, Commitment<C>>,
    candidates: &BTreeMap<PartyIndex, (C::Scalar, SignedShare)>,
    me: PartyIndex,
    rng: &mut R,
) -> bool {
    if candidates.is_empty() {
        return true;
    }
    let w = Weights::random(candidates.len(), rng);
    let mut points = Vec::with_capacity(candidates.len());
    let mut on_g = C::Scalar::ZERO;
    for (k, (d, (v, _))) in candidates.iter().enumerate() {
        on_g += C::Scalar::from_u128(w.value(k)) * v;
        points.push(commitments[d].eval(me));
    }
    let ok = C::weighted_sum(&w, &points) == C::generator_times(&on_g);
    wipe(&mut on_g);
    ok
}
