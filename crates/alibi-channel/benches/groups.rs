//! Sealed-sender and sender-key benchmarks shaped like libsignal's `benches/sealed_sender.rs`:
//! v1 and v2 (one recipient) sealing a five-byte USMC and opening it to the USMC, v2 to 2, 10, 100
//! and 1,000 recipients, and sender-key encryption and decryption. libsignal's own figures, measured
//! on another machine, are quoted beside ours in docs/BENCHMARKS.md (no ratio is formed).

#[path = "../tests/channel/common/mod.rs"]
mod common;

use alibi_channel::sender_keys::{
    create_distribution_message, group_decrypt, group_encrypt, process_distribution_message,
};
use alibi_channel::{Address, ProtocolStore};
use alibi_identity::IdentityKeyPair;
use alibi_sealed_sender::v2::{Recipient, SentMessage};
use alibi_sealed_sender::{v1, v2, ContentType, ServiceId};
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use uuid::Uuid;

fn bench(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let auth = common::Authority::new(&mut rng);
    let alice = common::party(&mut rng, 1);
    let bob = common::party(&mut rng, 2);
    let alice_id = alice.identity_key_pair().unwrap();
    let bob_id = bob.identity_key_pair().unwrap();
    let cert = auth.certify(
        &alice,
        "aaaaaaaa-7000-11eb-b32a-33b8a8a487a6",
        1,
        u64::MAX,
        &mut rng,
    );
    let usmc = common::usmc(ContentType::Plaintext, cert, b"hello");

    let mut g = c.benchmark_group("sealed");
    g.bench_function("v1_encrypt", |b| {
        b.iter(|| v1::encrypt(&usmc, &alice_id, &bob_id.identity.0, &mut rng))
    });
    let sealed = v1::encrypt(&usmc, &alice_id, &bob_id.identity.0, &mut rng);
    g.bench_function("v1_decrypt", |b| {
        b.iter(|| alibi_sealed_sender::decrypt_to_usmc(&sealed, &bob_id).unwrap())
    });

    let bob_r = Recipient {
        service_id: ServiceId::aci(Uuid::from_u128(2)),
        identity: bob_id.identity,
        devices: vec![(1, 2)],
    };
    g.bench_function("v2_encrypt", |b| {
        b.iter(|| {
            v2::encrypt(
                &usmc,
                &alice_id,
                std::slice::from_ref(&bob_r),
                &[],
                &mut rng,
            )
            .unwrap()
        })
    });
    let sent = v2::encrypt(
        &usmc,
        &alice_id,
        std::slice::from_ref(&bob_r),
        &[],
        &mut rng,
    )
    .unwrap();
    let parsed = SentMessage::parse(&sent).unwrap();
    let received = parsed.received_message(&parsed.recipients[0]).unwrap();
    g.bench_function("v2_decrypt", |b| {
        b.iter(|| alibi_sealed_sender::decrypt_to_usmc(&received, &bob_id).unwrap())
    });
    g.finish();

    let ids: Vec<IdentityKeyPair> = (0..1000)
        .map(|_| IdentityKeyPair::generate(&mut rng))
        .collect();
    let recipients: Vec<Recipient> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| Recipient {
            service_id: ServiceId::aci(Uuid::from_u128(i as u128 + 10)),
            identity: id.identity,
            devices: vec![(1, (i % 16000) as u16)],
        })
        .collect();
    let mut g = c.benchmark_group("sealed-v2-multi-recipient");
    g.sample_size(20);
    for n in [2usize, 10, 100, 1000] {
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| v2::encrypt(&usmc, &alice_id, &recipients[..n], &[], &mut rng).unwrap())
        });
    }
    g.finish();

    // Sender keys: one group message, and the receiver's side skipping ahead.
    let dist = Uuid::from_u128(99);
    let (a_at, mut a_store, mut b_store) = (Address::new("a", 1), alice.clone(), bob.clone());
    let skdm = create_distribution_message(&a_at, dist, &mut a_store, &mut rng).unwrap();
    process_distribution_message(&a_at, &skdm, &mut b_store).unwrap();
    let mut g = c.benchmark_group("sender-key");
    g.bench_function("encrypt", |b| {
        b.iter(|| group_encrypt(&mut a_store, &a_at, dist, b"a short message", &mut rng).unwrap())
    });
    // The encryption runs moved the chain far ahead: Bob learns its current position afresh.
    let skdm = create_distribution_message(&a_at, dist, &mut a_store, &mut rng).unwrap();
    let mut b_store = bob.clone();
    process_distribution_message(&a_at, &skdm, &mut b_store).unwrap();
    let m = group_encrypt(&mut a_store, &a_at, dist, b"a short message", &mut rng).unwrap();
    g.bench_function("decrypt", |b| {
        b.iter_batched_ref(
            || b_store.clone(),
            |s| group_decrypt(m.serialized(), s, &a_at).unwrap(),
            BatchSize::SmallInput,
        )
    });
    for skip in [100u32, 1000] {
        let mut far = None;
        for _ in 0..skip {
            far = Some(group_encrypt(&mut a_store, &a_at, dist, b"x", &mut rng).unwrap());
        }
        let far = far.unwrap();
        g.bench_function(format!("decrypt_skip_{skip}"), |b| {
            b.iter_batched_ref(
                || b_store.clone(),
                |s| group_decrypt(far.serialized(), s, &a_at).unwrap(),
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
