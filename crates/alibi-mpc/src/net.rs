//! Any protocol over alibi's channels: a message-oriented transport for protocols alibi did not
//! write. A [`Net`] is one party's end of one run (a session) among a fixed list of
//! participants: [`Net::send`] puts bytes on the pairwise channel to one party,
//! [`Net::broadcast`] on the group channel (or n-1 pairwise messages, as the transport's
//! [`crate::relay::Mode`] says), and [`Net::recv`] yields what the others sent, as
//! [`Message`]s (sender, kind, round, bytes).
//!
//! What each layer guarantees:
//!
//! * **Authenticity.** Every message comes from the party it names: the channel authenticated
//!   it against the identity the user pinned (the group file's cards), and every broadcast is
//!   also signed by its sender over (session, round, sender, digest), so it can be forwarded.
//! * **Delivery.** A part that has not arrived after a quiet while is asked for again, first from
//!   its sender and then from everyone (a signed broadcast can come from any holder). When a
//!   round's wait times out, [`Net::recv`] fails with [`Error::Unreachable`]: the relay or those
//!   parties failed, and no one is blamed. A send the transport refuses stops the run for
//!   everyone with a signed stop notice ([`Error::Stopped`]), again without blame.
//! * **Isolation.** Only frames of this run's session are filed; frames of other sessions never
//!   reach [`Net::recv`].
//! * **Reliable broadcast (opt-in, [`NetConfig::reliable`]).** Before a round's broadcasts are
//!   handed out, every participant echoes the signed digests of all it received in that round;
//!   a broadcast is delivered only once every echo agrees, so every honest party delivers the
//!   same broadcasts. Two signed digests of one sender for one round prove it equivocated
//!   ([`Error::Aborted`] with [`Fault::Equivocation`]). This costs one extra round per broadcast
//!   round; protocols that check consistency themselves (cggmp24's and givre's key generation
//!   do) leave it off.
//!
//! Without reliable broadcast, a sender that equivocates is not detected here: each party hands
//! its protocol the first version it received.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::transport::REPORT_EVERY;
use crate::transport::{Broadcast, Incoming, Mailbox, Outgoing, Packet, Transport, Waiting};
use crate::{
    decode, digest, encode, Blame, Error, Fault, Party, PartyIndex, Result, SessionId,
    SignedBroadcast, ROUND_STOP,
};

/// The highest round a protocol may use: rounds above it carry the reliable broadcast's echoes
/// and the run's notices.
pub const MAX_ROUND: u16 = 0x3fff;

/// The echo of protocol round `r` travels as round `ECHO + r`.
const ECHO: u16 = 0x4000;

/// [`Net::conclude`]'s rounds: every participant's digest of the outcome, then its close.
pub(crate) const ROUND_CONFIRM: u16 = MAX_ROUND - 1;
pub(crate) const ROUND_CLOSE: u16 = MAX_ROUND;

/// How a message travelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// To this party alone, over the pairwise channel.
    P2p,
    /// To every participant, signed by its sender.
    Broadcast,
}

/// A message another participant sent this party.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// Who sent it (authenticated by the channel, and by its signature for a broadcast).
    pub sender: PartyIndex,
    /// Whether it was a broadcast or for this party alone.
    pub kind: Kind,
    /// The protocol round it belongs to.
    pub round: u16,
    /// The bytes the sender gave.
    pub bytes: Vec<u8>,
}

/// How a [`Net`] behaves.
#[derive(Clone, Copy, Debug)]
pub struct NetConfig {
    /// How long this party waits for one round, from the first time it waits on it, before
    /// [`Net::recv`] gives up ([`Error::Unreachable`]): a deadline, not a quiet timer, so parts
    /// of other rounds (a cheater's trickle of new ones) do not extend it.
    pub timeout: Duration,
    /// Whether broadcasts are delivered only after every participant's echo agrees (see the
    /// module documentation).
    pub reliable: bool,
}

impl Default for NetConfig {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(60),
            reliable: false,
        }
    }
}

