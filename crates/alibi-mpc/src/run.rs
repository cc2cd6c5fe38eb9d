//! One party's view of a protocol run, shared by key generation and signing: who is still in,
//! who has been named, and every broadcast seen (for echoes and disputes).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use rand_core::CryptoRng;

use crate::engine::{Broadcast, Expect, Incoming, Outgoing, Transport};
use crate::{decode, digest, encode, Blame, Fault, Party, PartyIndex, Result, SessionId};

/// Dispute rounds are numbered after the round they settle.
const R_DISPUTE: u16 = 100;

/// The protocol state of one party, shared by key generation and signing.
pub(crate) struct Run<'a, T: Transport, R: CryptoRng> {
    pub party: &'a Party,
    pub session: SessionId,
    pub transport: &'a mut T,
    pub timeout: Duration,
    pub rng: &'a mut R,
    /// The other parties still in the protocol.
    pub active: BTreeSet<PartyIndex>,
    pub blamed: Vec<Blame>,
    /// The broadcast bodies received per round and sender (own ones included), and the signed
    /// wire bytes, for echoes and disputes.
    pub seen: BTreeMap<(u16, PartyIndex), (Vec<u8>, Vec<u8>)>,
}

/// One round's delivery from one party: its opened broadcast body and its point-to-point part.
pub(crate) struct Got {
    pub body: Option<Vec<u8>>,
    pub p2p: Option<Vec<u8>>,
}

/// A round that expects a broadcast from everyone still in.
pub(crate) const BROADCAST: Expect = Expect {
    broadcast: true,
    p2p: false,
    required: true,
};

impl<'a, T: Transport, R: CryptoRng> Run<'a, T, R> {
    /// A run with `others` as the other parties.
    pub fn new(
        party: &'a Party,
        session: SessionId,
        transport: &'a mut T,
        timeout: Duration,
        rng: &'a mut R,
        others: impl IntoIterator<Item = PartyIndex>,
    ) -> Self {
        Self {
            party,
            session,
            transport,
            timeout,
            rng,
            active: others.into_iter().filter(|&p| p != party.index).collect(),
            blamed: vec![],
            seen: BTreeMap::new(),
        }
    }

    /// A round in which everyone still in broadcasts `body` and nothing else.
    pub async fn broadcast_round(
        &mut self,
        round: u16,
        body: Vec<u8>,
    ) -> Result<BTreeMap<PartyIndex, Got>> {
        let from: Vec<PartyIndex> = self.active.iter().copied().collect();
        self.round(round, Some(body), vec![], &from, BROADCAST, None)
            .await
    }
    pub fn blame(&mut self, party: PartyIndex, fault: Fault) {
        self.active.remove(&party);
        if !self.blamed.iter().any(|b| b.party == party) {
            self.blamed.push(Blame { party, fault });
        }
    }

