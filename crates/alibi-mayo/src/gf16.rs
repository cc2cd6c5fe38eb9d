//! Arithmetic in F16 = F2[x]/(x^4 + x + 1) (round-2 specification §2.1.1), on single elements
//! (one per byte) and on m-vectors: m elements packed as nibbles into 64-bit limbs, element i in
//! bits 4(i mod 16).. of limb i / 16, which is the byte encoding read as little-endian words.
//!
//! Multiplications by secret scalars are constant time: the scalar's bits select, by masks, among
//! v, v x, v x^2 and v x^3 ([`multiples`], computed once per vector and reused across scalars).

/// An m-vector of F16 elements in `L` limbs.
pub(crate) type MVec<const L: usize> = [u64; L];

const HIGH_BITS: u64 = 0x8888_8888_8888_8888;

/// a * b in F16.
#[inline]
pub(crate) fn mul(a: u8, b: u8) -> u8 {
    // Carry-less product, then x^4 = x + 1 folds the bits above x^3 back down.
    let mut p = 0u8;
    for i in 0..4 {
        p ^= ((a >> i) & 1).wrapping_neg() & (b << i);
    }
    let top = p & 0xf0;
    (p ^ (top >> 4) ^ (top >> 3)) & 0x0f
}

/// a^-1 in F16 (0 maps to 0): a^14.
#[inline]
pub(crate) fn inv(a: u8) -> u8 {
    let a2 = mul(a, a);
    let a4 = mul(a2, a2);
    let a8 = mul(a4, a4);
    mul(a8, mul(a4, a2))
}

/// Multiplies every nibble of a limb by x.
#[inline(always)]
pub(crate) fn limb_times_x(w: u64) -> u64 {
    let t = w & HIGH_BITS;
    ((w ^ t) << 1) ^ ((t >> 3) * 3)
}

/// v, v x, v x^2, v x^3: what [`mul_add_pre`] needs, computed once per vector.
#[inline(always)]
pub(crate) fn multiples<const L: usize>(v: &MVec<L>) -> [MVec<L>; 4] {
    let mut out = [*v; 4];
    for j in 1..4 {
        for i in 0..L {
            out[j][i] = limb_times_x(out[j - 1][i]);
        }
    }
    out
}

/// acc += a * v with v's multiples precomputed, constant time in `a`.
#[inline(always)]
pub(crate) fn mul_add_pre<const L: usize>(acc: &mut MVec<L>, vx: &[MVec<L>; 4], a: u8) {
    let m0 = ((a & 1) as u64).wrapping_neg();
    let m1 = (((a >> 1) & 1) as u64).wrapping_neg();
    let m2 = (((a >> 2) & 1) as u64).wrapping_neg();
    let m3 = (((a >> 3) & 1) as u64).wrapping_neg();
    for i in 0..L {
        acc[i] ^= (vx[0][i] & m0) ^ (vx[1][i] & m1) ^ (vx[2][i] & m2) ^ (vx[3][i] & m3);
    }
}

/// acc += v.
#[inline(always)]
pub(crate) fn add<const L: usize>(acc: &mut MVec<L>, v: &MVec<L>) {
    for i in 0..L {
        acc[i] ^= v[i];
    }
}

/// Sum over b of b * bins[b], for bins indexed by the element value (public data only: the
/// caller indexed the bins by value). With S_i the sum of the bins whose index has bit i set, the
/// result is S_0 + x S_1 + x^2 S_2 + x^3 S_3, evaluated by Horner's rule.
pub(crate) fn combine_bins<const L: usize>(bins: &[MVec<L>; 16]) -> MVec<L> {
    let mut out = [0u64; L];
    for i in 0..L {
        let mut s = [0u64; 4];
        for (b, bin) in bins.iter().enumerate() {
            for (bit, sb) in s.iter_mut().enumerate() {
                if b >> bit & 1 == 1 {
                    *sb ^= bin[i];
                }
            }
        }
        out[i] = limb_times_x(limb_times_x(limb_times_x(s[3]) ^ s[2]) ^ s[1]) ^ s[0];
    }
    out
}

/// Packed nibbles (low nibble first) to one element per byte.
pub(crate) fn decode(bytes: &[u8], len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    for i in 0..len {
        out.push((bytes[i / 2] >> (4 * (i % 2))) & 15);
    }
    out
}

