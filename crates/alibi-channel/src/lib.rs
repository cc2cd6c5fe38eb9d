//! Signal-compatible pairwise channels: the Double Ratchet as libsignal runs it, its wire messages,
//! session records that serialize and restore, and the stores behind them.
//!
//! * [`message`]: `SignalMessage` and `PreKeySignalMessage` (protobuf, version byte, 8-byte MAC).
//! * [`ratchet`]: root, chain and message keys (HKDF `"WhisperRatchet"`, HMAC `0x01`/`0x02`,
//!   HKDF `"WhisperMessageKeys"`), AES-256-CBC.
//! * [`session`]: session states and records, with libsignal's limits.
//! * [`store`]: the store traits, an in-memory store and a redb store.
//! * [`cipher`]: processing a prekey bundle, encrypting, decrypting (X3DH and PQXDH sessions).
//! * [`ringxkem`]: fully post-quantum, deniable sessions: the RingXKEM handshake starting the
//!   Double Ratchet with SPQR.
//! * [`sender_keys`]: group messaging with sender keys (distribution messages, group messages).
//! * [`sealed_sender`]: sender certificates, sealed sender v1, and v2 (multi-recipient), from
//!   `alibi-sealed-sender`, and decrypting what they carry.
//!
//! PQXDH sessions run libsignal's Sparse Post-Quantum Ratchet (SPQR, crate `alibi-spqr`), so
//! current libsignal (0.92 and later, which require it) accepts them, while older peers settle on
//! SPQR version 0. Interoperability is tested against libsignal itself
//! (`@signalapp/libsignal-client` 0.103.0 with SPQR, 0.90.0 without, 0.72.1 for X3DH,
//! `tests/channel/libsignal_interop.rs`).

#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod cipher;
pub mod message;
mod proto;
pub mod ratchet;
pub mod ringxkem;
pub mod sealed_sender;
mod sender_key_record;
pub mod sender_keys;
pub mod session;
mod state_cipher;
pub mod store;

pub use cipher::{decrypt, encrypt, encrypt_with_rng, process_prekey_bundle, CiphertextMessage};
pub use message::{PreKeySignalMessage, SignalMessage};
pub use session::{SessionRecord, SessionState};
pub use store::{Address, Direction, InMemoryStore, ProtocolStore, RedbStore};

/// Errors of the channel layer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A key or handshake error.
    #[error(transparent)]
    Handshake(#[from] alibi_handshake::Error),
    /// Bytes that do not parse as the named structure.
    #[error("malformed {0}")]
    Malformed(&'static str),
    /// A message shorter than its fixed parts.
    #[error("message too short ({0} bytes)")]
    TooShort(usize),
    /// A message version below 3 (pre-X3DH libsignal).
    #[error("legacy message version {0}")]
    LegacyVersion(u8),
    /// A message version above 4.
    #[error("unknown message version {0}")]
    UnknownVersion(u8),
    /// A message whose version differs from its session's.
    #[error("message version {message} does not match the session's {session}")]
    VersionMismatch {
        /// The message's version.
        message: u8,
        /// The session's version.
        session: u8,
    },
    /// The message failed authentication or decryption.
    #[error("invalid message: {0}")]
    InvalidMessage(&'static str),
    /// A message whose key was already used (a replay or duplicate).
    #[error("duplicate message (chain index {chain_index}, counter {counter})")]
    Duplicate {
        /// The receiving chain's next index.
        chain_index: u32,
        /// The message's counter.
        counter: u32,
    },
    /// A message more than 25,000 steps ahead on its chain.
    #[error("message from too far into the future (jump of {0})")]
    TooFarAhead(u32),
    /// No session with this address.
    #[error("no session with {0}")]
    NoSession(String),
    /// The identity store refuses this identity key for the address.
    #[error("untrusted identity for {0}")]
    UntrustedIdentity(String),
    /// A prekey the message names is not in the store.
    #[error("no {kind} prekey with id {id}")]
    NoPreKey {
        /// One-time, signed or KEM.
        kind: &'static str,
        /// The id.
        id: u32,
    },
    /// The session was set up too long ago without an answer (libsignal: 30 days).
    #[error("stale unacknowledged session")]
    StaleSession,
    /// No sender-key state for this distribution (or chain).
    #[error("no sender key state for distribution {0}")]
    NoSenderKey(uuid::Uuid),
    /// A sealed-sender message that fails to open or authenticate.
    #[error("sealed sender: {0}")]
    SealedSender(&'static str),
    /// A sender certificate that is malformed, not signed through the trust root, or expired.
    #[error("sender certificate: {0}")]
    Certificate(&'static str),
    /// A sealed-sender message from ourselves.
    #[error("sealed sender message from this very device")]
    SelfSend,
    /// A store failed.
    #[error("store: {0}")]
    Store(String),
    /// The store's file is held by another process (its lock is taken): it is busy, not broken.
    #[error("{} is in use by another process", .0.display())]
    Busy(std::path::PathBuf),
    /// The message's post-quantum ratchet (SPQR) field is refused.
    #[error("post-quantum ratchet: {0}")]
    PostQuantumRatchet(alibi_spqr::Error),
}

/// The crate's result type.
pub type Result<T> = core::result::Result<T, Error>;

/// The key layer's errors, as handshake errors (as they were when the keys were
/// `alibi-handshake`'s).
impl From<alibi_identity::Error> for Error {
    fn from(e: alibi_identity::Error) -> Self {
        Error::Handshake(e.into())
    }
}

/// Sealed sender's errors, under the names they had when sealed sender was this crate's.
impl From<alibi_sealed_sender::Error> for Error {
    fn from(e: alibi_sealed_sender::Error) -> Self {
        use alibi_sealed_sender::Error as E;
        match e {
            E::Key(k) => k.into(),
            E::Malformed(what) => Error::Malformed(what),
            E::TooShort(n) => Error::TooShort(n),
            E::SealedSender(what) => Error::SealedSender(what),
            E::Certificate(what) => Error::Certificate(what),
        }
    }
}

/// Entry points for the fuzz targets.
#[doc(hidden)]
pub mod fuzzing {
    /// Runs every decoder of the store's records on `data`.
    pub fn store_records(data: &[u8]) {
        crate::store::fuzz_decoders(data);
    }

    /// Valid records, plain and sealed, to edit.
    pub fn store_samples<R: rand_core::CryptoRng + ?Sized>(rng: &mut R) -> Vec<Vec<u8>> {
        crate::store::fuzz_samples(rng)
    }
}
