//! Random linear combinations with 128-bit weights ([`alibi_bls::Weights`]) against blstrs'
//! full-size multi-scalar multiplication with the same weights as scalars, on random points and
//! the identity, for sizes on both sides of blst's thresholds (32 points, the two-thread split).

use alibi_bls::Weights;
use blstrs::{G1Projective, G2Projective, Scalar};
use group::Group;
use rand_core::{Rng, UnwrapErr};

fn rng() -> UnwrapErr<getrandom::SysRng> {
    UnwrapErr(getrandom::SysRng)
}

/// 32 random bytes: the input of a random point.
fn seed() -> [u8; 32] {
    let mut b = [0u8; 32];
    rng().fill_bytes(&mut b);
    b
}

#[test]
fn weighted_sums_equal_the_full_size_multiplication() {
    for n in [1usize, 2, 3, 31, 32, 33, 64, 100] {
        let w = Weights::random(n, &mut rng());
        assert_eq!(w.len(), n);
        let scalars: Vec<Scalar> = (0..n).map(|i| w.scalar(i)).collect();
        let mut g1: Vec<G1Projective> = (0..n)
            .map(|_| G1Projective::hash_to_curve(&seed(), b"weights test", &[]))
            .collect();
        let mut g2: Vec<G2Projective> = (0..n)
            .map(|_| G2Projective::hash_to_curve(&seed(), b"weights test", &[]))
            .collect();
        // An identity point among them (a cheater's partial can be one).
        if n > 2 {
            g1[1] = G1Projective::identity();
            g2[1] = G2Projective::identity();
        }
        let full1 = G1Projective::multi_exp(&g1, &scalars);
        let full2 = G2Projective::multi_exp(&g2, &scalars);
        assert_eq!(w.g1(&g1), full1, "G1, n = {n}");
        assert_eq!(w.g2(&g2), full2, "G2, n = {n}");
    }
}

#[test]
fn weights_are_128_bits_and_drawn_anew() {
    let w = Weights::random(64, &mut rng());
    let encodings: std::collections::BTreeSet<[u8; 32]> =
        (0..64).map(|i| w.scalar(i).to_bytes_le()).collect();
    assert_eq!(encodings.len(), 64);
    // Each below 2^128: the top 16 bytes of its little-endian encoding are zero.
    assert!(encodings.iter().all(|e| e[16..].iter().all(|&b| b == 0)));
    let none = Weights::random(0, &mut rng());
    assert!(none.is_empty());
    assert_eq!(
        none.g1(&[G1Projective::generator()]),
        G1Projective::identity()
    );
}