/// A round's broadcasts as one party holds them: each sender's signed digest.
type View = BTreeMap<PartyIndex, ([u8; 32], Vec<u8>)>;

/// One participant's echo of a round: the signed digest of every broadcast it holds.
#[derive(Serialize, Deserialize)]
struct Echo {
    seen: Vec<(PartyIndex, [u8; 32], Vec<u8>)>,
}

struct State<T> {
    transport: T,
    /// What has been handed to the protocol, by (round, sender, kind).
    delivered: HashSet<(u16, PartyIndex, Kind)>,
    /// The kinds this party sent in each round: the same is expected from the others.
    sent: BTreeMap<u16, BTreeSet<Kind>>,
    /// Rounds whose echoes have all arrived and agree (reliable broadcast).
    settled: BTreeSet<u16>,
    /// Each round this party has waited on, by [`Wait`] key: when, and what it still lacks.
    waits: BTreeMap<u16, Wait>,
    /// Test hook: the party dealt another's pairwise message ([`Net::misdeal_to`]).
    #[cfg(feature = "adversary")]
    misdeal: Misdeal,
}

/// What [`Net::misdeal_to`] does: the victim, and each round's last pairwise message to another
/// party.
#[cfg(feature = "adversary")]
#[derive(Default)]
struct Misdeal {
    victim: Option<PartyIndex>,
    dealt: BTreeMap<u16, Vec<u8>>,
    /// How many messages were misdealt.
    done: usize,
}

#[cfg(feature = "adversary")]
impl Misdeal {
    /// The bytes to send `to` in `round`: the last message of that round to another party when
    /// `to` is the victim and there is one.
    fn bytes(&mut self, round: u16, to: PartyIndex, bytes: Vec<u8>) -> Vec<u8> {
        if self.victim != Some(to) {
            self.dealt.insert(round, bytes.clone());
            return bytes;
        }
        match self.dealt.get(&round) {
            Some(other) => {
                self.done += 1;
                other.clone()
            }
            None => bytes,
        }
    }
}

/// This party's wait for one round: it ends at `since` plus the timeout, whatever arrives
/// meanwhile (a part of a round nobody waits for extends nothing, as a cheater's trickle of new
/// rounds did), and its wants are timed from the last part it was waiting for.
struct Wait {
    /// The first time this party waited on the round.
    since: Instant,
    /// The last time a part this party waits for arrived (or `since`).
    quiet_since: Instant,
    /// How many parties' parts were still missing then.
    left: usize,
    /// Wants sent since `quiet_since`.
    asked: u32,
}

/// The [`Wait`] key of a receive that awaits no part of a round this party sent in (its first
/// round, say): the receive's own range, above every round number.
fn range_key(only: &core::ops::Range<u16>) -> u16 {
    0x8000 | only.start
}

/// One party's end of one run of a protocol over a [`Transport`] (see the module
/// documentation). Clones share the run: one can send while another waits in [`Net::recv`].
pub struct Net<T: Transport> {
    state: Arc<Mutex<State<T>>>,
    /// The first failure a protocol framework was handed (it may keep only its text).
    failure: Arc<std::sync::Mutex<Option<Error>>>,
    mailbox: Mailbox,
    party: Arc<Party>,
    session: SessionId,
    participants: Arc<Vec<PartyIndex>>,
    config: NetConfig,
}

impl<T: Transport> Clone for Net<T> {
    fn clone(&self) -> Self {
        Self {
            state: self.state.clone(),
            failure: self.failure.clone(),
            mailbox: self.mailbox.clone(),
            party: self.party.clone(),
            session: self.session,
            participants: self.participants.clone(),
            config: self.config,
        }
    }
}

