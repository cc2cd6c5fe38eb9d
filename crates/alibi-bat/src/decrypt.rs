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
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

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

/// Everything decryption needs that depends on the key alone, computed once per key: the
/// transforms of f, q' F and w in the three moduli, the constant products by the all-ones
/// polynomial, and the parities. About half of the transforms of a decryption.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct DecryptKey {
    f: Poly,
    qp_big_f: Poly,
    w: Poly,
    /// (f + g) ones, and its transform; the transform of q' (F + G) ones.
    fg_ones: Poly,
    fg_ones_hat: Poly,
    big_fg_ones_hat: Poly,
    w_qp: Poly,
    f3: Poly,
    /// Fd = q' F - f w, transformed mod 12289.
    fd3: Poly,
    par_fg: i64,
    cs2: i64,
}

impl DecryptKey {
    pub(crate) fn new(key: &Basis<'_>) -> Box<Self> {
        type A = Ntt257;
        type C = Ntt3;
        let qp_mod_q = (QP % Q) as i64;
        let par_fg = parity(key.f) ^ parity(key.g);
        let fg_ones = A::mul_ones(&core::array::from_fn(|u| {
            A::from_i64(key.f[u] as i64 + key.g[u] as i64)
        }));
        let big_fg_ones = Zeroizing::new(A::mul_ones(&core::array::from_fn(|u| {
            A::from_i64(qp_mod_q * (key.big_f[u] as i64 + key.big_g[u] as i64))
        })));
        let f3 = C::ntt(&C::from_signed(key.f));
        let w3 = Zeroizing::new(C::ntt(&C::from_signed(key.w)));
        let fw3 = Zeroizing::new(C::mul_ntt(&f3, &w3));
        let qp_big_f3 = Zeroizing::new(C::ntt(&core::array::from_fn(|u| {
            C::from_i64(QP as i64 * key.big_f[u] as i64)
        })));
        Box::new(DecryptKey {
            f: A::ntt(&A::from_signed(key.f)),
            qp_big_f: A::ntt(&core::array::from_fn(|u| {
                A::from_i64(qp_mod_q * key.big_f[u] as i64)
            })),
            w: A::ntt(&A::from_signed(key.w)),
            fg_ones_hat: A::ntt(&fg_ones),
            fg_ones,
            big_fg_ones_hat: A::ntt(&big_fg_ones),
            w_qp: NttQp::ntt(&NttQp::from_signed(key.w)),
            fd3: core::array::from_fn(|u| C::sub(qp_big_f3[u], fw3[u])),
            f3,
            par_fg,
            // c'' mod 2 = parity(F + G) + parity(f + g) parity(w): a constant.
            cs2: parity(key.big_f) ^ parity(key.big_g) ^ (par_fg & parity(key.w)),
        })
    }
}

crate::simd::avx2_dispatch!(
    /// s (512 bits, the artifact's `sbuf`) from c1. For a ciphertext that no s produced, the
    /// output is some 512-bit string; the caller's re-encryption check catches it.
    decrypt, decrypt_avx2, decrypt_portable, (key: &DecryptKey, c: &[i8; N]) -> Zeroizing<[u8; N / 8]>
);

