//! Dudect-style timing test of Falcon signing (see `alibi-akem/benches/ct.rs` for the method):
//! signatures of random messages under two different keys, in a random order. Signing is
//! claimed constant time in the secret key, as the reference's is: a difference between two keys
//! would let a timing observer tell signers apart, or learn about the key.
//!
//!   cargo bench -p alibi-falcon --bench ct            (or scripts/ct.sh)
//!
//! `sign_expanded_512` times `ExpandedSigningKey::sign` (the sampler and the tree walk);
//! `sign_encoded_512` times `SigningKey::sign`, which expands the encoded key first.
use alibi_falcon::{Level, SigningKey};
use alibi_testkit::ct::{inputs, BenchRng, Class, CtRunner};
use dudect_bencher::ctbench_main;
use dudect_bencher::rand::Rng;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// `n` random messages, each with its class (true: the first key).
fn messages(n: usize, rng: &mut BenchRng) -> Vec<(Class, (bool, [u8; 32]))> {
    inputs(n, rng, |first, rng| {
        let mut m = [0u8; 32];
        rng.fill_bytes(&mut m);
        (first, m)
    })
}

fn sign_expanded_512(runner: &mut CtRunner, rng: &mut BenchRng) {
    let a = SigningKey::generate(Level::Falcon512, rng).expand();
    let b = SigningKey::generate(Level::Falcon512, rng).expand();
    for (class, (first, m)) in messages(10_000, rng) {
        let key = if first { &a } else { &b };
        runner.run_one(class, || key.sign(&m, &mut ChaCha20Rng::from_seed(m)));
    }
}

fn sign_encoded_512(runner: &mut CtRunner, rng: &mut BenchRng) {
    let a = SigningKey::generate(Level::Falcon512, rng);
    let b = SigningKey::generate(Level::Falcon512, rng);
    for (class, (first, m)) in messages(4_000, rng) {
        let key = if first { &a } else { &b };
        runner.run_one(class, || key.sign(&m, &mut ChaCha20Rng::from_seed(m)));
    }
}

ctbench_main!(sign_expanded_512, sign_encoded_512);
