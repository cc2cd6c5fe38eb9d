//! Hashing: DGSP's H, and the tweakable hashes of our WOTS+ in the style of SPHINCS+ "simple"
//! (FIPS 205 §11): SHAKE256(seed || ADRS || M) for the SHAKE sets; for the SHA-2 sets
//! SHA-256(seed || 0^(64-n) || ADRSc || M), with SHA-512 and a 128-byte block for the multi-input
//! hash T at n = 24, 32. All outputs are truncated to n bytes.

use crate::params::{Family, Params};
use sha2::{Digest, Sha256, Sha512};
use sha3::digest::{ExtendableOutput, Update, XofReader};
use sha3::Shake256;

/// A 32-byte SPHINCS+-style address, with the compressed 22-byte form the SHA-2 sets hash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adrs([u8; 32]);

/// Address types (FIPS 205 §4.2).
pub const WOTS_HASH: u32 = 0;
/// The compression of the chain ends into the public key.
pub const WOTS_PK: u32 = 1;
/// Secret-value generation.
pub const WOTS_PRF: u32 = 5;

/// The layer address reserved for DGSP's WOTS+ keys: no SPHINCS+ hypertree layer reaches it, so
/// user chains never share a tweak with the manager's certificates.
pub const DGSP_LAYER: u32 = 0xFFFF_FFFF;

impl Adrs {
    /// The address of a user WOTS+ key: the reserved layer, type `ty`.
    pub fn dgsp(ty: u32) -> Adrs {
        let mut a = Adrs::default();
        a.0[0..4].copy_from_slice(&DGSP_LAYER.to_be_bytes());
        a.set_type(ty);
        a
    }

    /// Sets the type word and clears the words after it (FIPS 205's setTypeAndClear).
    pub fn set_type(&mut self, ty: u32) {
        self.0[16..20].copy_from_slice(&ty.to_be_bytes());
        self.0[20..].fill(0);
    }

    /// Sets the chain address.
    pub fn set_chain(&mut self, c: u32) {
        self.0[24..28].copy_from_slice(&c.to_be_bytes());
    }

    /// Sets the hash address (the step within a chain).
    pub fn set_hash(&mut self, h: u32) {
        self.0[28..32].copy_from_slice(&h.to_be_bytes());
    }

    /// The full 32 bytes.
    pub fn bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// ADRSc: layer (1 byte), tree (8), type (1), and the last 12 bytes.
    fn compressed(&self) -> [u8; 22] {
        let mut c = [0u8; 22];
        c[0] = self.0[3];
        c[1..9].copy_from_slice(&self.0[8..16]);
        c[9] = self.0[19];
        c[10..22].copy_from_slice(&self.0[20..32]);
        c
    }
}

/// SHAKE256 rate in bytes.
const SHAKE256_RATE: usize = 136;

/// SHAKE256 of a short input (below the 136-byte rate) to at most 136 bytes, straight on the
/// Keccak state: one permutation, none of a streaming hasher's bookkeeping. WOTS+ chains make
/// about a thousand such calls per key, so this is DGSP's signing and csr hot path.
fn shake256_one_block(groups: &[&[&[u8]]], out: &mut [u8]) {
    let mut block = [0u8; SHAKE256_RATE];
    let mut len = 0;
    for part in groups.iter().flat_map(|g| g.iter()) {
        block[len..len + part.len()].copy_from_slice(part);
        len += part.len();
    }
    block[len] ^= 0x1f;
    block[SHAKE256_RATE - 1] ^= 0x80;
    let mut state = [0u64; 25];
    for (lane, chunk) in state.iter_mut().zip(block.chunks_exact(8)) {
        *lane = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
    }
    keccak::f1600(&mut state);
    for (chunk, lane) in out.chunks_mut(8).zip(state.iter()) {
        chunk.copy_from_slice(&lane.to_le_bytes()[..chunk.len()]);
    }
}

/// The tweakable hash of one or more blocks under (seed, adrs), n bytes.
pub fn tweak(p: Params, seed: &[u8], adrs: &Adrs, msg: &[&[u8]], out: &mut [u8]) {
    let n = p.n();
    match p.family() {
        Family::Shake
            if seed.len() + 32 + msg.iter().map(|m| m.len()).sum::<usize>() < SHAKE256_RATE =>
        {
            let input = [seed, &adrs.bytes()[..]];
            shake256_one_block(&[&input, msg], &mut out[..n]);
        }
        Family::Shake => {
            let mut h = Shake256::default();
            h.update(seed);
            h.update(adrs.bytes());
            for m in msg {
                h.update(m);
            }
            h.finalize_xof().read(&mut out[..n]);
        }
        Family::Sha2 => {
            let multi = msg.iter().map(|m| m.len()).sum::<usize>() > n;
            let c = adrs.compressed();
            if n == 16 || !multi {
                let mut h = Sha256::new();
                Digest::update(&mut h, seed);
                Digest::update(&mut h, &[0u8; 64][..64 - n]);
                Digest::update(&mut h, c);
                for m in msg {
                    Digest::update(&mut h, m);
                }
                out[..n].copy_from_slice(&h.finalize()[..n]);
            } else {
                let mut h = Sha512::new();
                Digest::update(&mut h, seed);
                Digest::update(&mut h, &[0u8; 128][..128 - n]);
                Digest::update(&mut h, c);
                for m in msg {
                    Digest::update(&mut h, m);
                }
                out[..n].copy_from_slice(&h.finalize()[..n]);
            }
        }
    }
}

/// DGSP's H over the concatenation of `parts`, truncated to n bytes: SHAKE256, or SHA-256 (n = 16) /
/// SHA-512 (n = 24, 32).
pub fn h(p: Params, parts: &[&[u8]]) -> Vec<u8> {
    let n = p.n();
    match p.family() {
        Family::Shake => {
            let mut h = Shake256::default();
            for m in parts {
                h.update(m);
            }
            let mut out = vec![0u8; n];
            h.finalize_xof().read(&mut out);
            out
        }
        Family::Sha2 if n == 16 => {
            let mut h = Sha256::new();
            for m in parts {
                Digest::update(&mut h, m);
            }
            h.finalize()[..n].to_vec()
        }
        Family::Sha2 => {
            let mut h = Sha512::new();
            for m in parts {
                Digest::update(&mut h, m);
            }
            h.finalize()[..n].to_vec()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_block_shake_matches_the_streaming_one() {
        for len in [0usize, 1, 64, 96, 135] {
            let input: Vec<u8> = (0..len as u8).collect();
            let mut a = [0u8; 32];
            shake256_one_block(&[&[&input[..len / 2]], &[&input[len / 2..]]], &mut a);
            let mut h = Shake256::default();
            h.update(&input);
            let mut b = [0u8; 32];
            h.finalize_xof().read(&mut b);
            assert_eq!(a, b, "length {len}");
        }
    }
}
