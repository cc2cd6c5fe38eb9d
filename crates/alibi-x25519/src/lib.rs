//! # alibi-x25519
//!
//! X25519 (RFC 7748) as every alibi crate computes it: [`DhKeyPair`], the workspace's one X25519
//! key type, and the products behind it.
//!
//! * [`x25519_raw`] and [`x25519_raw_batch`]: X25519 of a raw secret and a peer's u-coordinate,
//!   every input accepted (no all-zero check: Signal's handshakes compute their DH terms
//!   unvalidated, and the AKEMs of `alibi-akem` add the check themselves). The products run in
//!   Edwards form on curve25519-dalek's AVX-512 IFMA or AVX2 backend and give the ladder's bytes.
//! * [`x25519_public`]: the fixed-base product, through curve25519-dalek's precomputed table.
//! * [`DhKeyPair`]: a raw secret scalar and its public u-coordinate. The DH-AKEMs of `alibi-akem`
//!   use it as it is; `alibi-identity` puts libsignal's encoding (clamped scalar, `0x05 || u`)
//!   and XEdDSA on top of it.
//!
//! It stands low (on `alibi-encoding` alone) so that a crate needing X25519 keys, such as the
//! relay through its identity keys, does not link the post-quantum schemes of `alibi-akem`.
//!
//! ```
//! use alibi_x25519::DhKeyPair;
//! let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
//! let (a, b) = (DhKeyPair::generate(&mut rng), DhKeyPair::generate(&mut rng));
//! assert_eq!(*a.agree(b.public_key()), *b.agree(a.public_key()));
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

use curve25519_dalek::montgomery::MontgomeryPoint;
use curve25519_dalek::EdwardsPoint;
use rand_core::CryptoRng;
use zeroize::{Zeroize, Zeroizing};

/// Length of secret scalars, public u-coordinates and shared values.
pub const LEN: usize = 32;

/// Errors of the X25519 layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An input has the wrong length.
    #[error(transparent)]
    Length(#[from] alibi_encoding::LengthError),
}

/// An X25519 key pair: a raw 32-byte secret scalar (unclamped as stored; clamped inside X25519)
/// and its public u-coordinate, as RFC 7748 encodes them. The secret is zeroized on drop.
#[derive(Clone)]
pub struct DhKeyPair {
    sk: Zeroizing<[u8; 32]>,
    pk: [u8; 32],
}

impl DhKeyPair {
    /// A fresh key pair.
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let mut sk = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(&mut sk[..]);
        Self::from_secret(*sk)
    }

    /// The key pair of a raw secret scalar.
    pub fn from_secret(sk: [u8; 32]) -> Self {
        DhKeyPair {
            pk: x25519_public(&sk),
            sk: Zeroizing::new(sk),
        }
    }

    /// Decodes a 32-byte secret scalar ([`Error::Length`] otherwise).
    pub fn from_bytes(b: &[u8]) -> Result<Self, Error> {
        Ok(Self::from_secret(alibi_encoding::array(
            "X25519 secret key",
            b,
        )?))
    }

    /// The 32-byte secret scalar, as stored.
    pub fn to_bytes(&self) -> Zeroizing<[u8; 32]> {
        self.sk.clone()
    }

    /// The secret scalar, as stored.
    pub fn secret(&self) -> &[u8; 32] {
        &self.sk
    }

    /// The public u-coordinate.
    pub fn public(&self) -> &[u8; 32] {
        &self.pk
    }

    /// The public u-coordinate (the accessor name every key type in the workspace uses).
    pub fn public_key(&self) -> &[u8; 32] {
        &self.pk
    }

    /// X25519 with `their` u-coordinate, without an all-zero check (Signal's handshakes compute
    /// their DH terms unvalidated, as libsignal does; the AKEMs check the result themselves).
    pub fn agree(&self, their: &[u8; 32]) -> Zeroizing<[u8; 32]> {
        x25519_raw(&self.sk, their)
    }

    /// [`Self::agree`] with each of `theirs`, faster than one at a time ([`x25519_raw_many`]).
    pub fn agree_many(&self, theirs: &[&[u8; 32]]) -> Vec<Zeroizing<[u8; 32]>> {
        x25519_raw_many(&self.sk, theirs)
    }

    /// [`Self::agree`] with each of `theirs`, keys seen once ([`x25519_raw_each`]).
    pub fn agree_each(&self, theirs: &[&[u8; 32]]) -> Vec<Zeroizing<[u8; 32]>> {
        x25519_raw_each(&self.sk, theirs)
    }
}

