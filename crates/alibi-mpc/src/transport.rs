//! How a round's parts travel between parties: a protocol runs round after round; in each, every party sends a
//! broadcast part and point-to-point parts, then waits for the round's messages from the others.
//! Transports carry the bytes and say who sent them (the channel authenticates the sender); the
//! protocols sign what a third party may later have to judge.
//!
//! Broadcasts are signed by their sender, so any party can forward them: a party that lacks a
//! round's message asks for it (a [`Packet::Want`]), first from its sender, then from everyone,
//! and whoever holds it answers, the sender by sending it again, the others by forwarding every
//! signed version they hold. A message the relay dropped, or one a sender gave only to some
//! parties, thus reaches everyone before anyone calls its sender silent; two versions that reach
//! one party prove that their sender equivocated.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use alibi_identity::{xeddsa, IdentityKey};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use crate::{
    all_signed, broadcast_transcript, decode, digest, PartyIndex, Result, SessionId,
    SignedBroadcast, ROUND_CLOSED, ROUND_NOTE, ROUND_STOP,
};

/// A round's broadcast part.
#[derive(Clone, Debug)]
pub enum Broadcast {
    /// No broadcast this round.
    None,
    /// The same bytes to every other party.
    All(Vec<u8>),
    /// Different bytes per recipient: what an equivocating party does (tests use it to check that
    /// it is named; honest parties never send this).
    PerRecipient(Vec<(PartyIndex, Vec<u8>)>),
}

/// What one party sends in one round.
#[derive(Clone, Debug)]
pub struct Outgoing {
    /// The session the round belongs to.
    pub session: SessionId,
    /// The round number.
    pub round: u16,
    /// Who the broadcast part goes to (the parties still in the protocol, without the sender).
    pub recipients: Vec<PartyIndex>,
    /// The broadcast part.
    pub broadcast: Broadcast,
    /// Point-to-point parts, each for one recipient.
    pub p2p: Vec<(PartyIndex, Vec<u8>)>,
}

impl Outgoing {
    /// The broadcast part and the point-to-point part for one recipient.
    pub fn part_for(&self, to: PartyIndex) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
        let broadcast = match &self.broadcast {
            Broadcast::None => None,
            Broadcast::All(b) => Some(b.clone()),
            Broadcast::PerRecipient(v) => v.iter().find(|(r, _)| *r == to).map(|(_, b)| b.clone()),
        };
        let p2p = self
            .p2p
            .iter()
            .find(|(r, _)| *r == to)
            .map(|(_, b)| b.clone());
        (broadcast, p2p)
    }
}

/// A message between two parties about one round of one session, inside a transport's frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Packet {
    /// The sender's own parts of the round (sent again when someone asks).
    Round {
        /// Its signed broadcast, if any.
        #[serde(with = "serde_bytes")]
        broadcast: Option<Vec<u8>>,
        /// Its point-to-point part for the recipient, if any.
        #[serde(with = "serde_bytes")]
        p2p: Option<Vec<u8>>,
    },
    /// The sender lacks these parties' parts of the round.
    Want {
        /// Whose parts.
        senders: Vec<PartyIndex>,
    },
    /// Signed broadcasts of another party, forwarded: every version the forwarder holds.
    Forward {
        /// Whose broadcasts.
        sender: PartyIndex,
        /// The signed wire bytes, each as its signer sent it.
        #[serde(with = "crate::byte_strings")]
        broadcasts: Vec<Vec<u8>>,
    },
}

/// What one party holds of another's round: every distinct, validly signed version of its
/// broadcast (one unless it equivocated), from it or forwarded, and its point-to-point part.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Incoming {
    /// The signed broadcasts, in the order they arrived.
    pub broadcasts: Vec<Vec<u8>>,
    /// Its point-to-point part for this party, if any.
    pub p2p: Option<Vec<u8>>,
}

