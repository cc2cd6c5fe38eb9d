//! TACHYON decoders: keys and signatures of every level, no panic; accepted encodings re-encode to
//! the same bytes; verification of a decoded signature under the key of its level never panics.
//! Inputs edit valid keys and signatures of every level (`alibi_fuzz::input`).
#![no_main]
use alibi_tachyon::{Level, Signature, SigningKey, VerifyingKey};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

struct Fixture {
    keys: Vec<(Level, VerifyingKey)>,
    samples: Vec<Vec<u8>>,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let mut f = Fixture {
            keys: vec![],
            samples: vec![],
        };
        for level in Level::ALL {
            let sk = SigningKey::generate(level, &mut rng);
            let vk = sk.verifying_key();
            f.samples.push(vk.to_bytes());
            f.samples.push(sk.to_bytes().to_vec());
            f.samples.push(sk.sign(b"fuzz", &mut rng).to_bytes());
            f.keys.push((level, vk.clone()));
        }
        f
    })
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let data = &alibi_fuzz::input(data, &f.samples)[..];
    if let Ok(k) = VerifyingKey::from_bytes(data) {
        assert_eq!(k.to_bytes(), data);
    }
    if let Ok(k) = SigningKey::from_bytes(data) {
        assert_eq!(&k.to_bytes()[..], data);
    }
    for (level, vk) in &f.keys {
        if let Ok(s) = Signature::from_bytes(*level, data) {
            assert_eq!(s.to_bytes(), data);
            let _ = vk.verify(b"fuzz", &s);
        }
    }
});
