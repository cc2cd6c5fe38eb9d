//! PQ-AKEM[BAT-257, GANDALF[Antrag, Mitaka]] and SHADOWFAX[X25519, BAT-257, GANDALF[Antrag, Mitaka]]
//! against the SHADOWFAX authors' code (vectors/shadowfax-artifact-bat-mitaka, see its README):
//! their keys decode and re-encode byte for byte, every honest ciphertext decapsulates to their key,
//! every tampered one is refused; our own encapsulations, deniable ones included, round-trip.

use alibi_akem::pq::{self, Suite};
use alibi_akem::{shadowfax, Error};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde_json::Value;

const SUITE: Suite = Suite::Bat257Mitaka512;

fn hex(v: &Value, k: &str) -> Vec<u8> {
    alibi_testkit::hex_field(v, k)
}

fn vectors(file: &str) -> Option<Vec<Value>> {
    alibi_testkit::json_lines(&format!("shadowfax-artifact-bat-mitaka/{file}"))
}

#[test]
fn sizes_are_the_artifacts() {
    assert_eq!(
        (
            SUITE.pq_secret_len(),
            SUITE.pq_public_len(),
            SUITE.pq_ciphertext_len()
        ),
        (5001, 1417, 1749)
    );
    assert_eq!(
        (
            shadowfax::secret_len(SUITE),
            shadowfax::public_len(SUITE),
            shadowfax::ciphertext_len(SUITE)
        ),
        (5033, 1449, 1781)
    );
}

#[test]
fn artifact_pq_akem_bat_vectors() {
    let Some(lines) = vectors("pq_akem_bat.jsonl") else {
        return;
    };
    assert_eq!(lines.len(), 15);
    let (mut good, mut bad) = (0, 0);
    for v in &lines {
        let r = pq::SecretKey::from_bytes(SUITE, &hex(v, "receiver_sk")).unwrap();
        assert_eq!(r.public_key().to_bytes(), hex(v, "receiver_pk"));
        assert_eq!(&r.to_bytes()[..], &hex(v, "receiver_sk")[..]);
        let sender = pq::SecretKey::from_bytes(SUITE, &hex(v, "sender_sk")).unwrap();
        let s = pq::PublicKey::from_bytes(SUITE, &hex(v, "sender_pk")).unwrap();
        assert_eq!(sender.public_key(), &s);
        let c = hex(v, "ct");
        assert_eq!(c.len(), 1749);
        let got = pq::decap(&r, &s, &c);
        if v["decap_return"].as_i64() == Some(1) {
            assert_eq!(got.unwrap()[..], hex(v, "decap_key")[..]);
            assert_eq!(hex(v, "encap_key"), hex(v, "decap_key"));
            good += 1;
        } else {
            assert_eq!(got.unwrap_err(), Error::InvalidCiphertext);
            bad += 1;
        }
    }
    assert_eq!((good, bad), (10, 5));
}

#[test]
fn artifact_shadowfax_bat_vectors() {
    let Some(lines) = vectors("shadowfax_bat.jsonl") else {
        return;
    };
    assert_eq!(lines.len(), 15);
    let (mut good, mut bad) = (0, 0);
    for v in &lines {
        let r = shadowfax::SecretKey::from_bytes(SUITE, &hex(v, "receiver_sk")).unwrap();
        assert_eq!(r.public_key().to_bytes(), hex(v, "receiver_pk"));
        assert_eq!(&r.to_bytes()[..], &hex(v, "receiver_sk")[..]);
        let s = shadowfax::PublicKey::from_bytes(SUITE, &hex(v, "sender_pk")).unwrap();
        let c = hex(v, "ct");
        assert_eq!(c.len(), 1781);
        let got = shadowfax::decap(&r, &s, &c);
        if v["decap_return"].as_i64() == Some(1) {
            assert_eq!(got.unwrap()[..], hex(v, "decap_key")[..]);
            good += 1;
            // Another claimed sender is refused.
            assert!(shadowfax::decap(&r, r.public_key(), &c).is_err());
        } else {
            assert!(got.is_err());
            bad += 1;
        }
    }
    assert_eq!((good, bad), (10, 5));
}

/// Our encapsulations to the artifact's keys, and between fresh keys, with the receiver's
/// deniable fakes: each decapsulates to the same key.
#[test]
fn bat_suite_round_trips_and_fakes() {
    let mut rng = ChaCha20Rng::seed_from_u64(27);
    let Some(lines) = vectors("pq_akem_bat.jsonl") else {
        return;
    };
    let v = &lines[0];
    let s = pq::SecretKey::from_bytes(SUITE, &hex(v, "sender_sk")).unwrap();
    let r = pq::SecretKey::from_bytes(SUITE, &hex(v, "receiver_sk")).unwrap();
    let (c, k) = pq::encap(&s, r.public_key(), &mut rng).unwrap();
    assert_eq!(c.len(), 1749);
    assert_eq!(pq::decap(&r, s.public_key(), &c).unwrap(), k);
    let (fc, fk) = pq::fake_encap(&r, s.public_key(), &mut rng).unwrap();
    assert_eq!(pq::decap(&r, s.public_key(), &fc).unwrap(), fk);
    let mut t = c.clone();
    t[1000] ^= 1;
    assert_eq!(
        pq::decap(&r, s.public_key(), &t).unwrap_err(),
        Error::InvalidCiphertext
    );

    let a = shadowfax::SecretKey::generate(SUITE, &mut rng);
    let b = shadowfax::SecretKey::generate(SUITE, &mut rng);
    assert_eq!(a.public_key().to_bytes().len(), 1449);
    let (c, k) = shadowfax::encap(&a, b.public_key(), &mut rng).unwrap();
    assert_eq!(c.len(), 1781);
    assert_eq!(shadowfax::decap(&b, a.public_key(), &c).unwrap(), k);
    let (fc, fk) = shadowfax::fake_encap(&b, a.public_key(), &mut rng).unwrap();
    assert_eq!(shadowfax::decap(&b, a.public_key(), &fc).unwrap(), fk);
    // Keys of one suite do not mix with another's.
    let ml = shadowfax::SecretKey::generate(Suite::MlKem512Falcon512, &mut rng);
    assert!(shadowfax::decap(&b, ml.public_key(), &c).is_err());
}

/// A BAT identity signs plainly with Mitaka (RingXKEM's prekey signatures).
#[test]
fn bat_identity_signs_with_mitaka() {
    let mut rng = ChaCha20Rng::seed_from_u64(28);
    let id = pq::SecretKey::generate(SUITE, &mut rng);
    let sig = id.sign(b"prekey", &mut rng);
    assert_eq!(sig.len(), 650);
    assert!(id.public_key().verify(b"prekey", &sig).is_ok());
    assert!(id.public_key().verify(b"other", &sig).is_err());
}
