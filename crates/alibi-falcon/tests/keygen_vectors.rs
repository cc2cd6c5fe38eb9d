//! Key generation is a function of its seed: the keys of fixed seeds, recorded from the
//! implementation of 2026-11-25 (commit ac5c700, the big-integer NTRUSolve with schoolbook products)
//! before its speed-ups, must not change. NTRUSolve's output is the unique reduced solution, so
//! faster arithmetic or earlier rejection of candidates that would fail anyway keeps every key.

use alibi_falcon::{Level, SigningKey};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use shake::digest::{ExtendableOutput, Update, XofReader};

/// SHAKE256 over the encoded secret keys of seeds 0..count, 32 bytes, in hex.
fn digest(level: Level, count: u64) -> String {
    let mut h = shake::Shake256::default();
    for seed in 0..count {
        let sk = SigningKey::generate(level, &mut ChaCha20Rng::seed_from_u64(seed));
        h.update(&sk.to_bytes());
    }
    let mut out = [0u8; 32];
    h.finalize_xof().read(&mut out);
    out.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn the_keys_of_fixed_seeds_are_what_they_were() {
    assert_eq!(
        digest(Level::Falcon512, 24),
        "bb984a5f7f4856a6f824646c586fd6d720a503d135bb940c28165bc01ad99551"
    );
    assert_eq!(
        digest(Level::Falcon1024, 8),
        "d9f7ee8e29a7c4ce21930e53ca1d213864215c466910d32b4147c507a609c606"
    );
}
