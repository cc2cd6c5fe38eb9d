//! `alibi_keyfile::open` on untrusted bytes: no panic; a file that opens was sealed by us or is
//! the sealed sample with no edit that matters.
//!
//! Inputs edit a valid file sealed with `Params::TEST` (see `alibi_fuzz::input`), so the header
//! parser, the cost bounds, the passphrase check and the AEAD are all reached. A file may name
//! costs up to 1 GiB and 16 passes, which `open` accepts by design (the bound itself is the unit
//! test `alibi_keyfile::tests::*cost*`); the target skips opening files whose costs exceed
//! 2 MiB-passes, so that a campaign spends its time on parsing rather than on Argon2id.
#![no_main]
use alibi_keyfile::{Params, HEADER_LEN, MAGIC};
use libfuzzer_sys::fuzz_target;
use rand_chacha::rand_core::SeedableRng;
use std::sync::OnceLock;

fn samples() -> &'static Vec<Vec<u8>> {
    static S: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    S.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let f = alibi_keyfile::seal("alibi fuzz", b"a secret", b"pass", Params::TEST, &mut rng);
        vec![f.expect("sealing with the test parameters works")]
    })
}

/// The costs the header names, where it has them: memory KiB times passes.
fn cost(b: &[u8]) -> u64 {
    let at = MAGIC.len() + 1;
    let u = |i: usize| {
        b.get(at + 4 * i..at + 4 * i + 4).map_or(0, |x| {
            u64::from(u32::from_be_bytes(x.try_into().expect("4 bytes")))
        })
    };
    u(0) * u(1)
}

fuzz_target!(|data: &[u8]| {
    let file = alibi_fuzz::input(data, samples());
    if file.len() >= HEADER_LEN && cost(&file) > 2048 {
        return;
    }
    if let Ok(plain) = alibi_keyfile::open("alibi fuzz", &file, b"pass") {
        assert_eq!(&plain[..], b"a secret");
    }
});
