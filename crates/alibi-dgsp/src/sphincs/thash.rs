//! SPHINCS+-SHAKE "simple" tweakable hashes (round-3.1 specification §7.2.1):
//! T(PK.seed, ADRS, M) = SHAKE256(PK.seed || ADRS || M, 8n) and PRF = T with M = SK.seed.
//!
//! n is 16, 24 or 32 and ADRS is 32 bytes, so every input is whole 64-bit words: values live as
//! little-endian words, go into the Keccak state without byte shuffling, and come out as the
//! first n/8 words of the state. Work comes in batches that run eight at a time on
//! [`State8`]; a WOTS+ chain batch refills a lane as soon as its chain ends, so chains of
//! different lengths keep all eight lanes busy.

use super::keccak_x8::State8;

/// SHAKE256's rate in 64-bit words (136 bytes).
const RATE_WORDS: usize = 17;

/// A value of n bytes as words (only the first n/8 are used).
pub(crate) type Node = [u64; 4];

/// Address types (round-3.1 specification §2.7.3).
pub(crate) const WOTS_HASH: u8 = 0;
pub(crate) const WOTS_PK: u8 = 1;
pub(crate) const TREE: u8 = 2;
pub(crate) const FORS_TREE: u8 = 3;
pub(crate) const FORS_PK: u8 = 4;
pub(crate) const WOTS_PRF: u8 = 5;
pub(crate) const FORS_PRF: u8 = 6;

/// A 32-byte address: layer (word 0), tree (words 1-3, of which the last 8 bytes are used),
/// type, key pair, then chain and hash or tree height and index, all big-endian.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Adrs([u8; 32]);

impl Adrs {
    /// The address of `ty` in the tree `tree` of layer `layer`, all other fields zero.
    pub fn new(layer: u32, tree: u64, ty: u8) -> Adrs {
        let mut a = Adrs::default();
        a.0[0..4].copy_from_slice(&layer.to_be_bytes());
        a.0[8..16].copy_from_slice(&tree.to_be_bytes());
        a.0[19] = ty;
        a
    }

    /// The same subtree and key pair, another type, the remaining fields cleared.
    pub fn with_type(self, ty: u8) -> Adrs {
        let mut a = self;
        a.0[19] = ty;
        a.0[24..].fill(0);
        a
    }

    /// Sets the key-pair address (a leaf of the subtree).
    pub fn keypair(mut self, kp: u32) -> Adrs {
        self.0[20..24].copy_from_slice(&kp.to_be_bytes());
        self
    }

    /// Sets the chain address (also the tree-height field: the same byte).
    pub fn chain(mut self, c: u32) -> Adrs {
        self.0[24..28].copy_from_slice(&c.to_be_bytes());
        self
    }

    /// Sets the tree height.
    pub fn height(self, h: u32) -> Adrs {
        self.chain(h)
    }

    /// Sets the tree index (also the hash-address field).
    pub fn index(mut self, i: u32) -> Adrs {
        self.0[28..32].copy_from_slice(&i.to_be_bytes());
        self
    }

    /// ADRSc, the 22-byte form the SHA-2 sets hash: layer (1 byte), tree (8), type (1), and the
    /// last 12 bytes (FIPS 205 §11.2).
    pub fn compressed(&self) -> [u8; 22] {
        let mut c = [0u8; 22];
        c[0] = self.0[3];
        c[1..9].copy_from_slice(&self.0[8..16]);
        c[9] = self.0[19];
        c[10..22].copy_from_slice(&self.0[20..32]);
        c
    }

    /// The address as the four words it is hashed as.
    pub fn words(&self) -> [u64; 4] {
        core::array::from_fn(|k| {
            u64::from_le_bytes(self.0[8 * k..8 * k + 8].try_into().expect("8-byte slice"))
        })
    }
}

/// The hash address is the last byte of the address: the top byte of word 3.
fn with_hash_address(mut a: [u64; 4], step: u32) -> [u64; 4] {
    a[3] = (a[3] & !(0xff << 56)) | ((step as u64) << 56);
    a
}

