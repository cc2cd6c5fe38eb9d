//! Threshold BLS on untrusted bytes: every key-generation message, transport frame, signed
//! broadcast, key share file, group file and BLS encoding decoder. No panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::SeedableRng;

fuzz_target!(|data: &[u8]| {
    // A fixed seed: the same input takes the same path on every run.
    alibi_mpc::fuzzing::decoders(data, &mut ChaCha20Rng::seed_from_u64(0));
});
