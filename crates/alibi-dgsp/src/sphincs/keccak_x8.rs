//! Eight Keccak-f[1600] permutations side by side (FIPS 202 §3), for SPHINCS+'s many independent
//! short hashes. With AVX-512 each of the 25 state words is one 512-bit register holding that word
//! of all eight instances, so a round costs what one scalar round costs; chi is a single
//! three-input logic instruction. Elsewhere the eight states go through the scalar permutation.

/// Eight Keccak states, transposed: `w[i][j]` is word i of instance j.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct State8 {
    /// The words, word-major.
    pub w: [[u64; 8]; 25],
}

impl State8 {
    /// All-zero states.
    pub const fn zero() -> Self {
        State8 { w: [[0; 8]; 25] }
    }

    /// Applies Keccak-f[1600] to all eight states.
    #[inline]
    pub fn permute(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if has_avx512() {
            // SAFETY: the CPU supports AVX-512F, checked at run time just above.
            #[allow(unsafe_code)]
            unsafe {
                avx512::f1600(self)
            };
            return;
        }
        self.permute_portable();
    }

    /// The scalar fallback, one instance at a time (also what tests compare against).
    pub fn permute_portable(&mut self) {
        for j in 0..8 {
            let mut s = [0u64; 25];
            for (i, word) in s.iter_mut().enumerate() {
                *word = self.w[i][j];
            }
            crate::sphincs::f1600(&mut s);
            for (i, word) in s.iter().enumerate() {
                self.w[i][j] = *word;
            }
        }
    }
}

/// Whether the eight-way permutation runs on AVX-512 here.
pub(crate) fn has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

// The round constants of iota (FIPS 202 §3.2.5): the workspace's one copy.
#[cfg(target_arch = "x86_64")]
use alibi_keccak::RC;

