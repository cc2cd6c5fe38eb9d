//! The products MAYO spends its time in, between matrices of m-vectors (public key material) and
//! matrices of single elements (O, the vinegar vectors: secret), all constant time in the
//! elements. Each has a portable form and two vector forms for m-vectors of up to 8 limbs
//! (MAYO_1, MAYO_2, MAYO_3), chosen at run time: with AVX-512F one m-vector per register and an
//! element's four bits applied as four masked XORs; with GFNI (and AVX-512VL) the element as an
//! 8 x 8 bit matrix, one `vgf2p8affineqb` and one XOR per product, about three times faster.

use crate::gf16::{self, MVec};

/// Index of entry (r, c), r <= c, of an upper-triangular size x size matrix stored row by row.
#[inline(always)]
pub(crate) fn upper(size: usize, r: usize, c: usize) -> usize {
    r * size - r * (r + 1) / 2 + c
}

/// Which form of the products runs: the best the CPU has, chosen once per call (the feature
/// tests are cached by std).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// Limb arithmetic, any CPU.
    Portable,
    /// AVX-512F: an element's bits as masks over v, v x, v x^2, v x^3.
    Avx512,
    /// GFNI with AVX-512VL: one `vgf2p8affineqb` multiplies every nibble of a register by an
    /// element (an 8 x 8 bit matrix), one XOR adds it.
    Gfni,
}

impl Kernel {
    /// The fastest form this CPU runs for m-vectors of L limbs (the vector forms hold at most 8).
    #[inline]
    pub(crate) fn best<const L: usize>() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        {
            if L <= 8 && std::is_x86_feature_detected!("avx512f") {
                if std::is_x86_feature_detected!("avx512vl")
                    && std::is_x86_feature_detected!("gfni")
                {
                    return Kernel::Gfni;
                }
                return Kernel::Avx512;
            }
        }
        Kernel::Portable
    }

    /// Every form this CPU runs (for tests that hold them equal).
    #[cfg(test)]
    pub(crate) fn available<const L: usize>() -> Vec<Kernel> {
        match Kernel::best::<L>() {
            Kernel::Gfni => vec![Kernel::Portable, Kernel::Avx512, Kernel::Gfni],
            Kernel::Avx512 => vec![Kernel::Portable, Kernel::Avx512],
            Kernel::Portable => vec![Kernel::Portable],
        }
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
    product_with(Kernel::best::<L>(), p, rows, shape, s, w, acc)
}

/// [`product`] in the given form (which must be one this CPU runs).
pub(crate) fn product_with<const L: usize>(
    kernel: Kernel,
    p: &[MVec<L>],
    rows: usize,
    shape: Shape,
    s: &[u8],
    w: usize,
    acc: &mut [MVec<L>],
) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    match kernel {
        // SAFETY: `Kernel::best` found AVX-512F, AVX-512VL and GFNI, and L <= 8.
        Kernel::Gfni => {
            if unsafe { gfni::times_elems::<L>(p, rows, shape, s, w, acc) } {
                return;
            }
        }
        // SAFETY: `Kernel::best` found AVX-512F, and L <= 8.
        Kernel::Avx512 => {
            if unsafe { avx512::times_elems::<L>(p, rows, shape, s, w, acc) } {
                return;
            }
        }
        Kernel::Portable => {}
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
    if Kernel::best::<L>() != Kernel::Portable {
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

/// The bit matrix (`vgf2p8affineqb`'s layout) that multiplies every nibble by the element a,
/// built in constant time (for the elimination's GFNI form).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn gfni_matrix(a: u8) -> u64 {
    gfni::matrix(a)
}

/// v, v x, v x^2, v x^3 of a 512-bit register of nibbles (for the elimination's AVX-512 form).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn avx512_multiples(v: core::arch::x86_64::__m512i) -> [core::arch::x86_64::__m512i; 4] {
    avx512::multiples(v)
}

