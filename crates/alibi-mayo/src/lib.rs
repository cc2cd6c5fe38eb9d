//! # alibi-mayo
//!
//! MAYO, the multivariate signature of Beullens et al., as specified for round 2 of NIST's
//! additional signatures (MAYO_1, MAYO_2, MAYO_3, MAYO_5), byte-compatible with the reference code
//! (the round-2 known-answer files are reproduced in `tests/kat.rs`), with the one operation the
//! reference code keeps private: the **open preimage sampler** ([`SigningKey::sample_preimage`]),
//! a solution s of P*(s) = t for any target t. `alibi-ringsig` builds MAYO-RS on it, the deniable
//! ring signature of Katsumata, Niot, Tucker and Wiggers (USENIX Security 2025), with
//! [`target`], [`encode_vector`] and [`decode_vector`].
//!
//! Keys and signatures are the specification's compact encodings: a secret key is its 24 to 40-byte
//! seed, a public key is seed_pk || upper(P3), a signature is the packed s || salt.
//!
//! ```
//! use alibi_mayo::{Params, SigningKey};
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let sk = SigningKey::generate(Params::Mayo2, &mut rng);
//! let vk = sk.verifying_key();
//! let sig = sk.sign(b"hello", &mut rng);
//! assert!(vk.verify(b"hello", &sig).is_ok());
//! assert!(vk.verify(b"hullo", &sig).is_err());
//! ```

// Unsafe code is denied everywhere but in the vector kernels (kernels::avx512, kernels::gfni,
// solve::avx512), which allow it for their intrinsics, behind a run-time CPU check.
#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]
// Matrix code indexes several arrays by the same row and column, as the specification writes it.
#![allow(clippy::needless_range_loop)]

mod gf16;
mod kernels;
mod map;
pub mod params;
mod solve;

pub use params::Params;

use alibi_encoding::LengthChecked;
use map::{PublicMap, SecretMap};
use rand_core::{CryptoRng, TryCryptoRng};
use zeroize::Zeroizing;

/// Errors of this crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An input has the wrong length.
    #[error(transparent)]
    Length(#[from] alibi_encoding::LengthError),
    /// A target or preimage has an element outside F16, or the wrong number of elements.
    #[error("malformed field vector")]
    Malformed,
    /// The signature does not verify.
    #[error("invalid signature")]
    InvalidSignature,
    /// 256 attempts found no full-rank system (probability far below 2^-1000 for real keys).
    #[error("no solution found")]
    NoSolution,
}

/// The length check, written once in `alibi-encoding`.
impl alibi_encoding::LengthChecked for Error {}

/// Runs `$body` with `$l` bound to the limb count of `$p` as a constant, for the generic
/// internals.
macro_rules! with_limbs {
    ($p:expr, |$l:ident| $body:expr) => {
        match $p.limbs() {
            4 => {
                const $l: usize = 4;
                $body
            }
            5 => {
                const $l: usize = 5;
                $body
            }
            7 => {
                const $l: usize = 7;
                $body
            }
            _ => {
                const $l: usize = 9;
                $body
            }
        }
    };
}

/// An expanded secret map, one variant per limb count.
enum Secret {
    L4(SecretMap<4>),
    L5(SecretMap<5>),
    L7(SecretMap<7>),
    L9(SecretMap<9>),
}

/// An expanded public map, one variant per limb count.
enum Public {
    L4(PublicMap<4>),
    L5(PublicMap<5>),
    L7(PublicMap<7>),
    L9(PublicMap<9>),
}

macro_rules! on_map {
    ($e:expr, $enum:ident, |$m:ident| $body:expr) => {
        match $e {
            $enum::L4($m) => $body,
            $enum::L5($m) => $body,
            $enum::L7($m) => $body,
            $enum::L9($m) => $body,
        }
    };
}

