//! # alibi-falcon
//!
//! Falcon-512 and Falcon-1024 as specified in the round-3 specification (v1.2), in safe Rust, with
//! the trapdoor preimage sampler open as a public API.
//!
//! * [`SigningKey::generate`]: NTRUGen + NTRUSolve (spec §3.8).
//! * [`SigningKey::sign`] / [`ExpandedSigningKey::sign`]: HashToPoint, ffSampling, compression (§3.9).
//! * [`VerifyingKey::verify`]: the NTT-based verification modulo q = 12289 (§3.10).
//! * [`ExpandedSigningKey::sample_preimage`]: a short (s1, s2) with s1 + s2 h = c for any target c,
//!   which is what ring signatures built from Falcon (FalconRS, GANDALF) need.
//!
//! Encodings are byte-exact with the specification and with PQClean's detached signatures: public key
//! 897 / 1,793 bytes, secret key 1,281 / 2,305 bytes, signature = header 0x30 + log n, 40-byte salt,
//! compressed s2 (no padding, at most 666 / 1,280 bytes in all).
//!
//! ```
//! use alibi_falcon::{Level, SigningKey};
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let sk = SigningKey::generate(Level::Falcon512, &mut rng);
//! let vk = sk.verifying_key();
//! let sig = sk.sign(b"hello", &mut rng);
//! assert!(vk.verify(b"hello", &sig).is_ok());
//! assert!(vk.verify(b"hullo", &sig).is_err());
//! ```
//!
//! ## Side channels
//! Constant-time (no secret-dependent branch or memory index): SamplerZ's base sampler, ApproxExp and
//! BerExp; the FFT, ffLDL and ffSampling arithmetic (f64 operations, which are constant-time on x86-64
//! and AArch64 for the normal-range values that occur); the mod-q arithmetic of verification.
//! SamplerZ's rejection loop runs a variable number of rounds, as the specification allows.
//! Not constant-time: key generation (big-integer NTRUSolve and the rejection of candidate keys), and
//! the decoders, which return early on malformed input. Secret keys and expanded keys are zeroized
//! on drop.

// Unsafe only to call the AVX2 builds of the mod-q transforms once the CPU is known to have AVX2
// (`modq.rs`).
#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

mod codec;
mod error;
pub mod fft;
mod fftree;
mod hash;
mod isa;
mod keygen;
mod modq;
mod params;
mod sampler;
#[cfg(test)]
mod testutil;

use alibi_encoding::LengthChecked;
use fftree::Recursion;
use rand_core::{CryptoRng, TryCryptoRng};
use std::sync::OnceLock;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

pub use error::Error;
pub use keygen::ntru_solve_bounded as ntru_solve;
pub use params::{Level, Q, SALT_LEN};

pub use sampler::Sampler;

/// HashToPoint (spec Algorithm 3): the target c = H(salt || msg) in Z_q[x]/(x^n + 1).
pub fn hash_to_point(salt: &[u8], msg: &[u8], level: Level) -> Vec<u16> {
    hash::hash_to_point(salt, msg, level.n())
}

/// ||(s1, s2)||^2, the squared Euclidean norm the acceptance test bounds.
pub fn norm_sq(s1: &[i16], s2: &[i16]) -> u64 {
    s1.iter()
        .chain(s2)
        .map(|&x| (x as i64 * x as i64) as u64)
        .sum()
}

/// a - b mod q as centred integers in (-q/2, q/2]: the short vector a verifier recovers from a
/// target a and a combination b of public keys.
pub fn sub_centered(a: &[u16], b: &[u16]) -> Vec<i16> {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| modq::center(((x as u32 + Q - y as u32) % Q) as u16) as i16)
        .collect()
}

/// Whether ||(s1, s2)||^2 <= floor(beta^2) for `level` (spec §3.10, Algorithm 16 line 6).
pub fn is_short(level: Level, s1: &[i16], s2: &[i16]) -> bool {
    norm_sq(s1, s2) <= level.beta_sq()
}

/// A Falcon secret key: the NTRU basis (f, g, F, G), with h = g / f mod q kept for convenience.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SigningKey {
    #[zeroize(skip)]
    level: Level,
    f: Vec<i8>,
    g: Vec<i8>,
    big_f: Vec<i8>,
    big_g: Vec<i8>,
    /// h = g / f mod q in the NTT domain, what the public key is made from.
    #[zeroize(skip)]
    h_ntt: Vec<u16>,
    /// The public key, made on first use so that signing from an encoded key, which does not
    /// need it, does not pay for it; kept so that `verifying_key` can lend it.
    #[zeroize(skip)]
    vk: OnceLock<VerifyingKey>,
}

