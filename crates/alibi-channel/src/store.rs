//! Stores behind traits, as libsignal's `storage/traits.rs` divides them: our identity and
//! registration id and the peers' identities; one-time EC prekeys; signed prekeys; KEM prekeys
//! (one-time or last-resort); sessions; sender keys ([`SenderKeyStore`]). [`InMemoryStore`] and
//! [`RedbStore`] implement all of them.

use std::collections::HashMap;
use std::path::Path;

use alibi_identity::{
    IdentityKey, IdentityKeyPair, KemKeyPair, KemPublicKey, KemSecretKey, KeyPair, PrivateKey,
};
use prost::Message as _;
use redb::{ReadableDatabase, TableDefinition, TableHandle};

use crate::proto;
use crate::sender_key_record::SenderKeyRecord;
use crate::session::SessionRecord;
use crate::{Error, Result};

/// A peer: an account name and a device id.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Address {
    /// The account (libsignal: a service id string).
    pub name: String,
    /// The device.
    pub device_id: u32,
}

impl Address {
    /// An address.
    pub fn new(name: impl Into<String>, device_id: u32) -> Self {
        Self {
            name: name.into(),
            device_id,
        }
    }

    fn key(&self) -> String {
        format!("{}.{}", self.name, self.device_id)
    }
}

impl core::fmt::Display for Address {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{}", self.name, self.device_id)
    }
}

/// Whether an identity is checked for sending or receiving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// We are about to send to it.
    Sending,
    /// We received from it.
    Receiving,
}

/// A signed prekey as stored: its key pair and the identity's signature on it.
#[derive(Clone)]
pub struct SignedPreKeyRecord {
    /// Its id.
    pub id: u32,
    /// The key pair.
    pub key_pair: KeyPair,
    /// XEdDSA signature by the identity on the 33-byte public key.
    pub signature: Vec<u8>,
}

/// A KEM prekey as stored.
#[derive(Clone)]
pub struct KyberPreKeyRecord {
    /// Its id.
    pub id: u32,
    /// The key pair.
    pub key_pair: KemKeyPair,
    /// XEdDSA signature by the identity on the typed public key.
    pub signature: Vec<u8>,
    /// A last-resort key stays after use; a one-time key is removed.
    pub last_resort: bool,
}

/// Everything a session needs from storage.
pub trait ProtocolStore {
    /// Our identity key pair.
    fn identity_key_pair(&self) -> Result<IdentityKeyPair>;
    /// Our registration id.
    fn local_registration_id(&self) -> Result<u32>;
    /// The identity last saved for `addr`.
    fn get_identity(&self, addr: &Address) -> Result<Option<IdentityKey>>;
    /// Saves `addr`'s identity; true if it replaced a different one.
    fn save_identity(&mut self, addr: &Address, key: &IdentityKey) -> Result<bool>;
    /// Trust on first use: an identity is trusted if none is saved or it is the saved one.
    fn is_trusted_identity(
        &self,
        addr: &Address,
        key: &IdentityKey,
        _dir: Direction,
    ) -> Result<bool> {
        Ok(self.get_identity(addr)?.is_none_or(|k| &k == key))
    }
    /// A one-time prekey.
    fn get_pre_key(&self, id: u32) -> Result<Option<KeyPair>>;
    /// Saves a one-time prekey.
    fn save_pre_key(&mut self, id: u32, key: &KeyPair) -> Result<()>;
    /// Removes a used one-time prekey.
    fn remove_pre_key(&mut self, id: u32) -> Result<()>;
    /// A signed prekey.
    fn get_signed_pre_key(&self, id: u32) -> Result<Option<SignedPreKeyRecord>>;
    /// Saves a signed prekey.
    fn save_signed_pre_key(&mut self, rec: &SignedPreKeyRecord) -> Result<()>;
    /// A KEM prekey.
    fn get_kyber_pre_key(&self, id: u32) -> Result<Option<KyberPreKeyRecord>>;
    /// Saves a KEM prekey.
    fn save_kyber_pre_key(&mut self, rec: &KyberPreKeyRecord) -> Result<()>;
    /// Marks a KEM prekey used: a one-time key is removed, a last-resort key kept.
    fn mark_kyber_pre_key_used(&mut self, id: u32) -> Result<()>;
    /// The session record with `addr`.
    fn load_session(&self, addr: &Address) -> Result<Option<SessionRecord>>;
    /// Saves the session record with `addr`.
    fn store_session(&mut self, addr: &Address, rec: &SessionRecord) -> Result<()>;
}

