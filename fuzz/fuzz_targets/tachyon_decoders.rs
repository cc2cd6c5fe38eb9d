//! TACHYON decoders: keys and signatures of every level, no panic; accepted encodings re-encode to
//! the same bytes; verification of a decoded signature under a fixed key never panics.
#![no_main]
use alibi_tachyon::{Level, Signature, SigningKey, VerifyingKey};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

fn key() -> &'static VerifyingKey {
    static K: OnceLock<VerifyingKey> = OnceLock::new();
    K.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        SigningKey::generate(Level::T128Small, &mut rng).verifying_key()
    })
}

fuzz_target!(|data: &[u8]| {
    if let Ok(k) = VerifyingKey::from_bytes(data) {
        assert_eq!(k.to_bytes(), data);
    }
    if let Ok(k) = SigningKey::from_bytes(data) {
        assert_eq!(&k.to_bytes()[..], data);
    }
    for level in Level::ALL {
        if let Ok(s) = Signature::from_bytes(level, data) {
            assert_eq!(s.to_bytes(), data);
            let _ = key().verify(b"fuzz", &s);
        }
    }
});
