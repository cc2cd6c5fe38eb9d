//! Statistical timing tests in the dudect style (Reparaz, Balasch, Verbauwhede, "Dude, is my code
//! constant time?", DATE 2017): each function times one operation on inputs of two classes, in a
//! random order, and Welch's t-test compares the two timing distributions (also after cropping
//! at several percentiles). |t| above 5 says the classes can be told apart by time.
//!
//!   cargo bench -p alibi-akem --bench ct            (or scripts/ct.sh for every crate)
//!
//! What is compared, and why it should not differ:
//! - `mlkem512_decap`, `mlkem768_decap`: ML-KEM decapsulation of valid ciphertexts against random ones. FIPS 203's
//!   implicit rejection must take the same time (a timing difference is a plaintext-checking
//!   oracle).
//! - `confirm_tag_compare`: our key-confirmation tag check on tags wrong in their first byte
//!   against tags wrong in their last (an early exit would reveal how many bytes matched).
//! - `pq_akem_decap_invalid`, `shadowfax_decap_invalid`: decapsulation of two kinds of invalid
//!   ciphertexts, a byte of the ML-KEM part flipped (implicit rejection: a pseudorandom key) against
//!   a byte of the signature part flipped (the right key). A difference would tell an attacker
//!   whether the KEM part decapsulated correctly: the plaintext-checking oracle that implicit
//!   rejection exists to close.
//! - `bat_decap`: BAT-257 decapsulation of valid ciphertexts against ones with a byte of c2
//!   flipped (implicit rejection, as for ML-KEM).
//! - `pq_akem_bat_decap_invalid`, `shadowfax_bat_decap_invalid`: the `_invalid` pair for the BAT
//!   suite, the KEM part flipped in c2 (which keeps c1 decodable: whether it decodes is public).
//! - `pq_akem_decap`, `shadowfax_decap`: valid ciphertexts against ones with the ML-KEM part
//!   flipped. The second class returns an error, so the outcome is public anyway; this shows how
//!   much of the work the error path skips, and is expected to differ.
use alibi_akem::pq::{self, Suite};
use alibi_akem::{confirm, mlkem::MlKem, shadowfax};
use alibi_testkit::ct::{inputs, BenchRng, Class, CtRunner};
use dudect_bencher::ctbench_main;
use dudect_bencher::rand::{Rng, RngExt};

fn mlkem_decap(runner: &mut CtRunner, rng: &mut BenchRng, set: MlKem) {
    let (dk, ek) = set.generate(rng);
    let cts = inputs(20_000, rng, |valid, rng| {
        if valid {
            set.encapsulate(&ek, rng).expect("a valid key").0
        } else {
            let mut ct = vec![0u8; set.ct_len()];
            rng.fill_bytes(&mut ct);
            ct
        }
    });
    for (class, ct) in cts {
        runner.run_one(class, || set.decapsulate(&dk, &ct));
    }
}

fn mlkem512_decap(runner: &mut CtRunner, rng: &mut BenchRng) {
    mlkem_decap(runner, rng, MlKem::K512);
}

fn mlkem768_decap(runner: &mut CtRunner, rng: &mut BenchRng) {
    mlkem_decap(runner, rng, MlKem::K768);
}

fn confirm_tag_compare(runner: &mut CtRunner, rng: &mut BenchRng) {
    let key = [7u8; 32];
    let ct = [9u8; 64];
    let good = confirm::tag(&key, &ct);
    let (mut first, mut last) = (good, good);
    first[0] ^= 1;
    last[good.len() - 1] ^= 1;
    let tags = inputs(200_000, rng, |early, _| if early { first } else { last });
    for (class, t) in tags {
        runner.run_one(class, || confirm::verify(&key, &ct, &t));
    }
}

/// Which ciphertexts an AKEM test compares.
#[derive(Clone, Copy)]
enum Pair {
    /// Valid (first class) against the KEM part flipped.
    ValidInvalid,
    /// The KEM part flipped (first class) against the signature part (the last byte) flipped.
    InvalidKinds,
}

