//! # alibi-frost
//!
//! Threshold Schnorr signatures (FROST) for alibi, from the established crate `givre` 0.2: its
//! key generation (cggmp21-keygen, UC-secure, with its own reliable-broadcast check) and its
//! interactive FROST signing, both `round-based` 0.4 protocols. Two schemes ([`Scheme`]):
//!
//! * `frost-ed25519`: FROST(Ed25519, SHA-512) of RFC 9591. The signature is a standard Ed25519
//!   signature (`R || S`, 64 bytes) under a standard 32-byte Ed25519 public key.
//! * `frost-secp256k1-tr`: givre's Bitcoin ciphersuite. The signature is a BIP-340 Schnorr
//!   signature (64 bytes) under the 32-byte x-only key of a taproot output that has no script
//!   tree: the group key tweaked as BIP-341 says (`Q = P + H_TapTweak(P)·G`, as BIP-86 does).
//!   [`KeyShare::public_key`] returns that output key; the message is signed as it is (BIP-340
//!   allows any length; a Bitcoin spender passes its 32-byte sighash).
//!
//! [`verify`] checks a signature with verifiers that share no code with givre: ed25519-dalek's
//! `verify_strict` and k256's BIP-340 `verify_raw`.
//!
//! ## Running the protocols
//!
//! The crate follows `alibi-threshold`'s contract, as `alibi-threshold-ecdsa` does. Each party
//! calls [`keygen`] (then, with exactly `t + 1` parties, [`sign`]) with the ciphersuite as a type
//! parameter ([`suite::Ed25519`] or [`suite::Secp256k1Tr`]; [`Scheme`] picks one at run time),
//! the RNG first and a `round_based` party last, whose messages are
//! [`KeygenMsg<C>`](suite::KeygenMsg) or [`SignMsg<C>`](suite::SignMsg). Any
//! [`round_based::Delivery`] of that message type becomes a party through
//! `round_based::MpcParty::connected(delivery)`; round-based's simulator (`round_based::sim`)
//! hands out parties directly. Both message types are `serde` types, so a transport that
//! carries any `Serialize + DeserializeOwned` protocol message serves both.
//!
//! Indices follow round-based: 0-based, `0 <= i < n` at key generation; at signing, a party's
//! position in `signers` is its round-based index in that run, and `signers[j]` is the
//! key-generation index of the j-th signer. `t` is the number of parties that may be corrupted:
//! any `t + 1` sign, and [`KeyShare::threshold`] returns `t`.
//!
//! ## Aborts
//!
//! A failed run is an [`alibi_threshold::Error`] in [`Error::Threshold`]: `Transport` when the
//! delivery failed (its own send or receive error, or its stream ended), blamed on no party;
//! otherwise `Aborted`, with the protocol's error chain and the run positions of the parties it
//! blamed. Key generation names them (cggmp21-keygen's blame: a decommitment, proof or share
//! that fails, or a round-1 broadcast that was not the same for everyone). Signing is not
//! identifiable (givre says so): a bad signature share shows only as an aggregate that does not
//! verify, blamed on no one. A message the round router refuses (a second message from one
//! party in a round, a p2p message in a broadcast round) is a protocol abort too, so a
//! transport must not duplicate deliveries.
//!
//! Randomness: givre takes rand_core 0.6's `RngCore + CryptoRng` (the rest of the workspace is on
//! rand_core 0.10), so this crate re-exports those traits and rand_core 0.6's [`OsRng`].
//!
//! ```
//! use alibi_frost::{keygen, sign, suite::Ed25519, verify, DerivationPath, OsRng, Scheme};
//! // 2-of-3: t = 1.
//! let shares = round_based::sim::run(3, |i, party| async move {
//!     keygen::<Ed25519, _, _>(&mut OsRng, b"doc session", i, 3, 1, party).await
//! })
//! .unwrap()
//! .expect_ok()
//! .into_vec();
//! let signers = [0u16, 2];
//! let sig = round_based::sim::run(2, |j, party| {
//!     let share = &shares[usize::from(signers[usize::from(j)])];
//!     let key = DerivationPath::master(); // or "m/0/7".parse()? for a child key
//!     async move { sign::<Ed25519, _, _>(&mut OsRng, share, &key, &signers, b"hello", party).await }
//! })
//! .unwrap()
//! .expect_ok()
//! .expect_eq();
//! verify(Scheme::Ed25519, &shares[0].public_key(), b"hello", sig.as_bytes()).unwrap();
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

