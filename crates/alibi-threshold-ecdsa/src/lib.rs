//! # alibi-threshold-ecdsa
//!
//! Threshold ECDSA over secp256k1 for alibi: the CGGMP24 protocol (the 2024 revision of
//! CGGMP21) of the [`cggmp24`] crate (0.7, by cggmp21's authors), run per party over any
//! `round-based` 0.4 party (any [`Delivery`] through `round_based::MpcParty::connected`), so the
//! same code runs in a simulation (the tests) and over alibi's channels (the MPC layer's
//! adapter). It follows `alibi-threshold`'s contract, as `alibi-frost` does: the RNG first and
//! the party last, `t` the number of parties that may be corrupted, one versioned header, one
//! signer check, typed failures.
//!
//! A key is made and used in four steps, each party running its own:
//!
//! 1. [`generate_primes`]: four safe primes of 1536 bits for the party's Paillier key and its
//!    ring-Pedersen modulus, the slow step (about 20 s on average on one core, a minute or more
//!    at times), reporting [`PrimeProgress`] through a callback. It needs no other party, so it
//!    can run ahead of time: [`Primes::to_bytes`] caches the result.
//! 2. [`keygen`]: the threshold key generation (any `t + 1` of `n` sign), giving a
//!    [`CoreShare`]: the secret share and every party's public share.
//! 3. [`aux_info_gen`]: the auxiliary information (every party's Paillier and ring-Pedersen
//!    parameters with their proofs), consuming the party's [`Primes`]; independent of the key, it
//!    may run before or after [`keygen`].
//! 4. [`KeyShare::from_parts`] joins both; [`sign`] (or [`sign_prehash`]) then runs between
//!    exactly `t + 1` of the `n` parties and returns a 64-byte `r || s` signature, low-S
//!    normalized, which [`verify`] checks with k256's ECDSA verifier (not with cggmp24).
//!
//! 5. Or, for signing in one round online: [`presign`] runs the interactive part between the
//!    `t + 1` signers ahead of time, giving each a [`Presignature`]; later each signer issues its
//!    [`Partial`] signature on the message alone ([`Presignature::issue`], which consumes it: a
//!    presignature signs once) and anyone holding the public part ([`Presigned`]) combines them,
//!    checking each partial and naming the signer of one that fails.
//!
//! Every step takes caller-given session bytes, from which it derives cggmp24's execution id
//! (domain-separated per step), so that messages of two sessions never mix; the parties of one
//! session must give the same bytes.
//!
//! **Messages.** [`KeygenMsg`], [`AuxMsg`] and [`SigningMsg`] are cggmp24's own message types
//! (serde-serializable); a transport carries them as they are. Party indices on the delivery are
//! the keygen indices `0..n` for [`keygen`] and [`aux_info_gen`], and the positions `0..=t` in the
//! signer list for [`sign`].
//!
//! **Randomness.** cggmp24 takes `rand_core` 0.6's traits (the workspace's own `rand_core` is
//! 0.10), so the protocols' RNG argument is a [`rand_core::RngCore`] `+` [`rand_core::CryptoRng`]
//! of 0.6, re-exported as [`rand_core`]; [`rand_core::OsRng`] is the usual choice. The prime
//! search alone takes the workspace's `rand_core` 0.10 `CryptoRng`.
//!
//! **Aborts.** A failed run is an [`alibi_threshold::Error`] in [`Error::Threshold`]:
//! `Transport` when the delivery failed (blamed on no one), else `Aborted` with cggmp24's error
//! chain and the run positions of the parties it blames (cggmp24 aborts identifiably where it
//! can: a failed proof or check names its sender).
//!
//! **Big integers.** cggmp24 runs here on its pure-Rust backend (num-bigint), and the prime search
//! on crypto-primes: nothing but a Rust toolchain builds it (GMP, cggmp24's other backend, needs
//! `m4` at build time). docs/mpc.md states the cost in time.
//!
//! ```no_run
//! # async fn run(delivery: impl round_based::Delivery<alibi_threshold_ecdsa::SigningMsg>,
//! #              share: alibi_threshold_ecdsa::KeyShare) -> Result<(), alibi_threshold_ecdsa::Error> {
//! use alibi_threshold_ecdsa::{rand_core::OsRng, round_based::MpcParty, sign, verify};
//! use alibi_threshold::hd::DerivationPath;
//! // Parties 0 and 2 of a 2-out-of-3 key (t = 1) sign together; this process is one of them.
//! let party = MpcParty::connected(delivery);
//! let key = DerivationPath::master(); // or "m/0/7".parse()? for a BIP-32 child
//! let sig = sign(&mut OsRng, b"session 7", &share, &key, &[0, 2], b"hello", party).await?;
//! verify(&share.public_key(), b"hello", &sig)?;
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub use alibi_threshold::hd::{DerivationPath, ExtendedPublicKey};
#[cfg(feature = "protocol")]
mod presign;
#[cfg(feature = "protocol")]
mod primes;
#[cfg(feature = "protocol")]
mod protocol;
#[cfg(feature = "protocol")]
mod share;
mod verify;

