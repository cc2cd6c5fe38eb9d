//! Signed broadcasts echoed by attestations: one party's view of a protocol run ([`Run`]), shared
//! by key generation and signing: who is still in,
//! who has been named, and what each party is known to have signed.
//!
//! Agreement rests on evidence every party can check, never on one party's word:
//!
//! * every broadcast is signed by its sender over (session, round, sender, digest of the body);
//!   a digest with its signature is an *attestation* that the sender signed that body;
//! * each broadcast carries the attestations of everything its sender received in its previous
//!   broadcast round (the echo), and every pair of attestations that proves an equivocation;
//!   two attestations of one sender with different digests for one round name it
//!   ([`Fault::Equivocation`]) at every party that sees them, and an attestation whose signature
//!   fails names the party that sent it;
//! * a party that lacks a round's message asks its sender again and then everyone
//!   ([`crate::transport::Packet::Want`]) before naming the sender silent; whoever holds it
//!   forwards it.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use rand_core::CryptoRng;
use serde::{Deserialize, Serialize};

use crate::adversary;
use crate::transport::{
    Broadcast, Expect, Incoming, Outgoing, Packet, Transport, Waiting, REPORT_EVERY,
};
use crate::{
    decode, digest, encode, Blame, Error, Fault, Party, PartyIndex, Result, SessionId,
    SignedBroadcast, ROUND_CLOSED, ROUND_STOP,
};

/// What a party signs as a round's broadcast: the protocol's body and its attestations.
#[derive(Serialize, Deserialize)]
struct Envelope {
    #[serde(with = "serde_bytes")]
    body: Vec<u8>,
    attest: Vec<Attestation>,
}

/// The protocol's body inside a broadcast's signed body (an [`Envelope`]), if it decodes.
pub(crate) fn envelope_body(signed: &[u8]) -> Option<Vec<u8>> {
    decode::<Envelope>(signed).ok().map(|e| e.body)
}

/// That `sender` signed a body with this digest for `round` (the signature proves it).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Attestation {
    pub(crate) round: u16,
    pub(crate) sender: PartyIndex,
    pub(crate) digest: [u8; 32],
    #[serde(with = "serde_bytes")]
    pub(crate) sig: Vec<u8>,
}

/// The protocol state of one party, shared by key generation and signing.
pub(crate) struct Run<'a, T: Transport, R: CryptoRng + ?Sized> {
    pub party: &'a Party,
    pub session: SessionId,
    pub transport: &'a mut T,
    pub timeout: Duration,
    pub rng: &'a mut R,
    /// The other parties still in the protocol.
    pub active: BTreeSet<PartyIndex>,
    pub blamed: Vec<Blame>,
    /// Every digest each party is known to have signed, by (round, sender), with its signature
    /// (two digests of one round prove an equivocation: [`crate::agreement`] passes them on).
    pub(crate) known: BTreeMap<(u16, PartyIndex), BTreeMap<[u8; 32], Vec<u8>>>,
    /// The last round this party broadcast in: its attestations ride on the next broadcast.
    last: Option<u16>,
    /// How long to wait before asking for a missing message (doubling after each ask).
    want_after: Duration,
    /// What a cheater does besides the protocol (nothing without the feature `adversary`).
    pub(crate) hooks: adversary::Hooks,
    /// In the closing round: the outcome is settled, so neither a failed send nor a stop notice
    /// ends the run (a party that stopped now would disagree with those that finished).
    closing: bool,
}

/// One round's delivery from one party: its opened broadcast body and its point-to-point part.
pub(crate) struct Got {
    pub body: Option<Vec<u8>>,
    pub p2p: Option<Vec<u8>>,
}

/// What ends a round's wait early: a test of what has arrived so far.
pub(crate) type Enough<'e> = dyn FnMut(&BTreeMap<PartyIndex, Incoming>) -> bool + Send + 'e;

/// A round that expects a broadcast from everyone still in.
pub(crate) const BROADCAST: Expect = Expect {
    broadcast: true,
    p2p: false,
    required: true,
};

/// The wait before the first want: a tenth of the round's timeout, between 100 ms and 1 s, so
/// that a lost message costs a few relay round trips, not a timeout.
fn want_after(timeout: Duration) -> Duration {
    (timeout / 10).clamp(Duration::from_millis(100), Duration::from_secs(1))
}

