//! MAYO, with liboqs's MAYO in the same run when built with `--features liboqs`. MAYO-RS, built on
//! it in `alibi-ringsig`, has its rows in that crate's `mayo_rs` bench.
//!
//! `cargo bench -p alibi-mayo --bench mayo --features liboqs`
//!
//! Like liboqs's API, "sign" starts from the compact secret key and "verify" from the compact
//! public key (both expand P1 and P2 from their seeds every time); the "-expanded" rows reuse
//! expanded keys, as MAYO-RS does with its ring.

use alibi_mayo::{Params, Signature, SigningKey, VerifyingKey};
use criterion::{criterion_group, criterion_main, Criterion};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::time::Duration;

const MSG: &[u8] = b"the quick brown fox jumps over the lazy dog";

fn ours(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    for p in [Params::Mayo1, Params::Mayo2] {
        let mut g = c.benchmark_group(format!("mayo-{}", p.name()));
        g.sample_size(20).measurement_time(Duration::from_secs(3));
        g.bench_function("keygen/alibi", |b| {
            b.iter(|| {
                let sk = SigningKey::generate(p, &mut rng);
                sk.public_key_bytes().len()
            })
        });
        let sk = SigningKey::generate(p, &mut rng);
        let seed = sk.to_bytes();
        let cpk = sk.public_key_bytes().to_vec();
        g.bench_function("sign/alibi", |b| {
            b.iter(|| {
                SigningKey::from_bytes(p, &seed)
                    .unwrap()
                    .sign(MSG, &mut rng)
            })
        });
        g.bench_function("sign-expanded/alibi", |b| b.iter(|| sk.sign(MSG, &mut rng)));
        let sig = sk.sign(MSG, &mut rng);
        let sig_bytes = sig.to_bytes();
        g.bench_function("verify/alibi", |b| {
            b.iter(|| {
                let vk = VerifyingKey::from_bytes(p, &cpk).unwrap();
                let sig = Signature::from_bytes(p, &sig_bytes).unwrap();
                vk.verify(MSG, &sig).unwrap()
            })
        });
        let vk = sk.verifying_key();
        g.bench_function("verify-expanded/alibi", |b| {
            b.iter(|| vk.verify(MSG, &sig).unwrap())
        });
        g.finish();
    }
}

#[cfg(feature = "liboqs")]
fn liboqs(c: &mut Criterion) {
    use oqs::sig::{Algorithm, Sig};
    oqs::init();
    for (p, alg) in [
        (Params::Mayo1, Algorithm::Mayo1),
        (Params::Mayo2, Algorithm::Mayo2),
    ] {
        let mut g = c.benchmark_group(format!("mayo-{}", p.name()));
        g.sample_size(20).measurement_time(Duration::from_secs(3));
        let sig = Sig::new(alg).unwrap();
        g.bench_function("keygen/liboqs", |b| b.iter(|| sig.keypair().unwrap()));
        let (pk, sk) = sig.keypair().unwrap();
        g.bench_function("sign/liboqs", |b| b.iter(|| sig.sign(MSG, &sk).unwrap()));
        let s = sig.sign(MSG, &sk).unwrap();
        g.bench_function("verify/liboqs", |b| {
            b.iter(|| sig.verify(MSG, &s, &pk).unwrap())
        });
        g.finish();
    }
}

#[cfg(not(feature = "liboqs"))]
fn liboqs(_: &mut Criterion) {
    eprintln!("skipped: liboqs rows need --features liboqs");
}

criterion_group! {
    name = mayo_benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1));
    targets = ours, liboqs
}
criterion_main!(mayo_benches);
