//! Arithmetic in Z_q[x]/(x^n + 1), q = 12289, through the number-theoretic transform (spec §3.12,
//! verification; and keygen's h = g/f mod q, §3.8.2).
//!
//! Coefficients are `u16` in [0, q), so that a vector unit holds 8 (SSE2) or 16 (AVX2) of them and
//! the compiler vectorises the butterflies from plain loops: products by twiddles are Shoup's (two
//! 16-bit products and one conditional subtraction, done as an unsigned minimum), and the last four
//! layers of a transform of size >= 256 run on transposed 16 x 16 tiles, where they pair whole rows.
//! The transforms and the pointwise product are compiled twice from that one source, as built
//! (SSE2 on a plain x86-64 target) and with AVX2, and the AVX2 build is chosen at run time when the
//! CPU has it (verification 10.2 -> 8.3 us at n = 512 on a Zen 4). Same instructions' kind either
//! way (no data-dependent branch or index), so the timing properties below hold for both. All operations here are constant-time except [`inverse_ntt_form`]'s zero test, whose outcome (is
//! f invertible) is public in the sense that a failing f is discarded.

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

/// Shoup's companion of a constant w < q: floor(w 2^16 / q), with which a w mod q for any
/// a < 2^16 needs two 16-bit products and a correction ([`mul_shoup`]).
const fn shoup(w: u16) -> u16 {
    (((w as u32) << 16) / Q) as u16
}

/// The inverse twiddles psi^-bitrev_10(k).
const ZETAS_INV: [u32; 1024] = {
    let mut t = [0u32; 1024];
    let mut k = 0;
    while k < 1024 {
        t[k] = pow_mod(ZETAS[k], Q - 2);
        k += 1;
    }
    t
};

/// A table of twiddles as u16 with their Shoup companions.
struct Twiddles {
    w: [u16; 1024],
    ws: [u16; 1024],
}

const fn twiddles(z: &[u32; 1024]) -> Twiddles {
    let mut t = Twiddles {
        w: [0; 1024],
        ws: [0; 1024],
    };
    let mut k = 0;
    while k < 1024 {
        t.w[k] = z[k] as u16;
        t.ws[k] = shoup(z[k] as u16);
        k += 1;
    }
    t
}

static FWD: Twiddles = twiddles(&ZETAS);
static INV: Twiddles = twiddles(&ZETAS_INV);

/// x - q if x >= q: [0, 2q) to [0, q). On u16 lanes this is one unsigned minimum, since x - q
/// wraps to a large value exactly when x < q.
#[inline(always)]
fn reduce_once(x: u16) -> u16 {
    x.min(x.wrapping_sub(Q as u16))
}

/// a w mod q for a < 2^16 and a constant w < q with companion ws = [`shoup`](w): the quotient
/// estimate floor(a ws / 2^16) is floor(a w / q) or one less, so a w - estimate q lies in [0, 2q)
/// and its low 16 bits are exact.
#[inline(always)]
fn mul_shoup(a: u16, w: u16, ws: u16) -> u16 {
    let est = ((a as u32 * ws as u32) >> 16) as u16;
    reduce_once(a.wrapping_mul(w).wrapping_sub(est.wrapping_mul(Q as u16)))
}

#[inline(always)]
fn mulq(a: u32, b: u32) -> u32 {
    a * b % Q
}

/// Below this size the transforms run layer by layer on the natural order; from it on, the last
/// four layers (distances 8, 4, 2, 1) run on 16 x 16 tiles transposed, where each of them pairs
/// whole rows of 16 lanes (what vector units do) instead of elements inside a row.
const TILED_MIN: usize = 256;

/// The twiddles of the tiled layers for transforms of size n (512 or 1024), 16 lanes per vector:
/// for layer l (distance 8 >> l), tile g, and j < 2^l, lane r holds the twiddle of the block that
/// row r of tile g has at column 2 (8 >> l) j, i.e. index n / (2 len) + (16 g + r) (8 / len) + j.
struct Tiled {
    w: [[u16; 16]; 60],
    ws: [[u16; 16]; 60],
}

