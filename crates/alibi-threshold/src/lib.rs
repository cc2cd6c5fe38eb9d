//! # alibi-threshold
//!
//! The one contract of alibi's threshold-signature crates (`alibi-frost`, FROST from givre;
//! `alibi-threshold-ecdsa`, CGGMP24 from cggmp24), so that code above them treats both alike:
//!
//! * **Arguments.** Every protocol step takes `(rng, [session,] i, n, t, party)` or
//!   `(rng, [session,] share, signers, message, party)`: the RNG first, the `round_based`
//!   party last (any `round_based::Mpc`, so any `Delivery` through
//!   `round_based::MpcParty::connected`). Indices are round-based's: 0-based, `0 <= i < n`.
//! * **`t` is the same everywhere**: the number of parties that may be corrupted. Any `t + 1`
//!   parties sign, exactly that many (`1 <= t < n`); a share's `threshold()` returns `t`.
//! * **One versioned header** for every encoding ([`Header`]): four bytes naming the type, a
//!   version byte, then the body; a wrong type or version is a typed [`Error`].
//! * **One signer check** ([`signer_position`]): `t + 1` distinct keygen indices below `n`, this
//!   party among them; the faults are typed ([`SignerFault`]).
//! * **Failures are typed** ([`Watch`]): a run whose delivery failed (a send or receive error,
//!   or the incoming stream ended) is [`Error::Transport`], blamed on no one; any other abort is
//!   [`Error::Aborted`] with the positions of the parties the protocol blamed.
//!
//! ```
//! use alibi_threshold::{signer_position, Error, Header, SignerFault};
//!
//! const SHARE: Header = Header { what: "key share", magic: *b"DEMO", version: 1 };
//! let mut bytes = SHARE.write(4);
//! bytes.extend_from_slice(b"body");
//! assert_eq!(SHARE.open(&bytes).unwrap(), b"body");
//! assert!(matches!(SHARE.open(b"DEMO\x02"), Err(Error::Version { found: 2, .. })));
//!
//! // 2-of-3 (t = 1): party 2 signs with party 0, second in the list.
//! assert_eq!(signer_position(&[0, 2], 1, 3, 2), Ok(1));
//! assert_eq!(signer_position(&[0, 0], 1, 3, 0), Err(SignerFault::Twice(0)));
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

mod blame;
pub mod hd;
mod header;
mod signers;
mod watch;

pub use header::Header;
pub use signers::{check_keygen, signer_position, SignerFault};
pub use watch::{watched, Watch, Watched};

/// Everything the contract refuses or reports. No input makes this crate panic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Bytes that are not an encoding of this type: too short for the header, or another magic.
    #[error("{what}: not an encoding of this type")]
    Foreign {
        /// What was being decoded.
        what: &'static str,
    },
    /// An encoding of this type in a version this build does not read.
    #[error("{what}: encoding version {found}, this build reads version {supported}")]
    Version {
        /// What was being decoded.
        what: &'static str,
        /// The version byte of the input.
        found: u8,
        /// The version this build writes and reads.
        supported: u8,
    },
    /// Key-generation parameters refused before any message is sent.
    #[error("invalid parameters: {0}")]
    Parameters(String),
    /// A derivation path or extended public key refused ([`hd`]): a hardened or malformed
    /// step, a key that is not one, or a share made without a chain code.
    #[error("HD derivation: {0}")]
    Derivation(String),
    /// A signer list refused before any message is sent.
    #[error("invalid signer list: {0}")]
    Signers(#[from] SignerFault),
    /// The delivery failed (a send or receive error, or the incoming stream ended): a transport
    /// fault, blamed on no party. The text is the protocol's error chain.
    #[error("transport failed: {0}")]
    Transport(String),
    /// The protocol aborted: a party's message failed a check. `blamed` holds the positions (the
    /// run's round-based indices) of the parties the protocol named, empty when it named none.
    #[error("protocol aborted: {reason}{}", blame::words(blamed))]
    Aborted {
        /// The protocol's error chain.
        reason: String,
        /// The run's indices of the parties blamed, ascending, each once.
        blamed: Vec<u16>,
    },
}
