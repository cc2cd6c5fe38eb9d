//! Arithmetic in Z_q[x]/(x^n + 1), q = 12289, through the number-theoretic transform (spec §3.12,
//! verification; and keygen's h = g/f mod q, §3.8.2).
//!
//! Coefficients are `u32` in [0, q). All operations here are constant-time except [`inverse_ntt_form`]'s
//! zero test, whose outcome (is f invertible) is public in the sense that a failing f is discarded.

use crate::params::Q;

/// Modular exponentiation, usable in constant tables.
const fn pow_mod(mut b: u32, mut e: u32) -> u32 {
    let mut r = 1u32;
    b %= Q;
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % Q;
        }
        b = b * b % Q;
        e >>= 1;
    }
    r
}

const fn bitrev10(x: usize) -> usize {
    let mut r = 0;
    let mut i = 0;
    while i < 10 {
        r |= ((x >> i) & 1) << (9 - i);
        i += 1;
    }
    r
}

/// ZETAS[k] = psi^{bitrev_10(k)}: the prefix of length n serves the transform of size n, because
/// bitrev_10(k) = (1024/n) * bitrev_{log n}(k) for k < n.
const ZETAS: [u32; 1024] = {
    // 7 has order exactly 2048 mod q: a primitive 2n-th root of unity for n = 1024.
    let psi = 7;
    let mut t = [0u32; 1024];
    let mut k = 0;
    while k < 1024 {
        t[k] = pow_mod(psi, bitrev10(k) as u32);
        k += 1;
    }
    t
};

/// Montgomery radix R = 2^16: twiddles are stored as z R mod q, so that [`mont_mul`] by them yields
/// a plain product.
const R_MOD_Q: u32 = (1 << 16) % Q;

/// -q^{-1} mod 2^16.
const QINV_NEG: u32 = {
    // Newton iteration for q^{-1} mod 2^16, then negate.
    let mut x: u32 = 1;
    let mut i = 0;
    while i < 5 {
        x = x.wrapping_mul(2u32.wrapping_sub(Q.wrapping_mul(x))) & 0xFFFF;
        i += 1;
    }
    (0x10000 - x) & 0xFFFF
};

const ZETAS_M: [u32; 1024] = {
    let mut t = [0u32; 1024];
    let mut k = 0;
    while k < 1024 {
        t[k] = ZETAS[k] * R_MOD_Q % Q;
        k += 1;
    }
    t
};

const ZETAS_INV_M: [u32; 1024] = {
    let mut t = [0u32; 1024];
    let mut k = 0;
    while k < 1024 {
        t[k] = pow_mod(ZETAS[k], Q - 2) * R_MOD_Q % Q;
        k += 1;
    }
    t
};

/// Montgomery product a b R^{-1} mod q for a, b < q, in [0, q). Only 32-bit multiplications, masks
/// and shifts, so the butterfly loops vectorise.
#[inline(always)]
fn mont_mul(a: u32, b: u32) -> u32 {
    let p = a * b; // < 2^28
    let m = (p.wrapping_mul(QINV_NEG)) & 0xFFFF;
    let t = (p + m * Q) >> 16; // < 2q
    t - (Q & 0u32.wrapping_sub((t >= Q) as u32))
}

#[inline(always)]
fn mulq(a: u32, b: u32) -> u32 {
    a * b % Q
}

#[inline(always)]
fn addq(a: u32, b: u32) -> u32 {
    let s = a + b;
    s - (Q & 0u32.wrapping_sub((s >= Q) as u32))
}

#[inline(always)]
fn subq(a: u32, b: u32) -> u32 {
    addq(a, Q - b)
}

/// In-place forward NTT: coefficients to evaluations at the 2n-th roots psi^(2 bitrev(i) + 1).
pub fn ntt(a: &mut [u32]) {
    let n = a.len();
    let mut len = n / 2;
    let mut k = 1;
    while len >= 1 {
        let mut start = 0;
        while start < n {
            let z = ZETAS_M[k];
            k += 1;
            let (lo, hi) = a[start..start + 2 * len].split_at_mut(len);
            for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                let t = mont_mul(z, *y);
                *y = subq(*x, t);
                *x = addq(*x, t);
            }
            start += 2 * len;
        }
        len /= 2;
    }
}

/// In-place inverse NTT (including the division by n).
pub fn intt(a: &mut [u32]) {
    let n = a.len();
    let mut len = 1;
    let mut m = n / 2;
    while len < n {
        for (b, start) in (0..n).step_by(2 * len).enumerate() {
            let zi = ZETAS_INV_M[m + b];
            let (lo, hi) = a[start..start + 2 * len].split_at_mut(len);
            for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                let (u, v) = (*x, *y);
                *x = addq(u, v);
                *y = mont_mul(subq(u, v), zi);
            }
        }
        len *= 2;
        m /= 2;
    }
    let ninv = pow_mod(n as u32, Q - 2) * R_MOD_Q % Q;
    for x in a.iter_mut() {
        *x = mont_mul(*x, ninv);
    }
}