const fn tiled(z: &Twiddles, n: usize) -> Tiled {
    let mut t = Tiled {
        w: [[0; 16]; 60],
        ws: [[0; 16]; 60],
    };
    let mut g = 0;
    while g < n / 256 {
        let mut l = 0;
        while l < 4 {
            let len = 8 >> l;
            let mut j = 0;
            while j < (1 << l) {
                let mut r = 0;
                while r < 16 {
                    let k = n / (2 * len) + (16 * g + r) * (8 / len) + j;
                    t.w[tiled_index(g, l, j)][r] = z.w[k];
                    t.ws[tiled_index(g, l, j)][r] = z.ws[k];
                    r += 1;
                }
                j += 1;
            }
            l += 1;
        }
        g += 1;
    }
    t
}

/// Where the twiddles of tile g, layer l and block column j sit in a [`Tiled`] table.
const fn tiled_index(g: usize, l: usize, j: usize) -> usize {
    g * 15 + (1 << l) - 1 + j
}

static FWD_512: Tiled = tiled(&FWD, 512);
static FWD_1024: Tiled = tiled(&FWD, 1024);
static INV_512: Tiled = tiled(&INV, 512);
static INV_1024: Tiled = tiled(&INV, 1024);

/// Transposes each 16 x 16 tile of consecutive elements in place.
#[inline(always)]
fn transpose_tiles(a: &mut [u16]) {
    for tile in a.chunks_exact_mut(256) {
        for r in 0..16 {
            for c in r + 1..16 {
                tile.swap(16 * r + c, 16 * c + r);
            }
        }
    }
}

/// One forward butterfly layer of distance `len` >= 16 on the natural order.
#[inline(always)]
fn forward_layer(a: &mut [u16], len: usize, t: &Twiddles) {
    let n = a.len();
    for (b, block) in a.chunks_exact_mut(2 * len).enumerate() {
        let k = n / (2 * len) + b;
        let (w, ws) = (t.w[k], t.ws[k]);
        let (lo, hi) = block.split_at_mut(len);
        for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
            let p = mul_shoup(*y, w, ws);
            let (u, q) = (*x, Q as u16);
            *x = reduce_once(u + p);
            *y = reduce_once(u + q - p);
        }
    }
}

/// One inverse butterfly layer of distance `len` on the natural order; the product by `scale`
/// (n^-1 in the last layer, 1 elsewhere) is folded in.
#[inline(always)]
fn inverse_layer(a: &mut [u16], len: usize, t: &Twiddles, scale: u32) {
    let n = a.len();
    let (sc, scs) = (scale as u16, shoup(scale as u16));
    for (b, block) in a.chunks_exact_mut(2 * len).enumerate() {
        let k = n / (2 * len) + b;
        let w = (t.w[k] as u32 * scale % Q) as u16;
        let ws = shoup(w);
        let (lo, hi) = block.split_at_mut(len);
        for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
            let (u, v, q) = (*x, *y, Q as u16);
            let s = reduce_once(u + v);
            *x = if scale == 1 { s } else { mul_shoup(s, sc, scs) };
            *y = mul_shoup(u + q - v, w, ws);
        }
    }
}

