//! SPHINCS+-SHAKE-{128,192,256}{f,s}-simple, round 3.1 (the variant PQClean and
//! `pqcrypto-sphincsplus` implement), written for speed: every batch of independent hashes runs
//! eight-way ([`keccak_x8`]), and signing builds the FORS forest and the d hypertree subtrees in
//! parallel, then chains the d one-time signatures. Keys and signatures are byte-identical to
//! PQClean's (tests/sphincs_interop.rs signs and verifies across both).
//!
//! Section numbers refer to the SPHINCS+ round-3.1 specification.

pub(crate) mod keccak_x8;
pub(crate) mod thash;

use crate::Error;
use alibi_encoding::LengthChecked;
use rayon::prelude::*;
use thash::{Adrs, Chain, Ctx, Node};
use zeroize::Zeroizing;

/// The numbers that define a parameter set (§7.1, Table 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpxParams {
    /// Security parameter in bytes.
    pub n: usize,
    /// Total hypertree height.
    pub h: u32,
    /// Hypertree layers.
    pub d: u32,
    /// FORS tree height (log t).
    pub a: u32,
    /// FORS trees.
    pub k: u32,
}

/// The six SHAKE sets.
pub const SHAKE_128F: SpxParams = SpxParams {
    n: 16,
    h: 66,
    d: 22,
    a: 6,
    k: 33,
};
/// SPHINCS+-SHAKE-128s.
pub const SHAKE_128S: SpxParams = SpxParams {
    n: 16,
    h: 63,
    d: 7,
    a: 12,
    k: 14,
};
/// SPHINCS+-SHAKE-192f.
pub const SHAKE_192F: SpxParams = SpxParams {
    n: 24,
    h: 66,
    d: 22,
    a: 8,
    k: 33,
};
/// SPHINCS+-SHAKE-192s.
pub const SHAKE_192S: SpxParams = SpxParams {
    n: 24,
    h: 63,
    d: 7,
    a: 14,
    k: 17,
};
/// SPHINCS+-SHAKE-256f.
pub const SHAKE_256F: SpxParams = SpxParams {
    n: 32,
    h: 68,
    d: 17,
    a: 9,
    k: 35,
};
/// SPHINCS+-SHAKE-256s.
pub const SHAKE_256S: SpxParams = SpxParams {
    n: 32,
    h: 64,
    d: 8,
    a: 14,
    k: 22,
};

/// WOTS+ with w = 16 (§3.1).
const W: u32 = 16;

impl SpxParams {
    fn nw(&self) -> usize {
        self.n / 8
    }

    /// Subtree height h' = h / d.
    fn hp(&self) -> u32 {
        self.h / self.d
    }

    /// WOTS+ chains: len1 = 2n, len2 = 3.
    fn len(&self) -> usize {
        2 * self.n + 3
    }

    /// Signature bytes: R, the FORS signature, d WOTS+ signatures with their auth paths (§6.5).
    pub fn signature_len(&self) -> usize {
        self.n
            + (self.k * (self.a + 1)) as usize * self.n
            + self.d as usize * (self.len() + self.hp() as usize) * self.n
    }

    /// Public key bytes: PK.seed || PK.root.
    pub fn public_key_len(&self) -> usize {
        2 * self.n
    }

    /// Secret key bytes: SK.seed || SK.prf || PK.seed || PK.root.
    pub fn secret_key_len(&self) -> usize {
        4 * self.n
    }

    fn fors_bytes(&self) -> usize {
        (self.k * (self.a + 1)) as usize * self.n
    }

    fn layer_bytes(&self) -> usize {
        (self.len() + self.hp() as usize) * self.n
    }
}

/// H_msg's output split (§7.2.1): the FORS message, the tree index and the leaf index.
struct Digest {
    fors_indices: Vec<u32>,
    tree: u64,
    leaf: u32,
}