/// Maps a signed integer to [0, q).
#[inline]
pub fn from_signed(x: i32) -> u32 {
    x.rem_euclid(Q as i32) as u32
}

/// Maps [0, q) to the centred representative in (-q/2, q/2].
#[inline]
pub fn center(x: u32) -> i32 {
    let x = x as i32;
    x - ((Q as i32) & -((x > (Q as i32) / 2) as i32))
}

/// Pointwise product of two NTT-domain polynomials, into `a`.
pub fn mul_ntt(a: &mut [u32], b: &[u32]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = mulq(*x, y);
    }
}

/// a * b in Z_q[x]/(x^n + 1), both in coefficient form.
#[cfg(test)]
pub fn mul(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut x = a.to_vec();
    let mut y = b.to_vec();
    ntt(&mut x);
    ntt(&mut y);
    mul_ntt(&mut x, &y);
    intt(&mut x);
    x
}

/// Inverts an NTT-domain polynomial in place; returns false (leaving `a` unspecified) when some
/// evaluation is zero, i.e. when the polynomial is not invertible mod q.
///
/// Montgomery's batch inversion: one exponentiation and three products per value.
pub fn inverse_ntt_form(a: &mut [u32]) -> bool {
    let n = a.len();
    let mut prefix = vec![0u32; n];
    let mut acc = 1u32;
    for (p, &x) in prefix.iter_mut().zip(a.iter()) {
        acc = mulq(acc, x);
        *p = acc;
    }
    if acc == 0 {
        return false;
    }
    let mut inv = pow_mod(acc, Q - 2);
    for i in (0..n).rev() {
        let before = if i == 0 { 1 } else { prefix[i - 1] };
        let x = a[i];
        a[i] = mulq(inv, before);
        inv = mulq(inv, x);
    }
    true
}

/// num / den in Z_q[x]/(x^n + 1) for small signed polynomials, in the NTT domain; `None` if `den` is
/// not invertible.
pub fn div_small(num: &[i32], den: &[i32]) -> Option<Vec<u32>> {
    let mut a: Vec<u32> = num.iter().map(|&x| from_signed(x)).collect();
    let mut b: Vec<u32> = den.iter().map(|&x| from_signed(x)).collect();
    ntt(&mut a);
    ntt(&mut b);
    if !inverse_ntt_form(&mut b) {
        return None;
    }
    mul_ntt(&mut a, &b);
    Some(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schoolbook(a: &[u32], b: &[u32]) -> Vec<u32> {
        let w = |v: &[u32]| v.iter().map(|&x| x as i64).collect::<Vec<i64>>();
        crate::testutil::negacyclic_schoolbook(&w(a), &w(b))
            .iter()
            .map(|&x| x.rem_euclid(Q as i64) as u32)
            .collect()
    }

    #[test]
    fn montgomery_product() {
        assert_eq!((Q * ((QINV_NEG) ^ 0xFFFF).wrapping_add(1)) & 0xFFFF, 1);
        for a in (0..Q).step_by(97) {
            for b in (0..Q).step_by(101) {
                assert_eq!(mont_mul(a, b * R_MOD_Q % Q), a * b % Q);
            }
        }
    }

    #[test]
    fn psi_has_order_2048() {
        let psi = ZETAS[512]; // bitrev10(512) = 1
        assert_eq!(pow_mod(psi, 1024), Q - 1);
    }

    #[test]
    fn ntt_multiplication_matches_schoolbook() {
        for &n in &[2usize, 8, 64, 512, 1024] {
            let a: Vec<u32> = (0..n as u32).map(|i| (i * 7919 + 13) % Q).collect();
            let b: Vec<u32> = (0..n as u32).map(|i| (i * i * 31 + 5) % Q).collect();
            assert_eq!(mul(&a, &b), schoolbook(&a, &b), "n = {n}");
            let mut c = a.clone();
            ntt(&mut c);
            intt(&mut c);
            assert_eq!(c, a);
        }
    }

    #[test]
    fn division_inverts_multiplication() {
        let f: Vec<i32> = (0..512).map(|i| (i * 37 % 11) - 5).collect();
        let g: Vec<i32> = (0..512).map(|i| (i * 17 % 7) - 3).collect();
        let mut h = div_small(&g, &f).expect("invertible");
        intt(&mut h);
        let fq: Vec<u32> = f.iter().map(|&x| from_signed(x)).collect();
        let back = mul(&h, &fq);
        let gq: Vec<u32> = g.iter().map(|&x| from_signed(x)).collect();
        assert_eq!(back, gq);
        assert_eq!(center(Q - 1), -1);
        assert_eq!(center(Q / 2), 6144);
        assert_eq!(center(Q / 2 + 1), -6144);
    }
}