/// Runs `$call` with `$W` bound to the run-time accumulator width `$w` as a constant, for the
/// widths MAYO's parameter sets use; any other width returns false from the enclosing function
/// (its caller then takes the portable path).
#[cfg(target_arch = "x86_64")]
macro_rules! with_width {
    ($w:expr, $W:ident => $call:expr) => {
        match $w {
            4 => {
                const $W: usize = 4;
                $call
            }
            8 => {
                const $W: usize = 8;
                $call
            }
            10 => {
                const $W: usize = 10;
                $call
            }
            11 => {
                const $W: usize = 11;
                $call
            }
            12 => {
                const $W: usize = 12;
                $call
            }
            17 => {
                const $W: usize = 17;
                $call
            }
            _ => return false,
        }
    };
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
                with_width!(w, W => product_pairs::<L, W, { W.div_ceil(2) }>(p, rows, shape, s, acc))
            }
            return true;
        }
        with_width!(w, W => product::<L, W>(p, rows, shape, s, acc));
        true
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod gfni {
    //! Multiplication of every nibble of a register by one element as an affine map over GF(2)
    //! (`vgf2p8affineqb`, Intel SDM vol. 2A "GF2P8AFFINEQB"): row i of the 8 x 8 matrix, in
    //! byte 7 - i of a 64-bit word, gives output bit i as the parity of (row & input byte). For
    //! the product by a in F16 the matrix is diag(M_a, M_a), M_a's column j being a x^j, and
    //! M_a is linear in a, so it is built from a's bits with masks (constant time in a).
    //! m-vectors of up to 4 limbs sit in a 256-bit register, of up to 8 in a 512-bit one.
    use super::{MVec, Shape};
    use core::arch::x86_64::*;

    /// a * b in F16, for the constant tables below.
    const fn mul(a: u8, b: u8) -> u8 {
        let mut p = 0u8;
        let mut i = 0;
        while i < 4 {
            if (a >> i) & 1 == 1 {
                p ^= b << i;
            }
            i += 1;
        }
        let top = p & 0xf0;
        (p ^ (top >> 4) ^ (top >> 3)) & 0x0f
    }

    /// The matrix that multiplies both nibbles of a byte by the constant a.
    const fn matrix_of(a: u8) -> u64 {
        let mut m = 0u64;
        let mut i = 0;
        while i < 4 {
            // Row i of M_a: bit j is bit i of a x^j.
            let mut row = 0u64;
            let mut j = 0;
            while j < 4 {
                row |= (((mul(a, 1 << j) >> i) & 1) as u64) << j;
                j += 1;
            }
            m |= row << (8 * (7 - i));
            m |= (row << 4) << (8 * (3 - i));
            i += 1;
        }
        m
    }

    /// The matrices of 1, x, x^2, x^3.
    const BASIS: [u64; 4] = [matrix_of(1), matrix_of(2), matrix_of(4), matrix_of(8)];

    /// The matrix of a secret element: the basis matrices of its set bits, by masks.
    #[inline(always)]
    pub(super) fn matrix(a: u8) -> u64 {
        let mut m = 0u64;
        for (b, basis) in BASIS.iter().enumerate() {
            m ^= (((a >> b) & 1) as u64).wrapping_neg() & basis;
        }
        m
    }

    #[inline(always)]
    fn lanes<const L: usize>() -> __mmask8 {
        ((1u32 << L) - 1) as __mmask8
    }

    /// Defines `$name`: acc[r][j] += the terms of row r, P's entries times the matrices of
    /// s[c][j], the W accumulators of a row kept in registers of type `$reg` (one m-vector each,
    /// loaded and stored under the mask of its L limbs). One body for both register widths.
    macro_rules! gfni_product {
        ($(#[$doc:meta])* $name:ident, $reg:ty, $load:ident, $store:ident, $set1:ident, $xor:ident,
         $affine:ident) => {
            $(#[$doc])*
            #[target_feature(enable = "avx512f,avx512vl,gfni")]
            fn $name<const L: usize, const W: usize>(
                p: &[MVec<L>],
                rows: usize,
                shape: Shape,
                mats: &[u64],
                acc: &mut [MVec<L>],
            ) {
                let k = lanes::<L>();
                // SAFETY (loads and stores): the mask limits each access to the L limbs of one
                // m-vector.
                let load = |v: &MVec<L>| unsafe { $load(k, v.as_ptr().cast()) };
                for r in 0..rows {
                    let row = &mut acc[r * W..][..W];
                    let mut regs: [$reg; W] = core::array::from_fn(|j| load(&row[j]));
                    for (i, c) in shape.terms(rows, r) {
                        let x = load(&p[i]);
                        let m: &[u64; W] = mats[c * W..][..W].try_into().expect("W matrices");
                        for j in 0..W {
                            let a = $set1(m[j] as i64);
                            regs[j] = $xor(regs[j], $affine::<0>(x, a));
                        }
                    }
                    for j in 0..W {
                        // SAFETY: as for the loads.
                        unsafe { $store(row[j].as_mut_ptr().cast(), k, regs[j]) };
                    }
                }
            }
        };
    }

    gfni_product!(
        /// m-vectors of at most 4 limbs, one per 256-bit register.
        product_256,
        __m256i,
        _mm256_maskz_loadu_epi64,
        _mm256_mask_storeu_epi64,
        _mm256_set1_epi64x,
        _mm256_xor_si256,
        _mm256_gf2p8affine_epi64_epi8
    );
    gfni_product!(
        /// m-vectors of 5 to 8 limbs, one per 512-bit register.
        product_512,
        __m512i,
        _mm512_maskz_loadu_epi64,
        _mm512_mask_storeu_epi64,
        _mm512_set1_epi64,
        _mm512_xor_si512,
        _mm512_gf2p8affine_epi64_epi8
    );

    #[target_feature(enable = "avx512f,avx512vl,gfni")]
    fn product<const L: usize, const W: usize>(
        p: &[MVec<L>],
        rows: usize,
        shape: Shape,
        s: &[u8],
        acc: &mut [MVec<L>],
    ) {
        let mats: Vec<u64> = s.iter().map(|&e| matrix(e)).collect();
        if L <= 4 {
            product_256::<L, W>(p, rows, shape, &mats, acc)
        } else {
            product_512::<L, W>(p, rows, shape, &mats, acc)
        }
    }

    /// Runs the product with the accumulator width as a constant; false for widths no MAYO
    /// parameter set has (the caller then takes the portable path).
    #[target_feature(enable = "avx512f,avx512vl,gfni")]
    pub(super) fn times_elems<const L: usize>(
        p: &[MVec<L>],
        rows: usize,
        shape: Shape,
        s: &[u8],
        w: usize,
        acc: &mut [MVec<L>],
    ) -> bool {
        with_width!(w, W => product::<L, W>(p, rows, shape, s, acc));
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

    fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// Every form this CPU runs against the portable one, at every width MAYO uses, in every
    /// shape, for m-vectors of 4 limbs (MAYO_2) and 5 (MAYO_1).
    fn forms_agree<const L: usize>(seed: u64) {
        let mut next = xorshift(seed);
        let (rows, cols) = (13, 9);
        let p: Vec<MVec<L>> = (0..rows * rows.max(cols))
            .map(|_| core::array::from_fn(|_| next()))
            .collect();
        let shapes = [
            Shape::Upper,
            Shape::UpperTransposed,
            Shape::Full(cols),
            Shape::FullTransposed(cols),
        ];
        for w in [4, 8, 10, 11, 12, 17] {
            let s: Vec<u8> = (0..rows.max(cols) * w)
                .map(|_| (next() & 15) as u8)
                .collect();
            let start: Vec<MVec<L>> = (0..rows * w)
                .map(|_| core::array::from_fn(|_| next()))
                .collect();
            for shape in shapes {
                let mut want = start.clone();
                product_with(Kernel::Portable, &p, rows, shape, &s, w, &mut want);
                for kernel in Kernel::available::<L>() {
                    let mut got = start.clone();
                    product_with(kernel, &p, rows, shape, &s, w, &mut got);
                    assert_eq!(got, want, "{kernel:?}, L = {L}, w = {w}");
                }
            }
        }
    }

    #[test]
    fn the_fast_forms_equal_the_portable_ones() {
        forms_agree::<4>(0x2545_f491_4f6c_dd1d);
        forms_agree::<5>(0x9e37_79b9_7f4a_7c15);
        forms_agree::<7>(0x6a09_e667_f3bc_c909);
        eprintln!("forms checked: {:?}", Kernel::available::<5>());
    }

    #[test]
    fn the_portable_form_is_the_definition() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let (rows, w) = (23, 17);
        let p: Vec<MVec<5>> = (0..rows * (rows + 1) / 2)
            .map(|_| core::array::from_fn(|_| next()))
            .collect();
        let s: Vec<u8> = (0..rows * w).map(|_| (next() & 15) as u8).collect();
        let mut acc = vec![[1u64; 5]; rows * w];
        product_with(Kernel::Portable, &p, rows, Shape::Upper, &s, w, &mut acc);
        assert_eq!(acc, portable_upper(&p, rows, &s, w, false));
        // P + P^T: both triangles, the diagonal cancelling.
        let mut acc = vec![[1u64; 5]; rows * w];
        product_with(Kernel::Portable, &p, rows, Shape::Upper, &s, w, &mut acc);
        product_with(
            Kernel::Portable,
            &p,
            rows,
            Shape::UpperTransposed,
            &s,
            w,
            &mut acc,
        );
        let mut want = portable_upper(&p, rows, &s, w, false);
        let other = portable_upper(&p, rows, &s, w, true);
        for (a, b) in want.iter_mut().zip(other) {
            for (x, y) in a.iter_mut().zip(b) {
                *x ^= y ^ 1;
            }
        }
        assert_eq!(acc, want);
        // P^T for a full P against the definition, element by element.
        let (a, b) = (7, rows);
        let xs: Vec<MVec<5>> = (0..b * a)
            .map(|_| core::array::from_fn(|_| next()))
            .collect();
        let sa: Vec<u8> = (0..b * w).map(|_| (next() & 15) as u8).collect();
        let mut acc = vec![[0u64; 5]; a * w];
        product_with(
            Kernel::Portable,
            &xs,
            a,
            Shape::FullTransposed(b),
            &sa,
            w,
            &mut acc,
        );
        for i in 0..a {
            for j in 0..w {
                for e in 0..78 {
                    let mut want = 0u8;
                    for r in 0..b {
                        want ^= gf16::mul(gf16::get(&xs[r * a + i], e), sa[r * w + j]);
                    }
                    assert_eq!(gf16::get(&acc[i * w + j], e), want, "({i}, {j}, {e})");
                }
            }
        }
    }
}