    /// Sends this round's broadcast (signed) and point-to-point parts to the active parties and
    /// collects theirs; names whoever stays silent or sends an unsigned broadcast.
    pub async fn round(
        &mut self,
        round: u16,
        body: Option<Vec<u8>>,
        p2p: Vec<(PartyIndex, Vec<u8>)>,
        from: &[PartyIndex],
        expect: Expect,
        equivocate: Option<Vec<u8>>,
    ) -> Result<BTreeMap<PartyIndex, Got>> {
        let me = self.party.index;
        let recipients: Vec<PartyIndex> = self.active.iter().copied().collect();
        let broadcast = match body {
            None => Broadcast::None,
            Some(body) => {
                let wire = self
                    .party
                    .sign_broadcast(&self.session, round, body.clone());
                self.seen.insert((round, me), (body, wire.clone()));
                match (equivocate, recipients.first()) {
                    (Some(other), Some(&victim)) => {
                        let alt = self.party.sign_broadcast(&self.session, round, other);
                        Broadcast::PerRecipient(
                            recipients
                                .iter()
                                .map(|&r| {
                                    (
                                        r,
                                        if r == victim {
                                            alt.clone()
                                        } else {
                                            wire.clone()
                                        },
                                    )
                                })
                                .collect(),
                        )
                    }
                    _ => Broadcast::All(wire),
                }
            }
        };
        self.transport
            .send(Outgoing {
                session: self.session,
                round,
                recipients: recipients.clone(),
                broadcast,
                p2p,
            })
            .await?;
        let from: Vec<PartyIndex> = from
            .iter()
            .copied()
            .filter(|p| self.active.contains(p))
            .collect();
        let mut got = self
            .transport
            .receive(self.session, round, &from, expect, self.timeout)
            .await?;
        let mut out = BTreeMap::new();
        for p in from {
            let Incoming { broadcast, p2p } = got.remove(&p).unwrap_or_default();
            let incomplete =
                (expect.broadcast && broadcast.is_none()) || (expect.p2p && p2p.is_none());
            if incomplete && expect.required {
                self.blame(p, Fault::Silent { round });
                continue;
            }
            let body = match broadcast {
                None => None,
                Some(wire) => match self.party.open_broadcast(&self.session, round, p, &wire) {
                    Some(body) => {
                        self.seen.insert((round, p), (body.clone(), wire));
                        Some(body)
                    }
                    None => {
                        self.blame(p, Fault::Malformed { round });
                        continue;
                    }
                },
            };
            out.insert(p, Got { body, p2p });
        }
        Ok(out)
    }

    /// Digests of round `round`'s broadcasts as this party saw them.
    pub fn echo(&self, round: u16) -> Vec<(PartyIndex, [u8; 32])> {
        self.seen
            .range((round, 0)..=(round, PartyIndex::MAX))
            .map(|((_, p), (body, _))| (*p, digest(body)))
            .collect()
    }

    /// Compares everyone's echo of round `round` with this party's view; where they differ, a
    /// dispute round shows the signed broadcasts: two different signed bodies name the sender,
    /// and an echo that matches none names the echoer.
    pub async fn settle_echoes(
        &mut self,
        round: u16,
        echoes: &BTreeMap<PartyIndex, Vec<(PartyIndex, [u8; 32])>>,
    ) -> Result<()> {
        let mine: BTreeMap<PartyIndex, [u8; 32]> = self.echo(round).into_iter().collect();
        let mut disputed = BTreeSet::new();
        for echo in echoes.values() {
            for (s, h) in echo {
                if mine.get(s).is_some_and(|m| m != h) {
                    disputed.insert(*s);
                }
            }
        }
        if disputed.is_empty() {
            return Ok(());
        }
        let shown: Vec<(PartyIndex, Vec<u8>)> = disputed
            .iter()
            .filter_map(|s| self.seen.get(&(round, *s)).map(|(_, w)| (*s, w.clone())))
            .collect();
        let got = self
            .broadcast_round(R_DISPUTE + round, encode(&shown))
            .await?;
        // Every validly signed body of each disputed sender, from everyone's copies.
        let mut bodies: BTreeMap<PartyIndex, BTreeSet<Vec<u8>>> = BTreeMap::new();
        let copies = got
            .values()
            .filter_map(|g| g.body.as_deref())
            .filter_map(|b| decode::<Vec<(PartyIndex, Vec<u8>)>>(b).ok())
            .chain([shown]);
        for list in copies {
            for (s, wire) in list {
                if disputed.contains(&s) {
                    if let Some(body) = self.party.open_broadcast(&self.session, round, s, &wire) {
                        bodies.entry(s).or_default().insert(body);
                    }
                }
            }
        }
        for s in disputed {
            match bodies.get(&s).map(|b| b.len()).unwrap_or(0) {
                0 | 1 => {
                    let truth = bodies.get(&s).and_then(|b| b.first()).map(|b| digest(b));
                    for (e, echo) in echoes {
                        let said = echo.iter().find(|(x, _)| *x == s).map(|(_, h)| *h);
                        if said.is_some() && said != truth {
                            self.blame(*e, Fault::FalseEcho { round });
                        }
                    }
                }
                _ => self.blame(s, Fault::Equivocation { round }),
            }
        }
        Ok(())
    }
}
