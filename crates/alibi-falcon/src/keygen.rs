//! Key generation: NTRUGen (spec §3.8.2, Algorithm 5) with NTRUSolve (Algorithm 6) by field-norm
//! recursion over big integers, and Babai size reduction (Reduce, Algorithm 7) in floating point.
//! The arithmetic picks its representation by size: exact floating-point FFT products while they
//! fit, Karatsuba on machine words, fixed-width limbs for Reduce on short polynomials, num-bigint
//! otherwise; every path computes the same integers, so a seed always gives the same key.
//!
//! Key generation is not constant-time. Sampling f and g does not branch on their values, and the
//! tests that reject candidates take the same time for every candidate that passes, but NTRUSolve, which runs on the candidate that becomes the key,
//! takes time that depends on its operands: their sizes, Lehmer's quotient runs at the bottom, the
//! size and zero coefficients of Babai's k. The small candidate polynomials are wiped after use;
//! the big-integer intermediates of NTRUSolve are not (num-bigint offers no zeroization).

use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use std::sync::OnceLock;
use zeroize::Zeroizing;

use crate::fft;
use crate::modq;
use crate::params::{Level, Q};

/// The four NTRU polynomials of a Falcon secret basis, with f G - g F = q.
pub struct NtruKeys {
    pub f: Vec<i8>,
    pub g: Vec<i8>,
    pub big_f: Vec<i8>,
    pub big_g: Vec<i8>,
    pub h: Vec<u16>,
}

/// Half-width of the support of the coefficient sampler.
const GAUSS_K: i32 = 24;

/// CDF of D_{Z, sigma_1024}, sigma_1024 = 1.17 sqrt(q / 2048), scaled to 2^63 on z = -K..=K.
fn gauss_cdf() -> &'static [u64] {
    static CDF: OnceLock<Vec<u64>> = OnceLock::new();
    CDF.get_or_init(|| {
        let sigma = 1.17 * (Q as f64 / 2048.0).sqrt();
        let w: Vec<f64> = (-GAUSS_K..=GAUSS_K)
            .map(|z| (-((z * z) as f64) / (2.0 * sigma * sigma)).exp())
            .collect();
        let tot: f64 = w.iter().sum();
        let mut acc = 0.0;
        w.iter()
            .map(|x| {
                acc += x;
                ((acc / tot) * 9_223_372_036_854_775_808.0).min(9.223_372_036_854_775e18) as u64
            })
            .collect()
    })
}

/// f or g: n coefficients, each a sum of 1024/n samples of D_{Z, sigma_1024}, which has standard
/// deviation sigma_{f,g} = 1.17 sqrt(q / 2n) (Algorithm 5, line 3). Coefficient i takes the
/// i-th run of 1024/n uniform 63-bit words from `rng`.
fn gauss_poly(rng: &mut ChaCha20Rng, n: usize) -> Zeroizing<Vec<i32>> {
    let per = 1024 / n;
    let u: Zeroizing<Vec<i64>> =
        Zeroizing::new((0..1024).map(|_| (rng.next_u64() >> 1) as i64).collect());
    let mut count = Zeroizing::new(vec![0i64; 1024]);
    cdf_rank(&u, &mut count);
    Zeroizing::new(
        count
            .chunks_exact(per)
            .map(|c| c.iter().map(|&k| k as i32 - GAUSS_K).sum())
            .collect(),
    )
}

modq::avx2_dispatch!(
    /// count[j] += #{i : u[j] >= cdf[i]}: each sample is compared with the whole table (no
    /// branch and no table index depends on it), so that z = count - K.
    cdf_rank, cdf_rank_avx2, cdf_rank_portable, (u: &[i64], count: &mut [i64])
);

#[inline(always)]
fn cdf_rank_portable(u: &[i64], count: &mut [i64]) {
    // Table entries are below 2^63, so signed comparisons are exact; the loop over samples is
    // the inner one so that it runs on vector registers.
    for &c in gauss_cdf() {
        let c = c as i64;
        for (k, &x) in count.iter_mut().zip(u) {
            *k += (x >= c) as i64;
        }
    }
}

/// NTRUGen: a fresh key basis for `level`.
pub fn ntru_gen(level: Level, seed: [u8; 32]) -> NtruKeys {
    let n = level.n();
    let mut rng = ChaCha20Rng::from_seed(seed);
    let lim = 1i32 << (level.fg_bits() - 1);
    loop {
        // Candidates are secret until rejected: wiped on every path.
        let f = gauss_poly(&mut rng, n);
        let g = gauss_poly(&mut rng, n);
        // The secret-key encoding holds f and g on fg_bits signed bits.
        if f.iter().chain(g.iter()).any(|&x| x <= -lim || x >= lim) {
            continue;
        }
        // Res(f, x^n + 1) = f(1)^n mod 2: with f(1) and g(1) both even, 2 divides both
        // resultants and NTRUSolve would fail at its last level (gcd != 1). Rejecting here, on
        // the same candidate, changes no key; it saves the descent for about a quarter of the
        // candidates that reach it.
        let parity = |p: &[i32]| p.iter().fold(0i32, |s, &x| s ^ x) & 1;
        if parity(&f) == 0 && parity(&g) == 0 {
            continue;
        }
        if !gram_schmidt_ok(&f, &g) {
            continue;
        }
        let Some(mut h) = modq::div_small(&g, &f) else {
            continue;
        };
        modq::intt(&mut h);
        let Some((big_f, big_g)) = ntru_solve(&f, &g) else {
            continue;
        };
        let (big_f, big_g) = (Zeroizing::new(big_f), Zeroizing::new(big_g));
        let to_i8 = |v: &[i32]| v.iter().map(|&x| x as i8).collect::<Vec<i8>>();
        return NtruKeys {
            f: to_i8(&f),
            g: to_i8(&g),
            big_f: to_i8(&big_f),
            big_g: to_i8(&big_g),
            h,
        };
    }
}