/// Whether `i` holds what `expect` asks of a sender.
fn complete(i: Option<&Incoming>, expect: Expect) -> bool {
    i.is_some_and(|i| {
        (!expect.broadcast || !i.broadcasts.is_empty()) && (!expect.p2p || i.p2p.is_some())
    })
}

impl<'a, T: Transport, R: CryptoRng + ?Sized> Run<'a, T, R> {
    /// A run with `others` as the other parties.
    pub fn new(
        party: &'a Party,
        session: SessionId,
        transport: &'a mut T,
        timeout: Duration,
        rng: &'a mut R,
        others: impl IntoIterator<Item = PartyIndex>,
    ) -> Self {
        // Only this run's frames are filed from now on: another party cannot displace it.
        transport.mailbox().open(session);
        Self {
            party,
            session,
            transport,
            timeout,
            rng,
            active: others.into_iter().filter(|&p| p != party.index).collect(),
            blamed: vec![],
            known: BTreeMap::new(),
            last: None,
            want_after: want_after(timeout),
            hooks: adversary::Hooks::default(),
            closing: false,
        }
    }

    /// A round in which everyone still in broadcasts `body` and nothing else.
    pub async fn broadcast_round(
        &mut self,
        round: u16,
        body: Vec<u8>,
    ) -> Result<BTreeMap<PartyIndex, Got>> {
        let from: Vec<PartyIndex> = self.active.iter().copied().collect();
        self.round(round, Some(body), vec![], &from, BROADCAST)
            .await
    }

    /// The closing round: an empty broadcast whose attestations settle the round before it (an
    /// equivocation there is named by everyone who sees either version). Nobody is named for
    /// missing it, and it waits only a few wants long: it decides nothing else.
    pub async fn closing_round(&mut self, round: u16) -> Result<()> {
        let from: Vec<PartyIndex> = self.active.iter().copied().collect();
        let timeout = self.timeout;
        self.timeout = timeout.min(self.want_after * 6);
        self.closing = true;
        let r = self
            .round(
                round,
                Some(vec![]),
                vec![],
                &from,
                Expect {
                    broadcast: true,
                    p2p: false,
                    required: false,
                },
            )
            .await;
        self.timeout = timeout;
        self.closing = false;
        r.map(|_| ())
    }

    /// Names `party` for `fault` and takes it out of the run. A party is named once; proof of
    /// equivocation replaces any other fault (the lowest round's), so that every party that saw
    /// the proof names the same fault whatever it noticed first.
    pub fn blame(&mut self, party: PartyIndex, fault: Fault) {
        self.active.remove(&party);
        match self.blamed.iter_mut().find(|b| b.party == party) {
            None => self.blamed.push(Blame { party, fault }),
            Some(b) => {
                if let Fault::Equivocation { round } = fault {
                    match b.fault {
                        Fault::Equivocation { round: old } if old <= round => {}
                        _ => b.fault = fault,
                    }
                }
            }
        }
    }

    /// Whether `party` has been named.
    pub fn is_blamed(&self, party: PartyIndex) -> bool {
        self.blamed.iter().any(|b| b.party == party)
    }

    /// The parties named `Silent` in `round` whose signed broadcast of the later round `next` is
    /// here: they went on to `next` instead of falling silent. They are no longer named.
    pub fn went_on(&mut self, round: u16, next: u16) -> Vec<PartyIndex> {
        let silent: Vec<PartyIndex> = self
            .blamed
            .iter()
            .filter(|b| b.fault == Fault::Silent { round })
            .map(|b| b.party)
            .collect();
        let went: Vec<PartyIndex> = self
            .transport
            .mailbox()
            .snapshot(self.session, next, &silent)
            .into_iter()
            .filter(|(_, i)| !i.broadcasts.is_empty())
            .map(|(p, _)| p)
            .collect();
        self.blamed.retain(|b| !went.contains(&b.party));
        went
    }

