//! The sponge construction (FIPS 202 §4) with the SHA-3 and SHAKE domain bits and pad10*1 (§5.1,
//! §6): bytes are XORed into the first `rate` bytes of the state, lanes little-endian, and the
//! permutation runs whenever the rate is full.

use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::f1600;

/// The rest of a list of byte strings.
pub(crate) struct Parts<'a> {
    parts: &'a [&'a [u8]],
    cur: &'a [u8],
}

impl<'a> Parts<'a> {
    pub(crate) fn new(parts: &'a [&'a [u8]]) -> Self {
        Parts { parts, cur: &[] }
    }

    /// The next non-empty piece, at most `max` bytes, or `None` when all is consumed.
    pub(crate) fn next(&mut self, max: usize) -> Option<&'a [u8]> {
        while self.cur.is_empty() {
            let (first, rest) = self.parts.split_first()?;
            self.cur = first;
            self.parts = rest;
        }
        let (piece, rest) = self.cur.split_at(max.min(self.cur.len()));
        self.cur = rest;
        Some(piece)
    }
}

/// A sponge of one rate and one domain-separation byte (the suffix bits and the first bit of
/// pad10*1, FIPS 202 §6.1 and §6.2, in the byte form of its Appendix B.2).
#[derive(Clone)]
pub(crate) struct Sponge {
    pub(crate) a: [u64; 25],
    rate: usize,
    pub(crate) pos: usize,
    domain: u8,
}

impl Zeroize for Sponge {
    fn zeroize(&mut self) {
        self.a.zeroize();
        self.pos = 0;
    }
}

impl Drop for Sponge {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for Sponge {}

#[inline(always)]
fn xor_byte(a: &mut [u64; 25], i: usize, b: u8) {
    a[i / 8] ^= (b as u64) << (8 * (i % 8));
}

#[inline(always)]
fn byte(a: &[u64; 25], i: usize) -> u8 {
    (a[i / 8] >> (8 * (i % 8))) as u8
}

impl Sponge {
    const fn new(rate: usize, domain: u8) -> Self {
        Sponge {
            a: [0; 25],
            rate,
            pos: 0,
            domain,
        }
    }

    fn absorb(&mut self, data: &[u8]) {
        let parts = [data];
        let mut rest = Parts::new(&parts);
        while self.fill(&mut rest) {
            self.permute();
        }
    }

    /// Absorbs from `rest` until the rate is full (true) or `rest` is empty (false), without
    /// permuting.
    pub(crate) fn fill(&mut self, rest: &mut Parts) -> bool {
        while self.pos < self.rate {
            let Some(piece) = rest.next(self.rate - self.pos) else {
                return false;
            };
            self.xor_in(piece);
        }
        true
    }

    pub(crate) fn permute(&mut self) {
        f1600(&mut self.a);
        self.pos = 0;
    }

    /// XORs `piece` (which fits in the rate) in at the current position.
    fn xor_in(&mut self, piece: &[u8]) {
        let mut i = self.pos;
        let mut lanes = piece.chunks_exact(8);
        let aligned = i.is_multiple_of(8);
        if aligned {
            // Whole lanes, without the byte loop.
            for w in &mut lanes {
                let mut b = [0u8; 8];
                b.copy_from_slice(w);
                self.a[i / 8] ^= u64::from_le_bytes(b);
                i += 8;
            }
        }
        for &b in if aligned { lanes.remainder() } else { piece } {
            xor_byte(&mut self.a, i, b);
            i += 1;
        }
        self.pos = i;
    }

    /// Pads (domain bits, pad10*1) and runs the last permutation: the state is then ready to read
    /// from position 0.
    fn finish(&mut self) {
        self.pad();
        self.permute();
    }

    /// The domain bits and pad10*1, without the permutation that follows them.
    pub(crate) fn pad(&mut self) {
        xor_byte(&mut self.a, self.pos, self.domain);
        xor_byte(&mut self.a, self.rate - 1, 0x80);
    }

    /// Copies the output bytes left in this block (up to `out.len()`) without permuting; returns
    /// how many.
    pub(crate) fn copy_out(&mut self, out: &mut [u8]) -> usize {
        let take = (self.rate - self.pos).min(out.len());
        let part = &mut out[..take];
        let mut i = self.pos;
        let mut k = 0;
        while k < part.len() {
            if i.is_multiple_of(8) && part.len() - k >= 8 {
                // A whole lane at once.
                part[k..k + 8].copy_from_slice(&self.a[i / 8].to_le_bytes());
                k += 8;
                i += 8;
            } else {
                part[k] = byte(&self.a, i);
                k += 1;
                i += 1;
            }
        }
        self.pos = i;
        take
    }

