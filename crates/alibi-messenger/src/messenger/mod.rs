//! The [`Messenger`], one file per concern: its account ([`account`]: registration, opening,
//! prekeys, its card), its [`contacts`], its pairwise [`sessions`], what it [`send`]s, and what
//! comes in ([`inbound`] decides one envelope's fate, [`inbox`] runs the receiving task). This
//! file holds what they share: the messenger's state and the types the application sees.

mod account;
mod contacts;
mod inbound;
mod inbox;
mod send;
mod sessions;

pub use inbox::Inbox;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use alibi_channel::ringxkem::RingXkemPreKey;
use alibi_channel::sender_keys::SenderKeyStore;
use alibi_channel::{Address, ProtocolStore};
use alibi_identity::{IdentityKey, IdentityKeyPair, PublicKey};
use alibi_relay_api::access::AccessKey;
use alibi_sealed_sender::SenderCertificate;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::card::ContactCard;
use crate::relay::RelayClient;
use crate::{Error, Result};

/// The sealed identity file in a messenger's directory.
pub const IDENTITY_FILE: &str = "identity.sealed";
/// The protocol store (every value sealed under the store key).
pub const STORE_FILE: &str = "store.redb";
/// The imported contacts.
pub const CONTACTS_FILE: &str = "contacts.json";
/// This messenger's own card (public).
pub const CARD_FILE: &str = "card.json";

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
    /// What the inbound path did, for the tests that check it.
    #[cfg(test)]
    counts: inbound::Counts,
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
    // tempfile names its temporary file in its errors; the user knows the directory.
    let mut tmp = tempfile::Builder::new()
        .prefix(".alibi-")
        .tempfile_in(dir)
        .map_err(|e| {
            let text = e.to_string();
            let cause = text.split(" at path ").next().unwrap_or(&text);
            io(dir)(std::io::Error::new(e.kind(), cause.to_string()))
        })?;
    tmp.write_all(data).map_err(io(path))?;
    tmp.as_file().sync_all().map_err(io(path))?;
    tmp.persist(path).map(drop).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        error: e.error,
    })
}

fn address(account: Uuid, device: u8) -> Address {
    Address::new(account.to_string(), device.into())
}

impl Messenger {
    fn store(&self) -> MutexGuard<'_, Box<dyn Store>> {
        self.inner.store.lock().unwrap_or_else(|e| e.into_inner())
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

    /// The relay client underneath, for what the messenger does not do itself (linking another
    /// device to this account, say). It believes nothing, as the messenger's checks do not
    /// apply to what is done through it.
    pub fn relay_client(&self) -> &crate::RelayClient {
        &self.inner.client
    }

    /// Requests sent to the relay for sessions and messages (bundles, certificates, sends).
    pub fn requests(&self) -> u64 {
        self.inner.requests.load(Ordering::Relaxed)
    }

    /// Bytes of request bodies sent to the relay so far (every request, registration and key
    /// uploads included; HTTP bodies only), for measurement beside [`Messenger::requests`].
    pub fn sent_bytes(&self) -> u64 {
        self.inner.client.sent_bytes()
    }

    /// Keeps trying, for up to `patience`, a request that reaches no relay node (a relay
    /// restarting): see [`crate::Endpoint::set_patience`]. Zero, the default, fails at once.
    pub fn set_patience(&self, patience: std::time::Duration) {
        self.inner.client.endpoint().set_patience(patience);
    }

    /// Bounds each request to the relay and the delivery socket's quiet: see
    /// [`crate::Endpoint::set_request_timeout`].
    pub fn set_request_timeout(&self, timeout: std::time::Duration) {
        self.inner.client.endpoint().set_request_timeout(timeout);
    }

    /// The relay's nodes, comma-separated (for messages that name the relay).
    pub fn relay_nodes(&self) -> String {
        self.inner.client.endpoint().nodes()
    }

    /// Tells `report` while a request is tried again: see [`crate::Endpoint::on_unreachable`].
    pub fn on_unreachable(&self, report: crate::endpoint::OnUnreachable) {
        self.inner.client.endpoint().on_unreachable(report);
    }

    fn own_address(&self) -> Address {
        address(self.account(), self.inner.client.device)
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
}
