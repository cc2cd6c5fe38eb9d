//! MAYO's multivariate map: key expansion, the public map P* (round-2 specification §2.1 and
//! §3.1), and the core of signing: given a target t, find s with P*(s) = t (§2.1.5, §3.3).
//!
//! Everything is generic over the number of 64-bit limbs of an m-vector, so the inner loops have a
//! fixed length per parameter set.

use crate::gf16::{self, MVec};
use crate::kernels::{self, Shape};
use crate::params::Params;
use crate::solve;
use aes::cipher::{BlockCipherEncrypt, KeyInit};
use zeroize::{Zeroize, Zeroizing};

/// SHAKE256 of the concatenation of `parts`, `len` bytes.
pub(crate) fn shake256(parts: &[&[u8]], len: usize) -> Vec<u8> {
    let mut h = alibi_keccak::Shake256::default();
    for p in parts {
        h.update(p);
    }
    let mut out = vec![0u8; len];
    h.finalize_xof().read(&mut out);
    out
}

/// P1 and P2 from the public seed: AES-128-CTR keyed by seed_pk, zero IV, big-endian counter
/// (§2.1.6, MAYO-C's `AES_128_CTR`), read as consecutive m-vectors.
fn expand_p1_p2<const L: usize>(p: Params, seed_pk: &[u8]) -> (Vec<MVec<L>>, Vec<MVec<L>>) {
    let mut stream = Keystream::new(seed_pk);
    let p1 = stream.mvecs::<L>(p.p1_vecs(), p.m() / 2);
    let p2 = stream.mvecs::<L>(p.p2_vecs(), p.m() / 2);
    (p1, p2)
}

/// Bytes of keystream made at a time (256 AES blocks: the cipher's parallel path stays busy and
/// the buffer stays in the first-level cache).
const CHUNK: usize = 4096;

/// The AES-128-CTR keystream of a key with a zero IV, made by encrypting the counter blocks in
/// place (no zeroed buffer to XOR into) and handed out as m-vectors.
struct Keystream {
    cipher: aes::Aes128,
    counter: u128,
    /// Unread keystream in `buf[start..end]`; the slack after `end` absorbs the over-read of a
    /// last partial limb.
    buf: Box<[u8; CHUNK + 128]>,
    start: usize,
    end: usize,
}

impl Keystream {
    fn new(key: &[u8]) -> Self {
        // seed_pk is pk_seed_bytes() = 16 long at every parameter set: derive_o and the decoder
        // slice it.
        let cipher = aes::Aes128::new_from_slice(key).expect("seed_pk is an AES-128 key");
        Keystream {
            cipher,
            counter: 0,
            buf: Box::new([0; CHUNK + 128]),
            start: 0,
            end: 0,
        }
    }

    /// Moves the unread tail to the front and appends the next CHUNK bytes.
    fn refill(&mut self) {
        let tail = self.end - self.start;
        self.buf.copy_within(self.start..self.end, 0);
        let (blocks, _) = aes::Block::slice_as_chunks_mut(&mut self.buf[tail..tail + CHUNK]);
        for b in blocks.iter_mut() {
            b.copy_from_slice(&self.counter.to_be_bytes());
            self.counter += 1;
        }
        self.cipher.encrypt_blocks(blocks);
        self.start = 0;
        self.end = tail + CHUNK;
    }

    /// The next `count` m-vectors of `vec_bytes` bytes each (vec_bytes <= 8 L < 128).
    fn mvecs<const L: usize>(&mut self, count: usize, vec_bytes: usize) -> Vec<MVec<L>> {
        // The last limb is read as a whole word, over-reading into the next vector (or the
        // slack), and masked.
        let last_mask = match vec_bytes % 8 {
            0 => u64::MAX,
            r => (1u64 << (8 * r)) - 1,
        };
        let mut out = Vec::with_capacity(count);
        while out.len() < count {
            if self.end - self.start < vec_bytes {
                self.refill();
            }
            let n = ((self.end - self.start) / vec_bytes).min(count - out.len());
            let bytes = &self.buf[self.start..self.start + n * vec_bytes + 8 * L];
            out.extend((0..n).map(|i| {
                let at = &bytes[i * vec_bytes..][..8 * L];
                let mut v: MVec<L> = core::array::from_fn(|j| {
                    u64::from_le_bytes(at[8 * j..8 * j + 8].try_into().expect("8 bytes"))
                });
                v[L - 1] &= last_mask;
                v
            }));
            self.start += n * vec_bytes;
        }
        out
    }
}

