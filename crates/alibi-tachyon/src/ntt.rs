//! Arithmetic in R_q = Z_q[x]/(x^256 + 1) for the TACHYON moduli (q < 2^31, q = 1 mod 512), and the
//! NTT that makes the GCK function F(x_1..x_mu) = sum_j a_j x_j a handful of pointwise products.
//!
//! Products by fixed values (twiddles, the entries of A) use Shoup's precomputed quotients, so no
//! division or 128-bit remainder appears on the hot path. Constant-time: no branch or index
//! depends on data (the final conditional subtractions are masks).

use crate::params::N;

/// A fixed multiplier w with its Shoup quotient floor(w 2^64 / q).
#[derive(Clone, Copy, Debug)]
pub struct Shoup {
    w: u64,
    w_shoup: u64,
}

/// Precomputed tables for one modulus.
#[derive(Debug)]
pub struct Ring {
    q: u64,
    zetas: Vec<Shoup>,
}

fn pow_mod(mut b: u64, mut e: u64, q: u64) -> u64 {
    let mut r = 1u64;
    b %= q;
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % q;
        }
        b = b * b % q;
        e >>= 1;
    }
    r
}

#[inline(always)]
fn csub(x: u64, q: u64) -> u64 {
    // x - q if x >= q, as a mask.
    let y = x.wrapping_sub(q);
    let mask = 0u64.wrapping_sub(y >> 63);
    y.wrapping_add(q & mask)
}

impl Ring {
    /// The tables for modulus `q` (prime, q = 1 mod 2N): psi, a primitive 2N-th root of unity, is
    /// the first x^((q-1)/2N) with psi^N = -1.
    pub fn new(q: u32) -> Ring {
        let q = q as u64;
        let psi = (2..)
            .map(|x| pow_mod(x, (q - 1) / (2 * N as u64), q))
            .find(|&p| pow_mod(p, N as u64, q) == q - 1)
            .expect("q = 1 mod 2N has a 2N-th root of unity");
        let zetas = (0..N)
            .map(|k| {
                let r = (k as u8).reverse_bits() as u64;
                Self::shoup_of(pow_mod(psi, r, q), q)
            })
            .collect();
        Ring { q, zetas }
    }

    /// The modulus.
    pub fn q(&self) -> u64 {
        self.q
    }

    fn shoup_of(w: u64, q: u64) -> Shoup {
        Shoup {
            w,
            w_shoup: (((w as u128) << 64) / q as u128) as u64,
        }
    }

    /// w with its Shoup quotient for this modulus (w < q).
    pub fn shoup(&self, w: u64) -> Shoup {
        Self::shoup_of(w, self.q)
    }

    /// a w mod q for a < q.
    #[inline(always)]
    pub fn mul(&self, a: u64, w: Shoup) -> u64 {
        let t = ((a as u128 * w.w_shoup as u128) >> 64) as u64;
        csub(
            a.wrapping_mul(w.w).wrapping_sub(t.wrapping_mul(self.q)),
            self.q,
        )
    }

    /// Forward negacyclic NTT in place (coefficients < q): evaluations at psi^(2 bitrev(i) + 1).
    pub fn ntt(&self, a: &mut [u64; N]) {
        let q = self.q;
        let mut len = N / 2;
        let mut k = 1;
        while len >= 1 {
            for start in (0..N).step_by(2 * len) {
                let z = self.zetas[k];
                k += 1;
                let (lo, hi) = a[start..start + 2 * len].split_at_mut(len);
                for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                    let t = self.mul(*y, z);
                    *y = csub(*x + q - t, q);
                    *x = csub(*x + t, q);
                }
            }
            len /= 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Level;

    #[test]
    fn ntt_turns_negacyclic_products_into_pointwise_ones() {
        for level in [Level::T128, Level::T192, Level::T256] {
            let r = Ring::new(level.q());
            let q = r.q();
            let a: [u64; N] = core::array::from_fn(|i| (i as u64 * 7919 + 3) % q);
            let b: [u64; N] = core::array::from_fn(|i| (i as u64 * i as u64 * 104729 + 11) % q);
            let mut prod = [0u64; N];
            for i in 0..N {
                for j in 0..N {
                    let p = (a[i] as u128 * b[j] as u128 % q as u128) as u64;
                    if i + j < N {
                        prod[i + j] = (prod[i + j] + p) % q;
                    } else {
                        prod[i + j - N] = (prod[i + j - N] + q - p) % q;
                    }
                }
            }
            let (mut x, mut y) = (a, b);
            r.ntt(&mut x);
            r.ntt(&mut y);
            r.ntt(&mut prod);
            for i in 0..N {
                assert_eq!((x[i] as u128 * y[i] as u128 % q as u128) as u64, prod[i]);
            }
        }
    }

    #[test]
    fn shoup_products_are_exact() {
        let r = Ring::new(Level::T256.q());
        let q = r.q();
        for w in [0, 1, 2, q - 1, q / 3, 123_456_789] {
            let s = r.shoup(w);
            for a in [0, 1, q - 1, q / 2, 987_654_321 % q] {
                assert_eq!(r.mul(a, s), (a as u128 * w as u128 % q as u128) as u64);
            }
        }
    }
}
