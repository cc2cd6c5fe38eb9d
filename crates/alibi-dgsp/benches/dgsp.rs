//! DGSP next to the published `dgsp` 0.1.2 crate in one run, laid out like the seed's table: same
//! parameter set (SHAKE-256f), same group size (2^10 members), batch 1 and, for csr and gen_cert,
//! batch 8; in memory for every operation, and on disk (our redb store, its sled store) for the
//! operations that touch storage. (The published crate is broken, see the crate docs; it is
//! measured for speed only.) Also SPHINCS+ itself: ours next to PQClean's through
//! `pqcrypto-sphincsplus`.
//!
//! `cargo bench -p alibi-dgsp --bench dgsp`

use alibi_dgsp::storage::{MemoryPlm, MemoryRevokedList, Plm, RedbStore, RevokedList};
use alibi_dgsp::{csr, judge, verify, Manager, ManagerSecretKey, OneTimeKey, Params, UserKey};
use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkGroup, Criterion};
use dgsp::{
    InDiskPLM, InDiskRevokedList, InMemoryPLM, InMemoryRevokedList, PLMInterface,
    RevokedListInterface, DGSP,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

const GROUP: u64 = 1 << 10;
const MSG: &[u8] = b"the quick brown fox jumps over the lazy dog";

/// A fresh directory under the system's temporary directory, for one store.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("alibi-dgsp-bench-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Our operations over one pair of stores. `tag` names the storage ("" in memory, "-disk");
/// `all` also runs the operations storage does not touch.
fn ours_on<P: Plm, R: RevokedList>(
    g: &mut BenchmarkGroup<WallTime>,
    tag: &str,
    plm: P,
    revoked: R,
    all: bool,
) {
    let p = Params::Shake256f;
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let name = |op: &str| format!("{op}{tag}/alibi");
    if all {
        g.bench_function(name("keygen"), |b| {
            b.iter(|| ManagerSecretKey::generate(p, &mut rng))
        });
    }
    let m = Manager::generate(p, plm, revoked, &mut rng);
    for i in 0..GROUP {
        m.join(&format!("member{i}")).unwrap();
    }
    let mut k = 0u64;
    g.bench_function(name("join"), |b| {
        b.iter(|| {
            k += 1;
            m.join(&format!("new{k}")).unwrap()
        })
    });
    let (id, cid) = m.join("alice").unwrap();
    let u = UserKey::generate(p, id, &mut rng);
    if all {
        g.bench_function(name("csr"), |b| b.iter(|| csr(&u, 1, &mut rng)));
        g.bench_function(name("csr8"), |b| b.iter(|| csr(&u, 8, &mut rng)));
    }
    let (_, pks8) = csr(&u, 8, &mut rng);
    g.bench_function(name("gen_cert8"), |b| {
        b.iter(|| m.gen_cert(id, &cid, &pks8).unwrap())
    });
    let (seeds, pks) = csr(&u, 1, &mut rng);
    g.bench_function(name("gen_cert"), |b| {
        b.iter(|| m.gen_cert(id, &cid, &pks).unwrap())
    });
    let certs = m.gen_cert(id, &cid, &pks).unwrap();
    let key_bytes = u
        .accept(seeds, certs, m.public_key())
        .unwrap()
        .pop()
        .unwrap()
        .to_bytes();
    if all {
        g.bench_function(name("sign"), |b| {
            b.iter_batched(
                || OneTimeKey::from_bytes(p, &key_bytes).unwrap(),
                |key| u.sign(key, MSG),
                BatchSize::SmallInput,
            )
        });
    }
    let sig = u.sign(OneTimeKey::from_bytes(p, &key_bytes).unwrap(), MSG);
    g.bench_function(name("verify"), |b| {
        b.iter(|| verify(m.public_key(), MSG, &sig, m.revoked()).unwrap())
    });
    g.bench_function(name("open"), |b| b.iter(|| m.open(MSG, &sig).unwrap()));
    let pi = m.open(MSG, &sig).unwrap().pi;
    if all {
        g.bench_function(name("judge"), |b| {
            b.iter(|| judge(m.public_key(), MSG, &sig, id, &pi).unwrap())
        });
    }
    let mut next = 0u64;
    g.bench_function(name("revoke"), |b| {
        b.iter(|| {
            next += 1;
            m.revoke(&[next % GROUP]).unwrap()
        })
    });
}

fn ours(c: &mut Criterion) {
    let mut g = c.benchmark_group("dgsp-shake256f");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    let memory = (MemoryPlm::default(), MemoryRevokedList::default());
    ours_on(&mut g, "", memory.0, memory.1, true);
    let dir = scratch("redb");
    let store = Arc::new(RedbStore::open(&dir.join("dgsp.redb")).unwrap());
    ours_on(&mut g, "-disk", store.clone(), store, false);
    let _ = std::fs::remove_dir_all(dir);
    g.finish();
}

/// The published crate's operations over one pair of its stores, as [`ours_on`].
fn theirs_on<P: PLMInterface, R: RevokedListInterface>(
    g: &mut BenchmarkGroup<WallTime>,
    tag: &str,
    plm: P,
    revoked: R,
    all: bool,
) {
    let name = |op: &str| format!("{op}{tag}/dgsp-0.1.2");
    if all {
        g.bench_function(name("keygen"), |b| {
            b.iter(|| DGSP::keygen_manager().unwrap())
        });
    }
    let (pkm, skm) = DGSP::keygen_manager().unwrap();
    for i in 0..GROUP {
        DGSP::join(&skm.msk.hash_secret, &format!("member{i}"), &plm).unwrap();
    }
    let mut k = 0u64;
    g.bench_function(name("join"), |b| {
        b.iter(|| {
            k += 1;
            DGSP::join(&skm.msk.hash_secret, &format!("new{k}"), &plm).unwrap()
        })
    });
    let (id, cid) = DGSP::join(&skm.msk.hash_secret, "alice", &plm).unwrap();
    let seed = DGSP::keygen_user();
    if all {
        g.bench_function(name("csr"), |b| b.iter(|| DGSP::csr(&seed, 1)));
        g.bench_function(name("csr8"), |b| b.iter(|| DGSP::csr(&seed, 8)));
    }
    let (pks8, _) = DGSP::csr(&seed, 8);
    g.bench_function(name("gen_cert8"), |b| {
        b.iter(|| DGSP::gen_cert(&skm, id, &cid, &pks8, &plm).unwrap())
    });
    let (pks, wots_seeds) = DGSP::csr(&seed, 1);
    g.bench_function(name("gen_cert"), |b| {
        b.iter(|| DGSP::gen_cert(&skm, id, &cid, &pks, &plm).unwrap())
    });
    let cert = DGSP::gen_cert(&skm, id, &cid, &pks, &plm)
        .unwrap()
        .pop()
        .unwrap();
    if all {
        g.bench_function(name("sign"), |b| {
            b.iter_batched(
                || cert.clone(),
                |c| DGSP::sign(MSG, &seed, id, wots_seeds[0], c),
                BatchSize::SmallInput,
            )
        });
    }
    let sig = DGSP::sign(MSG, &seed, id, wots_seeds[0], cert);
    g.bench_function(name("verify"), |b| {
        b.iter(|| DGSP::verify(MSG, &sig, &revoked, &pkm).unwrap())
    });
    g.bench_function(name("open"), |b| {
        b.iter(|| DGSP::open(&skm.msk, &plm, &sig, MSG).unwrap())
    });
    let (_, _, pi) = DGSP::open(&skm.msk, &plm, &sig, MSG).unwrap();
    if all {
        g.bench_function(name("judge"), |b| {
            b.iter(|| DGSP::judge(&sig, MSG, id, &pi).unwrap())
        });
    }
    let mut next = 0u64;
    g.bench_function(name("revoke"), |b| {
        b.iter(|| {
            next += 1;
            DGSP::revoke(&skm.msk.aes_key, &plm, &[next % GROUP], &revoked).unwrap()
        })
    });
    let _ = revoked.contains(&[0; 16]);
}

fn theirs(c: &mut Criterion) {
    let mut g = c.benchmark_group("dgsp-shake256f");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    let plm = InMemoryPLM::open("unused").unwrap();
    let revoked = InMemoryRevokedList::open("unused").unwrap();
    theirs_on(&mut g, "", plm, revoked, true);
    let dir = scratch("sled");
    let plm = InDiskPLM::open(&dir).unwrap();
    let revoked = InDiskRevokedList::open(&dir).unwrap();
    theirs_on(&mut g, "-disk", plm, revoked, false);
    let _ = std::fs::remove_dir_all(dir);
    g.finish();
}

/// SPHINCS+-SHAKE-256f alone: ours and PQClean's (AVX2) on the same key.
fn sphincs(c: &mut Criterion) {
    use alibi_dgsp::sphincs as spx;
    use pqcrypto_sphincsplus::sphincsshake256fsimple as pqclean;
    use pqcrypto_traits::sign::SecretKey as _;
    let mut g = c.benchmark_group("sphincs-shake256f");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    let p = spx::SHAKE_256F;
    let (their_pk, their_sk) = pqclean::keypair();
    let seed = &their_sk.as_bytes()[..3 * p.n];
    let (pk, sk) = spx::keypair_from_seed(&p, seed).unwrap();
    g.bench_function("keygen/alibi", |b| {
        b.iter(|| spx::keypair_from_seed(&p, seed))
    });
    g.bench_function("keygen/pqclean", |b| b.iter(pqclean::keypair));
    let optrand = [7u8; 32];
    g.bench_function("sign/alibi", |b| {
        b.iter(|| spx::sign(&p, MSG, &sk, &optrand).unwrap())
    });
    g.bench_function("sign/pqclean", |b| {
        b.iter(|| pqclean::detached_sign(MSG, &their_sk))
    });
    let sig = spx::sign(&p, MSG, &sk, &optrand).unwrap();
    let their_sig = pqclean::detached_sign(MSG, &their_sk);
    g.bench_function("verify/alibi", |b| {
        b.iter(|| assert!(spx::verify(&p, MSG, &sig, &pk).is_ok()))
    });
    g.bench_function("verify/pqclean", |b| {
        b.iter(|| pqclean::verify_detached_signature(&their_sig, MSG, &their_pk).unwrap())
    });
    g.finish();
}

criterion_group! {
    name = dgsp_benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1));
    targets = ours, theirs, sphincs
}
criterion_main!(dgsp_benches);
