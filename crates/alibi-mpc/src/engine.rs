//! The round-based engine: a protocol runs round after round; in each, every party sends a
//! broadcast part and point-to-point parts, then waits for the round's messages from the others.
//! Transports carry the bytes and say who sent them (the channel authenticates the sender); the
//! protocols sign what a third party may later have to judge.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use crate::{PartyIndex, Result, SessionId};

/// A round's broadcast part.
#[derive(Clone, Debug)]
pub enum Broadcast {
    /// No broadcast this round.
    None,
    /// The same bytes to every other party.
    All(Vec<u8>),
    /// Different bytes per recipient: what an equivocating party does (tests use it to check that
    /// the echo names it; honest parties never send this).
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

/// What arrived from one party in one round.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Incoming {
    /// Its broadcast part, if any.
    pub broadcast: Option<Vec<u8>>,
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
    /// Whether a sender that misses the deadline is at fault (otherwise the protocol handles
    /// the gap, as key generation does for a missing share: the victim complains).
    pub required: bool,
}

/// A way for the parties to talk.
#[async_trait]
pub trait Transport: Send {
    /// This party's index.
    fn me(&self) -> PartyIndex;
    /// Sends one round's messages.
    async fn send(&mut self, out: Outgoing) -> Result<()>;
    /// Waits until each of `from` has delivered what `expect` says for `round`, or `timeout`;
    /// returns what came (a sender missing from the map sent nothing in time).
    async fn receive(
        &mut self,
        session: SessionId,
        round: u16,
        from: &[PartyIndex],
        expect: Expect,
        timeout: Duration,
    ) -> Result<BTreeMap<PartyIndex, Incoming>>;
}

/// Where a transport's receiving side files what arrives, by (session, round, sender), until the
/// protocol asks for it. The first broadcast and the first point-to-point part of each sender in
/// each round count; later copies are ignored.
#[derive(Clone, Default)]
pub struct Mailbox {
    inner: Arc<(Mutex<Filed>, Notify)>,
}

/// What has arrived, by (session, round, sender).
type Filed = HashMap<(SessionId, u16, PartyIndex), Incoming>;

impl Mailbox {
    /// Files a part that arrived from `from`.
    pub fn deliver(
        &self,
        session: SessionId,
        round: u16,
        from: PartyIndex,
        broadcast: Option<Vec<u8>>,
        p2p: Option<Vec<u8>>,
    ) {
        {
            let mut m = self.inner.0.lock().unwrap_or_else(|e| e.into_inner());
            let slot = m.entry((session, round, from)).or_default();
            if slot.broadcast.is_none() {
                slot.broadcast = broadcast;
            }
            if slot.p2p.is_none() {
                slot.p2p = p2p;
            }
        }
        self.inner.1.notify_waiters();
    }

    /// Waits for a round, as [`Transport::receive`] describes, and takes what came out.
    pub async fn collect(
        &self,
        session: SessionId,
        round: u16,
        from: &[PartyIndex],
        expect: Expect,
        timeout: Duration,
    ) -> BTreeMap<PartyIndex, Incoming> {
        let complete = |m: &Filed| {
            from.iter().all(|f| {
                m.get(&(session, round, *f)).is_some_and(|i| {
                    (!expect.broadcast || i.broadcast.is_some()) && (!expect.p2p || i.p2p.is_some())
                })
            })
        };
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.inner.1.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if complete(&self.inner.0.lock().unwrap_or_else(|e| e.into_inner())) {
                break;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                break;
            }
        }
        let mut m = self.inner.0.lock().unwrap_or_else(|e| e.into_inner());
        from.iter()
            .filter_map(|f| m.remove(&(session, round, *f)).map(|i| (*f, i)))
            .collect()
    }
}

/// The in-memory transport (tests): every party's mailbox in one process.
pub struct MemoryTransport {
    me: PartyIndex,
    boxes: Arc<BTreeMap<PartyIndex, Mailbox>>,
}

impl MemoryTransport {
    /// One transport per party index in `parties`, all connected.
    pub fn network(parties: &[PartyIndex]) -> Vec<MemoryTransport> {
        let boxes: Arc<BTreeMap<_, _>> =
            Arc::new(parties.iter().map(|&p| (p, Mailbox::default())).collect());
        parties
            .iter()
            .map(|&me| MemoryTransport {
                me,
                boxes: boxes.clone(),
            })
            .collect()
    }
}

#[async_trait]
impl Transport for MemoryTransport {
    fn me(&self) -> PartyIndex {
        self.me
    }

    async fn send(&mut self, out: Outgoing) -> Result<()> {
        for &to in out.recipients.iter().filter(|&&to| to != self.me) {
            let Some(mailbox) = self.boxes.get(&to) else {
                continue;
            };
            let (broadcast, p2p) = out.part_for(to);
            if broadcast.is_some() || p2p.is_some() {
                mailbox.deliver(out.session, out.round, self.me, broadcast, p2p);
            }
        }
        Ok(())
    }

    async fn receive(
        &mut self,
        session: SessionId,
        round: u16,
        from: &[PartyIndex],
        expect: Expect,
        timeout: Duration,
    ) -> Result<BTreeMap<PartyIndex, Incoming>> {
        Ok(self.boxes[&self.me]
            .collect(session, round, from, expect, timeout)
            .await)
    }
}