impl core::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SigningKey({})", self.level)
    }
}

/// h = g / f mod q for an NTRU basis (f, g, F, G) of `level` held one signed byte per coefficient,
/// after checking that f G - g F = q (G = g F / f mod q) and that no coefficient is -128. Unlike
/// [`SigningKey::from_ntru_polynomials`] it does not limit f and g to Falcon's encoding width, so
/// bases from other key generators of the same lattice (Antrag's) are accepted.
pub fn ntru_verifying_key(
    level: Level,
    f: &[i8],
    g: &[i8],
    big_f: &[i8],
    big_g: &[i8],
) -> Result<VerifyingKey, Error> {
    let n = level.n();
    if [f, g, big_f, big_g].iter().any(|p| p.len() != n) {
        return Err(Error::LevelMismatch);
    }
    let h = ntru_public(f, g, big_f, big_g)?;
    Ok(VerifyingKey::from_h(level, h, None))
}

/// The check [`ntru_verifying_key`] and [`SigningKey::from_ntru_polynomials`] share; the lengths
/// are already checked.
fn ntru_public(f: &[i8], g: &[i8], big_f: &[i8], big_g: &[i8]) -> Result<Vec<u16>, Error> {
    if [f, g, big_f, big_g].iter().any(|p| p.contains(&i8::MIN)) {
        return Err(Error::CoefficientRange);
    }
    let (mut h, g2) = keygen::complete_private(f, g, big_f).ok_or(Error::InvalidSecretKey)?;
    if g2 != big_g {
        return Err(Error::InvalidSecretKey);
    }
    modq::intt(&mut h);
    Ok(h)
}

impl SigningKey {
    /// Generates a key pair (NTRUGen, spec Algorithm 5). Takes tens of milliseconds.
    pub fn generate<R: CryptoRng + ?Sized>(level: Level, rng: &mut R) -> Self {
        let mut seed = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(&mut seed[..]);
        let k = keygen::ntru_gen(level, *seed);
        Self::with_public_key(
            level,
            [k.f, k.g, k.big_f, k.big_g],
            VerifyingKey::from_h(level, k.h, None),
        )
    }