/// The Gram-Schmidt norm test of Algorithm 5 (lines 4-7): max(||(g, -f)||, ||(q f*/(ff*+gg*),
/// q g*/(ff*+gg*))||) <= 1.17 sqrt(q).
pub fn gram_schmidt_ok(f: &[i32], g: &[i32]) -> bool {
    let n = f.len();
    let bound = 1.17 * 1.17 * Q as f64;
    let n1: i64 = f.iter().chain(g).map(|&x| (x as i64) * (x as i64)).sum();
    if n1 as f64 > bound {
        return false;
    }
    let ff = fft::from_ints(f);
    let gf = fft::from_ints(g);
    let mut d = vec![0.0; n];
    fft::norm2_sum(&mut d, &ff, &gf);
    // By Parseval on the n/2 stored evaluations: ||q f*/D||^2 + ||q g*/D||^2 = (2/n) sum q^2 / D.
    let qq = (Q as f64) * (Q as f64);
    let n2: f64 = d[..n / 2].iter().map(|&x| qq / x).sum::<f64>() * 2.0 / n as f64;
    n2 <= bound
}

type Poly = Vec<BigInt>;

/// Schoolbook product in Z[x] (full length 2n - 1), for short operands.
fn mul_full_school(a: &[BigInt], b: &[BigInt], out: &mut [BigInt]) {
    for (i, x) in a.iter().enumerate() {
        if x.is_zero() {
            continue;
        }
        for (j, y) in b.iter().enumerate() {
            out[i + j] += x * y;
        }
    }
}

/// Karatsuba product in Z[x] for equal power-of-two lengths; `out` has length 2n.
fn mul_full(a: &[BigInt], b: &[BigInt], out: &mut [BigInt]) {
    let n = a.len();
    if n <= 16 {
        mul_full_school(a, b, out);
        return;
    }
    let h = n / 2;
    let (a0, a1) = a.split_at(h);
    let (b0, b1) = b.split_at(h);
    let mut p0 = vec![BigInt::zero(); n];
    let mut p2 = vec![BigInt::zero(); n];
    mul_full(a0, b0, &mut p0);
    mul_full(a1, b1, &mut p2);
    let sa: Poly = a0.iter().zip(a1).map(|(x, y)| x + y).collect();
    let sb: Poly = b0.iter().zip(b1).map(|(x, y)| x + y).collect();
    let mut p1 = vec![BigInt::zero(); n];
    mul_full(&sa, &sb, &mut p1);
    for i in 0..n {
        let mid = &p1[i] - &p0[i] - &p2[i];
        out[i] += &p0[i];
        out[i + h] += mid;
        out[i + n] += &p2[i];
    }
}

/// a * b in Z[x]/(x^n + 1), on i128 words when no coefficient of the result can overflow them
/// (the top levels of the recursion), on big integers otherwise.
fn mul_negacyclic(a: &[BigInt], b: &[BigInt]) -> Poly {
    let n = a.len();
    let ba = a.iter().map(|x| x.bits()).max().unwrap_or(0);
    let bb = b.iter().map(|x| x.bits()).max().unwrap_or(0);
    let logn = n.trailing_zeros() as u64;
    // Karatsuba on machine words: each of its levels adds a bit to the operands (sums of halves)
    // and two to the products, which must stay below 2^127.
    let levels = (n / KARATSUBA_LEAF).max(1).trailing_zeros() as u64;
    if n >= 2 && ba + bb + 2 * logn <= FFT_EXACT_BITS {
        let to_fft = |p: &[BigInt]| {
            let mut v: Vec<f64> = p.iter().map(|x| x.to_f64().unwrap_or(0.0)).collect();
            fft::fft(&mut v);
            v
        };
        let mut c = to_fft(a);
        fft::mul(&mut c, &to_fft(b));
        fft::ifft(&mut c);
        return c.iter().map(|&x| BigInt::from(x.round() as i64)).collect();
    }
    if ba + levels < 63 && bb + levels < 63 && ba + bb + 2 * levels + logn < 126 {
        let a: Vec<i64> = a.iter().map(|x| x.to_i64().unwrap_or(0)).collect();
        let b: Vec<i64> = b.iter().map(|x| x.to_i64().unwrap_or(0)).collect();
        let mut full = vec![0i128; 2 * n];
        mul_full_words(&a, &b, &mut full);
        // x^n = -1: the upper half wraps with a minus sign.
        let (lo, hi) = full.split_at(n);
        return lo
            .iter()
            .zip(hi)
            .map(|(x, y)| BigInt::from(x - y))
            .collect();
    }
    // One side word-sized (Babai's k in `reduce`): digits of the other side times it on words.
    let fits = |bits: u64| bits + levels < 63 && 32 + bits + 2 * levels + logn < 126;
    if fits(bb) {
        let b: Vec<i64> = b.iter().map(|x| x.to_i64().unwrap_or(0)).collect();
        return mul_negacyclic_digits(a, &b);
    }
    if fits(ba) {
        let a: Vec<i64> = a.iter().map(|x| x.to_i64().unwrap_or(0)).collect();
        return mul_negacyclic_digits(b, &a);
    }
    let mut full = vec![BigInt::zero(); 2 * n];
    mul_full(a, b, &mut full);
    let (lo, hi) = full.split_at(n);
    lo.iter().zip(hi).map(|(x, y)| x - y).collect()
}

/// a * b in Z[x]/(x^n + 1) for a of any size and b on machine words (bounded by the caller as in
/// [`mul_negacyclic`]): a = sum_j a_j 2^(32 j) with a_j the signed 32-bit digit polynomials of
/// a's coefficients (sign times magnitude digit), each a_j b on words, and the sum rebuilt digit
/// by digit with a carry, one big integer per coefficient at the end instead of one per product.
fn mul_negacyclic_digits(a: &[BigInt], b: &[i64]) -> Poly {
    let n = a.len();
    let mags: Vec<(bool, Vec<u32>)> = a
        .iter()
        .map(|x| (x.sign() == Sign::Minus, x.magnitude().to_u32_digits()))
        .collect();
    let len = mags.iter().map(|(_, m)| m.len()).max().unwrap_or(0);
    let mut digits: Vec<Vec<u32>> = vec![Vec::with_capacity(len); n];
    let mut carry = vec![0i128; n];
    let mut d = vec![0i64; n];
    let mut full = vec![0i128; 2 * n];
    for j in 0..len {
        for (dj, (neg, m)) in d.iter_mut().zip(&mags) {
            let v = m.get(j).copied().unwrap_or(0) as i64;
            *dj = if *neg { -v } else { v };
        }
        full.fill(0);
        mul_full_words(&d, b, &mut full);
        for i in 0..n {
            // x^n = -1; then t = (low 32 bits) + 2^32 (t >> 32), the shift arithmetic.
            let t = full[i] - full[i + n] + carry[i];
            digits[i].push(t as u32);
            carry[i] = t >> 32;
        }
    }
    digits
        .into_iter()
        .zip(carry)
        .map(|(ds, c)| {
            BigInt::from_biguint(Sign::Plus, BigUint::new(ds)) + (BigInt::from(c) << (32 * len))
        })
        .collect()
}