    /// The error for a run that cannot go on: [`Error::Unreachable`] when only silence brought it
    /// there (the relay or the parties failed; no one is blamed), [`Error::Aborted`] otherwise.
    pub fn too_few(&mut self, reason: String) -> Error {
        let silent: Vec<(u16, PartyIndex)> = self
            .blamed
            .iter()
            .filter_map(|b| match b.fault {
                Fault::Silent { round } => Some((round, b.party)),
                _ => None,
            })
            .collect();
        if !silent.is_empty() && silent.len() == self.blamed.len() {
            let mut parties: Vec<PartyIndex> = silent.iter().map(|s| s.1).collect();
            parties.sort_unstable();
            return Error::Unreachable {
                round: silent.iter().map(|s| s.0).min().unwrap_or(0),
                parties,
            };
        }
        let mut blamed = std::mem::take(&mut self.blamed);
        blamed.sort_by_key(|b| b.party);
        Error::Aborted { reason, blamed }
    }

    /// The attestations this party's next broadcast carries: everything it received in its last
    /// broadcast round, and every proof of equivocation it knows.
    pub(crate) fn attestations(&self) -> Vec<Attestation> {
        self.known
            .iter()
            .filter(|((r, _), ds)| Some(*r) == self.last || ds.len() > 1)
            .flat_map(|((round, sender), ds)| {
                ds.iter().map(|(d, sig)| Attestation {
                    round: *round,
                    sender: *sender,
                    digest: *d,
                    sig: sig.clone(),
                })
            })
            .collect()
    }

    /// The last round this party broadcast in (for the hooks).
    #[cfg(feature = "adversary")]
    pub(crate) fn last(&self) -> Option<u16> {
        self.last
    }

    /// A broadcast of `body` for `round` with these attestations, signed.
    pub(crate) fn sign_envelope(
        &self,
        round: u16,
        body: Vec<u8>,
        attest: Vec<Attestation>,
    ) -> Vec<u8> {
        self.party
            .sign_broadcast(&self.session, round, encode(&Envelope { body, attest }))
    }

    /// Records that `sender` signed the body with this digest in `round`; names it if that is a
    /// second body.
    fn learn(&mut self, round: u16, sender: PartyIndex, d: [u8; 32], sig: Vec<u8>) {
        let ds = self.known.entry((round, sender)).or_default();
        ds.entry(d).or_insert(sig);
        if ds.len() > 1 && sender != self.party.index {
            self.blame(sender, Fault::Equivocation { round });
        }
    }

    /// Sends this round's broadcast (signed, with the attestations) and point-to-point parts to
    /// the active parties and collects theirs, asking for what is missing; names whoever stays
    /// silent, sends a body that does not decode, or is proven to equivocate.
    pub async fn round(
        &mut self,
        round: u16,
        body: Option<Vec<u8>>,
        p2p: Vec<(PartyIndex, Vec<u8>)>,
        from: &[PartyIndex],
        expect: Expect,
    ) -> Result<BTreeMap<PartyIndex, Got>> {
        self.round_until(round, body, p2p, from, expect, None).await
    }

