//! Arithmetic in Z_p\[x\]/(x^512 + 1) through the number-theoretic transform.
//!
//! BAT-257 computes modulo three primes (the paper's Decode, Algorithm 3.2): the public modulus
//! q = 257, the auxiliary q' = 64513 of the decoding vector w, and a third prime, here 12289, in
//! which the final combination q q' Q s' is told apart (the artifact uses 769; any odd prime other
//! than q and q' works, since only the sign of each coefficient is needed).
//!
//! [`Ntt<P, L>`] runs `L` Cooley-Tukey layers of the negacyclic transform, which needs a primitive
//! 2^(L+1)-th root of unity mod P. 12289 and 64513 have the 1024-th roots of a full transform
//! (L = 9); 257 - 1 = 2^8 has only the 256-th, so mod 257 the transform stops after 7 layers and
//! leaves 128 blocks of 4 coefficients, each a residue modulo x^4 - gamma_i.
//!
//! Every operation is branch-free in the data: reductions are `%` by a compile-time constant, which
//! the compiler turns into multiplications, and selections use masks.

use crate::N;

/// q', the auxiliary modulus of w and of Decode.
pub(crate) const QP: u32 = 64513;
/// The third prime, for the final sign test of decryption.
pub(crate) const P3: u32 = 12289;

/// The transform modulo q = 257 (7 layers, blocks of 4).
pub(crate) type Ntt257 = Ntt<257, 7>;
/// The transform modulo q' = 64513 (9 layers: pointwise products).
pub(crate) type NttQp = Ntt<QP, 9>;
/// The transform modulo 12289 (9 layers).
pub(crate) type Ntt3 = Ntt<P3, 9>;

/// The largest block left by the transforms used here (4, mod 257).
const MAX_BLOCK: usize = 4;

/// A polynomial of Z_p\[x\]/(x^512 + 1), coefficients in [0, p).
pub(crate) type Poly = [u32; N];

const fn pow_mod(b: u32, mut e: u32, p: u32) -> u32 {
    let mut r: u64 = 1;
    let mut x = b as u64 % p as u64;
    while e > 0 {
        if e & 1 == 1 {
            r = r * x % p as u64;
        }
        x = x * x % p as u64;
        e >>= 1;
    }
    r as u32
}

const fn bitrev(x: usize, bits: u32) -> usize {
    let mut r = 0;
    let mut i = 0;
    while i < bits {
        r |= ((x >> i) & 1) << (bits - 1 - i);
        i += 1;
    }
    r
}

/// A primitive `order`-th root of unity mod p (`order` a power of two dividing p - 1).
const fn root_of_unity(p: u32, order: u32) -> u32 {
    let mut g = 2;
    loop {
        let z = pow_mod(g, (p - 1) / order, p);
        if pow_mod(z, order / 2, p) == p - 1 {
            return z;
        }
        g += 1;
    }
}

/// The twiddles psi^bitrev_L(k), k < 2^L, psi a primitive 2^(L+1)-th root; and their inverses.
const fn zetas(p: u32, layers: u32, inverse: bool) -> [u32; N] {
    let psi = root_of_unity(p, 1 << (layers + 1));
    let mut t = [0u32; N];
    let mut k = 0;
    while k < (1 << layers) {
        let z = pow_mod(psi, bitrev(k, layers) as u32, p);
        t[k] = if inverse { pow_mod(z, p - 2, p) } else { z };
        k += 1;
    }
    t
}

/// The root gamma_i = psi^(2 bitrev_L(i) + 1) of block i: after the L layers, block i holds the
/// residue of the polynomial modulo x^B - gamma_i (B = 512 / 2^L).
const fn block_roots(p: u32, layers: u32) -> [u32; N] {
    let psi = root_of_unity(p, 1 << (layers + 1));
    let mut t = [0u32; N];
    let mut i = 0;
    while i < (1 << layers) {
        t[i] = pow_mod(psi, 2 * bitrev(i, layers) as u32 + 1, p);
        i += 1;
    }
    t
}

/// The negacyclic NTT with `L` layers modulo the prime `P` (< 2^16).
pub(crate) struct Ntt<const P: u32, const L: u32>;

impl<const P: u32, const L: u32> Ntt<P, L> {
    const BLOCK: usize = N >> L;
    const ZETAS: [u32; N] = zetas(P, L, false);
    const ZETAS_INV: [u32; N] = zetas(P, L, true);
    const GAMMA: [u32; N] = block_roots(P, L);
    /// 2^-L mod P, the scale of the inverse transform.
    const SCALE: u32 = pow_mod(pow_mod(2, L, P), P - 2, P);

