//! Floating-point FFT over R[x]/(x^n + 1) (spec §3.7.1), in the split layout: a polynomial of degree n
//! becomes n/2 complex values, real parts in `[0, n/2)` and imaginary parts in `[n/2, n)`.
//!
//! Value `i` is the evaluation at psi^(2 bitrev(i) + 1), psi = e^{i pi / n}: one root of each conjugate
//! pair, so that a real polynomial is fully described. With that order, `split` and `merge` (spec
//! §3.7.2, Algorithms 1-2) pair the adjacent values 2u, 2u+1, which are the evaluations at w and -w.
//!
//! Floating-point arithmetic on f64 is constant-time on the targets we support (no subnormals arise in
//! these ranges); no branch or memory index here depends on the data.

use std::sync::OnceLock;

/// GM[k] = e^{i pi bitrev_10(k) / 1024} as (re, im). Its prefix of length n is the twiddle table of
/// the size-n transform (bitrev_10(k) = (1024 / n) bitrev_{log n}(k) for k < n).
fn gm() -> &'static [(f64, f64); 1024] {
    static GM: OnceLock<Box<[(f64, f64); 1024]>> = OnceLock::new();
    GM.get_or_init(|| {
        let mut t = Box::new([(0.0, 0.0); 1024]);
        for (k, e) in t.iter_mut().enumerate() {
            let r = (k as u32).reverse_bits() >> 22;
            let a = core::f64::consts::PI * r as f64 / 1024.0;
            *e = (a.cos(), a.sin());
        }
        t
    })
}

#[inline(always)]
fn cmul(ar: f64, ai: f64, br: f64, bi: f64) -> (f64, f64) {
    (ar * br - ai * bi, ar * bi + ai * br)
}

/// Forward FFT in place (`f.len()` = n = 2^logn, n >= 2).
#[inline(always)]
pub fn fft(f: &mut [f64]) {
    let n = f.len();
    let hn = n / 2;
    let gm = gm();
    // The first butterfly layer (twiddle i) is the identity in the split layout.
    let (re, im) = f.split_at_mut(hn);
    let mut len = hn / 2;
    while len >= 1 {
        let tw = &gm[n / (2 * len)..];
        // The two last layers with their block length a constant, so that the compiler
        // vectorizes across blocks rather than along blocks of one or two butterflies.
        match len {
            1 => fft_layer(re, im, 1, tw),
            2 => fft_layer(re, im, 2, tw),
            _ => fft_layer(re, im, len, tw),
        }
        len /= 2;
    }
}

/// One layer of [`fft`]: the butterfly (x, h) -> (x + h z, x - h z).
#[inline(always)]
fn fft_layer(re: &mut [f64], im: &mut [f64], len: usize, tw: &[(f64, f64)]) {
    layer(re, im, len, tw, |[xr, xi, hr, hi], (zr, zi)| {
        let (yr, yi) = cmul(*hr, *hi, zr, zi);
        let (ar, ai) = (*xr, *xi);
        *xr = ar + yr;
        *xi = ai + yi;
        *hr = ar - yr;
        *hi = ai - yi;
    });
}

/// One layer of either transform: blocks of `2 len` values, block `b` turned by `tw[b]`, the
/// butterfly applied to each value of a block's first half `(re, im)` with its partner in the
/// second half. Blocks as slices and butterflies as zipped iterators, so that no index is
/// checked.
#[inline(always)]
fn layer(
    re: &mut [f64],
    im: &mut [f64],
    len: usize,
    tw: &[(f64, f64)],
    butterfly: impl Fn([&mut f64; 4], (f64, f64)),
) {
    let blocks = re
        .chunks_exact_mut(2 * len)
        .zip(im.chunks_exact_mut(2 * len));
    for ((rb, ib), &z) in blocks.zip(tw) {
        let (r0, r1) = rb.split_at_mut(len);
        let (i0, i1) = ib.split_at_mut(len);
        let halves = r0.iter_mut().zip(i0.iter_mut()).zip(r1.iter_mut().zip(i1));
        for ((xr, xi), (hr, hi)) in halves {
            butterfly([xr, xi, hr, hi], z);
        }
    }
}

/// Inverse FFT in place (`f.len()` = n >= 2).
#[inline(always)]
pub fn ifft(f: &mut [f64]) {
    let n = f.len();
    let hn = n / 2;
    let gm = gm();
    let (re, im) = f.split_at_mut(hn);
    let mut len = 1;
    while len < hn {
        let tw = &gm[n / (2 * len)..];
        match len {
            1 => ifft_layer(re, im, 1, tw),
            2 => ifft_layer(re, im, 2, tw),
            _ => ifft_layer(re, im, len, tw),
        }
        len *= 2;
    }
    let s = 1.0 / hn as f64;
    for x in f.iter_mut() {
        *x *= s;
    }
}

