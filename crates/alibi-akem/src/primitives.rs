//! The symmetric building blocks exactly as the SHADOWFAX artifact uses them (vectors README,
//! ../shared/specs/ringsig.md): its HMAC-shaped SHA3 construction, the hashed X25519 NIKE, AES-128-CTR
//! with a zero counter block, and SHAKE256 key expansion.

use aes::cipher::{KeyIvInit, StreamCipher};
use sha3::digest::{Digest, ExtendableOutput, Update as XofUpdate, XofReader};
use sha3::{Sha3_256, Sha3_512};
use shake::Shake256;
use zeroize::Zeroizing;

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

/// X25519 with the all-zero output refused (a low-order peer key), as RFC 7748 §6.1 and RFC 9180
/// recommend.
pub fn x25519(sk: &[u8; 32], pk: &[u8; 32]) -> Result<Zeroizing<[u8; 32]>, Error> {
    let out = Zeroizing::new(x25519_dalek::x25519(*sk, *pk));
    if out.iter().all(|&b| b == 0) {
        return Err(Error::LowOrderPoint);
    }
    Ok(out)
}

/// The artifact's NIKE: sdk(sk, pk) = SHA3-512(X25519(sk, pk)), 64 bytes.
pub fn nike(sk: &[u8; 32], pk: &[u8; 32]) -> Result<Zeroizing<[u8; 64]>, Error> {
    let dh = x25519(sk, pk)?;
    Ok(Zeroizing::new(Sha3_512::digest(&dh[..]).into()))
}

/// The X25519 public key of a raw (unclamped) secret: the fixed-base product through
/// curve25519-dalek's precomputed table, about three times faster than the ladder on the base point.
pub fn x25519_public(sk: &[u8; 32]) -> [u8; 32] {
    let secret = x25519_dalek::StaticSecret::from(*sk);
    x25519_dalek::PublicKey::from(&secret).to_bytes()
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

    #[test]
    fn ctr_is_an_involution() {
        let mut d = *b"0123456789abcdef0123456789abcdef!";
        aes128_ctr(&[1; 16], &mut d);
        assert_ne!(&d, b"0123456789abcdef0123456789abcdef!");
        aes128_ctr(&[1; 16], &mut d);
        assert_eq!(&d, b"0123456789abcdef0123456789abcdef!");
    }
}
