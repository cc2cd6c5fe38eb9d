//! The embedded backend: one redb file. Envelope writes and acknowledgements go through one writer
//! task that commits whatever has queued up in a single durable transaction (group commit), so a
//! sender is answered only after its envelopes are on disk, and many concurrent senders share the
//! cost of one fsync.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use prost::Message as _;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::{
    Delivery, DeviceBundle, DeviceInfo, KeysUpload, MailboxQuota, MailboxUsage, OneTimeKey, Over,
    RelayStore, RingXkemKey, Sender, SignedKey,
};
use crate::{Error, Result};
use alibi_relay_api::access::AccessKey;

mod backup;
mod migrations;
use alibi_relay_api::proto::Envelope;

const ACCOUNTS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("accounts");
const ACCESS_KEYS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("access_keys");
const DEVICES: TableDefinition<&[u8], &[u8]> = TableDefinition::new("devices");
const SIGNED: TableDefinition<&[u8], &[u8]> = TableDefinition::new("signed_pre_keys");
const EC_KEYS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("ec_pre_keys");
const PQ_KEYS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("pq_pre_keys");
const LAST_RESORT: TableDefinition<&[u8], &[u8]> = TableDefinition::new("pq_last_resort");
/// Per device: RingXKEM key id (4, big-endian) || bundle.
const RINGXKEM: TableDefinition<&[u8], &[u8]> = TableDefinition::new("ringxkem_pre_keys");
const MESSAGES: TableDefinition<&[u8], &[u8]> = TableDefinition::new("messages");
const SHARED: TableDefinition<&[u8], &[u8]> = TableDefinition::new("shared_mrm");
/// Per stored envelope (the key of `messages`): its [`Sender`], 17 bytes. Envelopes stored by a
/// relay before the per-sender share have none (they count against no sender's share).
const SENDERS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("message_senders");
/// `"schema"` -> the layout's version ([`migrations::SCHEMA`]); absent in stores of the first
/// layout.
const META: TableDefinition<&str, u32> = TableDefinition::new("meta");

/// Every table of the current layout but [`META`] and `migrations::HISTORY`.
const TABLES: [TableDefinition<&[u8], &[u8]>; 11] = [
    ACCOUNTS,
    ACCESS_KEYS,
    DEVICES,
    SIGNED,
    EC_KEYS,
    PQ_KEYS,
    LAST_RESORT,
    RINGXKEM,
    MESSAGES,
    SHARED,
    SENDERS,
];

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
        Sender,
        MailboxQuota,
        oneshot::Sender<Result<()>>,
    ),
    Ack(Uuid, u8, Uuid, oneshot::Sender<Result<bool>>),
    Expire(u64, oneshot::Sender<Result<u64>>),
}

/// The redb relay store.
#[derive(Clone)]
pub struct RedbRelayStore {
    db: Arc<Database>,
    writer: mpsc::UnboundedSender<WriteOp>,
    /// The mailboxes' counters: changed by the writer only, read by [`RelayStore::queued`] and
    /// [`RelayStore::mailbox_usage`].
    counters: Arc<Mutex<Counters>>,
}

