//! The products MAYO spends its time in, between matrices of m-vectors (public key material) and
//! matrices of single elements (O, the vinegar vectors: secret), all constant time in the
//! elements. Each has a portable form and, on CPUs with AVX-512F, a form that holds one m-vector
//! in one 512-bit register (up to 8 limbs, which covers MAYO_1, MAYO_2 and MAYO_3) and applies an
//! element's four bits as four masked XORs.

use crate::gf16::{self, MVec};

/// Index of entry (r, c), r <= c, of an upper-triangular size x size matrix stored row by row.
#[inline(always)]
pub(crate) fn upper(size: usize, r: usize, c: usize) -> usize {
    r * size - r * (r + 1) / 2 + c
}

/// Whether the AVX-512 forms run here (and fit: at most 8 limbs).
#[inline]
fn fast<const L: usize>() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        L <= 8 && std::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Which entries of P feed which row of a product P s.
#[derive(Clone, Copy)]
pub(crate) enum Shape {
    /// P upper triangular, rows x rows: row r takes P[r][c] s[c] for c >= r.
    Upper,
    /// P^T for P upper triangular: row c takes P[r][c] s[r] for r <= c.
    UpperTransposed,
    /// P full, rows x cols: row r takes P[r][c] s[c] for every c.
    Full(usize),
    /// P^T for P full with the given rows and `rows` columns: row r takes P[c][r] s[c].
    FullTransposed(usize),
}

impl Shape {
    /// The terms (index into P, row of s) of output row `r`.
    #[inline(always)]
    pub(crate) fn terms(self, rows: usize, r: usize) -> impl Iterator<Item = (usize, usize)> {
        let (lo, hi) = match self {
            Shape::Upper => (r, rows),
            Shape::UpperTransposed => (0, r + 1),
            Shape::Full(cols) => (0, cols),
            Shape::FullTransposed(p_rows) => (0, p_rows),
        };
        (lo..hi).map(move |c| match self {
            Shape::Upper => (upper(rows, r, c), c),
            Shape::UpperTransposed => (upper(rows, c, r), c),
            Shape::Full(cols) => (r * cols + c, c),
            Shape::FullTransposed(_) => (c * rows + r, c),
        })
    }
}

/// acc[r][j] += the terms of `shape` for row r: P's entries times s's rows (s: . x w, acc:
/// rows x w, row-major), constant time in s.
pub(crate) fn product<const L: usize>(
    p: &[MVec<L>],
    rows: usize,
    shape: Shape,
    s: &[u8],
    w: usize,
    acc: &mut [MVec<L>],
) {
    #[cfg(target_arch = "x86_64")]
    if fast::<L>() {
        // SAFETY: AVX-512F is present (checked by `fast`), and L <= 8.
        #[allow(unsafe_code)]
        if unsafe { avx512::times_elems::<L>(p, rows, shape, s, w, acc) } {
            return;
        }
    }
    for r in 0..rows {
        for (i, c) in shape.terms(rows, r) {
            let mult = gf16::multiples(&p[i]);
            for j in 0..w {
                gf16::mul_add_pre(&mut acc[r * w + j], &mult, s[c * w + j]);
            }
        }
    }
}

/// Row-major transpose of a rows x cols matrix of elements.
pub(crate) fn transpose(m: &[u8], rows: usize, cols: usize) -> Vec<u8> {
    let mut t = vec![0u8; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            t[c * rows + r] = m[r * cols + c];
        }
    }
    t
}

