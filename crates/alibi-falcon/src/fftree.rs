//! The Falcon tree (ffLDL*, spec §3.8.3, Algorithm 9) and fast Fourier sampling (ffSampling, §3.9.2,
//! Algorithm 11), over FFT-domain polynomials in the layout of [`crate::fft`].
//!
//! Flat layout, as a tree of degree 2^logn: `[L10 (n values)][left subtree][right subtree]`, where the
//! left subtree is the tree of D00 and the right one the tree of D11; a tree of degree 1 is a single leaf.
//! Its size is (logn + 1) 2^logn values. Leaves hold 1 / sigma' = sqrt(D) / sigma, normalised as
//! [`ffldl`] reaches them.

use crate::fft;
use crate::isa::{Avx2Fma, Isa, Portable};
use crate::sampler::Sampler;

/// Number of f64 values in a tree of degree 2^logn.
pub const fn tree_size(logn: u32) -> usize {
    ((logn + 1) as usize) << logn
}

/// One LDL* step on a 2x2 self-adjoint block: L10 = adj(g01) / g00 into `l10`, then
/// D11 = g11 - |g01|^2 / g00 written over `g01` (g00 is self-adjoint: its values are real).
#[inline(always)]
fn ldl(l10: &mut [f64], g00: &[f64], g01: &mut [f64], g11: &[f64]) {
    let hn = g00.len() / 2;
    let (lr, li) = l10.split_at_mut(hn);
    let (re, im) = g01.split_at_mut(hn);
    let l = lr.iter_mut().zip(li);
    let g = re.iter_mut().zip(im).zip(g00.iter().zip(g11));
    for ((lr, li), ((re, im), (&g00, &g11))) in l.zip(g) {
        // L10 = adj(g01) * (1 / g00), then D11 from g01 before it is overwritten.
        let inv = 1.0 / g00;
        *lr = *re * inv;
        *li = -*im * inv;
        let m = (*re * *re + *im * *im) / g00;
        *re = g11 - m;
        *im = 0.0;
    }
}

/// Builds the two subtrees below a node of degree 2^logn from its diagonal D00, D11: each is split
/// into the quasi-cyclic Gram matrix [[d0, d1], [adj(d1), d0]] of degree 2^(logn - 1), down to
/// leaves normalised for `sigma`.
#[inline(always)]
fn children<I: Recursion>(
    isa: I,
    rest: &mut [f64],
    d00: &[f64],
    d11: &[f64],
    logn: u32,
    sigma: f64,
    scratch: &mut [f64],
) {
    let hn = 1usize << (logn - 1);
    let (left, right) = rest.split_at_mut(tree_size(logn - 1));
    let (a, rest_s) = scratch.split_at_mut(hn);
    let (b, deeper) = rest_s.split_at_mut(hn);
    for (d, tree) in [(d00, left), (d11, right)] {
        fft::split(a, b, d);
        let (g0, g1, scratch) = (&mut *a, &mut *b, &mut *deeper);
        let logn = logn - 1;
        isa.ffldl_inner(LdlCall {
            tree,
            g0,
            g1,
            logn,
            sigma,
            scratch,
        });
    }
}

/// ffLDL* of the full Gram matrix [[g00, g01], [adj(g01), g11]] (Algorithm 9), its leaves D
/// normalised for `sigma` (§3.8.3) into 1 / sigma' = sqrt(D) / sigma, what SamplerZ consumes;
/// `g01` is consumed.
pub(crate) fn ffldl<I: Recursion>(
    isa: I,
    tree: &mut [f64],
    g00: &[f64],
    g01: &mut [f64],
    g11: &[f64],
    logn: u32,
    sigma: f64,
) {
    let n = 1usize << logn;
    let (l10, rest) = tree.split_at_mut(n);
    // D11 now sits in g01. Scratch: 2^logn for this level's halves, 2^logn more for all deeper ones.
    let mut scratch = vec![0.0; 2 * n];
    isa.run(|| {
        ldl(l10, g00, g01, g11);
        children(isa, rest, g00, g01, logn, sigma, &mut scratch);
    });
}

