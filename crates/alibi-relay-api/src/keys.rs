//! The prekey directory's bodies: `PUT /v2/keys` (upload), `GET /v2/keys` (counts) and
//! `GET /v2/keys/{account}/{device}` (bundles).

use serde::{Deserialize, Serialize};

/// At most this many prekeys of each kind per upload (Signal-Server's limit).
pub const MAX_KEYS_PER_UPLOAD: usize = 100;

/// A signed prekey or KEM prekey: id, public key, XEdDSA signature by the identity key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignedKey {
    /// Key id.
    #[serde(rename = "keyId")]
    pub id: u32,
    /// Public key, typed encoding (`0x05 || X25519`, or `0x08 || Kyber1024`).
    #[serde(rename = "publicKey", with = "crate::b64")]
    pub public: Vec<u8>,
    /// XEdDSA signature of `public` by the identity key.
    #[serde(with = "crate::b64")]
    pub signature: Vec<u8>,
}

/// A one-time EC prekey.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OneTimeKey {
    /// Key id.
    #[serde(rename = "keyId")]
    pub id: u32,
    /// Public key (33 bytes).
    #[serde(rename = "publicKey", with = "crate::b64")]
    pub public: Vec<u8>,
}

/// Largest RingXKEM bundle the relay keeps (the ML-KEM-768 + Falcon-1024 suite's is about 5 KB).
pub const MAX_RINGXKEM_BUNDLE: usize = 8 * 1024;

/// A device's RingXKEM session bundle (alibi's own, no Signal-Server counterpart): opaque to the
/// relay, which only bounds its size; clients check its Falcon signatures against the identity
/// pinned in the contact card, so the relay cannot substitute one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RingXkemKey {
    /// Key id (the RingXKEM prekey's id).
    #[serde(rename = "keyId")]
    pub id: u32,
    /// `alibi_channel::ringxkem::RingXkemBundle::to_bytes`.
    #[serde(with = "crate::b64")]
    pub bundle: Vec<u8>,
}

/// One device's upload (`PUT /v2/keys`); absent parts leave what is stored.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeysUpload {
    /// The signed prekey.
    #[serde(default, rename = "signedPreKey")]
    pub signed_pre_key: Option<SignedKey>,
    /// One-time EC prekeys (at most [`MAX_KEYS_PER_UPLOAD`]), appended.
    #[serde(default, rename = "preKeys")]
    pub pre_keys: Vec<OneTimeKey>,
    /// One-time KEM prekeys (at most [`MAX_KEYS_PER_UPLOAD`]), appended.
    #[serde(default, rename = "pqPreKeys")]
    pub pq_pre_keys: Vec<SignedKey>,
    /// The last-resort KEM prekey, used when the one-time ones run out.
    #[serde(default, rename = "pqLastResortPreKey")]
    pub pq_last_resort_pre_key: Option<SignedKey>,
    /// The RingXKEM session bundle (replaces the stored one; not consumed by fetches).
    #[serde(
        default,
        rename = "ringxkemPreKey",
        skip_serializing_if = "Option::is_none"
    )]
    pub ringxkem_pre_key: Option<RingXkemKey>,
}

/// `GET /v2/keys`: how many one-time prekeys the calling device has left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyCounts {
    /// One-time EC prekeys.
    pub count: u64,
    /// One-time KEM prekeys.
    pub pq_count: u64,
}

/// What a prekey fetch hands out for one device.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// A one-time KEM prekey (consumed), or the last-resort one. A bundle without one is a
    /// pre-PQXDH (X3DH) bundle, which clients refuse unless the contact is marked legacy.
    #[serde(default)]
    pub pq_pre_key: Option<SignedKey>,
    /// The device's RingXKEM session bundle, if it published one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ringxkem_pre_key: Option<RingXkemKey>,
}

/// `GET /v2/keys/{account}/{device}`: the account's identity key and one bundle per device.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreKeyResponse {
    /// The account's identity key as the relay has it (clients compare it with the pinned one).
    #[serde(with = "crate::b64")]
    pub identity_key: Vec<u8>,
    /// One bundle per device asked for.
    pub devices: Vec<DeviceBundle>,
}