/// One element per byte to packed nibbles (low nibble first).
pub(crate) fn encode(elems: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; elems.len().div_ceil(2)];
    for (i, &e) in elems.iter().enumerate() {
        out[i / 2] |= (e & 15) << (4 * (i % 2));
    }
    out
}

/// m-vectors from packed bytes, m/2 bytes each (m is even for every parameter set).
pub(crate) fn unpack_mvecs<const L: usize>(bytes: &[u8], m: usize) -> Vec<MVec<L>> {
    bytes.chunks_exact(m / 2).map(load_mvec).collect()
}

/// One m-vector from its m/2 packed bytes: whole limbs straight from little-endian words, the
/// last one zero-padded.
#[inline]
pub(crate) fn load_mvec<const L: usize>(c: &[u8]) -> MVec<L> {
    let mut v = [0u64; L];
    let full = c.len() / 8;
    for (i, limb) in v.iter_mut().enumerate().take(full) {
        *limb = u64::from_le_bytes(c[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    }
    if full < L {
        for (j, &b) in c[8 * full..].iter().enumerate() {
            v[full] |= (b as u64) << (8 * j);
        }
    }
    v
}

/// m-vectors to packed bytes, m/2 bytes each: whole limbs as little-endian words, then the
/// low bytes of the last.
pub(crate) fn pack_mvecs<const L: usize>(vecs: &[MVec<L>], m: usize, out: &mut Vec<u8>) {
    let (full, rest) = (m / 16, (m / 2) % 8);
    out.reserve(vecs.len() * m / 2);
    for v in vecs {
        for limb in &v[..full] {
            out.extend_from_slice(&limb.to_le_bytes());
        }
        if rest > 0 {
            out.extend_from_slice(&v[full].to_le_bytes()[..rest]);
        }
    }
}

/// Element i of an m-vector.
#[inline]
pub(crate) fn get<const L: usize>(v: &MVec<L>, i: usize) -> u8 {
    ((v[i / 16] >> (4 * (i % 16))) & 15) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Schoolbook multiplication modulo x^4 + x + 1, bit by bit.
    fn slow_mul(a: u8, b: u8) -> u8 {
        let mut r = 0u16;
        for i in 0..4 {
            if a >> i & 1 == 1 {
                r ^= (b as u16) << i;
            }
        }
        for d in (4..8).rev() {
            if r >> d & 1 == 1 {
                r ^= 0b10011 << (d - 4);
            }
        }
        r as u8
    }

    #[test]
    fn field_axioms() {
        for a in 0..16 {
            for b in 0..16 {
                assert_eq!(mul(a, b), slow_mul(a, b));
            }
            if a != 0 {
                assert_eq!(mul(a, inv(a)), 1, "{a}");
            }
        }
        assert_eq!(inv(0), 0);
    }

    #[test]
    fn vector_products_match_elementwise() {
        let v: MVec<2> = [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210];
        for a in 0..16u8 {
            let mut acc = [0u64; 2];
            mul_add_pre(&mut acc, &multiples(&v), a);
            for i in 0..32 {
                assert_eq!(get(&acc, i), mul(a, get(&v, i)));
            }
        }
    }

    #[test]
    fn bins_combine_to_the_weighted_sum() {
        let mut bins = [[0u64; 1]; 16];
        let mut want = [0u64; 1];
        for (b, bin) in bins.iter_mut().enumerate() {
            bin[0] = 0x1234_5678_9abc_def0u64.rotate_left(4 * b as u32) ^ b as u64;
            mul_add_pre(&mut want, &multiples(bin), b as u8);
        }
        assert_eq!(combine_bins(&bins), want);
    }

    #[test]
    fn packing_round_trips() {
        let e: Vec<u8> = (0..37).map(|i| (i * 7 % 16) as u8).collect();
        assert_eq!(decode(&encode(&e), 37), e);
        let bytes: Vec<u8> = (0..78).map(|i| i as u8 * 3).collect();
        let v = unpack_mvecs::<5>(&bytes, 78);
        let mut back = Vec::new();
        pack_mvecs(&v, 78, &mut back);
        assert_eq!(back, bytes);
        assert_eq!(get(&v[0], 1), bytes[0] >> 4);
    }
}
