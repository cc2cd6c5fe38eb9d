//! Pairwise-session benchmarks shaped like libsignal's `benches/session.rs`: processing a PQXDH
//! (Kyber1024) bundle, decrypting the PreKey message that opens a session, and encrypting and
//! decrypting on an existing chain (decryption clones the store each time, as libsignal's does).
//! The same operations of libsignal itself (`@signalapp/libsignal-client` under Node, the interop
//! tests' peer) run in the groups `pairwise-libsignal-node` (0.90.0) and
//! `pairwise-libsignal-0.103-node` (0.103.0) when Node is available; both run SPQR with us, as our
//! sessions do. They include the N-API crossing and JavaScript stores, so libsignal's own Rust
//! figures are quoted beside ours in docs/BENCHMARKS.md too. The group `ringxkem` times our
//! RingXKEM session setup (no libsignal counterpart).

use std::time::SystemTime;

use alibi_testkit::{hex, ok, unhex};

#[path = "../tests/channel/common/mod.rs"]
mod common;

use alibi_channel::cipher::{decrypt, encrypt, process_prekey_bundle};
use alibi_channel::{Address, InMemoryStore, ProtocolStore};
use alibi_handshake::PreKeyBundle;
use alibi_identity::{IdentityKeyPair, KemKeyType};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// Bob with a signed prekey, a one-time prekey and a Kyber1024 prekey (the tests' helper).
fn bob_with_bundle(rng: &mut ChaCha20Rng) -> (InMemoryStore, PreKeyBundle) {
    let mut store = common::party(rng, 2);
    let bundle = common::publish(&mut store, rng, true, Some(KemKeyType::Kyber1024));
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

/// RingXKEM session setup: the initiator's side (bundle check, handshake, session) and the
/// responder's (identity check, handshake, first message decrypted).
fn bench_ringxkem(c: &mut Criterion) {
    use alibi_akem::pq::Suite;
    use alibi_channel::ringxkem::{self, fingerprint, RingXkemPreKey};
    use alibi_handshake::ringxkem::Identity;
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let (a_addr, b_addr) = (Address::new("alice", 1), Address::new("bob", 1));
    let mut g = c.benchmark_group("ringxkem");
    for suite in [Suite::MlKem512Falcon512, Suite::MlKem768Falcon1024] {
        let name = format!("{suite:?}");
        let alice_id = Identity::generate(suite, &mut rng);
        let bob_id = Identity::generate(suite, &mut rng);
        let mut alice = InMemoryStore::new(IdentityKeyPair::generate(&mut rng), 1);
        let mut bob = InMemoryStore::new(IdentityKeyPair::generate(&mut rng), 2);
        bob.save_identity(&a_addr, &fingerprint(alice_id.public_key()))
            .unwrap();
        let pk = RingXkemPreKey::generate(&bob_id, 1, &mut rng);
        let bundle = pk.bundle(&bob_id, 2);
        g.bench_function(format!("initiate/{name}"), |b| {
            b.iter_batched_ref(
                || alice.clone(),
                |a| {
                    ringxkem::initiate(&b_addr, a, &alice_id, &bundle, SystemTime::now(), &mut rng)
                        .unwrap()
                },
                BatchSize::SmallInput,
            )
        });
        ringxkem::initiate(
            &b_addr,
            &mut alice,
            &alice_id,
            &bundle,
            SystemTime::now(),
            &mut rng,
        )
        .unwrap();
        let first = encrypt(&b_addr, &mut alice, b"a short message", SystemTime::now()).unwrap();
        let alibi_channel::CiphertextMessage::RingXkem(first) = first else {
            unreachable!()
        };
        g.bench_function(format!("accept/{name}"), |b| {
            b.iter_batched_ref(
                || bob.clone(),
                |s| ringxkem::accept(&a_addr, s, &bob_id, &pk, &first, &mut rng).unwrap(),
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

/// libsignal (Node) timed by its own clock for the number of iterations Criterion asks for.
fn bench_libsignal(c: &mut Criterion) {
    bench_libsignal_version(c, "0.90.0", "pairwise-libsignal-node");
    bench_libsignal_version(c, "0.103.0", "pairwise-libsignal-0.103-node");
}

fn bench_libsignal_version(c: &mut Criterion, version: &str, group: &str) {
    let Some(mut peer) = alibi_testkit::node::signal_peer(version) else {
        return;
    };
    let mut rng = ChaCha20Rng::seed_from_u64(6);
    let theirs = ok(peer.call(&serde_json::json!({"cmd": "init", "registration_id": 5})));
    let (mut bob, bundle) = bob_with_bundle(&mut rng);
    let mut req = common::bundle_json(&bundle);
    let mut g = c.benchmark_group(group);
    req["op"] = "process_bundle".into();
    timed(&mut g, &mut peer, "process_prekey_bundle", req.clone());
    // A PreKey message of ours opening a new session at libsignal.
    let their_bundle = common::bundle_from_json(&theirs);
    let mut alice = InMemoryStore::new(IdentityKeyPair::generate(&mut rng), 1);
    let l = Address::new("libsignal", 1);
    process_prekey_bundle(&l, &mut alice, &their_bundle, SystemTime::now(), &mut rng).unwrap();
    let opening = encrypt(&l, &mut alice, b"a short message", SystemTime::now()).unwrap();
    timed(
        &mut g,
        &mut peer,
        "decrypt_prekey_new_session",
        serde_json::json!({"op": "decrypt", "type": 3, "body": hex(opening.serialize())}),
    );
    // From here on libsignal talks to Bob (its session with Alice is dropped by the new bundle).
    // An established session: libsignal opens it, we answer, libsignal reads the answer.
    let mut process = req.clone();
    process["cmd"] = "process_bundle".into();
    ok(peer.call(&process));
    let first = ok(peer.call(&serde_json::json!({"cmd": "encrypt", "plaintext": "00"})));
    let m = alibi_channel::CiphertextMessage::deserialize(3, &unhex(&first["body"])).unwrap();
    let a = Address::new("libsignal", 1);
    decrypt(&a, &mut bob, &m, &mut rng).unwrap();
    let reply = encrypt(&a, &mut bob, b"a short reply", SystemTime::now()).unwrap();
    ok(peer
        .call(&serde_json::json!({"cmd": "decrypt", "type": 2, "body": hex(reply.serialize())})));
    let on_chain = encrypt(&a, &mut bob, b"a short message", SystemTime::now()).unwrap();
    timed(
        &mut g,
        &mut peer,
        "encrypt_existing_chain",
        serde_json::json!({"op": "encrypt", "plaintext": hex(b"a short message")}),
    );
    timed(
        &mut g,
        &mut peer,
        "decrypt_existing_chain",
        serde_json::json!({"op": "decrypt", "type": 2, "body": hex(on_chain.serialize())}),
    );
    g.finish();
}

fn timed(
    g: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    peer: &mut alibi_testkit::node::NodePeer,
    name: &str,
    req: serde_json::Value,
) {
    g.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let mut r = req.clone();
            r["cmd"] = "time".into();
            r["iterations"] = iters.into();
            let v = ok(peer.call(&r));
            std::time::Duration::from_nanos(v["total_ns"].as_u64().unwrap())
        })
    });
}

criterion_group!(benches, bench, bench_ringxkem, bench_libsignal);
criterion_main!(benches);
