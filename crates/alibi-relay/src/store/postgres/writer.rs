//! The group commit: every enqueue and acknowledgement waits in a queue, and one transaction
//! at a time (two in flight) writes a whole group of them, its counters locked and checked
//! against the mailbox quota, answering each sender once its envelopes are durable.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use prost::Message as _;
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::error::SqlState;
use uuid::Uuid;

use super::statements::Statements;
use super::{clamp, pg_err, release_shared, stopped, u, Pool};
use crate::store::{Delivery, MailboxQuota, Over, Sender};
use crate::{Error, Result};

/// A write waiting for the next group commit, with where its answer goes.
pub(super) enum Write {
    Enqueue {
        deliveries: Vec<Delivery>,
        shared: Option<(Uuid, Vec<u8>)>,
        sender: Sender,
        quota: MailboxQuota,
        done: oneshot::Sender<Result<()>>,
    },
    Ack {
        account: Uuid,
        device: u8,
        guid: Uuid,
        done: oneshot::Sender<Result<bool>>,
    },
}

/// Writes in one group commit, at most.
const GROUP: usize = 1024;

/// Group commits under way at once: one fills while another waits for its fsync.
const GROUPS_IN_FLIGHT: usize = 2;

/// Commits whatever writes have queued up in one transaction (group commit: every sender is
/// answered only once its envelopes are durable, and many share one fsync and one round of
/// statements), while an earlier group may still be committing on another connection.
pub(super) async fn writer(
    pool: Arc<Pool>,
    node: Arc<str>,
    mut rx: mpsc::UnboundedReceiver<Write>,
) {
    let slots = Arc::new(tokio::sync::Semaphore::new(GROUPS_IN_FLIGHT));
    while let Some(first) = rx.recv().await {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let mut group = vec![first];
        while group.len() < GROUP {
            match rx.try_recv() {
                Ok(w) => group.push(w),
                Err(_) => break,
            }
        }
        let (pool, node) = (pool.clone(), node.clone());
        tokio::spawn(async move {
            commit_group(&pool, &node, group).await;
            drop(slot);
        });
    }
}

/// What one write of a group came to, if the group committed.
enum Outcome {
    /// Stored; or refused whole, this mailbox being full (true: the sender's share of it).
    Stored(Option<(Uuid, u8, bool)>),
    Acked(bool),
}

async fn commit_group(pool: &Pool, node: &str, group: Vec<Write>) {
    // Two groups (of this relay or another) deleting and counting the same rows may deadlock;
    // PostgreSQL then aborts one, which is tried again.
    let mut tries = 0;
    let outcome = loop {
        tries += 1;
        match try_group(pool, node, &group).await {
            Err(GroupError::Pg(e))
                if tries < 3
                    && matches!(
                        e.code(),
                        Some(
                            &SqlState::T_R_DEADLOCK_DETECTED | &SqlState::T_R_SERIALIZATION_FAILURE
                        )
                    ) => {}
            Err(GroupError::Pg(e)) => break Err(pg_err(e)),
            Err(GroupError::Other(e)) => break Err(e),
            Ok(o) => break Ok(o),
        }
    };
    let mut outcomes = outcome.as_ref().ok().map(|o| o.iter());
    for w in group {
        let o = outcomes.as_mut().and_then(|o| o.next());
        let failed = || match &outcome {
            Err(e) => Error::Store(e.to_string()),
            Ok(_) => stopped(),
        };
        match w {
            Write::Enqueue { done, .. } => {
                let r = match o {
                    Some(Outcome::Stored(None)) => Ok(()),
                    Some(Outcome::Stored(Some((a, d, false)))) => Err(Error::MailboxFull(*a, *d)),
                    Some(Outcome::Stored(Some((a, d, true)))) => {
                        Err(Error::SenderShareFull(*a, *d))
                    }
                    _ => Err(failed()),
                };
                let _ = done.send(r);
            }
            Write::Ack { done, .. } => {
                let r = match o {
                    Some(Outcome::Acked(b)) => Ok(*b),
                    _ => Err(failed()),
                };
                let _ = done.send(r);
            }
        }
    }
}

enum GroupError {
    Pg(tokio_postgres::Error),
    Other(Error),
}