/// A MAYO secret key: its seed, kept with the expanded map (O, P1 and L) for signing.
pub struct SigningKey {
    params: Params,
    seed: Zeroizing<Vec<u8>>,
    /// The expanded map, computed on first use (key generation does not need it).
    map: std::sync::OnceLock<Secret>,
    /// The compact public key, computed on first use.
    public: std::sync::OnceLock<Vec<u8>>,
    /// The decoded public key, built from `public` on first use so it can be lent.
    verifying: std::sync::OnceLock<VerifyingKey>,
}

impl SigningKey {
    /// A fresh key: seed_sk from `rng` (CompactKeyGen, §3.2).
    pub fn generate<R: CryptoRng + ?Sized>(params: Params, rng: &mut R) -> SigningKey {
        let mut seed = Zeroizing::new(vec![0u8; params.sk_seed_bytes()]);
        rng.fill_bytes(&mut seed);
        SigningKey::from_bytes(params, &seed).expect("right length")
    }

    /// The key of a compact secret key (the seed).
    pub fn from_bytes(params: Params, seed: &[u8]) -> Result<SigningKey, Error> {
        Error::check_len("MAYO secret key", params.secret_key_bytes(), seed.len())?;
        Ok(SigningKey {
            params,
            seed: Zeroizing::new(seed.to_vec()),
            map: std::sync::OnceLock::new(),
            public: std::sync::OnceLock::new(),
            verifying: std::sync::OnceLock::new(),
        })
    }

    /// The expanded secret map (ExpandSK, §3.2), computed once.
    fn map(&self) -> &Secret {
        self.map.get_or_init(|| {
            let (p, seed) = (self.params, &self.seed[..]);
            match p.limbs() {
                4 => Secret::L4(SecretMap::expand(p, seed)),
                5 => Secret::L5(SecretMap::expand(p, seed)),
                7 => Secret::L7(SecretMap::expand(p, seed)),
                _ => Secret::L9(SecretMap::expand(p, seed)),
            }
        })
    }

    /// The compact secret key (the seed).
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        self.seed.clone()
    }

    /// The parameter set.
    pub fn params(&self) -> Params {
        self.params
    }

    /// The compact public key (computed once: P3 is the cost of key generation).
    pub fn public_key_bytes(&self) -> &[u8] {
        self.public.get_or_init(|| {
            let seed = self.to_bytes();
            with_limbs!(self.params, |L| map::compact_public_key::<L>(
                self.params,
                &seed
            ))
        })
    }

    /// The matching public key.
    pub fn verifying_key(&self) -> &VerifyingKey {
        self.verifying.get_or_init(|| {
            VerifyingKey::from_bytes(self.params, self.public_key_bytes()).expect("own encoding")
        })
    }

    /// Signs `msg` (Sign, §3.3): R from `rng`, salt = SHAKE256(digest || R || seed_sk),
    /// t = SHAKE256(digest || salt), vinegar and randomizer from SHAKE256(digest || salt ||
    /// seed_sk || ctr).
    pub fn sign<R: CryptoRng + ?Sized>(&self, msg: &[u8], rng: &mut R) -> Signature {
        let p = self.params;
        let digest = map::shake256(&[msg], p.digest_bytes());
        let mut r = Zeroizing::new(vec![0u8; p.salt_bytes()]);
        rng.fill_bytes(&mut r);
        let seed = self.to_bytes();
        let salt = map::shake256(&[&digest, &r, &seed], p.salt_bytes());
        let t = target(p, &digest, &salt);
        let s = self
            .preimage_with(&t, |ctr| {
                let bytes = Zeroizing::new(map::shake256(
                    &[&digest, &salt, &seed, &[ctr]],
                    p.k() * p.v_bytes() + p.r_bytes(),
                ));
                split_randomness(p, &bytes)
            })
            .expect("a full-rank system within 256 attempts");
        Signature::from_parts(p, &s, &salt)
    }

    /// The open sampler: s (k n elements of F16, one per byte) with P*(s) = t, for any target t
    /// (m elements), with vinegar and randomizer from `rng`. This is MAYO's signing without the
    /// hashing of a message, for constructions such as MAYO-RS.
    pub fn sample_preimage<R: CryptoRng + ?Sized>(
        &self,
        t: &[u8],
        rng: &mut R,
    ) -> Result<Vec<u8>, Error> {
        let p = self.params;
        check_field_vector(t, p.m())?;
        self.preimage_with(t, |_| {
            let mut bytes = Zeroizing::new(vec![0u8; p.k() * p.v_bytes() + p.r_bytes()]);
            rng.fill_bytes(&mut bytes);
            split_randomness(p, &bytes)
        })
        .ok_or(Error::NoSolution)
    }

    fn preimage_with(
        &self,
        t: &[u8],
        randomness: impl FnMut(u8) -> Zeroizing<Vec<u8>>,
    ) -> Option<Vec<u8>> {
        on_map!(self.map(), Secret, |m| m.preimage(t, randomness))
    }
}

