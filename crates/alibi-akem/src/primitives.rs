//! The symmetric building blocks exactly as the SHADOWFAX artifact uses them (vectors README,
//! ../shared/specs/ringsig.md): its HMAC-shaped SHA3 construction, the hashed X25519 NIKE, AES-128-CTR
//! with a zero counter block, and SHAKE256 key expansion.

use aes::cipher::{KeyIvInit, StreamCipher};
use curve25519_dalek::montgomery::MontgomeryPoint;
use curve25519_dalek::EdwardsPoint;
use sha3::digest::{Digest, ExtendableOutput, Update as XofUpdate, XofReader};
use sha3::{Sha3_256, Sha3_512};
use shake::Shake256;
use zeroize::{Zeroize, Zeroizing};

use crate::Error;

/// HM(K, M) = SHA3-256((K xor 0x5c) || SHA3-256((K xor 0x36) || M)) for a 32-byte key, the pads
/// being 32 bytes long: the artifact's "HMAC-SHA3-256", which is not RFC 2104 HMAC (whose pads fill
/// the 136-byte block), so a standard HMAC cannot reproduce it.
pub fn hm(key: &[u8; 32], msg: &[&[u8]]) -> [u8; 32] {
    let mut ipad = Zeroizing::new([0u8; 32]);
    let mut opad = Zeroizing::new([0u8; 32]);
    for i in 0..32 {
        ipad[i] = key[i] ^ 0x36;
        opad[i] = key[i] ^ 0x5c;
    }
    let mut inner = Sha3_256::new();
    Digest::update(&mut inner, &ipad[..]);
    for m in msg {
        Digest::update(&mut inner, m);
    }
    let inner = inner.finalize();
    let mut outer = Sha3_256::new();
    Digest::update(&mut outer, &opad[..]);
    Digest::update(&mut outer, inner);
    outer.finalize().into()
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
    for (i, m) in slots
        .into_iter()
        .zip(EdwardsPoint::to_montgomery_batch(&products))
    {
        out[i] = Zeroizing::new(m.to_bytes());
    }
    products.zeroize();
    out
}

/// [`x25519_raw_batch`] with any all-zero output refused (a low-order peer key), as RFC 7748
/// §6.1 and RFC 9180 recommend.
pub fn x25519_batch<const N: usize>(
    pairs: [(&[u8; 32], &[u8; 32]); N],
) -> Result<[Zeroizing<[u8; 32]>; N], Error> {
    let out = x25519_raw_batch(pairs);
    if out.iter().any(|o| o.iter().all(|&b| b == 0)) {
        return Err(Error::LowOrderPoint);
    }
    Ok(out)
}

/// X25519 with the all-zero output refused (a low-order peer key), as RFC 7748 §6.1 and RFC 9180
/// recommend.
pub fn x25519(sk: &[u8; 32], pk: &[u8; 32]) -> Result<Zeroizing<[u8; 32]>, Error> {
    let [out] = x25519_batch([(sk, pk)])?;
    Ok(out)
}

/// The artifact's NIKE: sdk(sk, pk) = SHA3-512(X25519(sk, pk)), 64 bytes.
pub fn nike(sk: &[u8; 32], pk: &[u8; 32]) -> Result<Zeroizing<[u8; 64]>, Error> {
    let [out] = nike_batch([(sk, pk)])?;
    Ok(out)
}

/// [`nike`] of several (secret, peer key) pairs, through [`x25519_batch`].
pub fn nike_batch<const N: usize>(
    pairs: [(&[u8; 32], &[u8; 32]); N],
) -> Result<[Zeroizing<[u8; 64]>; N], Error> {
    let dh = x25519_batch(pairs)?;
    Ok(dh.map(|d| Zeroizing::new(Sha3_512::digest(&d[..]).into())))
}

/// The X25519 public key of a raw (unclamped) secret: the fixed-base product through
/// curve25519-dalek's precomputed table, about three times faster than the ladder on the base point.
pub fn x25519_public(sk: &[u8; 32]) -> [u8; 32] {
    let secret = x25519_dalek::StaticSecret::from(*sk);
    x25519_dalek::PublicKey::from(&secret).to_bytes()
}

