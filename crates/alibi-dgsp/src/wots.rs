//! WOTS+ (w = 16) for DGSP's one-time user keys, in the SPHINCS+ style: secret values from a PRF of
//! the secret seed under each chain's own address, chains of the tweakable hash F with the chain and
//! hash addresses set, and the chain ends compressed by T into an n-byte public key.
//!
//! Every address field is set on the value that is hashed (the published crate set them on copies,
//! so all its chains started from one secret). `tests::chain_secrets_differ` checks it.

use crate::hash::{tweak, Adrs, WOTS_HASH, WOTS_PK, WOTS_PRF};
use crate::params::Params;
use zeroize::Zeroizing;

const W: u32 = 16;

/// The base-16 digits of an n-byte digest followed by the 3 checksum digits.
fn digits(p: Params, digest: &[u8]) -> Vec<u32> {
    let mut d: Vec<u32> = digest
        .iter()
        .flat_map(|&b| [(b >> 4) as u32, (b & 15) as u32])
        .collect();
    let csum: u32 = d.iter().map(|&x| W - 1 - x).sum();
    // len2 = 3 digits of the checksum, most significant first (it is below 16^3 for n <= 32).
    d.extend([(csum >> 8) & 15, (csum >> 4) & 15, csum & 15]);
    debug_assert_eq!(d.len(), p.wots_len());
    d
}

fn chain(p: Params, x: &mut [u8], start: u32, steps: u32, seed: &[u8], adrs: &mut Adrs) {
    let n = p.n();
    let mut buf = [0u8; 32];
    for j in start..start + steps {
        adrs.set_hash(j);
        buf[..n].copy_from_slice(&x[..n]);
        tweak(p, seed, adrs, &[&buf[..n]], x);
    }
}

/// The secret value of chain i.
fn secret(p: Params, sk_seed: &[u8], pk_seed: &[u8], i: u32) -> Zeroizing<Vec<u8>> {
    let mut a = Adrs::dgsp(WOTS_PRF);
    a.set_chain(i);
    let mut out = Zeroizing::new(vec![0u8; p.n()]);
    tweak(p, pk_seed, &a, &[sk_seed], &mut out);
    out
}

fn compress(p: Params, pk_seed: &[u8], ends: &[u8]) -> Vec<u8> {
    let a = Adrs::dgsp(WOTS_PK);
    let mut out = vec![0u8; p.n()];
    tweak(p, pk_seed, &a, &[ends], &mut out);
    out
}

/// The n-byte WOTS+ public key of (sk_seed, pk_seed).
pub fn public_key(p: Params, sk_seed: &[u8], pk_seed: &[u8]) -> Vec<u8> {
    let n = p.n();
    let mut ends = vec![0u8; p.wots_len() * n];
    for (i, e) in ends.chunks_exact_mut(n).enumerate() {
        e.copy_from_slice(&secret(p, sk_seed, pk_seed, i as u32));
        let mut a = Adrs::dgsp(WOTS_HASH);
        a.set_chain(i as u32);
        chain(p, e, 0, W - 1, pk_seed, &mut a);
    }
    compress(p, pk_seed, &ends)
}

/// Signs an n-byte digest: chain i advanced by its digit.
pub fn sign(p: Params, digest: &[u8], sk_seed: &[u8], pk_seed: &[u8]) -> Vec<u8> {
    let n = p.n();
    let d = digits(p, digest);
    let mut sig = vec![0u8; p.wots_len() * n];
    for (i, (s, &di)) in sig.chunks_exact_mut(n).zip(&d).enumerate() {
        s.copy_from_slice(&secret(p, sk_seed, pk_seed, i as u32));
        let mut a = Adrs::dgsp(WOTS_HASH);
        a.set_chain(i as u32);
        chain(p, s, 0, di, pk_seed, &mut a);
    }
    sig
}

/// The public key a signature implies for `digest` (completing every chain).
pub fn public_key_from_signature(p: Params, sig: &[u8], digest: &[u8], pk_seed: &[u8]) -> Vec<u8> {
    let n = p.n();
    let d = digits(p, digest);
    let mut ends = sig.to_vec();
    for (i, (e, &di)) in ends.chunks_exact_mut(n).zip(&d).enumerate() {
        let mut a = Adrs::dgsp(WOTS_HASH);
        a.set_chain(i as u32);
        chain(p, e, di, W - 1 - di, pk_seed, &mut a);
    }
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
            let secrets: std::collections::HashSet<Vec<u8>> = (0..p.wots_len() as u32)
                .map(|i| secret(p, &sk, &pk_seed, i).to_vec())
                .collect();
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

    /// The published crate's forgery: a zero digit reveals a chain's start, and with every chain
    /// starting from the same secret that start signs any digest. Here the revealed start of one
    /// chain is useless for the others.
    #[test]
    fn a_revealed_chain_start_does_not_forge() {
        let p = Params::Shake128f;
        let n = p.n();
        let (sk, pk_seed) = (vec![9u8; n], vec![8u8; n]);
        let pk = public_key(p, &sk, &pk_seed);
        // A digest whose first digit is 0 reveals secret(0) in the signature.
        let mut digest = vec![0x0f; n];
        digest[0] = 0x0f;
        let sig = sign(p, &digest, &sk, &pk_seed);
        let revealed = &sig[..n];
        // The forger's attempt: every chain from the revealed value, advanced to a new digest.
        let target = vec![0x37u8; n];
        let d = digits(p, &target);
        let mut forged = vec![0u8; p.wots_len() * n];
        for (i, (f, &di)) in forged.chunks_exact_mut(n).zip(&d).enumerate() {
            f.copy_from_slice(revealed);
            let mut a = Adrs::dgsp(WOTS_HASH);
            a.set_chain(i as u32);
            chain(p, f, 0, di, &pk_seed, &mut a);
        }
        assert_ne!(public_key_from_signature(p, &forged, &target, &pk_seed), pk);
    }
}
