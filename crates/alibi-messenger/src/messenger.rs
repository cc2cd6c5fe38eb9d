//! The [`Messenger`]: registration, contacts, sessions, sends, group sends and the inbox.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use alibi_channel::cipher::{decrypt, encrypt, process_prekey_bundle, CiphertextMessage};
use alibi_channel::sealed_sender::v2::{self, Recipient};
use alibi_channel::sealed_sender::{
    self, ContentType, SenderCertificate, ServiceId, UnidentifiedSenderMessageContent,
};
use alibi_channel::sender_keys::{
    create_distribution_message, group_encrypt, process_distribution_message,
    SenderKeyDistributionMessage, SenderKeyStore,
};
use alibi_channel::session::SessionRecord;
use alibi_channel::store::{InMemoryStore, RedbStore};
use alibi_channel::{Address, ProtocolStore};
use alibi_handshake::{IdentityKey, IdentityKeyPair, PublicKey};
use alibi_relay_api::access::{combine, derive_access_key, AccessKey};
use alibi_relay_api::messages::OutgoingMessage;
use alibi_relay_api::proto::{envelope, Envelope};
use getrandom::SysRng;
use prost::Message as _;
use rand_core::{Rng, UnwrapErr};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use uuid::Uuid;
use zeroize::Zeroizing;

use crate::card::{ContactCard, Device, Handshake};
use crate::content::{Content, PrivatePart};
use crate::prekeys::{generate_keys, one_time_keys, to_prekey_bundle};
use crate::profile::Profile;
use crate::relay::{Acker, Endpoint, RelayClient, SendError};
use alibi_channel::ringxkem::{self, fingerprint, RingXkemBundle, RingXkemPreKey};
use alibi_relay_api::now_ms;

use crate::{Error, Result};

/// The sealed identity file in a messenger's directory.
pub const IDENTITY_FILE: &str = "identity.sealed";
/// The protocol store (every value sealed under the store key).
pub const STORE_FILE: &str = "store.redb";
/// The imported contacts.
pub const CONTACTS_FILE: &str = "contacts.json";
/// This messenger's own card (public).
pub const CARD_FILE: &str = "card.json";

/// One-time prekeys of each kind published at registration and kept topped up to.
const ONE_TIME_KEYS: u32 = 100;
/// A top-up is due when fewer than this many one-time prekeys are left (more than the relay lets
/// one account fetch of another between two checks: 10, then one per 5 minutes).
const TOP_UP_BELOW: u64 = 30;
/// How often a receiving messenger checks how many one-time prekeys the relay has left.
const TOP_UP_EVERY: std::time::Duration = std::time::Duration::from_secs(600);
/// Undecryptable-yet envelopes kept at most (below the relay's window of 64 unacknowledged, so
/// the relay keeps delivering); beyond it the oldest is given up.
const PENDING_MAX: usize = 48;
/// Attempts of one send while the relay corrects the device list.
const SEND_ATTEMPTS: usize = 3;

/// How a messenger is set up.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Argon2id parameters for sealing the identity (default: OWASP's).
    pub kdf: alibi_keyfile::Params,
    /// The relay's trust root as pinned out of band (33 bytes); without it, registration pins
    /// the root the relay announces (trust on first use).
    pub trust_root: Option<Vec<u8>>,
    /// PEM CA certificates to trust for an `https` relay instead of the public roots (kept in
    /// the sealed profile, so later opens trust the same).
    pub relay_ca: Option<Vec<u8>>,
    /// Allow plain `http://` to a relay that is not on loopback (the device password then
    /// crosses the network in clear); kept in the sealed profile. Off: such a relay is refused
    /// with [`Error::InsecureRelay`](crate::Error::InsecureRelay) before any connection.
    pub insecure_http: bool,
}

/// A group: its id (the sender-key distribution id) and its members, by contact name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// The group's id.
    pub id: Uuid,
    /// The members other than this messenger, by contact name.
    pub members: Vec<String>,
}

/// How a message came.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Over the pairwise session.
    Direct,
    /// A group message (its group id).
    Group(Uuid),
}

/// A message the application receives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    /// The sender, by contact name (only contacts are heard).
    pub sender: String,
    /// The sender's device.
    pub device: u8,
    /// Direct or group.
    pub kind: Kind,
    /// The bytes sent.
    pub data: Vec<u8>,
    /// For a group message: the part the sender addressed to this messenger alone, if any.
    pub private: Option<Vec<u8>>,
}

/// The protocol store behind a messenger: sealed redb on disk, or memory.
trait Store: ProtocolStore + SenderKeyStore + Send {}
impl<T: ProtocolStore + SenderKeyStore + Send> Store for T {}

struct Inner {
    client: RelayClient,
    name: String,
    relay_url: String,
    identity: IdentityKeyPair,
    registration_id: u16,
    access_key: AccessKey,
    trust_root: PublicKey,
    store: Mutex<Box<dyn Store>>,
    contacts: Mutex<BTreeMap<String, ContactCard>>,
    dir: Option<PathBuf>,
    /// Per contact: held while its sessions are set up, so concurrent sends fetch one bundle.
    setup: Mutex<HashMap<Uuid, Arc<tokio::sync::Mutex<()>>>>,
    certificate: tokio::sync::Mutex<Option<SenderCertificate>>,
    /// (group, member account) pairs that have our sender key.
    distributed: Mutex<HashSet<(Uuid, Uuid)>>,
    requests: AtomicU64,
    prekey_messages: AtomicU64,
    /// The PQ identity and RingXKEM prekey (absent in profiles made before RingXKEM).
    ringxkem: Option<(alibi_handshake::ringxkem::Identity, RingXkemPreKey)>,
}

