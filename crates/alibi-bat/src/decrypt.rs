//! Decrypt (the paper's Decode, Algorithm 3.2, as Decapsulate, Algorithm 4.3, calls it): recover s
//! from c1 with the secret basis.
//!
//! With q = 257, k = 2, Q = 2 and q' = 64513, write s = s' + 1/2 and e = e' + 1/2 (e = k c1 - h s
//! mod q in {0, 1}), so that s', e' have coefficients +-1/2. Then exactly, as integer polynomials:
//!   c'  = Q f (k c1) - (f + g) ones          mod q Q      = 2 (g s' + f e')
//!   c'' = q' Q F (k c1) - q' (F + G) ones - c' w  mod q q' Q  = 2 (Gd s' + Fd e')
//! with Fd = q' F - f w and Gd = q' G - g w (the NTRU equation g F - f G = q gives F h = G mod q).
//! Both right-hand sides are short (that is what the key's norm check on (Fd, Gd) guarantees), so
//! the centred residues are the true values, and Cramer's rule (g Fd - f Gd = q q') gives
//!   q q' Q s' = Fd c' - f c''  =  +-q q'.
//!
//! Each quantity is computed from its residues: c' mod q (NTT) and mod Q = 2 (a constant: the
//! parity of f + g); c'' mod q (NTT), mod q' (only -c' w survives there) and mod 2 (parities of
//! F + G and w), joined by the CRT; finally Fd c' - f c'' modulo the third prime 12289, where
//! +q q' and -q q' differ. The artifact does the same with 769 as the third prime. Every step is
//! branch-free in the key and the ciphertext.

use crate::modq::{Ntt257, Ntt3, NttQp, Poly, P3, QP};
use crate::{N, Q};
use zeroize::Zeroizing;

/// The secret polynomials decryption needs.
pub(crate) struct Basis<'a> {
    pub f: &'a [i8; N],
    pub g: &'a [i8; N],
    pub big_f: &'a [i8; N],
    pub big_g: &'a [i8; N],
    pub w: &'a [i32; N],
}

/// Parity of the sum of the coefficients.
fn parity<T: Copy + Into<i64>>(a: &[T; N]) -> i64 {
    a.iter().fold(0i64, |s, &x| s.wrapping_add(x.into())) & 1
}

/// q q', the modulus c'' is first known modulo.
const QQP: i64 = Q as i64 * QP as i64;
/// 1/q' mod q (q' = 6 mod 257, 6 * 43 = 258).
const QP_INV_Q: u32 = 43;

