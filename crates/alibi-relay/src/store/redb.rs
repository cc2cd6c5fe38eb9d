//! The embedded backend: one redb file. Envelope writes and acknowledgements go through one writer
//! task that commits whatever has queued up in a single durable transaction (group commit), so a
//! sender is answered only after its envelopes are on disk, and many concurrent senders share the
//! cost of one fsync.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use prost::Message as _;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::{Delivery, DeviceBundle, DeviceInfo, KeysUpload, OneTimeKey, RelayStore, SignedKey};
use crate::{Error, Result};
use alibi_relay_api::access::AccessKey;
use alibi_relay_api::proto::Envelope;

const ACCOUNTS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("accounts");
const ACCESS_KEYS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("access_keys");
const DEVICES: TableDefinition<&[u8], &[u8]> = TableDefinition::new("devices");
const SIGNED: TableDefinition<&[u8], &[u8]> = TableDefinition::new("signed_pre_keys");
const EC_KEYS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("ec_pre_keys");
const PQ_KEYS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("pq_pre_keys");
const LAST_RESORT: TableDefinition<&[u8], &[u8]> = TableDefinition::new("pq_last_resort");
const MESSAGES: TableDefinition<&[u8], &[u8]> = TableDefinition::new("messages");
const SHARED: TableDefinition<&[u8], &[u8]> = TableDefinition::new("shared_mrm");

fn db_err(e: impl core::fmt::Display) -> Error {
    Error::Store(e.to_string())
}

fn dev_key(account: Uuid, device: u8) -> [u8; 17] {
    let mut k = [0u8; 17];
    k[..16].copy_from_slice(account.as_bytes());
    k[16] = device;
    k
}

fn sub_key(prefix: &[u8; 17], tail: &[u8]) -> Vec<u8> {
    [&prefix[..], tail].concat()
}

/// The key range of everything under one device prefix (tails are at most 16 bytes: a key id, or
/// a message id, which grows with time so a mailbox reads in arrival order).
fn prefix_range(prefix: &[u8; 17]) -> (Vec<u8>, Vec<u8>) {
    (prefix.to_vec(), [&prefix[..], &[0xFF; 17][..]].concat())
}

fn encode_signed(k: &SignedKey) -> Vec<u8> {
    let mut v = Vec::with_capacity(8 + k.public.len() + k.signature.len());
    v.extend_from_slice(&k.id.to_be_bytes());
    v.extend_from_slice(&(k.public.len() as u32).to_be_bytes());
    v.extend_from_slice(&k.public);
    v.extend_from_slice(&k.signature);
    v
}

fn decode_signed(b: &[u8]) -> Result<SignedKey> {
    let bad = || Error::Store("corrupt signed key".into());
    let id = u32::from_be_bytes(b.get(..4).ok_or_else(bad)?.try_into().expect("4"));
    let n = u32::from_be_bytes(b.get(4..8).ok_or_else(bad)?.try_into().expect("4")) as usize;
    let public = b.get(8..8 + n).ok_or_else(bad)?.to_vec();
    Ok(SignedKey {
        id,
        public,
        signature: b[8 + n..].to_vec(),
    })
}

enum WriteOp {
    Enqueue(
        Vec<Delivery>,
        Option<(Uuid, Vec<u8>)>,
        oneshot::Sender<Result<()>>,
    ),
    Ack(Uuid, u8, Uuid, oneshot::Sender<Result<bool>>),
}

/// The redb relay store.
#[derive(Clone)]
pub struct RedbRelayStore {
    db: Arc<Database>,
    writer: mpsc::UnboundedSender<WriteOp>,
}

impl RedbRelayStore {
    /// Creates or opens the store file and starts its writer (needs a Tokio runtime).
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let db = Arc::new(Database::create(path).map_err(db_err)?);
        let t = db.begin_write().map_err(db_err)?;
        for def in [
            ACCOUNTS,
            ACCESS_KEYS,
            DEVICES,
            SIGNED,
            EC_KEYS,
            PQ_KEYS,
            LAST_RESORT,
            MESSAGES,
            SHARED,
        ] {
            t.open_table(def).map_err(db_err)?;
        }
        t.commit().map_err(db_err)?;
        let (writer, rx) = mpsc::unbounded_channel();
        let wdb = db.clone();
        std::thread::Builder::new()
            .name("relay-redb-writer".into())
            .spawn(move || writer_loop(wdb, rx))
            .map_err(db_err)?;
        Ok(Self { db, writer })
    }

    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Database) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || f(&db))
            .await
            .map_err(db_err)?
    }
}