/// Products whose bound 2^(bits(a) + bits(b) + log n) is at most 2^(FFT_EXACT_BITS - log n) go
/// through the floating-point FFT: its rounding error, of order n log n 2^-53 times the bound,
/// stays far below 1/2, so rounding the result gives the exact integers.
const FFT_EXACT_BITS: u64 = 42;

/// Below this length [`mul_full_words`] multiplies by schoolbook.
const KARATSUBA_LEAF: usize = 32;

/// The product of a and b in Z[x] (equal power-of-two lengths n; `out` has length 2n and is
/// added to), by Karatsuba down to [`KARATSUBA_LEAF`] coefficients; the caller bounds the sizes
/// (see [`mul_negacyclic`]) so that nothing overflows.
fn mul_full_words(a: &[i64], b: &[i64], out: &mut [i128]) {
    let n = a.len();
    if n <= KARATSUBA_LEAF {
        for (i, &x) in a.iter().enumerate() {
            let x = x as i128;
            for (o, &y) in out[i..i + n].iter_mut().zip(b) {
                *o += x * y as i128;
            }
        }
        return;
    }
    let h = n / 2;
    let (a0, a1) = a.split_at(h);
    let (b0, b1) = b.split_at(h);
    let mut p0 = vec![0i128; n];
    let mut p2 = vec![0i128; n];
    mul_full_words(a0, b0, &mut p0);
    mul_full_words(a1, b1, &mut p2);
    let sa: Vec<i64> = a0.iter().zip(a1).map(|(x, y)| x + y).collect();
    let sb: Vec<i64> = b0.iter().zip(b1).map(|(x, y)| x + y).collect();
    let mut p1 = vec![0i128; n];
    mul_full_words(&sa, &sb, &mut p1);
    for i in 0..n {
        out[i] += p0[i];
        out[i + h] += p1[i] - p0[i] - p2[i];
        out[i + n] += p2[i];
    }
}

/// The field norm N(f) = f0^2 - x f1^2 (spec §3.6), where f(x) = f0(x^2) + x f1(x^2).
fn field_norm(f: &[BigInt]) -> Poly {
    let hn = f.len() / 2;
    let f0: Poly = f.iter().step_by(2).cloned().collect();
    let f1: Poly = f.iter().skip(1).step_by(2).cloned().collect();
    let a = mul_negacyclic(&f0, &f0);
    let b = mul_negacyclic(&f1, &f1);
    // x * b in Z[x]/(x^{n/2} + 1): rotate by one with the wrapped coefficient negated.
    (0..hn)
        .map(|i| {
            if i == 0 {
                &a[0] + &b[hn - 1]
            } else {
                &a[i] - &b[i - 1]
            }
        })
        .collect()
}

/// F'(x^2) * g(-x), computed as the interleave of F' g0 and -F' g1 (g = g0(x^2) + x g1(x^2)).
fn lift(fp: &[BigInt], g: &[BigInt]) -> Poly {
    let g0: Poly = g.iter().step_by(2).cloned().collect();
    let g1: Poly = g.iter().skip(1).step_by(2).cloned().collect();
    let even = mul_negacyclic(fp, &g0);
    let odd = mul_negacyclic(fp, &g1);
    let mut out = Vec::with_capacity(2 * fp.len());
    for (e, o) in even.into_iter().zip(odd) {
        out.push(e);
        out.push(-o);
    }
    out
}

fn max_bits(a: &[BigInt], b: &[BigInt]) -> u64 {
    a.iter().chain(b).map(|x| x.bits()).max().unwrap_or(0)
}

/// The top 53 bits of each coefficient (scaled down by 2^shift), as an FFT-domain polynomial.
fn top_fft(a: &[BigInt], shift: u64) -> Vec<f64> {
    let mut v: Vec<f64> = a
        .iter()
        .map(|x| (x >> shift).to_f64().unwrap_or(0.0))
        .collect();
    fft::fft(&mut v);
    v
}

/// Reduce (Algorithm 7): (F, G) -= k (f, g) until the Babai coefficient k rounds to zero.
///
/// The operands can have thousands of bits, so k is computed from their top 53 bits in floating
/// point. Rounding k to an integer at the scale of F / f would remove only a bit or two per round;
/// instead k keeps up to 30 fractional-scale bits (k ~ (F / f) 2^-shift with shift = e - 30), so each
/// round removes about 30 bits, and the last round (shift = 0) is the exact Babai step.
/// Returns false if the reduction stalls, which makes the key generator try another (f, g).
fn reduce(f: &[BigInt], g: &[BigInt], big_f: &mut [BigInt], big_g: &mut [BigInt]) -> bool {
    // NTRUSolve calls it from degree 2 up (degree 1 is the bottom, solved by Bezout).
    let b = FgTop::new(f, g);
    if f.len() <= LIMB_REDUCE_MAX_N {
        return reduce_limbs(&b, big_f, big_g);
    }
    reduce_rounds(&b, big_f, big_g, REDUCE_ROUNDS)
}

/// What every round of Reduce needs of (f, g), computed once: the polynomials, their largest bit
/// length, the scale 2^sf of their top 53 bits, those bits' FFTs and den = f adj(f) + g adj(g).
struct FgTop<'a> {
    f: &'a [BigInt],
    g: &'a [BigInt],
    bits: u64,
    sf: u64,
    fa: Vec<f64>,
    ga: Vec<f64>,
    den: Vec<f64>,
}

