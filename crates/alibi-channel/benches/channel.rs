//! Pairwise-session benchmarks shaped like libsignal's `benches/session.rs`: processing a PQXDH
//! (Kyber1024) bundle, decrypting the PreKey message that opens a session, and encrypting and
//! decrypting on an existing chain (decryption clones the store each time, as libsignal's does).
//! libsignal's own figures on this machine are in docs/BENCHMARKS.md beside ours.

use std::time::SystemTime;

use alibi_channel::cipher::{decrypt, encrypt, process_prekey_bundle};
use alibi_channel::store::{KyberPreKeyRecord, SignedPreKeyRecord};
use alibi_channel::{Address, InMemoryStore, ProtocolStore};
use alibi_handshake::{IdentityKeyPair, KemKeyPair, KemKeyType, KeyPair, PreKeyBundle};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn bob_with_bundle(rng: &mut ChaCha20Rng) -> (InMemoryStore, PreKeyBundle) {
    let id = IdentityKeyPair::generate(rng);
    let mut store = InMemoryStore::new(id.clone(), 2);
    let spk = KeyPair::generate(rng);
    let sig = id.sign(&spk.public.serialize(), rng).to_vec();
    store
        .save_signed_pre_key(&SignedPreKeyRecord {
            id: 7,
            key_pair: spk.clone(),
            signature: sig.clone(),
        })
        .unwrap();
    let opk = KeyPair::generate(rng);
    store.save_pre_key(3, &opk).unwrap();
    let kem = KemKeyPair::generate(KemKeyType::Kyber1024, rng);
    let ksig = id.sign(&kem.public.serialize(), rng).to_vec();
    store
        .save_kyber_pre_key(&KyberPreKeyRecord {
            id: 11,
            key_pair: kem.clone(),
            signature: ksig.clone(),
            last_resort: true,
        })
        .unwrap();
    let bundle = PreKeyBundle {
        registration_id: 2,
        device_id: 1,
        pre_key: Some((3, opk.public)),
        signed_pre_key_id: 7,
        signed_pre_key: spk.public,
        signed_pre_key_signature: sig,
        identity_key: id.identity,
        kyber_pre_key: Some((11, kem.public, ksig)),
    };
    (store, bundle)
}

fn bench(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let (a_addr, b_addr) = (Address::new("alice", 1), Address::new("bob", 1));
    let alice = InMemoryStore::new(IdentityKeyPair::generate(&mut rng), 1);
    let (bob, bundle) = bob_with_bundle(&mut rng);
    let mut g = c.benchmark_group("pairwise");

    g.bench_function("process_prekey_bundle", |b| {
        b.iter_batched_ref(
            || alice.clone(),
            |a| process_prekey_bundle(&b_addr, a, &bundle, SystemTime::now(), &mut rng).unwrap(),
            BatchSize::SmallInput,
        )
    });

    let mut alice = alice.clone();
    process_prekey_bundle(&b_addr, &mut alice, &bundle, SystemTime::now(), &mut rng).unwrap();
    let first = encrypt(&b_addr, &mut alice, b"a short message", SystemTime::now()).unwrap();
    g.bench_function("decrypt_prekey_new_session", |b| {
        b.iter_batched_ref(
            || bob.clone(),
            |s| decrypt(&a_addr, s, &first, &mut rng).unwrap(),
            BatchSize::SmallInput,
        )
    });

    // An established session: Bob answered, Alice read it.
    let mut bob = bob.clone();
    decrypt(&a_addr, &mut bob, &first, &mut rng).unwrap();
    let reply = encrypt(&a_addr, &mut bob, b"a short reply", SystemTime::now()).unwrap();
    decrypt(&b_addr, &mut alice, &reply, &mut rng).unwrap();

    let new_chain = encrypt(&b_addr, &mut alice, b"a short message", SystemTime::now()).unwrap();
    g.bench_function("decrypt_first_on_new_chain", |b| {
        b.iter_batched_ref(
            || bob.clone(),
            |s| decrypt(&a_addr, s, &new_chain, &mut rng).unwrap(),
            BatchSize::SmallInput,
        )
    });
    decrypt(&a_addr, &mut bob, &new_chain, &mut rng).unwrap();

    let on_chain = encrypt(&b_addr, &mut alice, b"a short message", SystemTime::now()).unwrap();
    g.bench_function("encrypt_existing_chain", |b| {
        b.iter(|| encrypt(&b_addr, &mut alice, b"a short message", SystemTime::now()).unwrap())
    });
    g.bench_function("decrypt_existing_chain", |b| {
        b.iter_batched_ref(
            || bob.clone(),
            |s| decrypt(&a_addr, s, &on_chain, &mut rng).unwrap(),
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