    fn squeeze(&mut self, mut out: &mut [u8]) {
        while !out.is_empty() {
            if self.pos == self.rate {
                self.permute();
            }
            let took = self.copy_out(out);
            out = &mut out[took..];
        }
    }
}

/// The domain byte of SHA-3 (suffix 01, FIPS 202 §6.1) and of SHAKE (suffix 1111, §6.2).
const SHA3: u8 = 0x06;
const SHAKE: u8 = 0x1f;

/// A hash type over one sponge: its constructor (rate and domain byte) and absorbing methods; the
/// callers add the output side.
macro_rules! hash_type {
    ($(#[$doc:meta])* $name:ident, $rate:expr, $domain:expr, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name(pub(crate) Sponge);

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl $name {
            /// The rate in bytes: what one permutation absorbs (or squeezes).
            pub const RATE: usize = $rate;

            #[doc = concat!("An empty ", $what, ".")]
            pub const fn new() -> Self {
                $name(Sponge::new($rate, $domain))
            }

            /// Absorbs `data`.
            pub fn update(&mut self, data: &[u8]) {
                self.0.absorb(data);
            }

            /// Absorbs `data`, by value, for chains of parts.
            #[must_use]
            pub fn chain_update(mut self, data: impl AsRef<[u8]>) -> Self {
                self.0.absorb(data.as_ref());
                self
            }
        }
    };
}

macro_rules! sha3 {
    ($(#[$doc:meta])* $name:ident, $len:literal) => {
        // capacity = twice the output (FIPS 202 §6.1)
        hash_type!($(#[$doc])* $name, 200 - 2 * $len, SHA3, "hash");

        impl $name {
            /// The digest's length in bytes.
            pub const OUTPUT_LEN: usize = $len;

            /// The digest of everything absorbed.
            pub fn finalize(mut self) -> [u8; $len] {
                self.0.finish();
                let mut out = [0u8; $len];
                self.0.squeeze(&mut out);
                out
            }

            /// The digest of `data` alone.
            pub fn digest(data: impl AsRef<[u8]>) -> [u8; $len] {
                Self::new().chain_update(data).finalize()
            }
        }
    };
}

sha3!(
    /// SHA3-256 (FIPS 202 §6.1).
    Sha3_256,
    32
);
sha3!(
    /// SHA3-512 (FIPS 202 §6.1).
    Sha3_512,
    64
);

/// The output side of a SHAKE: any number of bytes, read in any pieces.
#[derive(Clone)]
pub struct XofReader {
    sponge: Sponge,
    /// Output squeezed ahead (by [`crate::absorb_pair_read`]), served before the sponge's.
    ahead: Zeroizing<Vec<u8>>,
    at: usize,
}

impl XofReader {
    pub(crate) fn new(sponge: Sponge, ahead: Zeroizing<Vec<u8>>) -> Self {
        XofReader {
            sponge,
            ahead,
            at: 0,
        }
    }

    /// Fills `out` with the next bytes of the output.
    pub fn read(&mut self, out: &mut [u8]) {
        let from_ahead = (self.ahead.len() - self.at).min(out.len());
        let (head, rest) = out.split_at_mut(from_ahead);
        head.copy_from_slice(&self.ahead[self.at..self.at + from_ahead]);
        self.at += from_ahead;
        self.sponge.squeeze(rest);
    }
}

macro_rules! shake {
    ($(#[$doc:meta])* $name:ident, $rate:literal) => {
        hash_type!($(#[$doc])* $name, $rate, SHAKE, "XOF");

        impl $name {
            /// Ends the input; the reader squeezes the output.
            pub fn finalize_xof(mut self) -> XofReader {
                self.0.finish();
                XofReader::new(self.0, Zeroizing::new(Vec::new()))
            }

            /// Fills `out` with the output of everything absorbed.
            pub fn finalize_into(self, out: &mut [u8]) {
                self.finalize_xof().read(out);
            }
        }
    };
}

shake!(
    /// SHAKE128 (FIPS 202 §6.2): rate 168 bytes.
    Shake128,
    168
);
shake!(
    /// SHAKE256 (FIPS 202 §6.2): rate 136 bytes.
    Shake256,
    136
);
