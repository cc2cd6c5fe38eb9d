//! The inbox: the task that takes the relay's envelopes, has each decrypted, keeps those that
//! cannot be yet and tries them again after progress, and hands the messages out.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;
use uuid::Uuid;

use super::inbound::{Discard, Incoming, Outcome};
use super::{Messenger, Received};
use crate::relay::Acker;

/// How often a receiving messenger checks how many one-time prekeys the relay has left.
const TOP_UP_EVERY: std::time::Duration = std::time::Duration::from_secs(600);
/// Undecryptable-yet envelopes kept at most (below the relay's window of 64 unacknowledged, so
/// the relay keeps delivering); beyond it the oldest is given up.
const PENDING_MAX: usize = 48;
/// Of those, at most this many from one sender: beyond it that sender's oldest is given up, so
/// one contact's undecryptable envelopes never push out another's (it would take three).
const PENDING_PER_SENDER: usize = 16;
/// Envelopes taken from the relay's stream at once, when that many have arrived.
const BATCH_MAX: usize = 64;

impl Messenger {
    /// Starts receiving: the relay's envelopes are decrypted in the background and handed out by
    /// the returned [`Inbox`]. Call once per messenger.
    pub fn receive(&self) -> Inbox {
        let (tx, rx) = mpsc::channel(256);
        let mut relay = self.inner.client.receive();
        let acker = relay.acker();
        let me = self.clone();
        let task_acker = acker.clone();
        let rejected = Arc::new(Mutex::new(Rejected::default()));
        let task_rejected = rejected.clone();
        let task = tokio::spawn(async move {
            let mut pending: VecDeque<Incoming> = VecDeque::new();
            // The count is checked as the inbox starts and then every TOP_UP_EVERY: others'
            // fetches take one-time prekeys without any message arriving here.
            let mut check = tokio::time::interval(TOP_UP_EVERY);
            loop {
                let env = tokio::select! {
                    env = relay.next() => env,
                    _ = check.tick() => {
                        let m = me.clone();
                        tokio::spawn(async move {
                            let _ = m.top_up_prekeys().await;
                        });
                        continue;
                    }
                };
                let Some(env) = env else { break };
                // With it, whatever else has arrived already: their group messages' signatures
                // are checked together.
                let mut batch: Vec<Incoming> = std::iter::once(env)
                    .chain(std::iter::from_fn(|| relay.try_next()).take(BATCH_MAX - 1))
                    .filter(|env| {
                        !env.guid()
                            .is_some_and(|g| pending.iter().any(|p| p.guid() == Some(g)))
                    })
                    .map(Incoming::new)
                    .collect();
                me.check_batch(&mut batch);
                let mut queue = VecDeque::from(batch);
                while let Some(mut incoming) = queue.pop_front() {
                    match me.process(&mut incoming) {
                        Outcome::Deliver(r) => {
                            if tx.send((r, incoming.guid())).await.is_err() {
                                return;
                            }
                        }
                        Outcome::Consumed => task_acker.ack(incoming.guid()),
                        Outcome::Dropped(why) => {
                            task_rejected
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .note(why);
                            task_acker.ack(incoming.guid());
                            continue;
                        }
                        Outcome::Later => {
                            let given_up =
                                wait(&mut pending, incoming, |i| i.sender().map(str::to_owned));
                            for old in given_up {
                                task_acker.ack(old.guid());
                            }
                            continue;
                        }
                    }
                    // Progress: what waited may decrypt now, and goes before the rest of the
                    // batch (as it would have, the envelopes taken one at a time).
                    for p in pending.drain(..).rev() {
                        queue.push_front(p);
                    }
                }
                if me.inner.prekey_messages.load(Ordering::Relaxed) >= 10 {
                    me.inner.prekey_messages.store(0, Ordering::Relaxed);
                    let m = me.clone();
                    tokio::spawn(async move {
                        let _ = m.top_up_prekeys().await;
                    });
                }
            }
        });
        Inbox {
            rx,
            acker,
            task,
            rejected,
        }
    }
}

/// Puts `item` in the waiting room and returns what it gives up for it: the oldest of the same
/// sender's beyond [`PENDING_PER_SENDER`], then the oldest of all beyond [`PENDING_MAX`].
fn wait<T>(pending: &mut VecDeque<T>, item: T, sender: impl Fn(&T) -> Option<String>) -> Vec<T> {
    let who = sender(&item);
    let mut given_up = vec![];
    let same = pending.iter().filter(|p| sender(p) == who).count();
    if same >= PENDING_PER_SENDER {
        if let Some(at) = pending.iter().position(|p| sender(p) == who) {
            given_up.extend(pending.remove(at));
        }
    }
    pending.push_back(item);
    if pending.len() > PENDING_MAX {
        given_up.extend(pending.pop_front());
    }
    given_up
}

/// The envelopes an inbox gave up on: how many, and the latest reasons.
#[derive(Default)]
struct Rejected {
    count: u64,
    reasons: VecDeque<String>,
}