/// Which parts a round expects from each sender.
#[derive(Clone, Copy, Debug)]
pub struct Expect {
    /// A broadcast part.
    pub broadcast: bool,
    /// A point-to-point part.
    pub p2p: bool,
    /// Whether a sender that misses the deadline is at fault: for its broadcast when the round
    /// expects one, else for its point-to-point part. A missing point-to-point part beside a
    /// broadcast is the protocol's to handle, as key generation does for a missing share (the
    /// victim complains).
    pub required: bool,
}

/// A run's wait for a round, reported every [`REPORT_EVERY`] while it lasts
/// ([`Transport::waiting`]), so that a person can tell whom the run waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// The run.
    pub session: SessionId,
    /// The round waited for.
    pub round: u16,
    /// The parties whose part of the round has not arrived.
    pub waiting_for: Vec<PartyIndex>,
    /// The parties whose part has arrived.
    pub heard: Vec<PartyIndex>,
    /// How long this round has been waited for.
    pub elapsed: std::time::Duration,
    /// How long it will be waited for at most.
    pub timeout: std::time::Duration,
    /// What parties waited for said of themselves ([`crate::net::Net::announce`]), each with
    /// its note (printable text only, at most 300 characters).
    pub notes: Vec<(PartyIndex, String)>,
}

/// How often a wait is reported.
pub const REPORT_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// A way for the parties to talk. The receiving side files what arrives in [`Transport::mailbox`]
/// and answers other parties' [`Packet::Want`]s from it ([`Mailbox::answer`]).
#[async_trait]
pub trait Transport: Send {
    /// This party's index.
    fn me(&self) -> PartyIndex;
    /// Where this party's arrivals are filed and what it holds is kept.
    fn mailbox(&self) -> &Mailbox;
    /// Sends one round's messages.
    async fn send(&mut self, out: Outgoing) -> Result<()>;
    /// Sends one packet about (`session`, `round`) to one party.
    async fn send_packet(
        &mut self,
        session: SessionId,
        round: u16,
        to: PartyIndex,
        packet: Packet,
    ) -> Result<()>;
    /// Sends `packet` about (`session`, `round`) to each of `to` but this party, best effort
    /// (a notice, a want, a forward): failures change nothing. A transport whose sends wait on
    /// a network sends them all at once, so that a stalled path costs one wait, not one per
    /// party; by default they go one after another.
    async fn send_each(
        &mut self,
        session: SessionId,
        round: u16,
        to: &[PartyIndex],
        packet: Packet,
    ) {
        let me = self.me();
        for &q in to.iter().filter(|&&q| q != me) {
            let _ = self.send_packet(session, round, q, packet.clone()).await;
        }
    }
    /// Hears, every [`REPORT_EVERY`] of a round's wait, whom the run waits for (to tell the
    /// user); by default nobody is told.
    fn waiting(&mut self, _: &Waiting) {}
}

/// How often one party answers another's wants for one round, at most: enough for a lost answer
/// to be asked for again, few enough that wants cannot be used to multiply traffic.
const ANSWERS_PER_ROUND: u8 = 4;

/// How many sessions a mailbox keeps: the current run and the one before it (whose last messages
/// others may still ask for). Only sessions this party opened count, so no other party can push
/// the current run out.
const SESSIONS_KEPT: usize = 2;

/// Distinct rounds one party may fill slots for in one session, beyond what the roster needs: key
/// generation uses ten, an agreement step one more per cheater bound; more is a flood.
const ROUNDS_PER_SENDER: usize = 32;

/// Frames of sessions this party has not opened yet, kept per sender until it does (a party
/// started late still finds what the others sent first): at most this many bytes per sender.
const EARLY_BYTES_PER_SENDER: usize = 256 * 1024;

/// One party's broadcast and point-to-point part for one recipient.
type Parts = (Option<Vec<u8>>, Option<Vec<u8>>);

/// A frame filed later: its session, round and packet.
type Early = (SessionId, u16, Packet);

