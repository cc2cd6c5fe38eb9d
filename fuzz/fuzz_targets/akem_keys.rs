//! AKEM key decoders (PQ-AKEM and SHADOWFAX, public and secret, every suite), the DH-AKEM key
//! pair encoding, and keys of any configuration (`alibi_akem::any`) at the configuration the
//! input's length names (`alibi_akem::detect`): no panic; accepted keys re-encode to the same
//! bytes. Inputs edit valid keys of every kind (`alibi_fuzz::input`).
#![no_main]
use alibi_akem::any;
use alibi_akem::detect::{Half, Scheme};
use alibi_akem::dh;
use alibi_akem::pq::{self, Suite};
use alibi_akem::shadowfax;
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

const SUITES: [Suite; 3] = [
    Suite::MlKem512Falcon512,
    Suite::MlKem768Falcon1024,
    Suite::Bat257Mitaka512,
];

fn samples() -> &'static Vec<Vec<u8>> {
    static S: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    S.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let mut v = vec![dh::SecretKey::generate(&mut rng).to_bytes().to_vec()];
        for s in SUITES {
            let k = pq::SecretKey::generate(s, &mut rng);
            v.push(k.public_key().to_bytes());
            v.push(k.to_bytes().to_vec());
            let k = shadowfax::SecretKey::generate(s, &mut rng);
            v.push(k.public_key().to_bytes());
            v.push(k.to_bytes().to_vec());
        }
        v
    })
}

fuzz_target!(|data: &[u8]| {
    let data = &alibi_fuzz::input(data, samples())[..];
    if let Ok(k) = dh::SecretKey::from_bytes(data) {
        assert_eq!(&k.to_bytes()[..], data);
    }
    for suite in SUITES {
        if let Ok(k) = pq::PublicKey::from_bytes(suite, data) {
            assert_eq!(k.to_bytes(), data);
        }
        if let Ok(k) = pq::SecretKey::from_bytes(suite, data) {
            assert_eq!(&k.to_bytes()[..], data);
        }
        if let Ok(k) = shadowfax::PublicKey::from_bytes(suite, data) {
            assert_eq!(k.to_bytes(), data);
        }
        if let Ok(k) = shadowfax::SecretKey::from_bytes(suite, data) {
            assert_eq!(&k.to_bytes()[..], data);
        }
    }
    for scheme in Scheme::ALL {
        for half in [Half::Public, Half::Secret] {
            let Ok(akem) = scheme.detect(half, data.len()) else {
                continue;
            };
            match half {
                Half::Public => {
                    if let Ok(k) = any::PublicKey::from_bytes(akem, data) {
                        assert_eq!(k.akem(), akem);
                        assert_eq!(k.to_bytes(), data);
                    }
                }
                Half::Secret => {
                    if let Ok(k) = any::SecretKey::from_bytes(akem, data) {
                        assert_eq!(k.akem(), akem);
                        assert_eq!(&k.to_bytes()[..], data);
                    }
                }
            }
        }
    }
});
