//! # alibi-tachyon
//!
//! TACHYON (Behnia, Ozmen, Yavuz, Rosulek, ACM CCS 2018): a fast signature from the generalized
//! compact knapsack (GCK) function F(x_1..x_mu) = sum_j a_j x_j over R_q = Z_q[x]/(x^256 + 1), mu = 8.
//!
//! * keygen: a PRF key and a public seed; x_i = PRF(key, i) read as binary vectors (i < t);
//!   pk = (seed of A, y_i = F(x_i) for i < t).
//! * sign(M): r' uniform in [0, xi)^(mu N) (fresh PRF stream for every attempt); h = H1(F(r'));
//!   k distinct indices from H2(M || h); s = r' + sum of the indexed x_i; accept iff every
//!   coefficient of s lies in [k, xi - k), else retry. Signature (s, h).
//! * verify: the bounds on s; the indices from H2(M || h); accept iff H1(F(s) - sum y_i) = h.
//!
//! What differs from the authors' proof-of-concept, and why (docs/tachyon.md): F is the real ring
//! combination (theirs ignores the coefficient index); A comes from SHAKE128 on a public seed (theirs
//! is a fixed, non-uniform table); the PRF is AES at the security level with a separate counter block
//! domain for every x_i and every attempt's r' (theirs overlaps streams, a key-recovery path);
//! indices are unbiased and distinct. Elements of R_q are kept and hashed in the NTT domain: the
//! NTT is a bijection, so F, y_i and H1's input are the paper's values in another basis, and no
//! inverse transform is ever needed.
//!
//! ```
//! use alibi_tachyon::{Level, SigningKey};
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let sk = SigningKey::generate(Level::T128, &mut rng);
//! let pk = sk.verifying_key();
//! let sig = sk.sign(b"hello", &mut rng);
//! assert_eq!(sig.to_bytes().len(), 4160);
//! assert!(pk.verify(b"hello", &sig).is_ok());
//! assert!(pk.verify(b"hullo", &sig).is_err());
//! ```
//!
//! Side channels: signing branches only on the rejection test (whether an attempt is kept, which
//! the scheme's analysis makes public) and on public indices; the arithmetic is constant-time.
//! Secret keys, cached x_i and rejected masks are zeroized.

// Unsafe only to call the AVX2 build of the GCK evaluation once the CPU is known to have AVX2
// (`ntt.rs`).
#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

mod ntt;
mod params;
mod prf;

use alibi_encoding::LengthChecked;
use alibi_encoding::{pack_bits as pack, unpack_bits as unpack};
use ntt::{FixedPoly, Ring};
use rand_core::{CryptoRng, TryCryptoRng};
use std::sync::{Arc, OnceLock};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

pub use params::{Level, H_LEN, INPUT, MU, N, SEED_LEN};

/// Errors of decoding and verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An input has the wrong length.
    #[error(transparent)]
    Length(#[from] alibi_encoding::LengthError),
    /// Unknown header byte.
    #[error("unknown header byte 0x{0:02x}")]
    Header(u8),
    /// A public-key coefficient is not below q.
    #[error("public-key coefficient out of range")]
    CoefficientRange,
    /// The signature does not verify.
    #[error("invalid signature")]
    InvalidSignature,
}

/// The length check, written once in `alibi-encoding`.
impl alibi_encoding::LengthChecked for Error {}

fn ring(level: Level) -> &'static Ring {
    static R: [OnceLock<Ring>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let i = match level {
        Level::T128 | Level::T128Small => 0,
        Level::T192 => 1,
        Level::T256 => 2,
    };
    R[i].get_or_init(|| Ring::new(level.q()))
}

/// The GCK function for one matrix A, expanded from its seed, in the NTT domain.
struct Gck {
    ring: &'static Ring,
    a: Vec<FixedPoly>,
}

impl Gck {
    /// A = (a_1..a_mu), uniform in R_q, sampled in the NTT domain from SHAKE128(seed): 32-bit
    /// little-endian words masked to the bit length of q, rejected when >= q.
    fn new(level: Level, seed: &[u8; SEED_LEN]) -> Gck {
        let ring = ring(level);
        let q = level.q();
        let mask = if level.q_bits() == 32 {
            u32::MAX
        } else {
            (1u32 << level.q_bits()) - 1
        };
        let mut x = alibi_keccak::Shake128::default();
        x.update(b"TACHYON A");
        x.update(seed);
        let mut rd = x.finalize_xof();
        let mut a = Vec::with_capacity(MU);
        for _ in 0..MU {
            let mut p = [0u32; N];
            let mut i = 0;
            while i < N {
                let mut w = [0u8; 4];
                rd.read(&mut w);
                let v = u32::from_le_bytes(w) & mask;
                if v < q {
                    p[i] = v;
                    i += 1;
                }
            }
            a.push(ring.fixed(p));
        }
        Gck { ring, a }
    }

