//! Two Keccak-f[1600] states permuted together, and two sponges absorbed side by side: for
//! callers with two independent hashes of long inputs (PQ-AKEM's decapsulation hashes the ring
//! signature's message and the session key's input, about 5 KB each).
//!
//! With AVX-512VL the two states share 128-bit registers, lane j of register i being word i of
//! state j, and each step of a round (theta's parities, chi) is one three-input logic instruction;
//! a pair costs about what one state costs on the scalar build. Elsewhere the two states go through
//! [`crate::f1600`] one after the other.

use zeroize::Zeroizing;

use crate::sponge::{Parts, Sponge};
use crate::{f1600, Sha3_256, Sha3_512, Shake128, Shake256, XofReader};

/// Keccak-f[1600] on two states.
pub fn f1600_x2(a: &mut [u64; 25], b: &mut [u64; 25]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx512vl() {
        #[allow(unsafe_code)]
        // SAFETY: the CPU supports AVX-512F and AVX-512VL, checked just above.
        unsafe {
            avx512vl::f1600_x2(a, b)
        };
        return;
    }
    f1600(a);
    f1600(b);
}

/// Whether [`f1600_x2`] runs on AVX-512VL here.
#[cfg(target_arch = "x86_64")]
fn has_avx512vl() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

/// A hash whose input [`absorb_pair`] can take: SHA3-256, SHA3-512, SHAKE128, SHAKE256.
pub trait Absorb: private::Sealed {}

mod private {
    // Sealed: the accessor names a crate-private type on purpose, so no other crate implements it.
    #[allow(private_interfaces)]
    pub trait Sealed {
        fn sponge(&mut self) -> &mut super::Sponge;
        fn into_sponge(self) -> super::Sponge;
    }
}

macro_rules! absorb {
    ($($t:ty),*) => {$(
        impl Absorb for $t {}
        #[allow(private_interfaces)]
        impl private::Sealed for $t {
            fn sponge(&mut self) -> &mut Sponge {
                &mut self.0
            }
            fn into_sponge(self) -> Sponge {
                self.0
            }
        }
    )*};
}
absorb!(Sha3_256, Sha3_512, Shake128, Shake256);

/// An extendable-output function: SHAKE128 or SHAKE256.
pub trait Xof: Absorb {}
impl Xof for Shake128 {}
impl Xof for Shake256 {}

/// Absorbs the concatenation of `xs` into `x` and that of `ys` into `y`, with the permutations of
/// the two running as pairs while both have input: the same states as two `update` sequences.
pub fn absorb_pair<X: Absorb, Y: Absorb>(x: &mut X, xs: &[&[u8]], y: &mut Y, ys: &[&[u8]]) {
    let (x, y) = (x.sponge(), y.sponge());
    let (mut xs, mut ys) = (Parts::new(xs), Parts::new(ys));
    loop {
        let (fx, fy) = (x.fill(&mut xs), y.fill(&mut ys));
        if !permute_wanted(x, fx, y, fy) {
            return;
        }
    }
}

/// Permutes whichever of `x` and `y` wants it (both as a pair when both do); false when neither
/// does.
fn permute_wanted(x: &mut Sponge, x_wants: bool, y: &mut Sponge, y_wants: bool) -> bool {
    match (x_wants, y_wants) {
        (true, true) => {
            f1600_x2(&mut x.a, &mut y.a);
            x.pos = 0;
            y.pos = 0;
        }
        (true, false) => x.permute(),
        (false, true) => y.permute(),
        (false, false) => return false,
    }
    true
}

/// [`absorb_pair`], then `x` finished and its first `ahead` bytes of output squeezed, with `x`'s
/// permutations paired with `y`'s for as long as `y` has input: for a caller whose `x` is the
/// shorter input and who knows about how much output it will read. The reader serves those bytes
/// first, then squeezes on.
pub fn absorb_pair_read<X: Xof, Y: Absorb>(
    mut x: X,
    xs: &[&[u8]],
    ahead: usize,
    y: &mut Y,
    ys: &[&[u8]],
) -> XofReader {
    let mut out = Zeroizing::new(vec![0u8; ahead]);
    let (xp, yp) = (x.sponge(), y.sponge());
    let (mut xs, mut ys) = (Parts::new(xs), Parts::new(ys));
    let (mut absorbing, mut written) = (true, 0);
    loop {
        let x_wants = if absorbing {
            if !xp.fill(&mut xs) {
                // The input is all in: pad, and the next permutation is the finishing one.
                xp.pad();
                absorbing = false;
            }
            true
        } else if written < ahead {
            written += xp.copy_out(&mut out[written..]);
            written < ahead
        } else {
            false
        };
        let y_wants = yp.fill(&mut ys);
        if !permute_wanted(xp, x_wants, yp, y_wants) {
            return XofReader::new(x.into_sponge(), out);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx512vl {
    use crate::{RC, RHO};
    use core::arch::x86_64::*;

    const XOR3: i32 = 0x96;
    const CHI: i32 = 0xd2;

    #[target_feature(enable = "avx512f,avx512vl")]
    pub(super) fn f1600_x2(a: &mut [u64; 25], b: &mut [u64; 25]) {
        let mut s: [__m128i; 25] =
            core::array::from_fn(|i| _mm_set_epi64x(b[i] as i64, a[i] as i64));
        for rc in RC {
            let mut c = [_mm_setzero_si128(); 5];
            for (x, cx) in c.iter_mut().enumerate() {
                let t = _mm_ternarylogic_epi64::<XOR3>(s[x], s[x + 5], s[x + 10]);
                *cx = _mm_ternarylogic_epi64::<XOR3>(t, s[x + 15], s[x + 20]);
            }
            let mut t = [_mm_setzero_si128(); 25];
            for x in 0..5 {
                let d = _mm_xor_si128(c[(x + 4) % 5], _mm_rol_epi64::<1>(c[(x + 1) % 5]));
                for y in 0..5 {
                    let i = x + 5 * y;
                    let r = _mm_set1_epi64x(RHO[i] as i64);
                    t[y + 5 * ((2 * x + 3 * y) % 5)] = _mm_rolv_epi64(_mm_xor_si128(s[i], d), r);
                }
            }
            for y in 0..5 {
                for x in 0..5 {
                    s[x + 5 * y] = _mm_ternarylogic_epi64::<CHI>(
                        t[x + 5 * y],
                        t[(x + 1) % 5 + 5 * y],
                        t[(x + 2) % 5 + 5 * y],
                    );
                }
            }
            s[0] = _mm_xor_si128(s[0], _mm_set_epi64x(rc as i64, rc as i64));
        }
        for i in 0..25 {
            let mut w = [0u64; 2];
            // SAFETY: `w` is 16 bytes; unaligned stores accept any address.
            unsafe { _mm_storeu_si128(w.as_mut_ptr().cast(), s[i]) };
            a[i] = w[0];
            b[i] = w[1];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_agree_with_single_states() {
        let mut st = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..500 {
            let mut a = [0u64; 25];
            let mut b = [0u64; 25];
            for w in a.iter_mut().chain(b.iter_mut()) {
                st = st
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                *w = st ^ (st >> 31);
            }
            let (mut a1, mut b1) = (a, b);
            crate::f1600_portable(&mut a1);
            crate::f1600_portable(&mut b1);
            f1600_x2(&mut a, &mut b);
            assert_eq!(a, a1);
            assert_eq!(b, b1);
        }
    }
}