impl Rejected {
    fn note(&mut self, why: Discard) {
        self.count += 1;
        if self.reasons.len() == 16 {
            self.reasons.pop_front();
        }
        self.reasons.push_back(why.to_string());
    }
}

/// The messages a messenger receives, in arrival order (after any that had to wait).
pub struct Inbox {
    rx: mpsc::Receiver<(Received, Option<Uuid>)>,
    acker: Acker,
    task: tokio::task::JoinHandle<()>,
    rejected: Arc<Mutex<Rejected>>,
}

impl Inbox {
    /// The next message; its envelope is acknowledged to the relay (and deleted there) as it is
    /// handed over. `None` once the messenger stopped.
    pub async fn next(&mut self) -> Option<Received> {
        let (r, guid) = self.rx.recv().await?;
        self.acker.ack(guid);
        Some(r)
    }

    /// The next message if one is here already, without waiting (a receiver that handles what
    /// arrived together at once), acknowledged as [`Inbox::next`] does.
    pub fn ready(&mut self) -> Option<Received> {
        let (r, guid) = self.rx.try_recv().ok()?;
        self.acker.ack(guid);
        Some(r)
    }

    /// How many envelopes were given up on so far (unknown senders, identities that disagree
    /// with a card, bytes that do not decrypt), and why the latest (up to 16) were.
    pub fn rejected(&self) -> (u64, Vec<String>) {
        let r = self.rejected.lock().unwrap_or_else(|e| e.into_inner());
        (r.count, r.reasons.iter().cloned().collect())
    }
}

/// The inbox as a stream of messages, each acknowledged as it is yielded (as [`Inbox::next`]).
impl futures_util::Stream for Inbox {
    type Item = Received;

    fn poll_next(
        mut self: core::pin::Pin<&mut Self>,
        cx: &mut core::task::Context<'_>,
    ) -> core::task::Poll<Option<Received>> {
        self.rx.poll_recv(cx).map(|got| {
            got.map(|(r, guid)| {
                self.acker.ack(guid);
                r
            })
        })
    }
}

impl Drop for Inbox {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    /// Issue 65, item 9: one sender's undecryptable envelopes give up that sender's own oldest,
    /// never another's. Before, 48 from one contact pushed out everyone else's waiting ones.
    #[test]
    fn one_sender_cannot_push_out_anothers_waiting_envelopes() {
        let sender = |x: &(char, u32)| Some(x.0.to_string());
        let mut pending = std::collections::VecDeque::new();
        assert!(super::wait(&mut pending, ('h', 0), sender).is_empty());
        let mut given_up = vec![];
        for i in 0..100 {
            given_up.extend(super::wait(&mut pending, ('x', i), sender));
        }
        assert!(
            pending.contains(&('h', 0)),
            "the honest sender's envelope still waits"
        );
        assert_eq!(pending.len(), 1 + super::PENDING_PER_SENDER);
        assert!(given_up.iter().all(|g| g.0 == 'x'));
        // Many senders: the waiting room stays bounded, the oldest of all given up.
        for s in 'a'..='f' {
            for i in 0..10 {
                super::wait(&mut pending, (s, i), sender);
            }
        }
        assert_eq!(pending.len(), super::PENDING_MAX);
    }

    use alibi_relay::local::LocalRelay;
    use alibi_relay::server::Config;
    use alibi_testkit::proxy::Proxy;
    use uuid::Uuid;

    use crate::{Group, Kind, Messenger, Options};

    /// A group message that reaches B ahead of its sender key waits and is tried again once the
    /// key has come, and its sealed outer layer is opened once: the first opening is kept with
    /// the waiting envelope rather than redone on every try.
    #[tokio::test]
    async fn a_waiting_sealed_message_is_decrypted_once() {
        let relay = LocalRelay::start(Config::default()).await.expect("relay");
        let proxy = Proxy::start(&relay.url).await;
        let options = Options::default();
        let a = Messenger::ephemeral(&proxy.url, "A", &options)
            .await
            .expect("register A");
        let b = Messenger::ephemeral(&proxy.url, "B", &options)
            .await
            .expect("register B");
        a.import(&b.card()).expect("import B");
        b.import(&a.card()).expect("import A");
        let mut ib = b.receive();
        // The relay holds B's pairwise mail (the sender key) back while the sealed group message
        // goes straight through.
        proxy.rules.lock().expect("rules").delay =
            Some((format!("/v1/messages/{}", b.account()), 700));
        let group = Group {
            id: Uuid::new_v4(),
            members: vec!["B".into()],
        };
        a.send_group(&group, b"early", &[]).await.expect("send");
        let r = tokio::time::timeout(Duration::from_secs(10), ib.next())
            .await
            .expect("a message within 10 s")
            .expect("inbox open");
        assert_eq!(
            (r.kind, r.data.as_slice()),
            (Kind::Group(group.id), &b"early"[..])
        );
        let counts = &b.inner.counts;
        assert_eq!(
            counts.sealed.load(Ordering::Relaxed),
            2,
            "the group message was tried, waited, and was tried again"
        );
        assert_eq!(
            counts.opened.load(Ordering::Relaxed),
            1,
            "its sealed outer layer was opened once"
        );
    }
}
