//! What travels inside the Signal encryption: Signal's `Content` numbering where a field has a
//! Signal counterpart (the sender-key distribution message is field 7), the application's bytes
//! in field 1, and, for a group message, the digests of the per-member parts (each a Double
//! Ratchet message to its member, delivered to it alone) in a field of our own.

use prost::Message;

/// The plaintext of every message the messenger sends.
#[derive(Clone, PartialEq, Message)]
pub(crate) struct Content {
    /// The application's bytes.
    #[prost(bytes = "vec", optional, tag = "1")]
    pub data: Option<Vec<u8>>,
    /// A `SenderKeyDistributionMessage` (Signal's `Content.senderKeyDistributionMessage`).
    #[prost(bytes = "vec", optional, tag = "7")]
    pub sender_key_distribution_message: Option<Vec<u8>>,
    /// In a group message: the parts for single members.
    #[prost(message, repeated, tag = "100")]
    pub private_parts: Vec<PrivatePart>,
}

/// One member's part of a group message.
#[derive(Clone, PartialEq, Message)]
pub(crate) struct PrivatePart {
    /// The member's account (its ACI string).
    #[prost(string, tag = "1")]
    pub account: String,
    /// The member's device.
    #[prost(uint32, tag = "2")]
    pub device: u32,
    /// The Double Ratchet message's type (2 Whisper, 3 PreKey).
    #[prost(uint32, tag = "3")]
    pub r#type: u32,
    /// SHA-256 of the Double Ratchet message, which travels beside the shared message in the
    /// member's envelope alone (`device_part`, see `Client::multi_send_parts`): the sender's
    /// sender-key signature binds the part to this message, so the relay cannot move it to
    /// another.
    #[prost(bytes = "vec", tag = "5")]
    pub digest: Vec<u8>,
}