/// seed_pk and the oil matrix O (v x o, row-major, one element per byte) from seed_sk.
fn derive_o(p: Params, seed_sk: &[u8]) -> (Vec<u8>, Zeroizing<Vec<u8>>) {
    let s = Zeroizing::new(shake256(&[seed_sk], p.pk_seed_bytes() + p.o_bytes()));
    let o = Zeroizing::new(gf16::decode(&s[p.pk_seed_bytes()..], p.v() * p.o()));
    (s[..p.pk_seed_bytes()].to_vec(), o)
}

/// The expanded public key: P1 (upper v x v), P2 (v x o), P3 (upper o x o).
pub(crate) struct PublicMap<const L: usize> {
    p: Params,
    p1: Vec<MVec<L>>,
    p2: Vec<MVec<L>>,
    p3: Vec<MVec<L>>,
}

/// The expanded secret key (§3.2, ExpandSK): O, P1 and P2, and L = (P1 + P1^T) O + P2 once the
/// key signs a second time. A key used once (as a compact key is: expanded, used, dropped) signs
/// without L, which costs less than computing it; a key kept and reused computes L once and signs
/// faster with it after. Both give the same signature.
pub(crate) struct SecretMap<const L: usize> {
    p: Params,
    o: Zeroizing<Vec<u8>>,
    p1: Vec<MVec<L>>,
    p2: Vec<MVec<L>>,
    l: std::sync::OnceLock<Vec<MVec<L>>>,
    uses: std::sync::atomic::AtomicUsize,
}

impl<const L: usize> Drop for SecretMap<L> {
    fn drop(&mut self) {
        if let Some(l) = self.l.get_mut() {
            for v in l.iter_mut() {
                v.zeroize();
            }
        }
    }
}

/// The compact public key of seed_sk (§3.2, CompactKeyGen): seed_pk || upper(O^T (P1 O + P2)).
pub(crate) fn compact_public_key<const L: usize>(p: Params, seed_sk: &[u8]) -> Vec<u8> {
    let (seed_pk, o) = derive_o(p, seed_sk);
    let (p1, mut q) = expand_p1_p2::<L>(p, &seed_pk);
    let (v, oo) = (p.v(), p.o());
    // Q = P1 O + P2 (P1 upper triangular), in place of P2.
    kernels::product(&p1, v, Shape::Upper, &o, oo, &mut q);
    // P3^T = Q^T O (only upper(P3) is kept, in which P3 and P3^T agree), then upper: (i, j) and
    // (j, i) folded together.
    let mut p3 = vec![[0u64; L]; oo * oo];
    kernels::product(&q, oo, Shape::FullTransposed(v), &o, oo, &mut p3);
    let mut up = Vec::with_capacity(p.p3_vecs());
    for i in 0..oo {
        for j in i..oo {
            let mut e = p3[i * oo + j];
            if i != j {
                gf16::add(&mut e, &p3[j * oo + i]);
            }
            up.push(e);
        }
    }
    q.iter_mut().for_each(|x| x.zeroize());
    let mut out = seed_pk;
    gf16::pack_mvecs(&up, p.m(), &mut out);
    out
}

impl<const L: usize> PublicMap<L> {
    /// ExpandPK (§3.2): P1, P2 from seed_pk and P3 from the key. `cpk` has the right length.
    pub(crate) fn expand(p: Params, cpk: &[u8]) -> Self {
        let (p1, p2) = expand_p1_p2::<L>(p, &cpk[..p.pk_seed_bytes()]);
        let p3 = gf16::unpack_mvecs::<L>(&cpk[p.pk_seed_bytes()..], p.m());
        PublicMap { p, p1, p2, p3 }
    }

