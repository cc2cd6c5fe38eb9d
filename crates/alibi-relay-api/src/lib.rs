//! The relay's wire contract, shared by the server (`alibi-relay`) and every client
//! (`alibi-messenger`): Signal-Server's routes ([`paths`]), the JSON request, answer and error
//! bodies, the unidentified-access keys, and the protobufs generated from `proto/*.proto` with
//! Signal-Server's field numbers (`../shared/specs/signal-stack.md`, section 4).
//!
//! Bytes in JSON are standard base64 strings, as Signal-Server writes them ([`b64`]).

#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod access;
pub mod accounts;
pub mod certificates;
pub mod keys;
pub mod messages;
pub mod paths;
pub mod proto;

/// The body of every answer that is not a success: a one-line reason, and for the sends the
/// device lists Signal-Server puts in its 404, 409 and 410 answers.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// Why the request failed.
    pub error: String,
    /// 409: devices the account has that the request left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_devices: Option<Vec<u8>>,
    /// 409: devices the request named that the account does not have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_devices: Option<Vec<u8>>,
    /// 410: devices whose registration id changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stale_devices: Option<Vec<u8>>,
    /// 404 of a multi-recipient send: the accounts that do not exist.
    #[serde(default, rename = "uuids404", skip_serializing_if = "Option::is_none")]
    pub uuids_404: Option<Vec<String>>,
    /// 409 and 410 of a multi-recipient send: each account whose device list was wrong, with
    /// its lists (Signal-Server's `[{uuid, devices}]`), so a sender corrects that account alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accounts: Option<Vec<AccountDevices>>,
    /// 413 for a full mailbox: the accounts whose device's mailbox is full (alibi's own), so a
    /// sender can name whom it cannot reach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full: Option<Vec<String>>,
}

/// One account's device lists in a 409 or 410 of a multi-recipient send.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountDevices {
    /// The account (a UUID).
    pub uuid: String,
    /// Its lists.
    pub devices: DeviceLists,
}

/// The device lists of one account (as in a single-account 409 or 410).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceLists {
    /// Devices the account has that the request left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_devices: Vec<u8>,
    /// Devices the request named that the account does not have.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_devices: Vec<u8>,
    /// Devices whose registration id changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale_devices: Vec<u8>,
}

impl ErrorBody {
    /// A body with only a reason.
    pub fn new(error: impl Into<String>) -> Self {
        Self {
            error: error.into(),
            ..Self::default()
        }
    }
}

/// Milliseconds since the Unix epoch: the clock of every timestamp in the contract
/// (`client_timestamp`, `server_timestamp`, certificate expiries).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis() as u64
}

/// Serde helpers: bytes as standard base64 strings (Signal-Server's JSON convention).
pub mod b64 {
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Encodes bytes.
    pub fn serialize<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&encode(b))
    }

    /// Decodes bytes.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let s = String::deserialize(d)?;
        decode(&s).ok_or_else(|| serde::de::Error::custom("not standard base64"))
    }

    /// Standard base64 of `b`.
    pub fn encode(b: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(b)
    }

    /// The bytes of a standard base64 string (surrounding whitespace ignored).
    pub fn decode(s: &str) -> Option<Vec<u8>> {
        base64::engine::general_purpose::STANDARD
            .decode(s.trim())
            .ok()
    }
}