/// A Signal-style client on one relay (cheap to clone: clones share everything).
#[derive(Clone)]
pub struct Messenger {
    inner: Arc<Inner>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |error| Error::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Writes `data` to `path` through a temporary file and a rename, mode 0600. The temporary file
/// has a random name and is created exclusively (`O_EXCL`, mode 0600, by `tempfile`): whatever
/// sits in the directory under a name it could have had, such as a planted symlink, is never
/// opened, so the write cannot be redirected to another file.
fn write_private(path: &Path, data: &[u8]) -> Result<()> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".alibi-")
        .tempfile_in(dir)
        .map_err(io(dir))?;
    tmp.write_all(data).map_err(io(path))?;
    tmp.as_file().sync_all().map_err(io(path))?;
    tmp.persist(path).map(drop).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        error: e.error,
    })
}

fn random_bytes<const N: usize>() -> Zeroizing<[u8; N]> {
    let mut b = Zeroizing::new([0u8; N]);
    UnwrapErr(SysRng).fill_bytes(&mut b[..]);
    b
}

fn address(account: Uuid, device: u8) -> Address {
    Address::new(account.to_string(), device.into())
}

impl Messenger {
    /// Registers a new account on the relay at `relay_url` and sets up `dir` (created, mode
    /// 0700): the identity sealed under `passphrase`, the sealed protocol store, and `card.json`.
    /// Refuses a directory that already holds an identity.
    pub async fn register(
        dir: &Path,
        relay_url: &str,
        name: &str,
        passphrase: &[u8],
        options: &Options,
    ) -> Result<Self> {
        let identity_path = dir.join(IDENTITY_FILE);
        if identity_path.exists() {
            return Err(Error::Io {
                path: identity_path,
                error: std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "a messenger is already registered here",
                ),
            });
        }
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                .map_err(io(dir))?;
        }
        let (client, profile) = new_account(relay_url, name, options).await?;
        let store_path = dir.join(STORE_FILE);
        let _ = std::fs::remove_file(&store_path);
        let store = RedbStore::open_sealed(
            &store_path,
            profile.identity_key_pair()?,
            profile.registration_id.into(),
            &*profile.store_key()?,
        )?;
        restrict(&store_path)?;
        let m = Self::assemble(client, &profile, Box::new(store), Some(dir.to_path_buf()))?;
        m.publish_keys(&profile.profile_key()?).await?;
        let sealed = profile.seal(passphrase, options.kdf, &mut UnwrapErr(SysRng))?;
        write_private(&identity_path, &sealed)?;
        m.save_contacts()?;
        let card = dir.join(CARD_FILE);
        std::fs::write(&card, m.card().to_json()).map_err(io(&card))?;
        Ok(m)
    }

    /// Opens the messenger in `dir` with its passphrase, and tops its prekeys up.
    pub async fn open(dir: &Path, passphrase: &[u8]) -> Result<Self> {
        let identity_path = dir.join(IDENTITY_FILE);
        let sealed = std::fs::read(&identity_path).map_err(io(&identity_path))?;
        let profile = Profile::open(&sealed, passphrase)?;
        let store = RedbStore::open_sealed(
            dir.join(STORE_FILE),
            profile.identity_key_pair()?,
            profile.registration_id.into(),
            &*profile.store_key()?,
        )?;
        let client = RelayClient::existing(
            profile.endpoint()?,
            profile.account,
            profile.device,
            &profile.password,
        );
        let m = Self::assemble(client, &profile, Box::new(store), Some(dir.to_path_buf()))?;
        let path = dir.join(CONTACTS_FILE);
        if path.exists() {
            let text = std::fs::read_to_string(&path).map_err(io(&path))?;
            let cards: Vec<ContactCard> =
                serde_json::from_str(&text).map_err(|_| Error::Corrupt(path.clone()))?;
            let mut c = m.contacts();
            for card in cards {
                card.check()?;
                c.insert(card.name.clone(), card);
            }
        }
        m.top_up_prekeys().await?;
        Ok(m)
    }

    /// A messenger that keeps everything in memory (benches, demos, tests): registered now,
    /// gone when dropped.
    pub async fn ephemeral(relay_url: &str, name: &str, options: &Options) -> Result<Self> {
        let (client, profile) = new_account(relay_url, name, options).await?;
        let store =
            InMemoryStore::new(profile.identity_key_pair()?, profile.registration_id.into());
        let m = Self::assemble(client, &profile, Box::new(store), None)?;
        m.publish_keys(&profile.profile_key()?).await?;
        Ok(m)
    }

    fn assemble(
        client: RelayClient,
        profile: &Profile,
        store: Box<dyn Store>,
        dir: Option<PathBuf>,
    ) -> Result<Self> {
        Ok(Self {
            inner: Arc::new(Inner {
                client,
                name: profile.name.clone(),
                relay_url: profile.relay.clone(),
                identity: profile.identity_key_pair()?,
                registration_id: profile.registration_id,
                access_key: derive_access_key(&profile.profile_key()?),
                trust_root: profile.trust_root()?,
                store: Mutex::new(store),
                contacts: Mutex::new(BTreeMap::new()),
                dir,
                setup: Mutex::new(HashMap::new()),
                certificate: tokio::sync::Mutex::new(None),
                distributed: Mutex::new(HashSet::new()),
                requests: AtomicU64::new(0),
                prekey_messages: AtomicU64::new(0),
                ringxkem: profile.ringxkem()?,
            }),
        })
    }

    /// Publishes the first prekeys and the access key.
    async fn publish_keys(&self, profile_key: &[u8; 32]) -> Result<()> {
        let keys = {
            let mut store = self.store();
            generate_keys(
                &mut **store,
                ONE_TIME_KEYS,
                ONE_TIME_KEYS,
                &mut UnwrapErr(SysRng),
            )?
        };
        let mut keys = keys;
        if let Some((pq, pk)) = &self.inner.ringxkem {
            keys.ringxkem_pre_key = Some(alibi_relay_api::keys::RingXkemKey {
                id: pk.handshake.id,
                bundle: pk.bundle(pq, self.inner.registration_id.into()).to_bytes(),
            });
        }
        self.inner.client.upload_keys(&keys).await?;
        self.inner
            .client
            .set_access_key(&derive_access_key(profile_key))
            .await
    }

    /// Uploads fresh one-time prekeys if fewer than 30 of either kind are left on the relay;
    /// returns how many of each were added.
    pub async fn top_up_prekeys(&self) -> Result<(u32, u32)> {
        let counts = self.inner.client.key_counts().await?;
        let want = |have: u64| {
            if have < TOP_UP_BELOW {
                ONE_TIME_KEYS - have as u32
            } else {
                0
            }
        };
        let (ec, pq) = (want(counts.count), want(counts.pq_count));
        if ec + pq > 0 {
            let keys = {
                let mut store = self.store();
                one_time_keys(&mut **store, ec, pq, &mut UnwrapErr(SysRng))?
            };
            self.inner.client.upload_keys(&keys).await?;
        }
        Ok((ec, pq))
    }

    fn store(&self) -> MutexGuard<'_, Box<dyn Store>> {
        self.inner.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn contacts(&self) -> MutexGuard<'_, BTreeMap<String, ContactCard>> {
        self.inner
            .contacts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    fn save_contacts(&self) -> Result<()> {
        let Some(dir) = &self.inner.dir else {
            return Ok(());
        };
        let cards: Vec<ContactCard> = self.contacts().values().cloned().collect();
        let text = serde_json::to_vec_pretty(&cards).unwrap_or_default();
        write_private(&dir.join(CONTACTS_FILE), &text)
    }

    /// This messenger's name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Its relay account.
    pub fn account(&self) -> Uuid {
        self.inner.client.account
    }

    /// Its identity key pair. The MPC layer signs its broadcasts with it; nothing else should
    /// need the private half.
    pub fn identity_key_pair(&self) -> &IdentityKeyPair {
        &self.inner.identity
    }

    /// The relay's trust root this messenger pinned.
    pub fn trust_root(&self) -> PublicKey {
        self.inner.trust_root
    }

    /// Requests sent to the relay for sessions and messages (bundles, certificates, sends).
    pub fn requests(&self) -> u64 {
        self.inner.requests.load(Ordering::Relaxed)
    }

    /// This messenger's contact card.
    pub fn card(&self) -> ContactCard {
        ContactCard {
            name: self.inner.name.clone(),
            account: self.inner.client.account,
            devices: vec![Device {
                id: self.inner.client.device,
                registration_id: self.inner.registration_id,
            }],
            identity_key: self.inner.identity.identity.serialize().to_vec(),
            relay: self.inner.relay_url.clone(),
            trust_root: self.inner.trust_root.serialize().to_vec(),
            access_key: self.inner.access_key.to_vec(),
            legacy: false,
            pq_identity: self
                .inner
                .ringxkem
                .as_ref()
                .map(|(pq, _)| pq.public_key().to_bytes())
                .unwrap_or_default(),
            handshake: Handshake::Pqxdh,
        }
    }

    /// Imports (pins) a contact. The card's trust root must be the one this messenger pinned.
    /// Importing a card for a known account with another identity key is how a changed identity
    /// is accepted: its sessions are dropped and the new key pinned.
    pub fn import(&self, card: &ContactCard) -> Result<()> {
        card.check()?;
        if card.account == self.account() {
            return Err(Error::Card(format!(
                "{} is this messenger's own card",
                card.name
            )));
        }
        if card.root()? != self.inner.trust_root {
            return Err(Error::TrustRoot(format!(
                "{}'s card pins another trust root for the relay than this messenger did",
                card.name
            )));
        }
        // What sessions with it are checked against: its identity key, or for RingXKEM its PQ
        // identity's fingerprint (switching the handshake drops the sessions, as a new key does).
        let identity = card.session_identity()?;
        {
            let mut contacts = self.contacts();
            let old = contacts
                .values()
                .find(|c| c.account == card.account)
                .cloned();
            if let Some(old) = &old {
                contacts.remove(&old.name);
            }
            if let Some(other) = contacts.get(&card.name) {
                return Err(Error::Card(format!(
                    "another contact is already named {} (account {})",
                    card.name, other.account
                )));
            }
            let mut store = self.store();
            for d in &card.devices {
                let addr = address(card.account, d.id);
                if store.save_identity(&addr, &identity)? {
                    // A new identity: sessions under the old one must not continue.
                    store.store_session(&addr, &SessionRecord::default())?;
                }
            }
            drop(store);
            contacts.insert(card.name.clone(), card.clone());
        }
        self.save_contacts()
    }

    /// The imported contacts.
    pub fn contact_cards(&self) -> Vec<ContactCard> {
        self.contacts().values().cloned().collect()
    }

    fn contact(&self, name: &str) -> Result<ContactCard> {
        self.contacts()
            .get(name)
            .cloned()
            .ok_or_else(|| Error::UnknownContact(name.to_string()))
    }

    fn contact_by_account(&self, account: &str) -> Option<ContactCard> {
        let account = Uuid::parse_str(account).ok()?;
        self.contacts()
            .values()
            .find(|c| c.account == account)
            .cloned()
    }

    fn update_devices(&self, name: &str, f: impl FnOnce(&mut Vec<Device>)) -> Result<()> {
        {
            let mut contacts = self.contacts();
            if let Some(c) = contacts.get_mut(name) {
                f(&mut c.devices);
            }
        }
        self.save_contacts()
    }

    /// Opens a PQXDH session with every device of `contact` that has none, from bundles checked
    /// against the pinned identity. Returns (device, registration id) of each device.
    async fn ensure_sessions(&self, contact: &ContactCard) -> Result<Vec<(u8, u16)>> {
        let lock = self
            .inner
            .setup
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(contact.account)
            .or_default()
            .clone();
        let _held = lock.lock().await;
        let contact = self.contact(&contact.name)?;
        let missing: Vec<u8> = {
            let store = self.store();
            let mut missing = vec![];
            for d in &contact.devices {
                let has = store
                    .load_session(&address(contact.account, d.id))?
                    .is_some_and(|r| r.current().is_some());
                if !has {
                    missing.push(d.id);
                }
            }
            missing
        };
        if !missing.is_empty() {
            self.fetch_sessions(&contact, &missing).await?;
        }
        let contact = self.contact(&contact.name)?;
        let store = self.store();
        contact
            .devices
            .iter()
            .map(|d| {
                let reg = store
                    .load_session(&address(contact.account, d.id))?
                    .and_then(|r| r.current().map(|s| s.remote_registration_id()))
                    .unwrap_or(d.registration_id.into());
                Ok((d.id, reg as u16))
            })
            .collect()
    }

    async fn fetch_sessions(&self, contact: &ContactCard, devices: &[u8]) -> Result<()> {
        let pinned = contact.identity()?;
        let session_identity = contact.session_identity()?;
        let which = match devices {
            [one] => Some(*one),
            _ => None,
        };
        self.inner.requests.fetch_add(1, Ordering::Relaxed);
        let response = self
            .inner
            .client
            .fetch_bundles(contact.account, which)
            .await?;
        if IdentityKey::deserialize(&response.identity_key).ok() != Some(pinned) {
            return Err(Error::IdentityMismatch {
                contact: contact.name.clone(),
                what: "the relay's prekey bundle carries another identity key",
            });
        }
        for b in response
            .devices
            .iter()
            .filter(|b| devices.contains(&b.device_id))
        {
            let addr = address(contact.account, b.device_id);
            let opened = if contact.handshake == Handshake::Ringxkem {
                self.ringxkem_session(contact, &addr, b)
            } else {
                if b.pq_pre_key.is_none() && !contact.legacy {
                    return Err(Error::Downgrade(contact.name.clone()));
                }
                let bundle = to_prekey_bundle(b, &pinned, contact.legacy)?;
                let mut store = self.store();
                store.save_identity(&addr, &session_identity)?;
                process_prekey_bundle(
                    &addr,
                    &mut **store,
                    &bundle,
                    SystemTime::now(),
                    &mut UnwrapErr(SysRng),
                )
            };
            opened.map_err(|e| match e {
                alibi_channel::Error::Handshake(_) | alibi_channel::Error::UntrustedIdentity(_) => {
                    Error::IdentityMismatch {
                        contact: contact.name.clone(),
                        what: "the prekey bundle's signatures do not verify under the pinned identity",
                    }
                }
                e => Error::Protocol(e),
            })?;
            let reg = b.registration_id;
            self.update_devices(&contact.name, |ds| {
                for d in ds.iter_mut().filter(|d| d.id == b.device_id) {
                    d.registration_id = reg;
                }
            })?;
        }
        Ok(())
    }

    /// Opens a RingXKEM session with one device of `contact` from the bundle the relay handed
    /// out, checked against the PQ identity pinned in the contact's card.
    fn ringxkem_session(
        &self,
        contact: &ContactCard,
        addr: &Address,
        b: &alibi_relay_api::keys::DeviceBundle,
    ) -> core::result::Result<(), alibi_channel::Error> {
        let refuse = || {
            alibi_channel::Error::Handshake(alibi_handshake::Error::BadSignature("RingXKEM bundle"))
        };
        let (ours, _) = self.inner.ringxkem.as_ref().ok_or_else(refuse)?;
        let pinned = contact.pq().map_err(|_| refuse())?;
        let key = b.ringxkem_pre_key.as_ref().ok_or_else(refuse)?;
        let bundle = RingXkemBundle::from_bytes(crate::card::PQ_SUITE, &key.bundle)?;
        if bundle.handshake.identity.to_bytes() != pinned.to_bytes() {
            return Err(alibi_channel::Error::UntrustedIdentity(addr.to_string()));
        }
        let mut store = self.store();
        store.save_identity(addr, &fingerprint(&pinned))?;
        ringxkem::initiate(
            addr,
            &mut **store,
            ours,
            &bundle,
            SystemTime::now(),
            &mut UnwrapErr(SysRng),
        )
    }

    /// Encrypts `content` for every device of `contact` and sends it in one request, correcting
    /// the device list as the relay reports it (409, 410).
    async fn send_content(&self, contact: &ContactCard, content: &[u8]) -> Result<()> {
        let mut last = None;
        for _ in 0..SEND_ATTEMPTS {
            let devices = self.ensure_sessions(contact).await?;
            let messages = {
                let mut store = self.store();
                devices
                    .iter()
                    .map(|&(d, reg)| {
                        let m = encrypt(
                            &address(contact.account, d),
                            &mut **store,
                            content,
                            SystemTime::now(),
                        )?;
                        Ok(OutgoingMessage {
                            // A RingXKEM first message travels as a PreKey envelope; its
                            // version byte (0x54) tells it apart on receipt.
                            kind: envelope::Type::of_pairwise(m.message_type()) as u32,
                            destination_device_id: d,
                            destination_registration_id: reg,
                            content: m.serialize().to_vec(),
                        })
                    })
                    .collect::<Result<Vec<_>>>()?
            };
            self.inner.requests.fetch_add(1, Ordering::Relaxed);
            match self.inner.client.send(contact.account, messages).await? {
                Ok(()) => return Ok(()),
                Err(e) => {
                    self.correct_devices(contact, &e)?;
                    last = Some(e);
                }
            }
        }
        Err(Error::Send {
            contact: contact.name.clone(),
            error: last.unwrap_or(SendError::Other(0, String::new())),
        })
    }

    /// Applies a 409 or 410 to the contact's device list; other answers are final.
    fn correct_devices(&self, contact: &ContactCard, e: &SendError) -> Result<()> {
        match e {
            SendError::MismatchedDevices { missing, extra } => {
                let identity = contact.session_identity()?;
                {
                    let mut store = self.store();
                    for &d in missing {
                        store.save_identity(&address(contact.account, d), &identity)?;
                    }
                }
                self.update_devices(&contact.name, |ds| {
                    ds.retain(|d| !extra.contains(&d.id));
                    for &id in missing {
                        if !ds.iter().any(|d| d.id == id) {
                            ds.push(Device {
                                id,
                                registration_id: 0,
                            });
                        }
                    }
                })
            }
            SendError::StaleDevices(stale) => {
                let mut store = self.store();
                for &d in stale {
                    store.store_session(&address(contact.account, d), &SessionRecord::default())?;
                }
                Ok(())
            }
            SendError::Other(..) => Err(Error::Send {
                contact: contact.name.clone(),
                error: e.clone(),
            }),
        }
    }

    /// Opens the pairwise sessions with these contacts now (PQXDH from their bundles) rather
    /// than on first use.
    pub async fn open_sessions(&self, contacts: &[String]) -> Result<()> {
        let cards: Vec<ContactCard> = contacts
            .iter()
            .map(|c| self.contact(c))
            .collect::<Result<_>>()?;
        let opens = cards.iter().map(|c| self.ensure_sessions(c));
        for r in futures_util::future::join_all(opens).await {
            r?;
        }
        Ok(())
    }

    /// Prepares `group` ahead of its first message: sessions with every member, our sender key
    /// handed to each, and a sender certificate (Signal's one-time steps).
    pub async fn prepare_group(&self, group: &Group) -> Result<()> {
        let members: Vec<ContactCard> = group
            .members
            .iter()
            .map(|m| self.contact(m))
            .collect::<Result<_>>()?;
        self.certificate().await?;
        self.distribute(group.id, &members).await
    }

    /// Sends `data` to `contact` (every device of it) over the pairwise session, opening it with
    /// PQXDH on first use.
    pub async fn send(&self, contact: &str, data: &[u8]) -> Result<()> {
        let contact = self.contact(contact)?;
        let content = Content {
            data: Some(data.to_vec()),
            ..Content::default()
        }
        .encode_to_vec();
        self.send_content(&contact, &content).await
    }

    /// A sender certificate from the relay, checked against the pinned trust root and this
    /// messenger's own account and identity before it is used.
    async fn certificate(&self) -> Result<SenderCertificate> {
        let mut cached = self.inner.certificate.lock().await;
        if let Some(c) = cached.as_ref() {
            if c.expiration > now_ms() + 60_000 {
                return Ok(c.clone());
            }
        }
        self.inner.requests.fetch_add(1, Ordering::Relaxed);
        let bytes = self.inner.client.sender_certificate().await?;
        let cert = SenderCertificate::deserialize(&bytes).map_err(alibi_channel::Error::from)?;
        if !cert.validate(&[self.inner.trust_root], now_ms()) {
            return Err(Error::TrustRoot(
                "the relay's sender certificate does not chain to the pinned trust root".into(),
            ));
        }
        if cert.sender_uuid != self.account().to_string()
            || cert.key != self.inner.identity.identity.0
        {
            return Err(Error::TrustRoot(
                "the relay's sender certificate names another account or key".into(),
            ));
        }
        *cached = Some(cert.clone());
        Ok(cert)
    }

    /// Hands our sender key for `group` to the members that do not have it, all at once.
    async fn distribute(&self, group: Uuid, members: &[ContactCard]) -> Result<()> {
        let todo: Vec<&ContactCard> = {
            let d = self
                .inner
                .distributed
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            members
                .iter()
                .filter(|m| !d.contains(&(group, m.account)))
                .collect()
        };
        if todo.is_empty() {
            return Ok(());
        }
        let skdm = {
            let mut store = self.store();
            create_distribution_message(
                &self.own_address(),
                group,
                &mut **store,
                &mut UnwrapErr(SysRng),
            )?
        };
        let content = Content {
            sender_key_distribution_message: Some(skdm.serialized().to_vec()),
            ..Content::default()
        }
        .encode_to_vec();
        let sends = todo.iter().map(|m| self.send_content(m, &content));
        for (m, r) in todo.iter().zip(futures_util::future::join_all(sends).await) {
            r?;
            self.inner
                .distributed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert((group, m.account));
        }
        Ok(())
    }

    fn own_address(&self) -> Address {
        address(self.account(), self.inner.client.device)
    }

    /// Sends `data` to every member of `group` as one sender-key message, sealed once for all
    /// (sealed sender v2) in one multi-recipient request; members without our sender key get it
    /// first over their pairwise sessions. Each `(member, bytes)` of `private` rides inside,
    /// Double-Ratchet-encrypted to that member alone.
    pub async fn send_group(
        &self,
        group: &Group,
        data: &[u8],
        private: &[(String, Vec<u8>)],
    ) -> Result<()> {
        let members: Vec<ContactCard> = group
            .members
            .iter()
            .map(|m| self.contact(m))
            .collect::<Result<_>>()?;
        if members.is_empty() {
            return Ok(());
        }
        let certificate = self.certificate().await?;
        self.distribute(group.id, &members).await?;
        let mut last = None;
        for _ in 0..SEND_ATTEMPTS {
            let mut recipients = Vec::with_capacity(members.len());
            let mut parts = vec![];
            for m in &members {
                let m = self.contact(&m.name)?;
                let devices = self.ensure_sessions(&m).await?;
                if let Some((_, bytes)) = private.iter().find(|(n, _)| *n == m.name) {
                    let mut store = self.store();
                    for &(d, _) in &devices {
                        let c = encrypt(
                            &address(m.account, d),
                            &mut **store,
                            bytes,
                            SystemTime::now(),
                        )?;
                        parts.push(PrivatePart {
                            account: m.account.to_string(),
                            device: d.into(),
                            r#type: c.message_type().into(),
                            ciphertext: c.serialize().to_vec(),
                        });
                    }
                }
                recipients.push(Recipient {
                    service_id: ServiceId::aci(m.account),
                    identity: m.identity()?,
                    devices,
                });
            }
            let content = Content {
                data: Some(data.to_vec()),
                sender_key_distribution_message: None,
                private_parts: parts,
            }
            .encode_to_vec();
            let sent = {
                let mut store = self.store();
                let skm = group_encrypt(
                    &mut **store,
                    &self.own_address(),
                    group.id,
                    &content,
                    &mut UnwrapErr(SysRng),
                )?;
                let usmc = UnidentifiedSenderMessageContent::new(
                    ContentType::SenderKey,
                    certificate.clone(),
                    skm.serialized().to_vec(),
                    0,
                    Some(group.id.as_bytes().to_vec()),
                );
                v2::encrypt(
                    &usmc,
                    &self.inner.identity,
                    &recipients,
                    &[],
                    &mut UnwrapErr(SysRng),
                )
                .map_err(alibi_channel::Error::from)?
            };
            let keys: Vec<AccessKey> = members
                .iter()
                .map(ContactCard::access)
                .collect::<Result<_>>()?;
            self.inner.requests.fetch_add(1, Ordering::Relaxed);
            match self.inner.client.multi_send(sent, &combine(&keys)).await? {
                Ok(()) => return Ok(()),
                Err(e) => {
                    // The relay names devices, not accounts: apply the list to every member it
                    // fits (a 409 here names one account's devices in Signal; ours sends one
                    // device per member, so a correction means a re-registration).
                    for m in &members {
                        self.correct_devices(m, &e)?;
                    }
                    last = Some(e);
                }
            }
        }
        Err(Error::Send {
            contact: format!("group {}", group.id),
            error: last.unwrap_or(SendError::Other(0, String::new())),
        })
    }

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
            let mut pending: VecDeque<Envelope> = VecDeque::new();
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
                if env
                    .guid()
                    .is_some_and(|g| pending.iter().any(|p| p.guid() == Some(g)))
                {
                    continue;
                }
                let mut queue = VecDeque::from([env]);
                while let Some(env) = queue.pop_front() {
                    match me.process(&env) {
                        Outcome::Deliver(r) => {
                            if tx.send((r, env.guid())).await.is_err() {
                                return;
                            }
                        }
                        Outcome::Consumed => task_acker.ack(env.guid()),
                        Outcome::Dropped(why) => {
                            task_rejected
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .note(why);
                            task_acker.ack(env.guid());
                            continue;
                        }
                        Outcome::Later => {
                            pending.push_back(env);
                            if pending.len() > PENDING_MAX {
                                if let Some(old) = pending.pop_front() {
                                    task_acker.ack(old.guid());
                                }
                            }
                            continue;
                        }
                    }
                    // Progress: what waited may decrypt now.
                    queue.extend(pending.drain(..));
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

    /// The relay client (for [`crate::fuzzing`]).
    pub(crate) fn relay_client(&self) -> &RelayClient {
        &self.inner.client
    }

    /// What the store holds (for [`crate::fuzzing`]'s callers, the tests): whether there is a
    /// session with and an identity pinned for `(account, device)`, and whether the one-time
    /// prekeys `one_time` (EC) and `kem` (ML-KEM) are still unused.
    pub(crate) fn stored(
        &self,
        account: Uuid,
        device: u8,
        one_time: u32,
        kem: u32,
    ) -> (bool, Option<IdentityKey>, bool, bool) {
        let store = self.store();
        let addr = address(account, device);
        (
            store.load_session(&addr).ok().flatten().is_some(),
            store.get_identity(&addr).ok().flatten(),
            store.get_pre_key(one_time).ok().flatten().is_some(),
            store.get_kyber_pre_key(kem).ok().flatten().is_some(),
        )
    }

    /// [`Self::process`], true if it delivers (for [`crate::fuzzing`]).
    pub(crate) fn process_for_fuzzing(&self, env: &Envelope) -> bool {
        matches!(self.process(env), Outcome::Deliver(_))
    }

    /// Decrypts one envelope and decides its fate.
    fn process(&self, env: &Envelope) -> Outcome {
        let r = match env.r#type() {
            envelope::Type::Ciphertext | envelope::Type::PrekeyBundle => self.process_pairwise(env),
            envelope::Type::UnidentifiedSender => self.process_sealed(env),
            _ => Err(Discard::Unexpected),
        };
        r.unwrap_or_else(|d| match d {
            Discard::Later => Outcome::Later,
            d => Outcome::Dropped(d),
        })
    }

    fn process_pairwise(&self, env: &Envelope) -> core::result::Result<Outcome, Discard> {
        let contact = self
            .contact_by_account(env.source_service_id())
            .ok_or(Discard::UnknownSender)?;
        let device = u8::try_from(env.source_device()).map_err(|_| Discard::Unexpected)?;
        let ringxkem_version = alibi_channel::message::RINGXKEM_VERSION;
        let kind = match env.r#type() {
            envelope::Type::PrekeyBundle
                if env.content().first().map(|b| b >> 4) == Some(ringxkem_version) =>
            {
                alibi_channel::ringxkem::MESSAGE_TYPE
            }
            t => t.pairwise_message_type(),
        };
        let m =
            CiphertextMessage::deserialize(kind, env.content()).map_err(|_| Discard::Malformed)?;
        let addr = address(contact.account, device);
        let plaintext = match &m {
            CiphertextMessage::RingXkem(r) => {
                // Only from a contact set to RingXKEM, and only with the PQ identity pinned.
                let pinned = (contact.handshake == Handshake::Ringxkem)
                    .then(|| contact.pq().ok())
                    .flatten();
                if pinned.map(|p| p.to_bytes()) != Some(r.initiator.clone()) {
                    return Err(Discard::IdentityMismatch(contact.name));
                }
                let (ours, pk) = self.inner.ringxkem.as_ref().ok_or(Discard::Unexpected)?;
                self.inner.prekey_messages.fetch_add(1, Ordering::Relaxed);
                let mut store = self.store();
                ringxkem::accept(&addr, &mut **store, ours, pk, r, &mut UnwrapErr(SysRng))
                    .map_err(Discard::from)?
            }
            _ => {
                if let CiphertextMessage::PreKey(p) = &m {
                    if Some(p.identity_key) != contact.identity().ok()
                        || contact.handshake != Handshake::Pqxdh
                    {
                        return Err(Discard::IdentityMismatch(contact.name));
                    }
                    self.inner.prekey_messages.fetch_add(1, Ordering::Relaxed);
                }
                let mut store = self.store();
                decrypt(&addr, &mut **store, &m, &mut UnwrapErr(SysRng)).map_err(Discard::from)?
            }
        };
        self.open_content(&contact, device, &addr, Kind::Direct, &plaintext)
    }

    /// A sealed envelope. Its outer layer opens with our identity key alone; the sender it names
    /// is then checked against the cards (a contact, under the key its card pins, from a device
    /// the card lists) before the inner message is decrypted, since that can build a session,
    /// pin an identity and use up a one-time prekey: a stranger, or a relay forging certificates
    /// under its trust root, touches nothing in the store.
    fn process_sealed(&self, env: &Envelope) -> core::result::Result<Outcome, Discard> {
        let usmc = sealed_sender::decrypt_to_usmc(env.content(), &self.inner.identity)
            .map_err(|e| Discard::from(alibi_channel::Error::from(e)))?;
        let cert = &usmc.sender;
        let contact = self
            .contact_by_account(&cert.sender_uuid)
            .ok_or(Discard::UnknownSender)?;
        let pinned = contact.identity().ok();
        if Some(IdentityKey(cert.key)) != pinned {
            return Err(Discard::IdentityMismatch(contact.name));
        }
        let device = u8::try_from(cert.device_id).map_err(|_| Discard::Unexpected)?;
        if !contact.devices.iter().any(|d| d.id == device) {
            return Err(Discard::UnlistedDevice(contact.name, device));
        }
        if usmc.msg_type == ContentType::PreKey {
            let m = CiphertextMessage::deserialize(3, &usmc.contents)
                .map_err(|_| Discard::Malformed)?;
            let CiphertextMessage::PreKey(p) = m else {
                return Err(Discard::Malformed);
            };
            if Some(p.identity_key) != pinned || contact.handshake != Handshake::Pqxdh {
                return Err(Discard::IdentityMismatch(contact.name));
            }
            self.inner.prekey_messages.fetch_add(1, Ordering::Relaxed);
        }
        // A contact's message that cannot be decrypted yet (Discard::Later) waits; only contacts
        // get this far, so strangers cannot fill the waiting room.
        let opened = {
            let mut store = self.store();
            sealed_sender::decrypt_usmc(
                &usmc,
                &[self.inner.trust_root],
                now_ms(),
                &self.own_address(),
                &mut **store,
                &mut UnwrapErr(SysRng),
            )
            .map_err(Discard::from)?
        };
        let addr = address(contact.account, device);
        let kind = match (opened.msg_type, opened.distribution_id) {
            (ContentType::SenderKey, Some(id)) => Kind::Group(id),
            _ => Kind::Direct,
        };
        self.open_content(&contact, device, &addr, kind, &opened.plaintext)
    }

    fn open_content(
        &self,
        contact: &ContactCard,
        device: u8,
        addr: &Address,
        kind: Kind,
        plaintext: &[u8],
    ) -> core::result::Result<Outcome, Discard> {
        let content = Content::decode(plaintext).map_err(|_| Discard::Malformed)?;
        if let Some(b) = &content.sender_key_distribution_message {
            let skdm =
                SenderKeyDistributionMessage::deserialize(b).map_err(|_| Discard::Malformed)?;
            let mut store = self.store();
            process_distribution_message(addr, &skdm, &mut **store).map_err(Discard::from)?;
        }
        let Some(data) = content.data else {
            return Ok(Outcome::Consumed);
        };
        let me = self.account().to_string();
        let own_device = u32::from(self.inner.client.device);
        let private = content
            .private_parts
            .iter()
            .find(|p| p.account == me && p.device == own_device)
            .and_then(|p| {
                let m = CiphertextMessage::deserialize(p.r#type as u8, &p.ciphertext).ok()?;
                if let CiphertextMessage::PreKey(pk) = &m {
                    if Some(pk.identity_key) != contact.identity().ok() {
                        return None;
                    }
                }
                let mut store = self.store();
                decrypt(addr, &mut **store, &m, &mut UnwrapErr(SysRng)).ok()
            });
        Ok(Outcome::Deliver(Received {
            sender: contact.name.clone(),
            device,
            kind,
            data,
            private,
        }))
    }
}

