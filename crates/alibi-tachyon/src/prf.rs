//! The PRF and the hashes.
//!
//! PRF(key, domain, nonce) = AES-kappa in counter mode, keyed at the security level (AES-128, -192 or
//! -256), with the 16-byte counter block [domain (1) | nonce (11) | block counter (4, big-endian)].
//! Every use has its own (domain, nonce): x_i has domain 1 and nonce = i, r' has domain 2 and a
//! fresh random nonce per signing attempt, so no two of them ever share a keystream block (the
//! proof-of-concept's x_i and x_(i+1), and its successive r', overlapped).
//!
//! H1 and H2 are BLAKE2b-512 with a leading domain byte; A comes from SHAKE128 on its public seed.

use aes::cipher::{KeyIvInit, StreamCipher};
use blake2::{Blake2b512, Digest};

/// Domain of the secret vectors x_i.
pub const DOMAIN_X: u8 = 1;
/// Domain of the masks r'.
pub const DOMAIN_R: u8 = 2;

/// Fills `out` with PRF(key, domain, nonce); the key length selects AES-128, -192 or -256.
pub fn prf(key: &[u8], domain: u8, nonce: &[u8; 11], out: &mut [u8]) {
    let mut iv = [0u8; 16];
    iv[0] = domain;
    iv[1..12].copy_from_slice(nonce);
    out.fill(0);
    match key.len() {
        16 => keystream::<ctr::Ctr32BE<aes::Aes128>>(key, &iv, out),
        24 => keystream::<ctr::Ctr32BE<aes::Aes192>>(key, &iv, out),
        _ => keystream::<ctr::Ctr32BE<aes::Aes256>>(&key[..32], &iv, out),
    }
}

/// XORs the keystream of cipher `C` under (key, iv) into `out`.
fn keystream<C: KeyIvInit + StreamCipher>(key: &[u8], iv: &[u8; 16], out: &mut [u8]) {
    // The callers pass exactly the key length their arm of `prf` selected, and every cipher here
    // has a 16-byte counter block.
    let mut c = C::new_from_slices(key, iv).expect("key and IV lengths are fixed by the caller");
    c.apply_keystream(out);
}

/// The nonce of x_i: i, big-endian, then zeros.
pub fn x_nonce(i: usize) -> [u8; 11] {
    let mut n = [0u8; 11];
    n[..4].copy_from_slice(&(i as u32).to_be_bytes());
    n
}

/// H1(r) = BLAKE2b-512(0x01 || r), r as 32-bit little-endian NTT-domain coefficients.
pub fn h1(r: &[u64]) -> [u8; 64] {
    let mut h = Blake2b512::new();
    h.update([1u8]);
    for &c in r {
        h.update((c as u32).to_le_bytes());
    }
    h.finalize().into()
}

/// The message digest H2 reads: BLAKE2b-512(0x03 || M), computed once per signature.
pub fn message_digest(msg: &[u8]) -> [u8; 64] {
    let mut h = Blake2b512::new();
    h.update([3u8]);
    h.update(msg);
    h.finalize().into()
}

/// H2(M || h): k distinct indices in [0, t), unbiased. Blocks BLAKE2b-512(0x02 || ctr || h || mu_M)
/// are read as 16-bit little-endian words, masked to the bit length of t - 1; words >= t and
/// repeats are skipped.
pub fn indices(mu_m: &[u8; 64], h: &[u8; 64], t: usize, k: usize) -> Vec<usize> {
    let mask = (t.next_power_of_two() - 1) as u16;
    let mut out = Vec::with_capacity(k);
    let mut ctr = 0u32;
    while out.len() < k {
        let mut b = Blake2b512::new();
        b.update([2u8]);
        b.update(ctr.to_le_bytes());
        b.update(h);
        b.update(mu_m);
        let block = b.finalize();
        for w in block.chunks_exact(2) {
            let v = (u16::from_le_bytes([w[0], w[1]]) & mask) as usize;
            if v < t && !out.contains(&v) && out.len() < k {
                out.push(v);
            }
        }
        ctr += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn prf_streams_share_no_block() {
        // The first 64 x_i (16 blocks each) and 4 fresh r' nonces: every 16-byte block distinct.
        let key = [9u8; 16];
        let mut seen = HashSet::new();
        for i in 0..64 {
            let mut b = [0u8; 256];
            prf(&key, DOMAIN_X, &x_nonce(i), &mut b);
            for c in b.chunks(16) {
                assert!(seen.insert(c.to_vec()), "x_{i} repeats a block");
            }
        }
        for n in 0..4u8 {
            let mut b = vec![0u8; 6144];
            prf(&key, DOMAIN_R, &[n; 11], &mut b);
            for c in b.chunks(16) {
                assert!(seen.insert(c.to_vec()), "r' repeats a block");
            }
        }
    }

    #[test]
    fn indices_are_distinct_in_range_and_cover_t() {
        let mut hits = vec![0usize; 3072];
        for j in 0..2000u32 {
            let h = [j as u8; 64];
            let m = message_digest(&j.to_le_bytes());
            let idx = indices(&m, &h, 3072, 32);
            assert_eq!(idx.len(), 32);
            let set: HashSet<_> = idx.iter().collect();
            assert_eq!(set.len(), 32);
            for i in idx {
                hits[i] += 1;
            }
        }
        // 64,000 draws over 3,072 values: every value about 20.8 times; none absent, none > 50.
        assert!(hits.iter().all(|&c| c > 0 && c < 50));
    }
}