/// What every hash of one key pair shares: n/8 and the two seeds.
#[derive(Clone)]
pub(crate) struct Ctx {
    /// n / 8.
    pub nw: usize,
    /// PK.seed.
    pub pub_seed: Node,
    /// SK.seed (zero when only verifying).
    pub sk_seed: Node,
}

impl Ctx {
    /// The context of PK.seed and SK.seed given as n bytes each (SK.seed may be empty when only
    /// verifying).
    pub fn new(pub_seed: &[u8], sk_seed: &[u8]) -> Ctx {
        let node = |b: &[u8]| -> Node {
            let mut n = [0u64; 4];
            for (w, c) in n.iter_mut().zip(b.chunks_exact(8)) {
                *w = u64::from_le_bytes(c.try_into().expect("chunks_exact(8)"));
            }
            n
        };
        Ctx {
            nw: pub_seed.len() / 8,
            pub_seed: node(pub_seed),
            sk_seed: node(sk_seed),
        }
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.sk_seed);
    }
}

/// The words of PK.seed || ADRS || M, one at a time.
#[inline(always)]
fn message_word(ctx: &Ctx, adrs: &[u64; 4], m: &[u64], t: usize) -> u64 {
    if t < ctx.nw {
        ctx.pub_seed[t]
    } else if t < ctx.nw + 4 {
        adrs[t - ctx.nw]
    } else {
        m[t - ctx.nw - 4]
    }
}

/// Absorbs `total` words given by `word` with SHAKE's padding (the message is whole words, so
/// the 0x1F domain byte starts a word) into one state, and applies the last permutation.
#[inline(always)]
fn sponge1(total: usize, word: impl Fn(usize) -> u64) -> [u64; 25] {
    let mut s = [0u64; 25];
    let mut t = 0;
    while total - t >= RATE_WORDS {
        for (k, lane) in s[..RATE_WORDS].iter_mut().enumerate() {
            *lane ^= word(t + k);
        }
        crate::sphincs::f1600(&mut s);
        t += RATE_WORDS;
    }
    for (k, lane) in s[..total - t].iter_mut().enumerate() {
        *lane ^= word(t + k);
    }
    s[total - t] ^= 0x1f;
    s[RATE_WORDS - 1] ^= 0x80 << 56;
    crate::sphincs::f1600(&mut s);
    s
}

/// The eight-way [`sponge1`]: `word(t, j)` is word t of message j.
#[inline(always)]
fn sponge8(total: usize, word: impl Fn(usize, usize) -> u64) -> State8 {
    let mut s = State8::zero();
    let mut t = 0;
    while total - t >= RATE_WORDS {
        for k in 0..RATE_WORDS {
            for j in 0..8 {
                s.w[k][j] ^= word(t + k, j);
            }
        }
        s.permute();
        t += RATE_WORDS;
    }
    for k in 0..total - t {
        for j in 0..8 {
            s.w[k][j] ^= word(t + k, j);
        }
    }
    for j in 0..8 {
        s.w[total - t][j] ^= 0x1f;
        s.w[RATE_WORDS - 1][j] ^= 0x80 << 56;
    }
    s.permute();
    s
}

/// T(PK.seed, ADRS, M) for one input of whole n-byte blocks given as words.
pub(crate) fn thash(ctx: &Ctx, adrs: &Adrs, m: &[u64]) -> Node {
    let a = adrs.words();
    let s = sponge1(ctx.nw + 4 + m.len(), |t| message_word(ctx, &a, m, t));
    let mut out = [0u64; 4];
    out[..ctx.nw].copy_from_slice(&s[..ctx.nw]);
    out
}

