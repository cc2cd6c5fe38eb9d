//! Sends: `PUT /v1/messages/{account}` (one message per device of one account, identified by the
//! sender's credentials or, sealed, by the recipient's access key) and their answers.

use serde::{Deserialize, Serialize};

/// One device's message in a `PUT /v1/messages/{account}` request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutgoingMessage {
    /// Envelope type ([`crate::proto::envelope::Type`]): 1 ciphertext, 3 PreKey message,
    /// 6 unidentified sender, 8 plaintext content.
    #[serde(rename = "type")]
    pub kind: u32,
    /// The recipient device.
    pub destination_device_id: u8,
    /// The registration id the sender's session has for that device.
    pub destination_registration_id: u16,
    /// The message.
    #[serde(with = "crate::b64")]
    pub content: Vec<u8>,
}

/// The body of `PUT /v1/messages/{account}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutgoingMessages {
    /// One message per device of the account (every device but the sender's own).
    pub messages: Vec<OutgoingMessage>,
    /// The sender's clock, in milliseconds since the epoch.
    #[serde(default)]
    pub timestamp: u64,
}

/// The answer to a successful send.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendResponse {
    /// Whether the sender's other devices need a sync message (always false here).
    pub needs_sync: bool,
}

/// The answer to a successful multi-recipient send.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MultiRecipientResponse {
    /// Accounts that do not exist (none on success).
    #[serde(rename = "uuids404")]
    pub uuids_404: Vec<String>,
}