impl RedbRelayStore {
    /// Creates or opens the store file, upgrading an older layout first (one transaction per
    /// step; a store newer than this relay is refused), and starts its writer (needs a Tokio
    /// runtime).
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let db = Arc::new(Database::create(path).map_err(db_err)?);
        migrations::open_layout(&db)?;
        let counters = Arc::new(Mutex::new(count_mailboxes(&db)?));
        let (writer, rx) = mpsc::unbounded_channel();
        let (wdb, wcounters) = (db.clone(), counters.clone());
        std::thread::Builder::new()
            .name("relay-redb-writer".into())
            .spawn(move || writer_loop(wdb, rx, wcounters))
            .map_err(db_err)?;
        Ok(Self {
            db,
            writer,
            counters,
        })
    }

    /// Writes a consistent copy of the store (as its last commit left it; writes go on
    /// meanwhile) to a new file at `to`, created owner-only; an existing file is an error, never
    /// replaced. Returns the entries copied. `alibi relay backup` asks a running relay for one
    /// through [`crate::server::control`].
    pub fn backup(&self, to: &Path) -> Result<u64> {
        backup::backup(&self.db, to)
    }

    /// [`Self::backup`] of a store file no relay has open.
    pub fn backup_file(db: &Path, to: &Path) -> Result<u64> {
        let db = Database::open(db).map_err(db_err)?;
        backup::backup(&db, to)
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

/// Per device: envelopes and bytes ([`super::charged_size`]) waiting, in all and per sender. The
/// writer is the only one to change mailboxes, so it keeps these in memory (a quota check costs no
/// read, a write no extra row); they are counted from the store when it opens, and again if a
/// commit fails.
#[derive(Default)]
struct Counters {
    /// Envelopes waiting, every mailbox's together.
    total: u64,
    mailboxes: HashMap<[u8; 17], (u64, u64)>,
    senders: HashMap<([u8; 17], Sender), (u64, u64)>,
}

impl Counters {
    /// Adds (or with `sub`, takes away) `n` envelopes of `b` bytes to a mailbox and, if known, to
    /// its sender's share; entries back at zero are dropped.
    fn change(&mut self, dev: [u8; 17], sender: Option<Sender>, (n, b): (u64, u64), sub: bool) {
        fn apply<K: std::hash::Hash + Eq + Copy>(
            m: &mut HashMap<K, (u64, u64)>,
            k: K,
            (n, b): (u64, u64),
            sub: bool,
        ) {
            let e = m.entry(k).or_default();
            if sub {
                *e = (e.0.saturating_sub(n), e.1.saturating_sub(b));
            } else {
                *e = (e.0 + n, e.1.saturating_add(b));
            }
            if e.0 == 0 {
                if let std::collections::hash_map::Entry::Occupied(o) = m.entry(k) {
                    o.remove();
                }
            }
        }
        let had = self.mailboxes.get(&dev).map_or(0, |e| e.0);
        apply(&mut self.mailboxes, dev, (n, b), sub);
        let has = self.mailboxes.get(&dev).map_or(0, |e| e.0);
        self.total = (self.total + has).saturating_sub(had);
        if let Some(sender) = sender {
            apply(&mut self.senders, (dev, sender), (n, b), sub);
        }
    }
}

fn count_mailboxes(db: &Database) -> Result<Counters> {
    let t = db.begin_read().map_err(db_err)?;
    let messages = t.open_table(MESSAGES).map_err(db_err)?;
    let shared = t.open_table(SHARED).map_err(db_err)?;
    let senders = t.open_table(SENDERS).map_err(db_err)?;
    let mut counters = Counters::default();
    for e in messages.iter().map_err(db_err)? {
        let (k, v) = e.map_err(db_err)?;
        let (k, v) = (k.value(), v.value());
        let shared_len = match Envelope::decode(v).ok().and_then(|e| e.shared_mrm_key) {
            Some(key) => shared
                .get(&key[..])
                .map_err(db_err)?
                .map_or(0, |p| p.value().len() - 4),
            None => 0,
        };
        let dev: [u8; 17] = k[..17].try_into().map_err(db_err)?;
        let sender = sender_of(&senders, k)?;
        counters.change(
            dev,
            sender,
            (1, super::charged_size(v.len(), shared_len)),
            false,
        );
    }
    Ok(counters)
}

/// The sender recorded for a stored envelope (none for one stored before senders were kept).
fn sender_of(
    senders: &impl ReadableTable<&'static [u8], &'static [u8]>,
    k: &[u8],
) -> Result<Option<Sender>> {
    Ok(senders
        .get(k)
        .map_err(db_err)?
        .and_then(|v| v.value().try_into().ok().map(Sender)))
}

/// Commits every queued write in one transaction, then answers each.
fn writer_loop(
    db: Arc<Database>,
    mut rx: mpsc::UnboundedReceiver<WriteOp>,
    counters: Arc<Mutex<Counters>>,
) {
    while let Some(first) = rx.blocking_recv() {
        let mut ops = vec![first];
        while ops.len() < 4096 {
            match rx.try_recv() {
                Ok(op) => ops.push(op),
                Err(_) => break,
            }
        }
        let mut results: Vec<Result<u64>> = Vec::with_capacity(ops.len());
        // Held until the commit: readers of the counters see committed mailboxes only.
        let mut sizes = counters.lock().unwrap_or_else(|e| e.into_inner());
        let outcome = (|| -> Result<()> {
            let t = db.begin_write().map_err(db_err)?;
            {
                let mut tables = Tables {
                    messages: t.open_table(MESSAGES).map_err(db_err)?,
                    shared: t.open_table(SHARED).map_err(db_err)?,
                    senders: t.open_table(SENDERS).map_err(db_err)?,
                    sizes: &mut sizes,
                };
                for op in &ops {
                    let r = match op {
                        WriteOp::Enqueue(items, shared, sender, quota, _) => {
                            tables.enqueue(items, shared.as_ref(), *sender, *quota)
                        }
                        WriteOp::Ack(account, device, guid, _) => {
                            // The key holds the device, so a device can only remove its own.
                            let k = sub_key(&dev_key(*account, *device), guid.as_bytes());
                            tables.remove(&k).map(u64::from)
                        }
                        WriteOp::Expire(before, _) => tables.expire(*before),
                    };
                    // A full mailbox refuses its own send (which wrote nothing); a failing store
                    // fails the whole transaction.
                    match r {
                        Err(e @ (Error::MailboxFull(..) | Error::SenderShareFull(..))) => {
                            results.push(Err(e))
                        }
                        Err(e) => return Err(e),
                        Ok(v) => results.push(Ok(v)),
                    }
                }
            }
            t.commit().map_err(db_err)
        })();
        if outcome.is_err() {
            // The counters counted changes that did not commit.
            if let Ok(c) = count_mailboxes(&db) {
                *sizes = c;
            }
        }
        drop(sizes);
        for (op, r) in ops
            .into_iter()
            .zip(results.into_iter().chain(std::iter::repeat_with(|| Ok(0))))
        {
            let r = match &outcome {
                Ok(()) => r,
                Err(e) => Err(Error::Store(e.to_string())),
            };
            match op {
                WriteOp::Enqueue(.., tx) => {
                    let _ = tx.send(r.map(|_| ()));
                }
                WriteOp::Ack(.., tx) => {
                    let _ = tx.send(r.map(|n| n > 0));
                }
                WriteOp::Expire(_, tx) => {
                    let _ = tx.send(r);
                }
            }
        }
    }
}

/// The tables the writer changes.
struct Tables<'t, 's> {
    messages: redb::Table<'t, &'static [u8], &'static [u8]>,
    shared: redb::Table<'t, &'static [u8], &'static [u8]>,
    senders: redb::Table<'t, &'static [u8], &'static [u8]>,
    sizes: &'s mut Counters,
}

impl Tables<'_, '_> {
    /// One send: refused whole (nothing written) if a mailbox, or the sender's share of it, would
    /// pass the quota.
    fn enqueue(
        &mut self,
        items: &[Delivery],
        shared: Option<&(Uuid, Vec<u8>)>,
        sender: Sender,
        quota: MailboxQuota,
    ) -> Result<u64> {
        let shared_len = shared.map_or(0, |(_, b)| b.len());
        let encoded: Vec<Vec<u8>> = items.iter().map(|(.., env)| env.encode_to_vec()).collect();
        let keys = items.iter().map(|(a, d, _)| dev_key(*a, *d));
        let added = super::additions(keys.zip(encoded.iter().map(Vec::len)), shared_len);
        for (dev, &size) in &added {
            let sizes = &self.sizes;
            let mailbox = sizes.mailboxes.get(dev).copied().unwrap_or_default();
            let own = sizes
                .senders
                .get(&(*dev, sender))
                .copied()
                .unwrap_or_default();
            let account = || Uuid::from_slice(&dev[..16]).map_err(db_err);
            match quota.admits(mailbox, own, size) {
                Ok(()) => {}
                Err(Over::Mailbox) => return Err(Error::MailboxFull(account()?, dev[16])),
                Err(Over::SenderShare) => return Err(Error::SenderShareFull(account()?, dev[16])),
            }
        }
        if let Some((key, bytes)) = shared {
            // Shared part: 4-byte reference count, then the bytes.
            let mut v = (items.len() as u32).to_be_bytes().to_vec();
            v.extend_from_slice(bytes);
            self.shared
                .insert(&key.as_bytes()[..], &v[..])
                .map_err(db_err)?;
        }
        for ((account, device, env), e) in items.iter().zip(&encoded) {
            let k = sub_key(&dev_key(*account, *device), &super::guid_bytes(env));
            self.messages.insert(&k[..], &e[..]).map_err(db_err)?;
            self.senders.insert(&k[..], &sender.0[..]).map_err(db_err)?;
        }
        for (dev, size) in added {
            self.sizes.change(dev, Some(sender), size, false);
        }
        Ok(1)
    }

    /// Deletes one stored envelope (by its full key), its share of the mailbox size and its
    /// reference to a shared part; false if it was not there.
    fn remove(&mut self, k: &[u8]) -> Result<bool> {
        let env = self
            .messages
            .remove(k)
            .map_err(db_err)?
            .map(|v| v.value().to_vec());
        let Some(env) = env else {
            return Ok(false);
        };
        let mut shared_len = 0;
        if let Some(key) = Envelope::decode(&env[..])
            .ok()
            .and_then(|e| e.shared_mrm_key)
        {
            shared_len = release_shared(&mut self.shared, &key)?;
        }
        let dev: [u8; 17] = k[..17].try_into().map_err(db_err)?;
        let sender = sender_of(&self.senders, k)?;
        if sender.is_some() {
            self.senders.remove(k).map_err(db_err)?;
        }
        let charged = super::charged_size(env.len(), shared_len);
        self.sizes.change(dev, sender, (1, charged), true);
        Ok(true)
    }

    /// Deletes every envelope whose id is older than `before` (ms): a scan of the keys, since a
    /// message id starts with its time.
    fn expire(&mut self, before: u64) -> Result<u64> {
        let mut old = vec![];
        for e in self.messages.iter().map_err(db_err)? {
            let (k, _) = e.map_err(db_err)?;
            let k = k.value();
            if super::id_time_ms(&k[17..]) < before {
                old.push(k.to_vec());
            }
        }
        let mut n = 0;
        for k in old {
            n += u64::from(self.remove(&k)?);
        }
        Ok(n)
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
            read_access_key(&t.open_table(ACCESS_KEYS).map_err(db_err)?, account)
        })
        .await
    }

    async fn devices(&self, account: Uuid) -> Result<Vec<DeviceInfo>> {
        self.blocking(move |db| {
            let t = db.begin_read().map_err(db_err)?;
            read_devices(&t.open_table(DEVICES).map_err(db_err)?, account)
        })
        .await
    }

    /// Every account in one read transaction on one blocking thread: one by one, a 1,000-recipient
    /// send paid 2,000 hops to the blocking pool (about 80 ms) whenever the relay's account cache
    /// had expired, which made its slowest sends.
    async fn accounts(
        &self,
        accounts: &[Uuid],
    ) -> Result<Vec<(Vec<DeviceInfo>, Option<AccessKey>)>> {
        let accounts = accounts.to_vec();
        self.blocking(move |db| {
            let t = db.begin_read().map_err(db_err)?;
            let d = t.open_table(DEVICES).map_err(db_err)?;
            let a = t.open_table(ACCESS_KEYS).map_err(db_err)?;
            accounts
                .into_iter()
                .map(|account| Ok((read_devices(&d, account)?, read_access_key(&a, account)?)))
                .collect()
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
                if let Some(k) = &keys.ringxkem_pre_key {
                    t.open_table(RINGXKEM)
                        .map_err(db_err)?
                        .insert(&p[..], &[&k.id.to_be_bytes()[..], &k.bundle].concat()[..])
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
                let ringxkem_pre_key = t
                    .open_table(RINGXKEM)
                    .map_err(db_err)?
                    .get(&p[..])
                    .map_err(db_err)?
                    .and_then(|v| {
                        let v = v.value();
                        Some(RingXkemKey {
                            id: u32::from_be_bytes(v.get(..4)?.try_into().ok()?),
                            bundle: v[4..].to_vec(),
                        })
                    });
                DeviceBundle {
                    device_id: device,
                    registration_id: u16::from_be_bytes([dev[0], dev[1]]),
                    signed_pre_key: decode_signed(&signed)?,
                    pre_key,
                    pq_pre_key: Some(pq_pre_key),
                    ringxkem_pre_key,
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
        sender: Sender,
        quota: MailboxQuota,
    ) -> Result<()> {
        let (tx, rx) = oneshot::channel();
        self.writer
            .send(WriteOp::Enqueue(deliveries, shared, sender, quota, tx))
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

    async fn queued(&self) -> Result<u64> {
        let c = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        Ok(c.total)
    }

    async fn mailbox_usage(
        &self,
        account: Uuid,
        device: u8,
        sender: Sender,
    ) -> Result<MailboxUsage> {
        let dev = dev_key(account, device);
        let c = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        let (messages, bytes) = c.mailboxes.get(&dev).copied().unwrap_or_default();
        let (sender_messages, sender_bytes) =
            c.senders.get(&(dev, sender)).copied().unwrap_or_default();
        Ok(MailboxUsage {
            messages,
            bytes,
            sender_messages,
            sender_bytes,
        })
    }

    async fn expire(&self, before_ms: u64) -> Result<u64> {
        let (tx, rx) = oneshot::channel();
        self.writer
            .send(WriteOp::Expire(before_ms, tx))
            .map_err(|_| Error::Store("writer stopped".into()))?;
        rx.await
            .map_err(|_| Error::Store("writer stopped".into()))?
    }
}

/// Drops one reference to a shared multi-recipient part, and the part with its last one; the
/// part's length (0 if it was gone).
fn release_shared(shared: &mut redb::Table<&[u8], &[u8]>, key: &[u8]) -> Result<usize> {
    let cur = shared.get(key).map_err(db_err)?.map(|v| v.value().to_vec());
    let Some(mut cur) = cur else { return Ok(0) };
    let n = u32::from_be_bytes(cur[..4].try_into().map_err(db_err)?);
    if n <= 1 {
        shared.remove(key).map_err(db_err)?;
    } else {
        cur[..4].copy_from_slice(&(n - 1).to_be_bytes());
        shared.insert(key, &cur[..]).map_err(db_err)?;
    }
    Ok(cur.len() - 4)
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

/// An account's devices, from the devices table.
fn read_devices(
    d: &impl ReadableTable<&'static [u8], &'static [u8]>,
    account: Uuid,
) -> Result<Vec<DeviceInfo>> {
    let lo = dev_key(account, 0);
    let hi = dev_key(account, 0xFF);
    let mut out = vec![];
    for e in d.range(&lo[..]..=&hi[..]).map_err(db_err)? {
        let (k, v) = e.map_err(db_err)?;
        let v = v.value();
        out.push(DeviceInfo {
            device_id: k.value()[16],
            registration_id: u16::from_be_bytes([v[0], v[1]]),
            password_hash: String::from_utf8(v[2..].to_vec()).map_err(db_err)?,
        });
    }
    Ok(out)
}

/// An account's access key, from the access-keys table.
fn read_access_key(
    a: &impl ReadableTable<&'static [u8], &'static [u8]>,
    account: Uuid,
) -> Result<Option<AccessKey>> {
    let v = a.get(&account.as_bytes()[..]).map_err(db_err)?;
    v.map(|v| v.value().try_into().map_err(db_err)).transpose()
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
    v.extend_from_slice(d.password_hash.as_bytes());
    t.open_table(DEVICES)
        .map_err(db_err)?
        .insert(&dev_key(account, d.device_id)[..], &v[..])
        .map_err(db_err)?;
    Ok(())
}