impl<'a> FgTop<'a> {
    fn new(f: &'a [BigInt], g: &'a [BigInt]) -> Self {
        let bits = max_bits(f, g);
        let sf = bits.saturating_sub(53);
        let (fa, ga) = (top_fft(f, sf), top_fft(g, sf));
        let mut den = vec![0.0; f.len()];
        fft::norm2_sum(&mut den, &fa, &ga);
        FgTop {
            f,
            g,
            bits,
            sf,
            fa,
            ga,
            den,
        }
    }

    /// One Babai coefficient k with its scale 2^shift, from the FFTs of the top bits of F and G
    /// (scaled by 2^-sfb); `num` is scratch.
    fn babai_k(&self, num: &mut [f64], fb: &[f64], gb: &[f64], sfb: u64) -> (Vec<i64>, u64) {
        fft::mul_adj_sum(num, fb, &self.fa, gb, &self.ga);
        fft::div_selfadj(num, &self.den);
        fft::ifft(num);
        // F / f ~ num 2^e.
        let e = sfb as i64 - self.sf as i64;
        let shift = (e - 30).max(0) as u64;
        let scale = 2f64.powi((e - shift as i64).clamp(-1100, 30) as i32);
        (
            num.iter().map(|x| (x * scale).round() as i64).collect(),
            shift,
        )
    }
}

/// At most this many rounds of Reduce before it counts as stalled.
const REDUCE_ROUNDS: usize = 4096;

/// The rounds of [`reduce`] on big integers; at most `rounds` of them.
fn reduce_rounds(b: &FgTop, big_f: &mut [BigInt], big_g: &mut [BigInt], rounds: usize) -> bool {
    let (f, g, n) = (b.f, b.g, b.f.len());
    let mut num = vec![0.0; n];
    for _ in 0..rounds {
        let sfb = max_bits(big_f, big_g).saturating_sub(53);
        let fb = top_fft(big_f, sfb);
        let gb = top_fft(big_g, sfb);
        let (k, shift) = b.babai_k(&mut num, &fb, &gb, sfb);
        if k.iter().all(|&x| x == 0) {
            return true;
        }
        let kb: Poly = k.into_iter().map(BigInt::from).collect();
        let fk = mul_negacyclic(f, &kb);
        let gk = mul_negacyclic(g, &kb);
        for i in 0..n {
            big_f[i] -= &fk[i] << shift;
            big_g[i] -= &gk[i] << shift;
        }
    }
    false
}

/// (u, v) with u a + v b = 1 and |u| < b / 2, the pair extended Euclid returns, or `None` when
/// gcd(a, b) != 1; a and b are the resultants at the bottom of NTRUSolve, positive and thousands
/// of bits long.
///
/// Lehmer's algorithm (Knuth, TAOCP vol. 2, 4.5.2, Algorithm L): Euclid's quotients are found on
/// the leading 63 bits for as long as they provably agree with the full numbers' quotients, and
/// the full numbers are updated once per run of quotients by the accumulated 2x2 matrix, instead of
/// one big division per quotient. Only u is tracked (u a = r mod b); v comes from one exact
/// division at the end.
fn bezout(a: &BigInt, b: &BigInt) -> Option<(BigInt, BigInt)> {
    if a.sign() != Sign::Plus || b.sign() != Sign::Plus {
        // Not reached from NTRUSolve (resultants of non-zero polynomials are positive); kept
        // correct for any input.
        let e = a.extended_gcd(b);
        return e.gcd.is_one().then_some((e.x, e.y));
    }
    // Invariant: r_i = u_i a (mod b).
    let (mut r0, mut r1) = (a.clone(), b.clone());
    let (mut u0, mut u1) = (BigInt::one(), BigInt::zero());
    if r0 < r1 {
        std::mem::swap(&mut r0, &mut r1);
        std::mem::swap(&mut u0, &mut u1);
    }
    while r1.bits() > 64 {
        let shift = r0.bits() - 63;
        let mut x0 = (&r0 >> shift).to_i128().unwrap_or(0);
        let mut x1 = (&r1 >> shift).to_i128().unwrap_or(0);
        // (r0', r1') = (m00 r0 + m01 r1, m10 r0 + m11 r1) after the quotients taken so far.
        let (mut m00, mut m01, mut m10, mut m11) = (1i128, 0i128, 0i128, 1i128);
        while x1 + m10 != 0 && x1 + m11 != 0 {
            // The quotient of the full numbers lies between these two (Knuth's condition).
            let q = (x0 + m00) / (x1 + m10);
            if q != (x0 + m01) / (x1 + m11) {
                break;
            }
            (m00, m10) = (m10, m00 - q * m10);
            (m01, m11) = (m11, m01 - q * m11);
            (x0, x1) = (x1, x0 - q * x1);
        }
        if m01 == 0 {
            // No quotient could be certified on 63 bits: one full division step.
            let (q, r) = r0.div_rem(&r1);
            let u = &u0 - &q * &u1;
            (r0, r1, u0, u1) = (r1, r, u1, u);
        } else {
            let (m00, m01, m10, m11) = (m00 as i64, m01 as i64, m10 as i64, m11 as i64);
            (r0, r1) = (&r0 * m00 + &r1 * m01, &r0 * m10 + &r1 * m11);
            (u0, u1) = (&u0 * m00 + &u1 * m01, &u0 * m10 + &u1 * m11);
        }
    }
    while !r1.is_zero() {
        let (q, r) = r0.div_rem(&r1);
        let u = &u0 - &q * &u1;
        (r0, r1, u0, u1) = (r1, r, u1, u);
    }
    if !r0.is_one() {
        return None;
    }
    // u0 a = 1 (mod b): take the representative of least magnitude, then v exactly.
    let mut u = u0.mod_floor(b);
    if &u * 2 > *b {
        u -= b;
    }
    let v = (BigInt::one() - &u * a) / b;
    Some((u, v))
}

/// Up to this length, [`reduce`] runs on fixed-width limbs ([`reduce_limbs`]). Its products cost
/// n^2 limb products, against Karatsuba on words above; 32 was the fastest of 8, 16, 32 and 64 in
/// Falcon-512 key generation (2026-11-25, AMD EPYC).
const LIMB_REDUCE_MAX_N: usize = 32;

