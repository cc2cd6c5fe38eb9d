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

const ZETAS_INV: [u32; 1024] = {
    let mut t = [0u32; 1024];
    let mut k = 0;
    while k < 1024 {
        t[k] = pow_mod(ZETAS[k], Q - 2);
        k += 1;
    }
    t
};

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
            let z = ZETAS[k];
            k += 1;
            for j in start..start + len {
                let t = mulq(z, a[j + len]);
                a[j + len] = subq(a[j], t);
                a[j] = addq(a[j], t);
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
            let zi = ZETAS_INV[m + b];
            for j in start..start + len {
                let x = a[j];
                let y = a[j + len];
                a[j] = addq(x, y);
                a[j + len] = mulq(subq(x, y), zi);
            }
        }
        len *= 2;
        m /= 2;
    }
    let ninv = pow_mod(n as u32, Q - 2);
    for x in a.iter_mut() {
        *x = mulq(*x, ninv);
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
pub fn inverse_ntt_form(a: &mut [u32]) -> bool {
    let mut ok = true;
    for x in a.iter_mut() {
        ok &= *x != 0;
        *x = pow_mod(*x, Q - 2);
    }
    ok
}

/// num / den in Z_q[x]/(x^n + 1) for small signed polynomials; `None` if `den` is not invertible.
pub fn div_small(num: &[i32], den: &[i32]) -> Option<Vec<u32>> {
    let mut a: Vec<u32> = num.iter().map(|&x| from_signed(x)).collect();
    let mut b: Vec<u32> = den.iter().map(|&x| from_signed(x)).collect();
    ntt(&mut a);
    ntt(&mut b);
    if !inverse_ntt_form(&mut b) {
        return None;
    }
    mul_ntt(&mut a, &b);
    intt(&mut a);
    Some(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schoolbook(a: &[u32], b: &[u32]) -> Vec<u32> {
        let n = a.len();
        let mut r = vec![0i64; n];
        for i in 0..n {
            for j in 0..n {
                let p = a[i] as i64 * b[j] as i64;
                if i + j < n {
                    r[i + j] += p;
                } else {
                    r[i + j - n] -= p;
                }
            }
        }
        r.iter().map(|&x| x.rem_euclid(Q as i64) as u32).collect()
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
        let h = div_small(&g, &f).expect("invertible");
        let fq: Vec<u32> = f.iter().map(|&x| from_signed(x)).collect();
        let back = mul(&h, &fq);
        let gq: Vec<u32> = g.iter().map(|&x| from_signed(x)).collect();
        assert_eq!(back, gq);
        assert_eq!(center(Q - 1), -1);
        assert_eq!(center(Q / 2), 6144);
        assert_eq!(center(Q / 2 + 1), -6144);
    }
}
