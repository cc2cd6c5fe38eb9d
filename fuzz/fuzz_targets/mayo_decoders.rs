//! MAYO and MAYO-RS decoders on untrusted bytes: public keys, secret keys, signatures and ring
//! signatures, at every parameter set. No panic; accepted encodings re-encode to the same bytes;
//! verification of whatever decodes never panics.
#![no_main]
use alibi_mayo::ring::{Ring, RingSignature};
use alibi_mayo::{Params, Signature, SigningKey, VerifyingKey};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

/// A fixed two-member MAYO_2 ring and one key, made once.
fn fixture() -> &'static (Ring, VerifyingKey) {
    static F: OnceLock<(Ring, VerifyingKey)> = OnceLock::new();
    F.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let a = SigningKey::generate(Params::Mayo2, &mut rng);
        let b = SigningKey::generate(Params::Mayo2, &mut rng);
        let ring = Ring::new(vec![a.verifying_key(), b.verifying_key()]).unwrap();
        (ring, a.verifying_key())
    })
}

fuzz_target!(|data: &[u8]| {
    let (ring, vk) = fixture();
    for p in Params::ALL {
        if let Ok(k) = VerifyingKey::from_bytes(p, data) {
            assert_eq!(k.to_bytes(), data);
        }
        if let Ok(k) = SigningKey::from_bytes(p, data) {
            assert_eq!(&k.to_bytes()[..], data);
        }
        if let Ok(s) = Signature::from_bytes(p, data) {
            assert_eq!(s.to_bytes(), data);
            let _ = vk.verify(b"fuzz", &s);
        }
    }
    // Signatures stretched to the fixture's length reach the evaluation.
    if !data.is_empty() {
        let sig: Vec<u8> = data
            .iter()
            .copied()
            .cycle()
            .take(Params::Mayo2.signature_bytes())
            .collect();
        if let Ok(s) = Signature::from_bytes(Params::Mayo2, &sig) {
            let _ = vk.verify(b"fuzz", &s);
        }
    }
    if let Ok(s) = RingSignature::from_bytes(ring, data) {
        assert_eq!(s.to_bytes(), data);
        let _ = ring.verify(b"fuzz", &s);
    }
});
