//! SamplerZ (spec §3.9.3, Algorithms 12-15): a discrete Gaussian over Z of centre mu and standard
//! deviation sigma' in [sigma_min, sigma_max], built from a half-Gaussian base sampler (a reverse CDT
//! on 72-bit integers) and a Bernoulli rejection with an integer polynomial approximation of exp.
//!
//! Constant-time: the base sampler scans the whole table with branch-free 128-bit comparisons,
//! ApproxExp is integer arithmetic, and BerExp compares byte by byte as the specification does, so
//! the only data-dependent timing is the number of rejection rounds, which the specification permits
//! (it leaks nothing about the secret, §3.9.3).

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use zeroize::Zeroize;

use crate::params::SIGMA_MAX;

/// RCDT: 2^72 * Pr[z0 > i] for the half-Gaussian of standard deviation sigma_max (Table 3.1).
pub(crate) const RCDT: [u128; 18] = [
    3024686241123004913666,
    1564742784480091954050,
    636254429462080897535,
    199560484645026482916,
    47667343854657281903,
    8595902006365044063,
    1163297957344668388,
    117656387352093658,
    8867391802663976,
    496969357462633,
    20680885154299,
    638331848991,
    14602316184,
    247426747,
    3104126,
    28824,
    198,
    1,
];

/// How many [`RCDT`] entries reach 2^64 (the rest fit in 64 bits).
const RCDT_WIDE: usize = 5;
const _: () = assert!(RCDT[RCDT_WIDE - 1] >> 64 != 0 && RCDT[RCDT_WIDE] >> 64 == 0);

/// Coefficients of the degree-12 polynomial of ApproxExp (Algorithm 13, the "C" table).
const EXP_C: [u64; 13] = [
    0x00000004741183A3,
    0x00000036548CFC06,
    0x0000024FDCBF140A,
    0x0000171D939DE045,
    0x0000D00CF58F6F84,
    0x000680681CF796E3,
    0x002D82D8305B0FEA,
    0x011111110E066FD0,
    0x0555555555070F00,
    0x155555555581FF00,
    0x400000000002B400,
    0x7FFFFFFFFFFF4800,
    0x8000000000000000,
];

const LN2: f64 = core::f64::consts::LN_2;
const INV_LN2: f64 = 1.0 / core::f64::consts::LN_2;
const INV_2SIGMA_MAX_SQ: f64 = 1.0 / (2.0 * SIGMA_MAX * SIGMA_MAX);

/// Bytes drawn from ChaCha20 at a time; the stream is consumed from a buffer because per-call
/// overhead of the generator otherwise dominates SamplerZ.
const BUF: usize = 512;

/// The randomness of one signing (or preimage) operation: ChaCha20 keyed from the caller's RNG, so
/// that a slow system RNG is called once per signature and never per sample.
pub struct Sampler {
    rng: ChaCha20Rng,
    buf: [u8; BUF],
    pos: usize,
    sigma_min: f64,
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.buf.zeroize();
    }
}

impl Sampler {
    /// A sampler keyed by a 32-byte seed, for the given sigma_min.
    pub fn new(mut seed: [u8; 32], sigma_min: f64) -> Self {
        let rng = ChaCha20Rng::from_seed(seed);
        seed.zeroize();
        Sampler {
            rng,
            buf: [0; BUF],
            pos: BUF,
            sigma_min,
        }
    }

    /// The next `N` bytes of the stream.
    #[inline(always)]
    fn take<const N: usize>(&mut self) -> [u8; N] {
        if self.pos + N > BUF {
            self.rng.fill_bytes(&mut self.buf);
            self.pos = 0;
        }
        let mut out = [0u8; N];
        out.copy_from_slice(&self.buf[self.pos..self.pos + N]);
        self.pos += N;
        out
    }