/// SHAKE256(input) into `out`, whatever its length (the artifact's ML-KEM `kem_encap` expansion).
pub fn shake_into(input: &[u8], out: &mut [u8]) {
    let mut h = Shake256::default();
    XofUpdate::update(&mut h, input);
    h.finalize_xof().read(out);
}

/// SHAKE256(input) truncated to N bytes.
pub fn shake256<const N: usize>(input: &[u8]) -> Zeroizing<[u8; N]> {
    let mut h = Shake256::default();
    XofUpdate::update(&mut h, input);
    let mut out = Zeroizing::new([0u8; N]);
    h.finalize_xof().read(&mut out[..]);
    out
}

/// AES-128 in counter mode from an all-zero counter block (12 zero bytes of nonce, then a 32-bit
/// big-endian block counter from 0), in place: encryption and decryption alike.
pub fn aes128_ctr(key: &[u8; 16], data: &mut [u8]) {
    let mut c = ctr::Ctr32BE::<aes::Aes128>::new(&(*key).into(), &[0u8; 16].into());
    c.apply_keystream(data);
}

/// The first 16 bytes of a longer secret: the AES-128 key the artifact takes from its KDF output.
pub fn aes_key<const N: usize>(x: &[u8; N]) -> Zeroizing<[u8; 16]> {
    const { assert!(N >= 16) };
    let mut k = Zeroizing::new([0u8; 16]);
    k.copy_from_slice(&x[..16]);
    k
}

/// Splits a 64-byte value into its two 32-byte halves.
pub fn halves(x: &[u8; 64]) -> (Zeroizing<[u8; 32]>, Zeroizing<[u8; 32]>) {
    let mut a = Zeroizing::new([0u8; 32]);
    let mut b = Zeroizing::new([0u8; 32]);
    a.copy_from_slice(&x[..32]);
    b.copy_from_slice(&x[32..]);
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hm_is_not_rfc2104() {
        // With 32-byte pads the construction differs from HMAC, whose pads are a full block.
        let k = [7u8; 32];
        let a = hm(&k, &[b"msg"]);
        let b = hm(&k, &[b"ms", b"g"]);
        assert_eq!(a, b);
        let mut ipad = [0u8; 136];
        let mut opad = [0u8; 136];
        for i in 0..136 {
            ipad[i] = if i < 32 { k[i] } else { 0 } ^ 0x36;
            opad[i] = if i < 32 { k[i] } else { 0 } ^ 0x5c;
        }
        let inner = Sha3_256::new()
            .chain_update(ipad)
            .chain_update(b"msg")
            .finalize();
        let rfc = Sha3_256::new()
            .chain_update(opad)
            .chain_update(inner)
            .finalize();
        assert_ne!(a[..], rfc[..]);
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

    #[test]
    fn a_batch_refuses_a_low_order_point_anywhere_in_it() {
        let good = x25519_public(&[9u8; 32]);
        let zero = [0u8; 32];
        assert!(x25519_batch([(&[1u8; 32], &good), (&[2u8; 32], &good)]).is_ok());
        assert!(matches!(
            x25519_batch([(&[1u8; 32], &good), (&[2u8; 32], &zero)]),
            Err(Error::LowOrderPoint)
        ));
        assert!(matches!(
            nike_batch([(&[1u8; 32], &zero), (&[2u8; 32], &good)]),
            Err(Error::LowOrderPoint)
        ));
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

    #[test]
    fn rfc7748_section_6_1_shared_secret() {
        let a: [u8; 32] = b32("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
        let b_pub: [u8; 32] =
            b32("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
        assert_eq!(
            hex::encode(*x25519(&a, &b_pub).unwrap()),
            "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
        );
    }

    #[test]
    fn ctr_is_an_involution() {
        let mut d = *b"0123456789abcdef0123456789abcdef!";
        aes128_ctr(&[1; 16], &mut d);
        assert_ne!(&d, b"0123456789abcdef0123456789abcdef!");
        aes128_ctr(&[1; 16], &mut d);
        assert_eq!(&d, b"0123456789abcdef0123456789abcdef!");
    }
}