/// One call of ffLDL* below the top: where its subtree goes, the quasi-cyclic Gram matrix
/// [[g0, g1], [adj(g1), g0]] that `split` produced, its degree 2^logn, and scratch for deeper
/// levels.
pub(crate) struct LdlCall<'a> {
    tree: &'a mut [f64],
    g0: &'a mut [f64],
    g1: &'a mut [f64],
    logn: u32,
    sigma: f64,
    scratch: &'a mut [f64],
}

/// ffLDL* of one [`LdlCall`], on the build it was entered with ([`Recursion::ffldl_inner`]).
#[inline(always)]
fn inner<I: Recursion>(isa: I, call: LdlCall<'_>) {
    let LdlCall {
        tree,
        g0,
        g1,
        logn,
        sigma,
        scratch,
    } = call;
    if logn == 0 {
        // The leaf D, normalised (the inverse of Algorithm 9's sigma' = sigma / sqrt(D)).
        tree[0] = g0[0].sqrt() / sigma;
        return;
    }
    let n = 1usize << logn;
    let (l10, rest) = tree.split_at_mut(n);
    ldl(l10, g0, g1, g0);
    children(isa, rest, g0, g1, logn, sigma, scratch);
}

/// The two recursions (ffLDL* and ffSampling), compiled into each build. `Isa::run` works by
/// inlining its closure into a function compiled with the build's features, and a recursive
/// function is never inlined: entered through `run`, each level ran on the baseline build
/// whatever the CPU. So each build has its own copy of both recursions, carrying its features,
/// and each level calls its own build's copy.
pub(crate) trait Recursion: Isa {
    /// [`inner`] on this build.
    fn ffldl_inner(self, call: LdlCall<'_>);
    /// ffSampling ([`ff_sampling_level`]) on this build.
    fn ff_sampling(self, samp: &mut Sampler, call: SamplingCall<'_>);
}

impl Recursion for Portable {
    fn ffldl_inner(self, call: LdlCall<'_>) {
        inner(self, call)
    }

    fn ff_sampling(self, samp: &mut Sampler, call: SamplingCall<'_>) {
        ff_sampling_level(self, samp, call)
    }
}

impl Recursion for Avx2Fma {
    #[inline(always)]
    fn ffldl_inner(self, call: LdlCall<'_>) {
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        // SAFETY: an `Avx2Fma` exists only where `Avx2Fma::detect` found both features.
        unsafe {
            inner_avx2_fma(self, call)
        }
        #[cfg(not(target_arch = "x86_64"))]
        inner(self, call)
    }

    #[inline(always)]
    fn ff_sampling(self, samp: &mut Sampler, call: SamplingCall<'_>) {
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        // SAFETY: as above.
        unsafe {
            ff_sampling_avx2_fma(self, samp, call)
        }
        #[cfg(not(target_arch = "x86_64"))]
        ff_sampling_level(self, samp, call)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn inner_avx2_fma(isa: Avx2Fma, call: LdlCall<'_>) {
    inner(isa, call)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn ff_sampling_avx2_fma(isa: Avx2Fma, samp: &mut Sampler, call: SamplingCall<'_>) {
    ff_sampling_level(isa, samp, call)
}

/// The smallest and largest sigma' of a normalised tree (the key is usable iff they lie in
/// [sigma_min, sigma_max]).
pub fn leaf_range(tree: &[f64], logn: u32) -> (f64, f64) {
    if logn == 0 {
        return (1.0 / tree[0], 1.0 / tree[0]);
    }
    let n = 1usize << logn;
    let ts = tree_size(logn - 1);
    let (a, b) = leaf_range(&tree[n..n + ts], logn - 1);
    let (c, d) = leaf_range(&tree[n + ts..n + 2 * ts], logn - 1);
    (a.min(c), b.max(d))
}

/// One ffSampling call's vectors, each of length 2^logn: the target (t0, t1) and where the
/// sample (z0, z1) goes.
pub(crate) struct Target<'a> {
    pub z0: &'a mut [f64],
    pub z1: &'a mut [f64],
    pub t0: &'a [f64],
    pub t1: &'a [f64],
}

/// One ffSampling call (Algorithm 11): (z0, z1) close to (t0, t1) in the lattice's Gram-Schmidt
/// metric, with the tree of degree 2^logn; `tmp` needs 2 * 2^logn values.
pub(crate) struct SamplingCall<'a> {
    pub target: Target<'a>,
    pub tree: &'a [f64],
    pub logn: u32,
    pub tmp: &'a mut [f64],
}

/// One level of ffSampling, compiled into the build `isa` names.
#[inline(always)]
fn ff_sampling_level<I: Recursion>(isa: I, samp: &mut Sampler, call: SamplingCall<'_>) {
    let SamplingCall {
        target,
        tree,
        logn,
        tmp,
    } = call;
    let Target { z0, z1, t0, t1 } = target;
    if logn == 1 {
        // Degree 2: one complex value each; the two leaves share each child's sigma'.
        let (l_re, l_im) = (tree[0], tree[1]);
        let (s0, s1) = (tree[2], tree[3]);
        let a = samp.sample(t1[0], s1) as f64;
        let b = samp.sample(t1[1], s1) as f64;
        let (dr, di) = (t1[0] - a, t1[1] - b);
        let tr = t0[0] + dr * l_re - di * l_im;
        let ti = t0[1] + dr * l_im + di * l_re;
        z1[0] = a;
        z1[1] = b;
        z0[0] = samp.sample(tr, s0) as f64;
        z0[1] = samp.sample(ti, s0) as f64;
        return;
    }
    let n = 1usize << logn;
    let ts = tree_size(logn - 1);
    let (l10, subtrees) = tree.split_at(n);
    let (tree0, tree1) = subtrees.split_at(ts);
    let (cur, deeper) = tmp.split_at_mut(n);

    // z1 = merge(ffSampling(split(t1), T1)).
    split_into(z1, t1);
    sample_halves(isa, samp, z1, cur, tree1, logn, deeper);
    // t0' = t0 + (t1 - z1) L10; z0 = merge(ffSampling(split(t0'), T0)).
    for ((c, &t), &z) in cur.iter_mut().zip(t1).zip(&*z1) {
        *c = t - z;
    }
    fft::mul(cur, l10);
    fft::add(cur, t0);
    split_into(z0, cur);
    sample_halves(isa, samp, z0, cur, tree0, logn, deeper);
}

/// split(v) into the two halves of `z`.
#[inline(always)]
fn split_into(z: &mut [f64], v: &[f64]) {
    let (a, b) = z.split_at_mut(z.len() / 2);
    fft::split(a, b, v);
}

/// `z` = merge(ffSampling(split(v), `tree`)) at level `logn`, for split(v) already in `z`'s
/// halves: the sample is made in `cur`'s halves, then merged into `z`.
#[inline(always)]
fn sample_halves<I: Recursion>(
    isa: I,
    samp: &mut Sampler,
    z: &mut [f64],
    cur: &mut [f64],
    tree: &[f64],
    logn: u32,
    deeper: &mut [f64],
) {
    let hn = z.len() / 2;
    {
        let (t0, t1) = z.split_at(hn);
        let (z0, z1) = cur.split_at_mut(hn);
        let target = Target { z0, z1, t0, t1 };
        let (logn, tmp) = (logn - 1, deeper);
        isa.ff_sampling(
            samp,
            SamplingCall {
                target,
                tree,
                logn,
                tmp,
            },
        );
    }
    let (c, d) = cur.split_at(hn);
    fft::merge(z, c, d);
}
