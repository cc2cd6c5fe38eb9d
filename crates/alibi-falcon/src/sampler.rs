//! SamplerZ (spec §3.9.3, Algorithms 12-15): a discrete Gaussian over Z of centre mu and standard
//! deviation sigma' in [sigma_min, sigma_max], built from a half-Gaussian base sampler (a reverse CDT
//! on 72-bit integers) and a Bernoulli rejection with an integer polynomial approximation of exp.
//!
//! Constant-time: the base sampler scans the whole table with branch-free 128-bit comparisons,
//! ApproxExp is integer arithmetic, and BerExp compares byte by byte as the specification does, so
//! the only data-dependent timing is the number of rejection rounds, which the specification permits
//! (it leaks nothing about the secret, §3.9.3).

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
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

/// The randomness of one signing (or preimage) operation: ChaCha20 keyed from the caller's RNG, so
/// that a slow system RNG is called once per signature and never per sample.
pub struct Sampler {
    rng: ChaCha20Rng,
    sigma_min: f64,
}

impl Sampler {
    /// A sampler keyed by a 32-byte seed, for the given sigma_min.
    pub fn new(mut seed: [u8; 32], sigma_min: f64) -> Self {
        let rng = ChaCha20Rng::from_seed(seed);
        seed.zeroize();
        Sampler { rng, sigma_min }
    }

    /// BaseSampler (Algorithm 12): one sample of the half-Gaussian on {0, ..., 18}.
    #[inline]
    fn base(&mut self) -> i32 {
        let lo = self.rng.next_u64() as u128;
        let hi = (self.rng.next_u32() & 0xFF) as u128;
        let u = (hi << 64) | lo;
        let mut z = 0u32;
        for &r in RCDT.iter() {
            // (u - r) wraps to the top bit exactly when u < r.
            z += (u.wrapping_sub(r) >> 127) as u32;
        }
        z as i32
    }

    /// BerExp(x, ccs) (Algorithm 14): a bit that is 1 with probability ccs * exp(-x), x >= 0.
    #[inline]
    fn ber_exp(&mut self, x: f64, ccs: f64) -> bool {
        let s = (x * INV_LN2) as i64; // floor, x >= 0
        let r = x - s as f64 * LN2;
        let s = s.min(63) as u32;
        let z = ((approx_exp(r, ccs) << 1).wrapping_sub(1)) >> s;
        let mut i = 64i32;
        loop {
            i -= 8;
            let byte = (self.rng.next_u32() & 0xFF) as i32;
            let w = byte - ((z >> i) & 0xFF) as i32;
            if w != 0 || i == 0 {
                return w < 0;
            }
        }
    }

    /// SamplerZ(mu, sigma') (Algorithm 15). `isigma` is 1 / sigma' (the ffLDL leaves store sigma').
    #[inline]
    pub fn sample(&mut self, mu: f64, sigma: f64) -> i32 {
        let s = mu.floor();
        let r = mu - s;
        let dss = 1.0 / (2.0 * sigma * sigma);
        let ccs = self.sigma_min / sigma;
        loop {
            let z0 = self.base();
            let b = (self.rng.next_u32() & 1) as i32;
            let z = b + ((b << 1) - 1) * z0;
            let zr = z as f64 - r;
            let x = zr * zr * dss - (z0 * z0) as f64 * INV_2SIGMA_MAX_SQ;
            if self.ber_exp(x, ccs) {
                return z + s as i32;
            }
        }
    }
}

/// ApproxExp(x, ccs) (Algorithm 13): about 2^63 * ccs * exp(-x) for 0 <= x < ln 2, 0 < ccs <= 1.
#[inline]
pub(crate) fn approx_exp(x: f64, ccs: f64) -> u64 {
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
                let want = ccs * (-x).exp();
                assert!((got - want).abs() < 1e-14, "x = {x}, ccs = {ccs}");
            }
        }
    }

    #[test]
    fn sampler_z_has_the_right_moments() {
        let mut s = Sampler::new([7; 32], 1.2778336969128337);
        for &(mu, sigma) in &[(0.0, 1.5), (12.3, 1.7), (-100.75, 1.3)] {
            let k = 200_000;
            let xs: Vec<f64> = (0..k).map(|_| s.sample(mu, sigma) as f64).collect();
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
