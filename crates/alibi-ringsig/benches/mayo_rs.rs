//! MAYO-RS with two members next to MAYO's own sign and verify with expanded keys, in the same
//! run (the seed's comparison: ring sign / sign and ring verify / verify). The rows keep the names
//! they had in `alibi-mayo`'s bench (group `mayo-MAYO_1`, `ring-sign/alibi`, ...), which
//! `scripts/bench_table.py --mayo` reads; the plain rows repeat that bench's `sign-expanded` and
//! `verify-expanded`, so that every ratio is taken inside one run. Compact-key and liboqs rows
//! stay in `alibi-mayo`'s bench.
//!
//! `cargo bench -p alibi-ringsig --bench mayo_rs`

use alibi_mayo::{Params, SigningKey};
use alibi_ringsig::mayo_rs::Ring;
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
        let sk = SigningKey::generate(p, &mut rng);
        g.bench_function("sign-expanded/alibi", |b| b.iter(|| sk.sign(MSG, &mut rng)));
        let sig = sk.sign(MSG, &mut rng);
        let vk = sk.verifying_key();
        g.bench_function("verify-expanded/alibi", |b| {
            b.iter(|| vk.verify(MSG, &sig).unwrap())
        });
        let other = SigningKey::generate(p, &mut rng);
        let ring = Ring::new(vec![vk.clone(), other.verifying_key().clone()]).unwrap();
        g.bench_function("ring-sign/alibi", |b| {
            b.iter(|| ring.sign(&sk, MSG, &mut rng).unwrap())
        });
        let rsig = ring.sign(&sk, MSG, &mut rng).unwrap();
        g.bench_function("ring-verify/alibi", |b| {
            b.iter(|| ring.verify(MSG, &rsig).unwrap())
        });
        g.finish();
    }
}

criterion_group! {
    name = mayo_rs_benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1));
    targets = ours
}
criterion_main!(mayo_rs_benches);