/// X25519 (RFC 7748 §5) of a raw secret and a peer's u-coordinate, every input accepted.
///
/// A u on the curve is mapped to its Edwards form and multiplied there by curve25519-dalek's
/// constant-time variable-base multiplication, which uses its AVX-512 IFMA or AVX2 backend where
/// the CPU has one (the workspace's `.cargo/config.toml` compiles the IFMA one in): 2.2 times
/// faster than the Montgomery ladder on our 2-vCPU AMD EPYC with IFMA, 1.5 times with AVX2 alone
/// (`cargo bench -p alibi-akem --bench akem -- x25519`, docs/BENCHMARKS.md). The
/// bytes are the ladder's: the clamped scalar is a multiple of 8 below 2^255, `mul_clamped` uses
/// it unreduced, and the u-coordinate of \[k\]P does not depend on the sign chosen for P's x. A u on
/// the twist, or u = -1 (no Edwards image), goes through the ladder. Which path runs depends only
/// on the public u.
pub fn x25519_raw(sk: &[u8; 32], u: &[u8; 32]) -> Zeroizing<[u8; 32]> {
    let [out] = x25519_raw_batch([(sk, u)]);
    out
}

/// [`x25519_raw`] of several (secret, peer u) pairs: the Edwards products come back to
/// Montgomery form through one batched inversion instead of one each, and a peer key equal to
/// the previous pair's is mapped to Edwards form once. An encapsulation's two products share the
/// receiver's key; a decapsulation's share nothing but still save an inversion. Which path runs
/// depends only on the public u's.
pub fn x25519_raw_batch<const N: usize>(
    pairs: [(&[u8; 32], &[u8; 32]); N],
) -> [Zeroizing<[u8; 32]>; N] {
    let mut out: [Zeroizing<[u8; 32]>; N] = core::array::from_fn(|_| Zeroizing::new([0; 32]));
    let mut products = Vec::with_capacity(N);
    let mut slots = Vec::with_capacity(N);
    let mut base: Option<(&[u8; 32], Option<EdwardsPoint>)> = None;
    for (i, (sk, u)) in pairs.into_iter().enumerate() {
        let p = match base {
            Some((prev, p)) if prev == u => p,
            _ => MontgomeryPoint(*u).to_edwards(0),
        };
        base = Some((u, p));
        match p {
            Some(p) => {
                products.push(p.mul_clamped(*sk));
                slots.push(i);
            }
            None => out[i] = Zeroizing::new(x25519_dalek::x25519(*sk, *u)),
        }
    }
    to_montgomery_into(&mut out, &slots, &mut products);
    out
}

/// [`x25519_raw`] of one secret with many peers (a sealed message's ephemeral key with each
/// recipient's identity key): the peers' Edwards forms come from a table of those already seen
/// (public keys, a few thousand at most) instead of an inversion and a square root each, and the
/// products return to Montgomery form through one batched inversion. Which path runs depends
/// only on the public u's.
pub fn x25519_raw_many(sk: &[u8; 32], peers: &[&[u8; 32]]) -> Vec<Zeroizing<[u8; 32]>> {
    products_of(sk, peers, edwards_forms(peers))
}

/// [`x25519_raw`] of one secret with many peers each seen once (the ephemeral keys of the sealed
/// messages that arrived together): no table (fresh keys would only push the long-lived ones
/// out), but one batched inversion for all the products instead of one each.
pub fn x25519_raw_each(sk: &[u8; 32], peers: &[&[u8; 32]]) -> Vec<Zeroizing<[u8; 32]>> {
    let forms = peers
        .iter()
        .map(|u| MontgomeryPoint(**u).to_edwards(0))
        .collect();
    products_of(sk, peers, forms)
}

