//! The Sparse Post-Quantum Ratchet (SPQR), the third ratchet of Signal's triple ratchet, as
//! libsignal runs it (libsignal 0.92 and later make it mandatory).
//!
//! * [`braid`]: the ML-KEM Braid, the sparse continuous key agreement that emits one
//!   post-quantum secret per epoch (Signal's ML-KEM Braid specification).
//! * [`erasure_code`] over [`gf2_16`]: how its 1-kilobyte keys and ciphertexts travel 32 bytes per
//!   message, any large-enough set of chunks being enough.
//! * [`incremental_ml_kem`]: ML-KEM-768 cut into header, vector, `ct1` and `ct2`.
//! * [`authenticator`]: the MACs that bind the Braid to the handshake.
//! * [`chain`]: the per-message keys each epoch's secret starts.
//! * [`message`]: the `pq_ratchet` bytes of a `SignalMessage`.
//!
//! [`State`] puts them together with version negotiation: a session starts willing to run
//! version 1 but, if allowed by its minimum version, drops to version 0 (no SPQR) the first time
//! the peer's message carries no SPQR field, so peers without SPQR still talk to us. Every
//! [`State::send`] yields the bytes for the message's `pq_ratchet` field and, once keys flow, a
//! 32-byte key the Double Ratchet mixes into that message's keys; [`State::recv`] takes the
//! field and yields the same key. A failed `recv` leaves the state as it was.

#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod authenticator;
pub mod braid;
pub mod chain;
pub mod erasure_code;
pub mod gf2_16;
pub mod incremental_ml_kem;
mod kdf;
pub mod message;
mod record;

use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::braid::Braid;
pub use crate::chain::{Chain, ChainParams};
use crate::message::Message;

/// An SPQR epoch number (epoch 0 is the handshake's).
pub type Epoch = u64;

/// SPQR errors.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Bytes that are not an SPQR message or state.
    #[error("malformed SPQR data: {0}")]
    Malformed(&'static str),
    /// A message of an epoch we cannot be in.
    #[error("SPQR epoch {0} out of range")]
    EpochOutOfRange(Epoch),
    /// The encapsulation-key header's MAC does not verify.
    #[error("SPQR header MAC verification failed")]
    HeaderMac,
    /// The ciphertext's MAC does not verify.
    #[error("SPQR ciphertext MAC verification failed")]
    CiphertextMac,
    /// The encapsulation key does not match its header.
    #[error("SPQR encapsulation key does not match its header")]
    EkMismatch,
    /// A message key used already (a replay) or never kept.
    #[error("SPQR key {0} already used")]
    KeyAlreadyUsed(u32),
    /// A message key too far behind to have been kept.
    #[error("SPQR key {0} trimmed")]
    KeyTrimmed(u32),
    /// A message too far ahead on its chain.
    #[error("SPQR key jump from {0} to {1}")]
    KeyJump(u32, u32),
    /// A sending key requested for an epoch before the one already used.
    #[error("SPQR send epoch decreased ({0} -> {1})")]
    SendEpochDecreased(Epoch, Epoch),
    /// A chain whose key was erased.
    #[error("SPQR chain erased")]
    ChainErased,
    /// A chain at its last counter.
    #[error("SPQR chain exhausted")]
    ChainExhausted,
    /// The peer runs an older version after negotiation ended.
    #[error("SPQR version mismatch after negotiation")]
    VersionMismatch,
    /// The peer's version is below our minimum.
    #[error("SPQR version below the minimum")]
    BelowMinimumVersion,
}

/// SPQR protocol versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Version {
    /// No SPQR: empty `pq_ratchet` fields, no keys.
    V0 = 0,
    /// The ML-KEM Braid over ML-KEM-768.
    V1 = 1,
}

/// Who sends the first encapsulation key: the session's initiator (Alice, `A2B`) or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Alice's side.
    A2B,
    /// Bob's side.
    B2A,
}

impl Direction {
    /// The other side.
    pub fn switch(self) -> Self {
        match self {
            Direction::A2B => Direction::B2A,
            Direction::B2A => Direction::A2B,
        }
    }
}

/// How a session's SPQR starts.
#[derive(Clone)]
pub struct Params<'a> {
    /// Our side.
    pub direction: Direction,
    /// The version we offer.
    pub version: Version,
    /// The lowest version we accept from the peer.
    pub min_version: Version,
    /// The handshake's SPQR key.
    pub auth_key: &'a [u8],
    /// Receiving bounds.
    pub chain_params: ChainParams,
}

/// Kept until the first message from the peer settles the version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Negotiation {
    pub(crate) auth_key: Zeroizing<Vec<u8>>,
    pub(crate) direction: Direction,
    pub(crate) min_version: Version,
    pub(crate) chain_params: ChainParams,
}

impl Negotiation {
    fn chain(&self) -> Chain {
        Chain::new(&self.auth_key, self.direction, self.chain_params)
    }
}

/// One session's SPQR state.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct State {
    pub(crate) negotiation: Option<Negotiation>,
    pub(crate) chain: Option<Chain>,
    /// `None`: version 0.
    pub(crate) braid: Option<Braid>,
}

/// Everything but the key.
impl core::fmt::Debug for Params<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Params")
            .field("direction", &self.direction)
            .field("version", &self.version)
            .field("min_version", &self.min_version)
            .field("chain_params", &self.chain_params)
            .finish_non_exhaustive()
    }
}

