//! The PostgreSQL backend: the scale-out path, several relay processes on one database. Every
//! trait method is one transaction; one-time keys are taken with `FOR UPDATE SKIP LOCKED`, so two
//! relays never hand out the same key; the shared part of a multi-recipient send carries a
//! reference count that row locks keep exact.
//!
//! * `writer`: the group commit of enqueues and acknowledgements (quota checked under the
//!   mailboxes' row locks);
//! * `statements`: the group commit's SQL, prepared per connection;
//! * `notify`: mail notifications between relay nodes (`LISTEN alibi_mail`).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use prost::Message as _;
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, Mutex};
use tokio_postgres::{Client, NoTls};
use uuid::Uuid;

use super::{
    credential_fingerprint, Delivery, DeviceBundle, DeviceInfo, KeysUpload, MailSignal,
    MailboxQuota, MailboxUsage, OneTimeKey, RelayStore, RingXkemKey, Sender, SignedKey,
};
use crate::{Error, Result};
use alibi_relay_api::access::AccessKey;
use alibi_relay_api::proto::Envelope;

mod migrations;
mod notify;
mod statements;
mod writer;

use notify::listen;
use statements::Statements;
use writer::{apply_deltas, sender_of, writer, Deltas, Write};

/// Connections per store: enough for both cores' worth of concurrent requests.
const POOL: usize = 4;

fn pg_err(e: tokio_postgres::Error) -> Error {
    match e.as_db_error() {
        Some(d) => Error::Store(format!("postgres: {}", d.message())),
        None => Error::Store(format!("postgres: {e}")),
    }
}

fn parse_url(url: &str) -> Result<tokio_postgres::Config> {
    url.parse()
        .map_err(|e| Error::Store(format!("postgres: {e}")))
}

/// Whether a connection string (URL or `key=value` form) holds a password, which a settings
/// file must not: it would sit in clear beside every other setting.
pub fn holds_password(url: &str) -> Result<bool> {
    Ok(parse_url(url)?.get_password().is_some())
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
    /// Connects (a small pool), and creates the schema if it is missing or upgrades an older one
    /// (`migrations`; a database newer than this relay is refused). `url` is a libpq
    /// connection string, URL (`postgresql://user@host:port/db`) or `key=value` form.
    pub async fn connect(url: &str) -> Result<Self> {
        Self::connect_with_password(url, None).await
    }

    /// [`connect`](Self::connect), with the password given apart from the connection string
    /// (read from a file or the environment, so it appears in no command line or settings file).
    pub async fn connect_with_password(url: &str, password: Option<&str>) -> Result<Self> {
        let mut config = parse_url(url)?;
        if let Some(p) = password {
            config.password(p);
        }
        let mut clients = Vec::with_capacity(POOL);
        for _ in 0..POOL {
            clients.push(Mutex::new(open(&config).await?));
        }
        {
            let mut c = clients[0].lock().await;
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
            migrations::open_layout(&mut c).await?;
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
    use super::notify::parse_signal;
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