/// `sk` times each peer, from the peers' Edwards forms (`None`: the ladder on the raw u), back in
/// Montgomery form through one batched inversion.
fn products_of(
    sk: &[u8; 32],
    peers: &[&[u8; 32]],
    forms: Vec<Option<EdwardsPoint>>,
) -> Vec<Zeroizing<[u8; 32]>> {
    let mut out: Vec<Zeroizing<[u8; 32]>> = peers.iter().map(|_| Zeroizing::new([0; 32])).collect();
    let mut products = Vec::with_capacity(peers.len());
    let mut slots = Vec::with_capacity(peers.len());
    for (i, (u, p)) in peers.iter().zip(forms).enumerate() {
        match p {
            Some(p) => {
                products.push(p.mul_clamped(*sk));
                slots.push(i);
            }
            None => out[i] = Zeroizing::new(x25519_dalek::x25519(*sk, **u)),
        }
    }
    to_montgomery_into(&mut out, &slots, &mut products);
    out
}

/// The Edwards products back in Montgomery form (one batched inversion), each into its slot of
/// `out`; the products are wiped.
fn to_montgomery_into(
    out: &mut [Zeroizing<[u8; 32]>],
    slots: &[usize],
    products: &mut Vec<EdwardsPoint>,
) {
    for (&i, m) in slots
        .iter()
        .zip(EdwardsPoint::to_montgomery_batch(products))
    {
        out[i] = Zeroizing::new(m.to_bytes());
    }
    products.zeroize();
}

/// The Edwards forms of public u-coordinates (`None` for one without: on the twist, or -1), from a
/// process-wide table of those already mapped; the table is emptied when it reaches 4,096.
fn edwards_forms(us: &[&[u8; 32]]) -> Vec<Option<EdwardsPoint>> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static FORMS: Mutex<Option<HashMap<[u8; 32], Option<EdwardsPoint>>>> = Mutex::new(None);
    let known: Vec<Option<Option<EdwardsPoint>>> = {
        let table = FORMS.lock().unwrap_or_else(|e| e.into_inner());
        us.iter()
            .map(|u| table.as_ref().and_then(|t| t.get(*u).copied()))
            .collect()
    };
    let mut new = vec![];
    let forms = us
        .iter()
        .zip(known)
        .map(|(u, k)| {
            k.unwrap_or_else(|| {
                let p = MontgomeryPoint(**u).to_edwards(0);
                new.push((**u, p));
                p
            })
        })
        .collect();
    if !new.is_empty() {
        let mut table = FORMS.lock().unwrap_or_else(|e| e.into_inner());
        let t = table.get_or_insert_with(HashMap::new);
        if t.len() + new.len() > 4096 {
            t.clear();
        }
        t.extend(new);
    }
    forms
}

/// The X25519 public key of a raw (unclamped) secret: the fixed-base product through
/// curve25519-dalek's precomputed table, about three times faster than the ladder on the base point.
pub fn x25519_public(sk: &[u8; 32]) -> [u8; 32] {
    let secret = x25519_dalek::StaticSecret::from(*sk);
    x25519_dalek::PublicKey::from(&secret).to_bytes()
}

/// [`x25519_public`] of several raw secrets: the fixed-base products return to Montgomery form
/// through one batched inversion instead of one each.
pub fn x25519_public_many(sks: &[&[u8; 32]]) -> Vec<[u8; 32]> {
    let mut products: Vec<EdwardsPoint> = sks
        .iter()
        .map(|sk| EdwardsPoint::mul_base_clamped(**sk))
        .collect();
    let out = EdwardsPoint::to_montgomery_batch(&products)
        .iter()
        .map(|m| m.to_bytes())
        .collect();
    products.zeroize();
    out
}