/// Whether the AVX2 builds of the transforms run: the same source compiled with AVX2 enabled
/// (16 lanes of u16 instead of SSE2's 8), chosen at run time so that one binary serves every x86-64
/// CPU. std caches the CPUID answer.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// Defines `pub fn $name` that runs `$body` (an `#[inline(always)]` portable function) compiled
/// for AVX2 when the CPU has it, and as it is otherwise; `$avx2` names the AVX2 build, which the
/// tests compare with the portable one.
macro_rules! avx2_dispatch {
    ($(#[$doc:meta])* $name:ident, $avx2:ident, $body:ident, ($($arg:ident: $ty:ty),*)) => {
        $(#[$doc])*
        pub fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            if $crate::modq::has_avx2() {
                // SAFETY: the CPU supports AVX2 (checked just above).
                return unsafe { $avx2($($arg),*) };
            }
            $body($($arg),*)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        fn $avx2($($arg: $ty),*) {
            $body($($arg),*)
        }
    };
}

pub(crate) use avx2_dispatch;

avx2_dispatch!(
    /// In-place forward NTT: coefficients to evaluations at the 2n-th roots of -1. The evaluations'
    /// order is the transform's own (bit-reversed, and for n >= 256 transposed inside tiles of
    /// 256): only pointwise operations and [`intt`] read them, and both agree with it.
    ntt, ntt_avx2, ntt_portable, (a: &mut [u16])
);
avx2_dispatch!(
    /// In-place inverse NTT, including the division by n; takes [`ntt`]'s order.
    intt, intt_avx2, intt_portable, (a: &mut [u16])
);
avx2_dispatch!(
    /// Pointwise product of two NTT-domain polynomials, into `a`.
    mul_ntt, mul_ntt_avx2, mul_ntt_portable, (a: &mut [u16], b: &[u16])
);

#[inline(always)]
fn ntt_portable(a: &mut [u16]) {
    let n = a.len();
    if n < TILED_MIN {
        let mut len = n / 2;
        while len >= 1 {
            forward_layer(a, len, &FWD);
            len /= 2;
        }
        return;
    }
    let mut len = n / 2;
    while len >= 16 {
        forward_layer(a, len, &FWD);
        len /= 2;
    }
    transpose_tiles(a);
    let table = if n == 512 { &FWD_512 } else { &FWD_1024 };
    for (g, tile) in a.chunks_exact_mut(256).enumerate() {
        for l in 0..4 {
            let len = 8 >> l;
            for c in (0..16).filter(|c| c & len == 0) {
                let i = tiled_index(g, l, c / (2 * len));
                let (w, ws) = (&table.w[i], &table.ws[i]);
                let (top, bottom) = tile.split_at_mut(16 * (c + len));
                let x: &mut [u16; 16] = (&mut top[16 * c..16 * c + 16]).try_into().expect("row");
                let y: &mut [u16; 16] = (&mut bottom[..16]).try_into().expect("row");
                for r in 0..16 {
                    let p = mul_shoup(y[r], w[r], ws[r]);
                    let (u, q) = (x[r], Q as u16);
                    x[r] = reduce_once(u + p);
                    y[r] = reduce_once(u + q - p);
                }
            }
        }
    }
}

#[inline(always)]
fn intt_portable(a: &mut [u16]) {
    let n = a.len();
    let ninv = pow_mod(n as u32, Q - 2);
    let mut len = 1;
    if n >= TILED_MIN {
        let table = if n == 512 { &INV_512 } else { &INV_1024 };
        for (g, tile) in a.chunks_exact_mut(256).enumerate() {
            for l in (0..4).rev() {
                let len = 8 >> l;
                for c in (0..16).filter(|c| c & len == 0) {
                    let i = tiled_index(g, l, c / (2 * len));
                    let (w, ws) = (&table.w[i], &table.ws[i]);
                    let (top, bottom) = tile.split_at_mut(16 * (c + len));
                    let x: &mut [u16; 16] =
                        (&mut top[16 * c..16 * c + 16]).try_into().expect("row");
                    let y: &mut [u16; 16] = (&mut bottom[..16]).try_into().expect("row");
                    for r in 0..16 {
                        let (u, v, q) = (x[r], y[r], Q as u16);
                        x[r] = reduce_once(u + v);
                        y[r] = mul_shoup(u + q - v, w[r], ws[r]);
                    }
                }
            }
        }
        transpose_tiles(a);
        len = 16;
    }
    while len < n {
        let scale = if 2 * len == n { ninv } else { 1 };
        inverse_layer(a, len, &INV, scale);
        len *= 2;
    }
}

/// Maps a signed integer to [0, q).
#[inline]
pub fn from_signed(x: i32) -> u16 {
    x.rem_euclid(Q as i32) as u16
}

/// Maps [0, q) to the centred representative in (-q/2, q/2].
#[inline]
pub fn center(x: u16) -> i32 {
    let x = x as i32;
    x - ((Q as i32) & -((x > (Q as i32) / 2) as i32))
}

#[inline(always)]
fn mul_ntt_portable(a: &mut [u16], b: &[u16]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = mulq(*x as u32, y as u32) as u16;
    }
}

/// a * b in Z_q[x]/(x^n + 1), both in coefficient form.
#[cfg(test)]
pub fn mul(a: &[u16], b: &[u16]) -> Vec<u16> {
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
/// Montgomery's batch inversion: three products per value and one exponentiation per chain.
pub fn inverse_ntt_form(a: &mut [u16]) -> bool {
    // LANES interleaved chains (element i in chain i mod LANES): one chain is a serial product
    // of modular reductions, latency-bound; several run side by side.
    const LANES: usize = 8;
    let n = a.len();
    let w = n.min(LANES);
    let mut prefix = vec![0u32; n];
    let mut acc = [1u32; LANES];
    for (p, x) in prefix.chunks_exact_mut(w).zip(a.chunks_exact(w)) {
        for ((acc, p), &x) in acc.iter_mut().zip(p).zip(x) {
            *acc = mulq(*acc, x as u32);
            *p = *acc;
        }
    }
    if acc[..w].contains(&0) {
        return false;
    }
    let mut inv = acc.map(|x| pow_mod(x, Q - 2));
    for i in (0..n / w).rev() {
        for (j, inv) in inv[..w].iter_mut().enumerate() {
            let k = i * w + j;
            let before = if i == 0 { 1 } else { prefix[k - w] };
            let x = a[k] as u32;
            a[k] = mulq(*inv, before) as u16;
            *inv = mulq(*inv, x);
        }
    }
    true
}

/// num / den in Z_q[x]/(x^n + 1) for small signed polynomials, in the NTT domain; `None` if `den` is
/// not invertible.
pub fn div_small(num: &[i32], den: &[i32]) -> Option<Vec<u16>> {
    let mut a: Vec<u16> = num.iter().map(|&x| from_signed(x)).collect();
    let mut b: Vec<u16> = den.iter().map(|&x| from_signed(x)).collect();
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

    fn schoolbook(a: &[u16], b: &[u16]) -> Vec<u16> {
        let w = |v: &[u16]| v.iter().map(|&x| x as i64).collect::<Vec<i64>>();
        crate::testutil::negacyclic_schoolbook(&w(a), &w(b))
            .iter()
            .map(|&x| x.rem_euclid(Q as i64) as u16)
            .collect()
    }

    /// The AVX2 builds compute exactly what the portable ones do, at every size (on a CPU
    /// without AVX2 only the portable build can run, and there is nothing to compare).
    #[test]
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    fn avx2_builds_match_portable_ones() {
        if !has_avx2() {
            // Nothing to compare: only the portable build can run on this CPU.
            return;
        }
        use rand_chacha::ChaCha20Rng;
        use rand_core::{Rng, SeedableRng};
        let mut rng = ChaCha20Rng::seed_from_u64(25);
        let mut next = || (rng.next_u32() % Q) as u16;
        for logn in 1..=10 {
            let n = 1usize << logn;
            let a: Vec<u16> = (0..n).map(|_| next()).collect();
            let b: Vec<u16> = (0..n).map(|_| next()).collect();
            let (mut x, mut y) = (a.clone(), a.clone());
            ntt_portable(&mut x);
            // SAFETY: AVX2 is present (checked above).
            unsafe { ntt_avx2(&mut y) };
            assert_eq!(x, y, "ntt at n = {n}");
            mul_ntt_portable(&mut x, &b);
            // SAFETY: as above.
            unsafe { mul_ntt_avx2(&mut y, &b) };
            assert_eq!(x, y, "mul_ntt at n = {n}");
            intt_portable(&mut x);
            // SAFETY: as above.
            unsafe { intt_avx2(&mut y) };
            assert_eq!(x, y, "intt at n = {n}");
        }
    }

    #[test]
    fn shoup_products_are_exact() {
        for w in (0..Q as u16).step_by(7) {
            let ws = shoup(w);
            for a in (0..=u16::MAX)
                .step_by(131)
                .chain([u16::MAX, 2 * Q as u16 - 1])
            {
                assert_eq!(
                    mul_shoup(a, w, ws) as u32,
                    a as u32 * w as u32 % Q,
                    "{a} {w}"
                );
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
            let a: Vec<u16> = (0..n as u32)
                .map(|i| ((i * 7919 + 13) % Q) as u16)
                .collect();
            let b: Vec<u16> = (0..n as u32)
                .map(|i| ((i * i * 31 + 5) % Q) as u16)
                .collect();
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
        let fq: Vec<u16> = f.iter().map(|&x| from_signed(x)).collect();
        let back = mul(&h, &fq);
        let gq: Vec<u16> = g.iter().map(|&x| from_signed(x)).collect();
        assert_eq!(back, gq);
        assert_eq!(center(Q as u16 - 1), -1);
        assert_eq!(center(Q as u16 / 2), 6144);
        assert_eq!(center(Q as u16 / 2 + 1), -6144);
    }
}