#[cfg(feature = "protocol")]
pub use presign::{presign, Partial, Presignature, Presigned, PARTIAL_LEN};
#[cfg(feature = "protocol")]
pub use primes::{
    generate_primes, PrimeProgress, Primes, PRIME_BITS, PRIME_COUNT, PROGRESS_INTERVAL,
};
#[cfg(feature = "protocol")]
pub use protocol::{aux_info_gen, keygen, sign, sign_prehash};
#[cfg(feature = "protocol")]
pub use share::{AuxInfo, CoreShare, KeyShare};
pub use verify::{verify, verify_prehash};

#[cfg(feature = "protocol")]
/// `rand_core` 0.6, whose traits every RNG argument of this crate takes (cggmp24's version).
pub use rand_core_06 as rand_core;
#[cfg(feature = "protocol")]
/// The `round-based` 0.4 framework whose [`Delivery`] the protocols run over.
pub use round_based;
#[cfg(feature = "protocol")]
pub use round_based::Delivery;

#[cfg(feature = "protocol")]
/// The curve: secp256k1, as cggmp24 names it.
pub type Curve = cggmp24::supported_curves::Secp256k1;
#[cfg(feature = "protocol")]
/// cggmp24's security level used throughout (its default, 128-bit).
pub type Security = cggmp24::security_level::SecurityLevel128;
#[cfg(feature = "protocol")]
/// The hash cggmp24 uses inside its protocols (its default, SHA-256 of `sha2` 0.10).
pub type ProtocolDigest = sha2_010::Sha256;

#[cfg(feature = "protocol")]
/// A message of the key generation ([`keygen`]).
pub type KeygenMsg = cggmp24::keygen::ThresholdMsg<Curve, Security, ProtocolDigest>;
#[cfg(feature = "protocol")]
/// A message of the auxiliary info generation ([`aux_info_gen`]).
pub type AuxMsg = cggmp24::key_refresh::msg::Msg<ProtocolDigest, Security>;
#[cfg(feature = "protocol")]
/// A message of the signing ([`sign`], [`sign_prehash`]).
pub type SigningMsg = cggmp24::signing::msg::Msg<Curve, ProtocolDigest>;

/// Length of a signature: `r || s`, 32 bytes each, big-endian.
pub const SIGNATURE_LEN: usize = 64;
/// Length of a public key: SEC1 compressed.
pub const PUBLIC_KEY_LEN: usize = 33;

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bytes that do not decode: a key share, primes, public key or signature of the wrong
    /// length or contents (the reason says which).
    #[error("malformed input: {0}")]
    Malformed(&'static str),
    /// The signature does not verify under the public key.
    #[error("invalid signature")]
    InvalidSignature,
    /// What the threshold contract refuses or reports: an encoding of another type or version,
    /// parameters or a signer list refused before any message is sent (an index out of range,
    /// a share and aux info of different parties), a transport fault, or an abort with the
    /// positions of the parties cggmp24 blamed.
    #[error(transparent)]
    Threshold(#[from] alibi_threshold::Error),
}
