//! Agreement among the parties that must stop (Dolev and Strong, 1983) on what transferable
//! evidence shows, run only when a party cannot finish: an honest run never gets here and costs
//! nothing more.
//!
//! Echo settles a round one round later, so a coalition that shows one honest party something at
//! the last moment (a proof in the closing round, a broadcast just before a round's end) would
//! leave the honest parties stopping with different named parties. Here only transferable
//! evidence counts, which anyone can check without trusting whoever passes it on:
//!
//! * a proof of equivocation, two digests a party signed for one round;
//! * a broadcast a party signed for one of the rounds the caller asks about (signing asks about
//!   the partials' round): it spoke, and said this. Two different ones are again an equivocation.
//!
//! The steps are Dolev-Strong's:
//!
//! * at step 1 each party sends every other participant all the evidence it holds, signed (a
//!   chain of one signature);
//! * at step k a party accepts evidence that comes with k signatures of distinct parties, if it is
//!   new: a proof against a party not yet proven to equivocate at that or an earlier round, or a
//!   broadcast of a (round, sender) for which it holds fewer than two; it adds its own signature
//!   and sends it on at step k + 1;
//! * after f + 1 steps (f = n - t - 1, the corruption bound) it names the party of every accepted
//!   proof (for the earliest round proven), and takes as what each other party said in an asked
//!   round the one broadcast accepted for it, if exactly one was.
//!
//! If an honest party accepts evidence before the last step, it sends it on and every honest
//! party accepts it one step later (unless it already holds two for that slot, which decides the
//! same); evidence accepted at the last step carries f + 1 signatures, one of an honest party that
//! accepted it earlier and sent it on. So every honest party that runs the steps ends with the
//! same proofs and the same broadcasts, names the same parties, and never an honest one (its
//! signatures cannot be forged). The steps are timed from each party's start (step k ends k step
//! lengths after it): parties that start within a step length of each other, less the network's
//! delay, stay in step.

use std::collections::{BTreeMap, BTreeSet};

use rand_core::CryptoRng;
use serde::{Deserialize, Serialize};

use crate::echo::Run;
use crate::transport::{Packet, Transport};
use crate::{decode, digest, encode, Blame, Fault, PartyIndex, SessionId, SignedBroadcast};

/// Agreement step k is broadcast as round `ROUND_AGREE + k`, above every protocol's rounds and
/// below the stop notice's.
pub(crate) const ROUND_AGREE: u16 = 0xFE00;

/// Two digests `sender` signed for one `round`: proof that it equivocated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Proof {
    round: u16,
    sender: PartyIndex,
    /// The lower digest and its signature.
    a: ([u8; 32], Vec<u8>),
    /// The higher digest and its signature.
    b: ([u8; 32], Vec<u8>),
}

/// What a party can pass on and anyone can check without trusting it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Evidence {
    /// `sender` signed two digests for one round.
    Equivocation(Proof),
    /// `sender` signed this broadcast body for `round` (a [`SignedBroadcast`] taken apart).
    Spoke {
        round: u16,
        sender: PartyIndex,
        body: Vec<u8>,
        sig: Vec<u8>,
    },
}

/// Evidence with the signatures of the parties that passed it on, in order.
#[derive(Clone, Serialize, Deserialize)]
struct Chain {
    evidence: Evidence,
    sigs: Vec<(PartyIndex, Vec<u8>)>,
}

/// What a party signs to pass evidence on: domain, session and the digest of the evidence.
fn chain_transcript(session: &SessionId, evidence: &Evidence) -> Vec<u8> {
    let mut m = b"alibi-mpc v2 agreement".to_vec();
    m.extend_from_slice(session);
    m.extend_from_slice(&digest(&encode(evidence)));
    m
}

/// What the parties that ran the agreement steps all end with.
#[derive(Debug, Default)]
pub(crate) struct Agreed {
    /// Each party proven to have equivocated, with the earliest round proven.
    equivocated: BTreeMap<PartyIndex, u16>,
    /// The broadcast bodies accepted per asked (round, sender), by digest: at most two, since
    /// two already prove an equivocation.
    heard: BTreeMap<(u16, PartyIndex), BTreeMap<[u8; 32], Vec<u8>>>,
}

