//! Decapsulation of hostile ciphertexts under fixed keys (PQ-AKEM and SHADOWFAX, every suite):
//! errors, never a panic. Inputs edit valid ciphertexts (`alibi_fuzz::input`), so the KEM
//! decapsulation, the ring signature's decoding and verification and the key confirmation are
//! reached, not only the length check. The DH-AKEMs (RFC 9180's and the artifact's) decapsulate
//! the first 32 bytes as enc under the sender key in the next 32: low-order points must fail
//! cleanly.
#![no_main]
use alibi_akem::pq::{self, Suite};
use alibi_akem::{dh, shadowfax};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

struct Keys {
    pq: Vec<(pq::SecretKey, pq::SecretKey)>,
    sf: Vec<(shadowfax::SecretKey, shadowfax::SecretKey)>,
    dh: dh::SecretKey,
    samples: Vec<Vec<u8>>,
}

fn keys() -> &'static Keys {
    static K: OnceLock<Keys> = OnceLock::new();
    K.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let mut k = Keys {
            pq: vec![],
            sf: vec![],
            dh: dh::SecretKey::generate(&mut rng),
            samples: vec![],
        };
        for s in [
            Suite::MlKem512Falcon512,
            Suite::MlKem768Falcon1024,
            Suite::Bat257Mitaka512,
        ] {
            let (a, b) = (
                pq::SecretKey::generate(s, &mut rng),
                pq::SecretKey::generate(s, &mut rng),
            );
            let (c, _) = pq::encap(&a, b.public_key(), &mut rng).expect("valid keys");
            k.samples.push(c);
            k.pq.push((a, b));
            let (a, b) = (
                shadowfax::SecretKey::generate(s, &mut rng),
                shadowfax::SecretKey::generate(s, &mut rng),
            );
            let (c, _) = shadowfax::encap(&a, b.public_key(), &mut rng).expect("valid keys");
            k.samples.push(c);
            k.sf.push((a, b));
        }
        k
    })
}

fuzz_target!(|data: &[u8]| {
    let k = keys();
    let c = alibi_fuzz::input(data, &k.samples);
    for (s, r) in &k.pq {
        let _ = pq::decap(r, s.public_key(), &c);
    }
    for (s, r) in &k.sf {
        let _ = shadowfax::decap(r, s.public_key(), &c);
    }
    if c.len() >= 64 {
        let enc = dh::array32(&c[..32], "enc").expect("32 bytes");
        let pk_s = dh::array32(&c[32..64], "sender key").expect("32 bytes");
        let _ = dh::rfc9180::decap(&k.dh, &pk_s, &enc);
        let _ = dh::artifact::decap(&k.dh, &pk_s, &enc);
    }
});