/// Whether `u` is the canonical u-coordinate of a point of prime order ℓ: what every X25519
/// public key is (a clamped scalar times the base point), and a uniformly random 32-byte secret
/// only with a probability of about 1/32 (canonical 1/2, on the curve rather than its twist 1/2,
/// in the prime-order subgroup 1/8). Lets a caller recognise a public key handed over where a
/// secret one belongs, together with other evidence.
pub fn is_prime_order_point(u: &[u8; 32]) -> bool {
    // p = 2^255 - 19: canonical encodings are below it (top bit clear, not in [p, 2^255)).
    let above_p = u[31] == 0x7f && u[1..31].iter().all(|&b| b == 0xff) && u[0] >= 0xed;
    if u[31] & 0x80 != 0 || above_p {
        return false;
    }
    match MontgomeryPoint(*u).to_edwards(0) {
        Some(e) => e.is_torsion_free() && !e.is_small_order(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Public keys are prime-order points; the identity, small-order points and most random
    /// strings are not.
    #[test]
    fn public_keys_are_prime_order_points() {
        let mut others = 0;
        for i in 0..200u8 {
            let sk = [i.wrapping_mul(73).wrapping_add(5); 32];
            let mut sk2 = sk;
            sk2[3] ^= i;
            assert!(is_prime_order_point(&x25519_public(&sk2)), "{i}");
            if is_prime_order_point(&sk2) {
                others += 1;
            }
        }
        assert!(others < 40, "{others} of 200 non-keys look like keys");
        assert!(!is_prime_order_point(&[0; 32]));
        let mut one = [0; 32];
        one[0] = 1;
        assert!(!is_prime_order_point(&one));
        assert!(!is_prime_order_point(&[0xff; 32]));
    }

    #[test]
    fn fixed_base_matches_the_ladder() {
        for i in 0..20u8 {
            let sk = [i.wrapping_mul(37).wrapping_add(1); 32];
            assert_eq!(
                x25519_public(&sk),
                x25519_dalek::x25519(sk, x25519_dalek::X25519_BASEPOINT_BYTES)
            );
        }
    }

    /// Inputs of every kind: on the curve and on the twist, with the top bit set, non-canonical
    /// (p <= u < 2^255), u = -1, and the low-order points.
    fn awkward_us() -> Vec<[u8; 32]> {
        let mut us = vec![];
        let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..400 {
            let mut u = [0u8; 32];
            for b in u.iter_mut() {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                *b = (s >> 33) as u8;
            }
            us.push(u);
        }
        let mut p = [0xffu8; 32];
        p[0] = 0xed;
        p[31] = 0x7f;
        let mut minus_one = p;
        minus_one[0] = 0xec;
        let mut p_plus_1 = p;
        p_plus_1[0] = 0xee;
        let mut zero = [0u8; 32];
        us.extend([p, minus_one, p_plus_1, zero]);
        zero[0] = 1;
        us.push(zero);
        // The order-8 points' u-coordinates (RFC 7748's low-order list as libsodium gives it).
        for hex in [
            "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
            "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
        ] {
            us.push(b32(hex));
        }
        for u in us.clone() {
            let mut high = u;
            high[31] |= 0x80;
            us.push(high);
        }
        us
    }

    #[test]
    fn x25519_matches_the_ladder_on_every_kind_of_input() {
        let mut twist = 0;
        for (i, u) in awkward_us().iter().enumerate() {
            let sk = [(i as u8).wrapping_mul(91).wrapping_add(3); 32];
            if MontgomeryPoint(*u).to_edwards(0).is_none() {
                twist += 1;
            }
            assert_eq!(
                *x25519_raw(&sk, u),
                x25519_dalek::x25519(sk, *u),
                "u = {u:02x?}"
            );
        }
        // Both paths ran.
        assert!(twist > 100 && twist < 700, "{twist}");
    }

    /// One secret with many peers, every kind of u among them, each twice (the second time from
    /// the table of Edwards forms), and more peers than the table holds: the ladder's bytes.
    #[test]
    fn many_peers_match_the_ladder_on_every_kind_of_input() {
        let us = awkward_us();
        let sk = [0x6b; 32];
        for _ in 0..2 {
            let peers: Vec<&[u8; 32]> = us.iter().collect();
            let got = x25519_raw_many(&sk, &peers);
            let each = x25519_raw_each(&sk, &peers);
            for ((u, x), y) in us.iter().zip(&got).zip(&each) {
                assert_eq!(**x, x25519_dalek::x25519(sk, *u), "u = {u:02x?}");
                assert_eq!(**y, x25519_dalek::x25519(sk, *u), "each: u = {u:02x?}");
            }
        }
        assert!(x25519_raw_many(&sk, &[]).is_empty());
        assert!(x25519_raw_each(&sk, &[]).is_empty());
        let many: Vec<[u8; 32]> = (0..4200u32)
            .map(|i| x25519_public(&core::array::from_fn(|j| (i >> (j % 16)) as u8 ^ j as u8)))
            .collect();
        let peers: Vec<&[u8; 32]> = many.iter().collect();
        let got = x25519_raw_many(&sk, &peers);
        for (u, x) in many.iter().zip(&got).step_by(97) {
            assert_eq!(**x, x25519_dalek::x25519(sk, *u));
        }
    }

    /// Public keys of many secrets at once are each the one of [`x25519_public`] (and the
    /// ladder's on the base point), clamping included.
    #[test]
    fn many_public_keys_match_one_at_a_time() {
        let sks: Vec<[u8; 32]> = (0..40u8)
            .map(|i| core::array::from_fn(|j| i.wrapping_mul(37) ^ (j as u8).wrapping_mul(11)))
            .chain([[0; 32], [0xff; 32]])
            .collect();
        let refs: Vec<&[u8; 32]> = sks.iter().collect();
        let many = x25519_public_many(&refs);
        for (sk, p) in sks.iter().zip(&many) {
            assert_eq!(*p, x25519_public(sk));
            assert_eq!(
                *p,
                x25519_dalek::x25519(*sk, x25519_dalek::X25519_BASEPOINT_BYTES)
            );
        }
        assert!(x25519_public_many(&[]).is_empty());
    }

    #[test]
    fn batches_match_the_ladder_on_every_kind_of_input() {
        // Pairs of awkward u's (curve and twist, low order, non-canonical), with the same base
        // twice and with different ones: each result must be the ladder's.
        let us = awkward_us();
        for (i, w) in us.windows(2).enumerate() {
            let (a, b) = ([(i as u8).wrapping_mul(29) | 1; 32], [(i as u8) ^ 0x5a; 32]);
            let ladder = |sk: [u8; 32], u: &[u8; 32]| x25519_dalek::x25519(sk, *u);
            let [x, y] = x25519_raw_batch([(&a, &w[0]), (&b, &w[0])]);
            assert_eq!(
                (*x, *y),
                (ladder(a, &w[0]), ladder(b, &w[0])),
                "same base {i}"
            );
            let [x, y, z] = x25519_raw_batch([(&a, &w[0]), (&a, &w[1]), (&b, &w[1])]);
            assert_eq!(
                (*x, *y, *z),
                (ladder(a, &w[0]), ladder(a, &w[1]), ladder(b, &w[1])),
                "mixed bases {i}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn x25519_matches_the_ladder_on_random_inputs(
            sk in proptest::prelude::any::<[u8; 32]>(),
            u in proptest::prelude::any::<[u8; 32]>(),
        ) {
            proptest::prop_assert_eq!(*x25519_raw(&sk, &u), x25519_dalek::x25519(sk, u));
        }
    }

    fn b32(hex: &str) -> [u8; 32] {
        hex::decode(hex).unwrap().try_into().unwrap()
    }

    #[test]
    fn rfc7748_section_5_2_vectors() {
        let k: [u8; 32] = b32("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4");
        let u: [u8; 32] = b32("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c");
        assert_eq!(
            hex::encode(*x25519_raw(&k, &u)),
            "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"
        );
        let k: [u8; 32] = b32("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d");
        let u: [u8; 32] = b32("e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493");
        assert_eq!(
            hex::encode(*x25519_raw(&k, &u)),
            "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"
        );
    }
}