#[inline(always)]
fn decrypt_portable(key: &DecryptKey, c: &[i8; N]) -> Zeroizing<[u8; N / 8]> {
    type A = Ntt257;
    // Q k c1 = 4 c1, transformed.
    let mut kc: Zeroizing<Poly> =
        Zeroizing::new(core::array::from_fn(|u| A::from_i64(4 * c[u] as i64)));
    A::forward(&mut kc);

    // c' mod q, and its transform (by linearity, without transforming it again).
    let cp_hat = Zeroizing::new(A::mul_ntt(&key.f, &kc));
    let mut cp = Zeroizing::new(*cp_hat);
    A::inverse(&mut cp);
    for (x, &y) in cp.iter_mut().zip(key.fg_ones.iter()) {
        *x = A::sub(*x, y);
    }

    // c' mod 2 is the constant parity(f + g); lift to the representative in -256..=257.
    let par_fg = key.par_fg;
    let cp_exact: Zeroizing<[i64; N]> = Zeroizing::new(core::array::from_fn(|u| {
        let x = A::centered(cp[u]) as i64;
        let wrong = -((x ^ par_fg) & 1);
        // +257 when x <= 0, -257 otherwise.
        let nonpos = (x - 1) >> 63;
        x + (wrong & ((Q as i64 & nonpos) | (-(Q as i64) & !nonpos)))
    }));

    // c'' mod q: q' Q F (k c1) - q' (F + G) ones - c' w (q' = 6 mod q), all in the transform
    // domain: c' w mod q only needs c' mod q, whose transform is cp_hat - NTT((f + g) ones).
    let mut cpw = Zeroizing::new([0u32; N]);
    for u in 0..N {
        cpw[u] = A::sub(cp_hat[u], key.fg_ones_hat[u]);
    }
    let cpw = Zeroizing::new(A::mul_ntt(&cpw, &key.w));
    let fkc = Zeroizing::new(A::mul_ntt(&key.qp_big_f, &kc));
    let mut cs = Zeroizing::new([0u32; N]);
    for u in 0..N {
        cs[u] = A::sub(A::sub(fkc[u], key.big_fg_ones_hat[u]), cpw[u]);
    }
    A::inverse(&mut cs);

    // c'' mod q' = -c' w.
    let mut cs_qp = Zeroizing::new(NttQp::ntt(&core::array::from_fn(|u| {
        NttQp::from_i64(cp_exact[u])
    })));
    *cs_qp = NttQp::mul_ntt(&cs_qp, &key.w_qp);
    NttQp::inverse(&mut cs_qp);
    for x in cs_qp.iter_mut() {
        *x = NttQp::sub(0, *x);
    }

    // CRT to c'' mod q q', then the representative of the right parity in 1 - q q' ..= q q'.
    let cs2 = key.cs2;
    let cs_exact: Zeroizing<[i64; N]> = Zeroizing::new(core::array::from_fn(|u| {
        let y1 = cs_qp[u];
        let t = A::mul(A::sub(cs[u], y1 % Q), QP_INV_Q);
        let mut y = y1 as i64 + QP as i64 * t as i64;
        // 0 has the representatives 0 (even) and q q' (odd): start from q q'.
        y += QQP & (((y - 1) >> 63) & 1).wrapping_neg();
        y - (QQP & -((y ^ cs2) & 1))
    }));

    // Fd c' - f c'' mod 12289, Fd = q' F - f w precomputed.
    type C = Ntt3;
    let cp3 = Zeroizing::new(C::ntt(&core::array::from_fn(|u| C::from_i64(cp_exact[u]))));
    let cs3 = Zeroizing::new(C::ntt(&core::array::from_fn(|u| C::from_i64(cs_exact[u]))));
    let a3 = Zeroizing::new(C::mul_ntt(&key.fd3, &cp3));
    let b3 = Zeroizing::new(C::mul_ntt(&key.f3, &cs3));
    let mut t = Zeroizing::new([0u32; N]);
    for u in 0..N {
        t[u] = C::sub(a3[u], b3[u]);
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
            let key = DecryptKey::new(&basis);
            assert_eq!(*decrypt(&key, &c), s);
            // The portable build agrees with the one the CPU chose (AVX2 here, where it exists).
            assert_eq!(*decrypt_portable(&key, &c), s);
            assert_eq!(crate::encrypt::encrypt_portable(&sk.pk.h_ntt, &s), c);
            // A ciphertext that no s produced decrypts the same way in both builds.
            let mut bad = c;
            bad[7] = bad[7].wrapping_add(1).clamp(-64, 64);
            assert_eq!(*decrypt_portable(&key, &bad), *decrypt(&key, &bad));
        }
    }
}
