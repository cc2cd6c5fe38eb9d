//! Dudect-style timing tests of MAYO (see `alibi-akem/benches/ct.rs` for the method). Signing
//! is claimed constant time in the secret key, as the reference's is:
//!
//! - `sign_mayo1`, `sign_mayo2`: signatures of random messages under two different keys.
//!
//! MAYO-RS signing (`ring_sign_mayo1`) is timed in `alibi-ringsig`'s `benches/ct.rs`.
//!
//!   cargo bench -p alibi-mayo --bench ct            (or scripts/ct.sh)
use alibi_mayo::{Params, SigningKey};
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

/// Times signing under `a` against `b`. Both are used once first: a key expands its map on first
/// use, which would otherwise be one slow sample in each class.
fn sign_with(runner: &mut CtRunner, rng: &mut BenchRng, a: &SigningKey, b: &SigningKey) {
    let _ = (a.sign(b"", &mut *rng), b.sign(b"", &mut *rng));
    for (class, (first, m)) in messages(10_000, rng) {
        let key = if first { &a } else { &b };
        runner.run_one(class, || key.sign(&m, &mut ChaCha20Rng::from_seed(m)));
    }
}

fn sign(runner: &mut CtRunner, rng: &mut BenchRng, p: Params) {
    let a = SigningKey::generate(p, rng);
    let b = SigningKey::generate(p, rng);
    sign_with(runner, rng, &a, &b);
}

fn sign_mayo1(runner: &mut CtRunner, rng: &mut BenchRng) {
    sign(runner, rng, Params::Mayo1);
}

/// The control for `sign_mayo1`: one key against a copy of itself, decoded into its own
/// allocations. Equal values, different addresses: what this test shows is what placement in
/// memory alone does to the two-key tests.
fn same_key(runner: &mut CtRunner, rng: &mut BenchRng, p: Params) {
    let a = SigningKey::generate(p, rng);
    let b = SigningKey::from_bytes(p, &a.to_bytes()).expect("its own encoding");
    sign_with(runner, rng, &a, &b);
}

fn sign_mayo1_same_key(runner: &mut CtRunner, rng: &mut BenchRng) {
    same_key(runner, rng, Params::Mayo1);
}

/// The control for `sign_mayo2`.
fn sign_mayo2_same_key(runner: &mut CtRunner, rng: &mut BenchRng) {
    same_key(runner, rng, Params::Mayo2);
}

fn sign_mayo2(runner: &mut CtRunner, rng: &mut BenchRng) {
    sign(runner, rng, Params::Mayo2);
}

ctbench_main!(
    sign_mayo1,
    sign_mayo1_same_key,
    sign_mayo2,
    sign_mayo2_same_key
);
