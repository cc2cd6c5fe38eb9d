//! # alibi-identity
//!
//! The keys of Signal-style protocols, as libsignal encodes them, and the signatures made with
//! them:
//!
//! * [`curve`]: X25519 keys in libsignal's 33-byte encoding (type byte `0x05`), identity keys and
//!   identity key pairs, on `alibi-x25519`'s [`alibi_x25519::DhKeyPair`].
//! * [`xeddsa`]: XEdDSA signatures made and checked with X25519 keys (the Signal XEdDSA
//!   specification, with libsignal's sign bit carried in the signature's last byte): what signs
//!   prekeys and the certificates of sealed sender.
//! * [`kem`]: the KEM prekeys of PQXDH: pre-standard Kyber1024 (type byte `0x08`, what libsignal
//!   uses in production) and ML-KEM-1024 (`0x0A`), on `alibi-mlkem`.
//!
//! The handshakes that use these keys are in `alibi-handshake`; the keys are a crate of their
//! own so that what only checks keys and signatures (the relay validating uploaded prekeys,
//! issuing sender certificates) links neither the authenticated KEMs nor the lattice signatures
//! below them.
//!
//! ```
//! use alibi_identity::{xeddsa, IdentityKeyPair, KemKeyPair, KemKeyType, KemPublicKey};
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let alice = IdentityKeyPair::generate(&mut rng);
//! // A signed KEM prekey, as a client uploads it and a server checks it.
//! let prekey = KemKeyPair::generate(KemKeyType::Kyber1024, &mut rng).public.serialize();
//! let signature = alice.sign(&prekey, &mut rng);
//! assert!(KemPublicKey::deserialize(&prekey).is_ok());
//! assert!(xeddsa::verify(&alice.identity.0, &[&prekey], &signature).is_ok());
//! ```

#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod curve;
pub mod kem;
pub mod xeddsa;

pub use curve::{IdentityKey, IdentityKeyPair, KeyPair, PrivateKey, PublicKey};
pub use kem::{KemKeyPair, KemKeyType, KemPublicKey, KemSecretKey};

/// Errors of the key layer.
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
    /// A signature does not verify.
    #[error("signature on the {0} does not verify")]
    BadSignature(&'static str),
}

/// The crate's result type.
pub type Result<T> = core::result::Result<T, Error>;

pub(crate) fn exact<const N: usize>(b: &[u8], what: &'static str) -> Result<[u8; N]> {
    Ok(alibi_encoding::array(what, b)?)
}

/// The length check, written once in `alibi-encoding`.
impl alibi_encoding::LengthChecked for Error {}