impl From<tokio_postgres::Error> for GroupError {
    fn from(e: tokio_postgres::Error) -> Self {
        GroupError::Pg(e)
    }
}

impl From<Error> for GroupError {
    fn from(e: Error) -> Self {
        GroupError::Other(e)
    }
}

/// Changes to the counters: per mailbox, and per mailbox and sender (envelopes, bytes).
#[derive(Default)]
pub(super) struct Deltas {
    mailboxes: BTreeMap<(Uuid, u8), (i64, i64)>,
    senders: BTreeMap<(Uuid, u8, Sender), (i64, i64)>,
}

impl Deltas {
    pub(super) fn add(
        &mut self,
        account: Uuid,
        device: u8,
        sender: Option<Sender>,
        (n, b): (i64, i64),
    ) {
        let m = self.mailboxes.entry((account, device)).or_default();
        *m = (m.0 + n, m.1 + b);
        if let Some(sender) = sender {
            let s = self.senders.entry((account, device, sender)).or_default();
            *s = (s.0 + n, s.1 + b);
        }
    }
}

/// The counters of a group's mailboxes (locked) and of its senders' shares.
struct Current {
    mailboxes: HashMap<(Uuid, u8), (i64, i64)>,
    senders: HashMap<(Uuid, u8, Sender), (i64, i64)>,
}

fn uuid_of(b: &[u8]) -> std::result::Result<Uuid, GroupError> {
    Uuid::from_slice(b).map_err(|e| GroupError::Other(Error::Store(e.to_string())))
}

pub(super) fn sender_of(b: Option<&[u8]>) -> Option<Sender> {
    b.and_then(|b| b.try_into().ok()).map(Sender)
}

/// Locks the counters of every mailbox the group sends to or acknowledges from, and reads them
/// with the senders' shares: index lookups, whatever the mailboxes hold.
async fn lock_counters(
    st: &Statements,
    t: &tokio_postgres::Transaction<'_>,
    group: &[Write],
) -> std::result::Result<Current, GroupError> {
    let mut boxes = BTreeSet::new();
    let mut shares = BTreeSet::new();
    for w in group {
        match w {
            Write::Enqueue {
                deliveries, sender, ..
            } => {
                for (a, d, _) in deliveries {
                    boxes.insert((*a, *d));
                    shares.insert((*a, *d, *sender));
                }
            }
            Write::Ack {
                account, device, ..
            } => {
                boxes.insert((*account, *device));
            }
        }
    }
    let (ba, bd): (Vec<Vec<u8>>, Vec<i16>) =
        boxes.iter().map(|(a, d)| (u(*a), i16::from(*d))).unzip();
    t.execute(&st.new_boxes, &[&ba, &bd]).await?;
    let mut current = Current {
        mailboxes: HashMap::new(),
        senders: HashMap::new(),
    };
    for r in t.query(&st.quota, &[&ba, &bd]).await? {
        let a = uuid_of(r.get(0))?;
        let d = r.get::<_, i16>(1) as u8;
        current.mailboxes.insert((a, d), (r.get(2), r.get(3)));
    }
    if !shares.is_empty() {
        let mut sa = Vec::with_capacity(shares.len());
        let mut sd = Vec::with_capacity(shares.len());
        let mut ss = Vec::with_capacity(shares.len());
        for (a, d, s) in &shares {
            sa.push(u(*a));
            sd.push(i16::from(*d));
            ss.push(s.0.to_vec());
        }
        for r in t.query(&st.share, &[&sa, &sd, &ss]).await? {
            let a = uuid_of(r.get(0))?;
            let d = r.get::<_, i16>(1) as u8;
            if let Some(s) = sender_of(Some(r.get(2))) {
                current.senders.insert((a, d, s), (r.get(3), r.get(4)));
            }
        }
    }
    Ok(current)
}

