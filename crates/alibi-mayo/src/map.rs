//! MAYO's multivariate map: key expansion, the public map P* (round-2 specification §2.1 and
//! §3.1), and the core of signing: given a target t, find s with P*(s) = t (§2.1.5, §3.3).
//!
//! Everything is generic over the number of 64-bit limbs of an m-vector, so the inner loops have a
//! fixed length per parameter set.

use crate::gf16::{self, MVec};
use crate::params::Params;
use crate::solve;
use aes::cipher::{KeyIvInit, StreamCipher};
use sha3::digest::{ExtendableOutput, Update, XofReader};
use zeroize::{Zeroize, Zeroizing};

/// SHAKE256 of the concatenation of `parts`, `len` bytes.
pub(crate) fn shake256(parts: &[&[u8]], len: usize) -> Vec<u8> {
    let mut h = sha3::Shake256::default();
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
    let mut stream = vec![0u8; (p.p1_vecs() + p.p2_vecs()) * p.m() / 2];
    let mut cipher = ctr::Ctr128BE::<aes::Aes128>::new(seed_pk.into(), &[0u8; 16].into());
    cipher.apply_keystream(&mut stream);
    let mut all = gf16::unpack_mvecs::<L>(&stream, p.m());
    let p2 = all.split_off(p.p1_vecs());
    (all, p2)
}

/// seed_pk and the oil matrix O (v x o, row-major, one element per byte) from seed_sk.
fn derive_o(p: Params, seed_sk: &[u8]) -> (Vec<u8>, Zeroizing<Vec<u8>>) {
    let s = Zeroizing::new(shake256(&[seed_sk], p.pk_seed_bytes() + p.o_bytes()));
    let o = Zeroizing::new(gf16::decode(&s[p.pk_seed_bytes()..], p.v() * p.o()));
    (s[..p.pk_seed_bytes()].to_vec(), o)
}

/// Index of entry (r, c), r <= c, of an upper-triangular size x size matrix stored row by row.
#[inline(always)]
fn upper(size: usize, r: usize, c: usize) -> usize {
    r * size - r * (r + 1) / 2 + c
}

/// The expanded public key: P1 (upper v x v), P2 (v x o), P3 (upper o x o).
pub(crate) struct PublicMap<const L: usize> {
    p: Params,
    p1: Vec<MVec<L>>,
    p2: Vec<MVec<L>>,
    p3: Vec<MVec<L>>,
}

/// The expanded secret key: O, P1 and L = (P1 + P1^T) O + P2 (§3.2, ExpandSK).
pub(crate) struct SecretMap<const L: usize> {
    p: Params,
    seed_sk: Zeroizing<Vec<u8>>,
    o: Zeroizing<Vec<u8>>,
    p1: Vec<MVec<L>>,
    l: Vec<MVec<L>>,
}

impl<const L: usize> Drop for SecretMap<L> {
    fn drop(&mut self) {
        for v in self.l.iter_mut() {
            v.zeroize();
        }
    }
}