/// [`reduce`] for short polynomials of long coefficients (the bottom levels of NTRUSolve, where
/// most rounds are spent): the same rounds, hence the same result, on fixed-width two's complement
/// limbs updated in place, instead of big integers allocated for every product, shift and
/// difference. A round whose product could overflow the width hands the state back to the
/// big-integer rounds.
fn reduce_limbs(b: &FgTop, big_f: &mut [BigInt], big_g: &mut [BigInt]) -> bool {
    let (f, g, n, bits_fg) = (b.f, b.g, b.f.len(), b.bits);
    let len = (max_bits(big_f, big_g).max(bits_fg) as usize + 64) / 32 + 1;
    let (lf, lg) = (Limbs::new(f, len), Limbs::new(g, len));
    let (mut lbf, mut lbg) = (Limbs::new(big_f, len), Limbs::new(big_g, len));
    let logn = n.trailing_zeros() as u64;
    let mut num = vec![0.0; n];
    let mut acc = vec![0i128; len];
    for round in 0..REDUCE_ROUNDS {
        let bits_big = lbf.max_bits().max(lbg.max_bits());
        let sfb = bits_big.saturating_sub(53);
        let (fb, gb) = (lbf.top_fft(sfb), lbg.top_fft(sfb));
        let (k, shift) = b.babai_k(&mut num, &fb, &gb, sfb);
        if k.iter().all(|&x| x == 0) {
            lbf.store(big_f);
            lbg.store(big_g);
            return true;
        }
        // |k f 2^shift| < 2^(bits(k) + bits(f) + log n + shift); F - k f 2^shift must stay
        // inside the signed width.
        let bits_k = k
            .iter()
            .map(|x| 64 - x.unsigned_abs().leading_zeros() as u64)
            .max();
        let bound = bits_k.unwrap_or(0) + bits_fg + logn + shift;
        if bound.max(bits_big) + 2 >= 32 * len as u64 {
            lbf.store(big_f);
            lbg.store(big_g);
            return reduce_rounds(b, big_f, big_g, REDUCE_ROUNDS - round);
        }
        lbf.sub_mul_shift(&lf, &k, shift, &mut acc);
        lbg.sub_mul_shift(&lg, &k, shift, &mut acc);
    }
    false
}

/// A polynomial whose coefficients are two's complement integers of `len` 32-bit limbs
/// (little-endian), coefficient i at limbs [i len, (i + 1) len).
struct Limbs {
    len: usize,
    w: Vec<u32>,
}

impl Limbs {
    /// `p` on `len` limbs per coefficient (each must fit).
    fn new(p: &[BigInt], len: usize) -> Self {
        let mut w = vec![0u32; p.len() * len];
        for (x, out) in p.iter().zip(w.chunks_exact_mut(len)) {
            let d = x.magnitude().to_u32_digits();
            out[..d.len()].copy_from_slice(&d);
            if x.sign() == Sign::Minus {
                negate(out);
            }
        }
        Limbs { len, w }
    }

    /// Writes the coefficients back as big integers.
    fn store(&self, p: &mut [BigInt]) {
        for (x, c) in p.iter_mut().zip(self.w.chunks_exact(self.len)) {
            *x = if c[self.len - 1] >> 31 == 1 {
                let mut m = c.to_vec();
                negate(&mut m);
                BigInt::from_biguint(Sign::Minus, BigUint::new(m))
            } else {
                BigInt::from_biguint(Sign::Plus, BigUint::new(c.to_vec()))
            };
        }
    }

    /// The largest bit length of a coefficient's magnitude (as `BigInt::bits`).
    fn max_bits(&self) -> u64 {
        self.w
            .chunks_exact(self.len)
            .map(|c| {
                let neg = c[self.len - 1] >> 31 == 1;
                // For x < 0, |x| = !x + 1: as long as !x, one more when !x is 2^b - 1.
                let m = |l: u32| if neg { !l } else { l };
                let Some(t) = c.iter().rposition(|&l| m(l) != 0) else {
                    return neg as u64;
                };
                let top = m(c[t]);
                let bits = 32 * t as u64 + 32 - top.leading_zeros() as u64;
                let all_ones =
                    || top & top.wrapping_add(1) == 0 && c[..t].iter().all(|&l| m(l) == u32::MAX);
                bits + (neg && all_ones()) as u64
            })
            .max()
            .unwrap_or(0)
    }

    /// floor(x / 2^shift) of every coefficient, which the caller knows fits in 54 bits, as an
    /// FFT-domain polynomial (as [`top_fft`]).
    fn top_fft(&self, shift: u64) -> Vec<f64> {
        let (ws, bs) = ((shift / 32) as usize, shift % 32);
        let mut v: Vec<f64> = self
            .w
            .chunks_exact(self.len)
            .map(|c| {
                let ext = if c[self.len - 1] >> 31 == 1 {
                    u32::MAX
                } else {
                    0
                };
                let limb = |i: usize| c.get(i).copied().unwrap_or(ext) as u128;
                let win = limb(ws) | limb(ws + 1) << 32 | limb(ws + 2) << 64;
                // The arithmetic shift of the two's complement value, read on 64 bits.
                (win >> bs) as u64 as i64 as f64
            })
            .collect();
        fft::fft(&mut v);
        v
    }