/// Writes the group's changes to the counters (the mailboxes' rows are locked already), and
/// drops the shares that went back to nothing.
pub(super) async fn apply_deltas(
    st: &Statements,
    t: &tokio_postgres::Transaction<'_>,
    deltas: Deltas,
) -> std::result::Result<(), tokio_postgres::Error> {
    let (mut ma, mut md, mut mn, mut mb) = (vec![], vec![], vec![], vec![]);
    for ((a, d), (n, b)) in deltas.mailboxes {
        ma.push(u(a));
        md.push(i16::from(d));
        mn.push(n);
        mb.push(b);
    }
    let (mut sa, mut sd, mut ss, mut sn, mut sb) = (vec![], vec![], vec![], vec![], vec![]);
    for ((a, d, s), (n, b)) in deltas.senders {
        sa.push(u(a));
        sd.push(i16::from(d));
        ss.push(s.0.to_vec());
        sn.push(n);
        sb.push(b);
    }
    if !ma.is_empty() {
        t.execute(&st.change, &[&ma, &md, &mn, &mb]).await?;
    }
    if !sa.is_empty() {
        t.execute(&st.senders, &[&sa, &sd, &ss, &sn, &sb]).await?;
        t.execute(&st.drop_empty, &[&sa, &sd, &ss]).await?;
    }
    Ok(())
}

/// One group in one transaction: the counters of every mailbox it touches locked and read in
/// one statement (the quota check of every send against them), their shared parts and envelopes
/// in one statement each, one notification per mailbox, the acknowledged envelopes deleted in one
/// statement and their shared parts released in order of key, the counters changed. The
/// statements are prepared once per connection, and those that do not wait on each other are
/// sent together (pipelined).
async fn try_group(
    pool: &Pool,
    node: &str,
    group: &[Write],
) -> std::result::Result<Vec<Outcome>, GroupError> {
    let mut c = pool.client().await?;
    let st = Statements::prepare(&mut c).await?;
    let mut outcomes: Vec<Option<Outcome>> = group.iter().map(|_| None).collect();
    let t = c.transaction().await?;
    let mut current = lock_counters(&st, &t, group).await?;
    let mut deltas = Deltas::default();
    let mut rows = Rows::default();
    let mut targets = BTreeSet::new();
    for (i, w) in group.iter().enumerate() {
        let Write::Enqueue {
            deliveries,
            shared,
            sender,
            quota,
            ..
        } = w
        else {
            continue;
        };
        let refused = admit(&mut current, deliveries, shared, *sender, quota);
        if refused.is_some() {
            outcomes[i] = Some(Outcome::Stored(refused));
            continue;
        }
        rows.push(deliveries, shared, *sender, &mut deltas);
        for (account, device, _) in deliveries {
            targets.insert(format!("{node}:{}:{device}", account.simple()));
        }
        outcomes[i] = Some(Outcome::Stored(None));
    }
    let targets: Vec<String> = targets.into_iter().collect();
    let (mut ga, mut gu, mut gd) = (vec![], vec![], vec![]);
    for w in group {
        if let Write::Ack {
            account,
            device,
            guid,
            ..
        } = w
        {
            ga.push(u(*guid));
            gu.push(u(*account));
            gd.push(i16::from(*device));
        }
    }

    // Sent together, executed in this order. Every relay listening on the database hears, at
    // commit, which mailboxes got mail.
    let insert_parts = async {
        if !rows.part_keys.is_empty() {
            t.execute(
                &st.shared,
                &[&rows.part_keys, &rows.part_refs, &rows.part_data],
            )
            .await?;
        }
        Ok::<_, tokio_postgres::Error>(())
    };
    let insert_messages = async {
        if !rows.uuids.is_empty() {
            t.execute(
                &st.messages,
                &[
                    &rows.uuids,
                    &rows.devices,
                    &rows.guids,
                    &rows.shareds,
                    &rows.envelopes,
                    &rows.sizes,
                    &rows.created,
                    &rows.senders,
                ],
            )
            .await?;
            t.execute(&st.notify, &[&targets]).await?;
        }
        Ok::<_, tokio_postgres::Error>(())
    };
    let delete = async {
        if ga.is_empty() {
            return Ok(vec![]);
        }
        t.query(&st.delete, &[&ga, &gu, &gd]).await
    };
    let ((), (), gone) = futures_util::try_join!(insert_parts, insert_messages, delete)?;

    let mut deleted = HashSet::new();
    let mut released: BTreeMap<Vec<u8>, i32> = BTreeMap::new();
    for r in &gone {
        deleted.insert(r.get::<_, Vec<u8>>(0));
        if let Some(key) = r.get::<_, Option<Vec<u8>>>(1) {
            *released.entry(key).or_default() += 1;
        }
        let a = uuid_of(r.get(2))?;
        let d = r.get::<_, i16>(3) as u8;
        deltas.add(a, d, sender_of(r.get(4)), (-1, -r.get::<_, i64>(5)));
    }
    release_shared(&t, released).await?;
    apply_deltas(&st, &t, deltas).await?;
    for (i, w) in group.iter().enumerate() {
        if let Write::Ack { guid, .. } = w {
            outcomes[i] = Some(Outcome::Acked(deleted.contains(&u(*guid))));
        }
    }
    t.commit().await?;
    Ok(outcomes
        .into_iter()
        .map(|o| o.unwrap_or(Outcome::Acked(false)))
        .collect())
}