/// Storage of sender-key records, by sender address and distribution id.
pub trait SenderKeyStore {
    /// The record for (sender, distribution).
    fn load_sender_key(
        &self,
        sender: &Address,
        distribution_id: uuid::Uuid,
    ) -> Result<Option<SenderKeyRecord>>;
    /// Saves the record for (sender, distribution).
    fn store_sender_key(
        &mut self,
        sender: &Address,
        distribution_id: uuid::Uuid,
        record: &SenderKeyRecord,
    ) -> Result<()>;
}

fn encode_signed(rec: &SignedPreKeyRecord) -> Vec<u8> {
    proto::StoredPreKey {
        id: rec.id,
        secret: rec.key_pair.private.to_bytes().to_vec(),
        public: vec![],
        signature: rec.signature.clone(),
        last_resort: false,
    }
    .encode_to_vec()
}

fn decode_signed(b: &[u8]) -> Result<SignedPreKeyRecord> {
    let pb: proto::StoredPreKey = proto::decode(b, "stored signed prekey")?;
    Ok(SignedPreKeyRecord {
        id: pb.id,
        key_pair: KeyPair::from_private(PrivateKey::deserialize(&pb.secret)?),
        signature: pb.signature,
    })
}

fn encode_kyber(rec: &KyberPreKeyRecord) -> Vec<u8> {
    proto::StoredPreKey {
        id: rec.id,
        secret: rec.key_pair.secret.serialize().to_vec(),
        public: rec.key_pair.public.serialize(),
        signature: rec.signature.clone(),
        last_resort: rec.last_resort,
    }
    .encode_to_vec()
}

fn decode_kyber(b: &[u8]) -> Result<KyberPreKeyRecord> {
    let pb: proto::StoredPreKey = proto::decode(b, "stored KEM prekey")?;
    Ok(KyberPreKeyRecord {
        id: pb.id,
        key_pair: KemKeyPair {
            public: KemPublicKey::deserialize(&pb.public)?,
            secret: KemSecretKey::deserialize(&pb.secret)?,
        },
        signature: pb.signature,
        last_resort: pb.last_resort,
    })
}

/// The fixed store key of [`fuzz_decoders`] and [`fuzz_samples`].
fn fuzz_sealed() -> Sealed {
    use chacha20poly1305::KeyInit;
    Sealed {
        identity: IdentityKeyPair::from_private(PrivateKey::from_bytes([1; 32])),
        registration_id: 1,
        cipher: chacha20poly1305::XChaCha20Poly1305::new(&[2u8; 32].into()),
    }
}

/// Every decoder of a stored value, on untrusted bytes (the fuzz target `channel_store`): each
/// table's record as it is read back, and the sealed-value opening under a fixed store key,
/// followed by those decoders on what opens.
pub(crate) fn fuzz_decoders(data: &[u8]) {
    fn records(b: &[u8]) {
        let _ = decode_signed(b);
        let _ = decode_kyber(b);
        let _ = IdentityKey::deserialize(b);
        let _ = PrivateKey::deserialize(b);
        let _ = SessionRecord::deserialize(b);
        let _ = SenderKeyRecord::deserialize(b);
    }
    records(data);
    if let Ok(plain) = fuzz_sealed().open("signed_pre_keys", b"a.1", data) {
        records(&plain);
    }
}

/// Valid stored values to start a campaign from: a signed and a KEM prekey record, plain and
/// sealed under [`fuzz_decoders`]' store key.
pub(crate) fn fuzz_samples<R: rand_core::CryptoRng + ?Sized>(rng: &mut R) -> Vec<Vec<u8>> {
    let identity = IdentityKeyPair::generate(rng);
    let spk = KeyPair::generate(rng);
    let signed = encode_signed(&SignedPreKeyRecord {
        id: 1,
        signature: identity.sign(&spk.public.serialize(), rng).to_vec(),
        key_pair: spk,
    });
    let kem = KemKeyPair::generate(alibi_identity::KemKeyType::Kyber1024, rng);
    let kyber = encode_kyber(&KyberPreKeyRecord {
        id: 2,
        signature: identity.sign(&kem.public.serialize(), rng).to_vec(),
        key_pair: kem,
        last_resort: true,
    });
    let s = fuzz_sealed();
    let mut out = vec![identity.identity.serialize().to_vec()];
    for v in [signed, kyber] {
        out.push(
            s.seal("signed_pre_keys", b"a.1", &v)
                .expect("sealing works"),
        );
        out.push(v);
    }
    out
}

