//! # alibi-bat
//!
//! BAT-257, the NTRU-based key encapsulation of Fouque, Kirchner, Pornin and Yu ("BAT: Small and
//! Fast KEM over NTRU Lattices", TCHES 2022(2)), at q = 257 and n = 512, as the artifact of
//! SHADOWFAX (vincentvbh/shadowfax, `src/BAT`) builds it: every public key, ciphertext, secret key
//! and shared secret is byte-compatible with that C code.
//!
//! ## The scheme
//! Over R = Z\[x\]/(x^512 + 1), a secret key is a short NTRU basis (f, g, F, G) with g F - f G = q
//! (Falcon's key shape, roles of f/g swapped) and the public key is h = g / f mod q.
//! * Key generation: f, g Gaussian of sigma = 2^(1/4) sqrt(q / 2n) from a seed,
//!   F, G by NTRUSolve, and the decoding vector w = round(q' (F adj f + G adj g) / (f adj f +
//!   g adj g)) for q' = 64513, which makes (q' F - f w, q' G - g w) short.
//! * Encryption: s in {0,1}^512, c1 = round((h s mod q) / 2), so that 2 c1 = h s + e
//!   with e in {0,1}^512. Unlike textbook NTRU there is no mask p: decryption (Algorithm 3.2,
//!   "Decode") solves two linear equations in the two unknowns s, e with the short basis.
//! * The KEM (Decapsulate is Algorithm 4.3) is the Fujisaki-Okamoto transform with implicit
//!   rejection: s is derived from a 16-byte message m, c2 = Hash_m(s) xor m, the secret is
//!   expand(m), and a decapsulation whose re-encryption does not match yields expand(F(rr, ct))
//!   for a secret rr.
//!
//! ## Sizes and encodings
//! | object | bytes | tag | layout |
//! |---|---|---|---|
//! | public key | 521 | 0x99 | h, eight values mod 257 per 65-bit block |
//! | ciphertext | 473 | 0xd9 | c1 (456: eight values in -64..=64 per 57-bit block), c2 (16) |
//! | secret key, long | 2,953 | 0x19 | seed, rr, f, g (4 bits each), F, G (6), w (17), h |
//! | secret key, short | 417 | 0x59 | seed, F (the rest is recomputed) |
//! | shared secret | any (32 by default) | | BLAKE2b expand of m |
//!
//! The tag byte follows the artifact's `kem_api.c` scheme "t t q q n n n n" (most significant bit
//! first): tt = 00 long secret key, 01 short secret key, 10 public key, 11 ciphertext; qq = 01 for
//! q = 257; nnnn = log2 n = 9.
//!
//! ## Fidelity to the artifact
//! The tests replay the artifact's recorded vectors (`vectors/shadowfax-artifact-bat-mitaka`):
//! decoding and re-encoding of its keys, our decapsulation of its ciphertexts (implicit rejections
//! included), and, from seeded recordings, its key generation (f, g, h, seed, rr) and its
//! encapsulation byte for byte. Where we differ:
//! * F and G come from `alibi-falcon`'s NTRUSolve, whose Babai reduction may stop at another
//!   (equally valid, equally bounded) solution than the artifact's solver; w follows F and G. On
//!   all 45 recorded keys it finds the artifact's F and G, so the whole secret key matches. For a
//!   given (f, g, F, G), w is the artifact's bit for bit: it is computed in the artifact's
//!   fixed-point arithmetic, whose rounding a floating-point division does not always reproduce.
//! * The artifact's rejection seed hashes 512 bytes from the start of its 473-byte ciphertext,
//!   reading 39 bytes past it; we hash the ciphertext padded with 39 zero bytes, which is what its
//!   recordings show.
//! * Malformed keys are errors here (wrong length or tag, out-of-range values, inconsistent
//!   secret keys), as are ciphertexts of the wrong length or tag; the artifact ignores its
//!   decoders' verdicts. A ciphertext whose c1 does not decode gets the implicit-rejection secret,
//!   which is also what the artifact returns for it.
//! * Key generation from a seed can settle on an earlier key seed than the artifact's when the
//!   artifact's NTRUSolve gives up on an (f, g) that ours solves (2 of the 20 recorded seeds).
//!
//! ## Side channels
//! Decapsulation (decryption, re-encryption, the comparison and the choice of secret) has no
//! branch or memory access that depends on secrets. Decryption and encryption run an AVX2 build of
//! the same code where the CPU has AVX2 (chosen by the CPU alone; the crate's only `unsafe` is
//! that call). Key generation rejects seeds and runs a
//! big-integer NTRUSolve, so its running time varies with the key, as the artifact's does.
//!
//! ```
//! use alibi_bat::{decapsulate, encapsulate, PublicKey, SecretKey};
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let sk = SecretKey::generate(&mut rng);
//! let pk = PublicKey::from_bytes(&sk.public_key().to_bytes())?;
//! let (ct, key) = encapsulate(&pk, &mut rng)?;
//! assert_eq!(ct.len(), 473);
//! assert_eq!(decapsulate(&sk, &ct)?, key);
//! let sk2 = SecretKey::from_bytes(&sk.to_bytes())?;
//! assert_eq!(decapsulate(&sk2, &ct)?, key);
//! # Ok::<(), alibi_bat::Error>(())
//! ```

#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

mod codec;
mod decrypt;
mod encrypt;
mod fxp;
mod hash;
mod kem;
mod keygen;
mod modq;
mod simd;

pub use kem::{
    decapsulate, decapsulate_into, encapsulate, encapsulate_into, encapsulate_with_message, Bat257,
    PublicKey, SecretKey,
};

/// The modulus q.
pub const Q: u32 = 257;
/// The degree n.
pub const N: usize = 512;
/// Length of an encoded public key.
pub const PUBLIC_KEY_LEN: usize = 521;
/// Length of a secret key in the long format.
pub const SECRET_KEY_LEN: usize = 2953;
/// Length of a secret key in the short format.
pub const SHORT_SECRET_KEY_LEN: usize = 417;
/// Length of a ciphertext: tag, c1 (456 bytes), c2 (16 bytes).
pub const CIPHERTEXT_LEN: usize = 473;
/// Length of the encapsulated message m (and of c2).
pub const MESSAGE_LEN: usize = 16;
/// Length of the key seed and of the key-generation seed.
pub const SEED_LEN: usize = 32;

/// Tag of a long-format secret key (tt = 00).
pub const TAG_SECRET_KEY: u8 = 0x19;
/// Tag of a short-format secret key (tt = 01).
pub const TAG_SECRET_KEY_SHORT: u8 = 0x59;
/// Tag of a public key (tt = 10).
pub const TAG_PUBLIC_KEY: u8 = 0x99;
/// Tag of a ciphertext (tt = 11).
pub const TAG_CIPHERTEXT: u8 = 0xd9;

/// Errors of decoding and decapsulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An input has the wrong length.
    #[error(transparent)]
    Length(#[from] alibi_encoding::LengthError),
    /// An input starts with the wrong tag byte.
    #[error("{what}: tag byte {got:#04x}, expected {expected:#04x}")]
    Tag {
        /// What was being decoded.
        what: &'static str,
        /// The tag of its type and parameters.
        expected: u8,
        /// The tag found.
        got: u8,
    },
    /// A value is out of range or padding bits are set.
    #[error("malformed {0}")]
    Malformed(&'static str),
    /// A secret key decodes but is not a valid BAT-257 key.
    #[error("invalid BAT-257 secret key: {0}")]
    InvalidKey(&'static str),
}

impl alibi_encoding::LengthChecked for Error {}
