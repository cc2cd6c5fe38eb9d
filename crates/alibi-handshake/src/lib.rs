//! Signal-style handshakes, as libsignal speaks them on the wire.
//!
//! The keys are `alibi-identity`'s (X25519 keys and identity keys, XEdDSA, the KEM prekeys of
//! PQXDH); the handshakes are this crate's own:
//!
//! * [`bundle`]: the prekey bundle a responder publishes and the checks an initiator makes on it.
//! * [`x3dh`]: X3DH (session version 3, info `"WhisperText"`) and PQXDH (version 4), both sides.
//! * [`ringxkem`]: RingXKEM, the fully post-quantum deniable handshake of Hashimoto, Katsumata and
//!   Wiggers (BAKE, USENIX Security 2025) analysed by Katsumata, Niot, Tucker and Wiggers: KEMs for
//!   the key exchange and a two-member FalconRS ring signature for the initiator's authentication.
//!
//! What each handshake hides, and from whom, is in `docs/handshakes.md`.

#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod bundle;
pub mod ringxkem;
pub mod x3dh;

pub use bundle::PreKeyBundle;

/// Errors of the handshake layer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A key, ciphertext or signature of the key layer that does not decode or verify: a wrong
    /// length, an unknown key type byte, an empty input, a KEM key and ciphertext of different
    /// KEMs (alibi-identity's error, as it is).
    #[error(transparent)]
    Key(#[from] alibi_identity::Error),
    /// A signature in a prekey bundle (or on a RingXKEM prekey) does not verify.
    #[error("signature on the {0} does not verify")]
    BadSignature(&'static str),
    /// The peer's base key is not a canonical, torsion-free curve point (libsignal's check).
    #[error("base key is not canonical")]
    NonCanonicalBaseKey,
    /// A PQXDH bundle or message without its KEM part.
    #[error("missing KEM prekey or ciphertext")]
    MissingKem,
    /// The RingXKEM authentication (ring signature or ciphertext) failed.
    #[error("RingXKEM message rejected: {0}")]
    RingXKem(&'static str),
}

/// The crate's result type.
pub type Result<T> = core::result::Result<T, Error>;

/// The length check, written once in `alibi-encoding`.
impl alibi_encoding::LengthChecked for Error {}

/// A wrong length is the key layer's error.
impl From<alibi_encoding::LengthError> for Error {
    fn from(e: alibi_encoding::LengthError) -> Self {
        Error::Key(e.into())
    }
}
