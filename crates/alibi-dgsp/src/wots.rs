//! WOTS+ (w = 16) for DGSP's one-time user keys, in the SPHINCS+ style: secret values from a PRF of
//! the secret seed under each chain's own address, chains of the tweakable hash F with the chain and
//! hash addresses set, and the chain ends compressed by T into an n-byte public key.
//!
//! The addresses are SPHINCS+'s, on a layer no hypertree reaches ([`DGSP_LAYER`]), so the SHAKE
//! sets run the chains eight at a time through SPHINCS+'s own batched hashing; the SHA-2 sets hash
//! one step at a time.
//!
//! Every address field is set on the value that is hashed (the published crate set them on copies,
//! so all its chains started from one secret). `tests::chain_secrets_differ` checks it.

use crate::hash::tweak_sha2;
use crate::params::{Family, Params};
use crate::sphincs::thash::{self, Adrs, Chain, Ctx, WOTS_HASH, WOTS_PK, WOTS_PRF};
use zeroize::Zeroizing;

const W: u32 = 16;

/// The layer address reserved for DGSP's WOTS+ keys: no SPHINCS+ hypertree layer reaches it, so
/// user chains never share a tweak with the manager's certificates.
pub(crate) const DGSP_LAYER: u32 = 0xFFFF_FFFF;

fn adrs(ty: u8) -> Adrs {
    Adrs::new(DGSP_LAYER, 0, ty)
}

/// The secret values of all chains: PRF(pk_seed, sk_seed, ADRS(chain i)).
fn secrets(p: Params, sk_seed: &[u8], pk_seed: &[u8]) -> Zeroizing<Vec<u8>> {
    let (n, len) = (p.n(), p.wots_len());
    let addresses: Vec<Adrs> = (0..len as u32).map(|i| adrs(WOTS_PRF).chain(i)).collect();
    let mut out = Zeroizing::new(Vec::with_capacity(len * n));
    match p.family() {
        Family::Shake => {
            let mut words = Zeroizing::new(vec![0; len * n / 8]);
            thash::prf_many(&Ctx::new(pk_seed, sk_seed), &addresses, &mut words);
            thash::to_bytes(&words, &mut out);
        }
        Family::Sha2 => {
            out.resize(len * n, 0);
            for (a, o) in addresses.iter().zip(out.chunks_exact_mut(n)) {
                tweak_sha2(p, pk_seed, a, &[sk_seed], o);
            }
        }
    }
    out
}

/// Advances chain i of `vals` (n bytes each) from hash address `from[i]` by `steps[i]` steps.
fn chains(p: Params, pk_seed: &[u8], vals: &mut [u8], from: &[u32], steps: &[u32]) {
    let n = p.n();
    let jobs: Vec<Chain> = (0..p.wots_len())
        .map(|i| Chain {
            adrs: adrs(WOTS_HASH).chain(i as u32),
            from: from[i],
            steps: steps[i],
        })
        .collect();
    match p.family() {
        Family::Shake => {
            let mut words = Zeroizing::new(thash::from_bytes(vals));
            thash::chains(&Ctx::new(pk_seed, &[]), &jobs, &mut words);
            let mut bytes = Zeroizing::new(Vec::with_capacity(vals.len()));
            thash::to_bytes(&words, &mut bytes);
            vals.copy_from_slice(&bytes);
        }
        Family::Sha2 => {
            let mut buf = [0u8; 32];
            for (job, x) in jobs.iter().zip(vals.chunks_exact_mut(n)) {
                for j in job.from..job.from + job.steps {
                    buf[..n].copy_from_slice(x);
                    tweak_sha2(p, pk_seed, &job.adrs.index(j), &[&buf[..n]], x);
                }
            }
        }
    }
}

/// T over the chain ends: the n-byte public key.
fn compress(p: Params, pk_seed: &[u8], ends: &[u8]) -> Vec<u8> {
    let a = adrs(WOTS_PK);
    match p.family() {
        Family::Shake => {
            let node = thash::thash(&Ctx::new(pk_seed, &[]), &a, &thash::from_bytes(ends));
            let mut out = Vec::with_capacity(p.n());
            thash::to_bytes(&node[..p.n() / 8], &mut out);
            out
        }
        Family::Sha2 => {
            let mut out = vec![0u8; p.n()];
            tweak_sha2(p, pk_seed, &a, &[ends], &mut out);
            out
        }
    }
}

