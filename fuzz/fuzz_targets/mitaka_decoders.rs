//! Antrag / Mitaka decoders: secret keys (f, g, F, G, with the NTRU equation and quality checks),
//! public keys and plain Mitaka signatures, verified under a fixed key. No panic; accepted keys
//! re-encode to the same bytes. Inputs edit valid encodings (`alibi_fuzz::input`).
#![no_main]
use alibi_mitaka::{Signature, SigningKey, VerifyingKey};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

fn fixture() -> &'static (VerifyingKey, Vec<Vec<u8>>) {
    static F: OnceLock<(VerifyingKey, Vec<Vec<u8>>)> = OnceLock::new();
    F.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let sk = SigningKey::generate(&mut rng);
        let sig = sk.sign(b"fuzz", &mut rng);
        let vk = sk.verifying_key().clone();
        let samples = vec![vk.to_bytes(), sk.to_bytes().to_vec(), sig.to_bytes()];
        (vk, samples)
    })
}

fuzz_target!(|data: &[u8]| {
    let (vk, samples) = fixture();
    let data = &alibi_fuzz::input(data, samples)[..];
    if let Ok(k) = SigningKey::from_bytes(data) {
        assert_eq!(&k.to_bytes()[..], data);
    }
    if let Ok(k) = VerifyingKey::from_bytes(data) {
        assert_eq!(k.to_bytes(), data);
    }
    if let Ok(sig) = Signature::from_bytes(data) {
        assert_eq!(sig.to_bytes(), data);
        let _ = vk.verify(b"fuzz", &sig);
    }
});
