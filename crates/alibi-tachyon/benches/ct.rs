//! Dudect-style timing test of TACHYON signing (see `alibi-akem/benches/ct.rs` for the method):
//! signatures of random messages under two different keys, in a random order. Signing is claimed
//! constant time in the secret key apart from the number of attempts, whose distribution does not
//! depend on the key (an attempt is kept with probability ((xi - 2k) / xi)^(mu N) whatever the
//! secret vectors add to it), so a difference between the classes would be a leak.
//!
//!   cargo bench -p alibi-tachyon --bench ct            (or scripts/ct.sh)
//!
//! `sign_128` times `SigningKey::sign` at level 128 (the x_i from the PRF on every signature);
//! `sign_128_precomp` the same with the x_i cached (`with_precomputation`); `sign_128_same_key` is
//! the control, one key against a copy of itself.
use alibi_tachyon::{Level, SigningKey};
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

fn two_keys(rng: &mut BenchRng) -> (SigningKey, SigningKey) {
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    let mut r = ChaCha20Rng::from_seed(seed);
    (
        SigningKey::generate(Level::T128, &mut r),
        SigningKey::generate(Level::T128, &mut r),
    )
}

fn sign_128(runner: &mut CtRunner, rng: &mut BenchRng) {
    let (a, b) = two_keys(rng);
    for (class, (first, m)) in messages(10_000, rng) {
        let key = if first { &a } else { &b };
        runner.run_one(class, || key.sign(&m, &mut ChaCha20Rng::from_seed(m)));
    }
}

fn sign_128_precomp(runner: &mut CtRunner, rng: &mut BenchRng) {
    let (a, b) = two_keys(rng);
    let (a, b) = (a.with_precomputation(), b.with_precomputation());
    for (class, (first, m)) in messages(10_000, rng) {
        let key = if first { &a } else { &b };
        runner.run_one(class, || key.sign(&m, &mut ChaCha20Rng::from_seed(m)));
    }
}

/// Control: key A against a clone of key A (equal values, other memory). Signing time varies with
/// the number of attempts, a geometric count with a long tail, so the two-key tests are read
/// against what this control shows.
fn sign_128_same_key(runner: &mut CtRunner, rng: &mut BenchRng) {
    let (a, _) = two_keys(rng);
    let b = a.clone();
    for (class, (first, m)) in messages(10_000, rng) {
        let key = if first { &a } else { &b };
        runner.run_one(class, || key.sign(&m, &mut ChaCha20Rng::from_seed(m)));
    }
}

ctbench_main!(sign_128, sign_128_precomp, sign_128_same_key);
