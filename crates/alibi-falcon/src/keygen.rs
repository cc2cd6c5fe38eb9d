//! Key generation: NTRUGen (spec §3.8.2, Algorithm 5) with NTRUSolve (Algorithm 6) by field-norm
//! recursion over big integers, and Babai size reduction (Reduce, Algorithm 7) in floating point.
//!
//! Key generation is not constant-time: the big-integer arithmetic of NTRUSolve takes time that depends
//! on the operand sizes. Its branches only ever reveal properties of discarded candidates or the
//! magnitude of intermediate resultants. The small candidate polynomials are wiped after use; the
//! big-integer intermediates of NTRUSolve are not (num-bigint offers no zeroization).

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

/// One coefficient of f or g: a sum of 1024/n samples of D_{Z, sigma_1024}, which has standard
/// deviation sigma_{f,g} = 1.17 sqrt(q / 2n) (Algorithm 5, line 3).
fn gauss_coeff(rng: &mut ChaCha20Rng, n: usize) -> i32 {
    let cdf = gauss_cdf();
    let mut s = 0i32;
    for _ in 0..1024 / n {
        let u = rng.next_u64() >> 1;
        // z = -K + #{i : u >= cdf[i]}, scanning the whole table.
        let mut z = -GAUSS_K;
        for &c in cdf.iter() {
            z += (u >= c) as i32;
        }
        s += z;
    }
    s
}

/// NTRUGen: a fresh key basis for `level`.
pub fn ntru_gen(level: Level, seed: [u8; 32]) -> NtruKeys {
    let n = level.n();
    let mut rng = ChaCha20Rng::from_seed(seed);
    let lim = 1i32 << (level.fg_bits() - 1);
    loop {
        // Candidates are secret until rejected: wiped on every path.
        let f: Zeroizing<Vec<i32>> =
            Zeroizing::new((0..n).map(|_| gauss_coeff(&mut rng, n)).collect());
        let g: Zeroizing<Vec<i32>> =
            Zeroizing::new((0..n).map(|_| gauss_coeff(&mut rng, n)).collect());
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
    let n = f.len();
    if n == 1 {
        let two = BigInt::from(2);
        let num: BigInt = &big_f[0] * &f[0] + &big_g[0] * &g[0];
        let den: BigInt = &f[0] * &f[0] + &g[0] * &g[0];
        let k: BigInt = (&num * &two + &den).div_floor(&(&den * &two));
        big_f[0] -= &k * &f[0];
        big_g[0] -= &k * &g[0];
        return true;
    }
    let sf = max_bits(f, g).saturating_sub(53);
    let fa = top_fft(f, sf);
    let ga = top_fft(g, sf);
    let mut den = vec![0.0; n];
    fft::norm2_sum(&mut den, &fa, &ga);
    let mut num = vec![0.0; n];
    for _ in 0..4096 {
        let sfb = max_bits(big_f, big_g).saturating_sub(53);
        let fb = top_fft(big_f, sfb);
        let gb = top_fft(big_g, sfb);
        fft::mul_adj_sum(&mut num, &fb, &fa, &gb, &ga);
        fft::div_selfadj(&mut num, &den);
        fft::ifft(&mut num);
        // F / f ~ num 2^e.
        let e = sfb as i64 - sf as i64;
        let shift = (e - 30).max(0) as u64;
        let scale = 2f64.powi((e - shift as i64).clamp(-1100, 30) as i32);
        let k: Vec<i64> = num.iter().map(|x| (x * scale).round() as i64).collect();
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

/// NTRUSolve (Algorithm 6): (F, G) with f G - g F = q, recursively through field norms.
fn solve_rec(f: &[BigInt], g: &[BigInt]) -> Option<(Poly, Poly)> {
    if f.len() == 1 {
        let e = f[0].extended_gcd(&g[0]);
        if !e.gcd.is_one() {
            return None;
        }
        // u f + v g = 1, so F = -q v and G = q u satisfy f G - g F = q.
        let q = BigInt::from(Q);
        return Some((vec![-(&q * e.y)], vec![q * e.x]));
    }
    let (fp, gp) = solve_rec(&field_norm(f), &field_norm(g))?;
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
    let fb: Poly = f.iter().map(|&x| BigInt::from(x)).collect();
    let gb: Poly = g.iter().map(|&x| BigInt::from(x)).collect();
    let (big_f, big_g) = solve_rec(&fb, &gb)?;
    let small = |p: &Poly| -> Option<Vec<i32>> {
        p.iter()
            .map(|x| x.to_i32().filter(|v| v.abs() <= 127))
            .collect()
    };
    let big_f = small(&big_f)?;
    let big_g = small(&big_g)?;
    Some((big_f, big_g))
}

/// h = g / f mod q and G = h F mod q, centred: the secret key stores only f, g, F (spec §3.11.5), and
/// f G - g F = q gives G = g F / f mod q. `None` if f is not invertible mod q or G does not fit in
/// [-127, 127].
pub fn complete_private(f: &[i8], g: &[i8], big_f: &[i8]) -> Option<(Vec<u16>, Vec<i8>)> {
    let gi: Vec<i32> = g.iter().map(|&x| x as i32).collect();
    let fi: Vec<i32> = f.iter().map(|&x| x as i32).collect();
    let mut h = modq::div_small(&gi, &fi)?;
    let mut big_g: Vec<u16> = big_f.iter().map(|&x| modq::from_signed(x as i32)).collect();
    modq::ntt(&mut big_g);
    modq::mul_ntt(&mut big_g, &h);
    modq::intt(&mut big_g);
    modq::intt(&mut h);
    let big_g = big_g
        .iter()
        .map(|&x| {
            let c = modq::center(x);
            (-127..=127).contains(&c).then_some(c as i8)
        })
        .collect::<Option<Vec<i8>>>()?;
    Some((h, big_g))
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
            assert_eq!(
                complete_private(&k.f, &k.g, &k.big_f).unwrap(),
                (k.h, k.big_g)
            );
        }
    }
}