    /// a b mod P for a, b < P (the product fits in 32 bits: P <= 65535).
    #[inline(always)]
    pub(crate) fn mul(a: u32, b: u32) -> u32 {
        const { assert!(P < 1 << 16) };
        a * b % P
    }

    /// a + b mod P for a, b < P: one conditional subtraction, by mask.
    #[inline(always)]
    pub(crate) fn add(a: u32, b: u32) -> u32 {
        let s = a + b;
        let over = ((s.wrapping_sub(P) as i32) >> 31) as u32;
        s.wrapping_sub(P & !over)
    }

    /// a - b mod P for a, b < P.
    #[inline(always)]
    pub(crate) fn sub(a: u32, b: u32) -> u32 {
        let d = a.wrapping_sub(b);
        let under = ((d as i32) >> 31) as u32;
        d.wrapping_add(P & under)
    }

    /// The residue of a signed integer, |x| < 2^40.
    #[inline(always)]
    pub(crate) fn from_i64(x: i64) -> u32 {
        ((x + ((P as i64) << 40)) as u64 % P as u64) as u32
    }

    /// The representative in [-(P-1)/2, (P-1)/2] of x in [0, P).
    #[inline(always)]
    pub(crate) fn centered(x: u32) -> i32 {
        // The mask is all-ones when x > P/2.
        let over = ((P / 2).wrapping_sub(x) as i32) >> 31;
        x as i32 - (P as i32 & over)
    }

    /// The residues of small signed coefficients.
    pub(crate) fn from_signed<T: Copy + Into<i64>>(a: &[T; N]) -> Poly {
        core::array::from_fn(|i| Self::from_i64(a[i].into()))
    }

