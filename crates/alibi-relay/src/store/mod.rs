//! Storage behind one trait, with two real backends: [`redb::RedbRelayStore`] (embedded, the
//! default) and [`postgres::PgRelayStore`] (the scale-out path: several relays on one database).

pub mod postgres;
pub mod redb;

use async_trait::async_trait;
use uuid::Uuid;

use crate::Result;
use alibi_relay_api::access::AccessKey;
pub use alibi_relay_api::keys::{DeviceBundle, KeysUpload, OneTimeKey, RingXkemKey, SignedKey};
use alibi_relay_api::proto::Envelope;

/// A device of an account.
#[derive(Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Device id, 1..=127 (1 is the primary).
    pub device_id: u8,
    /// The device's registration id (14 bits).
    pub registration_id: u16,
    /// The device's HTTP Basic password as an Argon2id PHC string (`$argon2id$v=19$...`, its own
    /// random salt).
    pub password_hash: String,
}

/// What a store written before device passwords were Argon2id hashes is answered with.
pub const OUTDATED_PASSWORDS: &str = "this store was written by an older relay, which kept device \
passwords as unsalted SHA-256; they cannot be upgraded without the passwords, so this relay \
refuses the store: start it on a new store (--db or --postgres), and let devices register again";

/// The 16 bytes of an envelope's `server_guid` (a UUID string on the wire), the key its device's
/// acknowledgement names; empty if it is no UUID (the relay only stores envelopes it numbered).
pub(crate) fn guid_bytes(env: &Envelope) -> Vec<u8> {
    env.guid()
        .map(|g| g.as_bytes().to_vec())
        .unwrap_or_default()
}

/// What one device's mailbox may hold; a send that would go past it for any of its devices is
/// refused whole ([`crate::Error::MailboxFull`], or [`crate::Error::SenderShareFull`] when only the
/// sender's share is used up).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MailboxQuota {
    /// Envelopes waiting, at most.
    pub messages: u64,
    /// Bytes waiting, at most ([`charged_size`] of each envelope).
    pub bytes: u64,
    /// Envelopes of one [`Sender`] waiting, at most: one sender cannot fill a mailbox alone.
    pub sender_messages: u64,
    /// Bytes of one [`Sender`] waiting, at most.
    pub sender_bytes: u64,
}

/// Which bound of a [`MailboxQuota`] a send would pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Over {
    /// The mailbox's own ([`crate::Error::MailboxFull`]).
    Mailbox,
    /// The sender's share of it ([`crate::Error::SenderShareFull`]).
    SenderShare,
}

impl MailboxQuota {
    /// The quota rule, the one both stores apply: a send that adds `added` (envelopes, charged
    /// bytes) to a mailbox holding `mailbox`, of which `sender` came from this send's sender,
    /// is admitted when neither would pass its bound.
    pub(crate) fn admits(
        &self,
        mailbox: (u64, u64),
        sender: (u64, u64),
        added: (u64, u64),
    ) -> core::result::Result<(), Over> {
        let over = |(n, b): (u64, u64), (max_n, max_b): (u64, u64)| {
            n.saturating_add(added.0) > max_n || b.saturating_add(added.1) > max_b
        };
        if over(mailbox, (self.messages, self.bytes)) {
            return Err(Over::Mailbox);
        }
        if over(sender, (self.sender_messages, self.sender_bytes)) {
            return Err(Over::SenderShare);
        }
        Ok(())
    }

    /// No bound (tests of the store alone).
    pub const UNLIMITED: Self = Self {
        messages: u64::MAX,
        bytes: u64::MAX,
        sender_messages: u64::MAX,
        sender_bytes: u64::MAX,
    };
}

/// Whom a send counts against within a mailbox ([`MailboxQuota::sender_messages`]): the client
/// address it came from (keyed as the relay's limits key it: an IPv4 address, or an IPv6 /48),
/// whether the sender is named or sealed. Accounts cost nothing to make, an address does: one
/// host's accounts share one share, so a handful of them cannot fill a mailbox together. A tag
/// byte (1) keeps these keys apart from the per-account ones of earlier versions still counted
/// in a store; 17 bytes in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sender(pub [u8; 17]);

