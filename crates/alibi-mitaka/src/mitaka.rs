//! The Mitaka sampler (Espitau, Fouque, Gérard, Rossi, Takahashi, Tibouchi, Wallet, Yu: "Mitaka: a
//! Simpler, Parallelizable, Maskable Variant of Falcon", EUROCRYPT 2022, §3 and Algorithm 2): the
//! hybrid sampler, which runs Klein's nearest-plane algorithm over the two rows of the NTRU basis
//! B = [b1; b2] = [(f, g); (F, G)] (over the ring, not coefficient by coefficient) and Peikert's
//! perturbation inside each ring step, so that no Falcon tree is needed.
//!
//! For a target t = (0, -c) and the Gram-Schmidt rows b1~ = b1, b2~ = b2 - (<b2, b1> / <b1, b1>) b1:
//! 1. offline: y_i = sigma_i . N(0, 1) in the FFT domain, with the per-evaluation widths
//!    sigma_i = sqrt(sigma^2 / |b_i~|^2 - r^2) (sigma^2 = r^2 alpha^2 q, r Falcon's smoothing
//!    parameter), so that each step's output is spherical;
//! 2. d2 = <t, b2~> / |b2~|^2 - y2, z2 = D_{Z^n, d2, r} (SamplerZ per coefficient);
//! 3. t' = t - z2 b2, d1 = <t', b1> / |b1|^2 - y1, z1 = D_{Z^n, d1, r};
//! 4. the lattice point x = (z1 f + z2 F, z1 g + z2 G) is close to t, and
//!    (s2, s1) = (-(z1 f + z2 F), c - s2 h mod q) is a short preimage: s1 + s2 h = c.
//!
//! Every FFT-domain quantity of the key is precomputed in [`MitakaKey`]. The arithmetic is f64
//! throughout, constant-time on our targets as in `alibi-falcon`; SamplerZ is Falcon's (base
//! sampler and BerExp), whose width r equals its sigma_min, so that its rejection rate is Falcon's.

use alibi_falcon::{fft, Sampler};
use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, Rng, SeedableRng};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::antrag::Basis;
use crate::{sigma, N, Q};

/// r, Falcon-512's smoothing parameter eta_eps(Z^n) (spec Table 3.3, sigma_min): the width of
/// every integer sampling step.
pub(crate) fn r() -> f64 {
    alibi_falcon::Level::Falcon512.sigma_min()
}

/// The FFT-domain precomputation of one basis.
#[derive(Zeroize, ZeroizeOnDrop)]
pub(crate) struct MitakaKey {
    /// FFT of f, g, F, G.
    b10: Vec<f64>,
    b11: Vec<f64>,
    b20: Vec<f64>,
    b21: Vec<f64>,
    /// adj(b1~) / |b1~|^2, the projection onto b1 (b1~ = b1).
    beta10: Vec<f64>,
    beta11: Vec<f64>,
    /// adj(b2~)_1 / |b2~|^2: only the second coordinate is needed, as the target's first is 0.
    beta21: Vec<f64>,
    /// The perturbation widths sqrt(sigma^2 / |b_i~|^2 - r^2), one real per evaluation.
    sigma1: Vec<f64>,
    sigma2: Vec<f64>,
}

impl MitakaKey {
    /// Gram-Schmidt orthogonalisation, perturbation widths and projections (the artifact's
    /// `expand_sign_sk`). Every basis a [`crate::SigningKey`] holds has quality alpha (checked when
    /// it is generated or decoded), so |b_i~|^2 <= q alpha^2 and every width is real: sigma^2 /
    /// |b_i~|^2 >= r^2.
    pub(crate) fn new(basis: &Basis) -> Self {
        let hn = N / 2;
        let b10 = fft::from_ints(&basis.f);
        let b11 = fft::from_ints(&basis.g);
        let b20 = fft::from_ints(&basis.big_f);
        let b21 = fft::from_ints(&basis.big_g);
        // mu = <b2, b1> / <b1, b1>; b2~ = b2 - mu b1.
        let mut n1 = vec![0.0; N];
        fft::norm2_sum(&mut n1, &b10, &b11);
        let mut mu = vec![0.0; N];
        fft::mul_adj_sum(&mut mu, &b20, &b10, &b21, &b11);
        fft::div_selfadj(&mut mu, &n1);
        let (mut t20, mut t21) = (b10.clone(), b11.clone());
        fft::mul(&mut t20, &mu);
        fft::mul(&mut t21, &mu);
        let (mut g20, mut g21) = (b20.clone(), b21.clone());
        fft::sub(&mut g20, &t20);
        fft::sub(&mut g21, &t21);
        let mut n2 = vec![0.0; N];
        fft::norm2_sum(&mut n2, &g20, &g21);
        let projection = |b: &[f64], n: &[f64]| {
            let mut p = b.to_vec();
            fft::adj(&mut p);
            fft::div_selfadj(&mut p, n);
            p
        };
        let (s2, r2) = (sigma() * sigma(), r() * r());
        let width = |n: &[f64]| -> Vec<f64> {
            let mut w = vec![0.0; N];
            for i in 0..hn {
                // Non-negative by the quality invariant; max() only absorbs rounding at the edge.
                w[i] = (s2 / n[i] - r2).max(0.0).sqrt();
            }
            w
        };
        let key = MitakaKey {
            beta10: projection(&b10, &n1),
            beta11: projection(&b11, &n1),
            beta21: projection(&g21, &n2),
            sigma1: width(&n1),
            sigma2: width(&n2),
            b10,
            b11,
            b20,
            b21,
        };
        for v in [
            &mut mu, &mut t20, &mut t21, &mut g20, &mut g21, &mut n1, &mut n2,
        ] {
            v.zeroize();
        }
        key
    }

