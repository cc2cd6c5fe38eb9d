//! XEdDSA and X25519 against fixed data published with libsignal (`rust/core/src/curve/curve25519.rs`
//! tests: Alice's identity key pair, the signature on her 33-byte ephemeral key) and RFC 7748
//! section 6.1.

use alibi_identity::curve::{PrivateKey, PublicKey};
use alibi_identity::xeddsa;

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

#[test]
fn libsignal_xeddsa_vector() {
    let sk = PrivateKey::deserialize(&h(
        "c097248412e58bf05df487968205132794178e367637f5818f81e0e6ce73e865",
    ))
    .unwrap();
    let pk = h("ab7e717d4a163b7d9a1d8071dfe9dcf8cdcd1cea3339b6356be84d887e322c64");
    assert_eq!(&sk.public_key().u()[..], &pk[..]);
    let msg = h("05edce9d9c415ca78cb7252e72c2c4a554d3eb29485a0e1d503118d1a82d99fb4a");
    let sig = h(concat!(
        "5de88ca9a89b4a115da79109c67c9c7464a3e4180274f1cb8c63c2984e286dfb",
        "ede82deb9dcd9fae0bfbb821569b3d9001bd8130cd11d486cef047bd60b86e88"
    ));
    let key = PublicKey::from_u(pk.try_into().unwrap());
    assert!(xeddsa::verify(&key, &[&msg], &sig).is_ok());
    for i in 0..64 {
        let mut bad = sig.clone();
        bad[i] ^= 0x01;
        assert!(xeddsa::verify(&key, &[&msg], &bad).is_err(), "byte {i}");
    }
}

#[test]
fn rfc7748_x25519() {
    let a = PrivateKey::deserialize(&h(
        "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a",
    ))
    .unwrap();
    let b = PrivateKey::deserialize(&h(
        "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb",
    ))
    .unwrap();
    assert_eq!(
        &a.public_key().u()[..],
        &h("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")[..]
    );
    let k = h("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
    assert_eq!(&a.agree(&b.public_key())[..], &k[..]);
    assert_eq!(&b.agree(&a.public_key())[..], &k[..]);
}

#[test]
fn public_key_codec() {
    let k = PrivateKey::from_bytes([9; 32]).public_key();
    let enc = k.serialize();
    assert_eq!(enc[0], 0x05);
    assert_eq!(PublicKey::deserialize(&enc).unwrap(), k);
    assert!(PublicKey::deserialize(&enc[..32]).is_err());
    assert!(PublicKey::deserialize(&[]).is_err());
    let mut bad = enc;
    bad[0] = 0x06;
    assert!(PublicKey::deserialize(&bad).is_err());
    assert!(k.is_canonical());
    // A low-order point (u = 0) and a u-coordinate >= p are not canonical.
    assert!(!PublicKey::from_u([0; 32]).is_canonical());
    let mut p = [0xFF; 32];
    p[0] = 0xED;
    p[31] = 0x7F;
    assert!(!PublicKey::from_u(p).is_canonical());
}
