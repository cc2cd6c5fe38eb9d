//! The seed's Table 1 rows in one run: Gen, Enc, Dec of DH-AKEM, PQ-AKEM and SHADOWFAX (standard
//! suite: X25519, ML-KEM-512, GANDALF[Falcon-512]; and the BAT suite: BAT-257, GANDALF[Antrag,
//! Mitaka], the `-bat` rows), GANDALF Gen/Sign/Verify over both trapdoors, the two KEMs alone, and
//! the `hpke` crate's DHKEM(X25519) as a peer for DH-AKEM; and one X25519, ours (through the
//! Edwards form) beside x25519-dalek's Montgomery ladder.
//!
//! `cargo bench -p alibi-akem --bench akem`

use alibi_akem::dh::{self, artifact, rfc9180};
use alibi_akem::pq::{self, Suite};
use alibi_akem::shadowfax;
use alibi_falcon::{Level, SigningKey};
use alibi_ringsig::{Ring, RingSignature};
use criterion::{criterion_group, criterion_main, Criterion};
use hpke::{Deserializable, Kem as _};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::time::Duration;

type HpkeKem = hpke::kem::X25519HkdfSha256;

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("akem");
    g.measurement_time(Duration::from_secs(3));
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let suite = Suite::MlKem512Falcon512;

    // DH-AKEM, RFC 9180 form, and the hpke crate on the same keys.
    let s = dh::SecretKey::generate(&mut rng);
    let r = dh::SecretKey::generate(&mut rng);
    g.bench_function("x25519/alibi", |b| b.iter(|| s.agree(r.public_key())));
    let sk = [7u8; 32];
    g.bench_function("x25519/x25519-dalek ladder", |b| {
        b.iter(|| x25519_dalek::x25519(sk, *r.public_key()))
    });
    g.bench_function("dh-akem/gen", |b| {
        b.iter(|| dh::SecretKey::generate(&mut rng))
    });
    g.bench_function("dh-akem/enc", |b| {
        b.iter(|| rfc9180::encap(&s, r.public(), &mut rng).unwrap())
    });
    let (enc, _) = rfc9180::encap(&s, r.public(), &mut rng).unwrap();
    g.bench_function("dh-akem/dec", |b| {
        b.iter(|| rfc9180::decap(&r, s.public(), &enc).unwrap())
    });
    g.bench_function("dh-akem-artifact/enc", |b| {
        b.iter(|| artifact::encap(&s, r.public(), &mut rng).unwrap())
    });
    g.bench_function("dh-akem-artifact/dec", |b| {
        b.iter(|| artifact::decap(&r, s.public(), &enc).unwrap())
    });
    let hs = <HpkeKem as hpke::Kem>::PrivateKey::from_bytes(s.secret()).unwrap();
    let hspk = <HpkeKem as hpke::Kem>::PublicKey::from_bytes(s.public()).unwrap();
    let hr = <HpkeKem as hpke::Kem>::PrivateKey::from_bytes(r.secret()).unwrap();
    let hrpk = <HpkeKem as hpke::Kem>::PublicKey::from_bytes(r.public()).unwrap();
    g.bench_function("dh-akem-hpke-crate/enc", |b| {
        b.iter(|| HpkeKem::encap_with_rng(&hrpk, Some((&hs, &hspk)), &mut rng).unwrap())
    });
    let henc = <HpkeKem as hpke::Kem>::EncappedKey::from_bytes(&enc).unwrap();
    g.bench_function("dh-akem-hpke-crate/dec", |b| {
        b.iter(|| HpkeKem::decap(&hr, Some(&hspk), &henc).unwrap())
    });

    // The KEMs alone: ML-KEM-512 (libcrux) and BAT-257.
    let kem = alibi_akem::mlkem::MlKem::K512;
    let (dk, ek) = kem.generate(&mut rng);
    g.bench_function("kem/ml-kem-512/gen", |b| b.iter(|| kem.generate(&mut rng)));
    g.bench_function("kem/ml-kem-512/enc", |b| {
        b.iter(|| kem.encapsulate(&ek, &mut rng).unwrap())
    });
    let (kc, _) = kem.encapsulate(&ek, &mut rng).unwrap();
    g.bench_function("kem/ml-kem-512/dec", |b| {
        b.iter(|| kem.decapsulate(&dk, &kc).unwrap())
    });
    let bsk = alibi_bat::SecretKey::generate(&mut rng);
    g.bench_function("kem/bat-257/gen", |b| {
        b.iter(|| alibi_bat::SecretKey::generate(&mut rng))
    });
    g.bench_function("kem/bat-257/enc", |b| {
        b.iter(|| alibi_bat::encapsulate(bsk.public_key(), &mut rng).unwrap())
    });
    let (bc, _) = alibi_bat::encapsulate(bsk.public_key(), &mut rng).unwrap();
    g.bench_function("kem/bat-257/dec", |b| {
        b.iter(|| alibi_bat::decapsulate(&bsk, &bc).unwrap())
    });

    for (tag, suite) in [("", suite), ("-bat", Suite::Bat257Mitaka512)] {
        // PQ-AKEM.
        g.bench_function(format!("pq-akem{tag}/gen"), |b| {
            b.iter(|| pq::SecretKey::generate(suite, &mut rng))
        });
        let ps = pq::SecretKey::generate(suite, &mut rng);
        let pr = pq::SecretKey::generate(suite, &mut rng);
        g.bench_function(format!("pq-akem{tag}/enc"), |b| {
            b.iter(|| pq::encap(&ps, pr.public_key(), &mut rng).unwrap())
        });
        let (pc, _) = pq::encap(&ps, pr.public_key(), &mut rng).unwrap();
        g.bench_function(format!("pq-akem{tag}/dec"), |b| {
            b.iter(|| pq::decap(&pr, ps.public_key(), &pc).unwrap())
        });

        // SHADOWFAX.
        g.bench_function(format!("shadowfax{tag}/gen"), |b| {
            b.iter(|| shadowfax::SecretKey::generate(suite, &mut rng))
        });
        let ss = shadowfax::SecretKey::generate(suite, &mut rng);
        let sr = shadowfax::SecretKey::generate(suite, &mut rng);
        g.bench_function(format!("shadowfax{tag}/enc"), |b| {
            b.iter(|| shadowfax::encap(&ss, sr.public_key(), &mut rng).unwrap())
        });
        let (sc, _) = shadowfax::encap(&ss, sr.public_key(), &mut rng).unwrap();
        g.bench_function(format!("shadowfax{tag}/dec"), |b| {
            b.iter(|| shadowfax::decap(&sr, ss.public_key(), &sc).unwrap())
        });
    }

    // GANDALF[Falcon-512], two members.
    g.bench_function("gandalf/gen", |b| {
        b.iter(|| SigningKey::generate(Level::Falcon512, &mut rng))
    });
    let a = SigningKey::generate(Level::Falcon512, &mut rng);
    let bk = SigningKey::generate(Level::Falcon512, &mut rng);
    let ring = Ring::new(vec![a.verifying_key().clone(), bk.verifying_key().clone()]).unwrap();
    let ea = a.expand();
    g.bench_function("gandalf/sign", |b| {
        b.iter(|| ring.sign(&ea, b"message", &mut rng).unwrap())
    });
    let sig = ring.sign(&ea, b"message", &mut rng).unwrap().to_bytes();
    g.bench_function("gandalf/verify", |b| {
        b.iter(|| {
            ring.verify(b"message", &RingSignature::from_bytes(&ring, &sig).unwrap())
                .unwrap()
        })
    });

    // GANDALF[Antrag, Mitaka], two members.
    g.bench_function("gandalf-mitaka/gen", |b| {
        b.iter(|| alibi_mitaka::SigningKey::generate(&mut rng))
    });
    let a = alibi_mitaka::SigningKey::generate(&mut rng);
    let bk = alibi_mitaka::SigningKey::generate(&mut rng);
    let ring = Ring::mitaka(&[a.verifying_key().clone(), bk.verifying_key().clone()]).unwrap();
    let ea = a.expand();
    g.bench_function("gandalf-mitaka/sign", |b| {
        b.iter(|| ring.sign(&ea, b"message", &mut rng).unwrap())
    });
    let sig = ring.sign(&ea, b"message", &mut rng).unwrap().to_bytes();
    g.bench_function("gandalf-mitaka/verify", |b| {
        b.iter(|| {
            ring.verify(b"message", &RingSignature::from_bytes(&ring, &sig).unwrap())
                .unwrap()
        })
    });
    g.finish();
}

criterion_group! {
    name = akem;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_secs(1));
    targets = benches
}
criterion_main!(akem);
