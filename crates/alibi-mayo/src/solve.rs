//! SampleSol (round-2 specification §2.1.5 and Algorithm 2): a solution x = r + z of A x = y,
//! where z solves A z = y - A r with zeros at the non-pivot columns. Such a z is unique once A has
//! full rank m, so any exact elimination finds the one MAYO's reference code finds.
//!
//! The elimination is constant time in the matrix entries: the pivot row is found, scaled,
//! written back and used through masks over every row, and the matrix is brought to reduced row
//! echelon form so that the solution is read off without back substitution.

use crate::gf16::{self, MVec};
use crate::kernels::Kernel;
use zeroize::{Zeroize, Zeroizing};

/// All-ones if `x` is non-zero, else zero, without branching.
#[inline(always)]
fn nonzero_mask(x: u64) -> u64 {
    (((x | x.wrapping_neg()) >> 63) & 1).wrapping_neg()
}

/// Element `i` of a packed row.
#[inline(always)]
fn elem(row: &[u64], i: usize) -> u8 {
    ((row[i / 16] >> (4 * (i % 16))) & 15) as u8
}

/// row * a, constant time in a, for a packed row of `w` limbs.
fn scale(row: &mut [u64], a: u8) {
    for limb in row.iter_mut() {
        let mut acc = 0u64;
        let mut x = *limb;
        for bit in 0..4 {
            acc ^= x & (((a >> bit) & 1) as u64).wrapping_neg();
            x = gf16::limb_times_x(x);
        }
        *limb = acc;
    }
}

/// x = r + z with A x = y (A: m rows, given by its columns as m-vectors), or `None` if A has
/// rank below m.
pub(crate) fn sample_solution<const L: usize>(
    a: &[MVec<L>],
    m: usize,
    y: &[u8],
    r: &[u8],
) -> Option<Vec<u8>> {
    sample_solution_with(Kernel::best::<L>(), a, m, y, r)
}

/// [`sample_solution`] in the given form (which must be one this CPU runs).
pub(crate) fn sample_solution_with<const L: usize>(
    kernel: Kernel,
    a: &[MVec<L>],
    m: usize,
    y: &[u8],
    r: &[u8],
) -> Option<Vec<u8>> {
    let cols = a.len();
    if cols < m {
        return None;
    }
    // y - A r, as an m-vector: the columns weighted by r.
    let mut ar = [0u64; L];
    for (col, &rc) in a.iter().zip(r) {
        gf16::mul_add_pre(&mut ar, &gf16::multiples(col), rc);
    }
    let yv: MVec<L> = gf16::load_mvec(&gf16::encode(y));
    for (x, y) in ar.iter_mut().zip(yv) {
        *x ^= y;
    }
    // Rows packed 16 elements per limb, with y - A r as the last column: [A | y - A r]^T's
    // columns are its rows.
    let w = (cols + 1).div_ceil(16);
    let mut ext = Zeroizing::new(Vec::with_capacity((cols + 1) * L));
    for col in a.iter().chain(core::iter::once(&ar)) {
        ext.extend_from_slice(col);
    }
    let mut rows = Zeroizing::new(transpose_nibbles(&ext, cols + 1, L, m, w));
    ext.zeroize();
    ar.zeroize();
    #[cfg(target_arch = "x86_64")]
    if kernel == Kernel::Gfni && w <= 8 && m.div_ceil(16) <= 8 {
        // SAFETY: `Kernel::Gfni` is only chosen where AVX-512F, AVX-512VL and GFNI are present;
        // rows and columns have at most 8 limbs.
        #[allow(unsafe_code)]
        let z = unsafe { gfni::solve(&rows, m, w, cols) }?;
        return Some(r.iter().zip(z.iter()).map(|(a, b)| a ^ b).collect());
    }
    let rank = eliminate(kernel, &mut rows, m, w, cols);
    if rank != m as u64 {
        return None;
    }
    // Reduced echelon form with rank m: row i's first non-zero entry (a 1) marks its pivot
    // column, whose z value is row i's right-hand side.
    let mut x = r.to_vec();
    for i in 0..m {
        let row = &rows[i * w..(i + 1) * w];
        let rhs = elem(row, cols);
        let mut done = 0u64;
        for (c, xc) in x.iter_mut().enumerate() {
            let hit = nonzero_mask(elem(row, c) as u64) & !done;
            *xc ^= rhs & hit as u8;
            done |= hit;
        }
    }
    Some(x)
}