/// Commits every queued write in one transaction, then answers each.
fn writer_loop(db: Arc<Database>, mut rx: mpsc::UnboundedReceiver<WriteOp>) {
    while let Some(first) = rx.blocking_recv() {
        let mut ops = vec![first];
        while ops.len() < 4096 {
            match rx.try_recv() {
                Ok(op) => ops.push(op),
                Err(_) => break,
            }
        }
        let mut results: Vec<std::result::Result<bool, String>> = Vec::with_capacity(ops.len());
        let outcome = (|| -> Result<()> {
            let t = db.begin_write().map_err(db_err)?;
            {
                let mut messages = t.open_table(MESSAGES).map_err(db_err)?;
                let mut shared_t = t.open_table(SHARED).map_err(db_err)?;
                for op in &ops {
                    match op {
                        WriteOp::Enqueue(items, shared, _) => {
                            if let Some((key, bytes)) = shared {
                                // Shared part: 4-byte reference count, then the bytes.
                                let mut v = (items.len() as u32).to_be_bytes().to_vec();
                                v.extend_from_slice(bytes);
                                shared_t
                                    .insert(&key.as_bytes()[..], &v[..])
                                    .map_err(db_err)?;
                            }
                            for (account, device, env) in items {
                                let k =
                                    sub_key(&dev_key(*account, *device), &super::guid_bytes(env));
                                messages
                                    .insert(&k[..], &env.encode_to_vec()[..])
                                    .map_err(db_err)?;
                            }
                            results.push(Ok(true));
                        }
                        WriteOp::Ack(account, device, guid, _) => {
                            // The key holds the device, so a device can only remove its own.
                            let k = sub_key(&dev_key(*account, *device), guid.as_bytes());
                            let env = messages
                                .remove(&k[..])
                                .map_err(db_err)?
                                .map(|v| v.value().to_vec());
                            let Some(env) = env else {
                                results.push(Ok(false));
                                continue;
                            };
                            if let Some(key) = Envelope::decode(&env[..])
                                .ok()
                                .and_then(|e| e.shared_mrm_key)
                            {
                                release_shared(&mut shared_t, &key)?;
                            }
                            results.push(Ok(true));
                        }
                    }
                }
            }
            t.commit().map_err(db_err)
        })();
        for (op, r) in ops
            .into_iter()
            .zip(results.into_iter().chain(std::iter::repeat(Ok(false))))
        {
            let r = match &outcome {
                Ok(()) => r.map_err(Error::Store),
                Err(e) => Err(Error::Store(e.to_string())),
            };
            match op {
                WriteOp::Enqueue(_, _, tx) => {
                    let _ = tx.send(r.map(|_| ()));
                }
                WriteOp::Ack(_, _, _, tx) => {
                    let _ = tx.send(r);
                }
            }
        }
    }
}

#[async_trait]
impl RelayStore for RedbRelayStore {
    async fn create_account(
        &self,
        account: Uuid,
        identity_key: &[u8],
        primary: DeviceInfo,
    ) -> Result<()> {
        let ik = identity_key.to_vec();
        self.blocking(move |db| {
            let t = db.begin_write().map_err(db_err)?;
            {
                let mut accounts = t.open_table(ACCOUNTS).map_err(db_err)?;
                if accounts
                    .get(&account.as_bytes()[..])
                    .map_err(db_err)?
                    .is_some()
                {
                    return Err(Error::AccountExists);
                }
                accounts
                    .insert(&account.as_bytes()[..], &ik[..])
                    .map_err(db_err)?;
                put_device(&t, account, &primary)?;
            }
            t.commit().map_err(db_err)
        })
        .await
    }

    async fn add_device(&self, account: Uuid, device: DeviceInfo) -> Result<()> {
        self.blocking(move |db| {
            let t = db.begin_write().map_err(db_err)?;
            require_account(&t, account)?;
            put_device(&t, account, &device)?;
            t.commit().map_err(db_err)
        })
        .await
    }

    async fn identity_key(&self, account: Uuid) -> Result<Option<Vec<u8>>> {
        self.blocking(move |db| {
            let t = db.begin_read().map_err(db_err)?;
            let a = t.open_table(ACCOUNTS).map_err(db_err)?;
            Ok(a.get(&account.as_bytes()[..])
                .map_err(db_err)?
                .map(|v| v.value().to_vec()))
        })
        .await
    }

    async fn set_access_key(&self, account: Uuid, key: AccessKey) -> Result<()> {
        self.blocking(move |db| {
            let t = db.begin_write().map_err(db_err)?;
            require_account(&t, account)?;
            t.open_table(ACCESS_KEYS)
                .map_err(db_err)?
                .insert(&account.as_bytes()[..], &key[..])
                .map_err(db_err)?;
            t.commit().map_err(db_err)
        })
        .await
    }

