//! Antrag key generation (Espitau, Nguyen, Sun, Zeng: "Antrag: Annular NTRU Trapdoor Generation",
//! ASIACRYPT 2023, §4 and Algorithm 3), at n = 512, q = 12289, in the form the SHADOWFAX artifact
//! uses it for GANDALF[Antrag, Mitaka].
//!
//! Mitaka's output width is set by the basis quality alpha = max_i max(|b1_i|^2, q^2 / |b1_i|^2) / q
//! taken over the FFT evaluations b1_i = (f(zeta_i), g(zeta_i)): a basis is good when every
//! |f(zeta_i)|^2 + |g(zeta_i)|^2 lies in the annulus [q / alpha^2, q alpha^2]. Antrag samples the
//! evaluations directly in a narrower annulus (radii squared in q [a_low^2, a_high^2], with
//! a_low,high = (alpha + 1/alpha)/2 -+ xi (alpha - 1/alpha)/2, xi = 1/3), with uniform angles, maps
//! them back to coefficients, rounds to the integer vector of odd sum nearest to each (so that
//! f(1) and g(1) are odd and the resultants are odd, which NTRUSolve needs), and keeps the pair
//! when the rounded evaluations are still in the wide annulus. (F, G) then come from NTRUSolve.

use alibi_falcon::fft;
use rand_core::CryptoRng;
use zeroize::{Zeroize, Zeroizing};

use crate::{ALPHA, N, Q};

/// The radius parameter xi of the sampling annulus (§4.2; the artifact's `ANTRAG_XI`).
const XI: f64 = 1.0 / 3.0;

/// f, g, F, G with f G - g F = q, one signed byte per coefficient.
pub(crate) struct Basis {
    pub f: Zeroizing<Vec<i8>>,
    pub g: Zeroizing<Vec<i8>>,
    pub big_f: Zeroizing<Vec<i8>>,
    pub big_g: Zeroizing<Vec<i8>>,
}

/// A uniform real in [0, 1) from 64 random bits.
fn uniform(rng: &mut (impl CryptoRng + ?Sized)) -> f64 {
    rng.next_u64() as f64 * (1.0 / 18_446_744_073_709_551_616.0)
}

/// The integer vector of odd coefficient sum nearest to `x` (Conway and Sloane, ch. 20 §2: the
/// decoder of the odd coset of D_n): round every coordinate; if the sum is even, move the
/// coordinate that was rounded furthest to its other neighbour. `None` if a coordinate leaves the
/// signed-byte range. Not constant-time, as key generation is not (docs/SECURITY.md).
fn round_odd(x: &[f64]) -> Option<Vec<i32>> {
    let mut out = Vec::with_capacity(x.len());
    let mut parity = 0i32;
    let (mut worst, mut worst_dist, mut worst_other) = (0usize, -1.0f64, 0i32);
    for (i, &v) in x.iter().enumerate() {
        let r = v.round_ties_even();
        let d = (v - r).abs();
        if d > worst_dist {
            worst = i;
            worst_dist = d;
            worst_other = if v > r { r as i32 + 1 } else { r as i32 - 1 };
        }
        let r = r as i32;
        parity ^= r;
        out.push(r);
    }
    if parity & 1 == 0 {
        out[worst] = worst_other;
    }
    out.iter().all(|v| v.abs() <= 127).then_some(out)
}