/// P S^T for P = [[P1, P2], [0, P3]] (P1 upper v x v, P2 v x o, P3 upper o x o) and s the k
/// vectors of n = v + o elements (`st` is S^T, n x k): an n x k matrix of m-vectors. s is public (verification), so
/// the portable form groups the products by the value of s's elements (16 bins per entry of the
/// result, each multiplied once); the AVX-512 form runs the constant-time products, which are
/// faster there.
pub(crate) fn p_times_s<const L: usize>(
    p1: &[MVec<L>],
    p2: &[MVec<L>],
    p3: &[MVec<L>],
    v: usize,
    o: usize,
    s: &[u8],
    st: &[u8],
) -> Vec<MVec<L>> {
    let n = v + o;
    let k = s.len() / n;
    let mut ps = vec![[0u64; L]; n * k];
    if fast::<L>() {
        let (top, bottom) = ps.split_at_mut(v * k);
        product(p1, v, Shape::Upper, &st[..v * k], k, top);
        product(p2, v, Shape::Full(o), &st[v * k..], k, top);
        product(p3, o, Shape::Upper, &st[v * k..], k, bottom);
        return ps;
    }
    let mut bins = vec![[[0u64; L]; 16]; n];
    for col in 0..k {
        let sc = &s[col * n..(col + 1) * n];
        bins.iter_mut().for_each(|b| *b = [[0; L]; 16]);
        for r in 0..v {
            for c in r..v {
                gf16::add(&mut bins[r][sc[c] as usize], &p1[upper(v, r, c)]);
            }
            for c in 0..o {
                gf16::add(&mut bins[r][sc[v + c] as usize], &p2[r * o + c]);
            }
        }
        for r in v..n {
            for c in r..n {
                gf16::add(&mut bins[r][sc[c] as usize], &p3[upper(o, r - v, c - v)]);
            }
        }
        for r in 0..n {
            ps[r * k + col] = gf16::combine_bins(&bins[r]);
        }
    }
    ps
}

