//! The PostgreSQL backend: the scale-out path, several relay processes on one database. Every
//! trait method is one transaction; one-time keys are taken with `FOR UPDATE SKIP LOCKED`, so two
//! relays never hand out the same key; the shared part of a multi-recipient send carries a
//! reference count that row locks keep exact.

use std::time::Duration;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use prost::Message as _;
use tokio::sync::Mutex;
use tokio_postgres::{Client, NoTls};
use uuid::Uuid;

use super::{
    Delivery, DeviceBundle, DeviceInfo, KeysUpload, MailSignal, MailboxQuota, OneTimeKey,
    RelayStore, RingXkemKey, SignedKey,
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
";

fn pg_err(e: tokio_postgres::Error) -> Error {
    match e.as_db_error() {
        Some(d) => Error::Store(format!("postgres: {}", d.message())),
        None => Error::Store(format!("postgres: {e}")),
    }
}

/// The PostgreSQL relay store.
pub struct PgRelayStore {
    config: tokio_postgres::Config,
    pool: Vec<Mutex<Client>>,
    next: AtomicUsize,
}

async fn open(config: &tokio_postgres::Config) -> Result<Client> {
    let (client, conn) = config.connect(NoTls).await.map_err(pg_err)?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    Ok(client)
}

impl PgRelayStore {
    /// Connects (a small pool) and creates the schema if it is missing. `url` is a libpq
    /// connection string, URL (`postgresql://user@host:port/db`) or `key=value` form.
    pub async fn connect(url: &str) -> Result<Self> {
        let config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| Error::Store(format!("postgres: {e}")))?;
        let mut pool = Vec::with_capacity(POOL);
        for _ in 0..POOL {
            pool.push(Mutex::new(open(&config).await?));
        }
        {
            let c = pool[0].lock().await;
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
                "SELECT pg_advisory_lock(424242); {SCHEMA} SELECT pg_advisory_unlock(424242);"
            ))
            .await
            .map_err(pg_err)?;
        }
        Ok(Self {
            config,
            pool,
            next: AtomicUsize::new(0),
        })
    }

    /// An idle connection if there is one (else the next in turn, once free), reopened if the
    /// server closed it (a restart, or a dropped TCP connection): the failed request's error has
    /// already gone to its caller, the next one gets a fresh connection.
    async fn client(&self) -> Result<tokio::sync::MutexGuard<'_, Client>> {
        let n = self.pool.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let mut guard = None;
        for i in 0..n {
            if let Ok(g) = self.pool[(start + i) % n].try_lock() {
                guard = Some(g);
                break;
            }
        }
        let mut guard = match guard {
            Some(g) => g,
            None => self.pool[start % n].lock().await,
        };
        if guard.is_closed() {
            *guard = open(&self.config).await?;
        }
        Ok(guard)
    }
}

