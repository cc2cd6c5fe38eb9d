//! The PostgreSQL backend: the scale-out path, several relay processes on one database. Every
//! trait method is one transaction; one-time keys are taken with `FOR UPDATE SKIP LOCKED`, so two
//! relays never hand out the same key; the shared part of a multi-recipient send carries a
//! reference count that row locks keep exact.

use std::time::Duration;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use prost::Message as _;
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, Mutex};
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, NoTls};
use uuid::Uuid;

use super::{
    credential_fingerprint, Delivery, DeviceBundle, DeviceInfo, KeysUpload, MailSignal,
    MailboxQuota, MailboxUsage, OneTimeKey, Over, RelayStore, RingXkemKey, Sender, SignedKey,
};
use crate::{Error, Result};
use alibi_relay_api::access::AccessKey;
use alibi_relay_api::proto::Envelope;

/// Connections per store: enough for both cores' worth of concurrent requests.
const POOL: usize = 4;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS accounts (uuid BYTEA PRIMARY KEY, identity_key BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS access_keys (uuid BYTEA PRIMARY KEY, key BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS devices (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, registration_id INT NOT NULL,
    password_hash TEXT NOT NULL, PRIMARY KEY (uuid, device));
CREATE TABLE IF NOT EXISTS signed_keys (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, id BIGINT NOT NULL,
    public BYTEA NOT NULL, signature BYTEA NOT NULL, PRIMARY KEY (uuid, device));
CREATE TABLE IF NOT EXISTS ec_keys (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, id BIGINT NOT NULL,
    public BYTEA NOT NULL, PRIMARY KEY (uuid, device, id));
CREATE TABLE IF NOT EXISTS pq_keys (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, id BIGINT NOT NULL,
    public BYTEA NOT NULL, signature BYTEA NOT NULL, PRIMARY KEY (uuid, device, id));
CREATE TABLE IF NOT EXISTS pq_last_resort (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, id BIGINT NOT NULL,
    public BYTEA NOT NULL, signature BYTEA NOT NULL, PRIMARY KEY (uuid, device));
CREATE TABLE IF NOT EXISTS ringxkem_keys (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, id BIGINT NOT NULL,
    bundle BYTEA NOT NULL, PRIMARY KEY (uuid, device));
CREATE TABLE IF NOT EXISTS messages (seq BIGSERIAL PRIMARY KEY, uuid BYTEA NOT NULL, device SMALLINT NOT NULL,
    guid BYTEA NOT NULL UNIQUE, shared BYTEA, envelope BYTEA NOT NULL, size BIGINT NOT NULL,
    created BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS messages_by_time ON messages (created);
CREATE INDEX IF NOT EXISTS messages_by_device ON messages (uuid, device, seq);
CREATE TABLE IF NOT EXISTS shared_mrm (key BYTEA PRIMARY KEY, refs INT NOT NULL, data BYTEA NOT NULL);
ALTER TABLE messages ADD COLUMN IF NOT EXISTS sender BYTEA;
CREATE TABLE IF NOT EXISTS mailboxes (uuid BYTEA NOT NULL, device SMALLINT NOT NULL,
    messages BIGINT NOT NULL, bytes BIGINT NOT NULL, PRIMARY KEY (uuid, device));
CREATE TABLE IF NOT EXISTS mailbox_senders (uuid BYTEA NOT NULL, device SMALLINT NOT NULL,
    sender BYTEA NOT NULL, messages BIGINT NOT NULL, bytes BIGINT NOT NULL,
    PRIMARY KEY (uuid, device, sender));
CREATE TABLE IF NOT EXISTS relay_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);
";

/// Counts the mailboxes of a database written before the counters were kept, once (envelopes of
/// that time have no sender, so they count against no sender's share). Run with [`SCHEMA`] in
/// one transaction, under the advisory lock.
const BACKFILL: &str = "
INSERT INTO mailboxes (uuid, device, messages, bytes)
    SELECT uuid, device, count(*), coalesce(sum(size), 0)::int8 FROM messages
    WHERE NOT EXISTS (SELECT 1 FROM relay_meta WHERE key = 'mailbox_counters')
    GROUP BY uuid, device
    ON CONFLICT DO NOTHING;
INSERT INTO relay_meta (key, value) VALUES ('mailbox_counters', 1) ON CONFLICT DO NOTHING;
";

fn pg_err(e: tokio_postgres::Error) -> Error {
    match e.as_db_error() {
        Some(d) => Error::Store(format!("postgres: {}", d.message())),
        None => Error::Store(format!("postgres: {e}")),
    }
}

/// The PostgreSQL relay store.
pub struct PgRelayStore {
    pool: Arc<Pool>,
    /// Envelope writes and acknowledgements, committed in groups by [`writer`].
    writes: mpsc::UnboundedSender<Write>,
    /// This store's name in its notifications, so that its own are not heard back.
    node: Arc<str>,
}

/// A few connections, each used by one request at a time.
struct Pool {
    config: tokio_postgres::Config,
    clients: Vec<Mutex<Conn>>,
    next: AtomicUsize,
}

/// A connection and the statements prepared on it (a statement given as text is prepared
/// again at every use: a round trip more per statement).
struct Conn {
    client: Client,
    prepared: HashMap<&'static str, tokio_postgres::Statement>,
}

impl Conn {
    /// `sql`, prepared on this connection once.
    async fn prepared(
        &mut self,
        sql: &'static str,
    ) -> std::result::Result<tokio_postgres::Statement, tokio_postgres::Error> {
        if let Some(st) = self.prepared.get(sql) {
            return Ok(st.clone());
        }
        let st = self.client.prepare(sql).await?;
        self.prepared.insert(sql, st.clone());
        Ok(st)
    }
}

impl std::ops::Deref for Conn {
    type Target = Client;
    fn deref(&self) -> &Client {
        &self.client
    }
}

impl std::ops::DerefMut for Conn {
    fn deref_mut(&mut self) -> &mut Client {
        &mut self.client
    }
}

async fn open(config: &tokio_postgres::Config) -> Result<Conn> {
    let (client, conn) = config.connect(NoTls).await.map_err(pg_err)?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    Ok(Conn {
        client,
        prepared: HashMap::new(),
    })
}

impl PgRelayStore {
    /// Connects (a small pool) and creates the schema if it is missing. `url` is a libpq
    /// connection string, URL (`postgresql://user@host:port/db`) or `key=value` form.
    pub async fn connect(url: &str) -> Result<Self> {
        let config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| Error::Store(format!("postgres: {e}")))?;
        let mut clients = Vec::with_capacity(POOL);
        for _ in 0..POOL {
            clients.push(Mutex::new(open(&config).await?));
        }
        {
            let c = clients[0].lock().await;
            // A database of the first layout kept unsalted SHA-256 in `devices.secret_hash`.
            let outdated = c
                .query_opt(
                    "SELECT 1 FROM information_schema.columns
                     WHERE table_schema = current_schema() AND table_name = 'devices'
                       AND column_name = 'secret_hash'",
                    &[],
                )
                .await
                .map_err(pg_err)?;
            if outdated.is_some() {
                return Err(Error::OutdatedStore(super::OUTDATED_PASSWORDS));
            }
            // Two relays starting together must not race on CREATE TABLE.
            c.batch_execute(&format!(
                "SELECT pg_advisory_lock(424242); BEGIN; {SCHEMA} {BACKFILL} COMMIT;
                 SELECT pg_advisory_unlock(424242);"
            ))
            .await
            .map_err(pg_err)?;
        }
        let pool = Arc::new(Pool {
            config,
            clients,
            next: AtomicUsize::new(0),
        });
        let mut name = [0u8; 8];
        getrandom::fill(&mut name).map_err(|e| Error::Store(e.to_string()))?;
        let node: Arc<str> = name
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
            .into();
        let (writes, rx) = mpsc::unbounded_channel();
        tokio::spawn(writer(pool.clone(), node.clone(), rx));
        Ok(Self { pool, writes, node })
    }

    async fn client(&self) -> Result<tokio::sync::MutexGuard<'_, Conn>> {
        self.pool.client().await
    }

    fn write(&self, w: Write) -> Result<()> {
        self.writes.send(w).map_err(|_| stopped())
    }
}