/// `n` ciphertexts of the two classes of `pair`; the KEM part's flipped byte is drawn from
/// `kem_bytes`.
fn akem_inputs(
    n: usize,
    pair: Pair,
    kem_bytes: core::ops::Range<usize>,
    rng: &mut BenchRng,
    encap: impl Fn(&mut BenchRng) -> Vec<u8>,
) -> Vec<(Class, Vec<u8>)> {
    inputs(n, rng, |first, rng| {
        let mut ct = encap(rng);
        let kem_byte = rng.random_range(kem_bytes.clone());
        let last = ct.len() - 1;
        match (pair, first) {
            (Pair::ValidInvalid, true) => {}
            (Pair::ValidInvalid, false) | (Pair::InvalidKinds, true) => ct[kem_byte] ^= 1,
            (Pair::InvalidKinds, false) => ct[last] ^= 1,
        }
        ct
    })
}

/// Where a suite's KEM bytes to flip are, from the start of its KEM ciphertext: ML-KEM's first 64
/// bytes; BAT's c2 (its last 16), so that c1 still decodes.
fn kem_bytes(s: Suite, start: usize) -> core::ops::Range<usize> {
    match s {
        Suite::Bat257Mitaka512 => start + 457..start + 473,
        _ => start..start + 64,
    }
}

fn pq_akem(runner: &mut CtRunner, rng: &mut BenchRng, pair: Pair, s: Suite) {
    let (a, b) = (
        pq::SecretKey::generate(s, rng),
        pq::SecretKey::generate(s, rng),
    );
    let cts = akem_inputs(20_000, pair, kem_bytes(s, 0), rng, |rng| {
        pq::encap(&a, b.public_key(), rng).expect("valid keys").0
    });
    for (class, ct) in cts {
        runner.run_one(class, || pq::decap(&b, a.public_key(), &ct));
    }
}

fn shadowfax(runner: &mut CtRunner, rng: &mut BenchRng, pair: Pair, s: Suite) {
    let (a, b) = (
        shadowfax::SecretKey::generate(s, rng),
        shadowfax::SecretKey::generate(s, rng),
    );
    // SHADOWFAX's C starts with the 32-byte ephemeral X25519 key.
    let cts = akem_inputs(20_000, pair, kem_bytes(s, 32), rng, |rng| {
        shadowfax::encap(&a, b.public_key(), rng)
            .expect("valid keys")
            .0
    });
    for (class, ct) in cts {
        runner.run_one(class, || shadowfax::decap(&b, a.public_key(), &ct));
    }
}

fn pq_akem_decap_invalid(runner: &mut CtRunner, rng: &mut BenchRng) {
    pq_akem(runner, rng, Pair::InvalidKinds, Suite::MlKem512Falcon512);
}

fn shadowfax_decap_invalid(runner: &mut CtRunner, rng: &mut BenchRng) {
    shadowfax(runner, rng, Pair::InvalidKinds, Suite::MlKem512Falcon512);
}

fn pq_akem_bat_decap_invalid(runner: &mut CtRunner, rng: &mut BenchRng) {
    pq_akem(runner, rng, Pair::InvalidKinds, Suite::Bat257Mitaka512);
}

fn shadowfax_bat_decap_invalid(runner: &mut CtRunner, rng: &mut BenchRng) {
    shadowfax(runner, rng, Pair::InvalidKinds, Suite::Bat257Mitaka512);
}

fn pq_akem_decap(runner: &mut CtRunner, rng: &mut BenchRng) {
    pq_akem(runner, rng, Pair::ValidInvalid, Suite::MlKem512Falcon512);
}

fn shadowfax_decap(runner: &mut CtRunner, rng: &mut BenchRng) {
    shadowfax(runner, rng, Pair::ValidInvalid, Suite::MlKem512Falcon512);
}

fn bat_decap(runner: &mut CtRunner, rng: &mut BenchRng) {
    let sk = alibi_bat::SecretKey::generate(rng);
    let cts = inputs(20_000, rng, |valid, rng| {
        let mut ct = alibi_bat::encapsulate(sk.public_key(), rng)
            .expect("a valid key")
            .0;
        if !valid {
            let i = rng.random_range(457..473);
            ct[i] ^= 1;
        }
        ct
    });
    for (class, ct) in cts {
        runner.run_one(class, || alibi_bat::decapsulate(&sk, &ct));
    }
}

ctbench_main!(
    mlkem512_decap,
    mlkem768_decap,
    confirm_tag_compare,
    pq_akem_decap_invalid,
    shadowfax_decap_invalid,
    pq_akem_decap,
    shadowfax_decap,
    bat_decap,
    pq_akem_bat_decap_invalid,
    shadowfax_bat_decap_invalid
);
