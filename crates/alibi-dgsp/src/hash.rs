//! Hashing: DGSP's H, and the SHA-2 sets' tweakable hash for our WOTS+ in the style of SPHINCS+
//! "simple" (FIPS 205 §11): SHA-256(seed || 0^(64-n) || ADRSc || M), with SHA-512 and a 128-byte
//! block for the multi-input hash T at n = 24, 32, truncated to n bytes. The SHAKE sets' tweakable
//! hash is SPHINCS+'s own ([`crate::sphincs::thash`]).

use crate::params::{Family, Params};
use crate::sphincs::thash::Adrs;
use alibi_keccak::Shake256;
use sha2::{Digest, Sha256, Sha512};

/// The SHA-2 sets' tweakable hash of one or more blocks under (seed, adrs), n bytes.
pub(crate) fn tweak_sha2(p: Params, seed: &[u8], adrs: &Adrs, msg: &[&[u8]], out: &mut [u8]) {
    debug_assert_eq!(p.family(), Family::Sha2);
    let n = p.n();
    let multi = msg.iter().map(|m| m.len()).sum::<usize>() > n;
    if n == 16 || !multi {
        seeded::<Sha256>(64, seed, adrs, msg, &mut out[..n]);
    } else {
        seeded::<Sha512>(128, seed, adrs, msg, &mut out[..n]);
    }
}

/// D(seed || zeros to one `block` || ADRSc || msg), truncated to `out`.
fn seeded<D: Digest>(block: usize, seed: &[u8], adrs: &Adrs, msg: &[&[u8]], out: &mut [u8]) {
    let mut h = D::new();
    Digest::update(&mut h, seed);
    Digest::update(&mut h, &[0u8; 128][..block - seed.len()]);
    Digest::update(&mut h, adrs.compressed());
    for m in msg {
        Digest::update(&mut h, m);
    }
    out.copy_from_slice(&h.finalize()[..out.len()]);
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
