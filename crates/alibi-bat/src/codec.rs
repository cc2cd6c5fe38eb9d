//! Encodings of the artifact (`BAT/kem257.c`, `BAT/encode_decode.c`), for n = 512.
//!
//! * Public key h (values mod 257) and ciphertext c1 (values in -64..=64) both pack 8 values into
//!   one integer: each value splits into low bits and a high "digit" in 0..=16; the 8 digits form
//!   one base-17 number (17^8 < 2^33). Per 64 values: eight little-endian words (low bits, then the
//!   low 32 bits of the digit number), then one byte gathering the eight 33rd bits.
//!   - h: 4 low bits per value, a 65-bit block, 65 bytes per 64 values (520 bytes);
//!   - c1: c + 64 in 0..=128, 3 low bits per value, a 57-bit block (24-bit word first),
//!     57 bytes per 64 values (456 bytes).
//!
//!   Decoding accepts exactly the images of the encoder: every decoded value must be in range.
//! * Secret polynomials use "trim" encoding: each coefficient in `bits` bits (two's complement,
//!   sign included), most significant bit first; -2^(bits-1) is refused.

use crate::N;

/// Length of an encoded h (no tag).
pub(crate) const H_LEN: usize = N / 64 * 65;
/// Length of an encoded c1 (no tag).
pub(crate) const C1_LEN: usize = N / 64 * 57;

/// Splits 8 values into (low bits word, digit number) with `lo_bits` low bits each.
fn pack8(x: &[u32], lo_bits: u32) -> (u32, u64) {
    let mut lo = 0u32;
    let mut hi = 0u64;
    for (i, &v) in x.iter().enumerate().rev() {
        lo |= (v & ((1 << lo_bits) - 1)) << (lo_bits * i as u32);
        hi = hi * 17 + (v >> lo_bits) as u64;
    }
    (lo, hi)
}

/// The inverse of [`pack8`]; `max` is the largest valid value. The last digit takes whatever is
/// left of the 33-bit number, so out-of-range numbers show up as an out-of-range value.
fn unpack8(out: &mut [u32], lo: u32, mut hi: u64, lo_bits: u32, max: u32) -> bool {
    let mut ok = true;
    for (i, o) in out.iter_mut().enumerate() {
        let digit = if i == 7 { hi } else { hi % 17 };
        hi /= 17;
        let v = ((lo >> (lo_bits * i as u32)) & ((1 << lo_bits) - 1)) as u64 + (digit << lo_bits);
        ok &= v <= max as u64;
        *o = v as u32;
    }
    ok
}

/// Encodes h (values in 0..257).
pub(crate) fn encode_h(h: &[u16; N]) -> [u8; H_LEN] {
    let mut out = [0u8; H_LEN];
    for (chunk, vals) in out.chunks_mut(65).zip(h.chunks(64)) {
        let mut top = 0u8;
        for j in 0..8 {
            let x: [u32; 8] = core::array::from_fn(|i| vals[8 * j + i] as u32);
            let (lo, hi) = pack8(&x, 4);
            chunk[8 * j..8 * j + 4].copy_from_slice(&lo.to_le_bytes());
            chunk[8 * j + 4..8 * j + 8].copy_from_slice(&(hi as u32).to_le_bytes());
            top |= ((hi >> 32) as u8) << j;
        }
        chunk[64] = top;
    }
    out
}

/// Decodes h; `None` unless every value is below 257.
pub(crate) fn decode_h(b: &[u8]) -> Option<[u16; N]> {
    if b.len() != H_LEN {
        return None;
    }
    let mut h = [0u16; N];
    let mut ok = true;
    for (chunk, vals) in b.chunks(65).zip(h.chunks_mut(64)) {
        for j in 0..8 {
            let lo = u32::from_le_bytes(word(&chunk[8 * j..]));
            let hi = u32::from_le_bytes(word(&chunk[8 * j + 4..])) as u64
                | (((chunk[64] >> j) & 1) as u64) << 32;
            let mut x = [0u32; 8];
            ok &= unpack8(&mut x, lo, hi, 4, 256);
            for (d, &v) in vals[8 * j..8 * j + 8].iter_mut().zip(&x) {
                *d = v as u16;
            }
        }
    }
    ok.then_some(h)
}

