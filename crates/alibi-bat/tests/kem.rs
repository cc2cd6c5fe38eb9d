//! Our own key generation, encapsulation and decapsulation; the `kem` traits; malformed input.

use alibi_bat::{
    decapsulate, decapsulate_into, encapsulate, encapsulate_into, encapsulate_with_message, Bat257,
    Error, PublicKey, SecretKey, CIPHERTEXT_LEN, PUBLIC_KEY_LEN, SECRET_KEY_LEN,
    SHORT_SECRET_KEY_LEN, TAG_CIPHERTEXT, TAG_PUBLIC_KEY,
};
use kem::{Decapsulator, Encapsulate, Kem, KeyExport, TryDecapsulate, TryKeyInit};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::sync::OnceLock;

/// One key for the tests that need any key (key generation is the slow part).
fn key() -> &'static SecretKey {
    static KEY: OnceLock<SecretKey> = OnceLock::new();
    KEY.get_or_init(|| SecretKey::generate(&mut ChaCha20Rng::seed_from_u64(1)))
}

#[test]
fn round_trip() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    for _ in 0..3 {
        let sk = SecretKey::generate(&mut rng);
        let pk = sk.public_key();
        for _ in 0..5 {
            let (ct, k) = encapsulate(pk, &mut rng).expect("encapsulate");
            assert_eq!(ct.len(), CIPHERTEXT_LEN);
            assert_eq!(decapsulate(&sk, &ct).expect("decapsulate"), k);
        }
        // Longer secrets (the AKEMs' 48 and 64 bytes) extend the 32-byte one.
        let mut long = [0u8; 64];
        let ct = encapsulate_into(pk, &mut rng, &mut long).expect("encapsulate");
        let mut out = [0u8; 64];
        decapsulate_into(&sk, &ct, &mut out).expect("decapsulate");
        assert_eq!(out, long);
        assert_eq!(decapsulate(&sk, &ct).expect("decapsulate")[..], long[..32]);
        // Encodings round-trip, in both secret-key formats.
        let bytes = sk.to_bytes();
        assert_eq!(bytes.len(), SECRET_KEY_LEN);
        assert_eq!(
            SecretKey::from_bytes(&bytes).expect("long").to_bytes(),
            bytes
        );
        let short = sk.to_short_bytes();
        assert_eq!(short.len(), SHORT_SECRET_KEY_LEN);
        assert_eq!(
            SecretKey::from_bytes(&short).expect("short").to_bytes(),
            bytes
        );
        let pkb = pk.to_bytes();
        assert_eq!(pkb.len(), PUBLIC_KEY_LEN);
        assert_eq!(&PublicKey::from_bytes(&pkb).expect("pk"), pk);
    }
}

#[test]
fn seeded_generation_is_deterministic() {
    let a = SecretKey::generate_from_seed(&[9; 32]);
    let b = SecretKey::generate_from_seed(&[9; 32]);
    assert_eq!(a.to_bytes(), b.to_bytes());
    let m = [5u8; 16];
    let (mut k1, mut k2) = ([0u8; 32], [0u8; 32]);
    let ct1 = encapsulate_with_message(a.public_key(), &m, &mut k1);
    let ct2 = encapsulate_with_message(a.public_key(), &m, &mut k2);
    assert_eq!((ct1, k1), (ct2, k2));
}

#[test]
fn implicit_rejection() {
    let sk = key();
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let (ct, k) = encapsulate(sk.public_key(), &mut rng).expect("encapsulate");
    // Every single-bit change after the tag gives another key, always the same one.
    for pos in [1, 100, 456, 457, 472] {
        let mut bad = ct.clone();
        bad[pos] ^= 1;
        let r1 = decapsulate(sk, &bad).expect("still a ciphertext");
        assert_ne!(r1, k);
        assert_eq!(decapsulate(sk, &bad).expect("still a ciphertext"), r1);
    }
    // A c1 value out of -64..=64 (every byte 0xff) is rejected implicitly, not as an error.
    let mut garbage = vec![0xff; CIPHERTEXT_LEN];
    garbage[0] = TAG_CIPHERTEXT;
    let r = decapsulate(sk, &garbage).expect("rejected implicitly");
    assert_ne!(r, k);
    // Another key gets another secret.
    let other = SecretKey::generate(&mut rng);
    assert_ne!(decapsulate(&other, &ct).expect("decodes"), k);
}