#[derive(Default)]
struct Held {
    /// By (session, round, sender): what this party holds.
    slots: HashMap<(SessionId, u16, PartyIndex), Incoming>,
    /// This party's own broadcasts by (session, round, recipient) (they differ per recipient only
    /// for a test's equivocator) and its own point-to-point parts.
    own: HashMap<(SessionId, u16, PartyIndex), Parts>,
    /// Answers given, by (session, round, requester).
    answered: HashMap<(SessionId, u16, PartyIndex), u8>,
    /// The sessions this party opened (its runs), oldest first: the only ones filed.
    open: VecDeque<SessionId>,
    /// By sender: its frames of sessions not opened (yet), oldest first, and their bytes.
    early: HashMap<PartyIndex, (VecDeque<Early>, usize)>,
    /// By (session, party): the rounds that party's frames filled slots for.
    rounds: HashMap<(SessionId, PartyIndex), BTreeSet<u16>>,
    /// By sender: frames not filed (of sessions never opened, or past a cap).
    strays: BTreeMap<PartyIndex, u64>,
    /// By session: the latest protocol round anything of another party's was filed for.
    latest: HashMap<SessionId, u16>,
}

/// A broadcast to check before it is filed: (session, round, sender, wire).
type Candidate = (SessionId, u16, PartyIndex, Vec<u8>);

impl Held {
    /// Moves `session`'s latest round up to `round` if something of `sender`'s is filed for it
    /// (the stop notice's and the closing rounds are not protocol rounds).
    fn mark_latest(&mut self, session: SessionId, round: u16, sender: PartyIndex) {
        let filed = self
            .slots
            .get(&(session, round, sender))
            .is_some_and(|s| !s.broadcasts.is_empty() || s.p2p.is_some());
        if filed && round != ROUND_STOP && round != ROUND_CLOSED && round != ROUND_NOTE {
            let latest = self.latest.entry(session).or_default();
            *latest = (*latest).max(round);
        }
    }

    /// Opens `session`; the oldest opened session past [`SESSIONS_KEPT`] is forgotten.
    fn open(&mut self, session: SessionId) {
        if self.open.contains(&session) {
            return;
        }
        self.open.push_back(session);
        while self.open.len() > SESSIONS_KEPT {
            if let Some(old) = self.open.pop_front() {
                self.slots.retain(|k, _| k.0 != old);
                self.own.retain(|k, _| k.0 != old);
                self.answered.retain(|k, _| k.0 != old);
                self.rounds.retain(|k, _| k.0 != old);
                self.latest.remove(&old);
            }
        }
    }

    /// Keeps a frame of a session not opened, within its sender's share; the oldest go first.
    fn keep_early(&mut self, from: PartyIndex, frame: Early) {
        let size = packet_size(&frame.2);
        let (queue, bytes) = self.early.entry(from).or_default();
        queue.push_back(frame);
        *bytes += size;
        let mut dropped = 0;
        while *bytes > EARLY_BYTES_PER_SENDER {
            let Some(old) = queue.pop_front() else { break };
            *bytes -= packet_size(&old.2);
            dropped += 1;
        }
        *self.strays.entry(from).or_default() += dropped;
    }

    /// Takes the frames kept for `session`.
    fn take_early(&mut self, session: SessionId) -> Vec<(PartyIndex, Early)> {
        let mut out = vec![];
        for (&from, (queue, bytes)) in self.early.iter_mut() {
            let (now, later): (VecDeque<Early>, VecDeque<Early>) =
                queue.drain(..).partition(|f| f.0 == session);
            *bytes = later.iter().map(|f| packet_size(&f.2)).sum();
            *queue = later;
            out.extend(now.into_iter().map(|f| (from, f)));
        }
        out
    }

    /// Whether `from` may fill a slot of `round` in `session`: it has filled fewer than the cap
    /// of distinct rounds, or this round already.
    fn admits(&mut self, session: SessionId, from: PartyIndex, round: u16, cap: usize) -> bool {
        let rounds = self.rounds.entry((session, from)).or_default();
        if rounds.contains(&round) || rounds.len() < cap {
            rounds.insert(round);
            return true;
        }
        *self.strays.entry(from).or_default() += 1;
        false
    }
}