/// Many hashes T(PK.seed, adrs[i], inputs[i * len..(i + 1) * len]) with inputs of `len` words
/// each, eight at a time; the results go to `out` at stride n/8.
pub(crate) fn thash_many(ctx: &Ctx, adrs: &[Adrs], inputs: &[u64], len: usize, out: &mut [u64]) {
    let nw = ctx.nw;
    debug_assert_eq!(inputs.len(), adrs.len() * len);
    debug_assert_eq!(out.len(), adrs.len() * nw);
    let mut i = 0;
    while i < adrs.len() {
        let count = (adrs.len() - i).min(8);
        if count == 1 {
            let h = thash(ctx, &adrs[i], &inputs[i * len..(i + 1) * len]);
            out[i * nw..(i + 1) * nw].copy_from_slice(&h[..nw]);
        } else {
            // Idle lanes repeat the batch's first hash.
            let lane = |j: usize| i + if j < count { j } else { 0 };
            let a: [[u64; 4]; 8] = core::array::from_fn(|j| adrs[lane(j)].words());
            let s = sponge8(nw + 4 + len, |t, j| {
                let k = lane(j);
                message_word(ctx, &a[j], &inputs[k * len..(k + 1) * len], t)
            });
            for j in 0..count {
                for w in 0..nw {
                    out[(i + j) * nw + w] = s.w[w][j];
                }
            }
        }
        i += count;
    }
}

/// PRF(PK.seed, SK.seed, ADRS) = T(PK.seed, ADRS, SK.seed) for many addresses.
pub(crate) fn prf_many(ctx: &Ctx, adrs: &[Adrs], out: &mut [u64]) {
    let seeds: zeroize::Zeroizing<Vec<u64>> = zeroize::Zeroizing::new(
        (0..adrs.len())
            .flat_map(|_| ctx.sk_seed[..ctx.nw].iter().copied())
            .collect(),
    );
    thash_many(ctx, adrs, &seeds, ctx.nw, out);
}

/// One WOTS+ chain segment: from `start` (words at stride n/8 in the caller's buffer), apply F
/// at hash addresses `from`, `from + 1`, ... `steps` times, under `adrs` (type, key pair and
/// chain set).
#[derive(Clone, Copy)]
pub(crate) struct Chain {
    pub adrs: Adrs,
    pub from: u32,
    pub steps: u32,
}

/// Runs all `chains` on the values `vals` (stride n/8) in place, eight lanes at a time, each lane
/// taking the next chain the moment its current one ends (round-3.1 specification §3.2, chain).
pub(crate) fn chains(ctx: &Ctx, chains: &[Chain], vals: &mut [u64]) {
    let nw = ctx.nw;
    debug_assert_eq!(vals.len(), chains.len() * nw);
    // Per lane: (chain index, its address words, next hash address, hash address to stop at).
    type Lane = Option<(usize, [u64; 4], u32, u32)>;
    let mut lanes: [Lane; 8] = [None; 8];
    // Longest chains first: the lanes then run out of work at nearly the same time, instead of
    // one long chain finishing alone in an otherwise idle register (the chain lengths are
    // public in verification; in signing they come from the message digest, public as well).
    let mut order: Vec<usize> = (0..chains.len()).collect();
    order.sort_by_key(|&i| core::cmp::Reverse(chains[i].steps));
    let mut next = 0;
    let take = |next: &mut usize| -> Lane {
        while *next < order.len() {
            let i = order[*next];
            let c = chains[i];
            *next += 1;
            if c.steps > 0 {
                return Some((i, c.adrs.words(), c.from, c.from + c.steps));
            }
        }
        None
    };
    for lane in lanes.iter_mut() {
        *lane = take(&mut next);
    }
    // One F input is PK.seed || ADRS || value: below one block, so each step is one permutation
    // of a freshly written state.
    let pad_word = 2 * nw + 4;
    while lanes.iter().any(Option::is_some) {
        let mut s = State8::zero();
        for (j, lane) in lanes.iter().enumerate() {
            let Some((c, a, pos, _)) = *lane else {
                continue;
            };
            let a = with_hash_address(a, pos);
            for w in 0..nw {
                s.w[w][j] = ctx.pub_seed[w];
                s.w[nw + 4 + w][j] = vals[c * nw + w];
            }
            for (w, word) in a.iter().enumerate() {
                s.w[nw + w][j] = *word;
            }
            s.w[pad_word][j] = 0x1f;
            s.w[RATE_WORDS - 1][j] = 0x80 << 56;
        }
        s.permute();
        for (j, lane) in lanes.iter_mut().enumerate() {
            let Some((c, a, pos, end)) = *lane else {
                continue;
            };
            for w in 0..nw {
                vals[c * nw + w] = s.w[w][j];
            }
            *lane = if pos + 1 == end {
                take(&mut next)
            } else {
                Some((c, a, pos + 1, end))
            };
        }
    }
}