fn hash_message(p: &SpxParams, r: &[u8], pk: &[u8], msg: &[u8]) -> Digest {
    let md_len = (p.k * p.a).div_ceil(8) as usize;
    let tree_bits = p.h - p.hp();
    let tree_len = tree_bits.div_ceil(8) as usize;
    let leaf_len = p.hp().div_ceil(8) as usize;
    let mut h = alibi_keccak::Shake256::default();
    h.update(r);
    h.update(pk);
    h.update(msg);
    let mut buf = vec![0u8; md_len + tree_len + leaf_len];
    h.finalize_xof().read(&mut buf);
    let be = |b: &[u8]| b.iter().fold(0u64, |acc, &x| (acc << 8) | x as u64);
    let tree = be(&buf[md_len..md_len + tree_len]) & (u64::MAX >> (64 - tree_bits));
    let leaf = (be(&buf[md_len + tree_len..]) as u32) & (u32::MAX >> (32 - p.hp()));
    // FORS indices take a bits each, least significant bit first within each byte (PQClean's
    // message_to_indices).
    let md = &buf[..md_len];
    let fors_indices = (0..p.k)
        .map(|i| {
            (0..p.a).fold(0u32, |acc, j| {
                let bit = i * p.a + j;
                acc | ((((md[(bit / 8) as usize] >> (bit % 8)) & 1) as u32) << j)
            })
        })
        .collect();
    Digest {
        fors_indices,
        tree,
        leaf,
    }
}

/// The WOTS+ chain lengths of an n-byte message (§3.3).
fn chain_lengths(p: &SpxParams, msg: &Node) -> Vec<u32> {
    let mut bytes = Vec::with_capacity(p.n);
    thash::to_bytes(&msg[..p.nw()], &mut bytes);
    thash::base16_with_checksum(&bytes)
}

/// Every level of a forest of perfect binary trees whose leaves are `leaves` (stride n/8), each
/// tree of height `height`; level 0 is the leaves. Node j of level z (counting across the forest)
/// has tree index j and height z, which is FORS's numbering and, for one tree, the hypertree's.
fn forest(ctx: &Ctx, base: Adrs, leaves: Vec<u64>, height: u32) -> Vec<Vec<u64>> {
    let nw = ctx.nw;
    let mut levels = vec![leaves];
    for z in 1..=height {
        let below = levels.last().expect("levels starts with the leaves");
        let count = below.len() / nw / 2;
        let adrs: Vec<Adrs> = (0..count as u32).map(|j| base.height(z).index(j)).collect();
        let mut up = vec![0; count * nw];
        thash::thash_many(ctx, &adrs, below, 2 * nw, &mut up);
        levels.push(up);
    }
    levels
}

/// The authentication path of leaf `leaf` (forest numbering) through `levels`, `height` nodes.
fn auth_path(levels: &[Vec<u64>], nw: usize, leaf: u32, height: u32, out: &mut Vec<u8>) {
    for z in 0..height {
        let sib = ((leaf >> z) ^ 1) as usize;
        thash::to_bytes(&levels[z as usize][sib * nw..(sib + 1) * nw], out);
    }
}

/// The root from a leaf and its authentication path (§4.1.5's verification side).
fn root_from_path(ctx: &Ctx, base: Adrs, mut node: Node, mut idx: u32, path: &[u64]) -> Node {
    let nw = ctx.nw;
    for (z, sib) in path.chunks_exact(nw).enumerate() {
        let mut m = [0u64; 8];
        let (l, r) = if idx & 1 == 1 {
            (sib, &node[..nw])
        } else {
            (&node[..nw], sib)
        };
        m[..nw].copy_from_slice(l);
        m[nw..2 * nw].copy_from_slice(r);
        idx >>= 1;
        node = thash::thash(ctx, &base.height(z as u32 + 1).index(idx), &m[..2 * nw]);
    }
    node
}