/// (v_0 .. v_{k-1}, r) as elements from the packed bytes of §3.3 step 9.
fn split_randomness(p: Params, bytes: &[u8]) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(Vec::with_capacity(p.k() * (p.v() + p.o())));
    for i in 0..p.k() {
        let vi = Zeroizing::new(gf16::decode(&bytes[i * p.v_bytes()..], p.v()));
        out.extend_from_slice(&vi);
    }
    let r = Zeroizing::new(gf16::decode(&bytes[p.k() * p.v_bytes()..], p.k() * p.o()));
    out.extend_from_slice(&r);
    out
}

/// t = Decode(SHAKE256(digest || salt, m_bytes)): the target of signing (§3.3 step 8), m elements
/// of F16, one per byte. Public for constructions on the open sampler that hash their own digest
/// (MAYO-RS binds the ring into it).
pub fn target(p: Params, digest: &[u8], salt: &[u8]) -> Vec<u8> {
    gf16::decode(&map::shake256(&[digest, salt], p.m_bytes()), p.m())
}

/// Encode (§2.1.1): elements of F16, one per byte, packed two per byte, low nibble first (an odd
/// count leaves the last high nibble zero). Only the low four bits of each element are used.
pub fn encode_vector(elems: &[u8]) -> Vec<u8> {
    gf16::encode(elems)
}

/// Decode (§2.1.1): `len` elements of F16, one per byte, from exactly `len.div_ceil(2)` packed
/// bytes; for an odd `len` the last byte's high nibble is padding and must be zero, so that every
/// vector has one encoding.
pub fn decode_vector(bytes: &[u8], len: usize) -> Result<Vec<u8>, Error> {
    Error::check_len("F16 vector", len.div_ceil(2), bytes.len())?;
    if len % 2 == 1 && bytes[len / 2] >> 4 != 0 {
        return Err(Error::Malformed);
    }
    Ok(gf16::decode(bytes, len))
}

fn check_field_vector(v: &[u8], len: usize) -> Result<(), Error> {
    if v.len() != len || v.iter().any(|&e| e > 15) {
        return Err(Error::Malformed);
    }
    Ok(())
}

impl core::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SigningKey({}, ..)", self.params)
    }
}

/// A MAYO public key: the compact encoding, with P1, P2 and P3 expanded for verification.
pub struct VerifyingKey {
    params: Params,
    bytes: Vec<u8>,
    map: Public,
}

impl VerifyingKey {
    /// Decodes a compact public key (seed_pk || upper(P3)) and expands it.
    pub fn from_bytes(params: Params, cpk: &[u8]) -> Result<VerifyingKey, Error> {
        Error::check_len("MAYO public key", params.public_key_bytes(), cpk.len())?;
        let map = match params.limbs() {
            4 => Public::L4(PublicMap::expand(params, cpk)),
            5 => Public::L5(PublicMap::expand(params, cpk)),
            7 => Public::L7(PublicMap::expand(params, cpk)),
            _ => Public::L9(PublicMap::expand(params, cpk)),
        };
        Ok(VerifyingKey {
            params,
            bytes: cpk.to_vec(),
            map,
        })
    }