/// The bytes a packet carries (what keeping it costs).
fn packet_size(p: &Packet) -> usize {
    let parts = match p {
        Packet::Round { broadcast, p2p } => {
            broadcast.as_ref().map_or(0, Vec::len) + p2p.as_ref().map_or(0, Vec::len)
        }
        Packet::Want { senders } => 2 * senders.len(),
        Packet::Forward { broadcasts, .. } => broadcasts.iter().map(Vec::len).sum(),
    };
    parts + 16
}

/// A party's mailbox: what has arrived for it, by (session, round, sender), and what it holds to
/// answer others' wants. Only broadcasts whose signature verifies under their sender's identity
/// key are filed, so a forwarder cannot forge one; the first point-to-point part of a sender in a
/// round counts.
#[derive(Clone)]
pub struct Mailbox {
    inner: Arc<(Mutex<Held>, Notify)>,
    me: PartyIndex,
    roster: Arc<BTreeMap<PartyIndex, IdentityKey>>,
    answers: Arc<AtomicBool>,
}

impl Mailbox {
    /// The mailbox of party `me`, whose parties have these identity keys.
    pub fn new(me: PartyIndex, roster: BTreeMap<PartyIndex, IdentityKey>) -> Self {
        Self {
            inner: Arc::default(),
            me,
            roster: Arc::new(roster),
            answers: Arc::new(AtomicBool::new(true)),
        }
    }