/// A store in memory (tests, short-lived parties).
#[derive(Clone)]
pub struct InMemoryStore {
    identity: IdentityKeyPair,
    registration_id: u32,
    identities: HashMap<Address, IdentityKey>,
    pre_keys: HashMap<u32, KeyPair>,
    signed: HashMap<u32, SignedPreKeyRecord>,
    kyber: HashMap<u32, KyberPreKeyRecord>,
    sessions: HashMap<Address, SessionRecord>,
    sender_keys: HashMap<(Address, uuid::Uuid), SenderKeyRecord>,
}

impl InMemoryStore {
    /// An empty store for this identity.
    pub fn new(identity: IdentityKeyPair, registration_id: u32) -> Self {
        Self {
            identity,
            registration_id,
            identities: HashMap::new(),
            pre_keys: HashMap::new(),
            signed: HashMap::new(),
            kyber: HashMap::new(),
            sessions: HashMap::new(),
            sender_keys: HashMap::new(),
        }
    }
}

impl ProtocolStore for InMemoryStore {
    fn identity_key_pair(&self) -> Result<IdentityKeyPair> {
        Ok(self.identity.clone())
    }
    fn local_registration_id(&self) -> Result<u32> {
        Ok(self.registration_id)
    }
    fn get_identity(&self, addr: &Address) -> Result<Option<IdentityKey>> {
        Ok(self.identities.get(addr).copied())
    }
    fn save_identity(&mut self, addr: &Address, key: &IdentityKey) -> Result<bool> {
        Ok(self
            .identities
            .insert(addr.clone(), *key)
            .is_some_and(|old| &old != key))
    }
    fn get_pre_key(&self, id: u32) -> Result<Option<KeyPair>> {
        Ok(self.pre_keys.get(&id).cloned())
    }
    fn save_pre_key(&mut self, id: u32, key: &KeyPair) -> Result<()> {
        self.pre_keys.insert(id, key.clone());
        Ok(())
    }
    fn remove_pre_key(&mut self, id: u32) -> Result<()> {
        self.pre_keys.remove(&id);
        Ok(())
    }
    fn get_signed_pre_key(&self, id: u32) -> Result<Option<SignedPreKeyRecord>> {
        Ok(self.signed.get(&id).cloned())
    }
    fn save_signed_pre_key(&mut self, rec: &SignedPreKeyRecord) -> Result<()> {
        self.signed.insert(rec.id, rec.clone());
        Ok(())
    }
    fn get_kyber_pre_key(&self, id: u32) -> Result<Option<KyberPreKeyRecord>> {
        Ok(self.kyber.get(&id).cloned())
    }
    fn save_kyber_pre_key(&mut self, rec: &KyberPreKeyRecord) -> Result<()> {
        self.kyber.insert(rec.id, rec.clone());
        Ok(())
    }
    fn mark_kyber_pre_key_used(&mut self, id: u32) -> Result<()> {
        if self.kyber.get(&id).is_some_and(|r| !r.last_resort) {
            self.kyber.remove(&id);
        }
        Ok(())
    }
    fn load_session(&self, addr: &Address) -> Result<Option<SessionRecord>> {
        Ok(self.sessions.get(addr).cloned())
    }
    fn store_session(&mut self, addr: &Address, rec: &SessionRecord) -> Result<()> {
        self.sessions.insert(addr.clone(), rec.clone());
        Ok(())
    }
}