    /// Forward transform, in place. Each butterfly group works on two disjoint halves, so that
    /// the compiler vectorises the inner loop.
    #[inline(always)]
    pub(crate) fn forward(a: &mut Poly) {
        let mut k = 1;
        let mut len = N / 2;
        while len >= Self::BLOCK {
            for chunk in a.chunks_exact_mut(2 * len) {
                let z = Self::ZETAS[k];
                k += 1;
                let (lo, hi) = chunk.split_at_mut(len);
                for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                    let t = Self::mul(z, *y);
                    *y = Self::sub(*x, t);
                    *x = Self::add(*x, t);
                }
            }
            len /= 2;
        }
    }

    /// Inverse transform, in place (Gentleman-Sande, undoing [`Self::forward`] layer by layer).
    #[inline(always)]
    pub(crate) fn inverse(a: &mut Poly) {
        let mut len = Self::BLOCK;
        while len <= N / 2 {
            let first = N / (2 * len);
            for (b, chunk) in a.chunks_exact_mut(2 * len).enumerate() {
                let z = Self::ZETAS_INV[first + b];
                let (lo, hi) = chunk.split_at_mut(len);
                for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                    let (u, v) = (*x, *y);
                    *x = Self::add(u, v);
                    *y = Self::mul(z, Self::sub(u, v));
                }
            }
            len *= 2;
        }
        for x in a.iter_mut() {
            *x = Self::mul(*x, Self::SCALE);
        }
    }

    /// The transform of a copy.
    #[inline(always)]
    pub(crate) fn ntt(a: &Poly) -> Poly {
        let mut t = *a;
        Self::forward(&mut t);
        t
    }

    /// The product of two transformed polynomials (block by block, modulo x^B - gamma_i).
    #[inline(always)]
    pub(crate) fn mul_ntt(a: &Poly, b: &Poly) -> Poly {
        const { assert!(N >> L <= MAX_BLOCK) };
        let bl = Self::BLOCK;
        let mut r = [0u32; N];
        if bl == 1 {
            for ((d, &x), &y) in r.iter_mut().zip(a).zip(b) {
                *d = Self::mul(x, y);
            }
            return r;
        }
        for (i, ((x, y), d)) in a
            .chunks(bl)
            .zip(b.chunks(bl))
            .zip(r.chunks_mut(bl))
            .enumerate()
        {
            d.copy_from_slice(&Self::block_mul(x, y, Self::GAMMA[i])[..bl]);
        }
        r
    }

    /// The product of two polynomials in normal representation (the tests' reference).
    #[cfg(test)]
    pub(crate) fn mul_poly(a: &Poly, b: &Poly) -> Poly {
        let mut r = Self::mul_ntt(&Self::ntt(a), &Self::ntt(b));
        Self::inverse(&mut r);
        r
    }

    /// x^(P-2) = x^-1 (0 for 0); the exponent is public, so the square-and-multiply is fixed.
    fn invert(x: u32) -> u32 {
        let mut r = 1;
        let mut e = P - 2;
        let mut b = x;
        while e > 0 {
            if e & 1 == 1 {
                r = Self::mul(r, b);
            }
            b = Self::mul(b, b);
            e >>= 1;
        }
        r
    }

    /// The inverse of a transformed polynomial, and whether it exists (every block invertible).
    /// Branch-free: in each block, multiplying a(x) by a(-x) leaves a polynomial in x^2, and
    /// repeating reaches a constant c; the inverse is the product of the conjugates times c^-1.
    pub(crate) fn inv_ntt(a: &Poly) -> (Poly, bool) {
        const { assert!(N >> L <= MAX_BLOCK) };
        let bl = Self::BLOCK;
        let mut r = [0u32; N];
        let mut all_nonzero = 1u32;
        for (i, (src, dst)) in a.chunks(bl).zip(r.chunks_mut(bl)).enumerate() {
            let gamma = Self::GAMMA[i];
            let mut cur = [0u32; MAX_BLOCK];
            cur[..bl].copy_from_slice(src);
            let mut acc = [0u32; MAX_BLOCK];
            acc[0] = 1;
            let mut step = 1;
            while step < bl {
                // conj(x) = cur(-x) in the variable x^step: negate the odd multiples of step.
                let mut conj = cur;
                for (j, c) in conj[..bl].iter_mut().enumerate() {
                    if (j / step) % 2 == 1 {
                        *c = Self::sub(0, *c);
                    }
                }
                acc = Self::block_mul(&acc[..bl], &conj[..bl], gamma);
                cur = Self::block_mul(&cur[..bl], &conj[..bl], gamma);
                step *= 2;
            }
            let c = cur[0];
            all_nonzero &= (c | c.wrapping_neg()) >> 31;
            let cinv = Self::invert(c);
            for (d, &x) in dst.iter_mut().zip(&acc[..bl]) {
                *d = Self::mul(x, cinv);
            }
        }
        (r, all_nonzero == 1)
    }

    /// The product of two blocks of length bl = x.len() modulo x^bl - gamma.
    #[inline(always)]
    fn block_mul(x: &[u32], y: &[u32], gamma: u32) -> [u32; MAX_BLOCK] {
        let bl = x.len();
        let mut out = [0u32; MAX_BLOCK];
        for (u, &xu) in x.iter().enumerate() {
            for (v, &yv) in y.iter().enumerate() {
                let p = Self::mul(xu, yv);
                if u + v < bl {
                    out[u + v] = Self::add(out[u + v], p);
                } else {
                    out[u + v - bl] = Self::add(out[u + v - bl], Self::mul(gamma, p));
                }
            }
        }
        out
    }

    /// a * ones mod x^n + 1, ones = 1 + x + ... + x^(n-1): coefficient k is
    /// (a_0 + ... + a_k) - (a_(k+1) + ... + a_(n-1)).
    #[inline(always)]
    pub(crate) fn mul_ones(a: &Poly) -> Poly {
        let total = a.iter().fold(0u32, |s, &x| Self::add(s, x));
        let mut prefix = 0u32;
        core::array::from_fn(|k| {
            prefix = Self::add(prefix, a[k]);
            Self::sub(Self::add(prefix, prefix), total)
        })
    }
}

/// Exact negacyclic product of integer polynomials, for key generation and key checks: through
/// the floating-point FFT (`alibi_falcon::fft`) when the operands are small enough for the rounded
/// result to be exact, bits(a) + bits(b) + 2 log2 n <= 42 (every product of key generation: w of
/// 17 bits times f or g, F or G times f or g), else schoolbook.
pub(crate) fn mul_exact(a: &[i64], b: &[i64]) -> Vec<i64> {
    let n = a.len();
    let bits = |v: &[i64]| {
        64 - v
            .iter()
            .map(|x| x.unsigned_abs())
            .max()
            .unwrap_or(0)
            .leading_zeros()
    };
    if n >= 2
        && n == b.len()
        && n.is_power_of_two()
        && bits(a) + bits(b) + 2 * n.trailing_zeros() <= 42
    {
        use alibi_falcon::fft;
        let mut fa: zeroize::Zeroizing<Vec<f64>> =
            zeroize::Zeroizing::new(a.iter().map(|&x| x as f64).collect());
        let mut fb: zeroize::Zeroizing<Vec<f64>> =
            zeroize::Zeroizing::new(b.iter().map(|&x| x as f64).collect());
        fft::fft(&mut fa);
        fft::fft(&mut fb);
        fft::mul(&mut fa, &fb);
        fft::ifft(&mut fa);
        return fa.iter().map(|&x| x.round() as i64).collect();
    }
    mul_schoolbook(a, b)
}