    /// Decodes a secret key (spec §3.11.5) and recomputes G = g F / f mod q.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (level, f, g, big_f) = codec::decode_secret_key(bytes)?;
        let (h_ntt, big_g) =
            keygen::complete_private(&f, &g, &big_f).ok_or(Error::InvalidSecretKey)?;
        Ok(SigningKey {
            level,
            f,
            g,
            big_f,
            big_g,
            h_ntt,
            vk: OnceLock::new(),
        })
    }

    /// A key whose public key is already made.
    fn with_public_key(level: Level, basis: [Vec<i8>; 4], vk: VerifyingKey) -> Self {
        let [f, g, big_f, big_g] = basis;
        SigningKey {
            level,
            f,
            g,
            big_f,
            big_g,
            h_ntt: vk.h_ntt.clone(),
            vk: OnceLock::from(vk),
        }
    }

    /// Builds a key from its four NTRU polynomials (f, g, F, G), as other implementations store them
    /// (for instance one signed byte per coefficient). Checks the ranges of the encoding, that f is
    /// invertible mod q and that G = g F / f mod q, i.e. f G - g F = q.
    pub fn from_ntru_polynomials(
        level: Level,
        f: &[i8],
        g: &[i8],
        big_f: &[i8],
        big_g: &[i8],
    ) -> Result<Self, Error> {
        let n = level.n();
        if [f, g, big_f, big_g].iter().any(|p| p.len() != n) {
            return Err(Error::LevelMismatch);
        }
        let lim = 1i8 << (level.fg_bits() - 1);
        if f.iter().chain(g).any(|&x| x <= -lim || x >= lim) {
            return Err(Error::CoefficientRange);
        }
        let h = ntru_public(f, g, big_f, big_g)?;
        let basis = [f, g, big_f, big_g].map(<[i8]>::to_vec);
        Ok(Self::with_public_key(
            level,
            basis,
            VerifyingKey::from_h(level, h, None),
        ))
    }

    /// The four NTRU polynomials [f, g, F, G], one signed byte per coefficient (the layout some
    /// implementations store instead of the specification's encoding).
    pub fn ntru_polynomials(&self) -> [&[i8]; 4] {
        [&self.f, &self.g, &self.big_f, &self.big_g]
    }

    /// The encoded secret key (header, f, g, F).
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(codec::encode_secret_key(
            self.level,
            &self.f,
            &self.g,
            &self.big_f,
        ))
    }

    /// The level of this key.
    pub fn level(&self) -> Level {
        self.level
    }

    /// The public polynomial h = g / f mod q.
    pub fn h(&self) -> &[u16] {
        &self.verifying_key().h
    }

    /// The matching public key.
    pub fn verifying_key(&self) -> &VerifyingKey {
        public_key(&self.vk, self.level, &self.h_ntt)
    }

    /// Precomputes the FFT basis and the Falcon tree (spec §3.8.3) for fast repeated signing.
    pub fn expand(&self) -> ExpandedSigningKey {
        isa::on_best_isa!(isa => self.expand_on(isa))
    }

    /// [`SigningKey::expand`] on one build of the floating-point code.
    fn expand_on<I: Recursion>(&self, isa: I) -> ExpandedSigningKey {
        isa.run(|| self.expand_body(isa))
    }

    #[inline(always)]
    fn expand_body<I: Recursion>(&self, isa: I) -> ExpandedSigningKey {
        let n = self.level.n();
        let logn = self.level.logn();
        let b00 = fft::from_ints(&self.g);
        let mut b01 = fft::from_ints(&self.f);
        fft::neg(&mut b01);
        let b10 = fft::from_ints(&self.big_g);
        let mut b11 = fft::from_ints(&self.big_f);
        fft::neg(&mut b11);
        // Gram matrix G = B B*, B = [[g, -f], [G, -F]].
        let mut g00 = vec![0.0; n];
        let mut g01 = vec![0.0; n];
        let mut g11 = vec![0.0; n];
        fft::norm2_sum(&mut g00, &b00, &b01);
        fft::mul_adj_sum(&mut g01, &b00, &b10, &b01, &b11);
        fft::norm2_sum(&mut g11, &b10, &b11);
        let mut tree = vec![0.0; fftree::tree_size(logn)];
        let sigma = self.level.sigma();
        fftree::ffldl(isa, &mut tree, &g00, &mut g01, &g11, logn, sigma);
        ExpandedSigningKey {
            level: self.level,
            b00,
            b01,
            b10,
            b11,
            tree,
            h_ntt: self.h_ntt.clone(),
            vk: self.vk.clone(),
        }
    }

    /// Signs `msg` (spec Algorithm 10), expanding the key first.
    pub fn sign<R: CryptoRng + ?Sized>(&self, msg: &[u8], rng: &mut R) -> Signature {
        self.expand().sign(msg, rng)
    }
}

/// A short preimage: s1 + s2 h = c mod q, as integers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preimage {
    /// The first half, s1 = c - s2 h (centred).
    pub s1: Vec<i16>,
    /// The second half, the part a Falcon signature carries.
    pub s2: Vec<i16>,
}

impl Preimage {
    /// ||(s1, s2)||^2.
    pub fn norm_sq(&self) -> u64 {
        norm_sq(&self.s1, &self.s2)
    }
}

/// A secret key with its FFT basis B = [[g, -f], [G, -F]] and normalised Falcon tree precomputed.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct ExpandedSigningKey {
    #[zeroize(skip)]
    level: Level,
    b00: Vec<f64>,
    b01: Vec<f64>,
    b10: Vec<f64>,
    b11: Vec<f64>,
    tree: Vec<f64>,
    /// As in [`SigningKey`].
    #[zeroize(skip)]
    h_ntt: Vec<u16>,
    #[zeroize(skip)]
    vk: OnceLock<VerifyingKey>,
}

impl core::fmt::Debug for ExpandedSigningKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ExpandedSigningKey({})", self.level)
    }
}

impl ExpandedSigningKey {
    /// The level of this key.
    pub fn level(&self) -> Level {
        self.level
    }

    /// The public polynomial h = g / f mod q.
    pub fn h(&self) -> &[u16] {
        &self.verifying_key().h
    }

    /// The matching public key.
    pub fn verifying_key(&self) -> &VerifyingKey {
        public_key(&self.vk, self.level, &self.h_ntt)
    }

