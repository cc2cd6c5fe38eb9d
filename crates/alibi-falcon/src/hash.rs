//! HashToPoint (spec §3.7, Algorithm 3): SHAKE256(r || m) read as 16-bit big-endian words, keeping
//! those below 5q = 61445 reduced mod q, until n coefficients. Variable-time in the number of
//! rejected words, which depend only on public data (salt and message).

use alibi_keccak::{Shake128, Shake256, XofReader};

use crate::params::Q;

/// c = HashToPoint(salt || msg) in Z_q[x]/(x^n + 1), coefficients in [0, q).
pub fn hash_to_point(salt: &[u8], msg: &[u8], n: usize) -> Vec<u16> {
    let mut h = Shake256::default();
    h.update(salt);
    h.update(msg);
    sample_words(h.finalize_xof(), u16::from_be_bytes, n)
}

/// The SHADOWFAX artifact's HashToPoly, shared by its GANDALF rings and its Mitaka signatures:
/// SHAKE128 over the concatenated `parts`, read as 16-bit little-endian words, keeping those below
/// 5q reduced mod q, until n coefficients. (Falcon's own HashToPoint above reads SHAKE256 words
/// big-endian.)
pub fn shake128_to_poly(parts: &[&[u8]], n: usize) -> Vec<u16> {
    let mut h = Shake128::default();
    for p in parts {
        h.update(p);
    }
    shake128_poly(h.finalize_xof(), n)
}

/// The words of [`shake128_to_poly`] from a SHAKE128 already finished (by a caller that absorbed
/// its input alongside another hash's, `alibi_keccak::absorb_pair`).
pub fn shake128_poly(rd: XofReader, n: usize) -> Vec<u16> {
    sample_words(rd, u16::from_le_bytes, n)
}

/// The rejection sampling both hashes share: 16-bit words (in the byte order `word` reads) below
/// 5q, reduced mod q, until n coefficients.
fn sample_words(mut rd: XofReader, word: fn([u8; 2]) -> u16, n: usize) -> Vec<u16> {
    let mut out = Vec::with_capacity(n);
    let mut buf = [0u8; 136];
    while out.len() < n {
        rd.read(&mut buf);
        for w in buf.chunks_exact(2) {
            let t = word([w[0], w[1]]) as u32;
            if t < 5 * Q && out.len() < n {
                out.push((t % Q) as u16);
            }
        }
    }
    out
}