fn stopped() -> Error {
    Error::Store("postgres: the writer stopped".into())
}

impl Pool {
    /// An idle connection if there is one (else the next in turn, once free), reopened if the
    /// server closed it (a restart, or a dropped TCP connection): the failed request's error has
    /// already gone to its caller, the next one gets a fresh connection.
    async fn client(&self) -> Result<tokio::sync::MutexGuard<'_, Conn>> {
        let n = self.clients.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let mut guard = None;
        for i in 0..n {
            if let Ok(g) = self.clients[(start + i) % n].try_lock() {
                guard = Some(g);
                break;
            }
        }
        let mut guard = match guard {
            Some(g) => g,
            None => self.clients[start % n].lock().await,
        };
        if guard.is_closed() {
            *guard = open(&self.config).await?;
        }
        Ok(guard)
    }
}

/// A write waiting for the next group commit, with where its answer goes.
enum Write {
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
async fn writer(pool: Arc<Pool>, node: Arc<str>, mut rx: mpsc::UnboundedReceiver<Write>) {
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

/// Makes a counter row for every mailbox a group touches (zero if new), so that all of them can
/// be locked.
const NEW_MAILBOXES_SQL: &str = "INSERT INTO mailboxes (uuid, device, messages, bytes)
    SELECT x.uuid, x.device, 0, 0 FROM UNNEST($1::bytea[], $2::int2[]) AS x(uuid, device)
    ORDER BY 1, 2 ON CONFLICT DO NOTHING";
/// The counters of a group's mailboxes, locked in key order (two groups, of this relay or
/// another, then wait for each other instead of deadlocking, and the quota check is exact).
const QUOTA_SQL: &str = "SELECT m.uuid, m.device, m.messages, m.bytes FROM mailboxes m
    JOIN UNNEST($1::bytea[], $2::int2[]) AS x(uuid, device)
        ON m.uuid = x.uuid AND m.device = x.device
    ORDER BY m.uuid, m.device FOR UPDATE OF m";
/// The senders' shares of those mailboxes (changed only under the mailbox's lock).
const SENDER_QUOTA_SQL: &str = "SELECT s.uuid, s.device, s.sender, s.messages, s.bytes
    FROM mailbox_senders s
    JOIN UNNEST($1::bytea[], $2::int2[], $3::bytea[]) AS x(uuid, device, sender)
        ON s.uuid = x.uuid AND s.device = x.device AND s.sender = x.sender";
const INSERT_SHARED_SQL: &str = "INSERT INTO shared_mrm (key, refs, data)
    SELECT * FROM UNNEST($1::bytea[], $2::int4[], $3::bytea[])";
// One statement for a whole group, in the order sent (a mailbox is read by `seq`).
const INSERT_MESSAGES_SQL: &str =
    "INSERT INTO messages (uuid, device, guid, shared, envelope, size, created, sender)
    SELECT x.uuid, x.device, x.guid, x.shared, x.envelope, x.size, x.created, x.sender
    FROM UNNEST($1::bytea[], $2::int2[], $3::bytea[], $4::bytea[], $5::bytea[], $6::int8[],
        $7::int8[], $8::bytea[])
    WITH ORDINALITY AS x(uuid, device, guid, shared, envelope, size, created, sender, n)
    ORDER BY n";
const NOTIFY_SQL: &str = "SELECT pg_notify('alibi_mail', x) FROM UNNEST($1::text[]) AS x";
// A device deletes only its own envelopes (the key holds the device).
const DELETE_ACKED_SQL: &str =
    "DELETE FROM messages m USING UNNEST($1::bytea[], $2::bytea[], $3::int2[])
        AS x(guid, uuid, device)
    WHERE m.guid = x.guid AND m.uuid = x.uuid AND m.device = x.device
    RETURNING m.guid, m.shared, m.uuid, m.device, m.sender, m.size";
/// Adds to the counters of locked mailboxes (a negative change takes away).
const CHANGE_MAILBOXES_SQL: &str = "UPDATE mailboxes m
    SET messages = m.messages + x.n, bytes = m.bytes + x.b
    FROM UNNEST($1::bytea[], $2::int2[], $3::int8[], $4::int8[]) AS x(uuid, device, n, b)
    WHERE m.uuid = x.uuid AND m.device = x.device";
const CHANGE_SENDERS_SQL: &str =
    "INSERT INTO mailbox_senders (uuid, device, sender, messages, bytes)
    SELECT * FROM UNNEST($1::bytea[], $2::int2[], $3::bytea[], $4::int8[], $5::int8[])
        AS x(uuid, device, sender, n, b) ORDER BY 1, 2, 3
    ON CONFLICT (uuid, device, sender) DO UPDATE
    SET messages = mailbox_senders.messages + EXCLUDED.messages,
        bytes = mailbox_senders.bytes + EXCLUDED.bytes";
const DROP_EMPTY_SENDERS_SQL: &str = "DELETE FROM mailbox_senders s
    USING UNNEST($1::bytea[], $2::int2[], $3::bytea[]) AS x(uuid, device, sender)
    WHERE s.uuid = x.uuid AND s.device = x.device AND s.sender = x.sender AND s.messages <= 0";

/// A group's statements, prepared on its connection before the transaction borrows it.
struct Statements {
    new_boxes: tokio_postgres::Statement,
    quota: tokio_postgres::Statement,
    share: tokio_postgres::Statement,
    shared: tokio_postgres::Statement,
    messages: tokio_postgres::Statement,
    notify: tokio_postgres::Statement,
    delete: tokio_postgres::Statement,
    change: tokio_postgres::Statement,
    senders: tokio_postgres::Statement,
    drop_empty: tokio_postgres::Statement,
}

impl Statements {
    async fn prepare(c: &mut Conn) -> std::result::Result<Self, tokio_postgres::Error> {
        Ok(Self {
            new_boxes: c.prepared(NEW_MAILBOXES_SQL).await?,
            quota: c.prepared(QUOTA_SQL).await?,
            share: c.prepared(SENDER_QUOTA_SQL).await?,
            shared: c.prepared(INSERT_SHARED_SQL).await?,
            messages: c.prepared(INSERT_MESSAGES_SQL).await?,
            notify: c.prepared(NOTIFY_SQL).await?,
            delete: c.prepared(DELETE_ACKED_SQL).await?,
            change: c.prepared(CHANGE_MAILBOXES_SQL).await?,
            senders: c.prepared(CHANGE_SENDERS_SQL).await?,
            drop_empty: c.prepared(DROP_EMPTY_SENDERS_SQL).await?,
        })
    }
}

/// Changes to the counters: per mailbox, and per mailbox and sender (envelopes, bytes).
#[derive(Default)]
struct Deltas {
    mailboxes: BTreeMap<(Uuid, u8), (i64, i64)>,
    senders: BTreeMap<(Uuid, u8, Sender), (i64, i64)>,
}

impl Deltas {
    fn add(&mut self, account: Uuid, device: u8, sender: Option<Sender>, (n, b): (i64, i64)) {
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

fn sender_of(b: Option<&[u8]>) -> Option<Sender> {
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
async fn apply_deltas(
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
    let added = super::additions(keys, shared_len);
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
            let size = super::charged_size(e.len(), shared_len) as i64;
            deltas.add(*account, *device, Some(sender), (1, size));
            self.uuids.push(u(*account));
            self.devices.push(i16::from(*device));
            let guid = super::guid_bytes(env);
            self.created.push(super::id_time_ms(&guid) as i64);
            self.guids.push(guid);
            self.shareds.push(env.shared_mrm_key.clone());
            self.sizes.push(size);
            self.envelopes.push(e);
            self.senders.push(sender.0.to_vec());
        }
    }
}

/// Listens for mail notifications on a connection of its own, re-established after a failure
/// (then a [`MailSignal::Resync`], since notifications sent meanwhile are lost).
async fn listen(
    config: tokio_postgres::Config,
    node: Arc<str>,
    tx: tokio::sync::mpsc::Sender<MailSignal>,
) {
    use futures_util::StreamExt;
    let mut backoff = Duration::from_millis(100);
    loop {
        if tx.is_closed() {
            return;
        }
        if let Ok((client, mut conn)) = config.connect(NoTls).await {
            let (msg_tx, mut msgs) = tokio::sync::mpsc::unbounded_channel();
            let driver = tokio::spawn(async move {
                let mut stream = futures_util::stream::poll_fn(move |cx| conn.poll_message(cx));
                while let Some(Ok(m)) = stream.next().await {
                    if msg_tx.send(m).is_err() {
                        return;
                    }
                }
            });
            if client.batch_execute("LISTEN alibi_mail").await.is_ok()
                && tx.send(MailSignal::Resync).await.is_ok()
            {
                backoff = Duration::from_millis(100);
                loop {
                    let m = tokio::select! {
                        m = msgs.recv() => m,
                        // The relay is gone: drop the connection rather than wait for mail.
                        _ = tx.closed() => {
                            driver.abort();
                            return;
                        }
                    };
                    let Some(m) = m else { break };
                    if let tokio_postgres::AsyncMessage::Notification(n) = m {
                        if let Some(signal) = parse_signal(n.payload(), &node) {
                            if tx.send(signal).await.is_err() {
                                driver.abort();
                                return;
                            }
                        }
                    }
                }
            }
            driver.abort();
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(5));
    }
}

/// `"<node>:<uuid, 32 hex digits>:<device>"` (mail), with `":<credential fingerprint,
/// base64>"` after it (device replaced); `None` for anything else, and for this relay's own
/// notifications (it acts on its own sends and replacements directly).
fn parse_signal(payload: &str, own: &str) -> Option<MailSignal> {
    let mut parts = payload.split(':');
    let (node, a, d) = (parts.next()?, parts.next()?, parts.next()?);
    let fingerprint = parts.next();
    if node == own || parts.next().is_some() {
        return None;
    }
    let (a, d) = (Uuid::parse_str(a).ok()?, d.parse().ok()?);
    match fingerprint {
        None => Some(MailSignal::Mail(a, d)),
        Some(f) => {
            let f = alibi_relay_api::b64::decode(f)?.try_into().ok()?;
            Some(MailSignal::DeviceReplaced(a, d, f))
        }
    }
}

fn u(x: Uuid) -> Vec<u8> {
    x.as_bytes().to_vec()
}

#[async_trait]
impl RelayStore for PgRelayStore {
    fn mail_signals(&self) -> Option<tokio::sync::mpsc::Receiver<MailSignal>> {
        let (tx, rx) = tokio::sync::mpsc::channel(4096);
        tokio::spawn(listen(self.pool.config.clone(), self.node.clone(), tx));
        Some(rx)
    }

    async fn create_account(
        &self,
        account: Uuid,
        identity_key: &[u8],
        primary: DeviceInfo,
    ) -> Result<()> {
        let mut c = self.client().await?;
        let t = c.transaction().await.map_err(pg_err)?;
        let n = t
            .execute(
                "INSERT INTO accounts (uuid, identity_key) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                &[&u(account), &identity_key],
            )
            .await
            .map_err(pg_err)?;
        if n == 0 {
            return Err(Error::AccountExists);
        }
        t.execute(
            "INSERT INTO devices (uuid, device, registration_id, password_hash) VALUES ($1, $2, $3, $4)",
            &[&u(account), &i16::from(primary.device_id), &i32::from(primary.registration_id), &primary.password_hash],
        )
        .await
        .map_err(pg_err)?;
        t.commit().await.map_err(pg_err)
    }

    async fn add_device(&self, account: Uuid, device: DeviceInfo) -> Result<()> {
        let c = self.client().await?;
        // The notification goes out with the commit: other relays close the device's sockets
        // opened under its old password (a replaced device must stop receiving at once).
        let signal = format!(
            "{}:{}:{}:{}",
            self.node,
            account.simple(),
            device.device_id,
            alibi_relay_api::b64::encode(&credential_fingerprint(&device.password_hash))
        );
        let n = c
            .execute(
                "WITH d AS (INSERT INTO devices (uuid, device, registration_id, password_hash)
                 SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM accounts WHERE uuid = $1)
                 ON CONFLICT (uuid, device) DO UPDATE SET registration_id = EXCLUDED.registration_id,
                     password_hash = EXCLUDED.password_hash RETURNING 1)
                 SELECT pg_notify('alibi_mail', $5) FROM d",
                &[&u(account), &i16::from(device.device_id), &i32::from(device.registration_id), &device.password_hash, &signal],
            )
            .await
            .map_err(pg_err)?;
        if n == 0 {
            return Err(Error::NotFound("account"));
        }
        Ok(())
    }

    async fn identity_key(&self, account: Uuid) -> Result<Option<Vec<u8>>> {
        let c = self.client().await?;
        let r = c
            .query_opt(
                "SELECT identity_key FROM accounts WHERE uuid = $1",
                &[&u(account)],
            )
            .await
            .map_err(pg_err)?;
        Ok(r.map(|r| r.get(0)))
    }

    async fn set_access_key(&self, account: Uuid, key: AccessKey) -> Result<()> {
        let c = self.client().await?;
        let n = c
            .execute(
                "INSERT INTO access_keys (uuid, key)
                 SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM accounts WHERE uuid = $1)
                 ON CONFLICT (uuid) DO UPDATE SET key = EXCLUDED.key",
                &[&u(account), &&key[..]],
            )
            .await
            .map_err(pg_err)?;
        if n == 0 {
            return Err(Error::NotFound("account"));
        }
        Ok(())
    }

