//! Keccak-f[1600] and SHA3-256 / SHAKE256, ours next to the `keccak` crate's permutation and
//! RustCrypto's `sha3` and `shake` in the same run.
//!
//! `cargo bench -p alibi-keccak --bench keccak`

use criterion::{criterion_group, criterion_main, Criterion};
use sha3::digest::{Digest, ExtendableOutput, Update, XofReader};
use std::hint::black_box;

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("keccak");
    let mut s = [0u64; 25];
    g.bench_function("f1600/alibi", |b| {
        b.iter(|| alibi_keccak::f1600(black_box(&mut s)))
    });
    g.bench_function("f1600-portable/alibi", |b| {
        b.iter(|| alibi_keccak::f1600_portable(black_box(&mut s)))
    });
    let mut s2 = [1u64; 25];
    g.bench_function("f1600-x2/alibi", |b| {
        b.iter(|| alibi_keccak::f1600_x2(black_box(&mut s), black_box(&mut s2)))
    });
    g.bench_function("f1600/keccak", |b| {
        b.iter(|| keccak::Keccak::new().with_f1600(|f| f(black_box(&mut s))))
    });
    // The size of PQ-AKEM's session-key input (docs/BENCHMARKS.md, "AKEMs").
    let msg = vec![0x5au8; 5500];
    g.bench_function("sha3-256-5500/alibi", |b| {
        b.iter(|| alibi_keccak::Sha3_256::digest(black_box(&msg)))
    });
    g.bench_function("sha3-256-5500/sha3", |b| {
        b.iter(|| sha3::Sha3_256::digest(black_box(&msg)))
    });
    let mut out = [0u8; 1024];
    g.bench_function("shake256-64-1024/alibi", |b| {
        b.iter(|| {
            let mut h = alibi_keccak::Shake256::new();
            h.update(black_box(&msg[..64]));
            h.finalize_into(&mut out);
        })
    });
    g.bench_function("shake256-64-1024/shake", |b| {
        b.iter(|| {
            let mut h = shake::Shake256::default();
            h.update(black_box(&msg[..64]));
            h.finalize_xof().read(&mut out);
        })
    });
    g.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
