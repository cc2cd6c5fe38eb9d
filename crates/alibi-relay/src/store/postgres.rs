//! The PostgreSQL backend: the scale-out path, several relay processes on one database. Every
//! trait method is one transaction; one-time keys are taken with `FOR UPDATE SKIP LOCKED`, so two
//! relays never hand out the same key; the shared part of a multi-recipient send carries a
//! reference count that row locks keep exact.

use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use prost::Message as _;
use tokio::sync::Mutex;
use tokio_postgres::{Client, NoTls};
use uuid::Uuid;

use super::{Delivery, DeviceBundle, DeviceInfo, KeysUpload, OneTimeKey, RelayStore, SignedKey};
use crate::{Error, Result};
use alibi_relay_api::access::AccessKey;
use alibi_relay_api::proto::Envelope;

/// Connections per store: enough for both cores' worth of concurrent requests.
const POOL: usize = 4;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS accounts (uuid BYTEA PRIMARY KEY, identity_key BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS access_keys (uuid BYTEA PRIMARY KEY, key BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS devices (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, registration_id INT NOT NULL,
    secret_hash BYTEA NOT NULL, PRIMARY KEY (uuid, device));
CREATE TABLE IF NOT EXISTS signed_keys (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, id BIGINT NOT NULL,
    public BYTEA NOT NULL, signature BYTEA NOT NULL, PRIMARY KEY (uuid, device));
CREATE TABLE IF NOT EXISTS ec_keys (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, id BIGINT NOT NULL,
    public BYTEA NOT NULL, PRIMARY KEY (uuid, device, id));
CREATE TABLE IF NOT EXISTS pq_keys (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, id BIGINT NOT NULL,
    public BYTEA NOT NULL, signature BYTEA NOT NULL, PRIMARY KEY (uuid, device, id));
CREATE TABLE IF NOT EXISTS pq_last_resort (uuid BYTEA NOT NULL, device SMALLINT NOT NULL, id BIGINT NOT NULL,
    public BYTEA NOT NULL, signature BYTEA NOT NULL, PRIMARY KEY (uuid, device));
CREATE TABLE IF NOT EXISTS messages (seq BIGSERIAL PRIMARY KEY, uuid BYTEA NOT NULL, device SMALLINT NOT NULL,
    guid BYTEA NOT NULL UNIQUE, shared BYTEA, envelope BYTEA NOT NULL);
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
            // Two relays starting together must not race on CREATE TABLE.
            let c = pool[0].lock().await;
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

fn u(x: Uuid) -> Vec<u8> {
    x.as_bytes().to_vec()
}

#[async_trait]
impl RelayStore for PgRelayStore {
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
            "INSERT INTO devices (uuid, device, registration_id, secret_hash) VALUES ($1, $2, $3, $4)",
            &[&u(account), &i16::from(primary.device_id), &i32::from(primary.registration_id), &&primary.secret_hash[..]],
        )
        .await
        .map_err(pg_err)?;
        t.commit().await.map_err(pg_err)
    }

    async fn add_device(&self, account: Uuid, device: DeviceInfo) -> Result<()> {
        let c = self.client().await?;
        let n = c
            .execute(
                "INSERT INTO devices (uuid, device, registration_id, secret_hash)
                 SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM accounts WHERE uuid = $1)
                 ON CONFLICT (uuid, device) DO UPDATE SET registration_id = EXCLUDED.registration_id,
                     secret_hash = EXCLUDED.secret_hash",
                &[&u(account), &i16::from(device.device_id), &i32::from(device.registration_id), &&device.secret_hash[..]],
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
            .query("SELECT device, registration_id, secret_hash FROM devices WHERE uuid = $1 ORDER BY device", &[&u(account)])
            .await
            .map_err(pg_err)?;
        rows.iter()
            .map(|r| {
                let h: Vec<u8> = r.get(2);
                Ok(DeviceInfo {
                    device_id: r.get::<_, i16>(0) as u8,
                    registration_id: r.get::<_, i32>(1) as u16,
                    secret_hash: h
                        .try_into()
                        .map_err(|_| Error::Store("secret hash".into()))?,
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
    ) -> Result<()> {
        let mut c = self.client().await?;
        let t = c.transaction().await.map_err(pg_err)?;
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
        let mut envelopes = Vec::with_capacity(deliveries.len());
        for (account, device, env) in &deliveries {
            uuids.push(u(*account));
            devices.push(i16::from(*device));
            guids.push(super::guid_bytes(env));
            shareds.push(env.shared_mrm_key.clone());
            envelopes.push(env.encode_to_vec());
        }
        // One statement for the whole batch, in the given order.
        t.execute(
            "INSERT INTO messages (uuid, device, guid, shared, envelope)
             SELECT x.uuid, x.device, x.guid, x.shared, x.envelope
             FROM UNNEST($1::bytea[], $2::int2[], $3::bytea[], $4::bytea[], $5::bytea[])
             WITH ORDINALITY AS x(uuid, device, guid, shared, envelope, n) ORDER BY n",
            &[&uuids, &devices, &guids, &shareds, &envelopes],
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
            let left = t
                .query_opt(
                    "UPDATE shared_mrm SET refs = refs - 1 WHERE key = $1 RETURNING refs",
                    &[&key],
                )
                .await
                .map_err(pg_err)?;
            if left.is_some_and(|r| r.get::<_, i32>(0) <= 0) {
                t.execute("DELETE FROM shared_mrm WHERE key = $1", &[&key])
                    .await
                    .map_err(pg_err)?;
            }
        }
        t.commit().await.map_err(pg_err)?;
        Ok(true)
    }
}
