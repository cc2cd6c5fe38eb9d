//! # alibi-mitaka
//!
//! The NTRU trapdoor of GANDALF[Antrag, Mitaka] (seed 001's Table 1, as the SHADOWFAX authors'
//! code builds it): keys from Antrag's annular key generation ([`antrag`]), preimages from the
//! Mitaka hybrid sampler ([`mitaka`]), over the lattice of Falcon-512 (n = 512, q = 12289).
//!
//! The public key is Falcon's: h = g / f mod q, held as an [`alibi_falcon::VerifyingKey`] of
//! Falcon-512 (896 bytes without the header byte, as the artifact stores it), so ring members of
//! either trapdoor hash and verify alike. The secret key is the artifact's `sign_sk`: f, g, F, G,
//! one signed byte per coefficient (2,048 bytes).
//!
//! What this crate offers is the open sampler: for any target c, a short (s1, s2) with
//! s1 + s2 h = c mod q, distributed as a spherical discrete Gaussian of width
//! sigma = r alpha sqrt(q) = 162.90 (r = 1.2778, Falcon-512's smoothing parameter, alpha = 1.15,
//! the Antrag quality). `alibi-ringsig` builds GANDALF[Antrag, Mitaka] on it.
//!
//! ```
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let sk = alibi_mitaka::SigningKey::generate(&mut rng);
//! let c: Vec<u16> = (0..512).map(|i| (i * 37 % 12289) as u16).collect();
//! let p = sk.expand().sample_preimage(&c, &mut rng).unwrap();
//! // s1 + s2 h = c, and the pair is short.
//! let h_s2 = alibi_falcon::sum_mul_h(&[(sk.verifying_key().lattice_key(), p.s2.as_slice())]).unwrap();
//! for i in 0..512 {
//!     assert_eq!((p.s1[i] as i32 + h_s2[i] as i32 - c[i] as i32).rem_euclid(12289), 0);
//! }
//! assert!(p.norm_sq() < 2 * 512 * 163 * 163 * 3 / 2);
//! // Plain Mitaka signatures on the same key.
//! let sig = sk.sign(b"hello", &mut rng);
//! assert!(sk.verifying_key().verify(b"hello", &sig).is_ok());
//! ```
//!
//! Side channels: the sampler is f64 arithmetic and Falcon's SamplerZ, constant-time in the sense
//! of `alibi-falcon` (only the number of SamplerZ rejection rounds varies). Key generation is not
//! constant-time (rejection of candidates, NTRUSolve), as in Falcon. Secret keys and their FFT
//! precomputation are zeroized on drop.

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod antrag;
pub mod mitaka;
pub mod signature;

pub use signature::Signature;

use alibi_encoding::LengthChecked;
use alibi_falcon::{Level, Preimage};
use rand_core::CryptoRng;
use zeroize::Zeroizing;

/// The ring degree n.
pub const N: usize = 512;

/// The modulus q.
pub const Q: u32 = alibi_falcon::Q;

/// Antrag's quality parameter alpha (the artifact's `ALPHA`).
pub const ALPHA: f64 = 1.15;

/// Bytes of a secret key: f, g, F, G, one signed byte per coefficient.
pub const SECRET_KEY_LEN: usize = 4 * N;

/// Bytes of a public key: h in Falcon's 14-bit packing, without Falcon's header byte.
pub const PUBLIC_KEY_LEN: usize = 896;

/// The width of the sampler's output: sigma = r alpha sqrt(q) (162.90 for these parameters).
pub fn sigma() -> f64 {
    mitaka::r() * ALPHA * (Q as f64).sqrt()
}

/// Errors of key decoding and sampling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An input has the wrong length.
    #[error(transparent)]
    Length(#[from] alibi_encoding::LengthError),
    /// The basis's quality is worse than alpha: Mitaka would not sample at its sigma.
    #[error("the basis is not of Antrag quality alpha = {ALPHA}")]
    PoorBasis,
    /// A Falcon-level check failed (NTRU equation, invertibility, coefficient range, encoding).
    #[error("falcon: {0}")]
    Falcon(#[from] alibi_falcon::Error),
    /// A signature does not verify.
    #[error("invalid Mitaka signature")]
    InvalidSignature,
}

/// A public key: h = g / f mod q, a point of Falcon-512's lattice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey {
    inner: alibi_falcon::VerifyingKey,
}

impl VerifyingKey {
    /// Decodes h in the 14-bit packing without a header byte (896 bytes, the artifact's
    /// `sign_pk`).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Error::check_len("Mitaka public key", PUBLIC_KEY_LEN, bytes.len())?;
        Ok(VerifyingKey {
            inner: alibi_falcon::VerifyingKey::from_h_bytes(Level::Falcon512, bytes)?,
        })
    }

    /// The same h taken from a Falcon-512 key of the lattice (no decoding, no transform).
    pub fn from_lattice_key(key: alibi_falcon::VerifyingKey) -> Result<Self, Error> {
        if key.level() != Level::Falcon512 {
            return Err(Error::Falcon(alibi_falcon::Error::LevelMismatch));
        }
        Ok(VerifyingKey { inner: key })
    }

    /// The 896-byte encoding of h.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.inner.h_bytes().to_vec()
    }

    /// The public polynomial h.
    pub fn h(&self) -> &[u16] {
        self.inner.h()
    }

    /// The same h as a Falcon-512 key of the lattice: what rings hold and hash.
    pub fn lattice_key(&self) -> &alibi_falcon::VerifyingKey {
        &self.inner
    }
}

