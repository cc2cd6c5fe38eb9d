//! The relay's protobuf messages: the envelope a device receives (after Signal-Server's
//! `Envelope`, trimmed to what this relay carries) and the WebSocket framing (Signal-Server's
//! `WebSocketMessage`: requests the server pushes, responses the client acknowledges with).

use prost::Message;

/// A message waiting in, or delivered from, a device's mailbox.
#[derive(Clone, PartialEq, Message)]
pub struct Envelope {
    /// Signal's `Envelope.Type`: 1 ciphertext, 3 PreKey message, 6 unidentified sender.
    #[prost(uint32, tag = "1")]
    pub r#type: u32,
    /// The sending account (absent for sealed sender).
    #[prost(string, optional, tag = "2")]
    pub source_service_id: Option<String>,
    /// The sending device (absent for sealed sender).
    #[prost(uint32, optional, tag = "3")]
    pub source_device: Option<u32>,
    /// The client's timestamp of the send, in milliseconds.
    #[prost(uint64, tag = "4")]
    pub client_timestamp: u64,
    /// The message. For a multi-recipient send, stored as `C || AT` and delivered as the full
    /// sealed-sender v2 `ReceivedMessage`.
    #[prost(bytes = "vec", tag = "5")]
    pub content: Vec<u8>,
    /// The server's id of this envelope (16 bytes); acknowledgements name it.
    #[prost(bytes = "vec", tag = "6")]
    pub server_guid: Vec<u8>,
    /// The server's receipt time, in milliseconds.
    #[prost(uint64, tag = "7")]
    pub server_timestamp: u64,
    /// For a multi-recipient send: the key of the part all recipients share (16 bytes).
    #[prost(bytes = "vec", optional, tag = "8")]
    pub shared_mrm_key: Option<Vec<u8>>,
    /// The recipient device (server-side bookkeeping; not needed by clients).
    #[prost(uint32, tag = "9")]
    pub destination_device: u32,
}

/// Signal-Server's WebSocket frame.
#[derive(Clone, PartialEq, Message)]
pub struct WebSocketMessage {
    /// 1 request, 2 response.
    #[prost(uint32, tag = "1")]
    pub r#type: u32,
    /// A request.
    #[prost(message, optional, tag = "2")]
    pub request: Option<WebSocketRequest>,
    /// A response.
    #[prost(message, optional, tag = "3")]
    pub response: Option<WebSocketResponse>,
}

/// A request frame (the server's `PUT /api/v1/message` and `PUT /api/v1/queue/empty`).
#[derive(Clone, PartialEq, Message)]
pub struct WebSocketRequest {
    /// HTTP verb.
    #[prost(string, tag = "1")]
    pub verb: String,
    /// Path.
    #[prost(string, tag = "2")]
    pub path: String,
    /// Body.
    #[prost(bytes = "vec", tag = "3")]
    pub body: Vec<u8>,
    /// Request id, echoed by the response.
    #[prost(uint64, tag = "4")]
    pub id: u64,
}

/// A response frame: status 200 acknowledges (and deletes) the message.
#[derive(Clone, PartialEq, Message)]
pub struct WebSocketResponse {
    /// The request id.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// HTTP-like status.
    #[prost(uint32, tag = "2")]
    pub status: u32,
}