/// One layer of [`ifft`]: the butterfly (x, h) -> (x + h, (x - h) adj(z)).
#[inline(always)]
fn ifft_layer(re: &mut [f64], im: &mut [f64], len: usize, tw: &[(f64, f64)]) {
    layer(re, im, len, tw, |[xr, xi, hr, hi], (zr, zi)| {
        let (ar, ai) = (*xr, *xi);
        let (br, bi) = (*hr, *hi);
        *xr = ar + br;
        *xi = ai + bi;
        let (tr, ti) = cmul(ar - br, ai - bi, zr, -zi);
        *hr = tr;
        *hi = ti;
    });
}

/// split (Algorithm 1) in the FFT domain: f of degree n into f0, f1 of degree n/2 with
/// f(x) = f0(x^2) + x f1(x^2). `f0` and `f1` have length n/2. For n = 2 the outputs are real scalars.
#[inline(always)]
pub fn split(f0: &mut [f64], f1: &mut [f64], f: &[f64]) {
    let n = f.len();
    let hn = n / 2;
    if n == 2 {
        f0[0] = f[0];
        f1[0] = f[1];
        return;
    }
    let qn = hn / 2;
    // Zipped slices rather than indices: nothing is bounds-checked, so the pairs are
    // de-interleaved in vector registers.
    let (re, im) = f.split_at(hn);
    let (f0r, f0i) = f0.split_at_mut(qn);
    let (f1r, f1i) = f1.split_at_mut(qn);
    let pairs = re.chunks_exact(2).zip(im.chunks_exact(2));
    let outs = f0r
        .iter_mut()
        .zip(f0i.iter_mut())
        .zip(f1r.iter_mut().zip(f1i));
    for (((r, i), ((o0r, o0i), (o1r, o1i))), &(wr, wi)) in pairs.zip(outs).zip(&gm()[hn..]) {
        let (ar, ai) = (r[0], i[0]);
        let (br, bi) = (r[1], i[1]);
        *o0r = 0.5 * (ar + br);
        *o0i = 0.5 * (ai + bi);
        let (tr, ti) = cmul(ar - br, ai - bi, wr, -wi);
        *o1r = 0.5 * tr;
        *o1i = 0.5 * ti;
    }
}

/// merge (Algorithm 2) in the FFT domain: the inverse of [`split`].
#[inline(always)]
pub fn merge(f: &mut [f64], f0: &[f64], f1: &[f64]) {
    let n = f.len();
    let hn = n / 2;
    if n == 2 {
        f[0] = f0[0];
        f[1] = f1[0];
        return;
    }
    let qn = hn / 2;
    let (re, im) = f.split_at_mut(hn);
    let (f0r, f0i) = f0.split_at(qn);
    let (f1r, f1i) = f1.split_at(qn);
    let pairs = re.chunks_exact_mut(2).zip(im.chunks_exact_mut(2));
    let ins = f0r.iter().zip(f0i).zip(f1r.iter().zip(f1i));
    for (((r, i), ((&ar, &ai), (&cr, &ci))), &(wr, wi)) in pairs.zip(ins).zip(&gm()[hn..]) {
        let (br, bi) = cmul(cr, ci, wr, wi);
        r[0] = ar + br;
        i[0] = ai + bi;
        r[1] = ar - br;
        i[1] = ai - bi;
    }
}