/// The WOTS+ public keys (compressed: the leaves) of all 2^h' key pairs of one subtree
/// (§4.1.3), chains run eight at a time across key pairs.
fn subtree_leaves(p: &SpxParams, ctx: &Ctx, layer: u32, tree: u64) -> Vec<u64> {
    let (nw, len, count) = (p.nw(), p.len(), 1u32 << p.hp());
    let sub = Adrs::new(layer, tree, thash::WOTS_HASH);
    let prf_adrs: Vec<Adrs> = (0..count)
        .flat_map(|kp| {
            (0..len as u32).map(move |c| sub.with_type(thash::WOTS_PRF).keypair(kp).chain(c))
        })
        .collect();
    let mut vals = vec![0; prf_adrs.len() * nw];
    thash::prf_many(ctx, &prf_adrs, &mut vals);
    let jobs: Vec<Chain> = (0..count)
        .flat_map(|kp| {
            (0..len as u32).map(move |c| Chain {
                adrs: sub.keypair(kp).chain(c),
                from: 0,
                steps: W - 1,
            })
        })
        .collect();
    thash::chains(ctx, &jobs, &mut vals);
    let pk_adrs: Vec<Adrs> = (0..count)
        .map(|kp| sub.with_type(thash::WOTS_PK).keypair(kp))
        .collect();
    let mut leaves = vec![0; count as usize * nw];
    thash::thash_many(ctx, &pk_adrs, &vals, len * nw, &mut leaves);
    leaves
}

/// A WOTS+ signature of `msg` by key pair `kp` of a subtree (§3.5), appended to `out`.
fn wots_sign(p: &SpxParams, ctx: &Ctx, sub: Adrs, kp: u32, msg: &Node, out: &mut Vec<u8>) {
    let (nw, len) = (p.nw(), p.len());
    let prf_adrs: Vec<Adrs> = (0..len as u32)
        .map(|c| sub.with_type(thash::WOTS_PRF).keypair(kp).chain(c))
        .collect();
    let mut vals = Zeroizing::new(vec![0; len * nw]);
    thash::prf_many(ctx, &prf_adrs, &mut vals);
    let jobs: Vec<Chain> = chain_lengths(p, msg)
        .into_iter()
        .enumerate()
        .map(|(c, steps)| Chain {
            adrs: sub.with_type(thash::WOTS_HASH).keypair(kp).chain(c as u32),
            from: 0,
            steps,
        })
        .collect();
    thash::chains(ctx, &jobs, &mut vals);
    thash::to_bytes(&vals, out);
}

/// The compressed WOTS+ public key a signature implies (§3.6).
fn wots_pk_from_sig(p: &SpxParams, ctx: &Ctx, sub: Adrs, kp: u32, sig: &[u8], msg: &Node) -> Node {
    let len = p.len();
    let mut vals = thash::from_bytes(sig);
    let jobs: Vec<Chain> = chain_lengths(p, msg)
        .into_iter()
        .enumerate()
        .map(|(c, l)| Chain {
            adrs: sub.with_type(thash::WOTS_HASH).keypair(kp).chain(c as u32),
            from: l,
            steps: W - 1 - l,
        })
        .collect();
    debug_assert_eq!(jobs.len(), len);
    thash::chains(ctx, &jobs, &mut vals);
    thash::thash(ctx, &sub.with_type(thash::WOTS_PK).keypair(kp), &vals)
}

/// The FORS address of a signature: layer 0, the message's tree, key pair = its leaf (§5).
fn fors_base(d: &Digest) -> Adrs {
    Adrs::new(0, d.tree, thash::FORS_TREE).keypair(d.leaf)
}

/// FORS signature (§5.2) appended to `out`; returns the FORS public key.
fn fors_sign(p: &SpxParams, ctx: &Ctx, d: &Digest, out: &mut Vec<u8>) -> Node {
    let (nw, t) = (p.nw(), 1u32 << p.a);
    let base = fors_base(d);
    let prf_adrs: Vec<Adrs> = (0..p.k * t)
        .map(|i| base.with_type(thash::FORS_PRF).index(i))
        .collect();
    let mut sks = Zeroizing::new(vec![0; prf_adrs.len() * nw]);
    thash::prf_many(ctx, &prf_adrs, &mut sks);
    let leaf_adrs: Vec<Adrs> = (0..p.k * t).map(|i| base.index(i)).collect();
    let mut leaves = vec![0; sks.len()];
    thash::thash_many(ctx, &leaf_adrs, &sks, nw, &mut leaves);
    let levels = forest(ctx, base, leaves, p.a);
    for (i, &idx) in d.fors_indices.iter().enumerate() {
        let leaf = i as u32 * t + idx;
        let at = leaf as usize * nw;
        thash::to_bytes(&sks[at..at + nw], out);
        auth_path(&levels, nw, leaf, p.a, out);
    }
    thash::thash(ctx, &base.with_type(thash::FORS_PK), &levels[p.a as usize])
}