    /// [`Run::round`] whose wait also ends as soon as `enough` says what has arrived suffices
    /// (a signing that needs any t+1 partials, not all of them).
    pub async fn round_until(
        &mut self,
        round: u16,
        body: Option<Vec<u8>>,
        p2p: Vec<(PartyIndex, Vec<u8>)>,
        from: &[PartyIndex],
        expect: Expect,
        enough: Option<&mut Enough<'_>>,
    ) -> Result<BTreeMap<PartyIndex, Got>> {
        let me = self.party.index;
        let recipients: Vec<PartyIndex> = self.active.iter().copied().collect();
        let broadcast = match body {
            None => Broadcast::None,
            Some(body) => {
                let wire = self.sign_envelope(round, body.clone(), self.attestations());
                let shaped = adversary::shape(self, round, &body, &recipients, wire.clone());
                if let Ok(sb) = decode::<SignedBroadcast>(&wire) {
                    self.learn(round, me, digest(&sb.body), sb.sig);
                }
                self.last = Some(round);
                shaped
            }
        };
        let out = Outgoing {
            session: self.session,
            round,
            recipients,
            broadcast,
            p2p,
        };
        self.transport.mailbox().record_sent(&out);
        match self.transport.send(out).await {
            Err(_) if self.closing => {}
            Err(e) => {
                if let Some(reason) = e.stop_reason() {
                    self.stop(&reason).await;
                }
                return Err(e);
            }
            Ok(()) => {}
        }
        let from: Vec<PartyIndex> = from
            .iter()
            .copied()
            .filter(|p| self.active.contains(p))
            .collect();
        let mut got = self.gather(round, &from, expect, enough).await?;
        let mut out = BTreeMap::new();
        let mut silent = vec![];
        let mut attestations = vec![];
        for p in from {
            let Incoming { broadcasts, p2p } = got.remove(&p).unwrap_or_default();
            // The mailbox filed only validly signed versions.
            let versions: Vec<SignedBroadcast> = broadcasts
                .iter()
                .filter_map(|w| decode::<SignedBroadcast>(w).ok())
                .collect();
            for v in &versions {
                self.learn(round, p, digest(&v.body), v.sig.clone());
            }
            if self.is_blamed(p) {
                continue;
            }
            let incomplete = if expect.broadcast {
                versions.is_empty()
            } else {
                expect.p2p && p2p.is_none()
            };
            if incomplete && expect.required {
                silent.push(p);
                continue;
            }
            let body = match versions.into_iter().next() {
                None => None,
                Some(v) => match decode::<Envelope>(&v.body) {
                    Ok(e) => {
                        // A bounded number per sender: each costs a signature check.
                        let cap = 4 * self.party.roster.len() + 8;
                        attestations.extend(e.attest.into_iter().take(cap).map(|a| (p, a)));
                        Some(e.body)
                    }
                    Err(_) => {
                        self.blame(p, Fault::Malformed { round });
                        continue;
                    }
                },
            };
            out.insert(p, Got { body, p2p });
        }
        for p in silent {
            self.blame(p, Fault::Silent { round });
        }
        self.settle(round, attestations);
        out.retain(|p, _| !self.is_blamed(*p));
        Ok(out)
    }

    /// Waits for `round`'s parts from `from` until all are here or the timeout passes. When
    /// nothing has arrived for a while, a sender whose part is missing is asked to send it again,
    /// and after that everyone (whoever holds a signed broadcast forwards it), the waits doubling.
    /// Any arrival restarts the wait, and asking needs evidence that the missing parts were lost
    /// rather than not yet sent: another party already sent something of a later round (it got
    /// this round's parts), or a silence three times as long. Without that, many parties sharing
    /// a machine, each still computing its part, would be asked for it again and again.
    async fn gather(
        &mut self,
        round: u16,
        from: &[PartyIndex],
        expect: Expect,
        mut enough: Option<&mut Enough<'_>>,
    ) -> Result<BTreeMap<PartyIndex, Incoming>> {
        let mailbox = self.transport.mailbox().clone();
        let start = tokio::time::Instant::now();
        let deadline = start + self.timeout;
        let mut wait = self.want_after;
        let mut quiet_since = start;
        let mut asked = false;
        let mut seen = 0;
        let mut report_at = start + REPORT_EVERY;
        loop {
            let notify = mailbox.notify();
            let notified = notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if !self.closing && !mailbox.stop_notices(self.session).is_empty() {
                return Err(self.stopped_by().await);
            }
            if let Some(e) = self.closed_without_me(&mailbox, from) {
                return Err(e);
            }
            let snap = mailbox.snapshot(self.session, round, from);
            let missing: Vec<PartyIndex> = from
                .iter()
                .copied()
                .filter(|f| !complete(snap.get(f), expect))
                .collect();
            let now = tokio::time::Instant::now();
            let suffices = enough.as_mut().is_some_and(|e| e(&snap));
            if missing.is_empty() || now >= deadline || suffices {
                return Ok(snap);
            }
            if now >= report_at {
                let waiting = Waiting {
                    session: self.session,
                    round,
                    heard: from
                        .iter()
                        .copied()
                        .filter(|p| !missing.contains(p))
                        .collect(),
                    waiting_for: missing.clone(),
                    elapsed: now - start,
                    timeout: self.timeout,
                    notes: vec![],
                };
                self.transport.waiting(&waiting);
                report_at = now + REPORT_EVERY;
            }
            let arrived: usize = snap
                .values()
                .map(|i| i.broadcasts.len() + usize::from(i.p2p.is_some()))
                .sum();
            if arrived != seen {
                seen = arrived;
                quiet_since = now;
            }
            let ahead = mailbox.ahead(self.session, round);
            let due = quiet_since + if ahead { wait } else { wait * 3 };
            if now >= due {
                let to: Vec<PartyIndex> = if asked && ahead {
                    self.active.iter().copied().collect()
                } else {
                    missing.clone()
                };
                // Best effort: a want that cannot be sent changes nothing.
                let want = Packet::Want {
                    senders: missing.clone(),
                };
                self.transport
                    .send_each(self.session, round, &to, want)
                    .await;
                asked = true;
                wait = (wait * 2).min(self.want_after * 8);
                quiet_since = tokio::time::Instant::now();
                continue;
            }
            let wake = deadline.min(due).min(report_at);
            let _ = tokio::time::timeout_at(wake, notified).await;
        }
    }

