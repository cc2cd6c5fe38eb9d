//! DGSP next to the published `dgsp` 0.1.2 crate in one run: same parameter set (SHAKE-256f), same
//! group size (2^10 members, in memory), batch 1. (The published crate is broken, see the crate
//! docs; it is measured for speed only.)
//!
//! `cargo bench -p alibi-dgsp --bench dgsp`

use alibi_dgsp::storage::{MemoryPlm, MemoryRevokedList};
use alibi_dgsp::{csr, judge, verify, Manager, ManagerSecretKey, OneTimeKey, Params, UserKey};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use dgsp::{InMemoryPLM, InMemoryRevokedList, PLMInterface, RevokedListInterface, DGSP};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::time::Duration;

const GROUP: u64 = 1 << 10;
const MSG: &[u8] = b"the quick brown fox jumps over the lazy dog";

fn ours(c: &mut Criterion) {
    let mut g = c.benchmark_group("dgsp-shake256f");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    let p = Params::Shake256f;
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    g.bench_function("keygen/alibi", |b| {
        b.iter(|| ManagerSecretKey::generate(p, &mut rng))
    });
    let m = Manager::generate(
        p,
        MemoryPlm::default(),
        MemoryRevokedList::default(),
        &mut rng,
    );
    for i in 0..GROUP {
        m.join(&format!("member{i}")).unwrap();
    }
    let mut k = 0u64;
    g.bench_function("join/alibi", |b| {
        b.iter(|| {
            k += 1;
            m.join(&format!("new{k}")).unwrap()
        })
    });
    let (id, cid) = m.join("alice").unwrap();
    let u = UserKey::generate(p, id, &mut rng);
    g.bench_function("csr/alibi", |b| b.iter(|| csr(&u, 1, &mut rng)));
    let (seeds, pks) = csr(&u, 1, &mut rng);
    g.bench_function("gen_cert/alibi", |b| {
        b.iter(|| m.gen_cert(id, &cid, &pks).unwrap())
    });
    let certs = m.gen_cert(id, &cid, &pks).unwrap();
    let key_bytes = u
        .accept(seeds, certs, m.public_key())
        .unwrap()
        .pop()
        .unwrap()
        .to_bytes();
    g.bench_function("sign/alibi", |b| {
        b.iter_batched(
            || OneTimeKey::from_bytes(p, &key_bytes).unwrap(),
            |key| u.sign(key, MSG),
            BatchSize::SmallInput,
        )
    });
    let sig = u.sign(OneTimeKey::from_bytes(p, &key_bytes).unwrap(), MSG);
    g.bench_function("verify/alibi", |b| {
        b.iter(|| verify(m.public_key(), MSG, &sig, m.revoked()).unwrap())
    });
    g.bench_function("open/alibi", |b| b.iter(|| m.open(MSG, &sig).unwrap()));
    let pi = m.open(MSG, &sig).unwrap().pi;
    g.bench_function("judge/alibi", |b| {
        b.iter(|| judge(m.public_key(), MSG, &sig, id, &pi).unwrap())
    });
    let mut next = 0u64;
    g.bench_function("revoke/alibi", |b| {
        b.iter(|| {
            next += 1;
            m.revoke(&[next % GROUP]).unwrap()
        })
    });
    g.finish();
}

fn theirs(c: &mut Criterion) {
    let mut g = c.benchmark_group("dgsp-shake256f");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.bench_function("keygen/dgsp-0.1.2", |b| {
        b.iter(|| DGSP::keygen_manager().unwrap())
    });
    let (pkm, skm) = DGSP::keygen_manager().unwrap();
    let plm = InMemoryPLM::open("unused").unwrap();
    let revoked = InMemoryRevokedList::open("unused").unwrap();
    for i in 0..GROUP {
        DGSP::join(&skm.msk.hash_secret, &format!("member{i}"), &plm).unwrap();
    }
    let mut k = 0u64;
    g.bench_function("join/dgsp-0.1.2", |b| {
        b.iter(|| {
            k += 1;
            DGSP::join(&skm.msk.hash_secret, &format!("new{k}"), &plm).unwrap()
        })
    });
    let (id, cid) = DGSP::join(&skm.msk.hash_secret, "alice", &plm).unwrap();
    let seed = DGSP::keygen_user();
    g.bench_function("csr/dgsp-0.1.2", |b| b.iter(|| DGSP::csr(&seed, 1)));
    let (pks, wots_seeds) = DGSP::csr(&seed, 1);
    g.bench_function("gen_cert/dgsp-0.1.2", |b| {
        b.iter(|| DGSP::gen_cert(&skm, id, &cid, &pks, &plm).unwrap())
    });
    let cert = DGSP::gen_cert(&skm, id, &cid, &pks, &plm)
        .unwrap()
        .pop()
        .unwrap();
    g.bench_function("sign/dgsp-0.1.2", |b| {
        b.iter_batched(
            || cert.clone(),
            |c| DGSP::sign(MSG, &seed, id, wots_seeds[0], c),
            BatchSize::SmallInput,
        )
    });
    let sig = DGSP::sign(MSG, &seed, id, wots_seeds[0], cert);
    g.bench_function("verify/dgsp-0.1.2", |b| {
        b.iter(|| DGSP::verify(MSG, &sig, &revoked, &pkm).unwrap())
    });
    g.bench_function("open/dgsp-0.1.2", |b| {
        b.iter(|| DGSP::open(&skm.msk, &plm, &sig, MSG).unwrap())
    });
    let (_, _, pi) = DGSP::open(&skm.msk, &plm, &sig, MSG).unwrap();
    g.bench_function("judge/dgsp-0.1.2", |b| {
        b.iter(|| DGSP::judge(&sig, MSG, id, &pi).unwrap())
    });
    let mut next = 0u64;
    g.bench_function("revoke/dgsp-0.1.2", |b| {
        b.iter(|| {
            next += 1;
            DGSP::revoke(&skm.msk.aes_key, &plm, &[next % GROUP], &revoked).unwrap()
        })
    });
    let _ = revoked.contains(&[0; 16]);
    g.finish();
}

criterion_group! {
    name = dgsp_benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1));
    targets = ours, theirs
}
criterion_main!(dgsp_benches);