/// The compact public key of seed_sk (§3.2, CompactKeyGen): seed_pk || upper(O^T (P1 O + P2)).
pub(crate) fn compact_public_key<const L: usize>(p: Params, seed_sk: &[u8]) -> Vec<u8> {
    let (seed_pk, o) = derive_o(p, seed_sk);
    let (p1, mut q) = expand_p1_p2::<L>(p, &seed_pk);
    let (v, oo) = (p.v(), p.o());
    // Q = P1 O + P2 (P1 upper triangular), in place of P2.
    for r in 0..v {
        for c in r..v {
            let mult = gf16::multiples(&p1[upper(v, r, c)]);
            for j in 0..oo {
                gf16::mul_add_pre(&mut q[r * oo + j], &mult, o[c * oo + j]);
            }
        }
    }
    // P3 = O^T Q, then upper(P3): (i, j) and (j, i) folded together.
    let mut p3 = vec![[0u64; L]; oo * oo];
    for r in 0..v {
        for j in 0..oo {
            let mult = gf16::multiples(&q[r * oo + j]);
            for i in 0..oo {
                gf16::mul_add_pre(&mut p3[i * oo + j], &mult, o[r * oo + i]);
            }
        }
    }
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
    /// E^l (P(s_i, s_j) + P(s_j, s_i)) (one term when i = j). s is public here, so the products
    /// are grouped by the value of s's elements and multiplied once per value.
    pub(crate) fn evaluate(&self, s: &[u8]) -> Vec<u8> {
        let (n, v, k) = (self.p.n(), self.p.v(), self.p.k());
        // PS[r][col] = row r of P times s_col.
        let mut ps = vec![[0u64; L]; n * k];
        let mut bins = vec![[[0u64; L]; 16]; n];
        for col in 0..k {
            let sc = &s[col * n..(col + 1) * n];
            bins.iter_mut().for_each(|b| *b = [[0; L]; 16]);
            for r in 0..v {
                for c in r..v {
                    gf16::add(&mut bins[r][sc[c] as usize], &self.p1[upper(v, r, c)]);
                }
                for c in 0..self.p.o() {
                    gf16::add(
                        &mut bins[r][sc[v + c] as usize],
                        &self.p2[r * self.p.o() + c],
                    );
                }
            }
            for r in v..n {
                for c in r..n {
                    let e = &self.p3[upper(self.p.o(), r - v, c - v)];
                    gf16::add(&mut bins[r][sc[c] as usize], e);
                }
            }
            for r in 0..n {
                ps[r * k + col] = gf16::combine_bins(&bins[r]);
            }
        }
        // SPS[row][col] = s_row^T PS[.][col].
        let mut sps = vec![[0u64; L]; k * k];
        for row in 0..k {
            for col in 0..k {
                let mut b = [[0u64; L]; 16];
                for r in 0..n {
                    gf16::add(&mut b[s[row * n + r] as usize], &ps[r * k + col]);
                }
                sps[row * k + col] = gf16::combine_bins(&b);
            }
        }
        whipped_sum(self.p, &sps)
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
    /// ExpandSK (§3.2).
    pub(crate) fn expand(p: Params, seed_sk: &[u8]) -> Self {
        let (seed_pk, o) = derive_o(p, seed_sk);
        let (p1, mut l) = expand_p1_p2::<L>(p, &seed_pk);
        let (v, oo) = (p.v(), p.o());
        // L = (P1 + P1^T) O + P2: the diagonal of P1 + P1^T vanishes in characteristic 2.
        for r in 0..v {
            for c in r + 1..v {
                let mult = gf16::multiples(&p1[upper(v, r, c)]);
                for j in 0..oo {
                    gf16::mul_add_pre(&mut l[r * oo + j], &mult, o[c * oo + j]);
                    gf16::mul_add_pre(&mut l[c * oo + j], &mult, o[r * oo + j]);
                }
            }
        }
        SecretMap {
            p,
            seed_sk: Zeroizing::new(seed_sk.to_vec()),
            o,
            p1,
            l,
        }
    }

    /// The secret seed.
    pub(crate) fn seed(&self) -> &[u8] {
        &self.seed_sk
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
        for ctr in 0..=255u8 {
            let rand = randomness(ctr);
            let (vin, r) = rand.split_at(k * v);
            // Pv[r][j] = row r of P1 times v_j; u[i][j] = v_i^T P1 v_j; M[i][c] = v_i^T L[.][c].
            let mut pv = Zeroizing::new(vec![[0u64; L]; v * k]);
            for row in 0..v {
                for c in row..v {
                    let mult = gf16::multiples(&self.p1[upper(v, row, c)]);
                    for j in 0..k {
                        gf16::mul_add_pre(&mut pv[row * k + j], &mult, vin[j * v + c]);
                    }
                }
            }
            let mut u = Zeroizing::new(vec![[0u64; L]; k * k]);
            let mut mm = Zeroizing::new(vec![[0u64; L]; k * o]);
            for row in 0..v {
                for j in 0..k {
                    let mult = gf16::multiples(&pv[row * k + j]);
                    for i in 0..k {
                        gf16::mul_add_pre(&mut u[i * k + j], &mult, vin[i * v + row]);
                    }
                }
                for c in 0..o {
                    let mult = gf16::multiples(&self.l[row * o + c]);
                    for i in 0..k {
                        gf16::mul_add_pre(&mut mm[i * o + c], &mult, vin[i * v + row]);
                    }
                }
            }
            // y = t - sum E^l (v_i^T P1 v_j + v_j^T P1 v_i).
            let mut y = Zeroizing::new(whipped_sum(p, &u));
            for (a, b) in y.iter_mut().zip(t) {
                *a ^= b;
            }
            let a = self.linear_system(&mm);
            let Some(x) = solve::sample_solution(&a, m, k * o, &y, r) else {
                continue;
            };
            // s_i = (v_i + O x_i, x_i).
            let mut s = vec![0u8; k * n];
            for i in 0..k {
                let xi = &x[i * o..(i + 1) * o];
                for row in 0..v {
                    let mut acc = vin[i * v + row];
                    for c in 0..o {
                        acc ^= gf16::mul(self.o[row * o + c], xi[c]);
                    }
                    s[i * n + row] = acc;
                }
                s[i * n + v..(i + 1) * n].copy_from_slice(xi);
            }
            return Some(s);
        }
        None
    }

    /// The m x k o matrix A (row-major, one element per byte): column block i (o columns) holds
    /// the sum over pairs (i, j) of E^l M_j, and block j gets E^l M_i (§3.3, steps 13-15).
    fn linear_system(&self, mm: &[MVec<L>]) -> Zeroizing<Vec<u8>> {
        let p = self.p;
        let (m, o, k) = (p.m(), p.o(), p.k());
        let pairs = k * (k + 1) / 2;
        let width = m + pairs;
        // Each column as a polynomial in z of degree below m + pairs, reduced at the end.
        let mut cols = Zeroizing::new(vec![0u8; k * o * width]);
        let mut ell = 0;
        for i in 0..k {
            for j in (i..k).rev() {
                for c in 0..o {
                    add_shifted(&mut cols[(i * o + c) * width..], &mm[j * o + c], m, ell);
                    if i != j {
                        add_shifted(&mut cols[(j * o + c) * width..], &mm[i * o + c], m, ell);
                    }
                }
                ell += 1;
            }
        }
        let tail = p.f_tail();
        let mut a = Zeroizing::new(vec![0u8; m * k * o]);
        for (col, poly) in cols.chunks_exact_mut(width).enumerate() {
            // z^pos = z^(pos - m) f_tail(z), from the top down.
            for pos in (m..width).rev() {
                let top = poly[pos];
                for (t, &f) in tail.iter().enumerate() {
                    poly[pos - m + t] ^= gf16::mul(top, f);
                }
            }
            for row in 0..m {
                a[row * k * o + col] = poly[row];
            }
        }
        a
    }
}

/// poly[e + shift] += element e of `v`, for e < m.
#[inline]
fn add_shifted<const L: usize>(poly: &mut [u8], v: &MVec<L>, m: usize, shift: usize) {
    for (e, x) in poly[shift..shift + m].iter_mut().enumerate() {
        *x ^= gf16::get(v, e);
    }
}