    /// self -= (a k mod x^n + 1) 2^shift, modulo 2^(32 len) in every coefficient (the caller
    /// bounds the result so that it is exact); `acc` is scratch of `len` entries.
    ///
    /// When every |k| < 2^31 (the usual case), each limb of each output coefficient first gathers
    /// its n products (each below 2^(32 + 62), their sum below 2^127), then one carry pass
    /// subtracts them, so the products do not wait on each other's carries. Larger k (the rounding
    /// of an out-of-range quotient) take one carry pass per product.
    fn sub_mul_shift(&mut self, a: &Limbs, k: &[i64], shift: u64, acc: &mut [i128]) {
        let n = k.len();
        let (ws, bs) = ((shift / 32) as usize, shift % 32);
        let len = self.len;
        if k.iter().any(|x| x.unsigned_abs() >= 1 << 31) {
            for (j, &kj) in k.iter().enumerate() {
                for (i, src) in a.w.chunks_exact(len).enumerate() {
                    // x^n = -1: the part of a k past degree n wraps with the opposite sign, in
                    // i128 as k may be i64::MIN.
                    let (t, m) = if i + j < n {
                        (i + j, kj as i128)
                    } else {
                        (i + j - n, -(kj as i128))
                    };
                    // |m| <= 2^(63 + 31); each limb product below 2^126.
                    let m = m << bs;
                    let mut carry = 0i128;
                    for (d, &s) in self.w[t * len + ws..(t + 1) * len].iter_mut().zip(src) {
                        let v = *d as i128 - s as i128 * m + carry;
                        *d = v as u32;
                        carry = v >> 32;
                    }
                }
            }
            return;
        }
        let acc = &mut acc[..len - ws];
        for t in 0..n {
            acc.fill(0);
            for (i, src) in a.w.chunks_exact(len).enumerate() {
                // x^n = -1: the part of a k past degree n wraps with the opposite sign.
                let kj = if i <= t { k[t - i] } else { -k[t + n - i] };
                if kj == 0 {
                    continue;
                }
                // |k| < 2^31 and bs < 32: one 64 x 64-bit product per limb.
                let m = (kj << bs) as i128;
                for (c, &s) in acc.iter_mut().zip(src) {
                    *c += s as i64 as i128 * m;
                }
            }
            let mut carry = 0i128;
            for (d, &c) in self.w[t * len + ws..(t + 1) * len]
                .iter_mut()
                .zip(acc.iter())
            {
                let v = *d as i128 - c + carry;
                *d = v as u32;
                carry = v >> 32;
            }
        }
    }
}

/// x = -x in two's complement.
fn negate(x: &mut [u32]) {
    let mut carry = 1u64;
    for l in x.iter_mut() {
        let t = (!*l) as u64 + carry;
        *l = t as u32;
        carry = t >> 32;
    }
}

/// NTRUSolve (Algorithm 6): (F, G) with f G - g F = q, recursively through field norms.
fn solve_rec(f: &[BigInt], g: &[BigInt], q: u32) -> Option<(Poly, Poly)> {
    if f.len() == 1 {
        let (u, v) = bezout(&f[0], &g[0])?;
        // u f + v g = 1, so F = -q v and G = q u satisfy f G - g F = q.
        let q = BigInt::from(q);
        return Some((vec![-(&q * v)], vec![q * u]));
    }
    let (fp, gp) = solve_rec(&field_norm(f), &field_norm(g), q)?;
    // F = F'(x^2) g(-x), G = G'(x^2) f(-x); `lift` takes care of the sign of x.
    let mut big_f = lift(&fp, g);
    let mut big_g = lift(&gp, f);
    if !reduce(f, g, &mut big_f, &mut big_g) {
        return None;
    }
    Some((big_f, big_g))
}

/// NTRUSolve on small f, g; `None` when it fails or when F, G do not fit the 8-bit encoding.
pub fn ntru_solve(f: &[i32], g: &[i32]) -> Option<(Vec<i32>, Vec<i32>)> {
    ntru_solve_bounded(f, g, Q, 127)
}

/// NTRUSolve for any modulus q (Falcon's q = 12289, BAT's 257, ...): (F, G) with
/// f G - g F = q, Babai-reduced against (f, g); `None` when it fails or when a coefficient of F or
/// G exceeds `bound` in absolute value. The length of f and g is a power of two.
pub fn ntru_solve_bounded(
    f: &[i32],
    g: &[i32],
    q: u32,
    bound: i32,
) -> Option<(Vec<i32>, Vec<i32>)> {
    if f.len() != g.len() || !f.len().is_power_of_two() {
        return None;
    }
    let fb: Poly = f.iter().map(|&x| BigInt::from(x)).collect();
    let gb: Poly = g.iter().map(|&x| BigInt::from(x)).collect();
    let (big_f, big_g) = solve_rec(&fb, &gb, q)?;
    let small = |p: &Poly| -> Option<Vec<i32>> {
        p.iter()
            .map(|x| x.to_i32().filter(|v| v.abs() <= bound))
            .collect()
    };
    let big_f = small(&big_f)?;
    let big_g = small(&big_g)?;
    Some((big_f, big_g))
}