/// a += b.
#[inline(always)]
pub fn add(a: &mut [f64], b: &[f64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// a -= b.
#[inline(always)]
pub fn sub(a: &mut [f64], b: &[f64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x -= y;
    }
}

/// a = -a.
#[inline(always)]
pub fn neg(a: &mut [f64]) {
    for x in a.iter_mut() {
        *x = -*x;
    }
}

/// a = adj(a), the Hermitian adjoint (complex conjugation in the FFT domain).
#[inline(always)]
pub fn adj(a: &mut [f64]) {
    let hn = a.len() / 2;
    neg(&mut a[hn..]);
}

/// a *= b (pointwise complex product).
#[inline(always)]
pub fn mul(a: &mut [f64], b: &[f64]) {
    let hn = a.len() / 2;
    let (ar, ai) = a.split_at_mut(hn);
    let (br, bi) = b.split_at(hn);
    for ((ar, ai), (&br, &bi)) in ar.iter_mut().zip(ai).zip(br.iter().zip(bi)) {
        let (r, i) = cmul(*ar, *ai, br, bi);
        *ar = r;
        *ai = i;
    }
}

/// a *= x for a real constant x.
#[inline(always)]
pub fn scale(a: &mut [f64], x: f64) {
    for v in a.iter_mut() {
        *v *= x;
    }
}

/// out = a adj(a) + b adj(b): a self-adjoint polynomial, whose imaginary parts are zero.
#[inline(always)]
pub fn norm2_sum(out: &mut [f64], a: &[f64], b: &[f64]) {
    let hn = a.len() / 2;
    let (or, oi) = out.split_at_mut(hn);
    let (ar, ai) = a.split_at(hn);
    let (br, bi) = b.split_at(hn);
    let ins = ar.iter().zip(ai).zip(br.iter().zip(bi));
    for (o, ((&ar, &ai), (&br, &bi))) in or.iter_mut().zip(ins) {
        *o = ar * ar + ai * ai + br * br + bi * bi;
    }
    oi.fill(0.0);
}

/// out = a adj(c) + b adj(d).
#[inline(always)]
pub fn mul_adj_sum(out: &mut [f64], a: &[f64], c: &[f64], b: &[f64], d: &[f64]) {
    let hn = a.len() / 2;
    for u in 0..hn {
        let (r1, i1) = cmul(a[u], a[u + hn], c[u], -c[u + hn]);
        let (r2, i2) = cmul(b[u], b[u + hn], d[u], -d[u + hn]);
        out[u] = r1 + r2;
        out[u + hn] = i1 + i2;
    }
}

/// a /= b, b self-adjoint (real evaluations).
#[inline(always)]
pub fn div_selfadj(a: &mut [f64], b: &[f64]) {
    let hn = a.len() / 2;
    let (ar, ai) = a.split_at_mut(hn);
    for ((ar, ai), &b) in ar.iter_mut().zip(ai).zip(&b[..hn]) {
        let inv = 1.0 / b;
        *ar *= inv;
        *ai *= inv;
    }
}

/// Converts small integer coefficients to an FFT-domain polynomial.
#[inline(always)]
pub fn from_ints<T: Copy + Into<f64>>(c: &[T]) -> Vec<f64> {
    let mut v: Vec<f64> = c.iter().map(|&x| x.into()).collect();
    fft(&mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(f: &[f64], wr: f64, wi: f64) -> (f64, f64) {
        // Horner's rule from the top coefficient.
        let mut acc = (0.0, 0.0);
        for &c in f.iter().rev() {
            acc = cmul(acc.0, acc.1, wr, wi);
            acc.0 += c;
        }
        acc
    }

    fn sample(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 33) % 2001) as f64 - 1000.0
            })
            .collect()
    }

    #[test]
    fn fft_evaluates_at_the_documented_roots() {
        for logn in 1..=10u32 {
            let n = 1usize << logn;
            let f = sample(n, logn as u64);
            let mut v = f.clone();
            fft(&mut v);
            for i in 0..n / 2 {
                let r = ((i as u32).reverse_bits() >> (32 - logn)) as f64;
                let a = core::f64::consts::PI * (2.0 * r + 1.0) / n as f64;
                let (er, ei) = eval(&f, a.cos(), a.sin());
                assert!((er - v[i]).abs() < 1e-6 && (ei - v[i + n / 2]).abs() < 1e-6);
            }
            ifft(&mut v);
            for (x, y) in v.iter().zip(&f) {
                assert!((x - y).abs() < 1e-7);
            }
        }
    }

    #[test]
    fn split_merge_match_coefficient_split() {
        for logn in 1..=10u32 {
            let n = 1usize << logn;
            let f = sample(n, 99 + logn as u64);
            let mut v = f.clone();
            fft(&mut v);
            let (mut a, mut b) = (vec![0.0; n / 2], vec![0.0; n / 2]);
            split(&mut a, &mut b, &v);
            if n >= 4 {
                ifft(&mut a);
                ifft(&mut b);
            }
            for i in 0..n / 2 {
                assert!((a[i] - f[2 * i]).abs() < 1e-7);
                assert!((b[i] - f[2 * i + 1]).abs() < 1e-7);
            }
            if n >= 4 {
                fft(&mut a);
                fft(&mut b);
            }
            let mut w = vec![0.0; n];
            merge(&mut w, &a, &b);
            for (x, y) in w.iter().zip(&v) {
                assert!((x - y).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn fft_product_is_negacyclic() {
        let n = 64;
        let a = sample(n, 1);
        let b = sample(n, 2);
        let mut want = vec![0.0; n];
        for i in 0..n {
            for j in 0..n {
                if i + j < n {
                    want[i + j] += a[i] * b[j];
                } else {
                    want[i + j - n] -= a[i] * b[j];
                }
            }
        }
        let mut x = a.clone();
        let mut y = b.clone();
        fft(&mut x);
        fft(&mut y);
        mul(&mut x, &y);
        ifft(&mut x);
        for (p, q) in x.iter().zip(&want) {
            assert!((p - q).abs() < 1e-3);
        }
    }
}