    /// BaseSampler (Algorithm 12) and the sign bit b of Algorithm 15: (z0, b).
    #[inline(always)]
    fn base_and_bit(&mut self) -> (i32, i32) {
        let r: [u8; 10] = self.take();
        let mut lo = [0u8; 8];
        lo.copy_from_slice(&r[..8]);
        let (hi, lo) = (r[8] as u64, u64::from_le_bytes(lo));
        let u = ((hi as u128) << 64) | lo as u128;
        let mut z = 0u32;
        for &r in &RCDT[..RCDT_WIDE] {
            // (u - r) wraps to the top bit exactly when u < r.
            z += (u.wrapping_sub(r) >> 127) as u32;
        }
        // The other entries are below 2^64: u < r exactly when hi = 0 and lo < r, a 64-bit
        // comparison each (a compare and an add with carry), counted without a branch.
        let mut below = 0u32;
        for &r in &RCDT[RCDT_WIDE..] {
            below += (lo < r as u64) as u32;
        }
        z += below * (hi == 0) as u32;
        (z as i32, (r[9] & 1) as i32)
    }

    /// BerExp(x, ccs) (Algorithm 14): a bit that is 1 with probability ccs * exp(-x), x >= 0.
    #[inline(always)]
    pub(crate) fn ber_exp(&mut self, x: f64, ccs: f64) -> bool {
        let s = (x * INV_LN2) as i64; // floor, x >= 0
        let r = x - s as f64 * LN2;
        let s = s.min(63) as u32;
        let z = ((approx_exp(r, ccs) << 1).wrapping_sub(1)) >> s;
        let mut i = 64i32;
        loop {
            i -= 8;
            let [byte] = self.take::<1>();
            let byte = byte as i32;
            let w = byte - ((z >> i) & 0xFF) as i32;
            if w != 0 || i == 0 {
                return w < 0;
            }
        }
    }

    /// A uniform value in [0, k) for 0 < k <= 2^16, without division: Lemire's multiply-and-reject
    /// on 16-bit draws, `t` = (2^16 - k) mod k precomputed (unbiased).
    #[inline]
    fn uniform_below(&mut self, k: u32, t: u32) -> u32 {
        loop {
            let m = u16::from_le_bytes(self.take::<2>()) as u32 * k;
            if m & 0xFFFF >= t {
                return m >> 16;
            }
        }
    }

    /// SamplerZ(mu, sigma') (Algorithm 15), given `isigma` = 1 / sigma' (what the normalised
    /// Falcon tree stores, so that no division happens here).
    // Always inlined: ffSampling's leaves call it inside the build (`isa`) they run on.
    #[inline(always)]
    pub fn sample(&mut self, mu: f64, isigma: f64) -> i32 {
        // Branch-free floor: truncation, then minus one where truncation rounded up.
        let t = mu as i64;
        let s = t - ((t as f64 > mu) as i64);
        let r = mu - s as f64;
        let dss = 0.5 * isigma * isigma;
        let ccs = self.sigma_min * isigma;
        loop {
            let (z0, b) = self.base_and_bit();
            let z = b + ((b << 1) - 1) * z0;
            let zr = z as f64 - r;
            let x = zr * zr * dss - (z0 * z0) as f64 * INV_2SIGMA_MAX_SQ;
            if self.ber_exp(x, ccs) {
                return z + s as i32;
            }
        }
    }
}

/// The polynomial of ApproxExp as f64 coefficients of x^k: P(x) = sum c_k x^k ~ exp(-x) on
/// [0, ln 2), c_k = (-1)^k C[12 - k] / 2^63 (Algorithm 13's Horner steps y <- C[u] - x y, unrolled).
const EXP_P: [f64; 13] = {
    let mut p = [0.0; 13];
    let mut k = 0;
    while k < 13 {
        let c = EXP_C[12 - k] as f64 / 9_223_372_036_854_775_808.0;
        p[k] = if k % 2 == 0 { c } else { -c };
        k += 1;
    }
    p
};