/// The FORS public key a FORS signature implies (§5.3), the k trees climbed together.
fn fors_pk_from_sig(p: &SpxParams, ctx: &Ctx, d: &Digest, sig: &[u8]) -> Node {
    let (nw, t, k) = (p.nw(), 1u32 << p.a, p.k as usize);
    let base = fors_base(d);
    let words = thash::from_bytes(sig);
    let per_tree = (p.a as usize + 1) * nw;
    let mut pos: Vec<u32> = (0..k).map(|i| i as u32 * t + d.fors_indices[i]).collect();
    let adrs: Vec<Adrs> = pos.iter().map(|&q| base.index(q)).collect();
    let sks: Vec<u64> = (0..k)
        .flat_map(|i| words[i * per_tree..i * per_tree + nw].iter().copied())
        .collect();
    let mut nodes = vec![0; k * nw];
    thash::thash_many(ctx, &adrs, &sks, nw, &mut nodes);
    for z in 1..=p.a {
        let mut inputs = Vec::with_capacity(2 * k * nw);
        let mut adrs = Vec::with_capacity(k);
        for i in 0..k {
            let node = &nodes[i * nw..(i + 1) * nw];
            let at = i * per_tree + z as usize * nw;
            let sib = &words[at..at + nw];
            if pos[i] & 1 == 1 {
                inputs.extend_from_slice(sib);
                inputs.extend_from_slice(node);
            } else {
                inputs.extend_from_slice(node);
                inputs.extend_from_slice(sib);
            }
            pos[i] >>= 1;
            adrs.push(base.height(z).index(pos[i]));
        }
        thash::thash_many(ctx, &adrs, &inputs, 2 * nw, &mut nodes);
    }
    thash::thash(ctx, &base.with_type(thash::FORS_PK), &nodes)
}

fn sign_ctx(p: &SpxParams, sk: &[u8]) -> Ctx {
    Ctx::new(&sk[2 * p.n..3 * p.n], &sk[..p.n])
}

/// Key generation from SK.seed || SK.prf || PK.seed (3n bytes): returns (pk, sk) (§6.2), or
/// `None` if the seed has another length.
pub fn keypair_from_seed(p: &SpxParams, seed: &[u8]) -> Option<(Vec<u8>, Zeroizing<Vec<u8>>)> {
    let n = p.n;
    if seed.len() != 3 * n {
        return None;
    }
    let ctx = Ctx::new(&seed[2 * n..], &seed[..n]);
    let top = p.d - 1;
    let leaves = subtree_leaves(p, &ctx, top, 0);
    let levels = forest(&ctx, Adrs::new(top, 0, thash::TREE), leaves, p.hp());
    let mut root = Vec::with_capacity(n);
    thash::to_bytes(&levels[p.hp() as usize], &mut root);
    let pk = [&seed[2 * n..], &root[..]].concat();
    let sk = Zeroizing::new([seed, &root[..]].concat());
    Some((pk, sk))
}