    /// One draw of a short (s1, s2) with s1 + s2 h = c mod q (c reduced mod q, length n).
    pub(crate) fn sample<R: CryptoRng + ?Sized>(
        &self,
        c: &[u16],
        rng: &mut R,
    ) -> (Vec<i16>, Vec<i16>) {
        let mut seed = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(&mut seed[..]);
        let mut cont = ChaCha20Rng::from_seed(*seed);
        rng.fill_bytes(&mut seed[..]);
        let mut samp = Sampler::new(*seed, r());
        let ir = 1.0 / r();
        let q = Q as i32;

        // Offline: the two perturbations, independent of c.
        let mut y1 = Zeroizing::new(normal_fft(&mut cont));
        let mut y2 = Zeroizing::new(normal_fft(&mut cont));
        scale_real(&mut y1, &self.sigma1);
        scale_real(&mut y2, &self.sigma2);

        // The target t = (0, -c), c centred; its second coordinate in the FFT domain.
        let centred: Vec<i32> = c
            .iter()
            .map(|&x| {
                let x = x as i32;
                if x > q / 2 {
                    x - q
                } else {
                    x
                }
            })
            .collect();
        let mut tc: Vec<f64> = centred.iter().map(|&x| -x as f64).collect();
        fft::fft(&mut tc);

        // Step 2: d2 = t_1 beta21 - y2.
        let mut d = Zeroizing::new(tc.clone());
        fft::mul(&mut d, &self.beta21);
        fft::sub(&mut d, &y2);
        fft::ifft(&mut d);
        let mut z2: Zeroizing<Vec<f64>> =
            Zeroizing::new(d.iter().map(|&m| samp.sample(m, ir) as f64).collect());
        fft::fft(&mut z2);

        // Step 3: t' = t - z2 b2; d1 = <t', b1> / |b1|^2 - y1 = (t_1 - z2 G) beta11 - z2 F beta10 - y1.
        let mut x0 = Zeroizing::new(z2.to_vec());
        fft::mul(&mut x0, &self.b20);
        let mut x1 = Zeroizing::new(z2.to_vec());
        fft::mul(&mut x1, &self.b21);
        let mut d = Zeroizing::new(tc);
        fft::sub(&mut d, &x1);
        fft::mul(&mut d, &self.beta11);
        let mut p = Zeroizing::new(x0.to_vec());
        fft::mul(&mut p, &self.beta10);
        fft::sub(&mut d, &p);
        fft::sub(&mut d, &y1);
        fft::ifft(&mut d);
        let mut z1: Zeroizing<Vec<f64>> =
            Zeroizing::new(d.iter().map(|&m| samp.sample(m, ir) as f64).collect());
        fft::fft(&mut z1);

        // Step 4: the lattice point (x0, x1) = z1 (f, g) + z2 (F, G), exact after rounding (its
        // coefficients stay below 2^27 in absolute value, far inside f64's exact range at this
        // transform size). x1 = x0 h mod q on the lattice, so s2 = -x0 and s1 = c + x1 (centred
        // mod q) give s1 + s2 h = c.
        let mut t = Zeroizing::new(z1.to_vec());
        fft::mul(&mut t, &self.b10);
        fft::add(&mut x0, &t);
        fft::mul(&mut z1, &self.b11);
        fft::add(&mut x1, &z1);
        fft::ifft(&mut x0);
        fft::ifft(&mut x1);
        let s2: Vec<i16> = x0.iter().map(|&v| -(v.round() as i32) as i16).collect();
        let s1: Vec<i16> = x1
            .iter()
            .zip(&centred)
            .map(|(&v, &c)| {
                let s = (c as i64 + v.round() as i64).rem_euclid(q as i64) as i32;
                (if s > q / 2 { s - q } else { s }) as i16
            })
            .collect();
        (s1, s2)
    }
}

/// a_i *= w_i for a real weight per evaluation (both parts of each complex value).
fn scale_real(a: &mut [f64], w: &[f64]) {
    let hn = a.len() / 2;
    for i in 0..hn {
        a[i] *= w[i];
        a[i + hn] *= w[i];
    }
}

/// The FFT of a vector of n independent standard normals: n/2 independent complex values whose
/// real and imaginary parts each have variance n/2 (Box-Muller: radius sqrt(n * -ln U), uniform
/// angle).
fn normal_fft(rng: &mut ChaCha20Rng) -> Vec<f64> {
    let hn = N / 2;
    let mut out = vec![0.0; N];
    for i in 0..hn {
        // U in (0, 1]: 53 random bits, plus one so that ln U is finite.
        let u = ((rng.next_u64() >> 11) + 1) as f64 * (1.0 / 9_007_199_254_740_992.0);
        let a = core::f64::consts::TAU
            * ((rng.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0));
        let rad = (N as f64 * -u.ln()).sqrt();
        out[i] = rad * a.cos();
        out[i + hn] = rad * a.sin();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_fft_has_the_variance_of_a_transformed_normal_vector() {
        let mut rng = ChaCha20Rng::from_seed([7; 32]);
        let mut sum = 0.0;
        let rounds = 200;
        for _ in 0..rounds {
            sum += normal_fft(&mut rng).iter().map(|x| x * x).sum::<f64>();
        }
        // E sum = n * (n / 2); 200 rounds of 512 chi-square(1)-like terms: well within 3%.
        let mean = sum / (rounds as f64 * N as f64 * N as f64 / 2.0);
        assert!((mean - 1.0).abs() < 0.03, "{mean}");
    }
}
