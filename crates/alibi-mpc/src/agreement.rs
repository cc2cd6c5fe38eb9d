//! Agreement on who is proven to have cheated, among the parties that must stop (Dolev and
//! Strong, 1983), run only when a discrepancy is seen: an honest run never gets here and costs
//! nothing more.
//!
//! Echo settles a round one round later, so a coalition that hands a proof to one honest party
//! at the last moment (in the closing round) would leave the honest parties stopping with
//! different named parties. Here only transferable evidence counts: a proof of equivocation, two
//! digests a party signed for one round, which anyone can check without trusting whoever passes
//! it on. Silence and "its outcome differs from mine" are not evidence, and nobody is named for
//! them on this path. The steps are Dolev-Strong's:
//!
//! * at step 1 each party sends everyone every proof it holds, signed (a chain of one signature);
//! * at step k a party accepts a proof that comes with k signatures of distinct parties, unless
//!   it already holds one against that party for the same or an earlier round; it adds its own
//!   signature and sends it on at step k + 1;
//! * after f + 1 steps (f = n - t - 1, the corruption bound) it names the party of every
//!   accepted proof, for the earliest round proven.
//!
//! If an honest party accepts a proof before the last step, it sends it on and every honest party
//! accepts it one step later; a proof accepted at the last step carries f + 1 signatures, one of
//! an honest party that accepted it earlier and sent it on. So every honest party that runs the
//! steps names the same parties, and never an honest one (its signatures cannot be forged). The
//! steps are timed from each party's start (step k ends k step lengths after it): parties that
//! start within a step length of each other, less the network's delay, stay in step.

use std::collections::{BTreeMap, BTreeSet};

use rand_core::CryptoRng;
use serde::{Deserialize, Serialize};

use crate::engine::{Packet, Transport};
use crate::run::Run;
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

/// A proof with the signatures of the parties that passed it on, in order.
#[derive(Clone, Serialize, Deserialize)]
struct Chain {
    proof: Proof,
    sigs: Vec<(PartyIndex, Vec<u8>)>,
}

/// What a party signs to pass a proof on: domain, session and the digest of the proof.
fn chain_transcript(session: &SessionId, proof: &Proof) -> Vec<u8> {
    let mut m = b"alibi-mpc v1 agreement".to_vec();
    m.extend_from_slice(session);
    m.extend_from_slice(&digest(&encode(proof)));
    m
}

impl<T: Transport, R: CryptoRng> Run<'_, T, R> {
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

    /// Whether `chain` carries at least `k` signatures of distinct parties, all valid.
    fn signed_by(&self, chain: &Chain, k: usize) -> bool {
        let m = chain_transcript(&self.session, &chain.proof);
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
        let m = chain_transcript(&self.session, &chain.proof);
        let sig = self.party.identity.sign(&m, &mut *self.rng).to_vec();
        chain.sigs.push((self.party.index, sig));
        chain
    }

    /// Runs `steps` agreement steps with whoever else stops (the others are not waited for
    /// beyond each step's end) and returns the parties proven to have equivocated, each named
    /// for the earliest round proven. See the module documentation.
    pub(crate) async fn agree_on_cheaters(&mut self, steps: u16) -> Vec<Blame> {
        let me = self.party.index;
        let others: Vec<PartyIndex> = self
            .party
            .roster
            .keys()
            .copied()
            .filter(|&p| p != me)
            .collect();
        let mut accepted: BTreeMap<PartyIndex, u16> = BTreeMap::new();
        let mut relay = vec![];
        for proof in self.own_proofs() {
            accepted.insert(proof.sender, proof.round);
            let chain = Chain {
                proof,
                sigs: vec![],
            };
            relay.push(self.countersign(chain));
        }
        let mailbox = self.transport.mailbox().clone();
        let start = tokio::time::Instant::now();
        for k in 1..=steps {
            let round = ROUND_AGREE + k;
            let wire = self.party.sign_broadcast(
                &self.session,
                round,
                encode(&std::mem::take(&mut relay)),
            );
            for &q in &others {
                // Best effort: a step message that cannot be sent changes only what q learns.
                let _ = self
                    .transport
                    .send_packet(
                        self.session,
                        round,
                        q,
                        Packet::Round {
                            broadcast: Some(wire.clone()),
                            p2p: None,
                        },
                    )
                    .await;
            }
            let deadline = start + self.timeout * u32::from(k);
            loop {
                let notified = mailbox.notify().notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                let all_in = mailbox
                    .snapshot(self.session, round, &others)
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
            for (_, got) in mailbox.snapshot(self.session, round, &others) {
                for w in &got.broadcasts {
                    let Ok(sb) = decode::<SignedBroadcast>(w) else {
                        continue;
                    };
                    if let Ok(cs) = decode::<Vec<Chain>>(&sb.body) {
                        chains.extend(cs.into_iter().take(self.party.roster.len()));
                    }
                }
            }
            for chain in chains {
                let p = chain.proof.sender;
                let better = accepted.get(&p).is_none_or(|&r| chain.proof.round < r);
                if p == me
                    || !better
                    || !self.signed_by(&chain, usize::from(k))
                    || !self.proves(&chain.proof)
                {
                    continue;
                }
                accepted.insert(p, chain.proof.round);
                if k < steps {
                    relay.push(self.countersign(chain));
                }
            }
        }
        accepted
            .into_iter()
            .map(|(party, round)| Blame {
                party,
                fault: Fault::Equivocation { round },
            })
            .collect()
    }
}

/// Decodes `data` as an agreement step's body (for the fuzz target).
pub(crate) fn fuzz_decoders(data: &[u8]) {
    let _ = decode::<Vec<Chain>>(data);
}