    async fn access_key(&self, account: Uuid) -> Result<Option<AccessKey>> {
        self.blocking(move |db| {
            let t = db.begin_read().map_err(db_err)?;
            let a = t.open_table(ACCESS_KEYS).map_err(db_err)?;
            let v = a.get(&account.as_bytes()[..]).map_err(db_err)?;
            v.map(|v| v.value().try_into().map_err(db_err)).transpose()
        })
        .await
    }

    async fn devices(&self, account: Uuid) -> Result<Vec<DeviceInfo>> {
        self.blocking(move |db| {
            let t = db.begin_read().map_err(db_err)?;
            let d = t.open_table(DEVICES).map_err(db_err)?;
            let lo = dev_key(account, 0);
            let hi = dev_key(account, 0xFF);
            let mut out = vec![];
            for e in d.range(&lo[..]..=&hi[..]).map_err(db_err)? {
                let (k, v) = e.map_err(db_err)?;
                let v = v.value();
                out.push(DeviceInfo {
                    device_id: k.value()[16],
                    registration_id: u16::from_be_bytes([v[0], v[1]]),
                    secret_hash: v[2..34].try_into().map_err(db_err)?,
                });
            }
            Ok(out)
        })
        .await
    }

    async fn upload_keys(&self, account: Uuid, device: u8, keys: KeysUpload) -> Result<()> {
        self.blocking(move |db| {
            let p = dev_key(account, device);
            let t = db.begin_write().map_err(db_err)?;
            {
                if let Some(k) = &keys.signed_pre_key {
                    t.open_table(SIGNED)
                        .map_err(db_err)?
                        .insert(&p[..], &encode_signed(k)[..])
                        .map_err(db_err)?;
                }
                if let Some(k) = &keys.pq_last_resort_pre_key {
                    t.open_table(LAST_RESORT)
                        .map_err(db_err)?
                        .insert(&p[..], &encode_signed(k)[..])
                        .map_err(db_err)?;
                }
                let mut ec = t.open_table(EC_KEYS).map_err(db_err)?;
                for k in &keys.pre_keys {
                    ec.insert(&sub_key(&p, &k.id.to_be_bytes())[..], &k.public[..])
                        .map_err(db_err)?;
                }
                let mut pq = t.open_table(PQ_KEYS).map_err(db_err)?;
                for k in &keys.pq_pre_keys {
                    pq.insert(&sub_key(&p, &k.id.to_be_bytes())[..], &encode_signed(k)[..])
                        .map_err(db_err)?;
                }
            }
            t.commit().map_err(db_err)
        })
        .await
    }

    async fn take_bundle(&self, account: Uuid, device: u8) -> Result<Option<DeviceBundle>> {
        self.blocking(move |db| {
            let p = dev_key(account, device);
            let (lo, hi) = prefix_range(&p);
            let t = db.begin_write().map_err(db_err)?;
            let bundle = {
                let devices = t.open_table(DEVICES).map_err(db_err)?;
                let Some(dev) = devices
                    .get(&p[..])
                    .map_err(db_err)?
                    .map(|v| v.value().to_vec())
                else {
                    return Ok(None);
                };
                let signed = t.open_table(SIGNED).map_err(db_err)?;
                let Some(signed) = signed
                    .get(&p[..])
                    .map_err(db_err)?
                    .map(|v| v.value().to_vec())
                else {
                    return Ok(None);
                };
                let pre_key = pop_first(&t, EC_KEYS, &lo, &hi)?.map(|(k, v)| OneTimeKey {
                    id: u32::from_be_bytes(k[17..21].try_into().expect("4")),
                    public: v,
                });
                let pq_pre_key = match pop_first(&t, PQ_KEYS, &lo, &hi)? {
                    Some((_, v)) => decode_signed(&v)?,
                    None => {
                        let lr = t.open_table(LAST_RESORT).map_err(db_err)?;
                        let v = lr.get(&p[..]).map_err(db_err)?.map(|v| v.value().to_vec());
                        match v {
                            Some(v) => decode_signed(&v)?,
                            None => return Ok(None),
                        }
                    }
                };
                DeviceBundle {
                    device_id: device,
                    registration_id: u16::from_be_bytes([dev[0], dev[1]]),
                    signed_pre_key: decode_signed(&signed)?,
                    pre_key,
                    pq_pre_key: Some(pq_pre_key),
                }
            };
            t.commit().map_err(db_err)?;
            Ok(Some(bundle))
        })
        .await
    }