/// A new identity, device password, profile key and store key, the trust root pinned, and the
/// account registered on the relay.
async fn new_account(
    relay_url: &str,
    name: &str,
    options: &Options,
) -> Result<(RelayClient, Profile)> {
    let mut rng = UnwrapErr(SysRng);
    let identity = IdentityKeyPair::generate(&mut rng);
    let registration_id = (rng.next_u32() % 0x3FFF + 1) as u16;
    let password: String = random_bytes::<24>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut endpoint = Endpoint::new(relay_url).allow_insecure_http(options.insecure_http);
    endpoint.check()?;
    if let Some(ca) = &options.relay_ca {
        endpoint = endpoint.with_ca(ca)?;
    }
    let trust_root = pin_trust_root(&endpoint, options).await?;
    // The post-quantum identity and its RingXKEM prekey (medium-term, like a signed prekey).
    let pq = alibi_handshake::ringxkem::Identity::generate(crate::card::PQ_SUITE, &mut rng);
    let ringxkem_pre_key = RingXkemPreKey::generate(&pq, 1, &mut rng);
    let client = RelayClient::register(
        &endpoint,
        &identity.identity.serialize(),
        registration_id,
        &password,
    )
    .await?;
    let profile = Profile {
        name: name.to_string(),
        relay: endpoint.nodes(),
        relay_ca: options.relay_ca.clone().unwrap_or_default(),
        insecure_http: options.insecure_http,
        account: client.account,
        device: client.device,
        registration_id,
        password,
        identity: identity.private.to_bytes().to_vec(),
        profile_key: random_bytes::<32>().to_vec(),
        trust_root: trust_root.serialize().to_vec(),
        store_key: random_bytes::<32>().to_vec(),
        pq_identity: pq.to_bytes().to_vec(),
        ringxkem_pre_key: ringxkem_pre_key.to_bytes().to_vec(),
    };
    Ok((client, profile))
}