impl Sender {
    /// A sender by its client address (an IPv4 address as its IPv6-mapped form).
    pub fn address(ip: std::net::IpAddr) -> Self {
        let v6 = match ip {
            std::net::IpAddr::V4(v4) => v4.to_ipv6_mapped(),
            std::net::IpAddr::V6(v6) => v6,
        };
        let mut k = [1u8; 17];
        k[1..].copy_from_slice(&v6.octets());
        Self(k)
    }
}

/// What one send adds to each mailbox it reaches, by mailbox key: (envelopes, [`charged_size`]
/// bytes), from each delivery's key and encoded length.
pub(crate) fn additions<K: std::hash::Hash + Eq>(
    deliveries: impl IntoIterator<Item = (K, usize)>,
    shared_len: usize,
) -> std::collections::HashMap<K, (u64, u64)> {
    let mut added = std::collections::HashMap::new();
    for (key, len) in deliveries {
        let a: &mut (u64, u64) = added.entry(key).or_default();
        a.0 += 1;
        a.1 += charged_size(len, shared_len);
    }
    added
}

/// What an envelope counts against its device's mailbox: its encoding, plus the shared part of a
/// multi-recipient send in full (that is what the device will be sent).
pub fn charged_size(envelope_len: usize, shared_len: usize) -> u64 {
    (envelope_len + shared_len) as u64
}

/// The millisecond timestamp of a message id ([`crate::next_message_id`], UUIDv7): when it was
/// stored, which is what expiry goes by.
pub(crate) fn id_time_ms(guid: &[u8]) -> u64 {
    guid.get(..6).map_or(0, |t| {
        t.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
    })
}

/// What a store shared by several relay processes tells each of them about mail another stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MailSignal {
    /// Mail was committed for this device.
    Mail(Uuid, u8),
    /// Signals may have been missed (the listening connection was re-established): every
    /// connected device's mailbox should be read again.
    Resync,
    /// The device was replaced (its password hash now has this
    /// [`credential_fingerprint`]): its sockets opened under another password must close.
    DeviceReplaced(Uuid, u8, [u8; 32]),
}

/// What identifies a device's credentials without them: SHA-256 of its stored password hash
/// (a replaced device has a new hash, with a new salt, whatever its password).
pub fn credential_fingerprint(password_hash: &str) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(password_hash.as_bytes()).into()
}

/// A mailbox's counters ([`RelayStore::mailbox_usage`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MailboxUsage {
    /// Envelopes waiting.
    pub messages: u64,
    /// Bytes waiting ([`charged_size`]).
    pub bytes: u64,
    /// Envelopes of the sender asked about.
    pub sender_messages: u64,
    /// Bytes of the sender asked about.
    pub sender_bytes: u64,
}

/// One envelope to store: recipient account, device, envelope.
pub type Delivery = (Uuid, u8, Envelope);

