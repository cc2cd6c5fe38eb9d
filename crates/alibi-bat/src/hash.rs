//! The BLAKE2 functions of the artifact (`BAT/kem_api.c`, `hash/blake2*.c`, `randombytes/rng.h`).
//!
//! BAT's reference code hashes with BLAKE2s for n <= 512; the SHADOWFAX artifact switches the
//! KEM's hashes to BLAKE2b (its `kem_api.c` says so) but keeps BLAKE2s in the key-generation
//! PRNG. All are plain unkeyed BLAKE2; "expand" is the counter-mode KDF
//!   expand(seed, label) = H(label || 0 || seed) || H(label || 1 || seed) || ...
//! (64-bit little-endian label and block counter, H = BLAKE2b-512 or BLAKE2s-256, one compression
//! per block since the seed is short), truncated to the requested length.

use blake2::digest::Digest;
use blake2::{Blake2b128, Blake2b512, Blake2s256};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// q | log2(n) << 16: the low bits of every label (the artifact's `Q | LOGN << 16`).
const PARAMS: u64 = 257 | (9 << 16);
/// Label of rr, the implicit-rejection secret derived from the key seed (`make_rr`).
pub(crate) const LABEL_RR: u64 = PARAMS | 0x72 << 24;
/// Label of Hash_s + Sample_s, from m to the bits of s (`hash_and_sample_s`).
pub(crate) const LABEL_S: u64 = PARAMS | 0x73 << 24;
/// Prefix of the rejection seed F(rr, ct) (`make_kdf_seed_bad`).
pub(crate) const LABEL_BAD: u64 = PARAMS | 0x62 << 24;
/// Label of the shared secret from a rejection seed; + 1 << 24 for a genuine m (`make_secret`).
pub(crate) const LABEL_SECRET_BAD: u64 = PARAMS | 0x66 << 24;
/// Label of the key-generation PRNG for (f, g) (`bat_keygen_make_fg`).
pub(crate) const LABEL_FG: u64 = PARAMS;

/// The artifact's expansion: block ctr of the output is H(label || ctr || seed), both counters
/// as 64-bit little-endian words, for a hash H of the BLAKE2 family.
fn expand<H: Digest>(out: &mut [u8], seed: &[u8], label: u64) {
    for (ctr, chunk) in out.chunks_mut(<H as Digest>::output_size()).enumerate() {
        let mut h = H::new();
        h.update(label.to_le_bytes());
        h.update((ctr as u64).to_le_bytes());
        h.update(seed);
        let mut block = h.finalize();
        chunk.copy_from_slice(&block[..chunk.len()]);
        block.zeroize();
    }
}

/// BLAKE2b expand into `out` (seed at most 112 bytes).
pub(crate) fn expand_b(out: &mut [u8], seed: &[u8], label: u64) {
    expand::<Blake2b512>(out, seed, label);
}

/// BLAKE2s expand into `out` (seed at most 48 bytes).
pub(crate) fn expand_s(out: &mut [u8], seed: &[u8], label: u64) {
    expand::<Blake2s256>(out, seed, label);
}

/// Hash_m: BLAKE2b with a 16-byte output over the 64 bytes of s (`hash_m`). The output length
/// is in BLAKE2's parameter block, which separates it from the 64-byte expand calls.
pub(crate) fn hash_m(sbuf: &[u8; 64]) -> [u8; 16] {
    Blake2b128::digest(sbuf).into()
}

/// The rejection seed F(rr, ct) = BLAKE2b-128(label || rr || ct) (`make_kdf_seed_bad`). The
/// artifact hashes n = 512 bytes from the start of its 473-byte ciphertext struct, 39 bytes past
/// its end; its recordings show those bytes as zeros, so the ciphertext is zero-padded to 512.
pub(crate) fn kdf_seed_bad(rr: &[u8; 32], ct: &[u8]) -> [u8; 16] {
    let mut h = Blake2b128::new();
    h.update(LABEL_BAD.to_le_bytes());
    h.update(rr);
    h.update(ct);
    h.update([0u8; crate::N - crate::CIPHERTEXT_LEN]);
    h.finalize().into()
}

/// The PRNG of `randombytes/rng.h`: a 32-byte key from BLAKE2s-expand of the seed, then blocks of
/// 128 bytes = expand(key, label = block counter). `next_u64` reads 15 little-endian words per
/// block (a block is refilled once fewer than 9 bytes remain unread, so its last 8 are skipped);
/// `fill` takes a whole expand call of its own, with the next counter value.
#[derive(Zeroize, ZeroizeOnDrop)]
pub(crate) struct Prng {
    key: [u8; 32],
    buf: [u8; 128],
    ptr: usize,
    ctr: u64,
}

impl Prng {
    /// `prng_init(seed, label)`.
    pub(crate) fn new(seed: &[u8], label: u64) -> Self {
        let mut key = [0u8; 32];
        expand_s(&mut key, seed, label);
        Prng {
            key,
            buf: [0; 128],
            ptr: 128,
            ctr: 0,
        }
    }

    /// `prng_get_u64`.
    pub(crate) fn next_u64(&mut self) -> u64 {
        if self.ptr >= 128 - 9 {
            expand_s(&mut self.buf, &self.key, self.ctr);
            self.ctr += 1;
            self.ptr = 0;
        }
        let mut w = [0u8; 8];
        w.copy_from_slice(&self.buf[self.ptr..self.ptr + 8]);
        self.ptr += 8;
        u64::from_le_bytes(w)
    }

    /// `prng_get_bytes`.
    pub(crate) fn fill(&mut self, out: &mut [u8]) {
        expand_s(out, &self.key, self.ctr);
        self.ctr += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Known answers from Python's hashlib (RFC 7693 BLAKE2, digest size in the parameter block).
    #[test]
    fn blake2_known_answers() {
        assert_eq!(
            hex::encode(Blake2b128::digest(b"abc")),
            "cf4ab791c62b8d2b2109c90275287816"
        );
        let mut out = [0u8; 70];
        expand_b(&mut out, b"seed", 7);
        let mut block0 = Vec::new();
        block0.extend_from_slice(&7u64.to_le_bytes());
        block0.extend_from_slice(&0u64.to_le_bytes());
        block0.extend_from_slice(b"seed");
        assert_eq!(out[..64], Blake2b512::digest(&block0)[..]);
        let mut s = [0u8; 40];
        expand_s(&mut s, b"seed", 7);
        assert_eq!(s[..32], Blake2s256::digest(&block0)[..]);
    }

    #[test]
    fn prng_skips_the_last_word_of_each_block() {
        let mut p = Prng::new(b"x", 0);
        let words: Vec<u64> = (0..16).map(|_| p.next_u64()).collect();
        let mut b0 = [0u8; 128];
        let mut b1 = [0u8; 128];
        expand_s(&mut b0, &p.key, 0);
        expand_s(&mut b1, &p.key, 1);
        let w = |b: &[u8], i: usize| {
            u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"))
        };
        assert_eq!(words[14], w(&b0, 14));
        assert_eq!(words[15], w(&b1, 0));
    }
}