    /// The smallest and largest leaf sigma' of the Falcon tree; both lie in [sigma_min, sigma_max]
    /// for every key NTRUGen accepts.
    pub fn leaf_sigma_range(&self) -> (f64, f64) {
        fftree::leaf_range(&self.tree, self.level.logn())
    }

    /// One draw of (s1, s2) = (c, 0) - z B with z from ffSampling on t = (c, 0) B^{-1}
    /// (spec Algorithm 10, lines 3-6), without the norm test.
    fn sample_with(&self, c: &[u16], samp: &mut Sampler) -> Preimage {
        isa::on_best_isa!(isa => self.sample_on(isa, c, samp))
    }

    /// [`ExpandedSigningKey::sample_with`] on one build of the floating-point code.
    fn sample_on<I: Recursion>(&self, isa: I, c: &[u16], samp: &mut Sampler) -> Preimage {
        isa.run(|| self.sample_body(isa, c, samp))
    }

    #[inline(always)]
    fn sample_body<I: Recursion>(&self, isa: I, c: &[u16], samp: &mut Sampler) -> Preimage {
        let n = self.level.n();
        let logn = self.level.logn();
        let mut cf: Vec<f64> = c.iter().map(|&x| x as f64).collect();
        fft::fft(&mut cf);
        let qi = 1.0 / Q as f64;
        // t0 = c (-F) / q = c b11 / q; t1 = c f / q = -c b01 / q.
        let mut t0 = cf.clone();
        fft::mul(&mut t0, &self.b11);
        fft::scale(&mut t0, qi);
        let mut t1 = cf;
        fft::mul(&mut t1, &self.b01);
        fft::scale(&mut t1, -qi);
        let mut z0 = vec![0.0; n];
        let mut z1 = vec![0.0; n];
        let mut tmp = vec![0.0; 2 * n];
        let target = fftree::Target {
            z0: &mut z0,
            z1: &mut z1,
            t0: &t0,
            t1: &t1,
        };
        let call = fftree::SamplingCall {
            target,
            tree: &self.tree,
            logn,
            tmp: &mut tmp,
        };
        isa.ff_sampling(samp, call);
        // s = (t - z) B.
        fft::sub(&mut t0, &z0);
        fft::sub(&mut t1, &z1);
        let mut s1 = t0.clone();
        fft::mul(&mut s1, &self.b00);
        z0.copy_from_slice(&t1);
        fft::mul(&mut z0, &self.b10);
        fft::add(&mut s1, &z0);
        let mut s2 = t0;
        fft::mul(&mut s2, &self.b01);
        fft::mul(&mut t1, &self.b11);
        fft::add(&mut s2, &t1);
        fft::ifft(&mut s1);
        fft::ifft(&mut s2);
        let round = |v: &[f64]| v.iter().map(|x| x.round() as i16).collect::<Vec<i16>>();
        let out = Preimage {
            s1: round(&s1),
            s2: round(&s2),
        };
        tmp.zeroize();
        z0.zeroize();
        z1.zeroize();
        out
    }

    fn check_target(&self, c: &[u16]) -> Result<(), Error> {
        if c.len() != self.level.n() {
            return Err(Error::LevelMismatch);
        }
        if c.iter().any(|&x| x as u32 >= Q) {
            return Err(Error::CoefficientRange);
        }
        Ok(())
    }

    /// The open trapdoor sampler: one draw of a short (s1, s2) with s1 + s2 h = c mod q, for any
    /// target c in Z_q[x]/(x^n + 1) (coefficients in [0, q)). No norm test is applied: callers
    /// that combine several preimages (ring signatures) test the combined norm themselves; see
    /// [`Self::sample_short_preimage`] for the Falcon acceptance loop.
    pub fn sample_preimage<R: CryptoRng + ?Sized>(
        &self,
        c: &[u16],
        rng: &mut R,
    ) -> Result<Preimage, Error> {
        self.check_target(c)?;
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let mut samp = Sampler::new(seed, self.level.sigma_min());
        Ok(self.sample_with(c, &mut samp))
    }

    /// Draws preimages of c until one passes the Falcon norm bound floor(beta^2).
    pub fn sample_short_preimage<R: CryptoRng + ?Sized>(
        &self,
        c: &[u16],
        rng: &mut R,
    ) -> Result<Preimage, Error> {
        self.check_target(c)?;
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let mut samp = Sampler::new(seed, self.level.sigma_min());
        loop {
            let p = self.sample_with(c, &mut samp);
            if p.norm_sq() <= self.level.beta_sq() {
                return Ok(p);
            }
        }
    }