/// s (512 bits, the artifact's `sbuf`) from c1. For a ciphertext that no s produced, the output
/// is some 512-bit string; the caller's re-encryption check catches it.
pub(crate) fn decrypt(key: &Basis<'_>, c: &[i8; N]) -> Zeroizing<[u8; N / 8]> {
    type A = Ntt257;
    // Q k c1 = 4 c1, transformed.
    let mut kc: Zeroizing<Poly> =
        Zeroizing::new(core::array::from_fn(|u| A::from_i64(4 * c[u] as i64)));
    A::forward(&mut kc);

    // c' mod q.
    let f_ntt = Zeroizing::new(A::ntt(&A::from_signed(key.f)));
    let mut cp = Zeroizing::new(A::mul_ntt(&f_ntt, &kc));
    A::inverse(&mut cp);
    let fg_ones = Zeroizing::new(A::mul_ones(&core::array::from_fn(|u| {
        A::from_i64(key.f[u] as i64 + key.g[u] as i64)
    })));
    for (x, &y) in cp.iter_mut().zip(fg_ones.iter()) {
        *x = A::sub(*x, y);
    }

    // c' mod 2 is the constant parity(f + g); lift to the representative in -256..=257.
    let par_fg = parity(key.f) ^ parity(key.g);
    let cp_exact: Zeroizing<[i64; N]> = Zeroizing::new(core::array::from_fn(|u| {
        let x = A::centered(cp[u]) as i64;
        let wrong = -((x ^ par_fg) & 1);
        // +257 when x <= 0, -257 otherwise.
        let nonpos = (x - 1) >> 63;
        x + (wrong & ((Q as i64 & nonpos) | (-(Q as i64) & !nonpos)))
    }));

    // c'' mod q: q' Q F (k c1) - q' (F + G) ones - c' w, with q' = 6 mod q.
    let qp_mod_q = (QP % Q) as i64;
    let mut cs = Zeroizing::new(A::ntt(&core::array::from_fn(|u| {
        A::from_i64(qp_mod_q * key.big_f[u] as i64)
    })));
    *cs = A::mul_ntt(&cs, &kc);
    A::inverse(&mut cs);
    let big_fg_ones = Zeroizing::new(A::mul_ones(&core::array::from_fn(|u| {
        A::from_i64(qp_mod_q * (key.big_f[u] as i64 + key.big_g[u] as i64))
    })));
    let cpw = Zeroizing::new(A::mul_poly(
        &core::array::from_fn(|u| A::from_i64(cp_exact[u])),
        &A::from_signed(key.w),
    ));
    for u in 0..N {
        cs[u] = A::sub(A::sub(cs[u], big_fg_ones[u]), cpw[u]);
    }

    // c'' mod q' = -c' w.
    let mut cs_qp = Zeroizing::new(NttQp::mul_poly(
        &core::array::from_fn(|u| NttQp::from_i64(cp_exact[u])),
        &NttQp::from_signed(key.w),
    ));
    for x in cs_qp.iter_mut() {
        *x = NttQp::sub(0, *x);
    }

    // c'' mod 2 = parity(F + G) + parity(f + g) parity(w): a constant.
    let cs2 = parity(key.big_f) ^ parity(key.big_g) ^ (par_fg & parity(key.w));

    // CRT to c'' mod q q', then the representative of the right parity in 1 - q q' ..= q q'.
    let cs_exact: Zeroizing<[i64; N]> = Zeroizing::new(core::array::from_fn(|u| {
        let y1 = cs_qp[u];
        let t = A::mul(A::sub(cs[u], y1 % Q), QP_INV_Q);
        let mut y = y1 as i64 + QP as i64 * t as i64;
        // 0 has the representatives 0 (even) and q q' (odd): start from q q'.
        y += QQP & (((y - 1) >> 63) & 1).wrapping_neg();
        y - (QQP & -((y ^ cs2) & 1))
    }));

    // Fd c' - f c'' = q' F c' - f (w c' + c'') mod 12289.
    type C = Ntt3;
    let cp3 = Zeroizing::new(C::ntt(&core::array::from_fn(|u| C::from_i64(cp_exact[u]))));
    let w3 = Zeroizing::new(C::ntt(&C::from_signed(key.w)));
    let mut inner = Zeroizing::new(C::mul_ntt(&w3, &cp3));
    let cs3 = Zeroizing::new(C::ntt(&core::array::from_fn(|u| C::from_i64(cs_exact[u]))));
    for (x, &y) in inner.iter_mut().zip(cs3.iter()) {
        *x = C::add(*x, y);
    }
    let f3 = Zeroizing::new(C::ntt(&C::from_signed(key.f)));
    let big_f3 = Zeroizing::new(C::ntt(&core::array::from_fn(|u| {
        C::from_i64(QP as i64 * key.big_f[u] as i64)
    })));
    let mut t = Zeroizing::new(C::mul_ntt(&big_f3, &cp3));
    let fi = Zeroizing::new(C::mul_ntt(&f3, &inner));
    for (x, &y) in t.iter_mut().zip(fi.iter()) {
        *x = C::sub(*x, y);
    }
    C::inverse(&mut t);

    // s = 1 where q q' Q s' = +q q'.
    let plus = (QQP % P3 as i64) as u32;
    let mut sbuf = Zeroizing::new([0u8; N / 8]);
    for (u, &x) in t.iter().enumerate() {
        let d = x ^ plus;
        let bit = ((d | d.wrapping_neg()) >> 31) ^ 1;
        sbuf[u >> 3] |= (bit as u8) << (u & 7);
    }
    sbuf
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encrypt::encrypt;

    #[test]
    fn decrypt_inverts_encrypt() {
        let sk = crate::SecretKey::generate_from_seed(&[7u8; 32]);
        for i in 0..4u8 {
            let s: [u8; N / 8] =
                core::array::from_fn(|j| (j as u8).wrapping_mul(31).wrapping_add(i));
            let c = encrypt(&sk.pk.h_ntt, &s);
            let basis = Basis {
                f: &sk.f,
                g: &sk.g,
                big_f: &sk.big_f,
                big_g: &sk.big_g,
                w: &sk.w,
            };
            assert_eq!(*decrypt(&basis, &c), s);
        }
    }
}