impl SenderKeyStore for InMemoryStore {
    fn load_sender_key(
        &self,
        sender: &Address,
        distribution_id: uuid::Uuid,
    ) -> Result<Option<SenderKeyRecord>> {
        Ok(self
            .sender_keys
            .get(&(sender.clone(), distribution_id))
            .cloned())
    }
    fn store_sender_key(
        &mut self,
        sender: &Address,
        distribution_id: uuid::Uuid,
        record: &SenderKeyRecord,
    ) -> Result<()> {
        self.sender_keys
            .insert((sender.clone(), distribution_id), record.clone());
        Ok(())
    }
}

impl SenderKeyStore for RedbStore {
    fn load_sender_key(
        &self,
        sender: &Address,
        distribution_id: uuid::Uuid,
    ) -> Result<Option<SenderKeyRecord>> {
        self.get_str(SENDER_KEYS, &format!("{}/{distribution_id}", sender.key()))?
            .map(|b| SenderKeyRecord::deserialize(&b))
            .transpose()
    }
    fn store_sender_key(
        &mut self,
        sender: &Address,
        distribution_id: uuid::Uuid,
        record: &SenderKeyRecord,
    ) -> Result<()> {
        self.put_str(
            SENDER_KEYS,
            &format!("{}/{distribution_id}", sender.key()),
            &record.serialize(),
        )
    }
}

const SENDER_KEYS: TableDefinition<&str, &[u8]> = TableDefinition::new("sender_keys");
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
const IDENTITIES: TableDefinition<&str, &[u8]> = TableDefinition::new("identities");
const PRE_KEYS: TableDefinition<u32, &[u8]> = TableDefinition::new("pre_keys");
const SIGNED: TableDefinition<u32, &[u8]> = TableDefinition::new("signed_pre_keys");
const KYBER: TableDefinition<u32, &[u8]> = TableDefinition::new("kyber_pre_keys");
const SESSIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("sessions");

fn db_err(e: impl core::fmt::Display) -> Error {
    Error::Store(e.to_string())
}

/// Opening `path` failed: [`Error::Busy`] when another process holds its lock.
fn open_err(path: &Path) -> impl FnOnce(redb::DatabaseError) -> Error + '_ {
    move |e| match e {
        redb::DatabaseError::DatabaseAlreadyOpen => Error::Busy(path.to_path_buf()),
        e => db_err(e),
    }
}

/// A durable store in one redb file; every write is one committed transaction.
///
/// Opened with [`RedbStore::open_sealed`], it keeps the identity key in memory only (the caller
/// holds it encrypted elsewhere) and seals every value with XChaCha20-Poly1305 under a store key,
/// the table and key bound as associated data, so prekeys, sessions and sender keys are
/// unreadable at rest and a value moved to another row does not open.
pub struct RedbStore {
    db: redb::Database,
    sealed: Option<Sealed>,
}

/// What [`RedbStore::open_sealed`] holds in memory.
struct Sealed {
    identity: IdentityKeyPair,
    registration_id: u32,
    cipher: chacha20poly1305::XChaCha20Poly1305,
}

impl Sealed {
    fn aad(table: &str, key: &[u8]) -> Vec<u8> {
        let mut aad = b"alibi-channel store v1\0".to_vec();
        aad.extend_from_slice(table.as_bytes());
        aad.push(0);
        aad.extend_from_slice(key);
        aad
    }

    fn seal(&self, table: &str, key: &[u8], v: &[u8]) -> Result<Vec<u8>> {
        use chacha20poly1305::aead::{Aead, Payload};
        let mut nonce = [0u8; 24];
        getrandom::fill(&mut nonce).map_err(db_err)?;
        let aad = Self::aad(table, key);
        let ct = self
            .cipher
            .encrypt(&nonce.into(), Payload { msg: v, aad: &aad })
            .map_err(|_| Error::Store("sealing a value failed".into()))?;
        Ok([&nonce[..], &ct].concat())
    }

    fn open(&self, table: &str, key: &[u8], v: &[u8]) -> Result<Vec<u8>> {
        use chacha20poly1305::aead::{Aead, Payload};
        let bad = || {
            Error::Store(format!(
                "{table}: a value does not open (wrong store key, or modified)"
            ))
        };
        if v.len() < 24 {
            return Err(bad());
        }
        let (nonce, ct) = v.split_at(24);
        let nonce: [u8; 24] = nonce.try_into().map_err(|_| bad())?;
        let aad = Self::aad(table, key);
        self.cipher
            .decrypt(&nonce.into(), Payload { msg: ct, aad: &aad })
            .map_err(|_| bad())
    }
}

