//! The transports over the relay (seed 002, section 3.3): an adapter from party indices to the
//! contacts of an [`alibi_messenger::Messenger`], which owns the Signal sessions, sender keys,
//! pinned identities and the relay client.
//!
//! * [`Mode::Pairwise`]: a broadcast is n-1 Double Ratchet messages, one request each, sent one
//!   after another, as the paper's baseline client (mpc-over-signal) does.
//! * [`Mode::PairwiseConcurrent`]: the same n-1 requests, all in flight at once: the honest
//!   pairwise baseline.
//! * [`Mode::Group`]: a round is one sender-key message sealed once for all its recipients
//!   (sealed sender v2) in one multi-recipient request; the round's point-to-point parts go in
//!   the same request, each Double-Ratchet-encrypted to its recipient and delivered to it alone.
//!
//! Receiving is the same in every mode: a task reads the messenger's inbox, checks that the
//! protocol frame names the sender the channel authenticated, and files it in the [`Mailbox`];
//! wants (a party asking for a round's missing messages) are answered from the mailbox over
//! pairwise sessions, in every mode.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use alibi_identity::IdentityKey;
use alibi_messenger::{ContactCard, Group, Kind, Messenger, Received};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::transport::{Broadcast, Mailbox, Outgoing, Packet, Transport, Waiting};
use crate::{decode, encode, Error, Party, PartyIndex, Result, SessionId};

/// How broadcasts travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// n-1 pairwise Double Ratchet messages per broadcast, one request after another.
    Pairwise,
    /// n-1 pairwise messages per broadcast, all requests in flight at once.
    PairwiseConcurrent,
    /// One sender-key message in one multi-recipient sealed-sender request per round.
    Group,
}

impl core::fmt::Display for Mode {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str(match self {
            Mode::Pairwise => "pairwise",
            Mode::PairwiseConcurrent => "pairwise-concurrent",
            Mode::Group => "group",
        })
    }
}

/// A packet over a pairwise session.
#[derive(Serialize, Deserialize)]
struct Frame {
    session: SessionId,
    round: u16,
    from: PartyIndex,
    packet: Packet,
}

/// A round's message to the group; the point-to-point parts are the messenger's private parts.
#[derive(Serialize, Deserialize)]
struct GroupFrame {
    session: SessionId,
    round: u16,
    from: PartyIndex,
    #[serde(with = "serde_bytes")]
    broadcast: Option<Vec<u8>>,
}

/// A party on the relay: its messenger, and who the other parties are.
pub struct RelayParty {
    messenger: Messenger,
    me: PartyIndex,
    names: BTreeMap<PartyIndex, String>,
    roster: BTreeMap<PartyIndex, IdentityKey>,
    group: Uuid,
    mailbox: Mailbox,
    receiver: tokio::task::JoinHandle<()>,
    /// How broadcasts travel.
    pub mode: Mode,
    /// Told of every wait ([`RelayParty::on_waiting`]).
    on_waiting: Option<OnWaiting>,
    /// How long one send may take before the run gives up on it
    /// ([`RelayParty::set_send_timeout`]).
    send_timeout: Option<std::time::Duration>,
}

/// What a [`RelayParty`] tells of a run's wait (see [`Transport::waiting`]).
pub type OnWaiting = Box<dyn Fn(&Waiting) + Send + Sync>;

impl Drop for RelayParty {
    fn drop(&mut self) {
        self.receiver.abort();
    }
}

/// At most this many received frames are filed (and their signatures checked) together.
const FILED_TOGETHER: usize = 256;