#[test]
fn kem_traits() {
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let (dk, ek) = Bat257::generate_keypair_from_rng(&mut rng);
    let (ct, k) = ek.encapsulate_with_rng(&mut rng);
    assert_eq!(dk.try_decapsulate(&ct).expect("decapsulate"), k);
    assert_eq!(dk.encapsulation_key(), &ek);
    let exported = KeyExport::to_bytes(&ek);
    assert_eq!(exported[..], ek.to_bytes()[..]);
    assert_eq!(PublicKey::new(&exported).expect("import"), ek);
    // Byte API and trait API agree.
    assert_eq!(decapsulate(&dk, &ct).expect("decapsulate")[..], k[..]);
}

#[test]
fn malformed_public_keys() {
    let good = key().public_key().to_bytes();
    for len in [0, 1, PUBLIC_KEY_LEN - 1, PUBLIC_KEY_LEN + 1, 5000] {
        let b = vec![TAG_PUBLIC_KEY; len];
        assert!(
            matches!(PublicKey::from_bytes(&b), Err(Error::Length(_))),
            "{len}"
        );
    }
    for tag in [0x19, 0x59, 0xd9, 0x98, 0x9a, 0x00] {
        let mut b = good.clone();
        b[0] = tag;
        assert!(matches!(PublicKey::from_bytes(&b), Err(Error::Tag { got, .. }) if got == tag));
    }
    // A value of 257 or more: all-ones blocks.
    let mut b = vec![0xff; PUBLIC_KEY_LEN];
    b[0] = TAG_PUBLIC_KEY;
    assert_eq!(
        PublicKey::from_bytes(&b),
        Err(Error::Malformed("BAT-257 public key"))
    );
    // The 33rd bit of a block set on top of the largest 32-bit digit number.
    let mut b = good.clone();
    b[5..9].copy_from_slice(&[0xff; 4]);
    b[65] |= 1;
    assert!(PublicKey::from_bytes(&b).is_err());
}

#[test]
fn malformed_secret_keys() {
    let good = key().to_bytes();
    for len in [0, 1, SECRET_KEY_LEN - 1, SECRET_KEY_LEN + 1] {
        let mut b = vec![0u8; len];
        if let Some(t) = b.first_mut() {
            *t = good[0];
        }
        assert!(
            matches!(SecretKey::from_bytes(&b), Err(Error::Length(_))),
            "{len}"
        );
    }
    let short_good = key().to_short_bytes();
    let mut short = short_good.to_vec();
    short.pop();
    assert!(matches!(
        SecretKey::from_bytes(&short),
        Err(Error::Length(_))
    ));
    for tag in [0x99, 0xd9, 0x18, 0x1a, 0x00] {
        let mut b = good.to_vec();
        b[0] = tag;
        assert!(matches!(SecretKey::from_bytes(&b), Err(Error::Tag { got, .. }) if got == tag));
    }
    // f's first coefficient -8 (4-bit 1000): out of range.
    let mut b = good.to_vec();
    b[65] = (b[65] & 0x0f) | 0x80;
    assert_eq!(
        SecretKey::from_bytes(&b).map(|_| ()),
        Err(Error::Malformed("BAT-257 secret key"))
    );
    // F's first coefficient changed by one: the NTRU equation fails.
    let mut b = good.to_vec();
    b[577] ^= 0x04;
    assert!(matches!(
        SecretKey::from_bytes(&b),
        Err(Error::InvalidKey(_)) | Err(Error::Malformed(_))
    ));
    // h changed: no longer g / f.
    let mut b = good.to_vec();
    b[2433] ^= 0x01;
    assert!(matches!(
        SecretKey::from_bytes(&b),
        Err(Error::InvalidKey("h is not g/f mod q"))
    ));
    // A short key whose F does not fit its f, g.
    let mut s = short_good.to_vec();
    s[40] ^= 0x10;
    assert!(matches!(
        SecretKey::from_bytes(&s),
        Err(Error::InvalidKey(_)) | Err(Error::Malformed(_))
    ));
}

#[test]
fn malformed_ciphertexts() {
    let sk = key();
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let (ct, _) = encapsulate(sk.public_key(), &mut rng).expect("encapsulate");
    for len in [0, 1, CIPHERTEXT_LEN - 1, CIPHERTEXT_LEN + 1] {
        let b = vec![TAG_CIPHERTEXT; len];
        assert!(
            matches!(decapsulate(sk, &b), Err(Error::Length(_))),
            "{len}"
        );
    }
    let mut b = ct.clone();
    b[0] = TAG_PUBLIC_KEY;
    assert!(matches!(decapsulate(sk, &b), Err(Error::Tag { .. })));
    let mut arr = kem::Ciphertext::<Bat257>::default();
    arr.copy_from_slice(&b);
    assert!(sk.try_decapsulate(&arr).is_err());
}