    /// Signs `msg` (spec Algorithm 10): a fresh 40-byte salt, c = HashToPoint(salt || msg), short
    /// preimages of c until one passes the norm bound and compresses into the specification size.
    pub fn sign<R: CryptoRng + ?Sized>(&self, msg: &[u8], rng: &mut R) -> Signature {
        let mut salt = [0u8; SALT_LEN];
        rng.fill_bytes(&mut salt);
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let mut samp = Sampler::new(seed, self.level.sigma_min());
        let c = hash::hash_to_point(&salt, msg, self.level.n());
        let body_max = self.level.sig_max_len() - 1 - SALT_LEN;
        loop {
            let p = self.sample_with(&c, &mut samp);
            if p.norm_sq() > self.level.beta_sq() {
                continue;
            }
            if let Some(body) = codec::compress(&p.s2, body_max) {
                return Signature {
                    level: self.level,
                    salt,
                    s2: p.s2,
                    body,
                };
            }
        }
    }
}

/// The public key kept in `vk`, made from h's NTT on first use.
fn public_key<'a>(vk: &'a OnceLock<VerifyingKey>, level: Level, h_ntt: &[u16]) -> &'a VerifyingKey {
    vk.get_or_init(|| VerifyingKey::from_h_ntt(level, h_ntt.to_vec()))
}

/// A Falcon public key: h = g / f mod q, with its NTT and its encoding precomputed (ring
/// signatures and the AKEMs hash the encoding on every operation).
#[derive(Clone, PartialEq, Eq)]
pub struct VerifyingKey {
    level: Level,
    h: Vec<u16>,
    h_ntt: Vec<u16>,
    encoded: Vec<u8>,
}

impl core::fmt::Debug for VerifyingKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "VerifyingKey({}, h[0..4] = {:?})",
            self.level,
            &self.h[..4]
        )
    }
}

impl VerifyingKey {
    /// The key of h, whose encoding is `encoded` when the caller has it (decoding) and is
    /// computed otherwise.
    fn from_h(level: Level, h: Vec<u16>, encoded: Option<&[u8]>) -> Self {
        let mut h_ntt = h.clone();
        modq::ntt(&mut h_ntt);
        Self::from_both(level, h, h_ntt, encoded)
    }

    /// The key of h given in the NTT domain (what a signing key keeps).
    fn from_h_ntt(level: Level, h_ntt: Vec<u16>) -> Self {
        let mut h = h_ntt.clone();
        modq::intt(&mut h);
        Self::from_both(level, h, h_ntt, None)
    }

    /// The key of h and its NTT, encoded as `encoded` when the caller has the encoding.
    fn from_both(level: Level, h: Vec<u16>, h_ntt: Vec<u16>, encoded: Option<&[u8]>) -> Self {
        let encoded = match encoded {
            Some(e) => e.to_vec(),
            None => codec::encode_public_key(level, &h),
        };
        VerifyingKey {
            level,
            h,
            h_ntt,
            encoded,
        }
    }

    /// Builds a key from h (n coefficients in [0, q)).
    pub fn from_polynomial(level: Level, h: &[u16]) -> Result<Self, Error> {
        if h.len() != level.n() {
            return Err(Error::LevelMismatch);
        }
        if h.iter().any(|&x| x as u32 >= Q) {
            return Err(Error::CoefficientRange);
        }
        Ok(Self::from_h(level, h.to_vec(), None))
    }