/// v, v x, v x^2, v x^3 of a 512-bit register of nibbles (for the elimination's AVX-512 form).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn avx512_multiples(v: core::arch::x86_64::__m512i) -> [core::arch::x86_64::__m512i; 4] {
    avx512::multiples(v)
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx512 {
    //! One m-vector per zmm register (masked loads and stores of L limbs); an element's bits
    //! become mask registers, so a multiply-add is four masked XORs whatever the element's value.
    use super::{MVec, Shape};
    use core::arch::x86_64::*;

    #[inline(always)]
    fn lanes<const L: usize>() -> __mmask8 {
        ((1u32 << L) - 1) as __mmask8
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load<const L: usize>(v: &MVec<L>) -> __m512i {
        // SAFETY: the mask limits the load to the L limbs of `v`.
        unsafe { _mm512_maskz_loadu_epi64(lanes::<L>(), v.as_ptr().cast()) }
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn store<const L: usize>(v: &mut MVec<L>, x: __m512i) {
        // SAFETY: the mask limits the store to the L limbs of `v`.
        unsafe { _mm512_mask_storeu_epi64(v.as_mut_ptr().cast(), lanes::<L>(), x) }
    }

    /// Every nibble times x: x^4 = x + 1 folds the top bit into the two lowest.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn times_x(v: __m512i) -> __m512i {
        let high = _mm512_set1_epi64(0x8888_8888_8888_8888u64 as i64);
        let t = _mm512_and_si512(v, high);
        let rest = _mm512_slli_epi64::<1>(_mm512_andnot_si512(high, v));
        _mm512_ternarylogic_epi64::<0x96>(
            rest,
            _mm512_srli_epi64::<3>(t),
            _mm512_srli_epi64::<2>(t),
        )
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn multiples(v: __m512i) -> [__m512i; 4] {
        let v1 = times_x(v);
        let v2 = times_x(v1);
        [v, v1, v2, times_x(v2)]
    }

    /// The four bit masks of an element: all ones where the bit is set.
    #[inline(always)]
    fn bit_masks(e: u8) -> [u64; 4] {
        core::array::from_fn(|b| (((e >> b) & 1) as u64).wrapping_neg())
    }

    /// acc ^ (m_b & mask_b) for the four bits: one three-input logic instruction each, the mask
    /// broadcast from memory.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn mul_add(acc: __m512i, m: &[__m512i; 4], k: &[u64; 4]) -> __m512i {
        let mut acc = acc;
        for b in 0..4 {
            acc = _mm512_ternarylogic_epi64::<0x78>(acc, m[b], _mm512_set1_epi64(k[b] as i64));
        }
        acc
    }

    /// acc[r][.] += sum over the terms (i, c) of row r of P_i s[c][.], with the W accumulators
    /// of a row held in registers (W is a constant, so the array is registers, not memory).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn accumulate<const L: usize, const W: usize, I: Iterator<Item = (usize, usize)>>(
        p: &[MVec<L>],
        masks: &[[u64; 4]],
        acc: &mut [MVec<L>],
        out_rows: usize,
        terms: impl Fn(usize) -> I,
    ) {
        for r in 0..out_rows {
            let mut regs: [__m512i; W] = core::array::from_fn(|j| load(&acc[r * W + j]));
            for (i, c) in terms(r) {
                let m = multiples(load(&p[i]));
                for j in 0..W {
                    regs[j] = mul_add(regs[j], &m, &masks[c * W + j]);
                }
            }
            for j in 0..W {
                store(&mut acc[r * W + j], regs[j]);
            }
        }
    }

    #[target_feature(enable = "avx512f")]
    fn product<const L: usize, const W: usize>(
        p: &[MVec<L>],
        rows: usize,
        shape: Shape,
        s: &[u8],
        acc: &mut [MVec<L>],
    ) {
        let masks: Vec<[u64; 4]> = s.iter().map(|&e| bit_masks(e)).collect();
        accumulate::<L, W, _>(p, &masks, acc, rows, |r| shape.terms(rows, r))
    }

    /// The same as [`accumulate`] for m-vectors of at most 4 limbs, two accumulators per
    /// register (accumulator 2q in the low half, 2q + 1 in the high half): the entry of P is
    /// broadcast to both halves and each half takes its own element's bits, as mask registers.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    fn accumulate_pairs<
        const L: usize,
        const W: usize,
        const Q: usize,
        I: Iterator<Item = (usize, usize)>,
    >(
        p: &[MVec<L>],
        s: &[u8],
        acc: &mut [MVec<L>],
        out_rows: usize,
        terms: impl Fn(usize) -> I,
    ) {
        let lanes = ((1u32 << L) - 1) as __mmask8;
        // SAFETY (loads and stores below): the masks limit each access to the L limbs of one
        // m-vector.
        let load4 = |v: &MVec<L>| unsafe { _mm256_maskz_loadu_epi64(lanes, v.as_ptr().cast()) };
        // kmask[c][q][b]: the low half on when bit b of s[c][2q] is set, the high half for
        // s[c][2q + 1].
        let rows_s = s.len() / W;
        let mut kmask = vec![[[0u8; 4]; Q]; rows_s];
        for c in 0..rows_s {
            for q in 0..Q {
                for b in 0..4 {
                    let lo = (s[c * W + 2 * q] >> b) & 1;
                    let hi = if 2 * q + 1 < W {
                        (s[c * W + 2 * q + 1] >> b) & 1
                    } else {
                        0
                    };
                    kmask[c][q][b] = (lo.wrapping_neg() & 0x0f) | (hi.wrapping_neg() & 0xf0);
                }
            }
        }
        for r in 0..out_rows {
            let mut regs: [__m512i; Q] = core::array::from_fn(|q| {
                let lo = load4(&acc[r * W + 2 * q]);
                let hi = if 2 * q + 1 < W {
                    load4(&acc[r * W + 2 * q + 1])
                } else {
                    _mm256_setzero_si256()
                };
                _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
            });
            for (i, c) in terms(r) {
                let m = multiples(_mm512_broadcast_i64x4(load4(&p[i])));
                for q in 0..Q {
                    let k = kmask[c][q];
                    let mut x = regs[q];
                    for b in 0..4 {
                        x = _mm512_mask_xor_epi64(x, k[b], x, m[b]);
                    }
                    regs[q] = x;
                }
            }
            for q in 0..Q {
                // SAFETY: as for the loads.
                unsafe {
                    _mm256_mask_storeu_epi64(
                        acc[r * W + 2 * q].as_mut_ptr().cast(),
                        lanes,
                        _mm512_castsi512_si256(regs[q]),
                    );
                    if 2 * q + 1 < W {
                        _mm256_mask_storeu_epi64(
                            acc[r * W + 2 * q + 1].as_mut_ptr().cast(),
                            lanes,
                            _mm512_extracti64x4_epi64::<1>(regs[q]),
                        );
                    }
                }
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512vl")]
    fn product_pairs<const L: usize, const W: usize, const Q: usize>(
        p: &[MVec<L>],
        rows: usize,
        shape: Shape,
        s: &[u8],
        acc: &mut [MVec<L>],
    ) {
        accumulate_pairs::<L, W, Q, _>(p, s, acc, rows, |r| shape.terms(rows, r))
    }

    /// Runs the product with the accumulator width as a constant; false for widths no MAYO
    /// parameter set has (the caller then takes the portable path).
    #[target_feature(enable = "avx512f")]
    pub(super) fn times_elems<const L: usize>(
        p: &[MVec<L>],
        rows: usize,
        shape: Shape,
        s: &[u8],
        w: usize,
        acc: &mut [MVec<L>],
    ) -> bool {
        if L <= 4 && std::is_x86_feature_detected!("avx512vl") {
            // SAFETY: AVX-512VL was just detected (AVX-512F by the caller).
            unsafe {
                match w {
                    4 => product_pairs::<L, 4, 2>(p, rows, shape, s, acc),
                    8 => product_pairs::<L, 8, 4>(p, rows, shape, s, acc),
                    10 => product_pairs::<L, 10, 5>(p, rows, shape, s, acc),
                    11 => product_pairs::<L, 11, 6>(p, rows, shape, s, acc),
                    12 => product_pairs::<L, 12, 6>(p, rows, shape, s, acc),
                    17 => product_pairs::<L, 17, 9>(p, rows, shape, s, acc),
                    _ => return false,
                }
            }
            return true;
        }
        match w {
            4 => product::<L, 4>(p, rows, shape, s, acc),
            8 => product::<L, 8>(p, rows, shape, s, acc),
            10 => product::<L, 10>(p, rows, shape, s, acc),
            11 => product::<L, 11>(p, rows, shape, s, acc),
            12 => product::<L, 12>(p, rows, shape, s, acc),
            17 => product::<L, 17>(p, rows, shape, s, acc),
            _ => return false,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn portable_upper<const L: usize>(
        p: &[MVec<L>],
        rows: usize,
        s: &[u8],
        w: usize,
        t: bool,
    ) -> Vec<MVec<L>> {
        let mut acc = vec![[1u64; L]; rows * w];
        for r in 0..rows {
            for c in r..rows {
                let mult = gf16::multiples(&p[upper(rows, r, c)]);
                for j in 0..w {
                    if t {
                        gf16::mul_add_pre(&mut acc[c * w + j], &mult, s[r * w + j]);
                    } else {
                        gf16::mul_add_pre(&mut acc[r * w + j], &mult, s[c * w + j]);
                    }
                }
            }
        }
        acc
    }

    #[test]
    fn the_fast_forms_equal_the_portable_ones() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (rows, w) = (23, 17);
        let p: Vec<MVec<5>> = (0..rows * (rows + 1) / 2)
            .map(|_| core::array::from_fn(|_| next()))
            .collect();
        let s: Vec<u8> = (0..rows * w).map(|_| (next() & 15) as u8).collect();
        let mut acc = vec![[1u64; 5]; rows * w];
        product(&p, rows, Shape::Upper, &s, w, &mut acc);
        assert_eq!(acc, portable_upper(&p, rows, &s, w, false));
        // P + P^T: both triangles, the diagonal cancelling.
        let mut acc = vec![[1u64; 5]; rows * w];
        product(&p, rows, Shape::Upper, &s, w, &mut acc);
        product(&p, rows, Shape::UpperTransposed, &s, w, &mut acc);
        let mut want = portable_upper(&p, rows, &s, w, false);
        let other = portable_upper(&p, rows, &s, w, true);
        for (a, b) in want.iter_mut().zip(other) {
            for (x, y) in a.iter_mut().zip(b) {
                *x ^= y ^ 1;
            }
        }
        assert_eq!(acc, want);
        // P^T for a full P against the definition.
        let (a, b) = (7, rows);
        let xs: Vec<MVec<5>> = (0..b * a)
            .map(|_| core::array::from_fn(|_| next()))
            .collect();
        let sa: Vec<u8> = (0..b * w).map(|_| (next() & 15) as u8).collect();
        let mut acc = vec![[0u64; 5]; a * w];
        product(&xs, a, Shape::FullTransposed(b), &sa, w, &mut acc);
        for i in 0..a {
            for j in 0..w {
                let mut want = [0u64; 5];
                for r in 0..b {
                    gf16::mul_add_pre(&mut want, &gf16::multiples(&xs[r * a + i]), sa[r * w + j]);
                }
                assert_eq!(acc[i * w + j], want, "({i}, {j})");
            }
        }
    }
}