    /// P*(s) for s = (s_0, ..., s_{k-1}), k n elements (§2.1.5): the sum over i <= j of
    /// E^l (P(s_i, s_j) + P(s_j, s_i)) (one term when i = j).
    pub(crate) fn evaluate(&self, s: &[u8]) -> Vec<u8> {
        let (n, v, o, k) = (self.p.n(), self.p.v(), self.p.o(), self.p.k());
        // PS[r][col] = row r of P times s_col, P = [[P1, P2], [0, P3]].
        let st = kernels::transpose(s, k, n);
        let ps = kernels::p_times_s(&self.p1, &self.p2, &self.p3, v, o, s, &st);
        // SPS^T[col][row] = PS[.][col]^T s_row: the whipped sum only uses SPS + SPS^T and the
        // diagonal, so the transpose serves as well.
        let mut spst = vec![[0u64; L]; k * k];
        kernels::product(&ps, k, Shape::FullTransposed(n), &st, k, &mut spst);
        whipped_sum(self.p, &spst)
    }
}

/// The sum over i <= j of E^l (u_ij + u_ji) (u_ii alone when i = j), with l counting the pairs
/// in the order (0, k-1), (0, k-2), ..., (0, 0), (1, k-1), ... (§2.1.5). Evaluated by Horner's
/// rule from the last pair, E being multiplication by z modulo f(z).
fn whipped_sum<const L: usize>(p: Params, u: &[MVec<L>]) -> Vec<u8> {
    let (m, k) = (p.m(), p.k());
    let tail = p.f_tail();
    let mut acc = vec![0u8; m];
    for i in (0..k).rev() {
        for j in i..k {
            let top = acc[m - 1];
            acc.copy_within(0..m - 1, 1);
            acc[0] = 0;
            for (t, &f) in tail.iter().enumerate() {
                acc[t] ^= gf16::mul(top, f);
            }
            for (e, a) in acc.iter_mut().enumerate() {
                let mut x = gf16::get(&u[i * k + j], e);
                if i != j {
                    x ^= gf16::get(&u[j * k + i], e);
                }
                *a ^= x;
            }
        }
    }
    acc
}