/// Whether it negotiates, and the epochs: no key material.
impl core::fmt::Debug for State {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("State")
            .field("negotiating", &self.negotiation.is_some())
            .field("chain", &self.chain)
            .field("braid", &self.braid)
            .finish()
    }
}

/// What [`State::send`] gives.
pub struct Sent {
    /// The `pq_ratchet` field (empty at version 0).
    pub message: Vec<u8>,
    /// The key to mix into this message's keys, if any.
    pub key: Option<Zeroizing<[u8; 32]>>,
}

fn init_braid(v: Version, d: Direction, auth_key: &[u8]) -> Option<Braid> {
    match (v, d) {
        (Version::V0, _) => None,
        (Version::V1, Direction::A2B) => Some(Braid::init_a(auth_key)),
        (Version::V1, Direction::B2A) => Some(Braid::init_b(auth_key)),
    }
}

impl State {
    /// A session's starting state. Version 0 is the empty state.
    pub fn new(p: &Params) -> Self {
        match p.version {
            Version::V0 => Self::default(),
            v => Self {
                negotiation: Some(Negotiation {
                    auth_key: Zeroizing::new(p.auth_key.to_vec()),
                    direction: p.direction,
                    min_version: p.min_version,
                    chain_params: p.chain_params,
                }),
                chain: None,
                braid: init_braid(v, p.direction, p.auth_key),
            },
        }
    }

    /// The version this state runs.
    pub fn version(&self) -> Version {
        if self.braid.is_some() {
            Version::V1
        } else {
            Version::V0
        }
    }

    /// Whether the peer's first message is still to settle the version.
    pub fn negotiating(&self) -> bool {
        self.negotiation.is_some()
    }

    /// The next message's `pq_ratchet` field and key. Before the peer has answered, a session
    /// that may still drop to version 0 sends without keys (counter 0).
    pub fn send<R: CryptoRng + ?Sized>(&mut self, rng: &mut R) -> Result<Sent, Error> {
        let Some(braid) = self.braid.clone() else {
            return Ok(Sent {
                message: Vec::new(),
                key: None,
            });
        };
        let (braid, sent) = braid.send(rng);
        let mut chain = match (&self.chain, &self.negotiation) {
            (Some(c), _) => Some(c.clone()),
            (None, Some(n)) if n.min_version > Version::V0 => Some(n.chain()),
            (None, Some(_)) => None,
            (None, None) => return Err(Error::Malformed("SPQR state without a chain")),
        };
        let mut message = sent.message;
        let key = match chain.as_mut() {
            None => {
                if sent.secret.is_some() {
                    return Err(Error::Malformed("SPQR secret before its chain"));
                }
                None
            }
            Some(c) => {
                if let Some(s) = &sent.secret {
                    c.add_epoch(s.epoch, &s.secret[..])?;
                }
                let (counter, key) = c.send_key(message.epoch - 1)?;
                message.counter = counter;
                Some(Zeroizing::new(key))
            }
        };
        self.braid = Some(braid);
        self.chain = chain;
        Ok(Sent {
            message: message.to_bytes(),
            key,
        })
    }

    /// Takes a received `pq_ratchet` field; gives the message's key, if it has one.
    pub fn recv(&mut self, field: &[u8]) -> Result<Option<Zeroizing<[u8; 32]>>, Error> {
        let theirs = match field.first() {
            None => Version::V0,
            Some(0) => Version::V0,
            Some(1) => Version::V1,
            // A version above ours: ignore the field and keep ours.
            Some(_) => return Ok(None),
        };
        let mut next = self.clone();
        if theirs < next.version() {
            let Some(n) = next.negotiation.take() else {
                return Err(Error::VersionMismatch);
            };
            if theirs < n.min_version {
                return Err(Error::BelowMinimumVersion);
            }
            next.braid = init_braid(theirs, n.direction, &n.auth_key);
            next.chain = Some(next.chain.take().unwrap_or_else(|| n.chain()));
        }
        let Some(braid) = next.braid.take() else {
            *self = State::default();
            return Ok(None);
        };
        let msg = Message::from_bytes(field)?;
        let (braid, secret) = braid.recv(&msg)?;
        let mut chain = match (next.chain.take(), &next.negotiation) {
            (Some(c), _) => c,
            (None, Some(n)) => n.chain(),
            (None, None) => return Err(Error::Malformed("SPQR state without a chain")),
        };
        if let Some(s) = &secret {
            chain.add_epoch(s.epoch, &s.secret[..])?;
        }
        let key_epoch = msg.epoch - 1;
        let key = if key_epoch == 0 && msg.counter == 0 {
            None
        } else {
            Some(Zeroizing::new(chain.recv_key(key_epoch, msg.counter)?))
        };
        *self = State {
            negotiation: None,
            chain: Some(chain),
            braid: Some(braid),
        };
        Ok(key)
    }

    /// The state's bytes, for session records.
    pub fn to_bytes(&self) -> Vec<u8> {
        record::encode(self)
    }

    /// Restores a state from [`State::to_bytes`].
    pub fn from_bytes(b: &[u8]) -> Result<Self, Error> {
        record::decode(b)
    }
}

impl State {
    /// The latest epoch whose keys the chain holds (0 before the first Braid secret).
    pub fn chain_epoch(&self) -> Epoch {
        self.chain.as_ref().map_or(0, |c| c.current_epoch)
    }
}