fn word(b: &[u8]) -> [u8; 4] {
    [b[0], b[1], b[2], b[3]]
}

/// Encodes c1 (values in -64..=64).
pub(crate) fn encode_c1(c: &[i8; N]) -> [u8; C1_LEN] {
    let mut out = [0u8; C1_LEN];
    for (chunk, vals) in out.chunks_mut(57).zip(c.chunks(64)) {
        let mut top = 0u8;
        for j in 0..8 {
            let x: [u32; 8] = core::array::from_fn(|i| (vals[8 * j + i] as i32 + 64) as u32);
            let (lo, hi) = pack8(&x, 3);
            chunk[7 * j..7 * j + 3].copy_from_slice(&lo.to_le_bytes()[..3]);
            chunk[7 * j + 3..7 * j + 7].copy_from_slice(&(hi as u32).to_le_bytes());
            top |= ((hi >> 32) as u8) << j;
        }
        chunk[56] = top;
    }
    out
}

/// Decodes c1; `None` unless every value is in -64..=64.
pub(crate) fn decode_c1(b: &[u8]) -> Option<[i8; N]> {
    if b.len() != C1_LEN {
        return None;
    }
    let mut c = [0i8; N];
    let mut ok = true;
    for (chunk, vals) in b.chunks(57).zip(c.chunks_mut(64)) {
        for j in 0..8 {
            let s = &chunk[7 * j..];
            let lo = u32::from_le_bytes([s[0], s[1], s[2], 0]);
            let hi =
                u32::from_le_bytes(word(&s[3..])) as u64 | (((chunk[56] >> j) & 1) as u64) << 32;
            let mut x = [0u32; 8];
            ok &= unpack8(&mut x, lo, hi, 3, 128);
            for (d, &v) in vals[8 * j..8 * j + 8].iter_mut().zip(&x) {
                *d = (v.min(128) as i32 - 64) as i8;
            }
        }
    }
    ok.then_some(c)
}

/// Length of a trim encoding of n values of `bits` bits.
pub(crate) const fn trim_len(bits: u32) -> usize {
    (N * bits as usize).div_ceil(8)
}

/// Trim-encodes values with |x| < 2^(bits-1) (the caller guarantees the range).
pub(crate) fn trim_encode(x: &[i32], bits: u32, out: &mut Vec<u8>) {
    let mask = ((1u64 << bits) - 1) as u32;
    alibi_encoding::pack_bits(x.iter().map(|&v| v as u32 & mask), bits, out);
}