/// Whether a send fits its mailboxes and its sender's shares of them (counting the sends before
/// it in the group, which it then joins); else the first mailbox it would overfill, and whether
/// only the sender's share is used up.
fn admit(
    current: &mut Current,
    deliveries: &[Delivery],
    shared: &Option<(Uuid, Vec<u8>)>,
    sender: Sender,
    quota: &MailboxQuota,
) -> Option<(Uuid, u8, bool)> {
    let shared_len = shared.as_ref().map_or(0, |(_, b)| b.len());
    let keys = deliveries
        .iter()
        .map(|(a, d, env)| ((*a, *d), env.encoded_len()));
    let added = crate::store::additions(keys, shared_len);
    // The counts read from the database are never negative.
    let unsigned = |(n, b): (i64, i64)| (n.max(0) as u64, b.max(0) as u64);
    for (&(a, d), &size) in &added {
        let mailbox = current.mailboxes.get(&(a, d)).copied().unwrap_or_default();
        let own = current
            .senders
            .get(&(a, d, sender))
            .copied()
            .unwrap_or_default();
        match quota.admits(unsigned(mailbox), unsigned(own), size) {
            Ok(()) => {}
            Err(over) => return Some((a, d, over == Over::SenderShare)),
        }
    }
    for ((a, d), (n, b)) in added {
        let (n, b) = (clamp(n), clamp(b));
        let m = current.mailboxes.entry((a, d)).or_default();
        *m = (m.0 + n, m.1 + b);
        let s = current.senders.entry((a, d, sender)).or_default();
        *s = (s.0 + n, s.1 + b);
    }
    None
}

/// The rows a group inserts, as the columns of its two insert statements.
#[derive(Default)]
struct Rows {
    uuids: Vec<Vec<u8>>,
    devices: Vec<i16>,
    guids: Vec<Vec<u8>>,
    shareds: Vec<Option<Vec<u8>>>,
    envelopes: Vec<Vec<u8>>,
    sizes: Vec<i64>,
    created: Vec<i64>,
    senders: Vec<Vec<u8>>,
    part_keys: Vec<Vec<u8>>,
    part_refs: Vec<i32>,
    part_data: Vec<Vec<u8>>,
}

impl Rows {
    /// An admitted send's envelopes (and shared part), counted into `deltas`.
    fn push(
        &mut self,
        deliveries: &[Delivery],
        shared: &Option<(Uuid, Vec<u8>)>,
        sender: Sender,
        deltas: &mut Deltas,
    ) {
        let shared_len = shared.as_ref().map_or(0, |(_, b)| b.len());
        if let Some((key, data)) = shared {
            self.part_keys.push(u(*key));
            self.part_refs.push(deliveries.len() as i32);
            self.part_data.push(data.clone());
        }
        for (account, device, env) in deliveries {
            let e = env.encode_to_vec();
            let size = crate::store::charged_size(e.len(), shared_len) as i64;
            deltas.add(*account, *device, Some(sender), (1, size));
            self.uuids.push(u(*account));
            self.devices.push(i16::from(*device));
            let guid = crate::store::guid_bytes(env);
            self.created.push(crate::store::id_time_ms(&guid) as i64);
            self.guids.push(guid);
            self.shareds.push(env.shared_mrm_key.clone());
            self.sizes.push(size);
            self.envelopes.push(e);
            self.senders.push(sender.0.to_vec());
        }
    }
}
