//! # alibi-akem
//!
//! Authenticated key encapsulation for deniable handshakes (seed 001, "SHADOWFAX: Hybrid Security and
//! Deniability for AKEMs", Gajland, Hwang, Janneck, USENIX Security 2026):
//!
//! * [`dh`]: DH-AKEM over X25519, as RFC 9180's DHKEM(X25519, HKDF-SHA256) AuthEncap/AuthDecap
//!   ([`dh::rfc9180`]) and as the authors' SHA3-based form ([`dh::artifact`]);
//! * [`pq`]: PQ-AKEM[ML-KEM, GANDALF[Falcon]] and PQ-AKEM[BAT, GANDALF[Antrag, Mitaka]];
//! * [`shadowfax`]: the hybrid SHADOWFAX[X25519, ML-KEM, GANDALF[Falcon]] and
//!   SHADOWFAX[X25519, BAT, GANDALF[Antrag, Mitaka]];
//! * [`kem`]: the KEM inside them, ML-KEM ([`mlkem`]) or BAT-257 (`alibi-bat`);
//! * [`detect`]: which configuration (AKEM and suite) a key's length names, and [`any`]: keys of
//!   a configuration chosen at run time.
//!
//! Each AKEM has the same shape: a `SecretKey` and a `PublicKey` (DH-AKEM's is the raw
//! u-coordinate), `encap(&sender_sk, &receiver_pk, rng) -> (C, K)` and
//! `decap(&receiver_sk, &sender_pk, &C) -> K`, with `fake_encap` beside them for deniability. They
//! are [`pq`]'s, [`shadowfax`]'s and [`any`]'s, and [`dh::rfc9180`]'s (RFC 9180's AuthEncap /
//! AuthDecap) and [`dh::artifact`]'s, whose keys are [`dh::SecretKey`] and [`dh::PublicKey`].
//!
//! The post-quantum parts follow the authors' code byte for byte (checked against their vectors):
//! their SHA3 "HMAC" (not RFC 2104), their hashed NIKE, AES-128-CTR with a zero counter block, their
//! key and ciphertext layouts. With the standard suite (ML-KEM-512, Falcon-512) a SHADOWFAX public
//! key is 1,728 bytes and a ciphertext 2,076 bytes; PQ-AKEM has 1,696 and 2,044. The seed's abstract
//! quotes "ciphertexts of 1,728 bytes and public keys of 2,036 bytes": the first figure is the code's
//! public key, and 2,036 matches no object of the code (its ciphertext is 2,076 = 32 + 768 + 1,276);
//! we follow the code. With BAT-257 and GANDALF[Antrag, Mitaka] ([`pq::Suite::Bat257Mitaka512`]) the
//! sizes are the artifact's too: a SHADOWFAX public key of 1,449 bytes and a ciphertext of 1,781.
//!
//! Deniability is executable: [`pq::fake_encap`] and [`shadowfax::fake_encap`] let the receiver,
//! alone, produce ciphertexts that decapsulate as if the sender had made them; the ring signature
//! inside is a two-member ring (sender, receiver), so it cannot tell them apart.
//!
//! ```
//! use alibi_akem::{pq::Suite, shadowfax};
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let alice = shadowfax::SecretKey::generate(Suite::MlKem512Falcon512, &mut rng);
//! let bob = shadowfax::SecretKey::generate(Suite::MlKem512Falcon512, &mut rng);
//! let (c, k) = shadowfax::encap(&alice, bob.public_key(), &mut rng).unwrap();
//! assert_eq!(c.len(), 2076);
//! let k2 = shadowfax::decap(&bob, alice.public_key(), &c).unwrap();
//! assert_eq!(k, k2);
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod any;
pub mod confirm;
pub mod detect;
pub mod dh;
pub mod kem;
pub use alibi_mlkem as mlkem;
pub mod pq;
pub mod primitives;
pub mod shadowfax;

// Why the AKEMs keep their own API while `mlkem` implements the RustCrypto `kem` 0.3 traits:
// those traits describe a KEM whose decapsulation key yields its encapsulation key
// (`Decapsulator::encapsulation_key`) and whose encapsulation key alone encapsulates. An
// authenticated KEM needs the sender's secret key to encapsulate and the sender's public key to
// decapsulate, so neither side is a key of that shape; binding the other party's key into
// "sender" and "receiver" objects (the former adapter) gave types that could not honestly offer
// `encapsulation_key()`, `TryKeyInit` or `KeyExport`. The suites are also chosen at run time, while
// `kem` fixes sizes in the type. So DH-AKEM, PQ-AKEM and SHADOWFAX keep `encap(sender_sk,
// receiver_pk, rng)` / `decap(receiver_sk, sender_pk, ct)`, and only the plain ML-KEM wrapper, which
// is such a KEM, implements `kem`.

/// Errors of the AKEMs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An input has the wrong length.
    #[error(transparent)]
    Length(#[from] alibi_encoding::LengthError),
    /// An input does not decode.
    #[error("malformed {0}")]
    Malformed(&'static str),
    /// An X25519 exchange produced the all-zero value (a low-order public key).
    #[error("X25519 produced the all-zero value (low-order public key)")]
    LowOrderPoint,
    /// The ciphertext does not authenticate (its ring signature fails).
    #[error("ciphertext rejected: authentication failed")]
    InvalidCiphertext,
    /// Keys of different suites.
    #[error("keys belong to different suites")]
    SuiteMismatch,
    /// Keys of different AKEMs.
    #[error("keys belong to different AKEMs")]
    SchemeMismatch,
    /// ML-KEM failed.
    #[error("ML-KEM operation failed")]
    Kem,
    /// A BAT-257 key or ciphertext is malformed.
    #[error("BAT-257: {0}")]
    Bat(alibi_bat::Error),
    /// An Antrag / Mitaka key or signature is malformed.
    #[error("mitaka: {0}")]
    Mitaka(#[from] alibi_mitaka::Error),
    /// A plain identity signature does not verify.
    #[error("invalid identity signature")]
    InvalidSignature,
    /// A Falcon key is malformed.
    #[error("falcon: {0}")]
    Falcon(#[from] alibi_falcon::Error),
    /// A ring operation failed.
    #[error("ring signature: {0}")]
    Ring(#[from] alibi_ringsig::Error),
}

/// The length check, written once in `alibi-encoding`.
impl alibi_encoding::LengthChecked for Error {}

/// The ML-KEM wrapper's errors, under the names the AKEMs have always given them.
impl From<alibi_mlkem::Error> for Error {
    fn from(e: alibi_mlkem::Error) -> Self {
        match e {
            alibi_mlkem::Error::Length(l) => Error::Length(l),
            alibi_mlkem::Error::Malformed(what) => Error::Malformed(what),
        }
    }
}

/// The X25519 layer's errors, under the names the AKEMs have always given them.
impl From<alibi_x25519::Error> for Error {
    fn from(e: alibi_x25519::Error) -> Self {
        match e {
            alibi_x25519::Error::Length(l) => Error::Length(l),
        }
    }
}