    async fn access_key(&self, account: Uuid) -> Result<Option<AccessKey>> {
        let c = self.client().await?;
        let r = c
            .query_opt(
                "SELECT key FROM access_keys WHERE uuid = $1",
                &[&u(account)],
            )
            .await
            .map_err(pg_err)?;
        r.map(|r| {
            let k: Vec<u8> = r.get(0);
            k.try_into()
                .map_err(|_| Error::Store("stored access key: not 16 bytes".into()))
        })
        .transpose()
    }

    async fn devices(&self, account: Uuid) -> Result<Vec<DeviceInfo>> {
        let c = self.client().await?;
        let rows = c
            .query("SELECT device, registration_id, password_hash FROM devices WHERE uuid = $1 ORDER BY device", &[&u(account)])
            .await
            .map_err(pg_err)?;
        rows.iter()
            .map(|r| {
                Ok(DeviceInfo {
                    device_id: r.get::<_, i16>(0) as u8,
                    registration_id: r.get::<_, i32>(1) as u16,
                    password_hash: r.get(2),
                })
            })
            .collect()
    }

    async fn accounts(
        &self,
        accounts: &[Uuid],
    ) -> Result<Vec<(Vec<DeviceInfo>, Option<AccessKey>)>> {
        let ids: Vec<Vec<u8>> = accounts.iter().map(|&a| u(a)).collect();
        let c = self.client().await?;
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&ids];
        // Both reads in one pipelined round trip.
        let (devices, keys) = tokio::try_join!(
            c.query(
                "SELECT uuid, device, registration_id, password_hash FROM devices
                 WHERE uuid = ANY($1) ORDER BY uuid, device",
                &params,
            ),
            c.query(
                "SELECT uuid, key FROM access_keys WHERE uuid = ANY($1)",
                &params
            ),
        )
        .map_err(pg_err)?;
        let mut found: HashMap<Vec<u8>, (Vec<DeviceInfo>, Option<AccessKey>)> = HashMap::new();
        for r in &devices {
            found.entry(r.get(0)).or_default().0.push(DeviceInfo {
                device_id: r.get::<_, i16>(1) as u8,
                registration_id: r.get::<_, i32>(2) as u16,
                password_hash: r.get(3),
            });
        }
        for r in &keys {
            let k: Vec<u8> = r.get(1);
            let k = k
                .try_into()
                .map_err(|_| Error::Store("stored access key: not 16 bytes".into()))?;
            found.entry(r.get(0)).or_default().1 = Some(k);
        }
        Ok(ids
            .iter()
            .map(|id| found.get(id).cloned().unwrap_or_default())
            .collect())
    }

    async fn upload_keys(&self, account: Uuid, device: u8, keys: KeysUpload) -> Result<()> {
        let (a, d) = (u(account), i16::from(device));
        let mut c = self.client().await?;
        let t = c.transaction().await.map_err(pg_err)?;
        if let Some(k) = &keys.signed_pre_key {
            t.execute(
                "INSERT INTO signed_keys VALUES ($1, $2, $3, $4, $5) ON CONFLICT (uuid, device) DO UPDATE
                 SET id = EXCLUDED.id, public = EXCLUDED.public, signature = EXCLUDED.signature",
                &[&a, &d, &i64::from(k.id), &k.public, &k.signature],
            )
            .await
            .map_err(pg_err)?;
        }
        if let Some(k) = &keys.pq_last_resort_pre_key {
            t.execute(
                "INSERT INTO pq_last_resort VALUES ($1, $2, $3, $4, $5) ON CONFLICT (uuid, device) DO UPDATE
                 SET id = EXCLUDED.id, public = EXCLUDED.public, signature = EXCLUDED.signature",
                &[&a, &d, &i64::from(k.id), &k.public, &k.signature],
            )
            .await
            .map_err(pg_err)?;
        }
        if let Some(k) = &keys.ringxkem_pre_key {
            t.execute(
                "INSERT INTO ringxkem_keys VALUES ($1, $2, $3, $4) ON CONFLICT (uuid, device) DO UPDATE
                 SET id = EXCLUDED.id, bundle = EXCLUDED.bundle",
                &[&a, &d, &i64::from(k.id), &k.bundle],
            )
            .await
            .map_err(pg_err)?;
        }
        for k in &keys.pre_keys {
            t.execute(
                "INSERT INTO ec_keys VALUES ($1, $2, $3, $4) ON CONFLICT (uuid, device, id) DO UPDATE SET public = EXCLUDED.public",
                &[&a, &d, &i64::from(k.id), &k.public],
            )
            .await
            .map_err(pg_err)?;
        }
        for k in &keys.pq_pre_keys {
            t.execute(
                "INSERT INTO pq_keys VALUES ($1, $2, $3, $4, $5) ON CONFLICT (uuid, device, id) DO UPDATE
                 SET public = EXCLUDED.public, signature = EXCLUDED.signature",
                &[&a, &d, &i64::from(k.id), &k.public, &k.signature],
            )
            .await
            .map_err(pg_err)?;
        }
        t.commit().await.map_err(pg_err)
    }

    async fn take_bundle(&self, account: Uuid, device: u8) -> Result<Option<DeviceBundle>> {
        let (a, d) = (u(account), i16::from(device));
        let mut c = self.client().await?;
        let t = c.transaction().await.map_err(pg_err)?;
        let Some(dev) = t
            .query_opt(
                "SELECT registration_id FROM devices WHERE uuid = $1 AND device = $2",
                &[&a, &d],
            )
            .await
            .map_err(pg_err)?
        else {
            return Ok(None);
        };
        let Some(signed) = t
            .query_opt(
                "SELECT id, public, signature FROM signed_keys WHERE uuid = $1 AND device = $2",
                &[&a, &d],
            )
            .await
            .map_err(pg_err)?
        else {
            return Ok(None);
        };
        let ec = t
            .query_opt(
                "DELETE FROM ec_keys WHERE (uuid, device, id) = (SELECT uuid, device, id FROM ec_keys
                 WHERE uuid = $1 AND device = $2 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id, public",
                &[&a, &d],
            )
            .await
            .map_err(pg_err)?;
        let pq = t
            .query_opt(
                "DELETE FROM pq_keys WHERE (uuid, device, id) = (SELECT uuid, device, id FROM pq_keys
                 WHERE uuid = $1 AND device = $2 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id, public, signature",
                &[&a, &d],
            )
            .await
            .map_err(pg_err)?;
        let pq = match pq {
            Some(r) => r,
            None => match t
                .query_opt("SELECT id, public, signature FROM pq_last_resort WHERE uuid = $1 AND device = $2", &[&a, &d])
                .await
                .map_err(pg_err)?
            {
                Some(r) => r,
                None => return Ok(None),
            },
        };
        let ringxkem = t
            .query_opt(
                "SELECT id, bundle FROM ringxkem_keys WHERE uuid = $1 AND device = $2",
                &[&a, &d],
            )
            .await
            .map_err(pg_err)?
            .map(|r| RingXkemKey {
                id: r.get::<_, i64>(0) as u32,
                bundle: r.get(1),
            });
        let signed_key = |r: &tokio_postgres::Row| SignedKey {
            id: r.get::<_, i64>(0) as u32,
            public: r.get(1),
            signature: r.get(2),
        };
        let bundle = DeviceBundle {
            device_id: device,
            registration_id: dev.get::<_, i32>(0) as u16,
            signed_pre_key: signed_key(&signed),
            pre_key: ec.map(|r| OneTimeKey {
                id: r.get::<_, i64>(0) as u32,
                public: r.get(1),
            }),
            pq_pre_key: Some(signed_key(&pq)),
            ringxkem_pre_key: ringxkem,
        };
        t.commit().await.map_err(pg_err)?;
        Ok(Some(bundle))
    }

    async fn key_counts(&self, account: Uuid, device: u8) -> Result<(usize, usize)> {
        let (a, d) = (u(account), i16::from(device));
        let c = self.client().await?;
        let r = c
            .query_one(
                "SELECT (SELECT count(*) FROM ec_keys WHERE uuid = $1 AND device = $2),
                        (SELECT count(*) FROM pq_keys WHERE uuid = $1 AND device = $2)",
                &[&a, &d],
            )
            .await
            .map_err(pg_err)?;
        Ok((r.get::<_, i64>(0) as usize, r.get::<_, i64>(1) as usize))
    }

    async fn enqueue(
        &self,
        deliveries: Vec<Delivery>,
        shared: Option<(Uuid, Vec<u8>)>,
        sender: Sender,
        quota: MailboxQuota,
    ) -> Result<()> {
        let (done, rx) = oneshot::channel();
        self.write(Write::Enqueue {
            deliveries,
            shared,
            sender,
            quota,
            done,
        })?;
        rx.await.map_err(|_| stopped())?
    }

    async fn pending(&self, account: Uuid, device: u8, limit: usize) -> Result<Vec<Envelope>> {
        let mut c = self.client().await?;
        let st = c
            .prepared(
                "SELECT envelope FROM messages WHERE uuid = $1 AND device = $2 ORDER BY seq LIMIT $3",
            )
            .await
            .map_err(pg_err)?;
        let rows = c
            .query(&st, &[&u(account), &i16::from(device), &(limit as i64)])
            .await
            .map_err(pg_err)?;
        rows.iter()
            .map(|r| {
                Envelope::decode(r.get::<_, &[u8]>(0)).map_err(|e| Error::Store(e.to_string()))
            })
            .collect()
    }

    async fn shared(&self, key: Uuid) -> Result<Option<Vec<u8>>> {
        let c = self.client().await?;
        let r = c
            .query_opt("SELECT data FROM shared_mrm WHERE key = $1", &[&u(key)])
            .await
            .map_err(pg_err)?;
        Ok(r.map(|r| r.get(0)))
    }

    async fn ack(&self, account: Uuid, device: u8, guid: Uuid) -> Result<bool> {
        let (done, rx) = oneshot::channel();
        self.write(Write::Ack {
            account,
            device,
            guid,
            done,
        })?;
        rx.await.map_err(|_| stopped())?
    }

    async fn queued(&self) -> Result<u64> {
        let c = self.client().await?;
        // The kept counters: a row per mailbox, not per envelope.
        let r = c
            .query_one(
                "SELECT coalesce(sum(messages), 0)::int8 FROM mailboxes",
                &[],
            )
            .await
            .map_err(pg_err)?;
        Ok(r.get::<_, i64>(0).max(0) as u64)
    }

    async fn mailbox_usage(
        &self,
        account: Uuid,
        device: u8,
        sender: Sender,
    ) -> Result<MailboxUsage> {
        let c = self.client().await?;
        let r = c
            .query_one(
                "SELECT (SELECT messages FROM mailboxes WHERE uuid = $1 AND device = $2),
                        (SELECT bytes FROM mailboxes WHERE uuid = $1 AND device = $2),
                        (SELECT messages FROM mailbox_senders
                            WHERE uuid = $1 AND device = $2 AND sender = $3),
                        (SELECT bytes FROM mailbox_senders
                            WHERE uuid = $1 AND device = $2 AND sender = $3)",
                &[&u(account), &i16::from(device), &&sender.0[..]],
            )
            .await
            .map_err(pg_err)?;
        let get = |i| r.get::<_, Option<i64>>(i).unwrap_or(0).max(0) as u64;
        Ok(MailboxUsage {
            messages: get(0),
            bytes: get(1),
            sender_messages: get(2),
            sender_bytes: get(3),
        })
    }

    async fn expire(&self, before_ms: u64) -> Result<u64> {
        let before = clamp(before_ms);
        let mut c = self.client().await?;
        let st = Statements::prepare(&mut c).await.map_err(pg_err)?;
        let t = c.transaction().await.map_err(pg_err)?;
        // The counters of the mailboxes concerned are locked first, in key order, as a group
        // commit locks them: the two wait for each other rather than deadlock.
        t.execute(
            "SELECT 1 FROM mailboxes m WHERE (m.uuid, m.device) IN
                (SELECT DISTINCT uuid, device FROM messages WHERE created < $1)
             ORDER BY m.uuid, m.device FOR UPDATE",
            &[&before],
        )
        .await
        .map_err(pg_err)?;
        let rows = t
            .query(
                "WITH gone AS (DELETE FROM messages WHERE created < $1
                     RETURNING uuid, device, sender, size, shared)
                 SELECT uuid, device, sender, shared, count(*), coalesce(sum(size), 0)::int8
                 FROM gone GROUP BY uuid, device, sender, shared",
                &[&before],
            )
            .await
            .map_err(pg_err)?;
        let mut n = 0;
        let mut released = BTreeMap::new();
        let mut deltas = Deltas::default();
        for r in rows {
            let count: i64 = r.get(4);
            n += count as u64;
            if let Some(key) = r.get::<_, Option<Vec<u8>>>(3) {
                *released.entry(key).or_default() += count as i32;
            }
            let a = Uuid::from_slice(r.get(0)).map_err(|e| Error::Store(e.to_string()))?;
            let d = r.get::<_, i16>(1) as u8;
            deltas.add(a, d, sender_of(r.get(2)), (-count, -r.get::<_, i64>(5)));
        }
        release_shared(&t, released).await.map_err(pg_err)?;
        apply_deltas(&st, &t, deltas).await.map_err(pg_err)?;
        t.commit().await.map_err(pg_err)?;
        Ok(n)
    }
}