/// The WOTS+ chain lengths (w = 16) of an n-byte message: its 2n base-16 digits, high nibble
/// first, then the checksum's 3 digits (len2 * log w = 12 bits, so it fills them exactly) (§3.3).
pub(crate) fn base16_with_checksum(msg: &[u8]) -> Vec<u32> {
    let mut d: Vec<u32> = msg
        .iter()
        .flat_map(|b| [(b >> 4) as u32, (b & 15) as u32])
        .collect();
    let csum: u32 = d.iter().map(|x| 15 - x).sum();
    d.extend([(csum >> 8) & 15, (csum >> 4) & 15, csum & 15]);
    d
}

/// Words to the n bytes they encode.
pub(crate) fn to_bytes(words: &[u64], out: &mut Vec<u8>) {
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

/// n bytes (a multiple of 8) to words.
pub(crate) fn from_bytes(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("chunks_exact(8)")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shake::digest::{ExtendableOutput, Update, XofReader};

    fn shake(parts: &[&[u8]], n: usize) -> Vec<u8> {
        let mut h = shake::Shake256::default();
        for p in parts {
            h.update(p);
        }
        let mut out = vec![0; n];
        h.finalize_xof().read(&mut out);
        out
    }

    fn ctx(nw: usize) -> Ctx {
        Ctx {
            nw,
            pub_seed: [1, 2, 3, 4],
            sk_seed: [5, 6, 7, 8],
        }
    }

    fn bytes(w: &[u64]) -> Vec<u8> {
        let mut v = Vec::new();
        to_bytes(w, &mut v);
        v
    }

    #[test]
    fn thash_is_shake256_of_seed_adrs_message() {
        for nw in [2, 3, 4] {
            let c = ctx(nw);
            let adrs = Adrs::new(3, 0x0102_0304_0506, WOTS_PK).keypair(7);
            // One block, exactly a block's worth after padding, and several blocks.
            for len in [nw, 2 * nw, 13 - nw, 17 - nw - 4, 35 * nw, 67 * nw] {
                let m: Vec<u64> = (0..len as u64).map(|i| i.wrapping_mul(0x9e37)).collect();
                let want = shake(&[&bytes(&c.pub_seed[..nw]), &adrs.0, &bytes(&m)], 8 * nw);
                assert_eq!(
                    bytes(&thash(&c, &adrs, &m)[..nw]),
                    want,
                    "nw {nw} len {len}"
                );
                let adrs8 = vec![adrs; 5];
                let ms: Vec<u64> = (0..5).flat_map(|_| m.iter().copied()).collect();
                let mut out = vec![0; 5 * nw];
                thash_many(&c, &adrs8, &ms, len, &mut out);
                for k in 0..5 {
                    assert_eq!(bytes(&out[k * nw..(k + 1) * nw]), want);
                }
            }
        }
    }

    #[test]
    fn batched_chains_equal_one_step_at_a_time() {
        let c = ctx(4);
        let jobs: Vec<Chain> = (0..21)
            .map(|i| Chain {
                adrs: Adrs::new(1, 9, WOTS_HASH).keypair(2).chain(i),
                from: i % 5,
                steps: (i * 7) % 16 % (16 - i % 5),
            })
            .collect();
        let start: Vec<u64> = (0..21 * 4).map(|i| i as u64 * 31).collect();
        let mut fast = start.clone();
        chains(&c, &jobs, &mut fast);
        for (k, job) in jobs.iter().enumerate() {
            let mut v: Vec<u64> = start[k * 4..k * 4 + 4].to_vec();
            for step in job.from..job.from + job.steps {
                v = thash(&c, &job.adrs.index(step), &v)[..4].to_vec();
            }
            assert_eq!(&fast[k * 4..k * 4 + 4], &v[..], "chain {k}");
        }
    }
}