/// The frame a received message carries for the mailbox, from a party of the roster: a want is
/// answered here (off the receiving loop, which must not wait on the relay) and files nothing.
fn frame_of(
    r: Received,
    me: PartyIndex,
    group: Uuid,
    index_of: &HashMap<String, PartyIndex>,
    filed: &Mailbox,
    answering: &Messenger,
) -> Option<(SessionId, u16, PartyIndex, Packet)> {
    let &from = index_of.get(&r.sender)?;
    match r.kind {
        Kind::Direct => {
            let f = decode::<Frame>(&r.data).ok().filter(|f| f.from == from)?;
            let Packet::Want { senders } = &f.packet else {
                return Some((f.session, f.round, from, f.packet));
            };
            let answers = filed.answer(f.session, f.round, from, senders);
            if !answers.is_empty() {
                let m = answering.clone();
                let to = r.sender.clone();
                tokio::spawn(async move {
                    for packet in answers {
                        let frame = encode(&Frame {
                            session: f.session,
                            round: f.round,
                            from: me,
                            packet,
                        });
                        // Best effort, and never for longer than a request may take.
                        let bound = Some(alibi_messenger::REQUEST_TIMEOUT);
                        let send = m.send(&to, &frame);
                        let _ = bounded(bound, &m, String::new, send, relay_err).await;
                    }
                });
            }
            None
        }
        Kind::Group(id) if id == group => {
            let f = decode::<GroupFrame>(&r.data)
                .ok()
                .filter(|f| f.from == from)?;
            let packet = Packet::Round {
                broadcast: f.broadcast,
                p2p: r.private,
            };
            Some((f.session, f.round, from, packet))
        }
        Kind::Group(_) => None,
    }
}

fn relay_err(e: alibi_messenger::Error) -> Error {
    Error::Transport(e.to_string())
}

/// A messenger failure in a run, with the parties it names: the relay's refusal to deliver to
/// some members is their being unreachable (named, not blamed); the rest is a transport fault.
fn send_err(names: &BTreeMap<PartyIndex, String>, e: alibi_messenger::Error) -> Error {
    match e {
        alibi_messenger::Error::Undeliverable { contacts, reason } => {
            let parties: Vec<(PartyIndex, String)> = names
                .iter()
                .filter(|(_, n)| contacts.contains(n))
                .map(|(p, _)| (*p, reason.clone()))
                .collect();
            if parties.is_empty() {
                return Error::Transport(format!("cannot deliver: {reason}"));
            }
            Error::Undeliverable { parties }
        }
        e => relay_err(e),
    }
}

/// `send` within `timeout` (if any), or a transport fault naming what stalled and the relay; its
/// own failure as `err` says.
async fn bounded<F>(
    timeout: Option<std::time::Duration>,
    messenger: &Messenger,
    what: impl FnOnce() -> String,
    send: F,
    err: impl FnOnce(alibi_messenger::Error) -> Error,
) -> Result<()>
where
    F: std::future::Future<Output = alibi_messenger::Result<()>>,
{
    let Some(t) = timeout else {
        return send.await.map_err(err);
    };
    match tokio::time::timeout(t, send).await {
        Ok(r) => r.map_err(err),
        Err(_) => Err(Error::Transport(format!(
            "{}: the relay did not take it within {:.1} s ({})",
            what(),
            t.as_secs_f64(),
            messenger.relay_nodes()
        ))),
    }
}

impl RelayParty {
    /// Party `me` of the group `group` whose members are `members` (index and card, this party's
    /// own among them): imports (pins) the others' cards and starts receiving.
    pub fn new(
        messenger: Messenger,
        me: PartyIndex,
        members: &[(PartyIndex, ContactCard)],
        group: Uuid,
        mode: Mode,
    ) -> Result<Self> {
        let mut names = BTreeMap::new();
        let mut roster = BTreeMap::new();
        for (i, card) in members {
            roster.insert(
                *i,
                card.identity()
                    .map_err(|e| Error::Parameters(e.to_string()))?,
            );
            names.insert(*i, card.name.clone());
            if *i != me {
                // The group file's cards are authoritative: a device a party links to its
                // account later must not stop delivery to the one it carded.
                let card = ContactCard {
                    fixed_devices: true,
                    ..card.clone()
                };
                messenger.import(&card).map_err(relay_err)?;
            }
        }
        if roster.get(&me) != Some(&messenger.identity_key_pair().identity) {
            return Err(Error::Parameters(format!(
                "party {me}'s card is not this messenger's"
            )));
        }
        let mailbox = Mailbox::new(me, roster.clone());
        let index_of: Arc<HashMap<String, PartyIndex>> =
            Arc::new(names.iter().map(|(i, n)| (n.clone(), *i)).collect());
        let mut inbox = messenger.receive();
        let filed = mailbox.clone();
        let answering = messenger.clone();
        let receiver = tokio::spawn(async move {
            while let Some(first) = inbox.next().await {
                // What arrived together is filed together: its signatures in one batch.
                let mut frames = vec![];
                let mut next = Some(first);
                while let Some(r) = next {
                    if let Some(frame) = frame_of(r, me, group, &index_of, &filed, &answering) {
                        frames.push(frame);
                    }
                    next = if frames.len() < FILED_TOGETHER {
                        inbox.ready()
                    } else {
                        None
                    };
                }
                filed.file_all(frames);
            }
        });
        Ok(Self {
            messenger,
            me,
            names,
            roster,
            group,
            mailbox,
            receiver,
            mode,
            on_waiting: None,
            send_timeout: None,
        })
    }

