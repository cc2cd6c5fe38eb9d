//! Decapsulation of hostile ciphertexts under fixed keys (PQ-AKEM and SHADOWFAX): errors, never a
//! panic.
#![no_main]
use alibi_akem::pq::{self, Suite};
use alibi_akem::shadowfax;
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

struct Keys {
    pq_s: pq::PqSecretKey,
    pq_r: pq::PqSecretKey,
    sf_s: shadowfax::SecretKey,
    sf_r: shadowfax::SecretKey,
}

fn keys() -> &'static Keys {
    static K: OnceLock<Keys> = OnceLock::new();
    K.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let s = Suite::MlKem512Falcon512;
        Keys {
            pq_s: pq::PqSecretKey::generate(s, &mut rng),
            pq_r: pq::PqSecretKey::generate(s, &mut rng),
            sf_s: shadowfax::SecretKey::generate(s, &mut rng),
            sf_r: shadowfax::SecretKey::generate(s, &mut rng),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let k = keys();
    let _ = pq::decap(&k.pq_r, k.pq_s.public_key(), data);
    let _ = shadowfax::decap(&k.sf_r, k.sf_s.public_key(), data);
});