    /// F(x) = sum_j a_j x_j in the NTT domain, for x of mu N coefficients below q.
    fn eval(&self, x: &[u32]) -> [u64; N] {
        let f = self.ring.eval_sum(&self.a, x);
        core::array::from_fn(|i| f[i] as u64)
    }
}

/// The binary vector x_i = PRF(key, domain X, i), mu N bits, as 256 bytes.
fn x_bytes(key: &[u8], i: usize) -> Zeroizing<[u8; INPUT / 8]> {
    let mut b = Zeroizing::new([0u8; INPUT / 8]);
    prf::prf(key, prf::DOMAIN_X, &prf::x_nonce(i), &mut b[..]);
    b
}

/// Byte-lane counters of how many of the added binary vectors set each coefficient: lane j of word
/// w counts coefficient 8 w + j. Counts stay below 256 because k <= 32.
struct BitCounts([u64; INPUT / 8]);

impl BitCounts {
    fn new() -> Self {
        BitCounts([0; INPUT / 8])
    }

    /// Adds one binary vector (bit j of byte i is coefficient 8 i + j). Each byte is spread into
    /// eight byte lanes with one multiplication: the copies of the bit-reversed byte at shifts of
    /// 9 m never overlap, and bit 8 m + 7 of the product is bit m of the byte.
    fn add(&mut self, bits: &[u8; INPUT / 8]) {
        for (w, &b) in self.0.iter_mut().zip(bits.iter()) {
            let spread = ((b.reverse_bits() as u64).wrapping_mul(0x8040_2010_0804_0201)
                & 0x8080_8080_8080_8080)
                >> 7;
            *w += spread;
        }
    }

    /// Adds the counts into s.
    fn add_into(&self, s: &mut [u32]) {
        for (chunk, w) in s.chunks_exact_mut(8).zip(self.0.iter()) {
            for (j, c) in chunk.iter_mut().enumerate() {
                *c += ((w >> (8 * j)) & 0xFF) as u32;
            }
        }
    }
}

impl Drop for BitCounts {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

/// The level a key encoding's header names, once its length is the level's `len`.
fn keyed_level(b: &[u8], what: &'static str, len: fn(Level) -> usize) -> Result<Level, Error> {
    let &hdr = b.first().ok_or(Error::length(what, 1, 0))?;
    let level = Level::from_header(hdr).ok_or(Error::Header(hdr))?;
    Error::check_len(what, len(level), b.len())?;
    Ok(level)
}

/// A TACHYON public key: the seed of A and the t values y_i = F(x_i) (NTT domain).
#[derive(Clone)]
pub struct VerifyingKey {
    level: Level,
    seed: [u8; SEED_LEN],
    y: Arc<Vec<[u32; N]>>,
    gck: Arc<Gck>,
}

impl PartialEq for VerifyingKey {
    fn eq(&self, o: &Self) -> bool {
        self.level == o.level && self.seed == o.seed && self.y == o.y
    }
}

impl core::fmt::Debug for VerifyingKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "VerifyingKey({})", self.level)
    }
}