    /// Decodes a public key (spec §3.11.4): header 0x00 + log n, then h at 14 bits per coefficient.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let (level, h) = codec::decode_public_key(bytes)?;
        Ok(Self::from_h(level, h, Some(bytes)))
    }

    /// The encoded public key.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.encoded.clone()
    }

    /// The encoded public key, borrowed.
    pub fn as_bytes(&self) -> &[u8] {
        &self.encoded
    }

    /// h packed at 14 bits per coefficient without the header byte (896 / 1,792 bytes): the form
    /// ring signatures hash and some implementations store.
    pub fn h_bytes(&self) -> &[u8] {
        &self.encoded[1..]
    }

    /// Decodes h from its headerless 14-bit packing (see [`Self::h_bytes`]).
    pub fn from_h_bytes(level: Level, bytes: &[u8]) -> Result<Self, Error> {
        let mut b = Vec::with_capacity(bytes.len() + 1);
        b.push(codec::pk_header(level));
        b.extend_from_slice(bytes);
        Self::from_bytes(&b)
    }

    /// The level of this key.
    pub fn level(&self) -> Level {
        self.level
    }

    /// The public polynomial h.
    pub fn h(&self) -> &[u16] {
        &self.h
    }

    /// s h mod q for a signed polynomial s (coefficients in [0, q)).
    pub fn mul_h(&self, s: &[i16]) -> Result<Vec<u16>, Error> {
        if s.len() != self.level.n() {
            return Err(Error::LevelMismatch);
        }
        let mut a: Vec<u16> = s.iter().map(|&x| modq::from_signed(x as i32)).collect();
        modq::ntt(&mut a);
        modq::mul_ntt(&mut a, &self.h_ntt);
        modq::intt(&mut a);
        Ok(a)
    }

    /// s1 = c - s2 h mod q, centred: the half of a preimage that a signature leaves out.
    pub fn recover_s1(&self, c: &[u16], s2: &[i16]) -> Result<Vec<i16>, Error> {
        if c.len() != self.level.n() {
            return Err(Error::LevelMismatch);
        }
        Ok(sub_centered(c, &self.mul_h(s2)?))
    }

    /// Verifies `sig` on `msg` (spec Algorithm 16).
    pub fn verify(&self, msg: &[u8], sig: &Signature) -> Result<(), Error> {
        if sig.level != self.level {
            return Err(Error::LevelMismatch);
        }
        let c = hash::hash_to_point(&sig.salt, msg, self.level.n());
        let s1 = self.recover_s1(&c, &sig.s2)?;
        if is_short(self.level, &s1, &sig.s2) {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
}

/// A Falcon signature: the salt and s2 (spec §3.11.6, compressed format).
#[derive(Clone, PartialEq, Eq)]
pub struct Signature {
    level: Level,
    salt: [u8; SALT_LEN],
    s2: Vec<i16>,
    body: Vec<u8>,
}

impl core::fmt::Debug for Signature {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Signature({}, {} bytes)", self.level, self.encoded_len())
    }
}

impl Signature {
    /// Decodes header 0x30 + log n, the 40-byte salt and the compressed s2 (which must fill the rest
    /// exactly).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let &hdr = bytes
            .first()
            .ok_or(Error::length("Falcon signature", 42, 0))?;
        let level = Level::from_logn((hdr & 0x0F) as u32)
            .filter(|_| hdr & 0xF0 == 0x30)
            .ok_or(Error::Header(hdr))?;
        if bytes.len() < 1 + SALT_LEN + 1 {
            return Err(Error::length(
                "Falcon signature",
                1 + SALT_LEN + 1,
                bytes.len(),
            ));
        }
        let mut salt = [0u8; SALT_LEN];
        salt.copy_from_slice(&bytes[1..1 + SALT_LEN]);
        let body = bytes[1 + SALT_LEN..].to_vec();
        let s2 = codec::decompress(&body, level.n())?;
        Ok(Signature {
            level,
            salt,
            s2,
            body,
        })
    }

    /// The encoding: header, salt, compressed s2.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        out.push(codec::sig_header(self.level));
        out.extend_from_slice(&self.salt);
        out.extend_from_slice(&self.body);
        out
    }

    fn encoded_len(&self) -> usize {
        1 + SALT_LEN + self.body.len()
    }

    /// The level this signature was made at.
    pub fn level(&self) -> Level {
        self.level
    }

    /// The 40-byte salt r.
    pub fn salt(&self) -> &[u8; SALT_LEN] {
        &self.salt
    }

    /// The signature polynomial s2.
    pub fn s2(&self) -> &[i16] {
        &self.s2
    }
}

/// Compresses s2 (spec Algorithm 17) into at most `max_len` bytes; `None` if it does not fit or a
/// coefficient exceeds 2047 in absolute value. Exposed for schemes that reuse Falcon's encoding.
pub fn compress(s2: &[i16], max_len: usize) -> Option<Vec<u8>> {
    codec::compress(s2, max_len)
}

/// Decompresses exactly `n` coefficients from `data` (spec Algorithm 18), strictly.
pub fn decompress(data: &[u8], n: usize) -> Result<Vec<i16>, Error> {
    codec::decompress(data, n)
}