impl Agreed {
    /// The body `sender` broadcast in the asked `round`, if exactly one was accepted.
    pub(crate) fn said(&self, round: u16, sender: PartyIndex) -> Option<&[u8]> {
        let h = self.heard.get(&(round, sender))?;
        let mut bodies = h.values();
        match (bodies.next(), bodies.next()) {
            (Some(b), None) => Some(b),
            _ => None,
        }
    }

    /// The earliest round `party` is proven to have equivocated in, if it is.
    pub(crate) fn equivocated(&self, party: PartyIndex) -> Option<u16> {
        self.equivocated.get(&party).copied()
    }

    /// Every proven equivocator, named for the earliest round proven.
    pub(crate) fn blames(&self) -> Vec<Blame> {
        self.equivocated
            .iter()
            .map(|(&party, &round)| Blame {
                party,
                fault: Fault::Equivocation { round },
            })
            .collect()
    }

    /// Whether `e` tells something new: checked before its signatures, which cost more.
    fn is_new(&self, e: &Evidence, asked: &[u16]) -> bool {
        match e {
            Evidence::Equivocation(p) => {
                self.equivocated.get(&p.sender).is_none_or(|&r| p.round < r)
            }
            Evidence::Spoke {
                round,
                sender,
                body,
                ..
            } => {
                asked.contains(round)
                    && self
                        .heard
                        .get(&(*round, *sender))
                        .is_none_or(|h| h.len() < 2 && !h.contains_key(&digest(body)))
            }
        }
    }

    /// Takes in `e`, already checked.
    fn take(&mut self, e: &Evidence) {
        let (sender, round) = match e {
            Evidence::Equivocation(p) => (p.sender, p.round),
            Evidence::Spoke {
                round,
                sender,
                body,
                ..
            } => {
                let h = self.heard.entry((*round, *sender)).or_default();
                h.insert(digest(body), body.clone());
                if h.len() < 2 {
                    return;
                }
                (*sender, *round)
            }
        };
        let r = self.equivocated.entry(sender).or_insert(round);
        *r = (*r).min(round);
    }
}