impl VerifyingKey {
    /// Decodes header || seed || y_0..y_{t-1} (q_bits per coefficient); rejects coefficients >= q.
    pub fn from_bytes(b: &[u8]) -> Result<Self, Error> {
        let level = keyed_level(b, "TACHYON public key", Level::public_key_len)?;
        let mut seed = [0u8; SEED_LEN];
        seed.copy_from_slice(&b[1..1 + SEED_LEN]);
        let vals = unpack(&b[1 + SEED_LEN..], level.t() * N, level.q_bits());
        if vals.iter().any(|&v| v >= level.q()) {
            return Err(Error::CoefficientRange);
        }
        let y = vals
            .chunks_exact(N)
            .map(|c| c.try_into().expect("chunks of N"))
            .collect();
        Ok(VerifyingKey {
            level,
            seed,
            y: Arc::new(y),
            gck: Arc::new(Gck::new(level, &seed)),
        })
    }

    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.level.public_key_len());
        out.push(self.level.header());
        out.extend_from_slice(&self.seed);
        pack(
            self.y.iter().flat_map(|p| p.iter().copied()),
            self.level.q_bits(),
            &mut out,
        );
        out
    }

    /// The parameter set.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Verifies `sig` on `msg`.
    pub fn verify(&self, msg: &[u8], sig: &Signature) -> Result<(), Error> {
        let level = self.level;
        if sig.level != level {
            return Err(Error::InvalidSignature);
        }
        let (k, xi) = (level.k() as u32, level.xi());
        if sig.s.iter().any(|&c| c < k || c >= xi - k) {
            return Err(Error::InvalidSignature);
        }
        let idx = prf::indices(&prf::message_digest(msg), &sig.h, level.t(), level.k());
        let q = level.q() as u64;
        let mut r = self.gck.eval(&sig.s);
        for &i in &idx {
            for (x, &y) in r.iter_mut().zip(self.y[i].iter()) {
                let v = *x + q - y as u64;
                *x = if v >= q { v - q } else { v };
            }
        }
        if prf::h1(&r) == sig.h {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
}

/// A TACHYON secret key: the PRF key and the seed of A (kappa / 8 + 32 bytes).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SigningKey {
    #[zeroize(skip)]
    level: Level,
    key: Vec<u8>,
    seed: [u8; SEED_LEN],
    #[zeroize(skip)]
    gck: Arc<Gck>,
    /// The signer pre-computation of §5.2: every x_i, cached (t * mu * N bits).
    cache: Option<Vec<u8>>,
    /// The public key, computed on first use (t evaluations of F) so that signing with a key read
    /// from a file does not pay for it.
    #[zeroize(skip)]
    vk: std::sync::OnceLock<VerifyingKey>,
}

impl core::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SigningKey({})", self.level)
    }
}

impl SigningKey {
    /// A fresh signing key; its public key comes from [`SigningKey::verifying_key`] (t
    /// evaluations of F, milliseconds, on the first call).
    pub fn generate<R: CryptoRng + ?Sized>(level: Level, rng: &mut R) -> Self {
        let mut key = vec![0u8; level.prf_key_len()];
        rng.fill_bytes(&mut key);
        let mut seed = [0u8; SEED_LEN];
        rng.fill_bytes(&mut seed);
        Self::from_parts(level, key, seed)
    }

    fn from_parts(level: Level, key: Vec<u8>, seed: [u8; SEED_LEN]) -> Self {
        SigningKey {
            level,
            key,
            seed,
            gck: Arc::new(Gck::new(level, &seed)),
            cache: None,
            vk: std::sync::OnceLock::new(),
        }
    }

    /// The public key: y_i = F(x_i) for every i < t, computed on the first call.
    pub fn verifying_key(&self) -> &VerifyingKey {
        self.vk.get_or_init(|| self.compute_verifying_key())
    }

    fn compute_verifying_key(&self) -> VerifyingKey {
        let mut bits = Zeroizing::new(vec![0u32; INPUT]);
        let y = (0..self.level.t())
            .map(|i| {
                bits.fill(0);
                let mut cnt = BitCounts::new();
                cnt.add(&x_bytes(&self.key, i));
                cnt.add_into(&mut bits);
                let f = self.gck.eval(&bits);
                core::array::from_fn(|j| f[j] as u32)
            })
            .collect();
        VerifyingKey {
            level: self.level,
            seed: self.seed,
            y: Arc::new(y),
            gck: self.gck.clone(),
        }
    }

    /// The signer pre-computation variant: caches every x_i (t * 256 bytes: 256 KB at level 128,
    /// 768 KB at 256), so that signing skips their PRF calls.
    pub fn with_precomputation(mut self) -> Self {
        let mut c = Vec::with_capacity(self.level.t() * INPUT / 8);
        for i in 0..self.level.t() {
            c.extend_from_slice(&x_bytes(&self.key, i)[..]);
        }
        self.cache = Some(c);
        self
    }

    /// Bytes the cached x_i of [`SigningKey::with_precomputation`] take in memory (0 without
    /// them): what the paper adds to the secret key's size for this variant.
    pub fn precomputation_len(&self) -> usize {
        self.cache.as_ref().map_or(0, Vec::len)
    }

