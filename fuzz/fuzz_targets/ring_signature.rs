//! Ring-signature decoder and verifier for a fixed two-member Falcon-512 ring: no panic; what
//! decodes re-encodes to the same bytes; `Ring::verify_encoded` (the decapsulations' uniform-work
//! check) accepts exactly what decoding then verifying accepts. Inputs edit a valid signature
//! (`alibi_fuzz::input`).
#![no_main]
use alibi_falcon::{Level, SigningKey};
use alibi_ringsig::{Ring, RingSignature};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

fn fixture() -> &'static (Ring, Vec<Vec<u8>>) {
    static R: OnceLock<(Ring, Vec<Vec<u8>>)> = OnceLock::new();
    R.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let a = SigningKey::generate(Level::Falcon512, &mut rng);
        let b = SigningKey::generate(Level::Falcon512, &mut rng);
        let ring = Ring::new(vec![a.verifying_key(), b.verifying_key()]).expect("two keys");
        let sig = ring.sign(&a.expand(), b"fuzz", &mut rng).expect("a member");
        let samples = vec![sig.to_bytes()];
        (ring, samples)
    })
}

fuzz_target!(|data: &[u8]| {
    let (ring, samples) = fixture();
    let bytes = alibi_fuzz::input(data, samples);
    let mut separate = false;
    if let Ok(sig) = RingSignature::from_bytes(ring, &bytes) {
        assert_eq!(sig.to_bytes(), &bytes[..]);
        separate = ring.verify(b"fuzz", &sig).is_ok();
    }
    assert_eq!(ring.verify_encoded(b"fuzz", &bytes).is_ok(), separate);
});
