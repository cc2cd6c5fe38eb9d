//! # alibi-ringsig
//!
//! Deniable ring signatures, for two members as published and for rings of N members (our
//! extension):
//!
//! - **GANDALF** ([`gandalf`], its types also at the crate root): GANDALF over Falcon keys as the
//!   SHADOWFAX authors' code builds it (Gajland, Janneck, Kiltz, CRYPTO 2024; the artifact of
//!   "SHADOWFAX", USENIX Security 2026) at Falcon-512 and Falcon-1024, and GANDALF[Antrag, Mitaka]
//!   on Falcon-512's lattice; the FalconRS row of Katsumata, Niot, Tucker and Wiggers.
//! - **MAYO-RS** ([`mayo_rs`]): the ring signature on MAYO's open preimage sampler (`alibi-mayo`)
//!   of Katsumata, Niot, Tucker and Wiggers (USENIX Security 2025, ePrint 2025/1090), at MAYO_1
//!   and MAYO_2.
//!
//! Both sign for the same kind of ring: an ordered list of 2 to [`MAX_MEMBERS`] distinct public
//! keys of one parameter set, checked in one place, whose order is hashed. [`Scheme`] tells the
//! schemes apart by their key encodings, and [`AnyRing`] signs and verifies for a ring of any of
//! them from encodings alone (what `alibi ring` does with files).
//!
//! ## Guarantee: deniability, not anonymity
//! In both schemes the signer's part comes from a trapdoor sampler and the others' parts from a
//! public distribution close to it, not identical: a verifier holding no secret key gets at most a
//! bounded advantage in telling who signed, the differential-privacy-style deniability metric of
//! Katsumata, Niot, Tucker and Wiggers, not anonymity in the classical sense.
//!
//! ```
//! use alibi_falcon::{Level, SigningKey};
//! use alibi_ringsig::{Ring, RingSignature};
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let alice = SigningKey::generate(Level::Falcon512, &mut rng);
//! let bob = SigningKey::generate(Level::Falcon512, &mut rng);
//! let ring = Ring::new(vec![alice.verifying_key().clone(), bob.verifying_key().clone()]).unwrap();
//! let sig = ring.sign(&bob.expand(), b"we met", &mut rng).unwrap();
//! let bytes = sig.to_bytes();
//! assert_eq!(bytes.len(), 1276);
//! let sig = RingSignature::from_bytes(&ring, &bytes).unwrap();
//! assert!(ring.verify(b"we met", &sig).is_ok());
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod gandalf;
pub mod mayo_rs;
mod ring;
mod scheme;

pub use gandalf::{
    block_len, bound, signature_len, Ring, RingSignature, RingSigner, RingSigningKey, Trapdoor,
    SALT_LEN,
};
pub use ring::MAX_MEMBERS;
pub use scheme::{AnyRing, AnySigningKey, Scheme};

/// Errors of ring construction, signing and verification, for both schemes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A ring needs at least two members.
    #[error("a ring needs at least 2 members, got {0}")]
    RingTooSmall(usize),
    /// More members than [`MAX_MEMBERS`].
    #[error("a ring holds at most {MAX_MEMBERS} members, got {0}")]
    RingTooLarge(usize),
    /// Members of different Falcon levels.
    #[error("ring members use different Falcon levels")]
    MixedLevels,
    /// Members of different MAYO parameter sets.
    #[error("ring members use different MAYO parameter sets")]
    MixedParams,
    /// The same public key appears twice.
    #[error("member {0} appears twice in the ring")]
    DuplicateMember(usize),
    /// The signing key is not a member of the ring.
    #[error("the signing key is not a member of the ring")]
    SignerNotInRing,
    /// An input has the wrong length.
    #[error(transparent)]
    Length(#[from] alibi_encoding::LengthError),
    /// A member's block of the signature does not decode (non-zero padding, or for GANDALF not a
    /// compressed polynomial).
    #[error("malformed block {0} of the signature")]
    Encoding(usize),
    /// The signature does not verify.
    #[error("invalid ring signature")]
    InvalidSignature,
    /// An error of the underlying Falcon keys.
    #[error("falcon: {0}")]
    Falcon(#[from] alibi_falcon::Error),
    /// An error of the underlying Antrag / Mitaka keys.
    #[error("mitaka: {0}")]
    Mitaka(#[from] alibi_mitaka::Error),
    /// An error of the underlying MAYO keys.
    #[error("mayo: {0}")]
    Mayo(#[from] alibi_mayo::Error),
    /// The signing key's trapdoor is not the ring's.
    #[error("the signing key is for {0}, the ring is {1}")]
    TrapdoorMismatch(Trapdoor, Trapdoor),
    /// GANDALF[Antrag, Mitaka] is defined at Falcon-512's lattice only.
    #[error("Antrag / Mitaka rings need Falcon-512 public keys")]
    MitakaLevel,
    /// A key's length is that of no scheme's public key.
    #[error(
        "a {0}-byte key is no ring member's public key (falcon512, falcon1024, mitaka512, mayo1, \
         mayo2)"
    )]
    UnknownPublicKey(usize),
    /// The scheme named is not the one the keys' length implies.
    #[error("the scheme named is {named}, but the keys are {keys} keys")]
    SchemeMismatch {
        /// The scheme the caller named.
        named: Scheme,
        /// The scheme of the keys.
        keys: Scheme,
    },
}

/// The length check, written once in `alibi-encoding`.
impl alibi_encoding::LengthChecked for Error {}
