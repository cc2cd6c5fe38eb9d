//! The symmetric building blocks exactly as the SHADOWFAX artifact uses them (vectors README,
//! ../shared/specs/ringsig.md): its HMAC-shaped SHA3 construction, the hashed X25519 NIKE, AES-128-CTR
//! with a zero counter block, and SHAKE256 key expansion.

use aes::cipher::{KeyIvInit, StreamCipher};
use alibi_keccak::{Sha3_256, Sha3_512, Shake256};
use zeroize::Zeroizing;

use crate::Error;

// The unchecked products are alibi-x25519's (the workspace's one X25519).
use alibi_x25519::x25519_raw_batch;

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
    inner.update(&ipad[..]);
    for m in msg {
        inner.update(m);
    }
    let inner = inner.finalize();
    let mut outer = Sha3_256::new();
    outer.update(&opad[..]);
    outer.update(&inner);
    outer.finalize()
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
    Ok(dh.map(|d| Zeroizing::new(Sha3_512::digest(&d[..]))))
}

/// SHAKE256(input) into `out`, whatever its length (the artifact's ML-KEM `kem_encap` expansion).
pub fn shake_into(input: &[u8], out: &mut [u8]) {
    let mut h = Shake256::default();
    h.update(input);
    h.finalize_xof().read(out);
}

/// SHAKE256(input) truncated to N bytes.
pub fn shake256<const N: usize>(input: &[u8]) -> Zeroizing<[u8; N]> {
    let mut h = Shake256::default();
    h.update(input);
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
    fn a_batch_refuses_a_low_order_point_anywhere_in_it() {
        let good = alibi_x25519::x25519_public(&[9u8; 32]);
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

    fn b32(hex: &str) -> [u8; 32] {
        hex::decode(hex).unwrap().try_into().unwrap()
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