    /// Decodes header || PRF key || seed.
    pub fn from_bytes(b: &[u8]) -> Result<Self, Error> {
        let level = keyed_level(b, "TACHYON secret key", Level::secret_key_len)?;
        let kl = level.prf_key_len();
        let mut seed = [0u8; SEED_LEN];
        seed.copy_from_slice(&b[1 + kl..]);
        Ok(Self::from_parts(level, b[1..1 + kl].to_vec(), seed))
    }

    /// The encoding.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut v = Zeroizing::new(vec![self.level.header()]);
        v.extend_from_slice(&self.key);
        v.extend_from_slice(&self.seed);
        v
    }

    /// The parameter set.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Draws r' uniform in [0, xi)^(mu N) from PRF(key, domain R, fresh nonce); None in the
    /// (probability ~2^-100) case that the stream runs short, which the caller treats as a failed
    /// attempt.
    fn sample_mask<R: CryptoRng + ?Sized>(&self, rng: &mut R, r: &mut [u32]) -> Option<()> {
        let mut nonce = [0u8; 11];
        rng.fill_bytes(&mut nonce);
        let bits = self.level.xi_bits();
        let per = bits.div_ceil(8) as usize;
        let mut stream = Zeroizing::new(vec![0u8; INPUT * per + 512]);
        prf::prf(&self.key, prf::DOMAIN_R, &nonce, &mut stream);
        let (xi, mask) = (self.level.xi(), (1u32 << bits) - 1);
        let mut words = stream.chunks_exact(per).map(|w| {
            let mut v = 0u32;
            for &b in w {
                v = (v << 8) | b as u32;
            }
            v & mask
        });
        for c in r.iter_mut() {
            *c = words.by_ref().find(|&v| v < xi)?;
        }
        Some(())
    }

    /// Signs `msg`: expected 1 / acceptance attempts (about 3 at level 128).
    pub fn sign<R: CryptoRng + ?Sized>(&self, msg: &[u8], rng: &mut R) -> Signature {
        let level = self.level;
        let (k, xi) = (level.k() as u32, level.xi());
        let mu_m = prf::message_digest(msg);
        let mut s = Zeroizing::new(vec![0u32; INPUT]);
        loop {
            if self.sample_mask(rng, &mut s).is_none() {
                continue;
            }
            // A coefficient of r' at or above xi - k gives a coefficient of s at or above xi - k
            // whatever the indices: this attempt is rejected for sure, so skip F and the hashes. The
            // accepted signatures are exactly the same; only the time of doomed attempts changes,
            // and it depends only on the discarded r'. (About 43% of attempts at level 128.)
            if s.iter().any(|&c| c >= xi - k) {
                continue;
            }
            let h = prf::h1(&self.gck.eval(&s));
            let mut cnt = BitCounts::new();
            for i in prf::indices(&mu_m, &h, level.t(), level.k()) {
                match &self.cache {
                    Some(c) => {
                        let x: &[u8; INPUT / 8] = c[i * INPUT / 8..(i + 1) * INPUT / 8]
                            .try_into()
                            .expect("cache slice");
                        cnt.add(x);
                    }
                    None => cnt.add(&x_bytes(&self.key, i)),
                }
            }
            cnt.add_into(&mut s);
            // Rejection sampling: keep s only if it cannot betray the x_i it contains. Every
            // coefficient is looked at whatever the others hold: only the outcome is public.
            if all_within(&s, k, xi - k) {
                return Signature {
                    level,
                    s: s.to_vec(),
                    h,
                };
            }
        }
    }
}

/// Whether every `c` of `s` has `lo <= c < hi`, in time independent of the values: no early exit,
/// no branch on a coefficient (`lo <= hi`).
fn all_within(s: &[u32], lo: u32, hi: u32) -> bool {
    let span = u64::from(hi - lo);
    let mut out = 0u64;
    for &c in s {
        // c - lo wraps for c < lo; d < span exactly when c is within, and then d - span borrows
        // (bit 63 set).
        let d = u64::from(c.wrapping_sub(lo));
        out |= (d.wrapping_sub(span) >> 63) ^ 1;
    }
    out == 0
}

/// A TACHYON signature (s, h).
#[derive(Clone, PartialEq, Eq)]
pub struct Signature {
    level: Level,
    s: Vec<u32>,
    h: [u8; H_LEN],
}

impl core::fmt::Debug for Signature {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Signature({})", self.level)
    }
}