// The crate denies unsafe code; this module is its one exception: SIMD intrinsics behind a
// run-time CPU check, with no pointer arithmetic beyond whole-row loads and stores.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx512 {
    use super::{State8, RC};
    use core::arch::x86_64::*;

    /// theta's five-way column parity and chi's a ^ (!b & c), as vpternlogq truth tables.
    const XOR3: i32 = 0x96;
    const CHI: i32 = 0xd2;

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn xor5(a: __m512i, b: __m512i, c: __m512i, d: __m512i, e: __m512i) -> __m512i {
        let t = _mm512_ternarylogic_epi64::<XOR3>(a, b, c);
        _mm512_ternarylogic_epi64::<XOR3>(t, d, e)
    }

    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn f1600(s: &mut State8) {
        let mut a = [_mm512_setzero_si512(); 25];
        for (lane, words) in a.iter_mut().zip(s.w.iter()) {
            // SAFETY: each row is 8 u64 = 64 bytes; unaligned loads accept any address.
            *lane = unsafe { _mm512_loadu_si512(words.as_ptr().cast()) };
        }
        // Written out lane by lane (constant rotations, no index arithmetic) so that the whole
        // state stays in the 32 zmm registers. Lane x + 5y is rotated by rho's offset (FIPS 202
        // Table 2) and moved by pi to (y, 2x + 3y).
        for rc in RC {
            // theta
            let c0 = xor5(a[0], a[5], a[10], a[15], a[20]);
            let c1 = xor5(a[1], a[6], a[11], a[16], a[21]);
            let c2 = xor5(a[2], a[7], a[12], a[17], a[22]);
            let c3 = xor5(a[3], a[8], a[13], a[18], a[23]);
            let c4 = xor5(a[4], a[9], a[14], a[19], a[24]);
            let d0 = _mm512_xor_si512(c4, _mm512_rol_epi64::<1>(c1));
            let d1 = _mm512_xor_si512(c0, _mm512_rol_epi64::<1>(c2));
            let d2 = _mm512_xor_si512(c1, _mm512_rol_epi64::<1>(c3));
            let d3 = _mm512_xor_si512(c2, _mm512_rol_epi64::<1>(c4));
            let d4 = _mm512_xor_si512(c3, _mm512_rol_epi64::<1>(c0));
            // rho and pi, fused with theta's column update
            let b0 = _mm512_xor_si512(a[0], d0);
            let b1 = _mm512_rol_epi64::<44>(_mm512_xor_si512(a[6], d1));
            let b2 = _mm512_rol_epi64::<43>(_mm512_xor_si512(a[12], d2));
            let b3 = _mm512_rol_epi64::<21>(_mm512_xor_si512(a[18], d3));
            let b4 = _mm512_rol_epi64::<14>(_mm512_xor_si512(a[24], d4));
            let b5 = _mm512_rol_epi64::<28>(_mm512_xor_si512(a[3], d3));
            let b6 = _mm512_rol_epi64::<20>(_mm512_xor_si512(a[9], d4));
            let b7 = _mm512_rol_epi64::<3>(_mm512_xor_si512(a[10], d0));
            let b8 = _mm512_rol_epi64::<45>(_mm512_xor_si512(a[16], d1));
            let b9 = _mm512_rol_epi64::<61>(_mm512_xor_si512(a[22], d2));
            let b10 = _mm512_rol_epi64::<1>(_mm512_xor_si512(a[1], d1));
            let b11 = _mm512_rol_epi64::<6>(_mm512_xor_si512(a[7], d2));
            let b12 = _mm512_rol_epi64::<25>(_mm512_xor_si512(a[13], d3));
            let b13 = _mm512_rol_epi64::<8>(_mm512_xor_si512(a[19], d4));
            let b14 = _mm512_rol_epi64::<18>(_mm512_xor_si512(a[20], d0));
            let b15 = _mm512_rol_epi64::<27>(_mm512_xor_si512(a[4], d4));
            let b16 = _mm512_rol_epi64::<36>(_mm512_xor_si512(a[5], d0));
            let b17 = _mm512_rol_epi64::<10>(_mm512_xor_si512(a[11], d1));
            let b18 = _mm512_rol_epi64::<15>(_mm512_xor_si512(a[17], d2));
            let b19 = _mm512_rol_epi64::<56>(_mm512_xor_si512(a[23], d3));
            let b20 = _mm512_rol_epi64::<62>(_mm512_xor_si512(a[2], d2));
            let b21 = _mm512_rol_epi64::<55>(_mm512_xor_si512(a[8], d3));
            let b22 = _mm512_rol_epi64::<39>(_mm512_xor_si512(a[14], d4));
            let b23 = _mm512_rol_epi64::<41>(_mm512_xor_si512(a[15], d0));
            let b24 = _mm512_rol_epi64::<2>(_mm512_xor_si512(a[21], d1));
            // chi
            a[0] = _mm512_ternarylogic_epi64::<CHI>(b0, b1, b2);
            a[1] = _mm512_ternarylogic_epi64::<CHI>(b1, b2, b3);
            a[2] = _mm512_ternarylogic_epi64::<CHI>(b2, b3, b4);
            a[3] = _mm512_ternarylogic_epi64::<CHI>(b3, b4, b0);
            a[4] = _mm512_ternarylogic_epi64::<CHI>(b4, b0, b1);
            a[5] = _mm512_ternarylogic_epi64::<CHI>(b5, b6, b7);
            a[6] = _mm512_ternarylogic_epi64::<CHI>(b6, b7, b8);
            a[7] = _mm512_ternarylogic_epi64::<CHI>(b7, b8, b9);
            a[8] = _mm512_ternarylogic_epi64::<CHI>(b8, b9, b5);
            a[9] = _mm512_ternarylogic_epi64::<CHI>(b9, b5, b6);
            a[10] = _mm512_ternarylogic_epi64::<CHI>(b10, b11, b12);
            a[11] = _mm512_ternarylogic_epi64::<CHI>(b11, b12, b13);
            a[12] = _mm512_ternarylogic_epi64::<CHI>(b12, b13, b14);
            a[13] = _mm512_ternarylogic_epi64::<CHI>(b13, b14, b10);
            a[14] = _mm512_ternarylogic_epi64::<CHI>(b14, b10, b11);
            a[15] = _mm512_ternarylogic_epi64::<CHI>(b15, b16, b17);
            a[16] = _mm512_ternarylogic_epi64::<CHI>(b16, b17, b18);
            a[17] = _mm512_ternarylogic_epi64::<CHI>(b17, b18, b19);
            a[18] = _mm512_ternarylogic_epi64::<CHI>(b18, b19, b15);
            a[19] = _mm512_ternarylogic_epi64::<CHI>(b19, b15, b16);
            a[20] = _mm512_ternarylogic_epi64::<CHI>(b20, b21, b22);
            a[21] = _mm512_ternarylogic_epi64::<CHI>(b21, b22, b23);
            a[22] = _mm512_ternarylogic_epi64::<CHI>(b22, b23, b24);
            a[23] = _mm512_ternarylogic_epi64::<CHI>(b23, b24, b20);
            a[24] = _mm512_ternarylogic_epi64::<CHI>(b24, b20, b21);
            // iota
            a[0] = _mm512_xor_si512(a[0], _mm512_set1_epi64(rc as i64));
        }
        for (lane, words) in a.iter().zip(s.w.iter_mut()) {
            // SAFETY: as for the loads.
            unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), *lane) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_scalar_permutation() {
        // A xorshift fill: the point is eight different states, not their distribution.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut s = State8::zero();
        for row in s.w.iter_mut() {
            for v in row.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *v = x;
            }
        }
        let mut fast = s;
        let mut slow = s;
        for _ in 0..3 {
            fast.permute();
            slow.permute_portable();
        }
        assert_eq!(fast.w, slow.w);
        assert_ne!(fast.w, s.w);
    }

    #[test]
    fn zero_state_matches_the_keccak_team_value() {
        // Keccak-f[1600] of the all-zero state: first word F1258F7940E1DDE7 (KeccakF-1600 test
        // vectors, "IntermediateValues").
        let mut s = State8::zero();
        s.permute();
        for j in 0..8 {
            assert_eq!(s.w[0][j], 0xF125_8F79_40E1_DDE7);
        }
    }
}