/// Compresses into exactly `len` bytes, zero-padded (the fixed-size blocks of ring signatures and
/// of the specification's padded format); `None` if the body does not fit.
pub fn compress_padded(s: &[i16], len: usize) -> Option<Vec<u8>> {
    codec::compress_padded(s, len)
}

/// Decompresses `n` coefficients from a zero-padded fixed-size block; non-zero padding is rejected.
pub fn decompress_padded(data: &[u8], n: usize) -> Result<Vec<i16>, Error> {
    codec::decompress_padded(data, n)
}

/// [`decompress_padded`] reading every coefficient whatever it finds, with a validity flag
/// (for secret encodings: see `codec::decompress_padded_uniform`).
pub fn decompress_padded_uniform(data: &[u8], n: usize) -> (Vec<i16>, bool) {
    codec::decompress_padded_uniform(data, n)
}

/// The SHADOWFAX artifact's HashToPoly: SHAKE128(parts...) read as 16-bit little-endian words
/// below 5q, reduced mod q (the hash of its GANDALF rings and Mitaka signatures).
pub fn shake128_to_poly(parts: &[&[u8]], n: usize) -> Vec<u16> {
    hash::shake128_to_poly(parts, n)
}

/// [`shake128_to_poly`]'s sampling from a SHAKE128 the caller absorbed and finished itself.
pub fn shake128_poly(reader: alibi_keccak::XofReader, n: usize) -> Vec<u16> {
    hash::shake128_poly(reader, n)
}

/// Decompresses `n` coefficients from the start of a fixed-size block and ignores the whole bytes
/// after them (the unused bits of the last byte read must be zero). For compatibility with
/// encoders that leave stale bytes after the body (the SHADOWFAX artifact's Mitaka signer); such
/// blocks are malleable in those bytes.
pub fn decompress_prefix_block(data: &[u8], n: usize) -> Result<Vec<i16>, Error> {
    codec::decompress_prefix_block(data, n)
}

/// [`decompress_prefix_block`] with [`decompress_padded_uniform`]'s uniform work and validity flag.
pub fn decompress_prefix_block_uniform(data: &[u8], n: usize) -> (Vec<i16>, bool) {
    codec::decompress_block_uniform(data, n, false)
}

/// Sum of h_i s_i mod q over several keys of one level, with a single inverse NTT: the linear
/// combination ring signatures verify.
pub fn sum_mul_h(terms: &[(&VerifyingKey, &[i16])]) -> Result<Vec<u16>, Error> {
    let Some((first, _)) = terms.first() else {
        return Err(Error::LevelMismatch);
    };
    let n = first.level.n();
    let mut acc = vec![0u16; n];
    for (vk, s) in terms {
        if vk.level != first.level || s.len() != n {
            return Err(Error::LevelMismatch);
        }
        let mut a: Vec<u16> = s.iter().map(|&x| modq::from_signed(x as i32)).collect();
        modq::ntt(&mut a);
        modq::mul_ntt(&mut a, &vk.h_ntt);
        for (x, y) in acc.iter_mut().zip(&a) {
            *x = ((*x as u32 + *y as u32) % Q) as u16;
        }
    }
    modq::intt(&mut acc);
    Ok(acc)
}

/// The discrete Gaussian D_{Z, sigma} over the integers for a wide sigma (such as Falcon's signing
/// sigma), independent of any key: what a ring signature draws for its non-signing members.
/// Exact (no truncated table), and constant-time up to the number of rejection rounds.
pub struct DiscreteGaussian {
    inner: sampler::WideGaussian,
}

impl DiscreteGaussian {
    /// A sampler for `sigma` in [1, 50,000].
    pub fn new(sigma: f64) -> Result<Self, Error> {
        if !(1.0..=50_000.0).contains(&sigma) {
            return Err(Error::CoefficientRange);
        }
        Ok(DiscreteGaussian {
            inner: sampler::WideGaussian::new(sigma),
        })
    }

    /// The sigma of this sampler.
    pub fn sigma(&self) -> f64 {
        self.inner.sigma()
    }

    /// `n` independent samples (values beyond the i16 range have probability far below 2^-100 for
    /// the sigmas this accepts; they saturate).
    pub fn sample_poly<R: CryptoRng + ?Sized>(&self, n: usize, rng: &mut R) -> Vec<i16> {
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let mut s = Sampler::new(seed, 1.0);
        (0..n)
            .map(|_| self.inner.sample(&mut s).clamp(-32768, 32767) as i16)
            .collect()
    }
}

