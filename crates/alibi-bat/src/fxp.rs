//! The 64-bit fixed-point FFT in which the artifact computes w (its `ntru_gen/ng_fxp.h` and
//! `ng_fft.c`), reproduced operation for operation so that w comes out bit-identical: w rounds a
//! quotient to the nearest integer, and any other arithmetic (f64 included) lands on the other side
//! of a half-integer for about one key in fifty.
//!
//! A value is an i64 holding x * 2^32 (32 fractional bits); arithmetic wraps. Products truncate
//! (floor of the 128-bit product shifted by 32); complex products use the three-multiplication
//! form (a c - b d, (a + b)(c + d) - a c - b d), whose rounding differs from the four-product one;
//! halving rounds half up. The FFT is Falcon's (split real/imaginary halves, evaluations at the
//! roots of x^n + 1 in bit-reversed order); the inverse halves at every layer.

use std::sync::OnceLock;

/// A fixed-point number: the real value times 2^32.
pub(crate) type Fxr = i64;

/// One in fixed point.
pub(crate) const ONE: Fxr = 1 << 32;

/// x * y, truncated.
#[inline(always)]
pub(crate) fn mul(x: Fxr, y: Fxr) -> Fxr {
    ((x as i128 * y as i128) >> 32) as i64
}

/// x / 2^e, rounded half up.
#[inline(always)]
pub(crate) fn div2e(x: Fxr, e: u32) -> Fxr {
    x.wrapping_add((1i64 << e) >> 1) >> e
}

/// |x| (wrapping at the minimum).
#[inline(always)]
pub(crate) fn abs(x: Fxr) -> Fxr {
    x.wrapping_sub((x << 1) & (x >> 63))
}

/// Nearest integer, halves rounded up.
#[inline(always)]
pub(crate) fn round(x: Fxr) -> i64 {
    x.wrapping_add(1 << 31) >> 32
}

/// x / y rounded to nearest (halves away from zero in magnitude), for quotients below 2^31.
/// Branch-free restoring division of |x| 2^32 by |y|, one quotient bit per step.
pub(crate) fn div(x: Fxr, y: Fxr) -> Fxr {
    let (sx, sy) = (x >> 63, y >> 63);
    let ax = (x ^ sx).wrapping_sub(sx) as u64 as u128;
    let ay = (y ^ sy).wrapping_sub(sy) as u64 as u128;
    let num = ax << 32;
    let mut rem: u128 = 0;
    let mut q: u64 = 0;
    for i in (0..96).rev() {
        rem = (rem << 1) | ((num >> i) & 1);
        // ge = 1 when rem >= ay (no borrow).
        let ge = 1 - ((rem.wrapping_sub(ay) >> 127) as u64);
        rem -= ay & (ge as u128).wrapping_neg();
        if i < 64 {
            q |= ge << i;
        }
    }
    // Round: add one when the remainder is at least half the divisor.
    let twice = rem << 1;
    q += 1 - ((twice.wrapping_sub(ay) >> 127) as u64);
    let s = (sx ^ sy) as u64;
    ((q ^ s).wrapping_add(s & 1)) as i64
}

/// A complex fixed-point number.
#[derive(Clone, Copy)]
struct Fxc {
    re: Fxr,
    im: Fxr,
}

fn cmul(x: Fxc, y: Fxc) -> Fxc {
    let z0 = mul(x.re, y.re);
    let z1 = mul(x.im, y.im);
    let z2 = mul(x.re.wrapping_add(x.im), y.re.wrapping_add(y.im));
    Fxc {
        re: z0.wrapping_sub(z1),
        im: z2.wrapping_sub(z0.wrapping_add(z1)),
    }
}