/// h = g / f mod q (in the NTT domain, as signing needs it only to derive G) and G = h F mod q,
/// centred: the secret key stores only f, g, F (spec §3.11.5), and f G - g F = q gives
/// G = g F / f mod q. `None` if f is not invertible mod q or G does not fit in [-127, 127].
pub fn complete_private(f: &[i8], g: &[i8], big_f: &[i8]) -> Option<(Vec<u16>, Vec<i8>)> {
    let gi: Vec<i32> = g.iter().map(|&x| x as i32).collect();
    let fi: Vec<i32> = f.iter().map(|&x| x as i32).collect();
    let h_ntt = modq::div_small(&gi, &fi)?;
    let mut big_g: Vec<u16> = big_f.iter().map(|&x| modq::from_signed(x as i32)).collect();
    modq::ntt(&mut big_g);
    modq::mul_ntt(&mut big_g, &h_ntt);
    modq::intt(&mut big_g);
    let big_g = big_g
        .iter()
        .map(|&x| {
            let c = modq::center(x);
            (-127..=127).contains(&c).then_some(c as i8)
        })
        .collect::<Option<Vec<i8>>>()?;
    Some((h_ntt, big_g))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn negacyclic_i64(a: &[i32], b: &[i32]) -> Vec<i64> {
        let w = |v: &[i32]| v.iter().map(|&x| x as i64).collect::<Vec<i64>>();
        crate::testutil::negacyclic_schoolbook(&w(a), &w(b))
    }

    #[test]
    fn digit_products_match_big_integers() {
        // Big coefficients (up to 700 bits, both signs) times word-sized ones, against the
        // big-integer Karatsuba.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in [1usize, 4, 64, 512] {
            for bits in [1u32, 31, 64, 200, 700] {
                let a: Poly = (0..n)
                    .map(|_| {
                        let mut v = BigInt::from(next() as i64);
                        for _ in 0..bits / 64 {
                            v = (v << 64) + BigInt::from(next());
                        }
                        v >> (64 - bits % 64).min(63)
                    })
                    .collect();
                let b: Vec<i64> = (0..n).map(|_| (next() as i64) >> 33).collect();
                let bb: Poly = b.iter().map(|&y| BigInt::from(y)).collect();
                let mut full = vec![BigInt::zero(); 2 * n];
                mul_full(&a, &bb, &mut full);
                let (lo, hi) = full.split_at(n);
                let want: Poly = lo.iter().zip(hi).map(|(p, q)| p - q).collect();
                assert_eq!(mul_negacyclic_digits(&a, &b), want, "n = {n}, {bits} bits");
                assert_eq!(
                    mul_negacyclic(&bb, &a),
                    want,
                    "n = {n}, {bits} bits, swapped"
                );
            }
        }
    }

    #[test]
    fn fft_products_are_exact_at_their_bound() {
        // Operands at the largest sizes the FFT path takes, every length, against the word
        // Karatsuba (checked against big integers below).
        let mut rng = ChaCha20Rng::from_seed([9; 32]);
        for logn in 1..=10u64 {
            let n = 1usize << logn;
            let room = FFT_EXACT_BITS - 2 * logn;
            for ba in [1, room / 2, room - 1] {
                let bb = room - ba;
                let mut poly = |bits: u64| -> Vec<i64> {
                    (0..n)
                        .map(|_| {
                            // Mostly extreme values, where the rounding error is largest.
                            let m = (1i64 << bits) - 1;
                            let r = rng.next_u64();
                            let v = if r & 3 == 0 { (r >> 2) as i64 & m } else { m };
                            if r & 4 == 0 {
                                -v
                            } else {
                                v
                            }
                        })
                        .collect()
                };
                let (a, b) = (poly(ba), poly(bb));
                let big = |v: &[i64]| v.iter().map(|&y| BigInt::from(y)).collect::<Poly>();
                let mut full = vec![0i128; 2 * n];
                mul_full_words(&a, &b, &mut full);
                let want: Poly = (0..n)
                    .map(|i| BigInt::from(full[i] - full[i + n]))
                    .collect();
                assert_eq!(
                    mul_negacyclic(&big(&a), &big(&b)),
                    want,
                    "n = {n}, {ba} + {bb} bits"
                );
            }
        }
    }

    #[test]
    fn word_karatsuba_matches_big_integers() {
        // Operands from 1 to 60 bits at every length the recursion meets, against the big-integer
        // product (whose Karatsuba is checked against schoolbook below).
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |bits: u32| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> (64 - bits)) as i64 - (1i64 << (bits - 1))
        };
        for n in [1usize, 16, 32, 64, 256, 1024] {
            // Within the bounds mul_negacyclic checks (52 + 52 + 2 * 5 + 10 < 126 at n = 1024).
            for bits in [2u32, 20, 45, 52] {
                let a: Vec<i64> = (0..n).map(|_| next(bits)).collect();
                let b: Vec<i64> = (0..n).map(|_| next(bits)).collect();
                let mut words = vec![0i128; 2 * n];
                mul_full_words(&a, &b, &mut words);
                let big = |v: &[i64]| v.iter().map(|&y| BigInt::from(y)).collect::<Poly>();
                let mut want = vec![BigInt::zero(); 2 * n];
                mul_full(&big(&a), &big(&b), &mut want);
                let got: Poly = words.into_iter().map(BigInt::from).collect();
                assert_eq!(got, want, "n = {n}, {bits} bits");
            }
        }
    }

    #[test]
    fn lehmer_bezout_matches_euclid() {
        // Coprime and non-coprime pairs from 1 to 4,000 bits, and the bottom of real descents,
        // against num-integer's extended Euclid.
        let mut rng = ChaCha20Rng::from_seed([7; 32]);
        let mut big = |bits: u64| {
            let mut v = BigInt::one();
            while v.bits() < bits {
                v = (v << 64) + BigInt::from(rng.next_u64());
            }
            let extra = v.bits() - bits;
            v >> extra
        };
        let mut pairs = Vec::new();
        for (ba, bb) in [
            (1, 1),
            (5, 70),
            (64, 64),
            (65, 130),
            (500, 499),
            (3100, 3090),
            (4000, 3),
        ] {
            for _ in 0..8 {
                pairs.push((big(ba), big(bb)));
            }
        }
        let common = big(100);
        pairs.push((&pairs[40].0 * &common, &pairs[40].1 * &common));
        for seed in 0..4u8 {
            let mut rng = ChaCha20Rng::from_seed([seed; 32]);
            let mut f: Poly = gauss_poly(&mut rng, 512)
                .iter()
                .map(|&x| BigInt::from(x))
                .collect();
            let mut g: Poly = gauss_poly(&mut rng, 512)
                .iter()
                .map(|&x| BigInt::from(x))
                .collect();
            while f.len() > 1 {
                (f, g) = (field_norm(&f), field_norm(&g));
            }
            pairs.push((f[0].clone(), g[0].clone()));
        }
        for (a, b) in pairs {
            let e = a.extended_gcd(&b);
            let want = e.gcd.is_one().then_some((e.x, e.y));
            assert_eq!(bezout(&a, &b), want, "{} and {} bits", a.bits(), b.bits());
        }
    }

    #[test]
    fn limb_reduce_matches_big_integer_reduce() {
        // The states NTRUSolve meets at every level where the limbs take over, from real (f, g).
        fn descend(f: &[BigInt], g: &[BigInt], seen: &mut usize) -> Option<(Poly, Poly)> {
            if f.len() == 1 {
                let (u, v) = bezout(&f[0], &g[0])?;
                let q = BigInt::from(Q);
                return Some((vec![-(&q * v)], vec![q * u]));
            }
            let (fp, gp) = descend(&field_norm(f), &field_norm(g), seen)?;
            let (mut big_f, mut big_g) = (lift(&fp, g), lift(&gp, f));
            if f.len() <= LIMB_REDUCE_MAX_N {
                let (mut want_f, mut want_g) = (big_f.clone(), big_g.clone());
                let b = FgTop::new(f, g);
                let ok = reduce_rounds(&b, &mut want_f, &mut want_g, REDUCE_ROUNDS);
                assert_eq!(
                    reduce_limbs(&b, &mut big_f, &mut big_g),
                    ok,
                    "n = {}",
                    f.len()
                );
                assert_eq!((&big_f, &big_g), (&want_f, &want_g), "n = {}", f.len());
                *seen += 1;
            } else {
                assert!(reduce(f, g, &mut big_f, &mut big_g));
            }
            Some((big_f, big_g))
        }
        let mut seen = 0;
        for seed in 0..60u8 {
            let n = if seed % 2 == 0 { 512 } else { 1024 };
            let mut rng = ChaCha20Rng::from_seed([seed; 32]);
            let f: Poly = gauss_poly(&mut rng, n)
                .iter()
                .map(|&x| BigInt::from(x))
                .collect();
            let g: Poly = gauss_poly(&mut rng, n)
                .iter()
                .map(|&x| BigInt::from(x))
                .collect();
            descend(&f, &g, &mut seen);
        }
        assert!(seen >= 10, "{seen}");
    }

    #[test]
    fn limb_arithmetic_matches_big_integers() {
        let mut rng = ChaCha20Rng::from_seed([3; 32]);
        let mut big = |bits: u64| {
            let mut v = BigInt::one();
            while v.bits() < bits + 1 {
                v = (v << 64) + BigInt::from(rng.next_u64());
            }
            let extra = v.bits() - bits;
            let v = v >> extra;
            if rng.next_u64() & 1 == 0 {
                -v
            } else {
                v
            }
        };
        // Bit lengths, at the edges of two's complement (powers of two, either sign).
        let p = |e: u32| BigInt::one() << e;
        let mut edge: Poly = vec![BigInt::zero(), BigInt::one(), -BigInt::one()];
        for e in [1, 31, 32, 33, 63, 64, 200] {
            edge.extend([p(e), -p(e), p(e) - 1, -p(e) + 1, -p(e) - 1]);
        }
        edge.extend((0..20).map(|i| big(1 + 17 * i)));
        for x in &edge {
            assert_eq!(
                Limbs::new(std::slice::from_ref(x), 12).max_bits(),
                x.bits(),
                "{x}"
            );
            let mut back = vec![BigInt::zero()];
            Limbs::new(std::slice::from_ref(x), 12).store(&mut back);
            assert_eq!(&back[0], x);
        }
        // F - (a k mod x^n + 1) 2^shift, k small and at the extremes of i64.
        for n in [2usize, 8, 32] {
            for (kind, shift) in [(0, 0u64), (0, 95), (1, 31), (1, 200), (2, 64)] {
                let a: Poly = (0..n).map(|_| big(300)).collect();
                let f: Poly = (0..n).map(|_| big(700)).collect();
                let k: Vec<i64> = (0..n)
                    .map(|i| match kind {
                        0 => big(30).to_i64().unwrap(),
                        1 => [i64::MIN, i64::MAX, -5][i % 3],
                        _ => big(40).to_i64().unwrap(),
                    })
                    .collect();
                let kb: Poly = k.iter().map(|&x| BigInt::from(x)).collect();
                let ak = mul_negacyclic(&a, &kb);
                let want: Poly = f.iter().zip(&ak).map(|(x, y)| x - (y << shift)).collect();
                let mut lf = Limbs::new(&f, 40);
                lf.sub_mul_shift(&Limbs::new(&a, 40), &k, shift, &mut vec![0; 40]);
                let mut got = vec![BigInt::zero(); n];
                lf.store(&mut got);
                assert_eq!(got, want, "n = {n}, kind {kind}, shift {shift}");
            }
        }
    }

    /// The AVX2 build of the CDF ranking counts what the portable one does, and both count what
    /// a comparison with each table entry says, at and around every entry.
    #[test]
    #[allow(unsafe_code)]
    fn cdf_rank_builds_agree_at_the_table_entries() {
        let cdf = gauss_cdf();
        let mut u: Vec<i64> = cdf
            .iter()
            .flat_map(|&c| [c as i64 - 1, c as i64, c as i64 + 1])
            .collect();
        u.extend([0, i64::MAX]);
        let mut rng = ChaCha20Rng::from_seed([5; 32]);
        u.extend((0..100).map(|_| (rng.next_u64() >> 1) as i64));
        let want: Vec<i64> = u
            .iter()
            .map(|&x| cdf.iter().filter(|&&c| x as u64 >= c).count() as i64)
            .collect();
        let mut portable = vec![0i64; u.len()];
        cdf_rank_portable(&u, &mut portable);
        assert_eq!(portable, want);
        #[cfg(target_arch = "x86_64")]
        if modq::has_avx2() {
            let mut avx2 = vec![0i64; u.len()];
            // SAFETY: the CPU has AVX2 (checked just above).
            unsafe { cdf_rank_avx2(&u, &mut avx2) };
            assert_eq!(avx2, want);
        }
    }

    #[test]
    fn karatsuba_matches_schoolbook() {
        let a: Poly = (0..64).map(|i| BigInt::from(i * 7 - 100)).collect();
        let b: Poly = (0..64).map(|i| BigInt::from(i * i - 50)).collect();
        let mut x = vec![BigInt::zero(); 128];
        let mut y = vec![BigInt::zero(); 128];
        mul_full(&a, &b, &mut x);
        mul_full_school(&a, &b, &mut y);
        assert_eq!(x, y);
    }

    #[test]
    fn ntru_equation_holds() {
        for level in Level::ALL {
            let k = ntru_gen(level, [level.logn() as u8; 32]);
            let w = |v: &[i8]| v.iter().map(|&x| x as i32).collect::<Vec<i32>>();
            let fg = negacyclic_i64(&w(&k.f), &w(&k.big_g));
            let gf = negacyclic_i64(&w(&k.g), &w(&k.big_f));
            assert_eq!(fg[0] - gf[0], Q as i64);
            assert!(fg[1..].iter().zip(&gf[1..]).all(|(a, b)| a == b));
            let (mut h, big_g) = complete_private(&k.f, &k.g, &k.big_f).unwrap();
            modq::intt(&mut h);
            assert_eq!((h, big_g), (k.h, k.big_g));
        }
    }
}
