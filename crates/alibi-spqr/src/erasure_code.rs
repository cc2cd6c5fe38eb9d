//! The erasure code that carries the ML-KEM Braid's large messages (header, encapsulation key,
//! ciphertexts) across many small SPQR messages, 32 bytes per chunk (ML-KEM Braid specification,
//! "Chunking").
//!
//! A message of `2n` bytes is read as `n` big-endian GF(2^16) values; value `i` is the point
//! `(i / 16, v_i)` of polynomial `i % 16`. Chunk `k` carries each of the 16 polynomials evaluated
//! at `x = k`: the first chunks are the message itself, later ones are redundancy, and any
//! `ceil(n / 16)` distinct chunks give the message back (Lagrange interpolation).

use crate::gf2_16;

/// Bytes of data in one chunk.
pub const CHUNK_SIZE: usize = 32;
/// Polynomials a message is spread over (one GF(2^16) value per polynomial per chunk).
pub const POLYS: usize = CHUNK_SIZE / 2;

/// One chunk: its index (the evaluation point) and 16 field values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The evaluation point `x`.
    pub index: u16,
    /// The 16 values, big-endian.
    pub data: [u8; CHUNK_SIZE],
}

/// Coefficients (lowest degree first) of the polynomial through `pts` (distinct `x`).
pub(crate) fn interpolate(pts: &[(u16, u16)]) -> Vec<u16> {
    let n = pts.len();
    // master(x) = prod (x - x_i), lowest degree first.
    let mut master = vec![0u16; n + 1];
    master[0] = 1;
    for (deg, &(xi, _)) in pts.iter().enumerate() {
        for k in (1..=deg + 1).rev() {
            master[k] = gf2_16::add(master[k - 1], gf2_16::mul(master[k], xi));
        }
        master[0] = gf2_16::mul(master[0], xi);
    }
    let mut out = vec![0u16; n];
    let mut q = vec![0u16; n];
    for &(xi, yi) in pts {
        // q = master / (x - x_i) by synthetic division; q(x_i) = prod_{j != i} (x_i - x_j).
        let mut carry = 0u16;
        for k in (0..n).rev() {
            carry = gf2_16::add(master[k + 1], gf2_16::mul(carry, xi));
            q[k] = carry;
        }
        let denom = eval(&q, xi);
        let scale = gf2_16::div(yi, denom).unwrap_or(0);
        for (o, c) in out.iter_mut().zip(&q) {
            *o = gf2_16::add(*o, gf2_16::mul(*c, scale));
        }
    }
    out
}

/// Horner evaluation of a coefficient vector at `x`.
pub(crate) fn eval(coeffs: &[u16], x: u16) -> u16 {
    coeffs
        .iter()
        .rev()
        .fold(0u16, |acc, &c| gf2_16::add(gf2_16::mul(acc, x), c))
}

fn to_values(msg: &[u8]) -> Vec<u16> {
    msg.chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect()
}

/// Points each polynomial gets from a message of `n` values.
fn points_of(n: usize, poly: usize) -> usize {
    n / POLYS + usize::from(poly < n % POLYS)
}

/// Sends a message as chunks 0, 1, 2, ...
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoder {
    pub(crate) values: Vec<u16>,
    pub(crate) next: u32,
    /// Each polynomial's coefficients, computed at the first redundancy chunk.
    pub(crate) polys: Option<Vec<Vec<u16>>>,
}

impl Encoder {
    /// An encoder for `msg`, which must have an even length of at most 2 MiB.
    pub fn new(msg: &[u8]) -> Option<Self> {
        if !msg.len().is_multiple_of(2) || msg.len() > (1 << 16) * POLYS {
            return None;
        }
        Some(Self {
            values: to_values(msg),
            next: 0,
            polys: None,
        })
    }

    fn polys(&mut self) -> &[Vec<u16>] {
        let values = &self.values;
        self.polys.get_or_insert_with(|| {
            (0..POLYS)
                .map(|p| {
                    let pts: Vec<(u16, u16)> = values
                        .iter()
                        .skip(p)
                        .step_by(POLYS)
                        .enumerate()
                        .map(|(x, &y)| (x as u16, y))
                        .collect();
                    interpolate(&pts)
                })
                .collect()
        })
    }

