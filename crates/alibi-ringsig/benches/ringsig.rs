//! Ring keygen, sign and verify for 2..64 members, next to plain Falcon sign and verify in the same
//! run (the paper's comparison: ring sign / Falcon sign and ring verify / Falcon verify).
//!
//! `cargo bench -p alibi-ringsig --bench ringsig`

use alibi_falcon::{Level, Signature, SigningKey};
use alibi_ringsig::{Ring, RingSignature};
use criterion::{criterion_group, criterion_main, Criterion};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::time::Duration;

const MSG: &[u8] = b"the quick brown fox jumps over the lazy dog";

fn bench_level(c: &mut Criterion, level: Level, sizes: &[usize]) {
    let mut g = c.benchmark_group(format!("ring-{level}"));
    g.measurement_time(Duration::from_secs(3));
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let keys: Vec<SigningKey> = (0..*sizes.iter().max().unwrap())
        .map(|_| SigningKey::generate(level, &mut rng))
        .collect();
    // Keygen is Falcon's: ring members are plain Falcon keys.
    g.bench_function("keygen", |b| {
        b.iter(|| SigningKey::generate(level, &mut rng))
    });
    let esk = keys[0].expand();
    let vk = keys[0].verifying_key();
    g.bench_function("falcon-sign", |b| b.iter(|| esk.sign(MSG, &mut rng)));
    // Both verifications start from signature bytes (decode included) and a decoded key/ring.
    let fsig = esk.sign(MSG, &mut rng).to_bytes();
    g.bench_function("falcon-verify", |b| {
        b.iter(|| {
            vk.verify(MSG, &Signature::from_bytes(&fsig).unwrap())
                .unwrap()
        })
    });
    for &n in sizes {
        let ring = Ring::new(
            keys[..n]
                .iter()
                .map(|k| k.verifying_key().clone())
                .collect(),
        )
        .unwrap();
        g.bench_function(format!("sign/{n}"), |b| {
            b.iter(|| ring.sign(&esk, MSG, &mut rng).unwrap())
        });
        let bytes = ring.sign(&esk, MSG, &mut rng).unwrap().to_bytes();
        g.bench_function(format!("verify/{n}"), |b| {
            b.iter(|| {
                let s = RingSignature::from_bytes(&ring, &bytes).unwrap();
                ring.verify(MSG, &s).unwrap()
            })
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    bench_level(c, Level::Falcon512, &[2, 4, 8, 16, 64]);
    bench_level(c, Level::Falcon1024, &[2, 4, 8, 16, 64]);
}

criterion_group! {
    name = ringsig;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_secs(1));
    targets = benches
}
criterion_main!(ringsig);