/// Drops references to shared multi-recipient parts (key -> how many), and each part with its
/// last one. The rows are locked in order of key first, so two transactions releasing the same
/// parts cannot deadlock.
async fn release_shared(
    t: &tokio_postgres::Transaction<'_>,
    released: std::collections::BTreeMap<Vec<u8>, i32>,
) -> std::result::Result<(), tokio_postgres::Error> {
    if released.is_empty() {
        return Ok(());
    }
    let (keys, counts): (Vec<Vec<u8>>, Vec<i32>) = released.into_iter().unzip();
    t.execute(
        "SELECT 1 FROM shared_mrm WHERE key = ANY($1) ORDER BY key FOR UPDATE",
        &[&keys],
    )
    .await?;
    t.execute(
        "UPDATE shared_mrm s SET refs = s.refs - x.n FROM UNNEST($1::bytea[], $2::int4[]) AS x(key, n)
         WHERE s.key = x.key",
        &[&keys, &counts],
    )
    .await?;
    t.execute(
        "DELETE FROM shared_mrm WHERE key = ANY($1) AND refs <= 0",
        &[&keys],
    )
    .await?;
    Ok(())
}

fn clamp(x: u64) -> i64 {
    x.min(i64::MAX as u64) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relay_ignores_its_own_notifications_and_malformed_ones() {
        let a = Uuid::new_v4();
        let payload = format!("0011223344556677:{}:3", a.simple());
        assert_eq!(
            parse_signal(&payload, "8899aabbccddeeff"),
            Some(MailSignal::Mail(a, 3))
        );
        assert_eq!(parse_signal(&payload, "0011223344556677"), None);
        for bad in [
            format!("{}:3", a.simple()),
            format!("n:{}:3:4", a.simple()),
            format!("n:{}:300", a.simple()),
            "n:not-a-uuid:1".to_string(),
        ] {
            assert_eq!(parse_signal(&bad, "x"), None, "{bad}");
        }
        let f = credential_fingerprint("$argon2id$v=19$m=8,t=1,p=1$c2FsdA$aGFzaA");
        let replaced = format!("n:{}:2:{}", a.simple(), alibi_relay_api::b64::encode(&f));
        assert_eq!(
            parse_signal(&replaced, "x"),
            Some(MailSignal::DeviceReplaced(a, 2, f))
        );
    }
}
