//! One party's BLS12-381 work in a key generation of 64 parties (t = 63), step by step: its
//! Feldman commitment, decoding the other dealers' commitments, the G1 check of the joint
//! commitment, decoding the 63 others' share proofs (verification key and Schnorr proof) and
//! checking all 64 in one batch against the joint commitment; beside them, the steps they replaced
//! (the 64 verification keys by evaluation and a batch of 64 BLS proofs of possession). These are
//! the steps docs/BENCHMARKS.md names for the 64-process run; the network and Signal work is not
//! here.
//!
//! `cargo bench -p alibi-mpc --bench keygen_party`

use alibi_mpc::bls;
use alibi_mpc::curve::Bls12;
use alibi_mpc::poly::{Commitment, Polynomial};
use alibi_mpc::share_proof::{self, ShareProof};
use criterion::{criterion_group, criterion_main, Criterion};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

const N: u16 = 64;

fn bench(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(64);
    let polys: Vec<Polynomial<Bls12>> = (0..N)
        .map(|_| Polynomial::random(usize::from(N) - 1, &mut rng))
        .collect();
    let wire: Vec<_> = polys.iter().map(Polynomial::commitment).collect();
    let decoded: Vec<Commitment<Bls12>> = wire
        .iter()
        .map(|w| Commitment::decode(w).expect("decodes"))
        .collect();
    let joint = Commitment::sum(decoded.iter()).expect("not empty");
    let shares: Vec<blstrs::Scalar> = (1..=N)
        .map(|j| polys.iter().map(|f| f.eval(j)).sum())
        .collect();
    let context = b"bench context";
    let share_proofs: Vec<Vec<u8>> = (1..=N)
        .zip(&shares)
        .map(|(j, x)| ShareProof::<Bls12>::generate(context, j, x, &mut rng).to_bytes())
        .collect();
    let decoded_proofs: Vec<ShareProof<Bls12>> = share_proofs
        .iter()
        .map(|p| ShareProof::from_bytes(p).expect("decodes"))
        .collect();
    let refs: Vec<(u16, &ShareProof<Bls12>)> = (1..=N).zip(&decoded_proofs).collect();
    let sks: Vec<[u8; 32]> = (1..=N)
        .map(|i| *bls::keygen(&[i as u8; 32]).expect("keygen"))
        .collect();
    let pks: Vec<Vec<u8>> = sks
        .iter()
        .map(|s| bls::public_key(s).expect("pk").to_vec())
        .collect();
    let proofs: Vec<Vec<u8>> = sks
        .iter()
        .map(|s| bls::pop_prove(s).expect("pop").to_vec())
        .collect();
    let pairs: Vec<(&[u8], &[u8])> = pks
        .iter()
        .zip(&proofs)
        .map(|(k, p)| (k.as_slice(), p.as_slice()))
        .collect();

    let mut g = c.benchmark_group("keygen party, n = 64");
    g.sample_size(10);
    g.bench_function("own commitment (64 points)", |b| {
        b.iter(|| polys[0].commitment())
    });
    g.bench_function("decode 63 dealers' commitments", |b| {
        b.iter(|| {
            wire[1..]
                .iter()
                .map(|w| Commitment::<Bls12>::decode(w).expect("decodes"))
                .collect::<Vec<_>>()
        })
    });
    g.bench_function("G1 check of the joint commitment", |b| {
        b.iter(|| joint.in_subgroup())
    });
    g.bench_function("decode 63 share proofs", |b| {
        b.iter(|| {
            share_proofs[1..]
                .iter()
                .map(|p| ShareProof::<Bls12>::from_bytes(p).expect("decodes"))
                .collect::<Vec<_>>()
        })
    });
    g.bench_function("batch of 64 share proofs", |b| {
        b.iter(|| assert!(share_proof::verify_batch(context, &joint, &refs, &mut rng).is_empty()))
    });
    // The weighted check of the 64 dealers' shares of party 40 (issue 20), two ways.
    let me = 40u16;
    let weights: Vec<blstrs::Scalar> = (0..N)
        .map(|_| alibi_mpc::poly::random_weight(&mut rng))
        .collect();
    g.bench_function("weighted share check, one MSM of 64 x 64 points", |b| {
        b.iter(|| {
            let x = blstrs::Scalar::from(u64::from(me));
            let mut points = vec![];
            let mut scalars = vec![];
            for (c, w) in decoded.iter().zip(&weights) {
                let mut term = *w;
                for p in &c.0 {
                    points.push(*p);
                    scalars.push(term);
                    term *= x;
                }
            }
            blstrs::G1Projective::multi_exp(&points, &scalars)
        })
    });
    g.bench_function(
        "weighted share check, Horner per dealer then 64 points",
        |b| {
            b.iter(|| {
                let points: Vec<blstrs::G1Projective> =
                    decoded.iter().map(|c| c.eval(me)).collect();
                blstrs::G1Projective::multi_exp(&points, &weights)
            })
        },
    );
    // The last step alone, by full-size scalars and by 128-bit weights (`Weights`, as
    // key generation does it now).
    let evaluated: Vec<blstrs::G1Projective> = decoded.iter().map(|c| c.eval(me)).collect();
    let short = alibi_mpc::poly::Weights::random(N as usize, &mut rng);
    g.bench_function("64 points by full-size weights", |b| {
        b.iter(|| blstrs::G1Projective::multi_exp(&evaluated, &weights))
    });
    g.bench_function("64 points by 128-bit weights", |b| {
        b.iter(|| short.g1(&evaluated))
    });
    g.bench_function("(replaced) 64 verification keys", |b| {
        b.iter(|| (1..=N).map(|j| joint.eval(j)).collect::<Vec<_>>())
    });
    g.bench_function("(replaced) batch of 64 proofs of possession", |b| {
        b.iter(|| bls::batch_pop_verify(&pairs, &mut rng).expect("valid"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
