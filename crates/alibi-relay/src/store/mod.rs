//! Storage behind one trait, with two real backends: [`redb::RedbRelayStore`] (embedded, the
//! default) and [`postgres::PgRelayStore`] (the scale-out path: several relays on one database).

pub mod postgres;
pub mod redb;

use async_trait::async_trait;
use uuid::Uuid;

use crate::access::AccessKey;
use crate::proto::Envelope;
use crate::Result;

/// A device of an account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Device id, 1..=127 (1 is the primary).
    pub device_id: u8,
    /// The device's registration id (14 bits).
    pub registration_id: u16,
    /// SHA-256 of the device's secret (its HTTP Basic password).
    pub secret_hash: [u8; 32],
}

/// A signed prekey or KEM prekey as uploaded: id, public key, signature (all checked on upload).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SignedKey {
    /// Key id.
    pub id: u32,
    /// Public key, typed encoding.
    #[serde(with = "crate::b64")]
    pub public: Vec<u8>,
    /// XEdDSA signature by the identity key.
    #[serde(with = "crate::b64")]
    pub signature: Vec<u8>,
}

/// A one-time EC prekey.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OneTimeKey {
    /// Key id.
    pub id: u32,
    /// Public key (33 bytes).
    #[serde(with = "crate::b64")]
    pub public: Vec<u8>,
}

/// One device's upload (`PUT /v2/keys`); absent parts leave what is stored.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeysUpload {
    /// The signed prekey.
    #[serde(default)]
    pub signed_pre_key: Option<SignedKey>,
    /// One-time EC prekeys (at most 100), appended.
    #[serde(default)]
    pub pre_keys: Vec<OneTimeKey>,
    /// One-time KEM prekeys (at most 100), appended.
    #[serde(default)]
    pub pq_pre_keys: Vec<SignedKey>,
    /// The last-resort KEM prekey, used when the one-time ones run out.
    #[serde(default)]
    pub pq_last_resort_pre_key: Option<SignedKey>,
}

/// What a prekey fetch hands out for one device.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceBundle {
    /// Device id.
    pub device_id: u8,
    /// Registration id.
    pub registration_id: u16,
    /// The signed prekey.
    pub signed_pre_key: SignedKey,
    /// A one-time EC prekey, if any was left (consumed by this fetch).
    pub pre_key: Option<OneTimeKey>,
    /// A one-time KEM prekey (consumed), or the last-resort one.
    pub pq_pre_key: SignedKey,
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
    /// Stores a device's keys.
    async fn upload_keys(&self, account: Uuid, device: u8, keys: KeysUpload) -> Result<()>;
    /// Takes a device's bundle, consuming one one-time EC prekey and one one-time KEM prekey (or
    /// falling back to the last-resort KEM prekey); `None` without a signed prekey or KEM prekey.
    async fn take_bundle(&self, account: Uuid, device: u8) -> Result<Option<DeviceBundle>>;
    /// How many one-time EC and KEM prekeys a device has left.
    async fn key_counts(&self, account: Uuid, device: u8) -> Result<(usize, usize)>;
    /// Stores envelopes (and, for a multi-recipient send, the shared part once), all or none.
    async fn enqueue(
        &self,
        deliveries: Vec<Delivery>,
        shared: Option<(Uuid, Vec<u8>)>,
    ) -> Result<()>;
    /// Up to `limit` envelopes waiting for a device, oldest first (ids from
    /// [`crate::next_message_id`] grow with time; the redb store orders a mailbox by them).
    async fn pending(&self, account: Uuid, device: u8, limit: usize) -> Result<Vec<Envelope>>;
    /// The shared part of a multi-recipient send.
    async fn shared(&self, key: Uuid) -> Result<Option<Vec<u8>>>;
    /// Deletes an acknowledged envelope of this device (true if it was there); a shared part goes
    /// with the last envelope that refers to it.
    async fn ack(&self, account: Uuid, device: u8, guid: Uuid) -> Result<bool>;
}
