//! Ring-signature decoder and verifier for fixed two-member rings, GANDALF[Falcon-512] and
//! GANDALF[Antrag, Mitaka]: no panic; what decodes re-encodes to the same bytes;
//! `Ring::verify_encoded` (the decapsulations' uniform-work check) accepts exactly what decoding
//! then verifying accepts. Inputs edit a valid signature of either ring (`alibi_fuzz::input`).
#![no_main]
use alibi_falcon::{Level, SigningKey};
use alibi_ringsig::{Ring, RingSignature};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

fn fixture() -> &'static ([Ring; 2], Vec<Vec<u8>>) {
    static R: OnceLock<([Ring; 2], Vec<Vec<u8>>)> = OnceLock::new();
    R.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let a = SigningKey::generate(Level::Falcon512, &mut rng);
        let b = SigningKey::generate(Level::Falcon512, &mut rng);
        let ring = Ring::new(vec![a.verifying_key().clone(), b.verifying_key().clone()]).expect("two keys");
        let sig = ring.sign(&a.expand(), b"fuzz", &mut rng).expect("a member");
        let c = alibi_mitaka::SigningKey::generate(&mut rng);
        let d = alibi_mitaka::SigningKey::generate(&mut rng);
        let mitaka = Ring::mitaka(&[c.verifying_key().clone(), d.verifying_key().clone()])
            .expect("two keys");
        let msig = mitaka.sign(&d.expand(), b"fuzz", &mut rng).expect("a member");
        let samples = vec![sig.to_bytes(), msig.to_bytes()];
        ([ring, mitaka], samples)
    })
}

fuzz_target!(|data: &[u8]| {
    let (rings, samples) = fixture();
    let bytes = alibi_fuzz::input(data, samples);
    for ring in rings {
        let mut separate = false;
        if let Ok(sig) = RingSignature::from_bytes(ring, &bytes) {
            assert_eq!(sig.to_bytes(), &bytes[..]);
            separate = ring.verify(b"fuzz", &sig).is_ok();
        }
        assert_eq!(ring.verify_encoded(b"fuzz", &bytes).is_ok(), separate);
    }
});