impl RedbStore {
    /// Creates (or opens) the file and sets our identity and registration id.
    pub fn create(
        path: impl AsRef<Path>,
        identity: &IdentityKeyPair,
        registration_id: u32,
    ) -> Result<Self> {
        let db = redb::Database::create(path.as_ref()).map_err(open_err(path.as_ref()))?;
        let s = Self { db, sealed: None };
        s.write(|t| {
            let mut m = t.open_table(META).map_err(db_err)?;
            m.insert("identity", &identity.private.to_bytes()[..])
                .map_err(db_err)?;
            m.insert("registration_id", &registration_id.to_be_bytes()[..])
                .map_err(db_err)?;
            Self::create_tables(t)
        })?;
        Ok(s)
    }

    /// Creates the tables, so that reads of a fresh store find them empty.
    fn create_tables(t: &redb::WriteTransaction) -> Result<()> {
        for d in [IDENTITIES, SESSIONS, SENDER_KEYS] {
            t.open_table(d).map_err(db_err)?;
        }
        for d in [PRE_KEYS, SIGNED, KYBER] {
            t.open_table(d).map_err(db_err)?;
        }
        Ok(())
    }

    /// Opens an existing store.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Ok(Self {
            db: redb::Database::open(path.as_ref()).map_err(open_err(path.as_ref()))?,
            sealed: None,
        })
    }

    /// Creates or opens a sealed store: our identity and registration id stay in memory (never
    /// written), and every value is sealed under `store_key`.
    pub fn open_sealed(
        path: impl AsRef<Path>,
        identity: IdentityKeyPair,
        registration_id: u32,
        store_key: &[u8; 32],
    ) -> Result<Self> {
        use chacha20poly1305::KeyInit;
        let db = redb::Database::create(path.as_ref()).map_err(open_err(path.as_ref()))?;
        let s = Self {
            db,
            sealed: Some(Sealed {
                identity,
                registration_id,
                cipher: chacha20poly1305::XChaCha20Poly1305::new(&(*store_key).into()),
            }),
        };
        s.write(Self::create_tables)?;
        Ok(s)
    }

    fn seal(&self, table: &str, key: &[u8], v: &[u8]) -> Result<Vec<u8>> {
        match &self.sealed {
            Some(s) => s.seal(table, key, v),
            None => Ok(v.to_vec()),
        }
    }

    fn unseal(&self, table: &str, key: &[u8], v: Vec<u8>) -> Result<Vec<u8>> {
        match &self.sealed {
            Some(s) => s.open(table, key, &v),
            None => Ok(v),
        }
    }

    fn write(&self, f: impl FnOnce(&redb::WriteTransaction) -> Result<()>) -> Result<()> {
        let t = self.db.begin_write().map_err(db_err)?;
        f(&t)?;
        t.commit().map_err(db_err)
    }

    fn get_str(&self, def: TableDefinition<&str, &[u8]>, k: &str) -> Result<Option<Vec<u8>>> {
        let t = self.db.begin_read().map_err(db_err)?;
        let table = t.open_table(def).map_err(db_err)?;
        let v = table.get(k).map_err(db_err)?.map(|v| v.value().to_vec());
        v.map(|v| self.unseal(def.name(), k.as_bytes(), v))
            .transpose()
    }

    fn get_u32(&self, def: TableDefinition<u32, &[u8]>, k: u32) -> Result<Option<Vec<u8>>> {
        let t = self.db.begin_read().map_err(db_err)?;
        let table = t.open_table(def).map_err(db_err)?;
        let v = table.get(k).map_err(db_err)?.map(|v| v.value().to_vec());
        v.map(|v| self.unseal(def.name(), &k.to_be_bytes(), v))
            .transpose()
    }

    fn put_str(&self, def: TableDefinition<&str, &[u8]>, k: &str, v: &[u8]) -> Result<()> {
        let v = self.seal(def.name(), k.as_bytes(), v)?;
        self.write(|t| {
            t.open_table(def)
                .map_err(db_err)?
                .insert(k, &v[..])
                .map_err(db_err)?;
            Ok(())
        })
    }

    fn put_u32(&self, def: TableDefinition<u32, &[u8]>, k: u32, v: &[u8]) -> Result<()> {
        let v = self.seal(def.name(), &k.to_be_bytes(), v)?;
        self.write(|t| {
            t.open_table(def)
                .map_err(db_err)?
                .insert(k, &v[..])
                .map_err(db_err)?;
            Ok(())
        })
    }

    fn remove_u32(&self, def: TableDefinition<u32, &[u8]>, k: u32) -> Result<()> {
        self.write(|t| {
            t.open_table(def)
                .map_err(db_err)?
                .remove(k)
                .map_err(db_err)?;
            Ok(())
        })
    }
}