/// One candidate (f, g): evaluations in the narrow annulus, rounded to odd-sum integer vectors,
/// kept if the rounded evaluations lie in the wide annulus [q / alpha^2, q alpha^2].
fn candidate(rng: &mut (impl CryptoRng + ?Sized)) -> Option<(Vec<i32>, Vec<i32>)> {
    let q = Q as f64;
    let mid = 0.5 * (ALPHA + 1.0 / ALPHA);
    let half = 0.5 * XI * (ALPHA - 1.0 / ALPHA);
    let (lo, hi) = (q * (mid - half).powi(2), q * (mid + half).powi(2));
    let hn = N / 2;
    let mut fh = Zeroizing::new(vec![0.0f64; N]);
    let mut gh = Zeroizing::new(vec![0.0f64; N]);
    for i in 0..hn {
        // Radius squared uniform in [lo, hi]; the angle between |f_i| and |g_i| uniform in
        // [0, pi/2); each evaluation's own phase uniform.
        let z = (lo + (hi - lo) * uniform(rng)).sqrt();
        let theta = core::f64::consts::FRAC_PI_2 * uniform(rng);
        let (af, ag) = (z * theta.cos(), z * theta.sin());
        let pf = core::f64::consts::TAU * uniform(rng);
        let pg = core::f64::consts::TAU * uniform(rng);
        fh[i] = af * pf.cos();
        fh[i + hn] = af * pf.sin();
        gh[i] = ag * pg.cos();
        gh[i + hn] = ag * pg.sin();
    }
    fft::ifft(&mut fh);
    fft::ifft(&mut gh);
    let f = round_odd(&fh)?;
    let g = round_odd(&gh)?;
    let mut fr: Vec<f64> = f.iter().map(|&x| x as f64).collect();
    let mut gr: Vec<f64> = g.iter().map(|&x| x as f64).collect();
    fft::fft(&mut fr);
    fft::fft(&mut gr);
    let mut norms = vec![0.0; N];
    fft::norm2_sum(&mut norms, &fr, &gr);
    fr.zeroize();
    gr.zeroize();
    let (wlo, whi) = (q / (ALPHA * ALPHA), q * ALPHA * ALPHA);
    norms[..hn]
        .iter()
        .all(|&z| (wlo..=whi).contains(&z))
        .then_some((f, g))
}

/// Antrag's key generation: candidates until one is in the annulus, f is invertible mod q and
/// NTRUSolve finds (F, G) within a signed byte.
pub(crate) fn generate(rng: &mut (impl CryptoRng + ?Sized)) -> (Basis, alibi_falcon::VerifyingKey) {
    loop {
        let Some((f, g)) = candidate(rng) else {
            continue;
        };
        let (f, g) = (Zeroizing::new(f), Zeroizing::new(g));
        let Some((big_f, big_g)) = alibi_falcon::ntru_solve(&f, &g, Q, 127) else {
            continue;
        };
        let (big_f, big_g) = (Zeroizing::new(big_f), Zeroizing::new(big_g));
        let bytes = |v: &[i32]| Zeroizing::new(v.iter().map(|&x| x as i8).collect::<Vec<i8>>());
        let basis = Basis {
            f: bytes(&f),
            g: bytes(&g),
            big_f: bytes(&big_f),
            big_g: bytes(&big_g),
        };
        // Also checks that f is invertible mod q (h = g / f exists) and the NTRU equation.
        let Ok(vk) = alibi_falcon::ntru_verifying_key(
            alibi_falcon::Level::Falcon512,
            &basis.f,
            &basis.g,
            &basis.big_f,
            &basis.big_g,
        ) else {
            continue;
        };
        return (basis, vk);
    }
}

/// max_i max(|b1_i|^2 / q, q / |b1_i|^2): the quality alpha^2 of the basis with first row (f, g).
pub(crate) fn quality_sq(f: &[i8], g: &[i8]) -> f64 {
    let fr = fft::from_ints(f);
    let gr = fft::from_ints(g);
    let mut norms = vec![0.0; f.len()];
    fft::norm2_sum(&mut norms, &fr, &gr);
    let q = Q as f64;
    norms[..f.len() / 2]
        .iter()
        .map(|&z| (z / q).max(q / z))
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_rounding_is_nearest_with_odd_sum() {
        // 0 + 1 + 1 is even: the worst-rounded 0.2 goes up instead.
        assert_eq!(round_odd(&[0.2, 0.9, 1.1]), Some(vec![1, 1, 1]));
        // Sum already odd: plain rounding.
        assert_eq!(round_odd(&[0.2, 0.9, -2.1]), Some(vec![0, 1, -2]));
        assert_eq!(round_odd(&[0.0, 1.6, 3.0]), Some(vec![0, 2, 3]));
        assert_eq!(round_odd(&[200.0]), None);
    }

    #[test]
    fn keys_have_the_antrag_quality() {
        let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
        for _ in 0..3 {
            let (b, _) = generate(&mut rng);
            let odd = |p: &[i8]| p.iter().map(|&x| x as i32).sum::<i32>() & 1 == 1;
            assert!(odd(&b.f) && odd(&b.g));
            assert!(quality_sq(&b.f, &b.g) <= ALPHA * ALPHA + 1e-9);
        }
    }
}
