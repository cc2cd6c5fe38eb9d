//! Falcon at both levels, ours next to PQClean's (pqcrypto-falcon) and Pornin's `fn-dsa` in the
//! same run. fn-dsa follows a draft of FN-DSA (its keys, message hashing and signatures differ from
//! round-3 Falcon), so it is a speed peer only, with its own keys.
//!
//! `cargo bench -p alibi-falcon --bench falcon`

use alibi_falcon::{Level, Signature, SigningKey, VerifyingKey, Q};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use fn_dsa::{KeyPairGenerator as _, SigningKey as _, VerifyingKey as _};
use pqcrypto_traits::sign::{DetachedSignature as _, PublicKey as _, SecretKey as _};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use std::time::Duration;

const MSG: &[u8] = b"the quick brown fox jumps over the lazy dog";

/// fn-dsa takes rand_core 0.6 generators: ours, seen through that version's traits.
struct Rng06(ChaCha20Rng);

impl fn_dsa::RngCore for Rng06 {
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.0.fill_bytes(dest)
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), fn_dsa::RngError> {
        self.0.fill_bytes(dest);
        Ok(())
    }
}

impl fn_dsa::CryptoRng for Rng06 {}

macro_rules! peer {
    ($c:expr, $m:ident, $level:expr, $logn:expr) => {{
        use pqcrypto_falcon::$m as pq;
        let level: Level = $level;
        let mut g = $c.benchmark_group(format!("{}", level));
        g.measurement_time(Duration::from_secs(4));
        let mut rng = ChaCha20Rng::seed_from_u64(7);

        g.bench_function("keygen/alibi", |b| {
            b.iter(|| SigningKey::generate(level, &mut rng))
        });
        g.bench_function("keygen/pqcrypto", |b| b.iter(pq::keypair));
        let mut rng06 = Rng06(ChaCha20Rng::seed_from_u64(8));
        let mut fn_sk = vec![0u8; fn_dsa::sign_key_size($logn)];
        let mut fn_vk = vec![0u8; fn_dsa::vrfy_key_size($logn)];
        g.bench_function("keygen/fn-dsa", |b| {
            b.iter(|| {
                let mut kg = fn_dsa::KeyPairGeneratorStandard::default();
                kg.keygen($logn, &mut rng06, &mut fn_sk, &mut fn_vk)
            })
        });

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
        // A key pair and a signature of fn-dsa's own even when a filter skips the rows above.
        fn_dsa::KeyPairGeneratorStandard::default()
            .keygen($logn, &mut rng06, &mut fn_sk, &mut fn_vk);
        let mut fn_sig = vec![0u8; fn_dsa::signature_size($logn)];
        fn_dsa::SigningKeyStandard::decode(&fn_sk).unwrap().sign(
            &mut rng06,
            &fn_dsa::DOMAIN_NONE,
            &fn_dsa::HASH_ID_RAW,
            MSG,
            &mut fn_sig,
        );
        g.bench_function("sign/fn-dsa", |b| {
            b.iter(|| {
                let mut k = fn_dsa::SigningKeyStandard::decode(&fn_sk).unwrap();
                k.sign(
                    &mut rng06,
                    &fn_dsa::DOMAIN_NONE,
                    &fn_dsa::HASH_ID_RAW,
                    MSG,
                    &mut fn_sig,
                )
            })
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
        g.bench_function("verify/fn-dsa", |b| {
            b.iter(|| {
                let k = fn_dsa::VerifyingKeyStandard::decode(&fn_vk).unwrap();
                assert!(k.verify(&fn_sig, &fn_dsa::DOMAIN_NONE, &fn_dsa::HASH_ID_RAW, MSG))
            })
        });
        // Verification with a decoded key reused (the signature still decoded each time).
        g.bench_function("verify-reused/alibi", |b| {
            b.iter(|| {
                let s = Signature::from_bytes(&sig).unwrap();
                vk.verify(MSG, &s).unwrap()
            })
        });
        let fn_key = fn_dsa::VerifyingKeyStandard::decode(&fn_vk).unwrap();
        g.bench_function("verify-reused/fn-dsa", |b| {
            b.iter(|| {
                assert!(fn_key.verify(&fn_sig, &fn_dsa::DOMAIN_NONE, &fn_dsa::HASH_ID_RAW, MSG))
            })
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

/// SamplerZ alone: the 1,024 draws of a Falcon-512 signature (centres spread over [0, 1) and
/// across the integers, sigma' = 1.5, within Falcon-512's [sigma_min, sigma_max]), to weigh its
/// share of signing.
fn sampler(c: &mut Criterion) {
    let level = Level::Falcon512;
    let mu: Vec<f64> = (0..1024)
        .map(|i| (i as f64 * 0.618_034) % 37.0 - 18.0)
        .collect();
    let isigma = 1.0 / 1.5;
    let mut g = c.benchmark_group("SamplerZ");
    g.measurement_time(Duration::from_secs(4));
    g.bench_function("1024-draws/alibi", |b| {
        let mut samp = alibi_falcon::Sampler::new([7; 32], level.sigma_min());
        b.iter(|| mu.iter().map(|&m| samp.sample(m, isigma)).sum::<i32>())
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    sampler(c);
    peer!(c, falcon512, Level::Falcon512, fn_dsa::FN_DSA_LOGN_512);
    peer!(c, falcon1024, Level::Falcon1024, fn_dsa::FN_DSA_LOGN_1024);
}

criterion_group! {
    name = falcon;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_secs(1));
    targets = benches
}
criterion_main!(falcon);