    /// Bounds every send of a run (a round's messages, a packet, the answers to wants): one the
    /// relay has not taken within `timeout` fails as a transport fault naming the relay node,
    /// instead of holding the party for ever on a stalled path. A run sets its round timeout
    /// here; the messenger's own request bound ([`alibi_messenger::Endpoint::set_request_timeout`])
    /// ends each request sooner.
    pub fn set_send_timeout(&mut self, timeout: std::time::Duration) {
        self.send_timeout = Some(timeout);
    }

    /// `send` under the send timeout: past it, a transport fault that says what stalled; the
    /// relay's refusal to deliver to some parties names them ([`Error::Undeliverable`]).
    async fn bounded<F>(&self, what: impl FnOnce() -> String, send: F) -> Result<()>
    where
        F: std::future::Future<Output = alibi_messenger::Result<()>>,
    {
        let names = &self.names;
        bounded(self.send_timeout, &self.messenger, what, send, |e| {
            send_err(names, e)
        })
        .await
    }

    /// Tells `report` of every wait of a run, every few seconds while it lasts (the CLI prints
    /// whom it waits for).
    pub fn on_waiting(&mut self, report: OnWaiting) {
        self.on_waiting = Some(report);
    }

    /// The messenger underneath.
    pub fn messenger(&self) -> &Messenger {
        &self.messenger
    }

    /// This party as the protocols see it: its index, identity and everyone's identity keys
    /// (from the cards).
    pub fn party(&self) -> Party {
        Party {
            index: self.me,
            identity: self.messenger.identity_key_pair().clone(),
            roster: self.roster.clone(),
        }
    }

    /// The contact name of party `p`.
    pub fn name_of(&self, p: PartyIndex) -> Option<&str> {
        self.names.get(&p).map(String::as_str)
    }

    fn name(&self, p: PartyIndex) -> Result<String> {
        self.names
            .get(&p)
            .cloned()
            .ok_or_else(|| Error::Transport(format!("party {p} unknown")))
    }

    fn group_of(&self, to: &[PartyIndex]) -> Result<Group> {
        Ok(Group {
            id: self.group,
            members: to.iter().map(|&p| self.name(p)).collect::<Result<_>>()?,
        })
    }

    /// Opens a PQXDH session to every other party now rather than on first use, and in group
    /// mode hands each its sender key (the paper's one-time steps, done ahead of a run).
    pub async fn prepare(&mut self) -> Result<()> {
        let others: Vec<PartyIndex> = self
            .names
            .keys()
            .copied()
            .filter(|&p| p != self.me)
            .collect();
        let group = self.group_of(&others)?;
        self.messenger
            .open_sessions(&group.members)
            .await
            .map_err(relay_err)?;
        if self.mode == Mode::Group {
            self.messenger
                .prepare_group(&group)
                .await
                .map_err(relay_err)?;
        }
        Ok(())
    }

    /// Requests this party has sent to the relay for sessions and protocol traffic so far.
    pub fn requests(&self) -> u64 {
        self.messenger.requests()
    }

    /// Bytes of request bodies this party has sent to the relay so far (HTTP bodies of every
    /// request), for measurement beside [`RelayParty::requests`].
    pub fn sent_bytes(&self) -> u64 {
        self.messenger.sent_bytes()
    }