    /// Tells every other party that this party stops the run because its transport failed: a
    /// signed stop notice, sent to each on its own, best effort (the contact that failed will not
    /// get it; the others pass it on). Without it the others would go on and name this party
    /// silent, while it stopped for a fault that is not its own.
    pub(crate) async fn stop(&mut self, reason: &str) {
        let notice =
            self.party
                .sign_broadcast(&self.session, ROUND_STOP, reason.as_bytes().to_vec());
        let everyone: Vec<PartyIndex> = self.party.roster.keys().copied().collect();
        self.send_each(
            &everyone,
            Packet::Round {
                broadcast: Some(notice),
                p2p: None,
            },
        )
        .await;
    }

    /// The error for the stop notices that reached this party: each is passed on to everyone
    /// else (the relay may have dropped the stopper's own sends), then this party waits a few
    /// wants long for notices of other stoppers, passing those on too, so that every honest
    /// party names the same stoppers ([`Error::Stopped`]).
    async fn stopped_by(&mut self) -> Error {
        let mailbox = self.transport.mailbox().clone();
        let mut passed: BTreeSet<PartyIndex> = BTreeSet::new();
        let settle = self.want_after * 2;
        let deadline = tokio::time::Instant::now() + self.timeout;
        let mut last_new = tokio::time::Instant::now();
        let mut notices;
        loop {
            let notified = mailbox.notify().notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            notices = mailbox.stop_notices(self.session);
            for (party, wire) in notices.clone() {
                if !passed.insert(party) {
                    continue;
                }
                last_new = tokio::time::Instant::now();
                let others: Vec<PartyIndex> = self
                    .party
                    .roster
                    .keys()
                    .copied()
                    .filter(|&p| p != party)
                    .collect();
                let forward = Packet::Forward {
                    sender: party,
                    broadcasts: vec![wire],
                };
                self.send_each(&others, forward).await;
            }
            let until = deadline.min(last_new + settle);
            if tokio::time::Instant::now() >= until {
                break;
            }
            let _ = tokio::time::timeout_at(until, notified).await;
        }
        let stopped: Vec<(PartyIndex, String)> = notices
            .into_iter()
            .map(|(party, wire)| (party, stop_reason(&wire)))
            .collect();
        Error::Stopped { stopped }
    }

    /// Sends `packet` to each of `to` but this party, ignoring failures.
    async fn send_each(&mut self, to: &[PartyIndex], packet: Packet) {
        self.send_each_in(ROUND_STOP, to, packet).await;
    }

    /// [`Run::send_each`] with the frame filed under `round` (all at once: a stalled path
    /// costs one wait, not one per party).
    async fn send_each_in(&mut self, round: u16, to: &[PartyIndex], packet: Packet) {
        self.transport
            .send_each(self.session, round, to, packet)
            .await;
    }

    /// Tells each party this one named silent that the run is over without it: a signed closed
    /// notice, best effort. A party started late then stops at once ([`Error::Closed`]) instead
    /// of waiting for rounds nobody will send.
    pub(crate) async fn announce_closed(&mut self) {
        let silent: Vec<PartyIndex> = self
            .blamed
            .iter()
            .filter(|b| matches!(b.fault, Fault::Silent { .. }))
            .map(|b| b.party)
            .collect();
        if silent.is_empty() {
            return;
        }
        let notice = self
            .party
            .sign_broadcast(&self.session, ROUND_CLOSED, b"closed".to_vec());
        let packet = Packet::Round {
            broadcast: Some(notice),
            p2p: None,
        };
        self.send_each_in(ROUND_CLOSED, &silent, packet).await;
    }

