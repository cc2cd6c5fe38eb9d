//! The decoders the kem 0.3 port added, on untrusted bytes: typed ML-KEM / Kyber encapsulation
//! keys (`TryKeyInit`, with the FIPS 203 modulus check), the byte-level key check and
//! decapsulation with any key and ciphertext, an X25519 key pair from bytes, and a key-confirmation
//! tag. No panic; an accepted encapsulation key re-encodes to the same bytes. Inputs edit valid
//! encapsulation keys and (decapsulation key, ciphertext) pairs of every set (`alibi_fuzz::input`).
#![no_main]
use alibi_akem::mlkem::{self, EncapsulationKey, MlKem, ParameterSet};
use alibi_akem::{confirm, dh};
use kem::{KeyExport, TryKeyInit};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

const SETS: [MlKem; 4] = [MlKem::K512, MlKem::K768, MlKem::K1024, MlKem::Kyber1024];

fn samples() -> &'static Vec<Vec<u8>> {
    static S: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    S.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let mut v = vec![];
        for set in SETS {
            let (dk, ek) = set.generate(&mut rng);
            let (ct, _) = set.encapsulate(&ek, &mut rng).expect("a valid key");
            v.push([&dk[..], &ct[..]].concat());
            v.push(ek);
        }
        v
    })
}

fn typed<P: ParameterSet>(data: &[u8]) {
    if let Ok(ek) = EncapsulationKey::<P>::new_from_slice(data) {
        assert_eq!(&ek.to_bytes()[..], data);
    }
}

fuzz_target!(|data: &[u8]| {
    let data = &alibi_fuzz::input(data, samples())[..];
    typed::<mlkem::MlKem512>(data);
    typed::<mlkem::MlKem768>(data);
    typed::<mlkem::MlKem1024>(data);
    typed::<mlkem::Kyber1024>(data);
    for set in SETS {
        let _ = set.check_ek(data);
        // The first part as a decapsulation key, the rest as a ciphertext.
        let cut = set.dk_len().min(data.len());
        let _ = set.decapsulate(&data[..cut], &data[cut..]);
    }
    if let Ok(k) = dh::SecretKey::from_bytes(data) {
        assert_eq!(&k.to_bytes()[..], data);
    }
    if data.len() >= 32 {
        let key: [u8; 32] = data[..32].try_into().expect("32 bytes");
        let _ = confirm::verify(&key, &data[32..], &data[32..]);
    }
});