    /// The chunk at evaluation point `index`.
    pub fn chunk_at(&mut self, index: u16) -> Chunk {
        let n = self.values.len();
        let k = index as usize;
        let mut data = [0u8; CHUNK_SIZE];
        for p in 0..POLYS {
            let v = if k < points_of(n, p) {
                self.values[k * POLYS + p]
            } else {
                eval(&self.polys()[p], index)
            };
            data[2 * p..2 * p + 2].copy_from_slice(&v.to_be_bytes());
        }
        Chunk { index, data }
    }

    /// The next chunk (indices wrap after 65,535).
    pub fn next_chunk(&mut self) -> Chunk {
        let c = self.chunk_at(self.next as u16);
        self.next = self.next.wrapping_add(1);
        c
    }
}

/// Collects chunks until a message of known length can be rebuilt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoder {
    pub(crate) len: usize,
    /// Each polynomial's points `(x, y)`, sorted by `x`, no `x` twice.
    pub(crate) pts: Vec<Vec<(u16, u16)>>,
}

impl Decoder {
    /// A decoder for a message of `len` bytes (even).
    pub fn new(len: usize) -> Option<Self> {
        if !len.is_multiple_of(2) {
            return None;
        }
        Some(Self {
            len,
            pts: vec![Vec::new(); POLYS],
        })
    }

    fn needed(&self, poly: usize) -> usize {
        points_of(self.len / 2, poly)
    }

    /// Takes a chunk's points. A point is kept when it is part of the message itself or while
    /// its polynomial still lacks points, so the stored points stay bounded; a repeated `x`
    /// keeps its first value.
    pub fn add_chunk(&mut self, chunk: &Chunk) {
        let x = chunk.index;
        for p in 0..POLYS {
            let need = self.needed(p);
            let pts = &mut self.pts[p];
            if (x as usize) < need || pts.len() < need {
                if let Err(at) = pts.binary_search_by_key(&x, |&(px, _)| px) {
                    let y = u16::from_be_bytes([chunk.data[2 * p], chunk.data[2 * p + 1]]);
                    pts.insert(at, (x, y));
                }
            }
        }
    }

    /// The message, once every polynomial has enough points.
    pub fn decoded(&self) -> Option<Vec<u8>> {
        if (0..POLYS).any(|p| self.pts[p].len() < self.needed(p)) {
            return None;
        }
        let n = self.len / 2;
        let mut polys: Vec<Option<Vec<u16>>> = vec![None; POLYS];
        let mut out = Vec::with_capacity(self.len);
        for i in 0..n {
            let (p, x) = (i % POLYS, (i / POLYS) as u16);
            let pts = &self.pts[p];
            let y = match pts.binary_search_by_key(&x, |&(px, _)| px) {
                Ok(at) => pts[at].1,
                Err(_) => {
                    let need = self.needed(p);
                    let poly = polys[p].get_or_insert_with(|| interpolate(&pts[..need]));
                    eval(poly, x)
                }
            };
            out.extend_from_slice(&y.to_be_bytes());
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn interpolation_passes_through_its_points() {
        let pts: Vec<(u16, u16)> = (0..36u16)
            .map(|x| (x * 7 + 3, x.wrapping_mul(40503)))
            .collect();
        let c = interpolate(&pts);
        for &(x, y) in &pts {
            assert_eq!(eval(&c, x), y);
        }
    }

    #[test]
    fn encoder_rejects_odd_lengths() {
        assert!(Encoder::new(&[1, 2, 3]).is_none());
        assert!(Decoder::new(3).is_none());
    }

    proptest! {
        /// Any `ceil(n/16)` distinct chunks rebuild the message, in any order.
        #[test]
        fn any_enough_chunks_decode(
            half in 1usize..600,
            seed in any::<u64>(),
            skip in 0u16..200,
        ) {
            let mut x = seed | 1;
            let msg: Vec<u8> = (0..2 * half)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            let mut enc = Encoder::new(&msg).unwrap();
            let mut dec = Decoder::new(msg.len()).unwrap();
            let need = half.div_ceil(POLYS);
            for i in 0..need as u16 {
                prop_assert!(dec.decoded().is_none());
                dec.add_chunk(&enc.chunk_at(skip + 3 * i));
            }
            prop_assert_eq!(dec.decoded().unwrap(), msg);
        }
    }
}
