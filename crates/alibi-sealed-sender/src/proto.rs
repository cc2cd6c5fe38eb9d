//! Protobuf messages of libsignal's `sealed_sender.proto` (proto2, field numbers as there).

use prost::Message;

pub(crate) fn decode<M: Message + Default>(b: &[u8], what: &'static str) -> crate::Result<M> {
    M::decode(b).map_err(|_| crate::Error::Malformed(what))
}

/// `ServerCertificate` of `sealed_sender.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct ServerCertificate {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub certificate: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub signature: Option<Vec<u8>>,
}

/// `ServerCertificate.Certificate`.
#[derive(Clone, PartialEq, Message)]
pub struct ServerCertificateBody {
    #[prost(uint32, optional, tag = "1")]
    pub id: Option<u32>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub key: Option<Vec<u8>>,
}

/// `SenderCertificate` of `sealed_sender.proto` (same shape as the server's).
pub type SenderCertificate = ServerCertificate;

/// `SenderCertificate.Certificate`.
#[derive(Clone, PartialEq, Message)]
pub struct SenderCertificateBody {
    #[prost(string, optional, tag = "1")]
    pub sender_e164: Option<String>,
    #[prost(oneof = "SenderUuid", tags = "6, 7")]
    pub sender_uuid: Option<SenderUuid>,
    #[prost(uint32, optional, tag = "2")]
    pub sender_device: Option<u32>,
    #[prost(fixed64, optional, tag = "3")]
    pub expires: Option<u64>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub identity_key: Option<Vec<u8>>,
    #[prost(oneof = "Signer", tags = "5, 8")]
    pub signer: Option<Signer>,
}

/// The sender's UUID, as a string or as 16 bytes.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum SenderUuid {
    #[prost(string, tag = "6")]
    UuidString(String),
    #[prost(bytes, tag = "7")]
    UuidBytes(Vec<u8>),
}

/// The signer: an embedded server certificate, or the id of a well-known one.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Signer {
    #[prost(bytes, tag = "5")]
    Certificate(Vec<u8>),
    #[prost(uint32, tag = "8")]
    Id(u32),
}

/// `UnidentifiedSenderMessage` (sealed sender v1's envelope).
#[derive(Clone, PartialEq, Message)]
pub struct UnidentifiedSenderMessage {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub ephemeral_public: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub encrypted_static: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub encrypted_message: Option<Vec<u8>>,
}

/// `UnidentifiedSenderMessage.Message`: the unidentified sender message content (USMC).
#[derive(Clone, PartialEq, Message)]
pub struct UnidentifiedSenderMessageContent {
    #[prost(int32, optional, tag = "1")]
    pub r#type: Option<i32>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub sender_certificate: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub content: Option<Vec<u8>>,
    #[prost(int32, optional, tag = "4")]
    pub content_hint: Option<i32>,
    #[prost(bytes = "vec", optional, tag = "5")]
    pub group_id: Option<Vec<u8>>,
}