/// Signs `msg` with `sk` (4n bytes, PQClean's layout) and the per-signature randomness
/// `optrand` (n bytes), §6.4, or `None` if either has another length. The d subtrees and the
/// FORS forest are built in parallel.
pub fn sign(p: &SpxParams, msg: &[u8], sk: &[u8], optrand: &[u8]) -> Option<Vec<u8>> {
    let n = p.n;
    if sk.len() != 4 * n || optrand.len() != n {
        return None;
    }
    let ctx = sign_ctx(p, sk);
    let (sk_prf, pk) = (&sk[n..2 * n], &sk[2 * n..]);
    let mut r = vec![0u8; n];
    let mut h = alibi_keccak::Shake256::default();
    h.update(sk_prf);
    h.update(optrand);
    h.update(msg);
    h.finalize_xof().read(&mut r);
    let d = hash_message(p, &r, pk, msg);

    // Which subtree and leaf each layer signs with (§6.4: the low h' bits of the tree index
    // pick the leaf of the layer above).
    let hp = p.hp();
    let path: Vec<(u64, u32)> = (0..p.d)
        .scan((d.tree, d.leaf), |st, _| {
            let here = *st;
            *st = (st.0 >> hp, (st.0 & ((1 << hp) - 1)) as u32);
            Some(here)
        })
        .collect();
    let (fors, subtrees) = rayon::join(
        || {
            let mut out = Vec::with_capacity(p.fors_bytes());
            let pk = fors_sign(p, &ctx, &d, &mut out);
            (out, pk)
        },
        || {
            path.par_iter()
                .enumerate()
                .map(|(layer, &(tree, leaf))| {
                    let leaves = subtree_leaves(p, &ctx, layer as u32, tree);
                    let base = Adrs::new(layer as u32, tree, thash::TREE);
                    let levels = forest(&ctx, base, leaves, hp);
                    let mut auth = Vec::with_capacity(hp as usize * n);
                    auth_path(&levels, p.nw(), leaf, hp, &mut auth);
                    (levels[hp as usize][..p.nw()].to_vec(), auth)
                })
                .collect::<Vec<_>>()
        },
    );
    let mut sig = Vec::with_capacity(p.signature_len());
    sig.extend_from_slice(&r);
    sig.extend_from_slice(&fors.0);
    // Each layer's one-time key signs the root below it: the FORS key first.
    let mut below = fors.1;
    for (layer, ((tree, leaf), (root, auth))) in path.iter().zip(&subtrees).enumerate() {
        let sub = Adrs::new(layer as u32, *tree, thash::WOTS_HASH);
        wots_sign(p, &ctx, sub, *leaf, &below, &mut sig);
        sig.extend_from_slice(auth);
        below[..p.nw()].copy_from_slice(root);
    }
    debug_assert_eq!(sig.len(), p.signature_len());
    Some(sig)
}

/// Verifies a signature (§6.5): [`Error::Length`] for a signature or key of the wrong length,
/// [`Error::InvalidSpxSignature`] for one that does not verify.
pub fn verify(p: &SpxParams, msg: &[u8], sig: &[u8], pk: &[u8]) -> Result<(), Error> {
    let n = p.n;
    Error::check_len("SPHINCS+ signature", p.signature_len(), sig.len())?;
    Error::check_len("SPHINCS+ public key", 2 * n, pk.len())?;
    let ctx = Ctx::new(&pk[..n], &[]);
    let d = hash_message(p, &sig[..n], pk, msg);
    let mut at = n + p.fors_bytes();
    let mut node = fors_pk_from_sig(p, &ctx, &d, &sig[n..at]);
    let (mut tree, mut leaf) = (d.tree, d.leaf);
    let hp = p.hp();
    for layer in 0..p.d {
        let wots = &sig[at..at + p.len() * n];
        let auth = thash::from_bytes(&sig[at + p.len() * n..at + p.layer_bytes()]);
        let sub = Adrs::new(layer, tree, thash::WOTS_HASH);
        let leaf_node = wots_pk_from_sig(p, &ctx, sub, leaf, wots, &node);
        node = root_from_path(
            &ctx,
            Adrs::new(layer, tree, thash::TREE),
            leaf_node,
            leaf,
            &auth,
        );
        at += p.layer_bytes();
        leaf = (tree & ((1 << hp) - 1)) as u32;
        tree >>= hp;
    }
    let mut root = Vec::with_capacity(n);
    thash::to_bytes(&node[..p.nw()], &mut root);
    // Both sides are public: no need for a constant-time comparison.
    if root == pk[n..] {
        Ok(())
    } else {
        Err(Error::InvalidSpxSignature)
    }
}

/// Keccak-f[1600] on one state: the workspace's one permutation.
pub(crate) use alibi_keccak::f1600;
