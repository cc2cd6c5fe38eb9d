//! # alibi-encoding
//!
//! The one length check of the workspace. Every decoder of untrusted bytes (keys, signatures,
//! ciphertexts, messages) first checks that its input has the length its parameter set fixes;
//! each scheme crate's error type wraps [`LengthError`] and implements [`LengthChecked`], so the
//! check and its message ("Falcon public key: expected 897 bytes, got 12") are written once.
//! Also the fixed-width bit packing that Falcon's, TACHYON's and BAT's encodings share
//! ([`pack_bits`], [`unpack_bits`]), and the one body of the scheme crates'
//! `signature::RandomizedSigner` ([`sign_seeded`]).
//!
//! ```
//! use alibi_encoding::{LengthChecked, LengthError};
//!
//! #[derive(Debug, PartialEq)]
//! enum Error {
//!     Length(LengthError),
//! }
//! impl From<LengthError> for Error {
//!     fn from(e: LengthError) -> Self {
//!         Error::Length(e)
//!     }
//! }
//! impl LengthChecked for Error {}
//!
//! assert!(Error::check_len("tag", 32, 32).is_ok());
//! assert_eq!(
//!     Error::check_len("tag", 32, 31),
//!     Err(Error::Length(LengthError { what: "tag", expected: 32, got: 31 }))
//! );
//! ```

#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

extern crate alloc;

mod randomized;

pub use randomized::sign_seeded;

/// An input of the wrong length: `what` should be `expected` bytes long and is `got`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{what}: expected {expected} bytes, got {got}")]
pub struct LengthError {
    /// What was being decoded.
    pub what: &'static str,
    /// The length its parameter set fixes.
    pub expected: usize,
    /// The length received.
    pub got: usize,
}

/// The length error and check, for an error type that wraps [`LengthError`].
pub trait LengthChecked: From<LengthError> {
    /// The error for `what`, which should be `expected` bytes long and is `got`.
    fn length(what: &'static str, expected: usize, got: usize) -> Self {
        Self::from(LengthError {
            what,
            expected,
            got,
        })
    }

    /// `Ok` when `got == expected`, the length error otherwise.
    fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), Self> {
        if got == expected {
            Ok(())
        } else {
            Err(Self::length(what, expected, got))
        }
    }
}

/// The fixed-size array of a slice whose length must be `N`.
pub fn array<const N: usize>(what: &'static str, b: &[u8]) -> Result<[u8; N], LengthError> {
    b.try_into().map_err(|_| LengthError {
        what,
        expected: N,
        got: b.len(),
    })
}

/// Appends `vals`, each of `bits` bits (1 to 32; higher bits must be zero), most significant bit
/// first, the last byte padded with zero bits: the packing of Falcon's public keys, TACHYON's keys
/// and signatures and BAT's secret keys.
pub fn pack_bits(vals: impl IntoIterator<Item = u32>, bits: u32, out: &mut alloc::vec::Vec<u8>) {
    let mut acc: u64 = 0;
    let mut acc_len = 0;
    for v in vals {
        acc = (acc << bits) | v as u64;
        acc_len += bits;
        while acc_len >= 8 {
            acc_len -= 8;
            out.push((acc >> acc_len) as u8);
        }
    }
    if acc_len > 0 {
        out.push((acc << (8 - acc_len)) as u8);
    }
}

/// Reads `count` values of `bits` bits packed as [`pack_bits`] writes them; missing bytes read as
/// zero, and bits after the last value are not looked at (callers check lengths and padding).
pub fn unpack_bits(data: &[u8], count: usize, bits: u32) -> alloc::vec::Vec<u32> {
    let mut out = alloc::vec![0u32; count];
    // Whole groups first: `group` values fill exactly `group_bytes` bytes, read as one word
    // when they fit in 8 (every width up to 8 bits, 10, 12 and 14); the loop below takes the
    // rest from the next byte on.
    let group = 8 >> bits.trailing_zeros().min(3);
    let group_bytes = (bits * group / 8) as usize;
    let done = if (1..=8).contains(&group_bytes) {
        match group {
            8 => unpack_groups::<8>(&mut out, data, bits),
            4 => unpack_groups::<4>(&mut out, data, bits),
            2 => unpack_groups::<2>(&mut out, data, bits),
            _ => unpack_groups::<1>(&mut out, data, bits),
        }
    } else {
        0
    };
    let mask = (1u64 << bits) - 1;
    let mut acc: u64 = 0;
    let mut acc_len = 0;
    let mut it = data[done * group_bytes / group as usize..].iter();
    for v in &mut out[done..] {
        while acc_len < bits {
            acc = (acc << 8) | *it.next().unwrap_or(&0) as u64;
            acc_len += 8;
        }
        acc_len -= bits;
        *v = ((acc >> acc_len) & mask) as u32;
    }
    out
}

/// The whole groups of `G` values of `bits` bits (`G * bits / 8` bytes, at most 8) that `data`
/// holds, into `out`; returns how many values were written.
#[inline(always)]
fn unpack_groups<const G: usize>(out: &mut [u32], data: &[u8], bits: u32) -> usize {
    let group_bytes = G * bits as usize / 8;
    let mask = (1u64 << bits) - 1;
    let mut done = 0;
    for (o, chunk) in out.chunks_exact_mut(G).zip(data.chunks_exact(group_bytes)) {
        let word = chunk.iter().fold(0u64, |w, &b| (w << 8) | b as u64);
        for (k, o) in o.iter_mut().enumerate() {
            *o = ((word >> ((G - 1 - k) as u32 * bits)) & mask) as u32;
        }
        done += G;
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_round_trip() {
        // Every width, with whole groups of the word-at-a-time path, tails and short input.
        for bits in 1u32..=32 {
            let max = if bits == 32 {
                u32::MAX
            } else {
                (1 << bits) - 1
            };
            for count in [0usize, 1, 7, 8, 9, 37, 64] {
                let vals: alloc::vec::Vec<u32> = (0..count as u32)
                    .map(|i| i.wrapping_mul(2_654_435_761) & max)
                    .collect();
                let mut out = alloc::vec::Vec::new();
                pack_bits(vals.iter().copied(), bits, &mut out);
                assert_eq!(out.len(), (count * bits as usize).div_ceil(8));
                assert_eq!(unpack_bits(&out, count, bits), vals);
                // Missing bytes read as zero.
                let cut = out.len().saturating_sub(3);
                let mut zeroed = out.clone();
                zeroed[cut..].fill(0);
                assert_eq!(
                    unpack_bits(&out[..cut], count, bits),
                    unpack_bits(&zeroed, count, bits)
                );
            }
        }
        // Most significant bit first: 0b101 then 0b1 in 3 bits each.
        let mut out = alloc::vec::Vec::new();
        pack_bits([5, 1], 3, &mut out);
        assert_eq!(out, [0b1010_0100]);
    }

    #[test]
    fn arrays() {
        assert_eq!(array::<3>("x", &[1, 2, 3]), Ok([1, 2, 3]));
        assert_eq!(
            array::<3>("x", &[1, 2]),
            Err(LengthError {
                what: "x",
                expected: 3,
                got: 2
            })
        );
    }
}