    /// [`Error::Closed`] if every party this one still waits for in `from` closed the run
    /// without it.
    fn closed_without_me(
        &self,
        mailbox: &crate::transport::Mailbox,
        from: &[PartyIndex],
    ) -> Option<Error> {
        let closed = mailbox.closed_by(self.session);
        let waiting: Vec<PartyIndex> = from
            .iter()
            .copied()
            .filter(|p| self.active.contains(p))
            .collect();
        let all = !waiting.is_empty() && waiting.iter().all(|p| closed.contains(p));
        all.then_some(Error::Closed { by: closed })
    }

    /// Checks the attestations that came with `round`'s broadcasts, each against its signer's
    /// key when it tells something new: a second digest of one round names that round's sender,
    /// a signature that fails names the party whose broadcast carried it. The new ones (the
    /// first of each digest) are checked in one batch; only if that fails, one by one.
    fn settle(&mut self, round: u16, attestations: Vec<(PartyIndex, Attestation)>) {
        let mut first = BTreeSet::new();
        let new: Vec<&Attestation> = attestations
            .iter()
            .map(|(_, a)| a)
            .filter(|a| !self.knows(a) && first.insert((a.round, a.sender, a.digest)))
            .collect();
        let all_good = self.party.all_attest(&self.session, &new);
        let mut liars = BTreeSet::new();
        for (carrier, a) in attestations {
            if liars.contains(&carrier) || self.knows(&a) {
                continue;
            }
            if all_good
                || self
                    .party
                    .attests(&self.session, a.round, a.sender, &a.digest, &a.sig)
            {
                self.learn(a.round, a.sender, a.digest, a.sig);
            } else {
                liars.insert(carrier);
                self.blame(carrier, Fault::Malformed { round });
            }
        }
    }

    /// Whether this attestation's digest is already known to be signed by its sender.
    fn knows(&self, a: &Attestation) -> bool {
        self.known
            .get(&(a.round, a.sender))
            .is_some_and(|ds| ds.contains_key(&a.digest))
    }
}

/// The reason a signed stop notice gives: its body as text, control characters removed, at most
/// 300 characters.
pub(crate) fn stop_reason(wire: &[u8]) -> String {
    decode::<SignedBroadcast>(wire)
        .map(|sb| {
            String::from_utf8_lossy(&sb.body)
                .chars()
                .filter(|&c| alibi_messenger::printable(c))
                .take(300)
                .collect()
        })
        .unwrap_or_default()
}

/// How the body of a stop notice that accuses ([`crate::Error::Accused`]) begins, before the
/// encoded blames and reason: a stop notice's text never starts with a NUL.
const ACCUSATION: &[u8] = b"\0alibi accusation v1\0";

/// The body of a stop notice that names `blamed` for `reason`.
pub(crate) fn accusation_body(blamed: &[crate::Blame], reason: &str) -> Vec<u8> {
    let mut body = ACCUSATION.to_vec();
    body.extend(encode(&(blamed.to_vec(), reason.to_owned())));
    body
}

/// The accusation a signed stop notice of `by` carries, if it is one: only parties in
/// `participants` other than its accuser are kept, each once, and the reason is kept as
/// [`stop_reason`] keeps text.
pub(crate) fn accusation(
    by: crate::PartyIndex,
    wire: &[u8],
    participants: &[crate::PartyIndex],
) -> Option<crate::Accusation> {
    let sb = decode::<SignedBroadcast>(wire).ok()?;
    let rest = sb.body.strip_prefix(ACCUSATION)?;
    let (mut blamed, reason) = decode::<(Vec<crate::Blame>, String)>(rest).ok()?;
    blamed.retain(|b| b.party != by && participants.contains(&b.party));
    blamed.sort_by_key(|b| b.party);
    blamed.dedup_by_key(|b| b.party);
    let reason = reason
        .chars()
        .filter(|&c| alibi_messenger::printable(c))
        .take(300)
        .collect();
    Some(crate::Accusation { by, blamed, reason })
}

