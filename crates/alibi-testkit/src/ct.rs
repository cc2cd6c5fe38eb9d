//! What the dudect-style timing tests (`benches/ct.rs` in the scheme crates, run by
//! `scripts/ct.sh`) share: inputs of two classes in a random order, so that drifts of the
//! machine (frequency, other load) fall on both classes alike and only a difference the classes
//! cause shows in Welch's t.

use dudect_bencher::rand::RngExt;
pub use dudect_bencher::{BenchRng, Class, CtRunner};

/// `n` inputs, each of a class drawn at random: `make(true, rng)` builds one of the first class
/// ([`Class::Left`]), `make(false, rng)` one of the second.
pub fn inputs<T>(
    n: usize,
    rng: &mut BenchRng,
    mut make: impl FnMut(bool, &mut BenchRng) -> T,
) -> Vec<(Class, T)> {
    (0..n)
        .map(|_| {
            let first = rng.random::<bool>();
            let class = if first { Class::Left } else { Class::Right };
            (class, make(first, rng))
        })
        .collect()
}
