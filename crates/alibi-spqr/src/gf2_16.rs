//! GF(2^16), the field of SPQR's erasure code: polynomials over GF(2) modulo
//! x^16 + x^12 + x^3 + x + 1 (`0x1100B`), as the ML-KEM Braid specification's chunk encoding uses.
//!
//! Multiplication goes through log/antilog tables over the generator x (which is primitive for
//! this modulus; the tables' test checks it). The values are chunks of public keys and
//! ciphertexts that travel in the clear, so table lookups leak nothing secret.

use std::sync::OnceLock;

/// The reduction polynomial, x^16 + x^12 + x^3 + x + 1.
pub const MODULUS: u32 = 0x1100B;

struct Tables {
    /// `exp[i] = x^i`, doubled so that `exp[log a + log b]` needs no reduction.
    exp: Vec<u16>,
    /// `log[a]` for a != 0.
    log: Vec<u16>,
}

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let mut exp = vec![0u16; 2 * 65535];
        let mut log = vec![0u16; 65536];
        let mut a: u32 = 1;
        for i in 0..65535usize {
            exp[i] = a as u16;
            exp[i + 65535] = a as u16;
            log[a as usize] = i as u16;
            a <<= 1;
            if a & 0x10000 != 0 {
                a ^= MODULUS;
            }
        }
        Tables { exp, log }
    })
}

/// Addition (and subtraction): XOR.
#[inline]
pub fn add(a: u16, b: u16) -> u16 {
    a ^ b
}

/// Multiplication.
#[inline]
pub fn mul(a: u16, b: u16) -> u16 {
    if a == 0 || b == 0 {
        return 0;
    }
    let t = tables();
    t.exp[t.log[a as usize] as usize + t.log[b as usize] as usize]
}

/// Division; `None` when dividing by zero.
#[inline]
pub fn div(a: u16, b: u16) -> Option<u16> {
    if b == 0 {
        return None;
    }
    if a == 0 {
        return Some(0);
    }
    let t = tables();
    Some(t.exp[t.log[a as usize] as usize + 65535 - t.log[b as usize] as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Schoolbook multiply-and-reduce, the definition the tables must agree with.
    fn slow_mul(mut a: u16, mut b: u16) -> u16 {
        let mut r: u32 = 0;
        let mut a32 = a as u32;
        while b != 0 {
            if b & 1 == 1 {
                r ^= a32;
            }
            b >>= 1;
            a32 <<= 1;
            if a32 & 0x10000 != 0 {
                a32 ^= MODULUS;
            }
        }
        a = r as u16;
        a
    }

    #[test]
    fn generator_is_primitive() {
        let t = tables();
        let mut seen = vec![false; 65536];
        for i in 0..65535 {
            assert!(!seen[t.exp[i] as usize], "x has order below 65535");
            seen[t.exp[i] as usize] = true;
        }
    }

    #[test]
    fn tables_agree_with_schoolbook() {
        let mut x: u32 = 12345;
        for _ in 0..20000 {
            x = x.wrapping_mul(1103515245).wrapping_add(12345);
            let a = (x >> 8) as u16;
            let b = (x >> 3) as u16 ^ 0x5a5a;
            assert_eq!(mul(a, b), slow_mul(a, b));
            if b != 0 {
                assert_eq!(mul(div(a, b).unwrap(), b), a);
            }
        }
        assert_eq!(div(1, 0), None);
    }
}