/// The schoolbook negacyclic product, exact for any size that fits i64.
pub(crate) fn mul_schoolbook(a: &[i64], b: &[i64]) -> Vec<i64> {
    let n = a.len();
    let mut r = vec![0i64; n];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            let k = i + j;
            if k < n {
                r[k] += x * y;
            } else {
                r[k - n] -= x * y;
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::{Rng, SeedableRng};

    fn random<const P: u32>(rng: &mut ChaCha20Rng) -> Poly {
        core::array::from_fn(|_| rng.next_u32() % P)
    }

    fn schoolbook<const P: u32>(a: &Poly, b: &Poly) -> Poly {
        let a: Vec<i64> = a.iter().map(|&x| x as i64).collect();
        let b: Vec<i64> = b.iter().map(|&x| x as i64).collect();
        let r = mul_exact(&a, &b);
        core::array::from_fn(|i| r[i].rem_euclid(P as i64) as u32)
    }

    fn check<const P: u32, const L: u32>() {
        let mut rng = ChaCha20Rng::seed_from_u64(P as u64);
        for _ in 0..5 {
            let (a, b) = (random::<P>(&mut rng), random::<P>(&mut rng));
            assert_eq!(Ntt::<P, L>::mul_poly(&a, &b), schoolbook::<P>(&a, &b));
            let mut t = a;
            Ntt::<P, L>::forward(&mut t);
            Ntt::<P, L>::inverse(&mut t);
            assert_eq!(t, a);
            let ones = [1u32; N];
            assert_eq!(Ntt::<P, L>::mul_ones(&a), schoolbook::<P>(&a, &ones));
        }
    }

    /// The FFT path of `mul_exact` at the largest operands it takes (bits(a) + bits(b) = 24 at
    /// n = 512), and at the key generation's shapes, against the schoolbook product.
    #[test]
    fn exact_products_match_schoolbook() {
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        for (ba, bb) in [(17u32, 5u32), (12, 12), (6, 5), (20, 4)] {
            for _ in 0..4 {
                let mut draw = |bits: u32| -> Vec<i64> {
                    let m = (1i64 << bits) - 1;
                    (0..N)
                        .map(|i| {
                            // Extremes included: every fourth coefficient at +-max.
                            let v = (rng.next_u64() as i64).rem_euclid(2 * m + 1) - m;
                            if i % 4 == 0 {
                                m * v.signum().max(1)
                            } else {
                                v
                            }
                        })
                        .collect()
                };
                let (a, b) = (draw(ba), draw(bb));
                assert_eq!(
                    mul_exact(&a, &b),
                    mul_schoolbook(&a, &b),
                    "{ba} + {bb} bits"
                );
            }
        }
    }

    #[test]
    fn ntt_matches_schoolbook() {
        check::<257, 7>();
        check::<QP, 9>();
        check::<P3, 9>();
    }

    #[test]
    fn inverse_mod_257() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let a = random::<257>(&mut rng);
        let (ai, ok) = Ntt257::inv_ntt(&Ntt257::ntt(&a));
        assert!(ok);
        let mut one = Ntt257::mul_ntt(&Ntt257::ntt(&a), &ai);
        Ntt257::inverse(&mut one);
        let mut expect = [0u32; N];
        expect[0] = 1;
        assert_eq!(one, expect);
        // x^4 - gamma_0 divides x^512 + 1, so (x^4 - gamma_0) has no inverse.
        let mut z = [0u32; N];
        z[4] = 1;
        z[0] = 257 - Ntt257::GAMMA[0];
        assert!(!Ntt257::inv_ntt(&Ntt257::ntt(&z)).1);
    }

    #[test]
    fn centered_and_signed() {
        assert_eq!(Ntt257::centered(0), 0);
        assert_eq!(Ntt257::centered(128), 128);
        assert_eq!(Ntt257::centered(129), -128);
        assert_eq!(Ntt257::centered(256), -1);
        assert_eq!(Ntt257::from_i64(-1), 256);
        assert_eq!(NttQp::from_i64(-(QP as i64) * 3 - 2), QP - 2);
    }
}
