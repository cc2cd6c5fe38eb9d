//! The channel store's records on untrusted bytes: signed and KEM prekey records, identities,
//! private keys, session and sender-key records, and the sealed-value opening (XChaCha20-Poly1305
//! with the table and key bound) under a fixed store key, with the record decoders on what
//! opens. No panic. Inputs edit valid records, plain and sealed (`alibi_fuzz::input`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

fn samples() -> &'static Vec<Vec<u8>> {
    static S: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    S.get_or_init(|| {
        alibi_channel::fuzzing::store_samples(&mut rand_chacha::ChaCha20Rng::seed_from_u64(1))
    })
}

fuzz_target!(|data: &[u8]| {
    alibi_channel::fuzzing::store_records(&alibi_fuzz::input(data, samples()));
});