mod derive;
#[cfg(feature = "protocol")]
mod protocol;
#[cfg(feature = "protocol")]
mod share;
#[cfg(feature = "protocol")]
mod sharing;
#[cfg(feature = "protocol")]
pub mod suite;
mod verify;

use std::fmt;
use std::str::FromStr;

pub use alibi_encoding::LengthError;
pub use alibi_threshold::hd::{DerivationPath, ExtendedPublicKey};
pub use derive::public_key_at;
#[cfg(feature = "protocol")]
pub use protocol::{keygen, sign};
#[cfg(feature = "protocol")]
pub use rand_core_06::{CryptoRng, OsRng, RngCore};
#[cfg(feature = "protocol")]
pub use share::KeyShare;
#[cfg(feature = "protocol")]
pub use sharing::Sharing;
#[cfg(feature = "protocol")]
pub use suite::{FrostSuite, KeygenMsg, SignMsg};
pub use verify::{verify, Signature};

/// A FROST scheme: the ciphersuite a key was generated for and its signatures verify under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// FROST(Ed25519, SHA-512) (RFC 9591): standard Ed25519 signatures.
    Ed25519,
    /// FROST over secp256k1 with BIP-340 challenges and the BIP-341 key tweak (givre's Bitcoin
    /// ciphersuite): BIP-340 Schnorr signatures under a taproot output key.
    Secp256k1Tr,
}

impl Scheme {
    /// Both schemes, in the order of their tags.
    pub const ALL: [Scheme; 2] = [Scheme::Ed25519, Scheme::Secp256k1Tr];

    /// The scheme's name on the command line and in files: `frost-ed25519`, `frost-secp256k1-tr`.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Ed25519 => "frost-ed25519",
            Scheme::Secp256k1Tr => "frost-secp256k1-tr",
        }
    }

    /// The byte that names the scheme in a [`KeyShare`] encoding (1 and 2).
    pub fn tag(self) -> u8 {
        match self {
            Scheme::Ed25519 => 1,
            Scheme::Secp256k1Tr => 2,
        }
    }

    /// The scheme of a tag byte, if it names one.
    pub fn from_tag(tag: u8) -> Option<Scheme> {
        Scheme::ALL.into_iter().find(|s| s.tag() == tag)
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scheme {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Scheme::ALL
            .into_iter()
            .find(|scheme| scheme.name() == s)
            .ok_or_else(|| Error::UnknownScheme(s.to_string()))
    }
}

/// Everything that can go wrong in this crate. No input makes it panic.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A key, signature or share of the wrong length.
    #[error(transparent)]
    Length(#[from] LengthError),
    /// Bytes of the right length that do not decode (what was being decoded is named; secret
    /// bytes never appear in the message).
    #[error("malformed {0}")]
    Malformed(&'static str),
    /// A well-formed signature that does not verify.
    #[error("invalid signature")]
    InvalidSignature,
    /// A scheme name that is neither `frost-ed25519` nor `frost-secp256k1-tr`.
    #[error("unknown FROST scheme {0:?} (expected frost-ed25519 or frost-secp256k1-tr)")]
    UnknownScheme(String),
    /// A key share used with the other scheme's protocol.
    #[error("key share is for {got}, the protocol runs {expected}")]
    SchemeMismatch {
        /// The scheme of the protocol run.
        expected: Scheme,
        /// The scheme of the key share.
        got: Scheme,
    },
    /// What the threshold contract refuses or reports: a share header of another type or
    /// version, parameters or a signer list refused before any message is sent, a transport
    /// fault, or an abort with the positions of the parties blamed.
    #[error(transparent)]
    Threshold(#[from] alibi_threshold::Error),
}

impl alibi_encoding::LengthChecked for Error {}