impl<T: Transport, R: CryptoRng + ?Sized> Run<'_, T, R> {
    /// The proofs of equivocation this party holds: the earliest round per party.
    fn own_proofs(&self) -> Vec<Proof> {
        let mut out: BTreeMap<PartyIndex, Proof> = BTreeMap::new();
        for (&(round, sender), ds) in &self.known {
            let mut two = ds.iter();
            let (Some(a), Some(b)) = (two.next(), two.next()) else {
                continue;
            };
            out.entry(sender).or_insert(Proof {
                round,
                sender,
                a: (*a.0, a.1.clone()),
                b: (*b.0, b.1.clone()),
            });
        }
        out.into_values().collect()
    }

    /// Whether `proof` shows two different digests its sender signed for one protocol round.
    fn proves(&self, proof: &Proof) -> bool {
        proof.round < ROUND_AGREE
            && proof.a.0 < proof.b.0
            && [&proof.a, &proof.b].iter().all(|(d, sig)| {
                self.party
                    .attests(&self.session, proof.round, proof.sender, d, sig)
            })
    }

    /// Whether `e` holds: its sender's signatures check, and a proof proves.
    fn holds(&self, e: &Evidence) -> bool {
        match e {
            Evidence::Equivocation(p) => self.proves(p),
            Evidence::Spoke {
                round,
                sender,
                body,
                sig,
            } => {
                *round < ROUND_AGREE
                    && self
                        .party
                        .attests(&self.session, *round, *sender, &digest(body), sig)
            }
        }
    }

    /// Everything this party holds to begin with: its proofs, and every broadcast it holds of
    /// the asked rounds (its own among them).
    fn own_evidence(&self, asked: &[u16]) -> Vec<Evidence> {
        let mut out: Vec<Evidence> = self
            .own_proofs()
            .into_iter()
            .map(Evidence::Equivocation)
            .collect();
        let everyone: Vec<PartyIndex> = self.party.roster.keys().copied().collect();
        let mailbox = self.transport.mailbox();
        for &round in asked {
            for (sender, got) in mailbox.snapshot(self.session, round, &everyone) {
                // The mailbox filed only validly signed versions, two at most.
                for sb in got
                    .broadcasts
                    .iter()
                    .filter_map(|w| decode::<SignedBroadcast>(w).ok())
                {
                    out.push(Evidence::Spoke {
                        round,
                        sender,
                        body: sb.body,
                        sig: sb.sig,
                    });
                }
            }
        }
        out
    }

    /// Whether `chain` carries at least `k` signatures of distinct parties, all valid.
    fn signed_by(&self, chain: &Chain, k: usize) -> bool {
        let m = chain_transcript(&self.session, &chain.evidence);
        let mut signers = BTreeSet::new();
        chain.sigs.len() <= self.party.roster.len()
            && chain.sigs.iter().all(|(p, sig)| {
                signers.insert(*p)
                    && self
                        .party
                        .roster
                        .get(p)
                        .is_some_and(|key| key.verify(&m, sig).is_ok())
            })
            && signers.len() >= k
    }

    /// `chain` with this party's signature added, to send on.
    fn countersign(&mut self, mut chain: Chain) -> Chain {
        let m = chain_transcript(&self.session, &chain.evidence);
        let sig = self.party.identity.sign(&m, &mut *self.rng).to_vec();
        chain.sigs.push((self.party.index, sig));
        chain
    }

    /// Runs `steps` agreement steps with whoever of `among` else stops (the others are not
    /// waited for beyond each step's end), on proofs of equivocation and on the broadcasts of
    /// the `asked` rounds. See the module documentation.
    pub(crate) async fn agree(
        &mut self,
        steps: u16,
        asked: &[u16],
        among: &[PartyIndex],
    ) -> Agreed {
        let me = self.party.index;
        let others: Vec<PartyIndex> = among.iter().copied().filter(|&p| p != me).collect();
        let mut agreed = Agreed::default();
        let mut relay = vec![];
        for evidence in self.own_evidence(asked) {
            if agreed.is_new(&evidence, asked) {
                agreed.take(&evidence);
                let chain = Chain {
                    evidence,
                    sigs: vec![],
                };
                relay.push(self.countersign(chain));
            }
        }
        // What one step message may carry: a proof per party and two broadcasts per asked slot.
        let cap = self.party.roster.len() * (2 * asked.len() + 1);
        let start = tokio::time::Instant::now();
        for k in 1..=steps {
            let round = ROUND_AGREE + k;
            self.send_step(round, &others, std::mem::take(&mut relay))
                .await;
            let deadline = start + self.timeout * u32::from(k);
            for chain in self.step_chains(round, &others, cap, deadline).await {
                if !agreed.is_new(&chain.evidence, asked)
                    || !self.signed_by(&chain, usize::from(k))
                    || !self.holds(&chain.evidence)
                {
                    continue;
                }
                agreed.take(&chain.evidence);
                if k < steps {
                    relay.push(self.countersign(chain));
                }
            }
        }
        agreed
    }

    /// Sends one step's chains to each of `others`, signed as that step's broadcast.
    async fn send_step(&mut self, round: u16, others: &[PartyIndex], chains: Vec<Chain>) {
        let wire = self
            .party
            .sign_broadcast(&self.session, round, encode(&chains));
        // Best effort: a step message that cannot be sent changes only what its recipient
        // learns.
        let packet = Packet::Round {
            broadcast: Some(wire),
            p2p: None,
        };
        self.transport
            .send_each(self.session, round, others, packet)
            .await;
    }

    /// The chains `others` sent for step `round`, once all have sent it or at `deadline`; at
    /// most `cap` from each.
    async fn step_chains(
        &self,
        round: u16,
        others: &[PartyIndex],
        cap: usize,
        deadline: tokio::time::Instant,
    ) -> Vec<Chain> {
        let mailbox = self.transport.mailbox().clone();
        loop {
            let notified = mailbox.notify().notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let all_in = mailbox
                .snapshot(self.session, round, others)
                .values()
                .filter(|i| !i.broadcasts.is_empty())
                .count()
                == others.len();
            if all_in || tokio::time::Instant::now() >= deadline {
                break;
            }
            let _ = tokio::time::timeout_at(deadline, notified).await;
        }
        let mut chains = vec![];
        for (_, got) in mailbox.snapshot(self.session, round, others) {
            for w in &got.broadcasts {
                let Ok(sb) = decode::<SignedBroadcast>(w) else {
                    continue;
                };
                if let Ok(cs) = decode::<Vec<Chain>>(&sb.body) {
                    chains.extend(cs.into_iter().take(cap));
                }
            }
        }
        chains
    }
}

/// Decodes `data` as an agreement step's body (for the fuzz target).
pub(crate) fn fuzz_decoders(data: &[u8]) {
    let _ = decode::<Vec<Chain>>(data);
}
