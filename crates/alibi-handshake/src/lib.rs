//! Signal-style handshakes, as libsignal speaks them on the wire.
//!
//! The keys come from `alibi-identity`, re-exported here under their old paths:
//!
//! * [`curve`]: X25519 keys in libsignal's 33-byte encoding (type byte `0x05`), identity keys.
//! * [`xeddsa`]: XEdDSA signatures made and checked with X25519 keys (the Signal XEdDSA
//!   specification, with libsignal's sign bit carried in the signature's last byte).
//! * [`kem`]: the KEM prekeys of PQXDH: pre-standard Kyber1024 (type byte `0x08`, what libsignal
//!   uses in production) and ML-KEM-1024 (`0x0A`).
//!
//! The handshakes are this crate's own:
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

pub use alibi_identity::{curve, kem, xeddsa};
pub use bundle::PreKeyBundle;
pub use curve::{IdentityKey, IdentityKeyPair, KeyPair, PrivateKey, PublicKey};
pub use kem::{KemKeyPair, KemKeyType, KemPublicKey, KemSecretKey};

/// Errors of the handshake layer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An input has the wrong length.
    #[error(transparent)]
    Length(#[from] alibi_encoding::LengthError),
    /// A key's type byte is not one we know (0x05 for X25519; 0x08 or 0x0A for KEM keys).
    #[error("unknown {what} key type 0x{byte:02x}")]
    KeyType {
        /// Which kind of key.
        what: &'static str,
        /// The type byte found.
        byte: u8,
    },
    /// An empty input where a typed key was expected.
    #[error("empty {0}")]
    Empty(&'static str),
    /// A ciphertext for one KEM presented to a key of another.
    #[error("KEM type mismatch: key is 0x{key:02x}, ciphertext is 0x{ciphertext:02x}")]
    KemMismatch {
        /// The key's type byte.
        key: u8,
        /// The ciphertext's type byte.
        ciphertext: u8,
    },
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

/// The key layer's errors, under the names the handshakes have always given them.
impl From<alibi_identity::Error> for Error {
    fn from(e: alibi_identity::Error) -> Self {
        use alibi_identity::Error as E;
        match e {
            E::Length(l) => Error::Length(l),
            E::KeyType { what, byte } => Error::KeyType { what, byte },
            E::Empty(what) => Error::Empty(what),
            E::KemMismatch { key, ciphertext } => Error::KemMismatch { key, ciphertext },
            E::BadSignature(what) => Error::BadSignature(what),
        }
    }
}
