//! Encrypt, the deterministic core of the paper's Encapsulate (q = 257, k = 2):
//! c1 = round((h s mod q) / k).

use crate::modq::{Ntt257, Poly};
use crate::N;

/// The bits of s: coefficient u is bit u % 8 of byte u / 8 (the artifact's `sbuf`).
pub(crate) fn s_bit(sbuf: &[u8; N / 8], u: usize) -> u32 {
    ((sbuf[u >> 3] >> (u & 7)) & 1) as u32
}

crate::simd::avx2_dispatch!(
    /// c1 from the transformed public key and the 512 bits of s. With t = h s mod q centred in
    /// -128..=128, c = floor((t + 129) / 2) - 64 lies in -64..=64 and the error e = 2c - t is 0
    /// or 1 (rounding towards +infinity, as `bat_encrypt_257`). The norm condition of the paper's
    /// encryption always holds for q = 257 (every e' and s' coefficient is +-1/2), so this never
    /// fails.
    encrypt, encrypt_avx2, encrypt_portable, (h_ntt: &Poly, sbuf: &[u8; N / 8]) -> [i8; N]
);

#[inline(always)]
pub(crate) fn encrypt_portable(h_ntt: &Poly, sbuf: &[u8; N / 8]) -> [i8; N] {
    let mut s: Poly = core::array::from_fn(|u| s_bit(sbuf, u));
    Ntt257::forward(&mut s);
    let mut t = Ntt257::mul_ntt(&s, h_ntt);
    Ntt257::inverse(&mut t);
    core::array::from_fn(|u| (((Ntt257::centered(t[u]) + 129) >> 1) - 64) as i8)
}