impl<const L: usize> SecretMap<L> {
    /// ExpandSK (§3.2), but for L (see [`SecretMap`]).
    pub(crate) fn expand(p: Params, seed_sk: &[u8]) -> Self {
        let (seed_pk, o) = derive_o(p, seed_sk);
        let (p1, p2) = expand_p1_p2::<L>(p, &seed_pk);
        SecretMap {
            p,
            o,
            p1,
            p2,
            l: std::sync::OnceLock::new(),
            uses: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// L = (P1 + P1^T) O + P2, computed once.
    fn l(&self) -> &[MVec<L>] {
        self.l.get_or_init(|| {
            let (v, oo) = (self.p.v(), self.p.o());
            let mut l = self.p2.clone();
            // The diagonal of P1 + P1^T vanishes in characteristic 2; here it is added once by
            // each product and cancels.
            kernels::product(&self.p1, v, Shape::Upper, &self.o, oo, &mut l);
            kernels::product(&self.p1, v, Shape::UpperTransposed, &self.o, oo, &mut l);
            l
        })
    }

    /// M[i][c] = v_i^T L[.][c] (k x o), from L if it is there (or this is not the key's first
    /// use), else without it: M = ((P1 + P1^T) V^T)^T O + V P2, where P1 V^T is `pv`.
    fn m_matrix(&self, vt: &[u8], pv: &[MVec<L>], compact: bool) -> Zeroizing<Vec<MVec<L>>> {
        let (v, o, k) = (self.p.v(), self.p.o(), self.p.k());
        let mut mm = Zeroizing::new(vec![[0u64; L]; k * o]);
        // M^T[c][i] = L[.][c]^T v_i, or P2[.][c]^T v_i alone.
        let mut mt = Zeroizing::new(vec![[0u64; L]; o * k]);
        if compact {
            // Y = (P1 + P1^T) V^T: P1 V^T plus P1^T V^T, the diagonal added twice.
            let mut y = Zeroizing::new(pv.to_vec());
            kernels::product(&self.p1, v, Shape::UpperTransposed, vt, k, &mut y);
            kernels::product(&y, k, Shape::FullTransposed(v), &self.o, o, &mut mm);
            kernels::product(&self.p2, o, Shape::FullTransposed(v), vt, k, &mut mt);
        } else {
            kernels::product(self.l(), o, Shape::FullTransposed(v), vt, k, &mut mt);
        }
        for c in 0..o {
            for i in 0..k {
                gf16::add(&mut mm[i * o + c], &mt[c * k + i]);
            }
        }
        mm
    }

    /// A preimage s (k n elements) of the target t (m elements) under P*, with vinegar and the
    /// randomizer r drawn from `randomness(ctr)`, retried with ctr = 0, 1, ... 255 until the
    /// linear system has full rank (§3.3, Sign, steps 8-18). `randomness` returns the k v + k o
    /// elements (v_0, ..., v_{k-1}, r).
    pub(crate) fn preimage(
        &self,
        t: &[u8],
        mut randomness: impl FnMut(u8) -> Zeroizing<Vec<u8>>,
    ) -> Option<Vec<u8>> {
        let p = self.p;
        let (n, m, v, o, k) = (p.n(), p.m(), p.v(), p.o(), p.k());
        let first_use = self.uses.fetch_add(1, std::sync::atomic::Ordering::Relaxed) == 0;
        let compact = first_use && self.l.get().is_none();
        for ctr in 0..=255u8 {
            let rand = randomness(ctr);
            let (vin, r) = rand.split_at(k * v);
            // Pv[r][j] = row r of P1 times v_j; u[i][j] = v_i^T P1 v_j; M[i][c] = v_i^T L[.][c].
            let vt = Zeroizing::new(kernels::transpose(vin, k, v));
            let mut pv = Zeroizing::new(vec![[0u64; L]; v * k]);
            kernels::product(&self.p1, v, Shape::Upper, &vt, k, &mut pv);
            let mut u = Zeroizing::new(vec![[0u64; L]; k * k]);
            // u^T (the whipped sum uses u + u^T and the diagonal only).
            kernels::product(&pv, k, Shape::FullTransposed(v), &vt, k, &mut u);
            let mm = self.m_matrix(&vt, &pv, compact);
            // y = t - sum E^l (v_i^T P1 v_j + v_j^T P1 v_i).
            let mut y = Zeroizing::new(whipped_sum(p, &u));
            for (a, b) in y.iter_mut().zip(t) {
                *a ^= b;
            }
            let a = self.linear_system(&mm);
            let Some(x) = solve::sample_solution(&a, m, &y, r) else {
                continue;
            };
            // s_i = (v_i + O x_i, x_i). O X (v x k) row by row, with row c of X (the c-th
            // elements of x_0..x_{k-1}, k <= 16) packed in one limb and multiplied by O's
            // elements in constant time.
            let xrows: Vec<[[u64; 1]; 4]> = (0..o)
                .map(|c| {
                    let mut packed = [0u64; 1];
                    for i in 0..k {
                        packed[0] |= (x[i * o + c] as u64) << (4 * i);
                    }
                    gf16::multiples(&packed)
                })
                .collect();
            let mut s = vec![0u8; k * n];
            for row in 0..v {
                let mut acc = [0u64; 1];
                for c in 0..o {
                    gf16::mul_add_pre(&mut acc, &xrows[c], self.o[row * o + c]);
                }
                for i in 0..k {
                    s[i * n + row] = vin[i * v + row] ^ ((acc[0] >> (4 * i)) & 15) as u8;
                }
            }
            for i in 0..k {
                s[i * n + v..(i + 1) * n].copy_from_slice(&x[i * o..(i + 1) * o]);
            }
            return Some(s);
        }
        None
    }

    /// The m x k o matrix A, by columns, each an m-vector: column block i (o columns) holds
    /// the sum over pairs (i, j) of E^l M_j, and block j gets E^l M_i (§3.3, steps 13-15).
    /// Multiplying by E^l = z^l shifts an m-vector up by l elements; the overflow H(z) above z^m
    /// folds back as f_tail(z) H(z), which stays below z^m for every parameter set.
    fn linear_system(&self, mm: &[MVec<L>]) -> Zeroizing<Vec<MVec<L>>> {
        let p = self.p;
        let (m, o, k) = (p.m(), p.o(), p.k());
        let pairs = k * (k + 1) / 2;
        // Limbs of a polynomial of degree below m + pairs, plus one for the shifts' carries.
        let xl = (m + pairs).div_ceil(16) + 1;
        let mut cols = Zeroizing::new(vec![0u64; k * o * xl]);
        let mut ell = 0;
        for i in 0..k {
            for j in (i..k).rev() {
                for c in 0..o {
                    shl_xor(&mut cols[(i * o + c) * xl..][..xl], &mm[j * o + c], 4 * ell);
                    if i != j {
                        shl_xor(&mut cols[(j * o + c) * xl..][..xl], &mm[i * o + c], 4 * ell);
                    }
                }
                ell += 1;
            }
        }
        let tail = p.f_tail();
        let mut out = Zeroizing::new(vec![[0u64; L]; k * o]);
        let mut high = vec![0u64; xl];
        for (poly, col) in cols.chunks_exact(xl).zip(out.iter_mut()) {
            // H = the elements from z^m up; low = the rest.
            high.fill(0);
            for (t, h) in high.iter_mut().enumerate() {
                let bit = 4 * m + 64 * t;
                let (w, b) = (bit / 64, bit % 64);
                let lo = poly.get(w).copied().unwrap_or(0) >> b;
                let hi = if b == 0 {
                    0
                } else {
                    poly.get(w + 1).copied().unwrap_or(0) << (64 - b)
                };
                *h = lo | hi;
            }
            col.copy_from_slice(&poly[..L]);
            if m % 16 != 0 {
                col[L - 1] &= (1u64 << (4 * (m % 16))) - 1;
            }
            // low += sum_t f_t z^t H(z).
            for (t, &f) in tail.iter().enumerate() {
                if f == 0 {
                    continue;
                }
                let mut shifted = [0u64; L];
                shl_xor(&mut shifted, &high[..L], 4 * t);
                gf16::mul_add_pre(col, &gf16::multiples(&shifted), f);
            }
        }
        out
    }
}

/// dst += src shifted up by `bits` (a multiple of 4), limbs beyond dst dropped.
#[inline]
fn shl_xor(dst: &mut [u64], src: &[u64], bits: usize) {
    let (w, b) = (bits / 64, bits % 64);
    for (i, &x) in src.iter().enumerate() {
        if let Some(d) = dst.get_mut(i + w) {
            *d ^= x << b;
        }
        if b != 0 {
            if let Some(d) = dst.get_mut(i + w + 1) {
                *d ^= x >> (64 - b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first preimage (without L) and the later ones (with L) from the same randomness are
    /// the same, at MAYO_1 and MAYO_2.
    fn both_ways_agree<const L: usize>(p: Params) {
        let seed: Vec<u8> = (0..p.sk_seed_bytes() as u8).collect();
        let map = SecretMap::<L>::expand(p, &seed);
        let t: Vec<u8> = (0..p.m()).map(|i| (i * 7 % 16) as u8).collect();
        let randomness = |ctr: u8| {
            let len = p.k() * p.v() + p.k() * p.o();
            Zeroizing::new(
                shake256(&[b"randomness", &[ctr]], len)
                    .iter()
                    .map(|b| b & 15)
                    .collect::<Vec<u8>>(),
            )
        };
        let first = map.preimage(&t, randomness).expect("full rank");
        assert!(map.l.get().is_none(), "the first use computes no L");
        let second = map.preimage(&t, randomness).expect("full rank");
        assert!(map.l.get().is_some(), "the second use computes L");
        assert_eq!(first, second);
        let pk = compact_public_key::<L>(p, &seed);
        let public = PublicMap::<L>::expand(p, &pk);
        assert_eq!(public.evaluate(&first), t);
    }

    #[test]
    fn signing_with_and_without_l_agrees() {
        both_ways_agree::<5>(Params::Mayo1);
        both_ways_agree::<4>(Params::Mayo2);
    }
}