/// The transpose of a matrix of elements held as `n` packed vectors of `limbs` limbs (vector i
/// holds row i, element j in nibble j): `n_out` packed vectors of `limbs_out` limbs, vector j
/// holding column j. Works on 16 x 16 blocks of nibbles, one 64-bit word per block row,
/// transposed in four rounds of swapping half-blocks (8, 4, 2, then 1 nibble wide).
pub(crate) fn transpose_nibbles(
    src: &[u64],
    n: usize,
    limbs: usize,
    n_out: usize,
    limbs_out: usize,
) -> Vec<u64> {
    const MASKS: [(usize, u64); 4] = [
        (8, 0x0000_0000_ffff_ffff),
        (4, 0x0000_ffff_0000_ffff),
        (2, 0x00ff_00ff_00ff_00ff),
        (1, 0x0f0f_0f0f_0f0f_0f0f),
    ];
    let mut out = vec![0u64; n_out * limbs_out];
    for sb in 0..n.div_ceil(16).min(limbs_out) {
        for t in 0..limbs.min(n_out.div_ceil(16)) {
            let mut blk = [0u64; 16];
            for (c, b) in blk.iter_mut().enumerate() {
                if let Some(v) = src.get((16 * sb + c) * limbs..(16 * sb + c + 1) * limbs) {
                    *b = v[t];
                }
            }
            for (k, mask) in MASKS {
                for r in 0..16 {
                    if r & k == 0 {
                        let d = ((blk[r] >> (4 * k)) ^ blk[r + k]) & mask;
                        blk[r] ^= d << (4 * k);
                        blk[r + k] ^= d;
                    }
                }
            }
            for (i, b) in blk.iter().enumerate() {
                if let Some(o) = out.get_mut((16 * t + i) * limbs_out + sb) {
                    *o = *b;
                }
            }
        }
    }
    out
}

