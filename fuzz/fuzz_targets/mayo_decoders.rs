//! MAYO and MAYO-RS decoders on untrusted bytes: public keys, secret keys, signatures and ring
//! signatures, at every parameter set. No panic; accepted encodings re-encode to the same bytes;
//! verification of whatever decodes never panics. Inputs edit valid keys, signatures and a ring
//! signature (`alibi_fuzz::input`). MAYO-RS lives in alibi-ringsig; it stays in this target so
//! that the committed corpus keeps its meaning.
#![no_main]
use alibi_mayo::{Params, Signature, SigningKey, VerifyingKey};
use alibi_ringsig::mayo_rs::{Ring, RingSignature};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

/// A fixed two-member MAYO_2 ring, one key per parameter set, and valid encodings to edit,
/// made once.
struct Fixture {
    ring: Ring,
    keys: Vec<VerifyingKey>,
    samples: Vec<Vec<u8>>,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let mut samples = vec![];
        let mut keys = vec![];
        for p in Params::ALL {
            let sk = SigningKey::generate(p, &mut rng);
            samples.push(sk.verifying_key().to_bytes());
            samples.push(sk.to_bytes().to_vec());
            samples.push(sk.sign(b"fuzz", &mut rng).to_bytes());
            keys.push(sk.verifying_key().clone());
        }
        let a = SigningKey::generate(Params::Mayo2, &mut rng);
        let b = SigningKey::generate(Params::Mayo2, &mut rng);
        let ring = Ring::new(vec![a.verifying_key().clone(), b.verifying_key().clone()]).expect("two keys");
        samples.push(
            ring.sign(&a, b"fuzz", &mut rng)
                .expect("a member")
                .to_bytes(),
        );
        Fixture {
            ring,
            keys,
            samples,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let data = &alibi_fuzz::input(data, &f.samples)[..];
    for (p, vk) in Params::ALL.into_iter().zip(&f.keys) {
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
    if let Ok(s) = RingSignature::from_bytes(&f.ring, data) {
        assert_eq!(s.to_bytes(), data);
        let _ = f.ring.verify(b"fuzz", &s);
    }
});