    async fn send_pairwise(&self, out: &Outgoing, concurrent: bool) -> Result<()> {
        let mut sends = vec![];
        for &to in out.recipients.iter().filter(|&&to| to != self.me) {
            let (broadcast, p2p) = out.part_for(to);
            if broadcast.is_none() && p2p.is_none() {
                continue;
            }
            let frame = encode(&Frame {
                session: out.session,
                round: out.round,
                from: self.me,
                packet: Packet::Round { broadcast, p2p },
            });
            sends.push((self.name(to)?, frame));
        }
        let round = out.round;
        let what = |n: &String| {
            let n = n.clone();
            move || format!("round {round} to {n}")
        };
        if concurrent {
            let all = sends
                .iter()
                .map(|(n, f)| self.bounded(what(n), self.messenger.send(n, f)));
            for r in futures_util::future::join_all(all).await {
                r?;
            }
        } else {
            for (n, f) in &sends {
                self.bounded(what(n), self.messenger.send(n, f)).await?;
            }
        }
        Ok(())
    }

    async fn send_group(
        &self,
        to: &[PartyIndex],
        out: &Outgoing,
        broadcast: Option<Vec<u8>>,
    ) -> Result<()> {
        if to.is_empty() {
            return Ok(());
        }
        let frame = encode(&GroupFrame {
            session: out.session,
            round: out.round,
            from: self.me,
            broadcast,
        });
        let private: Vec<(String, Vec<u8>)> = out
            .p2p
            .iter()
            .filter(|(p, _)| to.contains(p))
            .map(|(p, b)| Ok((self.name(*p)?, b.clone())))
            .collect::<Result<_>>()?;
        let group = self.group_of(to)?;
        let what = || format!("round {}'s group message", out.round);
        self.bounded(what, self.messenger.send_group(&group, &frame, &private))
            .await
    }
}

#[async_trait]
impl Transport for RelayParty {
    fn me(&self) -> PartyIndex {
        self.me
    }

    fn waiting(&mut self, waiting: &Waiting) {
        if let Some(report) = &self.on_waiting {
            report(waiting);
        }
    }

    async fn send(&mut self, out: Outgoing) -> Result<()> {
        let me = self.me;
        match self.mode {
            Mode::Pairwise => self.send_pairwise(&out, false).await,
            Mode::PairwiseConcurrent => self.send_pairwise(&out, true).await,
            Mode::Group => match &out.broadcast {
                Broadcast::PerRecipient(v) => {
                    // Only a cheater sends different broadcasts: one request per recipient.
                    for (to, b) in v.clone() {
                        self.send_group(&[to], &out, Some(b)).await?;
                    }
                    Ok(())
                }
                b => {
                    let broadcast = match b {
                        Broadcast::All(b) => Some(b.clone()),
                        _ => None,
                    };
                    let to: Vec<PartyIndex> = out
                        .recipients
                        .iter()
                        .copied()
                        .filter(|&to| to != me)
                        .filter(|&to| broadcast.is_some() || out.p2p.iter().any(|(r, _)| *r == to))
                        .collect();
                    self.send_group(&to, &out, broadcast).await
                }
            },
        }
    }

    fn mailbox(&self) -> &Mailbox {
        &self.mailbox
    }

    async fn send_packet(
        &mut self,
        session: SessionId,
        round: u16,
        to: PartyIndex,
        packet: Packet,
    ) -> Result<()> {
        let frame = encode(&Frame {
            session,
            round,
            from: self.me,
            packet,
        });
        let name = self.name(to)?;
        let what = || format!("round {round} to {name}");
        self.bounded(what, self.messenger.send(&name, &frame)).await
    }

    async fn send_each(
        &mut self,
        session: SessionId,
        round: u16,
        to: &[PartyIndex],
        packet: Packet,
    ) {
        let frame = encode(&Frame {
            session,
            round,
            from: self.me,
            packet,
        });
        let names: Vec<String> = to
            .iter()
            .filter(|&&q| q != self.me)
            .filter_map(|&q| self.name(q).ok())
            .collect();
        let all = names
            .iter()
            .map(|n| self.bounded(String::new, self.messenger.send(n, &frame)));
        futures_util::future::join_all(all).await;
    }
}

/// Decodes `data` as each transport frame (for the fuzz target).
#[doc(hidden)]
pub fn fuzz_decoders(data: &[u8]) {
    let _ = decode::<Frame>(data);
    let _ = decode::<GroupFrame>(data);
}