/// GM\[k\] = e^(i pi bitrev_10(k) / 1024), each part rounded to the nearest multiple of 2^-32 (the
/// artifact's table; every entry checked equal to this computation).
fn gm() -> &'static [Fxc; 1024] {
    static GM: OnceLock<Box<[Fxc; 1024]>> = OnceLock::new();
    GM.get_or_init(|| {
        let mut t = Box::new([Fxc { re: 0, im: 0 }; 1024]);
        for (k, e) in t.iter_mut().enumerate() {
            let r = (k as u32).reverse_bits() >> 22;
            let a = core::f64::consts::PI * r as f64 / 1024.0;
            let scale = ONE as f64;
            *e = Fxc {
                re: (a.cos() * scale).round() as i64,
                im: (a.sin() * scale).round() as i64,
            };
        }
        t
    })
}

/// Forward FFT in place (length n = 2^logn, real parts then imaginary parts).
pub(crate) fn fft(f: &mut [Fxr]) {
    let n = f.len();
    let hn = n / 2;
    let gm = gm();
    let mut t = hn;
    let mut m = 2;
    while m < n {
        let ht = t / 2;
        for (i, j0) in (0..m / 2).map(|i| (i, i * t)) {
            let s = gm[m + i];
            for j in j0..j0 + ht {
                let x = Fxc {
                    re: f[j],
                    im: f[j + hn],
                };
                let y = cmul(
                    s,
                    Fxc {
                        re: f[j + ht],
                        im: f[j + ht + hn],
                    },
                );
                f[j] = x.re.wrapping_add(y.re);
                f[j + hn] = x.im.wrapping_add(y.im);
                f[j + ht] = x.re.wrapping_sub(y.re);
                f[j + ht + hn] = x.im.wrapping_sub(y.im);
            }
        }
        t = ht;
        m *= 2;
    }
}

/// Inverse FFT in place, halving at every layer.
pub(crate) fn ifft(f: &mut [Fxr]) {
    let n = f.len();
    let hn = n / 2;
    let gm = gm();
    let mut ht = 1;
    let mut m = hn;
    while m > 1 {
        let t = 2 * ht;
        for (i, j0) in (0..m / 2).map(|i| (i, i * t)) {
            let s = Fxc {
                re: gm[m + i].re,
                im: gm[m + i].im.wrapping_neg(),
            };
            for j in j0..j0 + ht {
                let (xr, xi) = (f[j], f[j + hn]);
                let (yr, yi) = (f[j + ht], f[j + ht + hn]);
                f[j] = div2e(xr.wrapping_add(yr), 1);
                f[j + hn] = div2e(xi.wrapping_add(yi), 1);
                let d = cmul(
                    s,
                    Fxc {
                        re: div2e(xr.wrapping_sub(yr), 1),
                        im: div2e(xi.wrapping_sub(yi), 1),
                    },
                );
                f[j + ht] = d.re;
                f[j + ht + hn] = d.im;
            }
        }
        ht = t;
        m /= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_and_arithmetic() {
        let gm = gm();
        assert_eq!((gm[0].re, gm[0].im), (ONE, 0));
        assert_eq!((gm[1].re, gm[1].im), (0, ONE));
        // round(2^32 / sqrt(2)).
        assert_eq!(gm[2].re, 3_037_000_500);
        assert_eq!(mul(3 * ONE, -ONE / 2), -3 * ONE / 2);
        assert_eq!(div(ONE, 3 * ONE), (ONE + 1) / 3);
        assert_eq!(div(-7 * ONE, 2 * ONE), -7 * ONE / 2);
        assert_eq!(round(ONE / 2), 1);
        assert_eq!(round(-ONE / 2), 0);
        assert_eq!(abs(-5), 5);
    }

    #[test]
    fn fft_round_trip() {
        let mut f: Vec<Fxr> = (0..512).map(|i| ((i * 37 % 11) as i64 - 5) << 32).collect();
        let orig = f.clone();
        fft(&mut f);
        ifft(&mut f);
        for (a, b) in f.iter().zip(&orig) {
            assert!((a - b).abs() < 1 << 12);
        }
    }
}