impl<T: Transport> Net<T> {
    /// Party `party`'s end of run `session` among `participants` (indices from the group file,
    /// this party's among them), over `transport`.
    pub fn new(
        transport: T,
        party: Party,
        session: SessionId,
        participants: &[PartyIndex],
        config: NetConfig,
    ) -> Result<Self> {
        let list = Self::participants_of(&party, participants)?;
        let mailbox = transport.mailbox().clone();
        mailbox.open(session);
        let state = State {
            transport,
            delivered: HashSet::new(),
            sent: BTreeMap::new(),
            settled: BTreeSet::new(),
            waits: BTreeMap::new(),
            #[cfg(feature = "adversary")]
            misdeal: Misdeal::default(),
        };
        Ok(Self {
            state: Arc::new(Mutex::new(state)),
            failure: Arc::default(),
            mailbox,
            party: Arc::new(party),
            session,
            participants: Arc::new(list),
            config,
        })
    }

    /// `participants` in index order, once each, checked as [`Net::new`] checks them: this
    /// party among them, each in its roster.
    pub fn participants_of(party: &Party, participants: &[PartyIndex]) -> Result<Vec<PartyIndex>> {
        let mut list: Vec<PartyIndex> = participants.to_vec();
        list.sort_unstable();
        list.dedup();
        crate::check_indices(&list)?;
        if !list.contains(&party.index) {
            return Err(Error::Parameters(format!(
                "party {} is not among the participants",
                party.index
            )));
        }
        if let Some(p) = list.iter().find(|p| !party.roster.contains_key(p)) {
            return Err(Error::Parameters(format!("party {p} is not in the group")));
        }
        Ok(list)
    }

    /// The transport back, for the next run, once this is the run's last clone; otherwise the
    /// run itself back.
    pub fn into_transport(self) -> core::result::Result<T, Self> {
        let Self {
            state,
            failure,
            mailbox,
            party,
            session,
            participants,
            config,
        } = self;
        match Arc::try_unwrap(state) {
            Ok(state) => Ok(state.into_inner().transport),
            Err(state) => Err(Self {
                state,
                failure,
                mailbox,
                party,
                session,
                participants,
                config,
            }),
        }
    }