    /// Test hook: whether this party answers wants (a cheater may not).
    #[cfg(feature = "adversary")]
    pub fn set_answers(&self, answers: bool) {
        self.answers.store(answers, Ordering::Relaxed);
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.inner.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Which of `candidates` (session, round, sender, wire) are broadcasts with valid
    /// signatures: all checked in one batch, and one by one only when the batch fails. Both
    /// checks are XEdDSA's cofactored equation, so a signature gets the same verdict whichever
    /// way, and at every party ([`crate::Party::attests`] uses it too).
    fn valid(&self, candidates: Vec<Candidate>) -> Vec<Candidate> {
        let parsed: Vec<(Candidate, Vec<u8>, SignedBroadcast)> = candidates
            .into_iter()
            .filter_map(|c| {
                let sb = decode::<SignedBroadcast>(&c.3).ok()?;
                let m = broadcast_transcript(&c.0, c.1, c.2, &digest(&sb.body));
                self.roster.contains_key(&c.2).then_some((c, m, sb))
            })
            .collect();
        let items: Vec<(PartyIndex, &[u8], &[u8])> = parsed
            .iter()
            .map(|(c, m, sb)| (c.2, &m[..], &sb.sig[..]))
            .collect();
        if all_signed(&self.roster, &items) {
            return parsed.into_iter().map(|(c, _, _)| c).collect();
        }
        let verdicts: Vec<bool> = items
            .iter()
            .map(|(p, m, s)| xeddsa::verify_cofactored(&self.roster[p].0, &[m], s).is_ok())
            .collect();
        parsed
            .into_iter()
            .zip(verdicts)
            .filter_map(|((c, _, _), ok)| ok.then_some(c))
            .collect()
    }

    /// Opens `session`, this party's run: from now on its frames are filed, those that came
    /// before are filed now, and frames of any session not opened are only kept (within each
    /// sender's share) in case this party opens it later.
    pub fn open(&self, session: SessionId) {
        let early = {
            let mut h = self.held();
            if h.open.contains(&session) {
                return;
            }
            h.open(session);
            h.take_early(session)
        };
        let frames = early
            .into_iter()
            .map(|(from, (session, round, packet))| (session, round, from, packet))
            .collect();
        self.file_all(frames);
    }

    /// Frames from each party that this party did not file: of sessions it never opened (a
    /// run it is not in, an old run's late frames, or made-up ones) or past a cap. The channel
    /// authenticated their sender to this party only: they are no evidence to anyone else.
    pub fn strays(&self) -> BTreeMap<PartyIndex, u64> {
        let h = self.held();
        let mut out = h.strays.clone();
        for (&from, (queue, _)) in &h.early {
            let unopened = queue.iter().filter(|f| !h.open.contains(&f.0)).count() as u64;
            if unopened > 0 {
                *out.entry(from).or_default() += unopened;
            }
        }
        out
    }

    /// Files a packet that arrived from `from` (the channel authenticated it), if it belongs to
    /// a session this party opened (otherwise it is kept aside, see [`Mailbox::open`]). Wants
    /// are not filed: the transport answers them with [`Mailbox::answer`]. A broadcast is
    /// verified only when it would add a version, so repeating one costs its sender, not this
    /// party, and each sender fills slots of a bounded number of rounds per session.
    pub fn file(&self, session: SessionId, round: u16, from: PartyIndex, packet: Packet) {
        self.file_all(vec![(session, round, from, packet)]);
    }

    /// [`Mailbox::file`] for packets that arrived together: the new broadcasts among them have
    /// their signatures checked in one batch.
    pub fn file_all(&self, frames: Vec<(SessionId, u16, PartyIndex, Packet)>) {
        let mut candidates: Vec<Candidate> = vec![];
        {
            let mut h = self.held();
            for (session, round, from, packet) in frames {
                for (sender, w) in self.candidates(&mut h, session, round, from, packet) {
                    // The same broadcast twice in one batch (sent, then forwarded) is checked once.
                    let twice = candidates.iter().any(|c| {
                        (c.0, c.1, c.2) == (session, round, sender)
                            && same_body(std::slice::from_ref(&c.3), &w)
                    });
                    if !twice {
                        candidates.push((session, round, sender, w));
                    }
                }
            }
        }
        if candidates.is_empty() {
            self.inner.1.notify_waiters();
            return;
        }
        // Verified outside the lock: the signature checks cost more than the rest.
        let valid = self.valid(candidates);
        {
            let mut h = self.held();
            for (session, round, sender, w) in valid {
                let Some(slot) = h.slots.get_mut(&(session, round, sender)) else {
                    continue;
                };
                // Two versions prove equivocation; more add nothing.
                if slot.broadcasts.len() < 2 && !same_body(&slot.broadcasts, &w) {
                    slot.broadcasts.push(w);
                }
                h.mark_latest(session, round, sender);
            }
        }
        self.inner.1.notify_waiters();
    }

    /// Files what of `packet` needs no signature check (a point-to-point part) and returns the
    /// broadcasts that would add a version, by their sender, to check.
    fn candidates(
        &self,
        h: &mut Held,
        session: SessionId,
        round: u16,
        from: PartyIndex,
        packet: Packet,
    ) -> Vec<(PartyIndex, Vec<u8>)> {
        if matches!(packet, Packet::Want { .. })
            || from == self.me
            || !self.roster.contains_key(&from)
        {
            return vec![];
        }
        let cap = ROUNDS_PER_SENDER + self.roster.len();
        if !h.open.contains(&session) {
            h.keep_early(from, (session, round, packet));
            return vec![];
        }
        let (sender, broadcasts, p2p) = match packet {
            Packet::Round { broadcast, p2p } => (from, broadcast.into_iter().collect(), p2p),
            Packet::Forward { sender, broadcasts } => (sender, broadcasts, None),
            Packet::Want { .. } => return vec![],
        };
        if sender == self.me
            || !self.roster.contains_key(&sender)
            || !h.admits(session, from, round, cap)
        {
            return vec![];
        }
        let slot = h.slots.entry((session, round, sender)).or_default();
        if slot.p2p.is_none() {
            slot.p2p = p2p;
        }
        let new: Vec<Vec<u8>> = if slot.broadcasts.len() < 2 {
            broadcasts
                .into_iter()
                .take(4)
                .filter(|w| !same_body(&slot.broadcasts, w))
                .collect()
        } else {
            vec![]
        };
        h.mark_latest(session, round, sender);
        new.into_iter().map(|w| (sender, w)).collect()
    }

    /// Records what this party sent in a round, to send it again when asked: its broadcast per
    /// recipient and its point-to-point parts. Sending in a session opens it.
    pub fn record_sent(&self, out: &Outgoing) {
        self.open(out.session);
        let mut h = self.held();
        let mut first = None;
        for &to in &out.recipients {
            let (broadcast, p2p) = out.part_for(to);
            first = first.or(broadcast.clone());
            // A round's parts may be sent in several calls (a protocol that sends each
            // point-to-point part on its own): each part fills its own place.
            let own = h.own.entry((out.session, out.round, to)).or_default();
            if broadcast.is_some() {
                own.0 = broadcast;
            }
            if p2p.is_some() {
                own.1 = p2p;
            }
        }
        if let Some(b) = first {
            h.slots
                .entry((out.session, out.round, self.me))
                .or_default()
                .broadcasts = vec![b];
        }
    }

    /// What this party holds of `round`'s parts from each of `from`.
    pub fn snapshot(
        &self,
        session: SessionId,
        round: u16,
        from: &[PartyIndex],
    ) -> BTreeMap<PartyIndex, Incoming> {
        let h = self.held();
        from.iter()
            .filter_map(|f| h.slots.get(&(session, round, *f)).map(|i| (*f, i.clone())))
            .collect()
    }

    /// What has arrived for `session`, by (round, sender), in that order: how many versions of
    /// the broadcast and whether a point-to-point part, without copying any bytes (a run looks
    /// at this on every wake-up; [`Mailbox::snapshot`] fetches the parts it takes).
    pub fn arrivals(&self, session: SessionId) -> BTreeMap<(u16, PartyIndex), (usize, bool)> {
        let h = self.held();
        h.slots
            .iter()
            .filter(|(k, _)| k.0 == session)
            .map(|(k, i)| ((k.1, k.2), (i.broadcasts.len(), i.p2p.is_some())))
            .collect()
    }

    /// Whether another party has already sent something for a round of `session` after `round`:
    /// evidence that the parties are past `round`, so that a part of it still missing was lost
    /// rather than not yet sent.
    pub fn ahead(&self, session: SessionId, round: u16) -> bool {
        self.held().latest.get(&session).is_some_and(|&r| r > round)
    }

    /// The stop notices filed for `session` ([`crate::Error::Stopped`]): each signer (in index
    /// order) and its signed wire bytes.
    pub fn stop_notices(&self, session: SessionId) -> Vec<(PartyIndex, Vec<u8>)> {
        let everyone: Vec<PartyIndex> = self.roster.keys().copied().collect();
        self.first_broadcasts(session, ROUND_STOP, &everyone)
    }

    /// The signed notes of `parties` for `session` ([`crate::net::Net::announce`]), each
    /// sender with its wire bytes.
    pub(crate) fn notes(
        &self,
        session: SessionId,
        parties: &[PartyIndex],
    ) -> Vec<(PartyIndex, Vec<u8>)> {
        self.first_broadcasts(session, ROUND_NOTE, parties)
    }

    /// The first broadcast filed of each of `parties` in `round` of `session`, with its sender.
    fn first_broadcasts(
        &self,
        session: SessionId,
        round: u16,
        parties: &[PartyIndex],
    ) -> Vec<(PartyIndex, Vec<u8>)> {
        let h = self.held();
        parties
            .iter()
            .filter_map(|&p| {
                h.slots
                    .get(&(session, round, p))
                    .and_then(|i| i.broadcasts.first())
                    .map(|w| (p, w.clone()))
            })
            .collect()
    }

    /// The parties whose signed closed notice for `session` is here ([`crate::Error::Closed`]),
    /// in index order.
    pub fn closed_by(&self, session: SessionId) -> Vec<PartyIndex> {
        let h = self.held();
        self.roster
            .keys()
            .copied()
            .filter(|&p| {
                h.slots
                    .get(&(session, ROUND_CLOSED, p))
                    .is_some_and(|i| !i.broadcasts.is_empty())
            })
            .collect()
    }

    /// Notified whenever something is filed.
    pub(crate) fn notify(&self) -> &Notify {
        &self.inner.1
    }

    /// The answers to `requester`'s want of `senders`' parts of (`session`, `round`): this
    /// party's own parts sent again, and every version it holds of the others' broadcasts.
    /// Nothing once this requester has had [`ANSWERS_PER_ROUND`] answers for the round.
    pub fn answer(
        &self,
        session: SessionId,
        round: u16,
        requester: PartyIndex,
        senders: &[PartyIndex],
    ) -> Vec<Packet> {
        if !self.answers.load(Ordering::Relaxed) {
            return vec![];
        }
        let mut h = self.held();
        if !h.open.contains(&session)
            || h.answered.get(&(session, round, requester)).copied() >= Some(ANSWERS_PER_ROUND)
        {
            return vec![];
        }
        let mut out = vec![];
        for &s in senders.iter().take(self.roster.len()) {
            if s == requester {
                continue;
            }
            if s == self.me {
                if let Some((broadcast, p2p)) = h.own.get(&(session, round, requester)).cloned() {
                    if broadcast.is_some() || p2p.is_some() {
                        out.push(Packet::Round { broadcast, p2p });
                    }
                }
            } else if let Some(slot) = h.slots.get(&(session, round, s)) {
                if !slot.broadcasts.is_empty() {
                    out.push(Packet::Forward {
                        sender: s,
                        broadcasts: slot.broadcasts.clone(),
                    });
                }
            }
        }
        // Only answers given count: a want that came before there was anything to give (the
        // asker started first) leaves the budget alone.
        if !out.is_empty() {
            *h.answered.entry((session, round, requester)).or_default() += 1;
        }
        out
    }
}

/// Whether `wire` carries the same signed body as one of `have` (re-signing gives another
/// signature on the same body; that is not a second version).
fn same_body(have: &[Vec<u8>], wire: &[u8]) -> bool {
    let Ok(new) = decode::<SignedBroadcast>(wire) else {
        return false;
    };
    have.iter()
        .any(|w| decode::<SignedBroadcast>(w).is_ok_and(|old| old.body == new.body))
}

/// One delivery on the in-memory network, as its adversary sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// The sending party.
    pub from: PartyIndex,
    /// The receiving party.
    pub to: PartyIndex,
    /// The round it belongs to.
    pub round: u16,
    /// What it is: 0 a round's parts, 1 a want, 2 a forward.
    pub kind: u8,
}