/// The length check, written once in `alibi-encoding`.
impl alibi_encoding::LengthChecked for Error {}

/// An Antrag key: the NTRU basis (f, g, F, G) and its public h.
pub struct SigningKey {
    basis: antrag::Basis,
    vk: VerifyingKey,
}

impl core::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("alibi_mitaka::SigningKey")
    }
}

impl SigningKey {
    /// A fresh key from Antrag's key generation (tens of milliseconds).
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let (basis, inner) = antrag::generate(rng);
        SigningKey {
            basis,
            vk: VerifyingKey { inner },
        }
    }

    /// Decodes f || g || F || G (512 signed bytes each, the artifact's `sign_sk`), checking the
    /// NTRU equation f G - g F = q and the basis quality.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Error::check_len("Mitaka secret key", SECRET_KEY_LEN, bytes.len())?;
        let part = |i: usize| {
            Zeroizing::new(
                bytes[i * N..(i + 1) * N]
                    .iter()
                    .map(|&b| b as i8)
                    .collect::<Vec<i8>>(),
            )
        };
        let basis = antrag::Basis {
            f: part(0),
            g: part(1),
            big_f: part(2),
            big_g: part(3),
        };
        let inner = alibi_falcon::ntru_verifying_key(
            Level::Falcon512,
            &basis.f,
            &basis.g,
            &basis.big_f,
            &basis.big_g,
        )?;
        // A small tolerance: the keys' evaluations were tested with the artifact's FFT, whose
        // last bits may differ from ours.
        if antrag::quality_sq(&basis.f, &basis.g) > ALPHA * ALPHA * (1.0 + 1e-9) {
            return Err(Error::PoorBasis);
        }
        Ok(SigningKey {
            basis,
            vk: VerifyingKey { inner },
        })
    }

    /// f || g || F || G, one signed byte per coefficient.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(SECRET_KEY_LEN));
        for p in self.ntru_polynomials() {
            out.extend(p.iter().map(|&x| x as u8));
        }
        out
    }

    /// The four polynomials [f, g, F, G].
    pub fn ntru_polynomials(&self) -> [&[i8]; 4] {
        [
            &self.basis.f,
            &self.basis.g,
            &self.basis.big_f,
            &self.basis.big_g,
        ]
    }

    /// The public key h = g / f mod q.
    pub fn verifying_key(&self) -> &VerifyingKey {
        &self.vk
    }

    /// The basis quality alpha achieved: sqrt(max_i max(|b1_i|^2 / q, q / |b1_i|^2)), at most
    /// [`ALPHA`].
    pub fn quality(&self) -> f64 {
        antrag::quality_sq(&self.basis.f, &self.basis.g).sqrt()
    }

    /// Signs `msg` with a plain Mitaka signature ([`signature`]), expanding the key first.
    pub fn sign<R: CryptoRng + ?Sized>(&self, msg: &[u8], rng: &mut R) -> Signature {
        self.expand().sign(msg, rng)
    }

    /// Precomputes the sampler's FFT-domain data for repeated sampling.
    pub fn expand(&self) -> ExpandedSigningKey {
        ExpandedSigningKey {
            key: mitaka::MitakaKey::new(&self.basis),
            vk: self.vk.clone(),
        }
    }
}

/// A key ready for sampling: the Gram-Schmidt data and perturbation widths of Mitaka.
pub struct ExpandedSigningKey {
    pub(crate) key: mitaka::MitakaKey,
    pub(crate) vk: VerifyingKey,
}

impl core::fmt::Debug for ExpandedSigningKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("alibi_mitaka::ExpandedSigningKey")
    }
}

impl ExpandedSigningKey {
    /// The public polynomial h.
    pub fn h(&self) -> &[u16] {
        self.vk.h()
    }

    /// The public key.
    pub fn verifying_key(&self) -> &VerifyingKey {
        &self.vk
    }

    /// The open trapdoor sampler: one draw of a short (s1, s2) with s1 + s2 h = c mod q, for any
    /// target c (n coefficients in [0, q)); no norm test is applied, as for Falcon's
    /// `sample_preimage`: a ring signature tests the norm of all its parts together.
    pub fn sample_preimage<R: CryptoRng + ?Sized>(
        &self,
        c: &[u16],
        rng: &mut R,
    ) -> Result<Preimage, Error> {
        Error::check_len("target polynomial", N, c.len())?;
        if c.iter().any(|&x| x as u32 >= Q) {
            return Err(Error::Falcon(alibi_falcon::Error::CoefficientRange));
        }
        let (s1, s2) = self.key.sample(c, rng);
        Ok(Preimage { s1, s2 })
    }
}