impl signature::Verifier<Signature> for VerifyingKey {
    fn verify(&self, msg: &[u8], sig: &Signature) -> Result<(), signature::Error> {
        VerifyingKey::verify(self, msg, sig).map_err(|_| signature::Error::new())
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

impl signature::RandomizedSigner<Signature> for ExpandedSigningKey {
    fn try_sign_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Signature, signature::Error> {
        alibi_encoding::sign_seeded(rng, |stream| self.sign(msg, stream))
    }
}

impl TryFrom<&[u8]> for Signature {
    type Error = Error;
    fn try_from(b: &[u8]) -> Result<Self, Error> {
        Signature::from_bytes(b)
    }
}

impl From<Signature> for Vec<u8> {
    fn from(s: Signature) -> Vec<u8> {
        s.to_bytes()
    }
}

impl signature::SignatureEncoding for Signature {
    type Repr = Vec<u8>;
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::{Signature, VerifyingKey};
    use serde::{de::Error as _, Deserialize, Deserializer, Serialize, Serializer};

    impl Serialize for VerifyingKey {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(&self.to_bytes())
        }
    }
    impl<'de> Deserialize<'de> for VerifyingKey {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let b: Vec<u8> = Deserialize::deserialize(d)?;
            VerifyingKey::from_bytes(&b).map_err(D::Error::custom)
        }
    }
    impl Serialize for Signature {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(&self.to_bytes())
        }
    }
    impl<'de> Deserialize<'de> for Signature {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let b: Vec<u8> = Deserialize::deserialize(d)?;
            Signature::from_bytes(&b).map_err(D::Error::custom)
        }
    }
}

#[cfg(all(test, feature = "serde"))]
mod serde_tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn keys_and_signatures_round_trip_through_serde() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let sk = SigningKey::generate(Level::Falcon512, &mut rng);
        let vk = sk.verifying_key();
        let sig = sk.sign(b"m", &mut rng);
        let vk2: VerifyingKey = serde_json::from_str(&serde_json::to_string(&vk).unwrap()).unwrap();
        let sig2: Signature = serde_json::from_str(&serde_json::to_string(&sig).unwrap()).unwrap();
        assert_eq!((vk2, sig2.clone()), (vk.clone(), sig));
        assert!(vk.verify(b"m", &sig2).is_ok());
        assert!(serde_json::from_str::<Signature>("[1,2,3]").is_err());
    }
}

#[cfg(test)]
mod isa_tests {
    //! The two builds of the floating-point code give the same bits on every input drawn.
    use super::*;
    use crate::isa::{Avx2Fma, Portable};
    use crate::sampler::Sampler;
    use rand_chacha::ChaCha20Rng;
    use rand_core::{Rng, SeedableRng};

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn both_builds_expand_and_sample_the_same_bits() {
        let Some(avx2) = Avx2Fma::detect() else {
            eprintln!("no AVX2 and FMA on this CPU: one build only");
            return;
        };
        let mut rng = ChaCha20Rng::seed_from_u64(46);
        for (k, level) in [Level::Falcon512, Level::Falcon1024]
            .into_iter()
            .enumerate()
        {
            for key in 0..3 {
                let sk = SigningKey::generate(level, &mut rng);
                let (a, b) = (sk.expand_on(Portable), sk.expand_on(avx2));
                assert_eq!(bits(&a.tree), bits(&b.tree), "tree, key {key} at {level}");
                for (x, y) in [(&a.b00, &b.b00), (&a.b01, &b.b01), (&a.b10, &b.b10)] {
                    assert_eq!(bits(x), bits(y));
                }
                for draw in 0..20u64 {
                    let c: Vec<u16> = (0..level.n())
                        .map(|_| (rng.next_u32() % Q) as u16)
                        .collect();
                    let seed = [(k * 100 + draw as usize) as u8; 32];
                    let sigma_min = level.sigma_min();
                    let p = a.sample_on(Portable, &c, &mut Sampler::new(seed, sigma_min));
                    let q = a.sample_on(avx2, &c, &mut Sampler::new(seed, sigma_min));
                    assert_eq!(p.s1, q.s1, "draw {draw}, key {key} at {level}");
                    assert_eq!(p.s2, q.s2, "draw {draw}, key {key} at {level}");
                }
            }
        }
    }
}