/// Decides for each delivery whether it arrives (`true`) or is lost.
pub type Adversary = Arc<dyn Fn(&Delivery) -> bool + Send + Sync>;

/// The in-memory transport (tests): every party's mailbox in one process, and a network
/// adversary that may drop any delivery.
pub struct MemoryTransport {
    me: PartyIndex,
    boxes: Arc<BTreeMap<PartyIndex, Mailbox>>,
    adversary: Adversary,
    refused: Option<PartyIndex>,
}

impl MemoryTransport {
    /// One transport per party of `roster`, all connected, nothing lost.
    pub fn network(roster: &BTreeMap<PartyIndex, IdentityKey>) -> Vec<MemoryTransport> {
        Self::network_with(roster, Arc::new(|_: &Delivery| true))
    }

    /// One transport per party of `roster`, every delivery passed by `adversary`.
    pub fn network_with(
        roster: &BTreeMap<PartyIndex, IdentityKey>,
        adversary: Adversary,
    ) -> Vec<MemoryTransport> {
        let boxes: Arc<BTreeMap<_, _>> = Arc::new(
            roster
                .keys()
                .map(|&p| (p, Mailbox::new(p, roster.clone())))
                .collect(),
        );
        roster
            .keys()
            .map(|&me| MemoryTransport {
                me,
                boxes: boxes.clone(),
                adversary: adversary.clone(),
                refused: None,
            })
            .collect()
    }