/// The n-byte WOTS+ public key of (sk_seed, pk_seed).
pub(crate) fn public_key(p: Params, sk_seed: &[u8], pk_seed: &[u8]) -> Vec<u8> {
    let len = p.wots_len();
    let mut ends = secrets(p, sk_seed, pk_seed);
    chains(p, pk_seed, &mut ends, &vec![0; len], &vec![W - 1; len]);
    compress(p, pk_seed, &ends)
}

/// Signs an n-byte digest: chain i advanced by its digit.
pub(crate) fn sign(p: Params, digest: &[u8], sk_seed: &[u8], pk_seed: &[u8]) -> Vec<u8> {
    let d = thash::base16_with_checksum(digest);
    let mut sig = secrets(p, sk_seed, pk_seed);
    chains(p, pk_seed, &mut sig, &vec![0; p.wots_len()], &d);
    sig.to_vec()
}

/// The public key a signature implies for `digest` (completing every chain).
pub(crate) fn public_key_from_signature(
    p: Params,
    sig: &[u8],
    digest: &[u8],
    pk_seed: &[u8],
) -> Vec<u8> {
    let d = thash::base16_with_checksum(digest);
    let rest: Vec<u32> = d.iter().map(|x| W - 1 - x).collect();
    let mut ends = sig.to_vec();
    chains(p, pk_seed, &mut ends, &d, &rest);
    compress(p, pk_seed, &ends)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_secrets_differ_and_signatures_verify() {
        for p in Params::ALL {
            let n = p.n();
            let (sk, pk_seed) = (vec![3u8; n], vec![4u8; n]);
            let all = secrets(p, &sk, &pk_seed);
            let secrets: std::collections::HashSet<&[u8]> = all.chunks_exact(n).collect();
            assert_eq!(secrets.len(), p.wots_len(), "{p}: chain secrets repeat");
            let pk = public_key(p, &sk, &pk_seed);
            let digest = vec![0x5a; n];
            let sig = sign(p, &digest, &sk, &pk_seed);
            assert_eq!(public_key_from_signature(p, &sig, &digest, &pk_seed), pk);
            let mut other = digest.clone();
            other[0] ^= 1;
            assert_ne!(public_key_from_signature(p, &sig, &other, &pk_seed), pk);
        }
    }

    /// The SHAKE sets' batched chains give what SHAKE256(seed || ADRS || x) step by step gives.
    #[test]
    fn shake_chains_are_the_tweakable_hash_step_by_step() {
        use shake::digest::{ExtendableOutput, Update, XofReader};
        let p = Params::Shake192f;
        let n = p.n();
        let (sk, pk_seed) = (vec![1u8; n], vec![2u8; n]);
        let s = secrets(p, &sk, &pk_seed);
        let sig = sign(p, &[0xa5; 24], &sk, &pk_seed);
        let d = thash::base16_with_checksum(&[0xa5; 24]);
        for i in [0usize, 7, p.wots_len() - 1] {
            let mut x = s[i * n..(i + 1) * n].to_vec();
            for j in 0..d[i] {
                let mut h = shake::Shake256::default();
                h.update(&pk_seed);
                h.update(
                    &adrs(WOTS_HASH)
                        .chain(i as u32)
                        .index(j)
                        .words()
                        .map(u64::to_le_bytes)
                        .concat(),
                );
                h.update(&x);
                h.finalize_xof().read(&mut x);
            }
            assert_eq!(x, &sig[i * n..(i + 1) * n], "chain {i}");
        }
    }

    /// The published crate's forgery: a zero digit reveals a chain's start, and with every chain
    /// starting from the same secret that start signs any digest. Here the revealed start of one
    /// chain is useless for the others.
    #[test]
    fn a_revealed_chain_start_does_not_forge() {
        for p in [Params::Shake128f, Params::Sha2_128f] {
            let n = p.n();
            let (sk, pk_seed) = (vec![9u8; n], vec![8u8; n]);
            let pk = public_key(p, &sk, &pk_seed);
            // A digest whose first digit is 0 reveals secret(0) in the signature.
            let digest = vec![0x0f; n];
            let sig = sign(p, &digest, &sk, &pk_seed);
            let revealed = &sig[..n];
            // The forger's attempt: every chain from the revealed value, advanced to a new digest.
            let target = vec![0x37u8; n];
            let d = thash::base16_with_checksum(&target);
            let mut forged = revealed.repeat(p.wots_len());
            chains(p, &pk_seed, &mut forged, &vec![0; p.wots_len()], &d);
            assert_ne!(public_key_from_signature(p, &forged, &target, &pk_seed), pk);
        }
    }
}