/// The relay's storage. Every method is one atomic step.
#[async_trait]
pub trait RelayStore: Send + Sync + 'static {
    /// Creates an account with its primary device; fails if the account exists.
    async fn create_account(
        &self,
        account: Uuid,
        identity_key: &[u8],
        primary: DeviceInfo,
    ) -> Result<()>;
    /// Adds (or replaces) a device.
    async fn add_device(&self, account: Uuid, device: DeviceInfo) -> Result<()>;
    /// The account's identity key.
    async fn identity_key(&self, account: Uuid) -> Result<Option<Vec<u8>>>;
    /// Sets the account's unidentified-access key (fails with `NotFound` without the account).
    async fn set_access_key(&self, account: Uuid, key: AccessKey) -> Result<()>;
    /// The account's unidentified-access key, if it has set one.
    async fn access_key(&self, account: Uuid) -> Result<Option<AccessKey>>;
    /// The account's devices, by id.
    async fn devices(&self, account: Uuid) -> Result<Vec<DeviceInfo>>;
    /// [`RelayStore::devices`] and [`RelayStore::access_key`] of many accounts, in the order
    /// given: what a multi-recipient send checks of its up to 1,000 recipients. By default one
    /// read of each per account; a store across the network overrides it with one round trip
    /// for all (a send otherwise waits for 2,000 of them whenever the relay's one-second cache
    /// of accounts has expired).
    async fn accounts(
        &self,
        accounts: &[Uuid],
    ) -> Result<Vec<(Vec<DeviceInfo>, Option<AccessKey>)>> {
        let mut out = Vec::with_capacity(accounts.len());
        for &a in accounts {
            out.push((self.devices(a).await?, self.access_key(a).await?));
        }
        Ok(out)
    }
    /// Stores a device's keys.
    async fn upload_keys(&self, account: Uuid, device: u8, keys: KeysUpload) -> Result<()>;
    /// Takes a device's bundle, consuming one one-time EC prekey and one one-time KEM prekey (or
    /// falling back to the last-resort KEM prekey); `None` without a signed prekey or KEM prekey.
    async fn take_bundle(&self, account: Uuid, device: u8) -> Result<Option<DeviceBundle>>;
    /// How many one-time EC and KEM prekeys a device has left.
    async fn key_counts(&self, account: Uuid, device: u8) -> Result<(usize, usize)>;
    /// Stores envelopes from `sender` (and, for a multi-recipient send, the shared part once,
    /// counted by reference), all or none: none if any device's mailbox, or `sender`'s share of
    /// it, would pass `quota`. The check reads counters kept with the mailboxes (changed in the
    /// same transaction as the envelopes), never a count of the envelopes.
    async fn enqueue(
        &self,
        deliveries: Vec<Delivery>,
        shared: Option<(Uuid, Vec<u8>)>,
        sender: Sender,
        quota: MailboxQuota,
    ) -> Result<()>;
    /// Up to `limit` envelopes waiting for a device, oldest first (ids from
    /// [`crate::next_message_id`] grow with time; the redb store orders a mailbox by them).
    async fn pending(&self, account: Uuid, device: u8, limit: usize) -> Result<Vec<Envelope>>;
    /// The shared part of a multi-recipient send.
    async fn shared(&self, key: Uuid) -> Result<Option<Vec<u8>>>;
    /// Deletes an acknowledged envelope of this device (true if it was there); a shared part goes
    /// with the last envelope that refers to it.
    async fn ack(&self, account: Uuid, device: u8, guid: Uuid) -> Result<bool>;
    /// Deletes every envelope stored before `before_ms` (Unix milliseconds), releasing shared
    /// parts as acknowledgements do; how many went.
    async fn expire(&self, before_ms: u64) -> Result<u64>;
    /// How many envelopes wait in the store, every device's together (from the kept counters).
    async fn queued(&self) -> Result<u64>;
    /// Envelopes and bytes waiting for a device, and of those, `sender`'s (the kept counters).
    async fn mailbox_usage(
        &self,
        account: Uuid,
        device: u8,
        sender: Sender,
    ) -> Result<MailboxUsage>;
    /// Signals of mail that other relay processes stored, for a store they share; `None` for a
    /// store only this process opens (its own sends wake its sockets). Called once per relay.
    fn mail_signals(&self) -> Option<tokio::sync::mpsc::Receiver<MailSignal>> {
        None
    }
}

/// Without the password hash (an offline guess needs only it).
impl core::fmt::Debug for DeviceInfo {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceInfo")
            .field("device_id", &self.device_id)
            .field("registration_id", &self.registration_id)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod quota_tests {
    use super::*;

    /// The rule both stores apply: up to each bound admitted, one past it refused, the
    /// mailbox's bound before the sender's share.
    #[test]
    fn a_send_is_admitted_up_to_each_bound() {
        let q = MailboxQuota {
            messages: 10,
            bytes: 1000,
            sender_messages: 4,
            sender_bytes: 400,
        };
        assert_eq!(q.admits((8, 900), (2, 300), (2, 100)), Ok(()));
        assert_eq!(q.admits((9, 900), (0, 0), (2, 10)), Err(Over::Mailbox));
        assert_eq!(q.admits((0, 901), (0, 0), (1, 100)), Err(Over::Mailbox));
        assert_eq!(q.admits((3, 0), (3, 0), (2, 10)), Err(Over::SenderShare));
        assert_eq!(
            q.admits((1, 301), (1, 301), (1, 100)),
            Err(Over::SenderShare)
        );
        let unlimited = MailboxQuota::UNLIMITED;
        assert_eq!(unlimited.admits((u64::MAX, 1), (0, 0), (1, 1)), Ok(()));
        let added = additions([("a", 10), ("b", 5), ("a", 20)], 7);
        assert_eq!(added["a"], (2, 44));
        assert_eq!(added["b"], (1, 12));
    }
}