    /// Test hook: every send from this party to `to` fails as a transport fault, as when the
    /// relay serves another identity for that contact.
    pub fn refuse(&mut self, to: PartyIndex) {
        self.refused = Some(to);
    }

    fn refusal(&self, to: PartyIndex) -> Result<()> {
        if self.refused == Some(to) {
            return Err(crate::Error::Transport(format!(
                "identity of party {to} does not match"
            )));
        }
        Ok(())
    }

    fn deliver(&self, from: PartyIndex, to: PartyIndex, session: SessionId, round: u16, p: Packet) {
        let kind = match p {
            Packet::Round { .. } => 0,
            Packet::Want { .. } => 1,
            Packet::Forward { .. } => 2,
        };
        if !(self.adversary)(&Delivery {
            from,
            to,
            round,
            kind,
        }) {
            return;
        }
        let Some(mailbox) = self.boxes.get(&to) else {
            return;
        };
        match p {
            Packet::Want { senders } => {
                // The holder answers at once: its mailbox is here.
                for answer in mailbox.answer(session, round, from, &senders) {
                    self.deliver(to, from, session, round, answer);
                }
            }
            p => mailbox.file(session, round, from, p),
        }
    }
}

#[async_trait]
impl Transport for MemoryTransport {
    fn me(&self) -> PartyIndex {
        self.me
    }