    /// Records a failure handed to a protocol framework, which may keep only its text; the
    /// first one counts.
    pub fn note_failure(&self, e: &Error) {
        let mut slot = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| e.clone());
    }

    /// The first failure recorded with [`Net::note_failure`]: when a protocol run over this
    /// net fails, the typed reason (a transport fault, or a party named).
    pub fn failure(&self) -> Option<Error> {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// This party's index.
    pub fn me(&self) -> PartyIndex {
        self.party.index
    }

    /// The participants, in index order.
    pub fn participants(&self) -> &[PartyIndex] {
        &self.participants
    }

    /// Where participant `p` stands in [`Net::participants`] (the 0-based index protocol
    /// frameworks use).
    pub fn position(&self, p: PartyIndex) -> Option<u16> {
        self.participants
            .iter()
            .position(|&q| q == p)
            .and_then(|i| u16::try_from(i).ok())
    }

    /// The run's session id.
    pub fn session(&self) -> SessionId {
        self.session
    }

    /// The other participants.
    fn others(&self) -> Vec<PartyIndex> {
        let me = self.me();
        self.participants
            .iter()
            .copied()
            .filter(|&p| p != me)
            .collect()
    }

    /// Sends `bytes` to participant `to` alone, as part of `round`.
    pub async fn send(&self, round: u16, to: PartyIndex, bytes: Vec<u8>) -> Result<()> {
        if to == self.me() || !self.participants.contains(&to) {
            return Err(Error::Parameters(format!(
                "party {to} is not another participant"
            )));
        }
        if round > MAX_ROUND {
            return Err(above_max(round));
        }
        let mut s = self.state.lock().await;
        s.sent.entry(round).or_default().insert(Kind::P2p);
        #[cfg(feature = "adversary")]
        let bytes = s.misdeal.bytes(round, to, bytes);
        let out = Outgoing {
            session: self.session,
            round,
            recipients: vec![to],
            broadcast: Broadcast::None,
            p2p: vec![(to, bytes.clone())],
        };
        self.mailbox.record_sent(&out);
        // Over the pairwise channel in every mode: one recipient needs no group message.
        let packet = Packet::Round {
            broadcast: None,
            p2p: Some(bytes),
        };
        let sent = s
            .transport
            .send_packet(self.session, round, to, packet)
            .await;
        if let Some(reason) = sent.as_ref().err().and_then(Error::stop_reason) {
            self.stop(&mut s, &reason).await;
        }
        sent
    }

    /// Sends `bytes` to every other participant as `round`'s broadcast, signed.
    pub async fn broadcast(&self, round: u16, bytes: Vec<u8>) -> Result<()> {
        let wire = self.party.sign_broadcast(&self.session, round, bytes);
        self.put(
            round,
            Kind::Broadcast,
            self.others(),
            Broadcast::All(wire),
            vec![],
        )
        .await
    }

    /// Ends a run alike at every participant: each broadcasts `digest` (its outcome, e.g. the
    /// key it holds and who holds shares of it) and waits for every other's. Equal digests from
    /// all: `Ok`, after a close round in which the party lingers (up to six want intervals)
    /// so that a participant still missing a part of the run can ask it for one. A different
    /// digest: [`Error::Aborted`] naming the parties that confirmed another outcome (their
    /// signed confirms are the evidence), nobody blamed for it. Not all in time:
    /// [`Error::Unreachable`]. So a party claims the outcome only once every participant has
    /// computed the same, and a lost message is still answered by a party that finished.
    pub async fn conclude(&self, digest: [u8; 32]) -> Result<()> {
        self.broadcast(ROUND_CONFIRM, digest.to_vec()).await?;
        let mut differ = vec![];
        for _ in self.others() {
            let m = self.recv_round(ROUND_CONFIRM).await?;
            if m.bytes != digest {
                differ.push(m.sender);
            }
        }
        if !differ.is_empty() {
            return Err(Error::Aborted {
                reason: format!(
                    "parties {} hold another outcome of this run",
                    crate::list(&differ)
                ),
                blamed: vec![],
            });
        }
        self.close().await;
        Ok(())
    }

    /// The close round of [`Net::conclude`]: best effort, errors ignored; it returns when every
    /// other participant's close is here or after six want intervals.
    async fn close(&self) {
        if self.broadcast(ROUND_CLOSE, vec![]).await.is_err() {
            return;
        }
        let linger = (self.config.timeout / 10)
            .clamp(Duration::from_millis(100), Duration::from_secs(1))
            * 6;
        let others = self.others().len();
        let _ = tokio::time::timeout(linger.min(self.config.timeout), async {
            for _ in 0..others {
                if self.recv_round(ROUND_CLOSE).await.is_err() {
                    break;
                }
            }
        })
        .await;
    }

    /// Test hook: from now on, deal `victim` in each round the pairwise message this party last
    /// sent another participant in that round (what a party that deals a wrong share does; the
    /// victim alone can tell). The first pairwise message of a round is dealt as it is.
    #[cfg(feature = "adversary")]
    pub async fn misdeal_to(&self, victim: PartyIndex) {
        self.state.lock().await.misdeal.victim = Some(victim);
    }

    /// Test hook: how many messages [`Net::misdeal_to`] has misdealt.
    #[cfg(feature = "adversary")]
    pub async fn misdealt(&self) -> usize {
        self.state.lock().await.misdeal.done
    }

    /// Test hook: broadcasts a different, validly signed message to each recipient (what an
    /// equivocating party does).
    #[cfg(feature = "adversary")]
    pub async fn equivocate(&self, round: u16, each: Vec<(PartyIndex, Vec<u8>)>) -> Result<()> {
        let signed = each
            .into_iter()
            .map(|(to, b)| (to, self.party.sign_broadcast(&self.session, round, b)))
            .collect();
        let others = self.others();
        self.put(
            round,
            Kind::Broadcast,
            others,
            Broadcast::PerRecipient(signed),
            vec![],
        )
        .await
    }

    async fn put(
        &self,
        round: u16,
        kind: Kind,
        recipients: Vec<PartyIndex>,
        broadcast: Broadcast,
        p2p: Vec<(PartyIndex, Vec<u8>)>,
    ) -> Result<()> {
        if round > MAX_ROUND {
            return Err(above_max(round));
        }
        let mut s = self.state.lock().await;
        s.sent.entry(round).or_default().insert(kind);
        self.send_locked(&mut s, round, recipients, broadcast, p2p)
            .await
    }

    /// Sends one round's parts; a transport fault stops the run for everyone.
    async fn send_locked(
        &self,
        s: &mut State<T>,
        round: u16,
        recipients: Vec<PartyIndex>,
        broadcast: Broadcast,
        p2p: Vec<(PartyIndex, Vec<u8>)>,
    ) -> Result<()> {
        let out = Outgoing {
            session: self.session,
            round,
            recipients,
            broadcast,
            p2p,
        };
        self.mailbox.record_sent(&out);
        let sent = s.transport.send(out).await;
        if let Some(reason) = sent.as_ref().err().and_then(Error::stop_reason) {
            self.stop(s, &reason).await;
        }
        sent
    }

    /// Tells every other participant, with a signed stop notice, that this party stops the run
    /// for a transport fault (so that nobody waits for it or names it).
    async fn stop(&self, s: &mut State<T>, reason: &str) {
        self.notify(s, ROUND_STOP, reason.as_bytes().to_vec()).await;
    }

    /// Sends every other participant a signed notice of `round` (a stop, an accusation, a
    /// note) with `body`, each on its own, best effort.
    async fn notify(&self, s: &mut State<T>, round: u16, body: Vec<u8>) {
        let notice = self.party.sign_broadcast(&self.session, round, body);
        let packet = Packet::Round {
            broadcast: Some(notice),
            p2p: None,
        };
        s.transport
            .send_each(self.session, round, &self.others(), packet)
            .await;
    }

    /// Tells the others, in a signed note they show while they wait for this party, what it
    /// does before it takes part (say, a slow search it must finish first). Best effort; a later
    /// note of the same run is not filed.
    pub async fn announce(&self, text: &str) {
        let mut s = self.state.lock().await;
        let body = text.as_bytes().to_vec();
        self.notify(&mut s, crate::ROUND_NOTE, body).await;
    }

    /// What `parties` said of themselves in this run ([`Net::announce`]), as text (printable
    /// characters only, at most 300).
    pub fn notes(&self, parties: &[PartyIndex]) -> Vec<(PartyIndex, String)> {
        self.mailbox
            .notes(self.session, parties)
            .into_iter()
            .map(|(p, wire)| (p, crate::echo::stop_reason(&wire)))
            .collect()
    }

    /// Stops the run for everyone, naming `blamed` for `reason` in a signed stop notice: what
    /// a party does when the protocol it runs names parties whose messages to it failed a
    /// check only it could make ([`Error::Accused`] at the others). Best effort.
    pub async fn accuse(&self, blamed: &[Blame], reason: &str) {
        let body = crate::echo::accusation_body(blamed, reason);
        let mut s = self.state.lock().await;
        self.notify(&mut s, ROUND_STOP, body).await;
    }

    /// The next message another participant sent this party, in round order; waits for one.
    /// Fails with [`Error::Unreachable`] when a round it waits on is not complete within the
    /// configured timeout of its first wait,
    /// [`Error::Stopped`] when a participant stopped the run, and [`Error::Aborted`] when the
    /// reliable broadcast proves a participant equivocated.
    pub async fn recv(&self) -> Result<Message> {
        self.recv_in(0..ECHO).await
    }

    /// The next message of `round`; messages of other rounds stay for later calls. The same
    /// failures as [`Net::recv`].
    pub async fn recv_round(&self, round: u16) -> Result<Message> {
        self.recv_in(round..round.saturating_add(1)).await
    }

    /// The next message of a round in `rounds` (a protocol run after another on one net takes
    /// its own range); messages of other rounds stay. The same failures as [`Net::recv`].
    pub async fn recv_in(&self, rounds: core::ops::Range<u16>) -> Result<Message> {
        let only = rounds.start..rounds.end.min(ECHO);
        let want_after =
            (self.config.timeout / 10).clamp(Duration::from_millis(100), Duration::from_secs(1));
        let mut report_at = Instant::now() + REPORT_EVERY;
        loop {
            let notified = self.mailbox.notify().notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let wake = {
                let mut s = self.state.lock().await;
                if let Some(m) = self.try_recv(&mut s, only.clone()).await? {
                    return Ok(m);
                }
                let now = Instant::now();
                let (round, missing) = self.missing(&s, &only);
                let key = if missing.is_empty() {
                    range_key(&only)
                } else {
                    round
                };
                let w = s.waits.entry(key).or_insert(Wait {
                    since: now,
                    quiet_since: now,
                    left: missing.len(),
                    asked: 0,
                });
                // Only the parts this party waits for are progress, and they only time the
                // wants: the round's deadline stays where it was set.
                if missing.len() < w.left {
                    w.left = missing.len();
                    w.quiet_since = now;
                    w.asked = 0;
                }
                let deadline = w.since + self.config.timeout;
                let due = w.quiet_since + want_after * 2u32.pow(w.asked.min(3)) * (w.asked + 1);
                let elapsed = now - w.since;
                if now >= deadline {
                    return Err(Error::Unreachable {
                        round: round & MAX_ROUND,
                        parties: missing,
                    });
                }
                if now >= report_at {
                    self.report(&mut s, round, &missing, elapsed);
                    report_at = now + REPORT_EVERY;
                }
                if now >= due && !missing.is_empty() {
                    self.ask(&mut s, key, round, &missing).await;
                    continue;
                }
                due.min(report_at).min(deadline)
            };
            let _ = tokio::time::timeout_at(wake, notified).await;
        }
    }

    /// Tells the transport whom the run waits for (the CLI prints it).
    fn report(&self, s: &mut State<T>, round: u16, missing: &[PartyIndex], elapsed: Duration) {
        let heard = self
            .others()
            .into_iter()
            .filter(|p| !missing.contains(p))
            .collect();
        s.transport.waiting(&Waiting {
            session: self.session,
            round: round & MAX_ROUND,
            waiting_for: missing.to_vec(),
            heard,
            elapsed,
            timeout: self.config.timeout,
            notes: self.notes(missing),
        });
    }

    /// Asks for `round`'s missing parts (the wait `key`'s): first their senders, then everyone.
    async fn ask(&self, s: &mut State<T>, key: u16, round: u16, missing: &[PartyIndex]) {
        let asked = s.waits.get(&key).map_or(0, |w| w.asked);
        let to = if asked == 0 {
            missing.to_vec()
        } else {
            self.others()
        };
        let want = Packet::Want {
            senders: missing.to_vec(),
        };
        // Best effort: a want that cannot be sent changes nothing.
        s.transport.send_each(self.session, round, &to, want).await;
        if let Some(w) = s.waits.get_mut(&key) {
            w.asked += 1;
        }
    }

    /// The lowest round of `only` (or its echo) this party sent in whose parts from the others
    /// are not all here, and whose are missing (round 0 and nobody when nothing is awaited).
    fn missing(&self, s: &State<T>, only: &core::ops::Range<u16>) -> (u16, Vec<PartyIndex>) {
        let arrived = self.mailbox.arrivals(self.session);
        let awaited = |round: u16| round < 2 * ECHO && only.contains(&(round & MAX_ROUND));
        for (&round, kinds) in s.sent.iter().filter(|(&r, _)| awaited(r)) {
            let missing: Vec<PartyIndex> = self
                .others()
                .into_iter()
                .filter(|&p| {
                    let (broadcasts, p2p) = arrived.get(&(round, p)).copied().unwrap_or_default();
                    !kinds.iter().all(|k| match k {
                        Kind::Broadcast => broadcasts > 0,
                        Kind::P2p => p2p,
                    })
                })
                .collect();
            if !missing.is_empty() {
                return (round, missing);
            }
        }
        (0, vec![])
    }

    /// The next deliverable message, if any; in reliable mode also sends a round's echo once
    /// all its broadcasts are here, and settles the round once all echoes are.
    async fn try_recv(
        &self,
        s: &mut State<T>,
        only: core::ops::Range<u16>,
    ) -> Result<Option<Message>> {
        let notices = self.mailbox.stop_notices(self.session);
        if !notices.is_empty() {
            // Passed on: the stopper's own notices may not have reached everyone.
            for (stopper, wire) in &notices {
                let to: Vec<PartyIndex> =
                    self.others().into_iter().filter(|q| q != stopper).collect();
                let forward = Packet::Forward {
                    sender: *stopper,
                    broadcasts: vec![wire.clone()],
                };
                s.transport
                    .send_each(self.session, ROUND_STOP, &to, forward)
                    .await;
            }
            let accusations: Vec<crate::Accusation> = notices
                .iter()
                .filter_map(|(p, w)| crate::echo::accusation(*p, w, &self.participants))
                .collect();
            if !accusations.is_empty() {
                return Err(Error::Accused { accusations });
            }
            return Err(Error::Stopped {
                stopped: notices
                    .iter()
                    .map(|(p, w)| (*p, crate::echo::stop_reason(w)))
                    .collect(),
            });
        }
        let arrived = self.mailbox.arrivals(self.session);
        for (&(round, sender), &(broadcasts, p2p)) in arrived.range((only.start, 0)..(only.end, 0))
        {
            if sender == self.me() || !self.participants.contains(&sender) {
                continue;
            }
            let new_p2p = p2p && !s.delivered.contains(&(round, sender, Kind::P2p));
            let new_broadcast =
                broadcasts > 0 && !s.delivered.contains(&(round, sender, Kind::Broadcast));
            if !new_p2p && !new_broadcast {
                continue;
            }
            // Only the part handed out is copied.
            let slot = self.slot(round, sender);
            if let (true, Some(bytes)) = (new_p2p, slot.p2p) {
                s.delivered.insert((round, sender, Kind::P2p));
                return Ok(Some(Message {
                    sender,
                    kind: Kind::P2p,
                    round,
                    bytes,
                }));
            }
            if !new_broadcast || (self.config.reliable && !self.settle(s, round).await?) {
                continue;
            }
            let Some(body) = slot
                .broadcasts
                .first()
                .and_then(|w| decode::<SignedBroadcast>(w).ok())
                .map(|sb| sb.body)
            else {
                continue;
            };
            s.delivered.insert((round, sender, Kind::Broadcast));
            return Ok(Some(Message {
                sender,
                kind: Kind::Broadcast,
                round,
                bytes: body,
            }));
        }
        Ok(None)
    }

    /// Reliable broadcast for `round`: whether its broadcasts may be delivered. Echoes this
    /// party's view once it holds every participant's broadcast (its own included), and checks
    /// the others' echoes against it once all are here.
    async fn settle(&self, s: &mut State<T>, round: u16) -> Result<bool> {
        if s.settled.contains(&round) {
            return Ok(true);
        }
        let echo_round = ECHO + round;
        let filed = self.round_and_echo(round);
        let filed = &filed;
        // The mailbox holds a second version only when it is validly signed: proof enough.
        if let Some(((_, p), _)) = filed
            .range((round, 0)..=(round, PartyIndex::MAX))
            .find(|(_, slot)| slot.broadcasts.len() > 1)
        {
            return Err(equivocation(round, *p));
        }
        let Some(view) = self.view(round, filed) else {
            return Ok(false);
        };
        if !s.sent.contains_key(&echo_round) {
            let seen = view
                .iter()
                .map(|(p, (d, sig))| (*p, *d, sig.clone()))
                .collect();
            let wire = self
                .party
                .sign_broadcast(&self.session, echo_round, encode(&Echo { seen }));
            s.sent
                .entry(echo_round)
                .or_default()
                .insert(Kind::Broadcast);
            let all = Broadcast::All(wire);
            self.send_locked(s, echo_round, self.others(), all, vec![])
                .await?;
        }
        let mut agreed = true;
        for q in self.others() {
            let Some(wire) = filed
                .get(&(echo_round, q))
                .and_then(|i| i.broadcasts.first())
            else {
                agreed = false;
                continue;
            };
            self.check_echo(round, q, wire, &view)?;
        }
        if agreed {
            s.settled.insert(round);
        }
        Ok(agreed)
    }

    /// What this party holds of one sender's parts of `round`.
    fn slot(&self, round: u16, sender: PartyIndex) -> Incoming {
        self.mailbox
            .snapshot(self.session, round, &[sender])
            .remove(&sender)
            .unwrap_or_default()
    }

    /// What this party holds of `round` and of its echo round, by (round, sender): what the
    /// reliable broadcast compares.
    fn round_and_echo(&self, round: u16) -> BTreeMap<(u16, PartyIndex), Incoming> {
        [round, ECHO + round]
            .into_iter()
            .flat_map(|r| {
                self.mailbox
                    .snapshot(self.session, r, &self.participants)
                    .into_iter()
                    .map(move |(p, i)| ((r, p), i))
            })
            .collect()
    }

    /// This party's view of `round`'s broadcasts: each participant's signed digest, once all are
    /// here. Two versions of one sender prove it equivocated.
    fn view(&self, round: u16, filed: &BTreeMap<(u16, PartyIndex), Incoming>) -> Option<View> {
        let mut view = BTreeMap::new();
        for &p in self.participants.iter() {
            let slot = filed.get(&(round, p))?;
            let first = slot
                .broadcasts
                .first()
                .and_then(|w| decode::<SignedBroadcast>(w).ok())?;
            view.insert(p, (digest(&first.body), first.sig.clone()));
        }
        Some(view)
    }

    /// Checks participant `q`'s echo of `round` against this party's view: a digest of another
    /// body, validly signed by its sender, proves that sender equivocated; an echo that does not
    /// decode, leaves a participant out or carries a signature that fails names `q`.
    fn check_echo(&self, round: u16, q: PartyIndex, wire: &[u8], view: &View) -> Result<()> {
        let malformed = || Error::Aborted {
            reason: format!("party {q} echoed round {round} wrongly"),
            blamed: vec![Blame {
                party: q,
                fault: Fault::Malformed { round },
            }],
        };
        let sb = decode::<SignedBroadcast>(wire).map_err(|_| malformed())?;
        let echo = decode::<Echo>(&sb.body).map_err(|_| malformed())?;
        let theirs: View = echo
            .seen
            .into_iter()
            .take(self.participants.len())
            .map(|(p, d, sig)| (p, (d, sig)))
            .collect();
        for (p, (d, _)) in view {
            let Some((their_d, sig)) = theirs.get(p) else {
                return Err(malformed());
            };
            if their_d == d {
                continue;
            }
            if !self.party.attests(&self.session, round, *p, their_d, sig) {
                return Err(malformed());
            }
            return Err(equivocation(round, *p));
        }
        Ok(())
    }
}

fn above_max(round: u16) -> Error {
    Error::Parameters(format!(
        "round {round} is above the highest protocol round, {MAX_ROUND}"
    ))
}

/// The error that names `party` for broadcasting two messages in `round`.
fn equivocation(round: u16, party: PartyIndex) -> Error {
    Error::Aborted {
        reason: format!("party {party} broadcast two messages in round {round}"),
        blamed: vec![Blame {
            party,
            fault: Fault::Equivocation { round },
        }],
    }
}

/// Decodes `data` as an echo (for the fuzz target).
pub(crate) fn fuzz_decoders(data: &[u8]) {
    let _ = decode::<Echo>(data);
}
