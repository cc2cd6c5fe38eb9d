//! The relay: Signal-Server's semantics for a prekey directory, mailboxes, multi-recipient sends
//! and WebSocket delivery (`../shared/specs/signal-stack.md`, section 4), on an embedded redb store
//! or on PostgreSQL; and its client.
//!
//! * [`store`]: the storage trait and both backends.
//! * [`server`]: the axum application (`alibi relay serve`).
//! * [`client`]: register, upload keys, fetch bundles, send, multi-send, receive with acks.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod bench;
pub mod client;
pub mod proto;
pub mod server;
pub mod store;

/// Errors of the relay and its stores.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The account already exists.
    #[error("account exists")]
    AccountExists,
    /// No such account or device.
    #[error("not found: {0}")]
    NotFound(&'static str),
    /// A request that does not make sense (the message says why).
    #[error("bad request: {0}")]
    BadRequest(String),
    /// The store failed.
    #[error("store: {0}")]
    Store(String),
    /// A client-side failure (transport, or an unexpected answer).
    #[error("client: {0}")]
    Client(String),
}

/// The crate's result type.
pub type Result<T> = core::result::Result<T, Error>;

/// Serde helpers: bytes as standard base64 strings (Signal-Server's JSON convention).
pub mod b64 {
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Encodes bytes.
    pub fn serialize<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(b))
    }

    /// Decodes bytes.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let s = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(s.as_bytes())
            .map_err(serde::de::Error::custom)
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis() as u64
}
