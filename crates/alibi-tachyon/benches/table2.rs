//! The paper's Table 2 in one run: TACHYON at every level, with and without the signer
//! pre-computation, next to ML-DSA-44/65/87 (PQClean, AVX2), Falcon-512/1024 (ours and PQClean) and
//! SPHINCS+-SHA2-128f/128s-simple (PQClean, AVX2; the round-3.1 scheme FIPS 205 standardised as
//! SLH-DSA). Sizes are printed by `cargo run --example sizes`.
//!
//! `cargo bench -p alibi-tachyon --bench table2`

use alibi_falcon::Level as FalconLevel;
use alibi_tachyon::{Level, SigningKey};
use criterion::{criterion_group, criterion_main, Criterion};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::time::Duration;

const MSG: &[u8] = b"the quick brown fox jumps over the lazy dog";

fn tachyon(c: &mut Criterion) {
    let mut g = c.benchmark_group("table2");
    g.measurement_time(Duration::from_secs(3));
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for level in Level::ALL {
        let name = match level {
            Level::T128 => "tachyon-128",
            Level::T192 => "tachyon-192",
            Level::T256 => "tachyon-256",
            Level::T128Small => "tachyon-128-t256",
        };
        let sk = SigningKey::generate(level, &mut rng);
        let vk = sk.verifying_key();
        let pre = sk.clone().with_precomputation();
        g.bench_function(format!("{name}/sign"), |b| {
            b.iter(|| sk.sign(MSG, &mut rng))
        });
        g.bench_function(format!("{name}-precomp/sign"), |b| {
            b.iter(|| pre.sign(MSG, &mut rng))
        });
        let sig = sk.sign(MSG, &mut rng);
        g.bench_function(format!("{name}/verify"), |b| {
            b.iter(|| vk.verify(MSG, &sig).unwrap())
        });
    }
    g.finish();
}

macro_rules! pq_peer {
    ($g:expr, $name:expr, $m:path) => {{
        use pqcrypto_traits::sign::DetachedSignature as _;
        use $m as p;
        let (pk, sk) = p::keypair();
        $g.bench_function(concat!($name, "/sign"), |b| {
            b.iter(|| p::detached_sign(MSG, &sk))
        });
        let sig = p::detached_sign(MSG, &sk);
        let _ = sig.as_bytes();
        $g.bench_function(concat!($name, "/verify"), |b| {
            b.iter(|| p::verify_detached_signature(&sig, MSG, &pk).unwrap())
        });
    }};
}

fn peers(c: &mut Criterion) {
    let mut g = c.benchmark_group("table2");
    g.measurement_time(Duration::from_secs(3));
    pq_peer!(g, "ml-dsa-44", pqcrypto_mldsa::mldsa44);
    pq_peer!(g, "ml-dsa-65", pqcrypto_mldsa::mldsa65);
    pq_peer!(g, "ml-dsa-87", pqcrypto_mldsa::mldsa87);
    pq_peer!(g, "falcon-512-pqclean", pqcrypto_falcon::falcon512);
    pq_peer!(g, "falcon-1024-pqclean", pqcrypto_falcon::falcon1024);
    pq_peer!(
        g,
        "sphincs-sha2-128f",
        pqcrypto_sphincsplus::sphincssha2128fsimple
    );
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    for (name, level) in [
        ("falcon-512-alibi", FalconLevel::Falcon512),
        ("falcon-1024-alibi", FalconLevel::Falcon1024),
    ] {
        let sk = alibi_falcon::SigningKey::generate(level, &mut rng).expand();
        let vk = sk.verifying_key();
        g.bench_function(format!("{name}/sign"), |b| {
            b.iter(|| sk.sign(MSG, &mut rng))
        });
        let sig = sk.sign(MSG, &mut rng);
        g.bench_function(format!("{name}/verify"), |b| {
            b.iter(|| vk.verify(MSG, &sig).unwrap())
        });
    }
    g.finish();
    // SPHINCS+-128s signs in about a quarter of a second: ten samples.
    let mut g = c.benchmark_group("table2");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    pq_peer!(
        g,
        "sphincs-sha2-128s",
        pqcrypto_sphincsplus::sphincssha2128ssimple
    );
    g.finish();
}

criterion_group! {
    name = table2;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_secs(1));
    targets = tachyon, peers
}
criterion_main!(table2);