/// Decodes `data` as a broadcast envelope (for the fuzz target).
pub(crate) fn fuzz_decoders(data: &[u8]) {
    let _ = decode::<Envelope>(data);
    let _ = accusation(1, data, &[1, 2, 3]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::MemoryTransport;

    /// Issue 65, item 9: a stop reason keeps printable text only; a bidirectional override, a
    /// zero-width space and a tag character would otherwise reach the user's terminal.
    #[test]
    fn a_stop_reason_keeps_printable_text_only() {
        let party = &crate::test_parties(2)[0];
        let body = "relay down\u{202E}txt.exe\u{200B}\u{2066}ok\u{E0041}\u{0007}".as_bytes();
        let wire = party.sign_broadcast(&[1; 16], crate::ROUND_STOP, body.to_vec());
        assert_eq!(stop_reason(&wire), "relay downtxt.exeok");
    }
    use getrandom::SysRng;
    use rand_core::UnwrapErr;

    /// `party`'s attestation of a round-1 body.
    fn attestation(party: &Party, session: &SessionId, body: &[u8]) -> Attestation {
        let wire = party.sign_broadcast(session, 1, body.to_vec());
        Attestation {
            round: 1,
            sender: party.index,
            digest: digest(body),
            sig: decode::<SignedBroadcast>(&wire).unwrap().sig,
        }
    }

    /// Settles `carried` (carrier, attestation) at party 1; who is named, and which digests of
    /// (round 1, sender) are known after.
    fn settle_at_1(
        ps: &[Party],
        session: SessionId,
        carried: Vec<(PartyIndex, Attestation)>,
    ) -> (Vec<Blame>, BTreeMap<PartyIndex, usize>) {
        let mut transports = MemoryTransport::network(&ps[0].roster);
        let mut rng = UnwrapErr(SysRng);
        let mut run = Run::new(
            &ps[0],
            session,
            &mut transports[0],
            Duration::from_secs(1),
            &mut rng,
            [2, 3, 4],
        );
        run.settle(2, carried);
        let known = run
            .known
            .iter()
            .map(|((_, s), ds)| (*s, ds.len()))
            .collect();
        (run.blamed, known)
    }

    /// Valid attestations, one carried twice, are all learned, and nobody is named (they pass
    /// as one batch).
    #[test]
    fn valid_attestations_are_learned() {
        let ps = crate::test_parties(4);
        let s = [7; 16];
        let (a3, a4) = (
            attestation(&ps[2], &s, b"three"),
            attestation(&ps[3], &s, b"four"),
        );
        let carried = vec![(2, a3.clone()), (2, a4.clone()), (4, a3)];
        let (blamed, known) = settle_at_1(&ps, s, carried);
        assert!(blamed.is_empty());
        assert_eq!(known, BTreeMap::from([(3, 1), (4, 1)]));
    }

    /// A forged attestation fails the batch; checked one by one, it names its carrier (not the
    /// party it claims to come from), the valid ones are still learned, and another attestation
    /// the same carrier brings is not read.
    #[test]
    fn a_forged_attestation_names_its_carrier_only() {
        let ps = crate::test_parties(4);
        let s = [7; 16];
        let mut forged = attestation(&ps[2], &s, b"three");
        forged.digest = digest(b"not what party 3 signed");
        let carried = vec![
            (4, attestation(&ps[1], &s, b"two")),
            (2, forged),
            (2, attestation(&ps[3], &s, b"four")),
            (3, attestation(&ps[3], &s, b"four")),
        ];
        let (blamed, known) = settle_at_1(&ps, s, carried);
        assert_eq!(
            blamed,
            vec![Blame {
                party: 2,
                fault: Fault::Malformed { round: 2 }
            }]
        );
        assert_eq!(known, BTreeMap::from([(2, 1), (4, 1)]));
    }

    /// Two valid attestations of one sender's round with different digests name that sender
    /// for equivocating, though both pass the batch.
    #[test]
    fn two_signed_digests_name_the_sender() {
        let ps = crate::test_parties(4);
        let s = [7; 16];
        let carried = vec![
            (2, attestation(&ps[2], &s, b"one version")),
            (4, attestation(&ps[2], &s, b"another")),
        ];
        let (blamed, known) = settle_at_1(&ps, s, carried);
        assert_eq!(
            blamed,
            vec![Blame {
                party: 3,
                fault: Fault::Equivocation { round: 1 }
            }]
        );
        assert_eq!(known, BTreeMap::from([(3, 2)]));
    }
}