/// Listens for mail notifications on a connection of its own, re-established after a failure
/// (then a [`MailSignal::Resync`], since notifications sent meanwhile are lost).
async fn listen(config: tokio_postgres::Config, tx: tokio::sync::mpsc::Sender<MailSignal>) {
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
                        if let Some(signal) = parse_signal(n.payload()) {
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

/// `"<uuid, 32 hex digits>:<device>"`.
fn parse_signal(payload: &str) -> Option<MailSignal> {
    let (a, d) = payload.split_once(':')?;
    Some(MailSignal::Mail(Uuid::parse_str(a).ok()?, d.parse().ok()?))
}

fn u(x: Uuid) -> Vec<u8> {
    x.as_bytes().to_vec()
}

#[async_trait]
impl RelayStore for PgRelayStore {
    fn mail_signals(&self) -> Option<tokio::sync::mpsc::Receiver<MailSignal>> {
        let (tx, rx) = tokio::sync::mpsc::channel(4096);
        tokio::spawn(listen(self.config.clone(), tx));
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
        let n = c
            .execute(
                "INSERT INTO devices (uuid, device, registration_id, password_hash)
                 SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM accounts WHERE uuid = $1)
                 ON CONFLICT (uuid, device) DO UPDATE SET registration_id = EXCLUDED.registration_id,
                     password_hash = EXCLUDED.password_hash",
                &[&u(account), &i16::from(device.device_id), &i32::from(device.registration_id), &device.password_hash],
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
        quota: MailboxQuota,
    ) -> Result<()> {
        let shared_len = shared.as_ref().map_or(0, |(_, b)| b.len());
        let encoded: Vec<Vec<u8>> = deliveries
            .iter()
            .map(|(.., env)| env.encode_to_vec())
            .collect();
        let mut added: HashMap<(Uuid, u8), (i64, i64)> = HashMap::new();
        for ((account, device, _), e) in deliveries.iter().zip(&encoded) {
            let a = added.entry((*account, *device)).or_default();
            a.0 += 1;
            a.1 += super::charged_size(e.len(), shared_len) as i64;
        }
        let mut c = self.client().await?;
        let t = c.transaction().await.map_err(pg_err)?;
        if quota != MailboxQuota::UNLIMITED {
            // Two relays sending to one device at once may both pass (the check is not
            // serialised): the quota can be passed by at most one request per relay.
            let (mut qa, mut qd, mut qn, mut qb) = (vec![], vec![], vec![], vec![]);
            for ((a, d), (n, b)) in &added {
                qa.push(u(*a));
                qd.push(i16::from(*d));
                qn.push(*n);
                qb.push(*b);
            }
            let full = t
                .query_opt(
                    "SELECT d.uuid, d.device FROM UNNEST($1::bytea[], $2::int2[], $3::int8[], $4::int8[])
                         AS d(uuid, device, n, bytes)
                     CROSS JOIN LATERAL (SELECT count(*) AS c, coalesce(sum(m.size), 0)::int8 AS b
                         FROM messages m WHERE m.uuid = d.uuid AND m.device = d.device) AS cur
                     WHERE cur.c + d.n > $5 OR cur.b + d.bytes > $6 LIMIT 1",
                    &[&qa, &qd, &qn, &qb, &clamp(quota.messages), &clamp(quota.bytes)],
                )
                .await
                .map_err(pg_err)?;
            if let Some(r) = full {
                let a = Uuid::from_slice(r.get::<_, &[u8]>(0))
                    .map_err(|e| Error::Store(e.to_string()))?;
                return Err(Error::MailboxFull(a, r.get::<_, i16>(1) as u8));
            }
        }
        if let Some((key, data)) = &shared {
            t.execute(
                "INSERT INTO shared_mrm (key, refs, data) VALUES ($1, $2, $3)",
                &[&u(*key), &(deliveries.len() as i32), data],
            )
            .await
            .map_err(pg_err)?;
        }
        let mut uuids = Vec::with_capacity(deliveries.len());
        let mut devices = Vec::with_capacity(deliveries.len());
        let mut guids = Vec::with_capacity(deliveries.len());
        let mut shareds: Vec<Option<Vec<u8>>> = Vec::with_capacity(deliveries.len());
        let mut sizes = Vec::with_capacity(deliveries.len());
        let mut created = Vec::with_capacity(deliveries.len());
        for (account, device, env) in &deliveries {
            uuids.push(u(*account));
            devices.push(i16::from(*device));
            let guid = super::guid_bytes(env);
            created.push(super::id_time_ms(&guid) as i64);
            guids.push(guid);
            shareds.push(env.shared_mrm_key.clone());
        }
        for e in &encoded {
            sizes.push(super::charged_size(e.len(), shared_len) as i64);
        }
        // Every relay process listening on the database hears, at commit, which mailboxes got mail
        // (one notification per device; PostgreSQL folds duplicates within a transaction).
        let mut targets: Vec<String> = deliveries
            .iter()
            .map(|(a, d, _)| format!("{}:{d}", a.simple()))
            .collect();
        targets.sort();
        targets.dedup();
        t.execute(
            "SELECT pg_notify('alibi_mail', x) FROM UNNEST($1::text[]) AS x",
            &[&targets],
        )
        .await
        .map_err(pg_err)?;
        // One statement for the whole batch, in the given order.
        t.execute(
            "INSERT INTO messages (uuid, device, guid, shared, envelope, size, created)
             SELECT x.uuid, x.device, x.guid, x.shared, x.envelope, x.size, x.created
             FROM UNNEST($1::bytea[], $2::int2[], $3::bytea[], $4::bytea[], $5::bytea[], $6::int8[],
                 $7::int8[])
             WITH ORDINALITY AS x(uuid, device, guid, shared, envelope, size, created, n) ORDER BY n",
            &[&uuids, &devices, &guids, &shareds, &encoded, &sizes, &created],
        )
        .await
        .map_err(pg_err)?;
        t.commit().await.map_err(pg_err)
    }

    async fn pending(&self, account: Uuid, device: u8, limit: usize) -> Result<Vec<Envelope>> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT envelope FROM messages WHERE uuid = $1 AND device = $2 ORDER BY seq LIMIT $3",
                &[&u(account), &i16::from(device), &(limit as i64)],
            )
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
        let mut c = self.client().await?;
        let t = c.transaction().await.map_err(pg_err)?;
        let r = t
            .query_opt(
                "DELETE FROM messages WHERE guid = $1 AND uuid = $2 AND device = $3 RETURNING shared",
                &[&u(guid), &u(account), &i16::from(device)],
            )
            .await
            .map_err(pg_err)?;
        let Some(r) = r else {
            return Ok(false);
        };
        if let Some(key) = r.get::<_, Option<Vec<u8>>>(0) {
            release_shared(&t, &key, 1).await?;
        }
        t.commit().await.map_err(pg_err)?;
        Ok(true)
    }

    async fn queued(&self) -> Result<u64> {
        let c = self.client().await?;
        let r = c
            .query_one("SELECT count(*) FROM messages", &[])
            .await
            .map_err(pg_err)?;
        Ok(r.get::<_, i64>(0) as u64)
    }

    async fn expire(&self, before_ms: u64) -> Result<u64> {
        let mut c = self.client().await?;
        let t = c.transaction().await.map_err(pg_err)?;
        let rows = t
            .query(
                "WITH gone AS (DELETE FROM messages WHERE created < $1 RETURNING shared)
                 SELECT shared, count(*) FROM gone GROUP BY shared",
                &[&clamp(before_ms)],
            )
            .await
            .map_err(pg_err)?;
        let mut n = 0;
        for r in rows {
            let count: i64 = r.get(1);
            n += count as u64;
            if let Some(key) = r.get::<_, Option<Vec<u8>>>(0) {
                release_shared(&t, &key, count as i32).await?;
            }
        }
        t.commit().await.map_err(pg_err)?;
        Ok(n)
    }
}

/// Drops `n` references to a shared multi-recipient part, and the part with its last one.
async fn release_shared(t: &tokio_postgres::Transaction<'_>, key: &[u8], n: i32) -> Result<()> {
    let left = t
        .query_opt(
            "UPDATE shared_mrm SET refs = refs - $2 WHERE key = $1 RETURNING refs",
            &[&key, &n],
        )
        .await
        .map_err(pg_err)?;
    if left.is_some_and(|r| r.get::<_, i32>(0) <= 0) {
        t.execute("DELETE FROM shared_mrm WHERE key = $1", &[&key])
            .await
            .map_err(pg_err)?;
    }
    Ok(())
}

fn clamp(x: u64) -> i64 {
    x.min(i64::MAX as u64) as i64
}