/// Trim-decodes n values; `None` on -2^(bits-1), on nonzero padding bits or on a wrong length.
/// Branch-free in the values (they are secret), as in the artifact.
pub(crate) fn trim_decode(b: &[u8], bits: u32) -> Option<[i32; N]> {
    if b.len() != trim_len(bits) {
        return None;
    }
    let mask = (1u64 << bits) - 1;
    let sign = 1u64 << (bits - 1);
    let mut out = [0i32; N];
    let mut bad = 0u64;
    let mut acc = 0u64;
    let mut acc_len = 0;
    let mut u = 0;
    for &byte in b {
        acc = (acc << 8) | byte as u64;
        acc_len += 8;
        while acc_len >= bits && u < N {
            acc_len -= bits;
            let w = (acc >> acc_len) & mask;
            // w == sign is the forbidden -2^(bits-1).
            let diff = w ^ sign;
            bad |= ((diff | diff.wrapping_neg()) >> 63) ^ 1;
            out[u] = (w | (w & sign).wrapping_neg()) as i64 as i32;
            u += 1;
        }
    }
    bad |= acc & ((1 << acc_len) - 1);
    (bad == 0).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h_round_trip_and_extremes() {
        let h: [u16; N] = core::array::from_fn(|i| ((i * 97) % 257) as u16);
        assert_eq!(decode_h(&encode_h(&h)), Some(h));
        let top = [256u16; N];
        assert_eq!(decode_h(&encode_h(&top)), Some(top));
        // 256 + 1: low nibble set on top of the digit 16.
        let mut b = encode_h(&top);
        b[0] |= 1;
        assert_eq!(decode_h(&b), None);
    }

    #[test]
    fn c1_round_trip_and_extremes() {
        let c: [i8; N] = core::array::from_fn(|i| (((i * 37) % 129) as i32 - 64) as i8);
        assert_eq!(decode_c1(&encode_c1(&c)), Some(c));
        let top = [64i8; N];
        let mut b = encode_c1(&top);
        assert_eq!(decode_c1(&b), Some(top));
        b[0] |= 1;
        assert_eq!(decode_c1(&b), None);
        // All-ones: the 33-bit digit numbers are too large.
        assert_eq!(decode_c1(&[0xff; C1_LEN]), None);
    }

    #[test]
    fn trim_round_trip() {
        for bits in [4, 6, 17] {
            let lim = (1 << (bits - 1)) - 1;
            let x: [i32; N] = core::array::from_fn(|i| (i as i32 * 7919) % (2 * lim + 1) - lim);
            let mut b = Vec::new();
            trim_encode(&x, bits, &mut b);
            assert_eq!(b.len(), trim_len(bits));
            assert_eq!(trim_decode(&b, bits), Some(x));
        }
        // 1000 (4 bits) is -8, forbidden.
        let mut b = vec![0u8; trim_len(4)];
        b[0] = 0x80;
        assert_eq!(trim_decode(&b, 4), None);
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(128))]

            #[test]
            fn h_values(v in proptest::collection::vec(0u16..257, N)) {
                let h: [u16; N] = v.try_into().expect("n values");
                prop_assert_eq!(decode_h(&encode_h(&h)), Some(h));
            }

            #[test]
            fn c1_values(v in proptest::collection::vec(-64i8..=64, N)) {
                let c: [i8; N] = v.try_into().expect("n values");
                prop_assert_eq!(decode_c1(&encode_c1(&c)), Some(c));
            }

            #[test]
            fn trim_values(
                bits in prop_oneof![Just(4u32), Just(6), Just(17)],
                seed in any::<u64>(),
            ) {
                let lim = (1i64 << (bits - 1)) - 1;
                let x: [i32; N] = core::array::from_fn(|i| {
                    let r = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add((i as u64).wrapping_mul(1442695040888963407));
                    ((r >> 20) as i64 % (2 * lim + 1) - lim) as i32
                });
                let mut b = Vec::new();
                trim_encode(&x, bits, &mut b);
                prop_assert_eq!(trim_decode(&b, bits), Some(x));
            }

            /// Whatever decodes re-encodes to the same bytes.
            #[test]
            fn canonical(h in proptest::collection::vec(any::<u8>(), H_LEN),
                         c in proptest::collection::vec(any::<u8>(), C1_LEN),
                         t in proptest::collection::vec(any::<u8>(), trim_len(6))) {
                if let Some(x) = decode_h(&h) {
                    prop_assert_eq!(&encode_h(&x)[..], &h[..]);
                }
                if let Some(x) = decode_c1(&c) {
                    prop_assert_eq!(&encode_c1(&x)[..], &c[..]);
                }
                if let Some(x) = trim_decode(&t, 6) {
                    let mut b = Vec::new();
                    trim_encode(&x, 6, &mut b);
                    prop_assert_eq!(b, t);
                }
            }
        }
    }
}