/// Entries of the wide sampler's base table. The base width sigma / k never exceeds 2.73 (k = 1 up
/// to sigma = 2.73, and sigma / k <= 1.82 * 1.25 beyond), where 2^72 Pr[y > 28] < 1: 32 entries
/// hold every non-zero value.
const WIDE_RCDT_LEN: usize = 32;

/// D_{Z, sigma} for a wide sigma (tens to thousands), centred at 0, exactly and with no table
/// larger than a few entries: x = k y + z with y from a narrow half-Gaussian D_{Z+, sigma / k}
/// (a reverse CDT like Falcon's base sampler) and z uniform in [0, k), accepted with probability
/// exp(-z (z + 2 k y) / (2 sigma^2)); then a random sign, zero kept with probability 1/2. The
/// accepted x >= 0 has weight exp(-k^2 y^2 / 2 sigma^2) exp(-z (z + 2ky) / 2 sigma^2) =
/// exp(-x^2 / 2 sigma^2), since every x has one decomposition (y, z). (The technique of BLISS's
/// sampler for D_{k sigma_2}, with sigma_2 = sigma / k not tied to a binary Gaussian.)
///
/// Constant-time in the same sense as SamplerZ: full table scans and ApproxExp arithmetic; only the
/// number of rejection rounds varies.
pub struct WideGaussian {
    k: u32,
    lemire_t: u32,
    /// Reverse CDT of the base, zero-padded: a zero entry never counts, and the fixed length lets
    /// the constant-time scan unroll.
    rcdt: [u128; WIDE_RCDT_LEN],
    inv_2sigma_sq: f64,
    sigma: f64,
}

impl WideGaussian {
    /// Target width of the narrow base sampler; k is the nearest integer to sigma / 1.82. A wider
    /// base accepts more often (82% of rounds for Falcon-512's sigma, against 68% at BLISS's 0.85)
    /// for a table of 18 entries, the size of Falcon's own.
    const BASE_SIGMA: f64 = 1.82;

    /// The sampler for `sigma` (at least 1).
    pub fn new(sigma: f64) -> Self {
        let k = (sigma / Self::BASE_SIGMA).round().clamp(1.0, 65536.0) as u32;
        let s2 = sigma / k as f64;
        // Reverse CDT of D_{Z+, s2} at 72 bits: 2^72 Pr[y > i], summed from the tail for precision.
        let w: Vec<f64> = (0..64)
            .map(|y| (-((y * y) as f64) / (2.0 * s2 * s2)).exp())
            .collect();
        // Suffix sums from the far tail: subtracting from the total would leave rounding noise of
        // 2^-53 tot, far above the smallest entries.
        let mut suffix = vec![0.0; w.len() + 1];
        for i in (0..w.len()).rev() {
            suffix[i] = suffix[i + 1] + w[i];
        }
        let tot = suffix[0];
        let mut rcdt = [0u128; WIDE_RCDT_LEN];
        for (i, r) in rcdt.iter_mut().enumerate() {
            // 2^72 Pr[y > i].
            *r = (suffix[i + 1] / tot * 2f64.powi(72)).round() as u128;
        }
        debug_assert!(
            suffix[WIDE_RCDT_LEN + 1] / tot * 2f64.powi(72) < 0.5,
            "base table too short"
        );
        WideGaussian {
            k,
            lemire_t: (65536 - k) % k,
            rcdt,
            inv_2sigma_sq: 1.0 / (2.0 * sigma * sigma),
            sigma,
        }
    }

