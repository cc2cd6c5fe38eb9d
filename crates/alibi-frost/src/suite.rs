//! The two ciphersuites, as types for the protocol functions' type parameter, and the message
//! types their protocols exchange.
//!
//! The ciphersuite types are givre's own ([`Ed25519`] is `givre::ciphersuite::Ed25519`,
//! [`Secp256k1Tr`] is `givre::ciphersuite::Bitcoin`), so a caller that uses givre directly names
//! the same types.

use givre::ciphersuite::Ciphersuite;
use givre::generic_ec::curves;

use crate::Scheme;

/// FROST(Ed25519, SHA-512): [`Scheme::Ed25519`].
pub use givre::ciphersuite::Ed25519;

/// givre's Bitcoin ciphersuite (BIP-340 challenges, BIP-341 key tweak): [`Scheme::Secp256k1Tr`].
pub use givre::ciphersuite::Bitcoin as Secp256k1Tr;

/// The message of key generation for ciphersuite `C`: cggmp21-keygen's threshold message at its
/// default choices (128-bit security, SHA-256). A `serde` type: a transport that carries any
/// `Serialize + DeserializeOwned` protocol message carries it.
pub type KeygenMsg<C> = givre::keygen::msg::threshold::Msg<
    <C as Ciphersuite>::Curve,
    givre::keygen::security_level::SecurityLevel128,
    // The digest cggmp21-keygen defaults to is sha2 0.10's SHA-256; k256 re-exports that very
    // crate, which saves a second sha2 in the workspace's dependency list.
    k256::sha2::Sha256,
>;

/// The message of interactive signing for ciphersuite `C` (givre's full-signing message: nonce
/// commitments, then signature shares; both broadcast). A `serde` type.
pub type SignMsg<C> = givre::signing::full_signing::Msg<<C as Ciphersuite>::Curve>;

/// A ciphersuite this crate runs: [`Ed25519`] or [`Secp256k1Tr`]. Sealed.
pub trait FrostSuite: Ciphersuite + sealed::Sealed {
    /// The scheme this ciphersuite implements.
    const SCHEME: Scheme;
}

impl FrostSuite for Ed25519 {
    const SCHEME: Scheme = Scheme::Ed25519;
}

impl FrostSuite for Secp256k1Tr {
    const SCHEME: Scheme = Scheme::Secp256k1Tr;
}

pub(crate) mod sealed {
    use super::*;

    /// givre's key share of either curve: what [`crate::KeyShare`] holds.
    pub enum AnyShare {
        /// An Ed25519 share.
        Ed25519(givre::KeyShare<curves::Ed25519>),
        /// A secp256k1 share (taproot).
        Secp256k1Tr(givre::KeyShare<curves::Secp256k1>),
    }

    /// Moves a givre share of the suite's curve in and out of [`AnyShare`]; outside this crate no
    /// one can implement [`super::FrostSuite`].
    pub trait Sealed: Ciphersuite {
        /// The share, tagged with this suite.
        fn wrap(share: givre::KeyShare<Self::Curve>) -> AnyShare;
        /// The share, if it is of this suite.
        fn unwrap(share: &AnyShare) -> Option<&givre::KeyShare<Self::Curve>>;
    }

    impl Sealed for Ed25519 {
        fn wrap(share: givre::KeyShare<Self::Curve>) -> AnyShare {
            AnyShare::Ed25519(share)
        }
        fn unwrap(share: &AnyShare) -> Option<&givre::KeyShare<Self::Curve>> {
            match share {
                AnyShare::Ed25519(s) => Some(s),
                AnyShare::Secp256k1Tr(_) => None,
            }
        }
    }

    impl Sealed for Secp256k1Tr {
        fn wrap(share: givre::KeyShare<Self::Curve>) -> AnyShare {
            AnyShare::Secp256k1Tr(share)
        }
        fn unwrap(share: &AnyShare) -> Option<&givre::KeyShare<Self::Curve>> {
            match share {
                AnyShare::Secp256k1Tr(s) => Some(s),
                AnyShare::Ed25519(_) => None,
            }
        }
    }
}
