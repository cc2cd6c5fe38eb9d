//! Decoders on arbitrary bytes: no panic, and whatever decodes re-encodes to the same bytes (the
//! encodings are canonical).

use alibi_bat::{
    decapsulate, PublicKey, SecretKey, CIPHERTEXT_LEN, PUBLIC_KEY_LEN, SECRET_KEY_LEN,
    TAG_CIPHERTEXT, TAG_PUBLIC_KEY, TAG_SECRET_KEY,
};
use proptest::prelude::*;
use std::sync::OnceLock;

fn key() -> &'static SecretKey {
    static KEY: OnceLock<SecretKey> = OnceLock::new();
    KEY.get_or_init(|| SecretKey::generate_from_seed(&[3; 32]))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn public_key_bytes(body in proptest::collection::vec(any::<u8>(), PUBLIC_KEY_LEN - 1)) {
        let mut b = vec![TAG_PUBLIC_KEY];
        b.extend_from_slice(&body);
        if let Ok(pk) = PublicKey::from_bytes(&b) {
            prop_assert_eq!(pk.to_bytes(), b);
        }
    }

    #[test]
    fn ciphertext_bytes(body in proptest::collection::vec(any::<u8>(), CIPHERTEXT_LEN - 1)) {
        let mut b = vec![TAG_CIPHERTEXT];
        b.extend_from_slice(&body);
        let k1 = decapsulate(key(), &b).expect("any tagged ciphertext yields a secret");
        prop_assert_eq!(decapsulate(key(), &b).expect("again"), k1);
    }

    #[test]
    fn secret_key_bytes(body in proptest::collection::vec(any::<u8>(), SECRET_KEY_LEN - 1)) {
        let mut b = vec![TAG_SECRET_KEY];
        b.extend_from_slice(&body);
        prop_assert!(SecretKey::from_bytes(&b).is_err());
    }

    /// A valid key with one byte changed: an error, or a key that re-encodes to those bytes.
    #[test]
    fn secret_key_mutations(pos in 1..SECRET_KEY_LEN, x in 1u8..=255) {
        let mut b = key().to_bytes().to_vec();
        b[pos] ^= x;
        if let Ok(sk) = SecretKey::from_bytes(&b) {
            prop_assert_eq!(&sk.to_bytes()[..], &b[..]);
        }
    }
}
