//! The relay: Signal-Server's semantics for a prekey directory, mailboxes, multi-recipient sends
//! and WebSocket delivery (`../shared/specs/signal-stack.md`, section 4), on an embedded redb store
//! or on PostgreSQL.
//!
//! * [`store`]: the storage trait and both backends.
//! * [`server`]: the axum application (`alibi relay serve`).
//! * [`local`]: a relay inside the calling process (tests, benches, demos).
//!
//! What goes over the wire is `alibi-relay-api`; the client is `alibi-messenger`.

#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod local;
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
    /// A device's mailbox is full (envelopes or bytes at the quota): the send is refused whole.
    #[error("the mailbox of {0}.{1} is full")]
    MailboxFull(uuid::Uuid, u8),
    /// The sender's share of a device's mailbox is used up (others may still send to it).
    #[error("the sender's share of the mailbox of {0}.{1} is used up")]
    SenderShareFull(uuid::Uuid, u8),
    /// The store was written by an older relay in a form this one no longer accepts.
    #[error("store: {0}")]
    OutdatedStore(&'static str),
    /// The store's layout is newer than this relay's: a newer relay wrote it.
    #[error(
        "the store has layout {found}, newer than this relay's {known}: run the release that \
         wrote it (or a later one), or restore the backup taken before that release's start"
    )]
    NewerStore {
        /// The store's layout.
        found: u32,
        /// This relay's.
        known: u32,
    },
    /// A step upgrading the store failed; its transaction wrote nothing, and the store stays at
    /// layout `from`.
    #[error(
        "upgrading the store from layout {from} to {to} failed, and that step wrote nothing (the \
         store is whole at layout {from}): {reason}"
    )]
    UpgradeFailed {
        /// The layout the store stays at.
        from: u32,
        /// The layout the step would have reached.
        to: u32,
        /// Why it failed.
        reason: String,
    },
    /// The store failed.
    #[error("store: {0}")]
    Store(String),
    /// A client-side failure (transport, or an unexpected answer).
    #[error("client: {0}")]
    Client(String),
}

/// The crate's result type.
pub type Result<T> = core::result::Result<T, Error>;

/// A new message id (`server_guid`): a UUIDv7 (RFC 9562, section 5.7) whose 74 bits after the
/// millisecond timestamp are a counter (method 2 of section 6.2), so ids only grow within a
/// process and a mailbox keyed by id is in arrival order. The counter starts at a random value
/// each millisecond, so two relays on one database do not collide.
pub fn next_message_id() -> uuid::Uuid {
    use std::sync::Mutex;
    static LAST: Mutex<(u64, u128)> = Mutex::new((0, 0));
    const COUNTER_BITS: u32 = 74;
    let now = alibi_relay_api::now_ms() & ((1 << 48) - 1);
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    let (ms, counter) = if now > last.0 {
        // Leave room to count up by 2^63 within the millisecond.
        let start =
            u128::from(rand_core::Rng::next_u64(&mut rand_core::UnwrapErr(getrandom::SysRng)) >> 1);
        (now, start)
    } else if last.1 + 1 < 1 << COUNTER_BITS {
        (last.0, last.1 + 1)
    } else {
        (last.0 + 1, 0)
    };
    *last = (ms, counter);
    let rand_a = (counter >> 62) as u64 & 0xFFF;
    let rand_b = counter & ((1 << 62) - 1);
    let hi = (ms << 16) | (0x7 << 12) | rand_a;
    uuid::Uuid::from_u128((u128::from(hi) << 64) | (0b10 << 62) | rand_b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_ids_are_v7_and_only_grow() {
        let mut last = next_message_id();
        for _ in 0..100_000 {
            let id = next_message_id();
            assert_eq!(id.get_version_num(), 7);
            assert_eq!(id.get_variant(), uuid::Variant::RFC4122);
            assert!(id > last, "{id} after {last}");
            last = id;
        }
        let ms = (last.as_u128() >> 80) as u64;
        assert!(alibi_relay_api::now_ms().abs_diff(ms) < 60_000);
    }
}