impl Signature {
    /// Decodes s (xi_bits per coefficient) || h for `level`.
    pub fn from_bytes(level: Level, b: &[u8]) -> Result<Self, Error> {
        Error::check_len("TACHYON signature", level.signature_len(), b.len())?;
        let (body, h) = b.split_at(b.len() - H_LEN);
        Ok(Signature {
            level,
            s: unpack(body, INPUT, level.xi_bits()),
            h: h.try_into().expect("H_LEN bytes"),
        })
    }

    /// The encoding s || h.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.level.signature_len());
        pack(self.s.iter().copied(), self.level.xi_bits(), &mut out);
        out.extend_from_slice(&self.h);
        out
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

#[cfg(test)]
mod tests {
    #[test]
    fn all_within_agrees_with_the_plain_check() {
        let cases: [&[u32]; 6] = [&[], &[3, 4, 9], &[2, 5], &[3, 10], &[0, u32::MAX], &[9; 8]];
        for s in cases {
            for (lo, hi) in [(3, 10), (0, 1), (0, u32::MAX), (5, 5)] {
                let plain = s.iter().all(|&c| c >= lo && c < hi);
                assert_eq!(super::all_within(s, lo, hi), plain, "{s:?} {lo} {hi}");
            }
        }
    }

    use super::*;

    /// F is the real ring combination: it depends on every input coefficient, and it equals
    /// sum_j a_j x_j computed by schoolbook multiplication in R_q.
    #[test]
    fn gck_depends_on_every_coefficient_and_matches_schoolbook() {
        let level = Level::T128;
        let g = Gck::new(level, &[5; SEED_LEN]);
        let q = level.q() as u64;
        let x: Vec<u32> = (0..INPUT as u32).map(|i| (i * 37 + 1) % 65535).collect();
        let base = g.eval(&x);
        for c in 0..INPUT {
            let mut y = x.clone();
            y[c] += 1;
            assert_ne!(g.eval(&y), base, "coefficient {c}");
        }
        // Schoolbook: recover a_j in coefficient form by evaluating F on unit inputs e_{j,0}.
        let mut unit = vec![0u32; INPUT];
        unit[N] = 1; // x_1 = 1 (the constant polynomial) in the second ring slot
        let a1 = g.eval(&unit);
        let mut onehot = vec![0u32; INPUT];
        onehot[N + 1] = 1; // x_1 = x
        let a1x = g.eval(&onehot);
        // F(x * e) = a_1 * x: in the NTT domain, multiplication by x is by the evaluation point.
        let r = ring(level);
        let mut xpoly = [0u32; N];
        xpoly[1] = 1;
        r.ntt(&mut xpoly);
        for i in 0..N {
            assert_eq!(
                (a1[i] as u128 * xpoly[i] as u128 % q as u128) as u64,
                a1x[i]
            );
        }
    }

    #[test]
    fn bit_counts_match_a_plain_count() {
        let vecs: Vec<[u8; INPUT / 8]> = (0..32u8)
            .map(|i| core::array::from_fn(|j| (j as u8).wrapping_mul(31).wrapping_add(i * 77) ^ i))
            .collect();
        let mut cnt = BitCounts::new();
        for v in &vecs {
            cnt.add(v);
        }
        let mut s = vec![5u32; INPUT];
        cnt.add_into(&mut s);
        for (c, &got) in s.iter().enumerate() {
            let want = 5 + vecs
                .iter()
                .filter(|v| (v[c / 8] >> (c % 8)) & 1 == 1)
                .count() as u32;
            assert_eq!(got, want, "coefficient {c}");
        }
    }

    #[test]
    fn a_is_uniform_looking_and_seeded() {
        let g1 = Gck::new(Level::T256, &[1; SEED_LEN]);
        let g2 = Gck::new(Level::T256, &[2; SEED_LEN]);
        let v1: Vec<u32> = g1.a.iter().flat_map(|p| *p.values()).collect();
        let v2: Vec<u32> = g2.a.iter().flat_map(|p| *p.values()).collect();
        assert_ne!(v1, v2);
        let distinct: std::collections::HashSet<_> = v1.iter().collect();
        assert_eq!(distinct.len(), v1.len());
        let mean = v1.iter().map(|&v| v as f64).sum::<f64>() / v1.len() as f64;
        let q = Level::T256.q() as f64;
        assert!((mean / q - 0.5).abs() < 0.03);
    }
}