    /// The sigma this sampler draws with.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// One sample of D_{Z, sigma}.
    pub fn sample(&self, s: &mut Sampler) -> i32 {
        let k = self.k as i64;
        loop {
            let r: [u8; 10] = s.take();
            let mut lo = [0u8; 8];
            lo.copy_from_slice(&r[..8]);
            let u = ((r[8] as u128) << 64) | u64::from_le_bytes(lo) as u128;
            let mut y = 0i64;
            for &t in &self.rcdt {
                y += (u.wrapping_sub(t) >> 127) as i64;
            }
            let z = s.uniform_below(self.k, self.lemire_t) as i64;
            let e = (z * (z + 2 * k * y)) as f64 * self.inv_2sigma_sq;
            if !s.ber_exp(e, 1.0) {
                continue;
            }
            let x = k * y + z;
            let sign = (r[9] & 1) as i64;
            // Zero arises from both signs: keep it half the time.
            if x == 0 && (r[9] >> 1) & 1 == 1 {
                continue;
            }
            return ((1 - 2 * sign) * x) as i32;
        }
    }
}

/// ApproxExp(x, ccs) (Algorithm 13): about 2^63 * ccs * exp(-x) for 0 <= x < ln 2, 0 < ccs <= 1.
///
/// The specification's polynomial, evaluated in f64 by Estrin's scheme rather than by the integer
/// Horner chain: the chain's twelve dependent 64x64-bit products dominated SamplerZ, while Estrin's
/// tree has depth four. Precision is 53 bits against the polynomial's own accuracy of about 2^-47,
/// so the sampled distribution is unchanged at the precision the specification's analysis uses.
/// Only multiplications and additions of normal floats: constant-time.
#[inline(always)]
pub(crate) fn approx_exp(x: f64, ccs: f64) -> u64 {
    let p = &EXP_P;
    let x2 = x * x;
    let x4 = x2 * x2;
    let x8 = x4 * x4;
    let a0 = p[0] + p[1] * x;
    let a1 = p[2] + p[3] * x;
    let a2 = p[4] + p[5] * x;
    let a3 = p[6] + p[7] * x;
    let a4 = p[8] + p[9] * x;
    let a5 = p[10] + p[11] * x;
    let b0 = a0 + a1 * x2;
    let b1 = a2 + a3 * x2;
    let b2 = a4 + a5 * x2;
    let c0 = b0 + b1 * x4;
    let c1 = b2 + p[12] * x4;
    let y = c0 + c1 * x8;
    // ccs 2^63 is exact (a power of two), so this rounds as (y ccs) 2^63 does; in SamplerZ's
    // loop ccs is fixed, and the product is made once, out of each round's chain of latencies.
    (y * (ccs * 9_223_372_036_854_775_808.0)) as u64
}

