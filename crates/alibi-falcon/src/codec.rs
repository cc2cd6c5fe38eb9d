//! Encodings of keys and signatures (spec §3.11): the 14-bit packing of h, the signed "trim"
//! packing of f, g, F, and the compression of s2 (§3.11.2, Algorithms 17-18). Bits are packed
//! most-significant first.
//!
//! Every decoder is strict: it accepts exactly the byte strings the matching encoder can produce.

use crate::error::Error;
use crate::params::{Level, Q};
use alibi_encoding::LengthChecked;
use alibi_encoding::{pack_bits as pack, unpack_bits as unpack};

/// Header byte of a public key: 0x00 + log2(n).
pub fn pk_header(level: Level) -> u8 {
    level.logn() as u8
}

/// Header byte of a secret key: 0x50 + log2(n).
pub fn sk_header(level: Level) -> u8 {
    0x50 + level.logn() as u8
}

/// Header byte of a signature in the compressed format: 0x30 + log2(n).
pub fn sig_header(level: Level) -> u8 {
    0x30 + level.logn() as u8
}

/// The public key: header, then h at 14 bits per coefficient.
pub fn encode_public_key(level: Level, h: &[u16]) -> Vec<u8> {
    let mut out = Vec::with_capacity(level.public_key_len());
    out.push(pk_header(level));
    pack(h.iter().map(|&x| x as u32), 14, &mut out);
    out
}

/// Decodes a public key, rejecting a wrong header or length and any coefficient >= q.
pub fn decode_public_key(bytes: &[u8]) -> Result<(Level, Vec<u16>), Error> {
    let &hdr = bytes
        .first()
        .ok_or(Error::length("Falcon public key", 897, 0))?;
    let level = Level::from_logn(hdr as u32)
        .filter(|_| hdr & 0xF0 == 0)
        .ok_or(Error::Header(hdr))?;
    let want = level.public_key_len();
    Error::check_len("Falcon public key", want, bytes.len())?;
    let h = unpack(&bytes[1..], level.n(), 14);
    if h.iter().any(|&x| x >= Q) {
        return Err(Error::CoefficientRange);
    }
    Ok((level, h.into_iter().map(|x| x as u16).collect()))
}

/// Signed values on `bits` bits, two's complement; -2^(bits-1) is never produced.
fn pack_signed(v: &[i8], bits: u32, out: &mut Vec<u8>) {
    let mask = (1u32 << bits) - 1;
    pack(v.iter().map(|&x| x as i32 as u32 & mask), bits, out);
}

fn unpack_signed(data: &[u8], n: usize, bits: u32) -> Result<Vec<i8>, Error> {
    let values = unpack(data, n, bits);
    // -2^(bits-1) is excluded from the encoding (spec §3.11.5).
    if values.contains(&(1u32 << (bits - 1))) {
        return Err(Error::CoefficientRange);
    }
    // Sign extension from `bits` bits.
    let shift = 32 - bits;
    Ok(values
        .iter()
        .map(|&x| (((x << shift) as i32) >> shift) as i8)
        .collect())
}

