//! Falcon at both levels, ours next to PQClean's (pqcrypto-falcon) in the same run.
//!
//! `cargo bench -p alibi-falcon --bench falcon`

use alibi_falcon::{Level, Signature, SigningKey, VerifyingKey, Q};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use pqcrypto_traits::sign::{DetachedSignature as _, PublicKey as _, SecretKey as _};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use std::time::Duration;

const MSG: &[u8] = b"the quick brown fox jumps over the lazy dog";

macro_rules! peer {
    ($c:expr, $m:ident, $level:expr) => {{
        use pqcrypto_falcon::$m as pq;
        let level: Level = $level;
        let mut g = $c.benchmark_group(format!("{}", level));
        g.measurement_time(Duration::from_secs(4));
        let mut rng = ChaCha20Rng::seed_from_u64(7);

        g.bench_function("keygen/alibi", |b| {
            b.iter(|| SigningKey::generate(level, &mut rng))
        });
        g.bench_function("keygen/pqcrypto", |b| b.iter(pq::keypair));

        let sk = SigningKey::generate(level, &mut rng);
        let skb = sk.to_bytes();
        let esk = sk.expand();
        let vk = sk.verifying_key();
        let vkb = vk.to_bytes();
        let pq_sk = pq::SecretKey::from_bytes(&skb).unwrap();
        let pq_pk = pq::PublicKey::from_bytes(&vkb).unwrap();

        // "plain" signs from the encoded secret key, like PQClean: decode, expand, sample.
        g.bench_function("sign/alibi", |b| {
            b.iter(|| SigningKey::from_bytes(&skb).unwrap().sign(MSG, &mut rng))
        });
        g.bench_function("sign-expanded/alibi", |b| {
            b.iter(|| esk.sign(MSG, &mut rng))
        });
        g.bench_function("sign/pqcrypto", |b| {
            b.iter(|| pq::detached_sign(MSG, &pq_sk))
        });

        let sig = esk.sign(MSG, &mut rng).to_bytes();
        let pq_sig = pq::DetachedSignature::from_bytes(&sig).unwrap();
        // Verification from the encoded key and signature on both sides.
        g.bench_function("verify/alibi", |b| {
            b.iter(|| {
                let vk = VerifyingKey::from_bytes(&vkb).unwrap();
                let s = Signature::from_bytes(&sig).unwrap();
                vk.verify(MSG, &s).unwrap()
            })
        });
        g.bench_function("verify/pqcrypto", |b| {
            b.iter(|| pq::verify_detached_signature(&pq_sig, MSG, &pq_pk).unwrap())
        });

        g.bench_function("preimage/alibi", |b| {
            b.iter_batched(
                || {
                    (0..level.n())
                        .map(|_| (rng.next_u32() % Q) as u16)
                        .collect::<Vec<u16>>()
                },
                |c| {
                    esk.sample_preimage(&c, &mut ChaCha20Rng::seed_from_u64(1))
                        .unwrap()
                },
                BatchSize::SmallInput,
            )
        });
        g.finish();
    }};
}

fn benches(c: &mut Criterion) {
    peer!(c, falcon512, Level::Falcon512);
    peer!(c, falcon1024, Level::Falcon1024);
}

criterion_group! {
    name = falcon;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_secs(1));
    targets = benches
}
criterion_main!(falcon);