/// Pins the relay's trust root: the one given, or the one the relay announces.
async fn pin_trust_root(endpoint: &Endpoint, options: &Options) -> Result<PublicKey> {
    let bytes = match &options.trust_root {
        Some(b) => b.clone(),
        None => {
            RelayClient::existing(endpoint, Uuid::nil(), 1, "")
                .trust_root()
                .await?
        }
    };
    PublicKey::deserialize(&bytes).map_err(|_| Error::TrustRoot("not a 33-byte key".into()))
}

#[cfg(unix)]
fn restrict(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io(path))
}

#[cfg(not(unix))]
fn restrict(_: &Path) -> Result<()> {
    Ok(())
}

/// What became of an envelope.
enum Outcome {
    /// A message for the application.
    Deliver(Received),
    /// Handled inside the messenger (a sender key).
    Consumed,
    /// Not decryptable yet: kept, tried again after the next progress.
    Later,
    /// Given up on.
    Dropped(Discard),
}

/// Why an envelope was given up on.
#[derive(Debug)]
enum Discard {
    Later,
    UnknownSender,
    IdentityMismatch(String),
    /// A certificate for a device the contact's card does not list (contact, device).
    UnlistedDevice(String, u8),
    Malformed,
    Unexpected,
    Protocol(String),
}

impl core::fmt::Display for Discard {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Discard::Later => f.write_str("not decryptable yet"),
            Discard::UnknownSender => f.write_str("from no contact"),
            Discard::IdentityMismatch(c) => {
                write!(f, "identity of contact {c} does not match its card")
            }
            Discard::UnlistedDevice(c, d) => {
                write!(f, "device {d} of contact {c} is not on its card")
            }
            Discard::Malformed => f.write_str("malformed"),
            Discard::Unexpected => f.write_str("unexpected envelope"),
            Discard::Protocol(e) => write!(f, "does not decrypt: {e}"),
        }
    }
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

impl From<alibi_channel::Error> for Discard {
    fn from(e: alibi_channel::Error) -> Self {
        match e {
            // The sender key or the session comes in a message the relay has not delivered yet.
            alibi_channel::Error::NoSenderKey(_) | alibi_channel::Error::NoSession(_) => {
                Discard::Later
            }
            alibi_channel::Error::UntrustedIdentity(a) => Discard::IdentityMismatch(a),
            e => Discard::Protocol(e.to_string()),
        }
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