/// Brings the packed rows (m rows of w limbs, `cols` columns before the right-hand side) to
/// reduced row echelon form in constant time; returns the rank (the number of pivots found).
fn eliminate(kernel: Kernel, rows: &mut [u64], m: usize, w: usize, cols: usize) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if w <= 8 && kernel != Kernel::Portable {
        // SAFETY: the vector kernels are only chosen where AVX-512F is present; rows have at
        // most 8 limbs.
        #[allow(unsafe_code)]
        return unsafe { avx512::eliminate(rows, m, w, cols) };
    }
    let mut pivot_row = 0u64;
    let mut piv = vec![0u64; w];
    let mut mults = vec![[0u64; 4]; w];
    for col in 0..cols {
        // Only rows lo..=hi can hold the next pivot: with fewer pivots than col - (cols - m) so
        // far, rank m is out of reach and the outcome is discarded anyway.
        let lo = col.saturating_sub(cols - m);
        let hi = col.min(m - 1);
        // The candidate pivot row, then rows below it added in until its entry is non-zero.
        piv.fill(0);
        for i in lo..=hi {
            let sel = !nonzero_mask(i as u64 ^ pivot_row);
            for (p, x) in piv.iter_mut().zip(&rows[i * w..(i + 1) * w]) {
                *p ^= x & sel;
            }
        }
        for i in lo + 1..m {
            // i > pivot_row
            let below = (pivot_row.wrapping_sub(i as u64) >> 63).wrapping_neg();
            let need = !nonzero_mask(elem(&piv, col) as u64);
            let take = below & need;
            for (p, x) in piv.iter_mut().zip(&rows[i * w..(i + 1) * w]) {
                *p ^= x & take;
            }
        }
        let found = nonzero_mask(elem(&piv, col) as u64);
        let pivot_inv = gf16::inv(elem(&piv, col));
        scale(&mut piv, pivot_inv);
        for (k, p) in piv.iter().enumerate() {
            let mut x = *p;
            for j in 0..4 {
                mults[k][j] = x;
                x = gf16::limb_times_x(x);
            }
        }
        // Write the pivot row back, and clear column `col` from every other row.
        for i in 0..m {
            let row = &mut rows[i * w..(i + 1) * w];
            let is_pivot = !nonzero_mask(i as u64 ^ pivot_row) & found;
            let f = elem(row, col);
            let fm: [u64; 4] =
                core::array::from_fn(|b| (((f >> b) & 1) as u64).wrapping_neg() & found);
            for (k, limb) in row.iter_mut().enumerate() {
                let elim = (mults[k][0] & fm[0])
                    ^ (mults[k][1] & fm[1])
                    ^ (mults[k][2] & fm[2])
                    ^ (mults[k][3] & fm[3]);
                let updated = *limb ^ elim;
                *limb = (updated & !is_pivot) | (piv[k] & is_pivot);
            }
        }
        pivot_row += found & 1;
    }
    piv.fill(0);
    pivot_row
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx512 {
    //! The same elimination with each row in one 512-bit register: a row operation is four
    //! three-input logic instructions whatever the multiplier, and the pivot row's write-back one
    //! more. Decisions (which rows to add, the pivot's inverse) are taken on scalar copies of the
    //! column's elements, through masks.
    use super::nonzero_mask;
    use crate::gf16;
    use core::arch::x86_64::*;

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn bcast(x: u64) -> __m512i {
        _mm512_set1_epi64(x as i64)
    }

    use crate::kernels::avx512_multiples as multiples;

    /// acc ^ f * v for the element f (whose bits are ANDed with `on`), given v's multiples.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn mul_add(acc: __m512i, m: &[__m512i; 4], f: u8, on: u64) -> __m512i {
        let mut acc = acc;
        for b in 0..4 {
            let mask = (((f >> b) & 1) as u64).wrapping_neg() & on;
            acc = _mm512_ternarylogic_epi64::<0x78>(acc, m[b], bcast(mask));
        }
        acc
    }

    #[target_feature(enable = "avx512f")]
    pub(super) fn eliminate(rows: &mut [u64], m: usize, w: usize, cols: usize) -> u64 {
        let lanes = ((1u32 << w) - 1) as __mmask8;
        // SAFETY (loads and stores): the mask limits each access to the w limbs of row i.
        let load = |rows: &[u64], i: usize| unsafe {
            _mm512_maskz_loadu_epi64(lanes, rows[i * w..].as_ptr().cast())
        };
        let mut regs: Vec<__m512i> = (0..m).map(|i| load(rows, i)).collect();
        // Scalar copies of every row's limb holding the current column, refreshed per column.
        let limb_of = |regs: &[__m512i], i: usize, col: usize| -> u64 {
            let mut out = [0u64; 8];
            // SAFETY: `out` has 8 limbs.
            unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), regs[i]) };
            out[col / 16]
        };
        let mut pivot_row = 0u64;
        for col in 0..cols {
            let shift = 4 * (col % 16);
            let e: Vec<u8> = (0..m)
                .map(|i| ((limb_of(&regs, i, col) >> shift) & 15) as u8)
                .collect();
            let lo = col.saturating_sub(cols - m);
            let hi = col.min(m - 1);
            let mut piv = _mm512_setzero_si512();
            let mut pe = 0u8;
            for i in lo..=hi {
                let sel = !nonzero_mask(i as u64 ^ pivot_row);
                piv = _mm512_ternarylogic_epi64::<0x78>(piv, regs[i], bcast(sel));
                pe ^= e[i] & sel as u8;
            }
            for i in lo + 1..m {
                let below = (pivot_row.wrapping_sub(i as u64) >> 63).wrapping_neg();
                let take = below & !nonzero_mask(pe as u64);
                piv = _mm512_ternarylogic_epi64::<0x78>(piv, regs[i], bcast(take));
                pe ^= e[i] & take as u8;
            }
            let found = nonzero_mask(pe as u64);
            // Scale the pivot row by pe^-1: its multiples selected by the inverse's bits.
            let scaled = mul_add(_mm512_setzero_si512(), &multiples(piv), gf16::inv(pe), !0);
            let mults = multiples(scaled);
            for i in 0..m {
                let is_pivot = !nonzero_mask(i as u64 ^ pivot_row) & found;
                let updated = mul_add(regs[i], &mults, e[i], found);
                // is_pivot ? scaled : updated
                regs[i] = _mm512_ternarylogic_epi64::<0xac>(bcast(is_pivot), updated, scaled);
            }
            pivot_row += found & 1;
        }
        for (i, r) in regs.iter().enumerate() {
            // SAFETY: the mask limits the store to the w limbs of row i.
            unsafe { _mm512_mask_storeu_epi64(rows[i * w..].as_mut_ptr().cast(), lanes, *r) };
        }
        pivot_row
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod gfni {
    //! Elimination to row echelon form only (rows below the pivot), then back substitution on
    //! the right-hand side alone, as MAYO-C does, with a row per 512-bit register and a row
    //! operation as one `vgf2p8affineqb` (the factor as a bit matrix, see `kernels::gfni`) and
    //! one XOR. Constant time in the entries: pivots are chosen, written back and used through
    //! masks; only the rows that can lie below the pivot (a public bound) are visited.
    use super::{nonzero_mask, transpose_nibbles};
    use crate::gf16;
    use crate::kernels::gfni_matrix as matrix;
    use core::arch::x86_64::*;
    use zeroize::{Zeroize, Zeroizing};

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn bcast(x: u64) -> __m512i {
        _mm512_set1_epi64(x as i64)
    }

    /// f * v for every element of v.
    #[inline]
    #[target_feature(enable = "avx512f,gfni")]
    fn times(v: __m512i, f: u8) -> __m512i {
        _mm512_gf2p8affine_epi64_epi8::<0>(v, bcast(matrix(f)))
    }

    /// z with A z = y - A r, zero off the pivot columns, from the packed rows of [A | y - A r]
    /// (m rows of w limbs); `None` if A has rank below m.
    #[target_feature(enable = "avx512f,avx512vl,gfni")]
    pub(super) fn solve(packed: &[u64], m: usize, w: usize, cols: usize) -> Option<Vec<u8>> {
        let mut rows: Zeroizing<Vec<[u64; 8]>> = Zeroizing::new(vec![[0u64; 8]; m]);
        for (row, src) in rows.iter_mut().zip(packed.chunks_exact(w)) {
            row[..w].copy_from_slice(src);
        }
        // SAFETY (loads and stores): each row is 8 limbs.
        let load = |r: &[u64; 8]| unsafe { _mm512_loadu_si512(r.as_ptr().cast()) };
        let store =
            |r: &mut [u64; 8], x: __m512i| unsafe { _mm512_storeu_si512(r.as_mut_ptr().cast(), x) };
        let elem = |r: &[u64; 8], c: usize| ((r[c / 16] >> (4 * (c % 16))) & 15) as u8;
        let mut pivot_row = 0u64;
        for col in 0..cols {
            // Fewer than col - (cols - m) pivots so far means rank m is out of reach (the
            // outcome is discarded), so rows above lo are pivot rows already.
            let lo = col.saturating_sub(cols - m);
            let hi = col.min(m - 1);
            let mut piv = _mm512_setzero_si512();
            let mut pe = 0u8;
            for i in lo..=hi {
                let sel = !nonzero_mask(i as u64 ^ pivot_row);
                piv = _mm512_ternarylogic_epi64::<0x78>(piv, load(&rows[i]), bcast(sel));
                pe ^= elem(&rows[i], col) & sel as u8;
            }
            for i in lo + 1..m {
                let below = (pivot_row.wrapping_sub(i as u64) >> 63).wrapping_neg();
                let take = below & !nonzero_mask(pe as u64);
                piv = _mm512_ternarylogic_epi64::<0x78>(piv, load(&rows[i]), bcast(take));
                pe ^= elem(&rows[i], col) & take as u8;
            }
            let found = nonzero_mask(pe as u64);
            let scaled = times(piv, gf16::inv(pe));
            for i in lo..m {
                let row = load(&rows[i]);
                let is_pivot = !nonzero_mask(i as u64 ^ pivot_row) & found;
                let below = (pivot_row.wrapping_sub(i as u64) >> 63).wrapping_neg() & found;
                let f = elem(&rows[i], col) & below as u8;
                let updated = _mm512_xor_si512(row, times(scaled, f));
                // is_pivot ? scaled : updated
                store(
                    &mut rows[i],
                    _mm512_ternarylogic_epi64::<0xac>(bcast(is_pivot), updated, scaled),
                );
            }
            pivot_row += found & 1;
        }
        if pivot_row != m as u64 {
            return None;
        }
        // Echelon form, every row a pivot row with a leading 1, pivots left to right. Row i's
        // pivot lies in i..=i + cols - m. From the bottom: z at row i's pivot is its current
        // right-hand side, which is then taken out of the right-hand sides of every row,
        // through the pivot column (columns come from transposing the rows).
        let mut flat = Zeroizing::new(Vec::with_capacity(m * w));
        for row in rows.iter() {
            flat.extend_from_slice(&row[..w]);
        }
        let ml = m.div_ceil(16);
        let columns = Zeroizing::new(transpose_nibbles(&flat, m, w, cols + 1, ml));
        let col_lanes = ((1u32 << ml) - 1) as __mmask8;
        // SAFETY: the mask limits the load to the ml limbs of column c.
        let column = |c: usize| unsafe {
            _mm512_maskz_loadu_epi64(col_lanes, columns[c * ml..].as_ptr().cast())
        };
        let mut rhs = [0u64; 8];
        store(&mut rhs, column(cols));
        let mut z = vec![0u8; cols];
        for i in (0..m).rev() {
            let ri = elem(&rhs, i);
            let mut done = 0u64;
            let mut acc = load(&rhs);
            for c in i..=i + cols - m {
                let hit = nonzero_mask(elem(&rows[i], c) as u64) & !done;
                let u = ri & hit as u8;
                z[c] ^= u;
                acc = _mm512_xor_si512(acc, times(column(c), u));
                done |= hit;
            }
            store(&mut rhs, acc);
        }
        rhs.zeroize();
        Some(z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mat_vec(a: &[u8], cols: usize, x: &[u8]) -> Vec<u8> {
        a.chunks_exact(cols)
            .map(|row| {
                row.iter()
                    .zip(x)
                    .fold(0, |acc, (a, b)| acc ^ gf16::mul(*a, *b))
            })
            .collect()
    }

    /// The columns of a row-major m x cols matrix as m-vectors (m <= 64).
    fn columns(a: &[u8], m: usize, cols: usize) -> Vec<MVec<4>> {
        (0..cols)
            .map(|c| {
                let mut v = [0u64; 4];
                for i in 0..m {
                    v[i / 16] |= (a[i * cols + c] as u64) << (4 * (i % 16));
                }
                v
            })
            .collect()
    }

    fn solve(a: &[u8], m: usize, cols: usize, y: &[u8], r: &[u8]) -> Option<Vec<u8>> {
        sample_solution(&columns(a, m, cols), m, y, r)
    }

    #[test]
    fn solves_random_systems_and_refuses_rank_deficient_ones() {
        let mut seed = 0x1234_5678u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed & 15) as u8
        };
        for (m, cols) in [(5, 9), (16, 20), (17, 17), (40, 44)] {
            for _ in 0..20 {
                let a: Vec<u8> = (0..m * cols).map(|_| next()).collect();
                let y: Vec<u8> = (0..m).map(|_| next()).collect();
                let r: Vec<u8> = (0..cols).map(|_| next()).collect();
                if let Some(x) = solve(&a, m, cols, &y, &r) {
                    assert_eq!(mat_vec(&a, cols, &x), y);
                }
            }
            // Two equal rows: rank below m.
            let mut a: Vec<u8> = (0..m * cols).map(|_| next()).collect();
            a.copy_within(0..cols, cols);
            let y = vec![0u8; m];
            assert!(solve(&a, m, cols, &y, &vec![0; cols]).is_none());
        }
    }

    #[test]
    fn the_solution_differs_from_r_only_at_pivot_columns() {
        // A = [I | B]: pivots are the first m columns, so x agrees with r on the others.
        let (m, cols) = (4, 7);
        let mut a = vec![0u8; m * cols];
        for i in 0..m {
            a[i * cols + i] = 1;
            for j in m..cols {
                a[i * cols + j] = ((i * 3 + j) % 16) as u8;
            }
        }
        let y = vec![1, 2, 3, 4];
        let r = vec![5, 6, 7, 8, 9, 10, 11];
        let x = solve(&a, m, cols, &y, &r).unwrap();
        assert_eq!(&x[m..], &r[m..]);
        assert_eq!(mat_vec(&a, cols, &x), y);
    }

    /// Random m x cols systems in the m-vectors of L limbs, solved by every form this CPU runs:
    /// all agree (the solution is unique once A has rank m) and solve the system.
    fn forms_agree<const L: usize>(m: usize, cols: usize, seed: u64) {
        // SplitMix64: xorshift is linear over GF(2), so its output bits span at most 64
        // dimensions and a larger matrix drawn from it is never of full rank.
        let mut x = seed;
        let mut next = move || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 60) as u8
        };
        let kernels = Kernel::available::<L>();
        let mut solved = 0;
        for trial in 0..12 {
            let a: Vec<u8> = (0..m * cols).map(|_| next()).collect();
            let mut cols_a: Vec<MVec<L>> = (0..cols)
                .map(|c| {
                    let mut v = [0u64; L];
                    for i in 0..m {
                        v[i / 16] |= (a[i * cols + c] as u64) << (4 * (i % 16));
                    }
                    v
                })
                .collect();
            if trial % 4 == 3 {
                // Rank below m: row 1 a copy of row 0.
                for v in cols_a.iter_mut() {
                    let e = gf16::get(v, 0) as u64;
                    v[0] = (v[0] & !0xf0) | (e << 4);
                }
            }
            let y: Vec<u8> = (0..m).map(|_| next()).collect();
            let r: Vec<u8> = (0..cols).map(|_| next()).collect();
            let want = sample_solution_with(Kernel::Portable, &cols_a, m, &y, &r);
            if trial % 4 == 3 {
                assert!(want.is_none());
            }
            if let Some(x) = &want {
                let mut ax = vec![0u8; m];
                for (c, v) in cols_a.iter().enumerate() {
                    for (i, e) in ax.iter_mut().enumerate() {
                        *e ^= gf16::mul(gf16::get(v, i), x[c]);
                    }
                }
                assert_eq!(ax, y);
                solved += 1;
            }
            for &k in &kernels {
                assert_eq!(sample_solution_with(k, &cols_a, m, &y, &r), want, "{k:?}");
            }
        }
        assert!(solved >= 6, "{solved} of 12 at m = {m}, cols = {cols}");
    }

    #[test]
    fn every_form_finds_the_same_solution() {
        forms_agree::<4>(64, 68, 0x1234_5678_9abc_def1); // MAYO_2
        forms_agree::<5>(78, 80, 0x0fed_cba9_8765_4321); // MAYO_1
        forms_agree::<7>(108, 110, 0x5555_aaaa_3333_cccc); // MAYO_3
        forms_agree::<2>(17, 30, 0x0123_4567_89ab_cdef);
    }

    #[test]
    fn nibble_transpose_is_the_transpose() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for (n, limbs, n_out, limbs_out) in [(69, 4, 64, 5), (81, 5, 78, 6), (3, 1, 16, 1)] {
            let src: Vec<u64> = (0..n * limbs)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x
                })
                .collect();
            let t = transpose_nibbles(&src, n, limbs, n_out, limbs_out);
            for i in 0..n {
                for j in 0..n_out.min(16 * limbs) {
                    assert_eq!(elem(&t[j * limbs_out..], i), elem(&src[i * limbs..], j));
                }
            }
        }
    }
}
