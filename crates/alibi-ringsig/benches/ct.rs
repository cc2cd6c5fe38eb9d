//! Dudect-style timing test of GANDALF ring signing (see `alibi-akem/benches/ct.rs` for the
//! method): signatures of random messages by the first against the second member of one
//! two-member Falcon-512 ring. Signing is claimed constant time in the signer's key; a difference
//! here would tell a timing observer which member signed, the one thing a ring signature hides.
//! `ring_sign_mayo1` does the same for MAYO-RS over MAYO_1 keys.
//!
//!   cargo bench -p alibi-ringsig --bench ct            (or scripts/ct.sh)
use alibi_falcon::{Level, SigningKey};
use alibi_ringsig::{Ring, RingSigningKey};
use alibi_testkit::ct::{inputs, BenchRng, CtRunner};
use dudect_bencher::ctbench_main;
use dudect_bencher::rand::Rng;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn ring_sign_512(runner: &mut CtRunner, rng: &mut BenchRng) {
    let a = SigningKey::generate(Level::Falcon512, rng);
    let b = SigningKey::generate(Level::Falcon512, rng);
    let ring =
        Ring::new(vec![a.verifying_key().clone(), b.verifying_key().clone()]).expect("two keys");
    ring_sign(runner, rng, &ring, &a.expand(), &b.expand());
}

/// Signing by `a` (first class) against signing by `b`, on fresh messages.
fn ring_sign<K: RingSigningKey>(
    runner: &mut CtRunner,
    rng: &mut BenchRng,
    ring: &Ring,
    a: &K,
    b: &K,
) {
    let msgs = inputs(4_000, rng, |first, rng| {
        let mut m = [0u8; 32];
        rng.fill_bytes(&mut m);
        (first, m)
    });
    for (class, (first, m)) in msgs {
        let key = if first { a } else { b };
        runner.run_one(class, || ring.sign(key, &m, &mut ChaCha20Rng::from_seed(m)));
    }
}

/// What PQ-AKEM and SHADOWFAX decapsulation do with a decrypted signature: `verify_encoded` on
/// random bytes (what a modified KEM part decrypts to) against a valid signature with its last
/// salt byte flipped (a modified signature part). Both are refused; the time should not tell
/// which.
fn verify_encoded_invalid_512(runner: &mut CtRunner, rng: &mut BenchRng) {
    let a = SigningKey::generate(Level::Falcon512, rng);
    let b = SigningKey::generate(Level::Falcon512, rng);
    let ring =
        Ring::new(vec![a.verifying_key().clone(), b.verifying_key().clone()]).expect("two keys");
    let a = a.expand();
    verify_encoded_invalid(runner, rng, &ring, |m, rng| {
        ring.sign(&a, m, rng).expect("a member").to_bytes()
    });
}

/// The same for GANDALF[Antrag, Mitaka], whose blocks' bytes after the body are not checked.
fn verify_encoded_invalid_mitaka(runner: &mut CtRunner, rng: &mut BenchRng) {
    let a = alibi_mitaka::SigningKey::generate(rng);
    let b = alibi_mitaka::SigningKey::generate(rng);
    let ring =
        Ring::mitaka(&[a.verifying_key().clone(), b.verifying_key().clone()]).expect("two keys");
    let a = a.expand();
    verify_encoded_invalid(runner, rng, &ring, |m, rng| {
        ring.sign(&a, m, rng).expect("a member").to_bytes()
    });
}

fn verify_encoded_invalid(
    runner: &mut CtRunner,
    rng: &mut BenchRng,
    ring: &Ring,
    sign: impl Fn(&[u8], &mut BenchRng) -> Vec<u8>,
) {
    let msg = [5u8; 32];
    let sigs = inputs(20_000, rng, |garbled, rng| {
        let mut s = sign(&msg, rng);
        if garbled {
            rng.fill_bytes(&mut s);
        } else {
            let last = s.len() - 1;
            s[last] ^= 1;
        }
        s
    });
    for (class, s) in sigs {
        runner.run_one(class, || ring.verify_encoded(&msg, &s));
    }
}

/// GANDALF[Antrag, Mitaka] signing by member 1 against member 2: the signer's part comes from the
/// Mitaka sampler, the other's from the discrete Gaussian; the time should not tell which member
/// signed.
fn ring_sign_mitaka(runner: &mut CtRunner, rng: &mut BenchRng) {
    let a = alibi_mitaka::SigningKey::generate(rng);
    let b = alibi_mitaka::SigningKey::generate(rng);
    let ring =
        Ring::mitaka(&[a.verifying_key().clone(), b.verifying_key().clone()]).expect("two keys");
    ring_sign(runner, rng, &ring, &a.expand(), &b.expand());
}

/// MAYO-RS signatures by the first against the second member of one two-member MAYO_1 ring (a
/// difference would tell which member signed, breaking the ring's anonymity for a timing
/// observer).
fn ring_sign_mayo1(runner: &mut CtRunner, rng: &mut BenchRng) {
    use alibi_mayo::{Params, SigningKey};
    let a = SigningKey::generate(Params::Mayo1, rng);
    let b = SigningKey::generate(Params::Mayo1, rng);
    let ring = alibi_ringsig::mayo_rs::Ring::new(vec![
        a.verifying_key().clone(),
        b.verifying_key().clone(),
    ])
    .expect("two keys");
    // A key expands its map on first use, which would otherwise be one slow sample in each class.
    let _ = (a.sign(b"", &mut *rng), b.sign(b"", &mut *rng));
    let msgs = inputs(4_000, rng, |first, rng| {
        let mut m = [0u8; 32];
        rng.fill_bytes(&mut m);
        (first, m)
    });
    for (class, (first, m)) in msgs {
        let key = if first { &a } else { &b };
        runner.run_one(class, || ring.sign(key, &m, &mut ChaCha20Rng::from_seed(m)));
    }
}

ctbench_main!(
    ring_sign_512,
    verify_encoded_invalid_512,
    ring_sign_mitaka,
    verify_encoded_invalid_mitaka,
    ring_sign_mayo1
);
