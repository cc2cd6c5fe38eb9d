//! BAT-257 decoders and decapsulation: public keys, secret keys (long and short formats) and
//! ciphertexts under a fixed key. No panic; an accepted key re-encodes to the same bytes; every
//! ciphertext of the right length and tag yields a secret (BAT rejects implicitly) or an error,
//! never a panic. Inputs edit valid encodings (`alibi_fuzz::input`).
#![no_main]
use alibi_bat::{decapsulate, encapsulate, PublicKey, SecretKey};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

fn fixture() -> &'static (SecretKey, Vec<Vec<u8>>) {
    static F: OnceLock<(SecretKey, Vec<Vec<u8>>)> = OnceLock::new();
    F.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let sk = SecretKey::generate(&mut rng);
        let (ct, _) = encapsulate(sk.public_key(), &mut rng).expect("a valid key");
        let samples = vec![
            sk.public_key().to_bytes(),
            sk.to_bytes().to_vec(),
            sk.to_short_bytes().to_vec(),
            ct,
        ];
        (sk, samples)
    })
}

fuzz_target!(|data: &[u8]| {
    let (sk, samples) = fixture();
    let data = &alibi_fuzz::input(data, samples)[..];
    if let Ok(pk) = PublicKey::from_bytes(data) {
        assert_eq!(pk.to_bytes(), data);
    }
    if let Ok(k) = SecretKey::from_bytes(data) {
        let again = if data.len() == alibi_bat::SECRET_KEY_LEN {
            k.to_bytes()
        } else {
            k.to_short_bytes()
        };
        assert_eq!(&again[..], data);
    }
    let _ = decapsulate(sk, data);
});