    fn mailbox(&self) -> &Mailbox {
        &self.boxes[&self.me]
    }

    async fn send(&mut self, out: Outgoing) -> Result<()> {
        let mut result = Ok(());
        for &to in out.recipients.iter().filter(|&&to| to != self.me) {
            if let Err(e) = self.refusal(to) {
                result = Err(e);
                continue;
            }
            let (broadcast, p2p) = out.part_for(to);
            if broadcast.is_some() || p2p.is_some() {
                self.deliver(
                    self.me,
                    to,
                    out.session,
                    out.round,
                    Packet::Round { broadcast, p2p },
                );
            }
        }
        result
    }

    async fn send_packet(
        &mut self,
        session: SessionId,
        round: u16,
        to: PartyIndex,
        packet: Packet,
    ) -> Result<()> {
        self.refusal(to)?;
        self.deliver(self.me, to, session, round, packet);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Broadcasts that arrive together are checked in one batch; one forged among them (a body
    /// its sender never signed) fails the batch, and the one-by-one check that follows files
    /// every valid one and not the forgery.
    #[test]
    fn a_batch_with_a_forgery_files_the_valid_broadcasts_only() {
        let ps = crate::test_parties(5);
        let party = |i: PartyIndex| &ps[usize::from(i) - 1];
        let session = [9; 16];
        let mailbox = Mailbox::new(1, ps[0].roster.clone());
        mailbox.open(session);
        let mut frames = vec![];
        for i in 2..=5u16 {
            let mut wire = party(i).sign_broadcast(&session, 1, vec![i as u8; 40]);
            if i == 4 {
                // The signature of another body under party 4's name.
                let other = party(4).sign_broadcast(&session, 1, vec![0; 40]);
                let mut sb = decode::<SignedBroadcast>(&wire).unwrap();
                sb.sig = decode::<SignedBroadcast>(&other).unwrap().sig;
                wire = crate::encode(&sb);
            }
            let packet = Packet::Round {
                broadcast: Some(wire),
                p2p: None,
            };
            frames.push((session, 1, i, packet));
        }
        mailbox.file_all(frames);
        let snap = mailbox.snapshot(session, 1, &[2, 3, 4, 5]);
        for i in [2, 3, 5] {
            assert_eq!(
                snap[&i].broadcasts.len(),
                1,
                "party {i}'s broadcast is filed"
            );
        }
        assert!(snap.get(&4).is_none_or(|s| s.broadcasts.is_empty()));
    }
}