    /// The compact encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.bytes.clone()
    }

    /// The compact encoding, borrowed.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The parameter set.
    pub fn params(&self) -> Params {
        self.params
    }

    /// P*(s) for s of k n elements (one per byte): m elements.
    pub fn evaluate(&self, s: &[u8]) -> Result<Vec<u8>, Error> {
        check_field_vector(s, self.params.k() * self.params.n())?;
        Ok(self.eval(s))
    }

    fn eval(&self, s: &[u8]) -> Vec<u8> {
        on_map!(&self.map, Public, |m| m.evaluate(s))
    }

    /// Verify (§3.4): P*(s) = t with t = SHAKE256(SHAKE256(msg) || salt).
    pub fn verify(&self, msg: &[u8], sig: &Signature) -> Result<(), Error> {
        let p = self.params;
        if sig.params != p {
            return Err(Error::InvalidSignature);
        }
        let digest = map::shake256(&[msg], p.digest_bytes());
        let t = target(p, &digest, sig.salt());
        if self.eval(&sig.s()) == t {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
}

impl Clone for VerifyingKey {
    fn clone(&self) -> Self {
        VerifyingKey::from_bytes(self.params, &self.bytes).expect("own encoding")
    }
}

impl PartialEq for VerifyingKey {
    fn eq(&self, other: &Self) -> bool {
        self.params == other.params && self.bytes == other.bytes
    }
}

impl Eq for VerifyingKey {}

impl core::fmt::Debug for VerifyingKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "VerifyingKey({}, {} bytes)",
            self.params,
            self.bytes.len()
        )
    }
}

/// A MAYO signature: the packed solution s (k n elements) followed by the salt.
#[derive(Clone, PartialEq, Eq)]
pub struct Signature {
    params: Params,
    bytes: Vec<u8>,
}

impl Signature {
    /// Decodes a signature: any bytes of the right length are a well-formed signature (an odd
    /// k n leaves a padding nibble, which must be zero).
    pub fn from_bytes(params: Params, bytes: &[u8]) -> Result<Signature, Error> {
        Error::check_len("MAYO signature", params.signature_bytes(), bytes.len())?;
        if (params.k() * params.n()) % 2 == 1 && bytes[params.s_bytes() - 1] >> 4 != 0 {
            return Err(Error::Malformed);
        }
        Ok(Signature {
            params,
            bytes: bytes.to_vec(),
        })
    }

    fn from_parts(params: Params, s: &[u8], salt: &[u8]) -> Signature {
        Signature {
            params,
            bytes: [gf16::encode(s), salt.to_vec()].concat(),
        }
    }

    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.bytes.clone()
    }

    /// The parameter set.
    pub fn params(&self) -> Params {
        self.params
    }

    /// The salt.
    pub fn salt(&self) -> &[u8] {
        &self.bytes[self.params.s_bytes()..]
    }

    /// The solution s, one element per byte.
    pub fn s(&self) -> Vec<u8> {
        gf16::decode(&self.bytes, self.params.k() * self.params.n())
    }
}

impl core::fmt::Debug for Signature {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Signature({}, {} bytes)", self.params, self.bytes.len())
    }
}

impl signature::SignatureEncoding for Signature {
    type Repr = Vec<u8>;
}

impl From<Signature> for Vec<u8> {
    fn from(s: Signature) -> Vec<u8> {
        s.bytes
    }
}

impl TryFrom<&[u8]> for Signature {
    type Error = signature::Error;
    fn try_from(b: &[u8]) -> Result<Self, Self::Error> {
        Params::ALL
            .into_iter()
            .find(|p| p.signature_bytes() == b.len())
            .and_then(|p| Signature::from_bytes(p, b).ok())
            .ok_or_else(signature::Error::new)
    }
}

impl signature::RandomizedSigner<Signature> for SigningKey {
    fn try_sign_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Signature, signature::Error> {
        alibi_encoding::sign_seeded(rng, |stream| self.sign(msg, stream))
    }
}

impl signature::Verifier<Signature> for VerifyingKey {
    fn verify(&self, msg: &[u8], sig: &Signature) -> Result<(), signature::Error> {
        VerifyingKey::verify(self, msg, sig).map_err(|_| signature::Error::new())
    }
}