/// The secret key: header, f and g at fg_bits each, F at 8 bits (G is recomputed on decoding).
pub fn encode_secret_key(level: Level, f: &[i8], g: &[i8], big_f: &[i8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(level.secret_key_len());
    out.push(sk_header(level));
    pack_signed(f, level.fg_bits(), &mut out);
    pack_signed(g, level.fg_bits(), &mut out);
    pack_signed(big_f, level.big_fg_bits(), &mut out);
    out
}

/// Decoded secret-key polynomials (f, g, F).
pub type SecretParts = (Level, Vec<i8>, Vec<i8>, Vec<i8>);

/// Decodes the three stored polynomials of a secret key.
pub fn decode_secret_key(bytes: &[u8]) -> Result<SecretParts, Error> {
    let &hdr = bytes
        .first()
        .ok_or(Error::length("Falcon secret key", 1281, 0))?;
    let level = Level::from_logn((hdr & 0x0F) as u32)
        .filter(|_| hdr & 0xF0 == 0x50)
        .ok_or(Error::Header(hdr))?;
    let want = level.secret_key_len();
    Error::check_len("Falcon secret key", want, bytes.len())?;
    let n = level.n();
    let fgl = n * level.fg_bits() as usize / 8;
    let f = unpack_signed(&bytes[1..1 + fgl], n, level.fg_bits())?;
    let g = unpack_signed(&bytes[1 + fgl..1 + 2 * fgl], n, level.fg_bits())?;
    let big_f = unpack_signed(&bytes[1 + 2 * fgl..], n, level.big_fg_bits())?;
    Ok((level, f, g, big_f))
}

/// Compress (Algorithm 17): per coefficient a sign bit, the 7 low bits of |s|, then |s| >> 7 in
/// unary (that many 0s and a 1). `None` if some |s| > 2047 or the result exceeds `max_len` bytes.
pub fn compress(s: &[i16], max_len: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(max_len);
    let mut acc: u32 = 0;
    let mut acc_len = 0u32;
    for &x in s {
        if !(-2047..=2047).contains(&x) {
            return None;
        }
        let a = x.unsigned_abs() as u32;
        acc = (acc << 8) | ((x < 0) as u32) << 7 | (a & 0x7F);
        acc_len += 8;
        let hi = a >> 7;
        acc <<= hi + 1;
        acc |= 1;
        acc_len += hi + 1;
        while acc_len >= 8 {
            acc_len -= 8;
            out.push((acc >> acc_len) as u8);
        }
        if out.len() > max_len {
            return None;
        }
    }
    if acc_len > 0 {
        out.push((acc << (8 - acc_len)) as u8);
    }
    (out.len() <= max_len).then_some(out)
}

/// Decompress (Algorithm 18), strict: every byte must be consumed, unused bits of the last byte must
/// be zero, "-0" and |s| > 2047 are rejected.
pub fn decompress(data: &[u8], n: usize) -> Result<Vec<i16>, Error> {
    let (out, used) = decompress_prefix(data, n)?;
    if used != data.len() {
        return Err(Error::TrailingBytes);
    }
    Ok(out)
}

/// Decompress from a fixed-length field padded with zero bytes (the spec's padded signatures, and
/// ring signatures' fixed blocks): every byte after the body must be zero.
pub fn decompress_padded(data: &[u8], n: usize) -> Result<Vec<i16>, Error> {
    let (out, used) = decompress_prefix(data, n)?;
    if data[used..].iter().any(|&b| b != 0) {
        return Err(Error::Compression);
    }
    Ok(out)
}

/// [`decompress_padded`] without stopping at the first error, and with the same work per
/// coefficient: each is read from a 64-bit window loaded at its bit position (no refill loop), an
/// invalid one counts as whatever its bits give (a unary run as at most 15), the padding is
/// checked whole, and the flag says whether everything was valid. On valid input it returns the
/// coefficients [`decompress_padded`] returns.
///
/// For secret encodings (a decrypted ring signature, alibi-akem): neither how far a garbled
/// encoding gets nor how many bits its coefficients use decides how long decoding takes. The
/// window's address follows the bit position (within a buffer of a few hundred bytes).
pub fn decompress_padded_uniform(data: &[u8], n: usize) -> (Vec<i16>, bool) {
    decompress_block_uniform(data, n, true)
}

/// Decompress `n` coefficients from the start of a fixed-length block, ignoring the whole bytes
/// after the body (unused bits of the body's last byte must still be zero): the blocks of the
/// SHADOWFAX artifact's GANDALF[Antrag, Mitaka] signer, which leaves stale bytes there.
pub fn decompress_prefix_block(data: &[u8], n: usize) -> Result<Vec<i16>, Error> {
    decompress_prefix(data, n).map(|(out, _)| out)
}

/// [`decompress_padded_uniform`], or with `zero_tail` false the same uniform work for
/// [`decompress_prefix_block`]'s rule.
pub fn decompress_block_uniform(data: &[u8], n: usize, zero_tail: bool) -> (Vec<i16>, bool) {
    let total = data.len() * 8;
    // Eight zero bytes past the end, so that every window load is in bounds.
    let mut buf = Vec::with_capacity(data.len() + 8);
    buf.extend_from_slice(data);
    buf.extend_from_slice(&[0; 8]);
    let mut out = Vec::with_capacity(n);
    let mut ok = true;
    let mut p = 0usize;
    for _ in 0..n {
        let at = (p >> 3).min(data.len());
        let word: [u8; 8] = buf[at..at + 8].try_into().expect("8 bytes");
        // p & 7 < 8: the window still holds at least 57 bits from position p on.
        let w = u64::from_be_bytes(word) << (p & 7);
        let b = (w >> 56) as u32;
        let hi = (w << 8).leading_zeros();
        ok &= hi <= 15;
        let hi = hi.min(15);
        let used = 8 + hi as usize + 1;
        ok &= p + used <= total;
        p += used;
        let m = (b & 0x7F) | (hi << 7);
        let neg = b & 0x80 != 0;
        ok &= !(neg && m == 0);
        out.push(if neg { -(m as i16) } else { m as i16 });
    }
    // The rest of the byte where the body ends, and every byte after it, must be zero.
    // Masks from comparisons rather than a branch per byte: where the body ends would
    // otherwise decide which way each branch goes.
    let end = p.min(total);
    let (last, tail) = (end >> 3, 0xFFu8 >> (end & 7));
    let mut rest = 0u8;
    // black_box: with `zero_tail` known false after inlining, the compiler would otherwise fold
    // the loop below into one bounds-checked load of byte `last`, whose branch follows where a
    // garbled body ends (a timing difference the dudect test `verify_encoded_invalid_mitaka`
    // showed at |t| > 100).
    let tail_mask = core::hint::black_box((zero_tail as u8).wrapping_neg());
    // When the body ends on a byte boundary, byte `last` is already after it.
    let tail = tail & (((end & 7 != 0) as u8).wrapping_neg() | tail_mask);
    for (i, &byte) in data.iter().enumerate() {
        let after = ((i > last) as u8).wrapping_neg() & tail_mask;
        let at = ((i == last) as u8).wrapping_neg();
        rest |= byte & (after | (at & tail));
    }
    ok &= rest == 0;
    (out, ok)
}

/// Compress into exactly `len` bytes, zero-padded; `None` if the body does not fit.
pub fn compress_padded(s: &[i16], len: usize) -> Option<Vec<u8>> {
    let mut out = compress(s, len)?;
    out.resize(len, 0);
    Some(out)
}

/// Decodes `n` coefficients from the start of `data`; returns them and the bytes used. Unused bits
/// of the last byte used must be zero.
///
/// The bits sit most-significant-first in a 64-bit accumulator, so a unary run is one
/// `leading_zeros` rather than a loop over bits.
fn decompress_prefix(data: &[u8], n: usize) -> Result<(Vec<i16>, usize), Error> {
    let mut out = Vec::with_capacity(n);
    let mut acc: u64 = 0;
    let mut bits = 0u32;
    let mut pos = 0usize;
    for _ in 0..n {
        while bits <= 56 && pos < data.len() {
            acc |= (data[pos] as u64) << (56 - bits);
            bits += 8;
            pos += 1;
        }
        if bits < 8 {
            return Err(Error::Compression);
        }
        let b = (acc >> 56) as u32;
        acc <<= 8;
        bits -= 8;
        // The high part: that many 0 bits, then a 1. At most 15 zeros (|s| <= 2047); a run that
        // reaches past the data is truncated input.
        let hi = acc.leading_zeros();
        if hi >= bits || hi > 15 {
            return Err(Error::Compression);
        }
        acc <<= hi + 1;
        bits -= hi + 1;
        let m = (b & 0x7F) | (hi << 7);
        let neg = b & 0x80 != 0;
        if neg && m == 0 {
            return Err(Error::Compression);
        }
        out.push(if neg { -(m as i16) } else { m as i16 });
    }
    // The rest of the last byte read into the body must be zero.
    let partial = bits % 8;
    if partial > 0 && acc >> (64 - partial) != 0 {
        return Err(Error::Compression);
    }
    Ok((out, pos - (bits / 8) as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The uniform decoder accepts exactly what the plain one accepts, with the same
        /// coefficients, on valid encodings and on every kind of damage to them.
        #[test]
        fn uniform_decompression_agrees(
            s in proptest::collection::vec(-600i16..600, 512),
            at in 0usize..666,
            mask in any::<u8>(),
            cut in 0usize..4,
        ) {
            let Some(mut enc) = compress_padded(&s, 666) else { return Ok(()) };
            enc[at] ^= mask;
            enc.truncate(enc.len() - cut);
            let (u, ok) = decompress_padded_uniform(&enc, 512);
            let plain = decompress_padded(&enc, 512);
            prop_assert_eq!(ok, plain.is_ok());
            if let Ok(p) = plain {
                prop_assert_eq!(u, p);
            }
            // The same for the rule that ignores the bytes after the body.
            let (u, ok) = decompress_block_uniform(&enc, 512, false);
            let plain = decompress_prefix_block(&enc, 512);
            prop_assert_eq!(ok, plain.is_ok());
            if let Ok(p) = plain {
                prop_assert_eq!(u, p);
            }
        }

        /// Stale bytes after the body change nothing under the prefix rule, and are refused under
        /// the zero-padding rule.
        #[test]
        fn prefix_blocks_ignore_stale_tails(
            s in proptest::collection::vec(-300i16..300, 512),
            junk in proptest::collection::vec(1u8..=255, 1..40),
        ) {
            let Some(body) = compress(&s, 666) else { return Ok(()) };
            let mut block = body.clone();
            block.extend_from_slice(&junk);
            block.resize(body.len() + junk.len().max(1), 0);
            prop_assert_eq!(decompress_prefix_block(&block, 512).ok(), Some(s.clone()));
            prop_assert_eq!(decompress_block_uniform(&block, 512, false), (s.clone(), true));
            prop_assert!(decompress_padded(&block, 512).is_err());
        }

        #[test]
        fn public_key_round_trip(h in proptest::collection::vec(0u16..12289, 512)) {
            let enc = encode_public_key(Level::Falcon512, &h);
            prop_assert_eq!(enc.len(), 897);
            let (lvl, dec) = decode_public_key(&enc).unwrap();
            prop_assert_eq!(lvl, Level::Falcon512);
            prop_assert_eq!(dec, h);
        }

        #[test]
        fn secret_key_round_trip(
            f in proptest::collection::vec(-31i8..=31, 1024),
            g in proptest::collection::vec(-15i8..=15, 1024),
            big_f in proptest::collection::vec(-127i8..=127, 1024),
        ) {
            let f5: Vec<i8> = f.iter().map(|x| x / 2).collect();
            let enc = encode_secret_key(Level::Falcon1024, &f5, &g, &big_f);
            prop_assert_eq!(enc.len(), 2305);
            let (lvl, a, b, c) = decode_secret_key(&enc).unwrap();
            prop_assert_eq!(lvl, Level::Falcon1024);
            prop_assert_eq!((a, b, c), (f5, g, big_f));
        }

        #[test]
        fn compression_round_trip(s in proptest::collection::vec(-2047i16..=2047, 512)) {
            let c = compress(&s, 4096).unwrap();
            prop_assert_eq!(decompress(&c, 512).unwrap(), s);
        }

        #[test]
        fn padded_round_trip(s in proptest::collection::vec(-300i16..=300, 512)) {
            let c = compress_padded(&s, 700).unwrap();
            prop_assert_eq!(c.len(), 700);
            prop_assert_eq!(decompress_padded(&c, 512).unwrap(), s);
        }

        #[test]
        fn decompress_never_panics(data in proptest::collection::vec(any::<u8>(), 0..800)) {
            let _ = decompress(&data, 512);
        }
    }

    #[test]
    fn malformed_encodings_are_rejected() {
        let s = vec![0i16; 512];
        let mut c = compress(&s, 1000).unwrap();
        assert_eq!(c.len(), 576); // 9 bits per zero coefficient
        c.push(0);
        assert_eq!(decompress(&c, 512), Err(Error::TrailingBytes));
        // "-0": sign bit set on a zero magnitude.
        let mut c = compress(&s, 1000).unwrap();
        c[0] = 0x80;
        assert_eq!(decompress(&c, 512), Err(Error::Compression));
        // A unary run that would exceed 2047.
        let big = vec![0u8; 600];
        assert_eq!(decompress(&big, 512), Err(Error::Compression));
        assert!(compress(&[2048], 10).is_none());
        let h = vec![12289u16; 512];
        let mut enc = encode_public_key(Level::Falcon512, &[0; 512]);
        let bad = encode_public_key(Level::Falcon512, &h);
        assert_eq!(decode_public_key(&bad), Err(Error::CoefficientRange));
        enc[0] = 0x19;
        assert_eq!(decode_public_key(&enc), Err(Error::Header(0x19)));
        let sk = encode_secret_key(Level::Falcon512, &[-32; 512], &[0; 512], &[0; 512]);
        assert_eq!(decode_secret_key(&sk), Err(Error::CoefficientRange));
    }
}