impl ProtocolStore for RedbStore {
    fn identity_key_pair(&self) -> Result<IdentityKeyPair> {
        if let Some(s) = &self.sealed {
            return Ok(s.identity.clone());
        }
        let b = self
            .get_str(META, "identity")?
            .ok_or_else(|| Error::Store("no identity".into()))?;
        Ok(IdentityKeyPair::from_private(PrivateKey::deserialize(&b)?))
    }
    fn local_registration_id(&self) -> Result<u32> {
        if let Some(s) = &self.sealed {
            return Ok(s.registration_id);
        }
        let b = self
            .get_str(META, "registration_id")?
            .ok_or_else(|| Error::Store("no registration id".into()))?;
        Ok(u32::from_be_bytes(
            b.try_into()
                .map_err(|_| Error::Store("bad registration id".into()))?,
        ))
    }
    fn get_identity(&self, addr: &Address) -> Result<Option<IdentityKey>> {
        self.get_str(IDENTITIES, &addr.key())?
            .map(|b| IdentityKey::deserialize(&b).map_err(Error::from))
            .transpose()
    }
    fn save_identity(&mut self, addr: &Address, key: &IdentityKey) -> Result<bool> {
        let old = self.get_identity(addr)?;
        self.put_str(IDENTITIES, &addr.key(), &key.serialize())?;
        Ok(old.is_some_and(|o| &o != key))
    }
    fn get_pre_key(&self, id: u32) -> Result<Option<KeyPair>> {
        self.get_u32(PRE_KEYS, id)?
            .map(|b| Ok(KeyPair::from_private(PrivateKey::deserialize(&b)?)))
            .transpose()
    }
    fn save_pre_key(&mut self, id: u32, key: &KeyPair) -> Result<()> {
        self.put_u32(PRE_KEYS, id, &key.private.to_bytes()[..])
    }
    fn remove_pre_key(&mut self, id: u32) -> Result<()> {
        self.remove_u32(PRE_KEYS, id)
    }
    fn get_signed_pre_key(&self, id: u32) -> Result<Option<SignedPreKeyRecord>> {
        self.get_u32(SIGNED, id)?
            .map(|b| decode_signed(&b))
            .transpose()
    }
    fn save_signed_pre_key(&mut self, rec: &SignedPreKeyRecord) -> Result<()> {
        self.put_u32(SIGNED, rec.id, &encode_signed(rec))
    }
    fn get_kyber_pre_key(&self, id: u32) -> Result<Option<KyberPreKeyRecord>> {
        self.get_u32(KYBER, id)?
            .map(|b| decode_kyber(&b))
            .transpose()
    }
    fn save_kyber_pre_key(&mut self, rec: &KyberPreKeyRecord) -> Result<()> {
        self.put_u32(KYBER, rec.id, &encode_kyber(rec))
    }
    fn mark_kyber_pre_key_used(&mut self, id: u32) -> Result<()> {
        if self.get_kyber_pre_key(id)?.is_some_and(|r| !r.last_resort) {
            self.remove_u32(KYBER, id)?;
        }
        Ok(())
    }
    fn load_session(&self, addr: &Address) -> Result<Option<SessionRecord>> {
        self.get_str(SESSIONS, &addr.key())?
            .map(|b| SessionRecord::deserialize(&b))
            .transpose()
    }
    fn store_session(&mut self, addr: &Address, rec: &SessionRecord) -> Result<()> {
        self.put_str(SESSIONS, &addr.key(), &rec.serialize())
    }
}