    async fn key_counts(&self, account: Uuid, device: u8) -> Result<(usize, usize)> {
        self.blocking(move |db| {
            let p = dev_key(account, device);
            let (lo, hi) = prefix_range(&p);
            let t = db.begin_read().map_err(db_err)?;
            let ec = t
                .open_table(EC_KEYS)
                .map_err(db_err)?
                .range(&lo[..]..&hi[..])
                .map_err(db_err)?
                .count();
            let pq = t
                .open_table(PQ_KEYS)
                .map_err(db_err)?
                .range(&lo[..]..&hi[..])
                .map_err(db_err)?
                .count();
            Ok((ec, pq))
        })
        .await
    }

    async fn enqueue(
        &self,
        deliveries: Vec<Delivery>,
        shared: Option<(Uuid, Vec<u8>)>,
    ) -> Result<()> {
        let (tx, rx) = oneshot::channel();
        self.writer
            .send(WriteOp::Enqueue(deliveries, shared, tx))
            .map_err(|_| Error::Store("writer stopped".into()))?;
        rx.await
            .map_err(|_| Error::Store("writer stopped".into()))?
    }

    async fn pending(&self, account: Uuid, device: u8, limit: usize) -> Result<Vec<Envelope>> {
        self.blocking(move |db| {
            let p = dev_key(account, device);
            let (lo, hi) = prefix_range(&p);
            let t = db.begin_read().map_err(db_err)?;
            let m = t.open_table(MESSAGES).map_err(db_err)?;
            let mut out = vec![];
            for e in m.range(&lo[..]..&hi[..]).map_err(db_err)?.take(limit) {
                let (_, v) = e.map_err(db_err)?;
                out.push(Envelope::decode(v.value()).map_err(db_err)?);
            }
            Ok(out)
        })
        .await
    }

    async fn shared(&self, key: Uuid) -> Result<Option<Vec<u8>>> {
        self.blocking(move |db| {
            let t = db.begin_read().map_err(db_err)?;
            let s = t.open_table(SHARED).map_err(db_err)?;
            Ok(s.get(&key.as_bytes()[..])
                .map_err(db_err)?
                .map(|v| v.value()[4..].to_vec()))
        })
        .await
    }

    async fn ack(&self, account: Uuid, device: u8, guid: Uuid) -> Result<bool> {
        let (tx, rx) = oneshot::channel();
        self.writer
            .send(WriteOp::Ack(account, device, guid, tx))
            .map_err(|_| Error::Store("writer stopped".into()))?;
        rx.await
            .map_err(|_| Error::Store("writer stopped".into()))?
    }
}

/// Drops one reference to a shared multi-recipient part, and the part with its last one.
fn release_shared(shared: &mut redb::Table<&[u8], &[u8]>, key: &[u8]) -> Result<()> {
    let cur = shared.get(key).map_err(db_err)?.map(|v| v.value().to_vec());
    let Some(mut cur) = cur else { return Ok(()) };
    let n = u32::from_be_bytes(cur[..4].try_into().map_err(db_err)?);
    if n <= 1 {
        shared.remove(key).map_err(db_err)?;
    } else {
        cur[..4].copy_from_slice(&(n - 1).to_be_bytes());
        shared.insert(key, &cur[..]).map_err(db_err)?;
    }
    Ok(())
}

/// Removes and returns the first entry in `lo..hi` (the lowest key id of a device).
fn pop_first(
    t: &redb::WriteTransaction,
    def: TableDefinition<&[u8], &[u8]>,
    lo: &[u8],
    hi: &[u8],
) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
    let mut table = t.open_table(def).map_err(db_err)?;
    let first = table
        .range(lo..hi)
        .map_err(db_err)?
        .next()
        .transpose()
        .map_err(db_err)?
        .map(|(k, v)| (k.value().to_vec(), v.value().to_vec()));
    if let Some((k, _)) = &first {
        table.remove(&k[..]).map_err(db_err)?;
    }
    Ok(first)
}

/// `NotFound` unless the account exists.
fn require_account(t: &redb::WriteTransaction, account: Uuid) -> Result<()> {
    let exists = t
        .open_table(ACCOUNTS)
        .map_err(db_err)?
        .get(&account.as_bytes()[..])
        .map_err(db_err)?
        .is_some();
    exists.then_some(()).ok_or(Error::NotFound("account"))
}

fn put_device(t: &redb::WriteTransaction, account: Uuid, d: &DeviceInfo) -> Result<()> {
    let mut v = d.registration_id.to_be_bytes().to_vec();
    v.extend_from_slice(&d.secret_hash);
    t.open_table(DEVICES)
        .map_err(db_err)?
        .insert(&dev_key(account, d.device_id)[..], &v[..])
        .map_err(db_err)?;
    Ok(())
}