/// The specification's integer ApproxExp, kept as the reference the f64 evaluation is tested against.
#[cfg(test)]
pub(crate) fn approx_exp_spec(x: f64, ccs: f64) -> u64 {
    let mut y = EXP_C[0];
    let z = (x * 9_223_372_036_854_775_808.0) as u64; // floor(2^63 x)
    for &c in &EXP_C[1..] {
        y = c.wrapping_sub(((z as u128 * y as u128) >> 63) as u64);
    }
    let z = (ccs * 9_223_372_036_854_775_808.0) as u64;
    ((z as u128 * y as u128) >> 63) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rcdt_is_the_half_gaussian_tail() {
        // Recompute 2^72 Pr[z0 > i] in f64; the published entries agree to within 1e-11 relative.
        let rho: Vec<f64> = (0..40)
            .map(|z| (-((z * z) as f64) * INV_2SIGMA_MAX_SQ).exp())
            .collect();
        let tot: f64 = rho.iter().sum();
        for (i, &r) in RCDT.iter().enumerate() {
            let tail: f64 = rho[i + 1..].iter().sum::<f64>() / tot * 2f64.powi(72);
            assert!(((r as f64) - tail).abs() <= tail * 1e-11 + 2.0, "entry {i}");
        }
    }

    #[test]
    fn approx_exp_is_close_to_exp() {
        for i in 0..1000 {
            let x = LN2 * i as f64 / 1000.0;
            for &ccs in &[1.0, 0.9, 0.7] {
                let got = approx_exp(x, ccs) as f64 / 2f64.powi(63);
                let spec = approx_exp_spec(x, ccs) as f64 / 2f64.powi(63);
                let want = ccs * (-x).exp();
                assert!((got - want).abs() < 1e-14, "x = {x}, ccs = {ccs}");
                assert!((got - spec).abs() < 1e-15, "x = {x}, ccs = {ccs}");
            }
        }
    }

    #[test]
    fn wide_gaussian_matches_the_target_distribution() {
        for &sigma in &[165.736_617_182_977_6, 168.388_571_446_543_95, 7.5] {
            let g = WideGaussian::new(sigma);
            let mut s = Sampler::new([9; 32], 1.0);
            let k = 200_000;
            let xs: Vec<f64> = (0..k).map(|_| g.sample(&mut s) as f64).collect();
            let mean = xs.iter().sum::<f64>() / k as f64;
            let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / k as f64;
            assert!(mean.abs() < 5.0 * sigma / (k as f64).sqrt(), "mean {mean}");
            // Var of the sample variance ~ 2 sigma^4 / k: 5 standard deviations.
            let tol = 5.0 * sigma * sigma * (2.0 / k as f64).sqrt();
            assert!(
                (var - sigma * sigma).abs() < tol,
                "var {var} vs {}",
                sigma * sigma
            );
            // Fourth moment of a Gaussian: 3 sigma^4 (kurtosis catches a wrong shape, e.g. uniform).
            let m4 = xs.iter().map(|x| x.powi(4)).sum::<f64>() / k as f64;
            assert!(
                (m4 / (var * var) - 3.0).abs() < 0.05,
                "kurtosis {}",
                m4 / (var * var)
            );
            // Mass at 0 and at 1 in the ratio exp(-1 / 2 sigma^2).
            if sigma < 10.0 {
                let c0 = xs.iter().filter(|&&x| x == 0.0).count() as f64;
                let c1 = xs.iter().filter(|&&x| x == 1.0).count() as f64;
                let want = (-1.0 / (2.0 * sigma * sigma)).exp();
                assert!((c1 / c0 - want).abs() < 0.05, "{} vs {want}", c1 / c0);
            }
        }
    }

    #[test]
    fn wide_base_tables_are_complete_and_decreasing() {
        for &sigma in &[1.0, 1.5, 2.72, 3.6, 7.5, 165.7, 168.4, 1000.0, 50_000.0] {
            let g = WideGaussian::new(sigma);
            let s2 = sigma / g.k as f64;
            assert!(s2 <= 2.73, "sigma {sigma}: base width {s2}");
            // Mass beyond the table, relative to the half-Gaussian's total (>= 1), below 2^-72.
            let beyond: f64 = (WIDE_RCDT_LEN as i32 + 1..200)
                .map(|y| (-((y * y) as f64) / (2.0 * s2 * s2)).exp())
                .sum();
            assert!(beyond * 2f64.powi(72) < 1.0, "sigma {sigma}");
            assert!(g.rcdt.windows(2).all(|w| w[0] >= w[1]), "sigma {sigma}");
            assert!(g.rcdt[0] > 0);
        }
    }

    #[test]
    fn sampler_z_has_the_right_moments() {
        let mut s = Sampler::new([7; 32], 1.2778336969128337);
        for &(mu, sigma) in &[(0.0, 1.5), (12.3, 1.7), (-100.75, 1.3)] {
            let k = 200_000;
            let xs: Vec<f64> = (0..k).map(|_| s.sample(mu, 1.0 / sigma) as f64).collect();
            let mean = xs.iter().sum::<f64>() / k as f64;
            let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / k as f64;
            assert!((mean - mu).abs() < 0.02, "mean {mean} vs {mu}");
            // A discrete Gaussian of parameter sigma >= 1.2 has variance sigma^2 within 1e-3.
            assert!(
                (var - sigma * sigma).abs() < 0.03,
                "var {var} vs {}",
                sigma * sigma
            );
        }
    }
}
