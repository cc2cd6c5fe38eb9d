//! Round trips at both suites, interop with the `hpke` crate for RFC 9180 DHKEM, rejection of
//! tampered ciphertexts, keys and identities, typed errors, and deniability as an executable test.

use alibi_akem::dh::{self, artifact, rfc9180};
use alibi_akem::pq::{self, Suite};
use alibi_akem::{shadowfax, Error};
use hpke::{Deserializable, Kem as _, Serializable};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

type HpkeKem = hpke::kem::X25519HkdfSha256;

const SUITES: [Suite; 2] = [Suite::MlKem512Falcon512, Suite::MlKem768Falcon1024];

#[test]
fn dh_akem_interoperates_with_the_hpke_crate() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for _ in 0..20 {
        let s = dh::SecretKey::generate(&mut rng);
        let r = dh::SecretKey::generate(&mut rng);
        let their_s_sk = <HpkeKem as hpke::Kem>::PrivateKey::from_bytes(s.secret()).unwrap();
        let their_s_pk = <HpkeKem as hpke::Kem>::PublicKey::from_bytes(s.public()).unwrap();
        let their_r_sk = <HpkeKem as hpke::Kem>::PrivateKey::from_bytes(r.secret()).unwrap();
        let their_r_pk = <HpkeKem as hpke::Kem>::PublicKey::from_bytes(r.public()).unwrap();
        // Theirs encapsulates, ours decapsulates.
        let (ss, enc) =
            HpkeKem::encap_with_rng(&their_r_pk, Some((&their_s_sk, &their_s_pk)), &mut rng)
                .unwrap();
        let enc: [u8; 32] = enc.to_bytes().as_slice().try_into().unwrap();
        let ours = rfc9180::decap(&r, s.public(), &enc).unwrap();
        assert_eq!(ours[..], ss.0[..]);
        // Ours encapsulates, theirs decapsulates.
        let (enc, ss) = rfc9180::encap(&s, r.public(), &mut rng).unwrap();
        let enc = <HpkeKem as hpke::Kem>::EncappedKey::from_bytes(&enc).unwrap();
        let theirs = HpkeKem::decap(&their_r_sk, Some(&their_s_pk), &enc).unwrap();
        assert_eq!(theirs.0[..], ss[..]);
        // A wrong sender identity gives a different key (implicit authentication).
        let other = dh::SecretKey::generate(&mut rng);
        let wrong = rfc9180::decap(&r, other.public(), enc.to_bytes().as_slice()).unwrap();
        assert_ne!(wrong[..], ss[..]);
    }
    // Low-order points are refused.
    let r = dh::SecretKey::generate(&mut rng);
    assert_eq!(
        rfc9180::decap(&r, &[0; 32], &[9; 32]).unwrap_err(),
        Error::LowOrderPoint
    );
}

#[test]
fn dh_akems_round_trip_and_deny() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let s = dh::SecretKey::generate(&mut rng);
    let r = dh::SecretKey::generate(&mut rng);
    let (c, k) = artifact::encap(&s, r.public(), &mut rng).unwrap();
    assert_eq!(artifact::decap(&r, s.public(), &c).unwrap(), k);
    let (enc, ss) = rfc9180::encap(&s, r.public(), &mut rng).unwrap();
    assert_eq!(rfc9180::decap(&r, s.public(), &enc).unwrap(), ss);
    // Deniability: the receiver alone makes ciphertexts that decapsulate as the sender's.
    let (fc, fk) = artifact::fake_encap(&r, s.public(), &mut rng).unwrap();
    assert_eq!(artifact::decap(&r, s.public(), &fc).unwrap(), fk);
    let (fenc, fss) = rfc9180::fake_encap(&r, s.public(), &mut rng).unwrap();
    assert_eq!(rfc9180::decap(&r, s.public(), &fenc).unwrap(), fss);
    // ... and only as that sender's.
    let other = dh::SecretKey::generate(&mut rng);
    assert_ne!(artifact::decap(&r, other.public(), &fc).unwrap(), fk);
}

#[test]
fn pq_akem_round_trips_rejects_and_denies() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    for suite in SUITES {
        let s = pq::SecretKey::generate(suite, &mut rng);
        let r = pq::SecretKey::generate(suite, &mut rng);
        let (c, k) = pq::encap(&s, r.public_key(), &mut rng).unwrap();
        assert_eq!(c.len(), suite.pq_ciphertext_len());
        assert_eq!(pq::decap(&r, s.public_key(), &c).unwrap(), k);
        // Keys round-trip through their encodings.
        let r2 = pq::SecretKey::from_bytes(suite, &r.to_bytes()).unwrap();
        assert_eq!(pq::decap(&r2, s.public_key(), &c).unwrap(), k);
        // Wrong claimed sender: rejected explicitly.
        let stranger = pq::SecretKey::generate(suite, &mut rng);
        assert_eq!(
            pq::decap(&r, stranger.public_key(), &c).unwrap_err(),
            Error::InvalidCiphertext
        );
        // Tampered ciphertext, anywhere.
        for i in [0, c.len() / 3, c.len() - 1] {
            let mut t = c.clone();
            t[i] ^= 1;
            assert_eq!(
                pq::decap(&r, s.public_key(), &t).unwrap_err(),
                Error::InvalidCiphertext
            );
        }
        // Deniability: the receiver alone makes a ciphertext that decapsulates as the sender's.
        let (fc, fk) = pq::fake_encap(&r, s.public_key(), &mut rng).unwrap();
        assert_eq!(fc.len(), c.len());
        assert_eq!(pq::decap(&r, s.public_key(), &fc).unwrap(), fk);
        // Typed errors for lengths and suites.
        assert!(matches!(
            pq::decap(&r, s.public_key(), &c[1..]),
            Err(Error::Length(_))
        ));
        assert!(matches!(
            pq::PublicKey::from_bytes(suite, &[0; 10]),
            Err(Error::Length(_))
        ));
    }
    let a = pq::SecretKey::generate(Suite::MlKem512Falcon512, &mut rng);
    let b = pq::SecretKey::generate(Suite::MlKem768Falcon1024, &mut rng);
    assert_eq!(
        pq::encap(&a, b.public_key(), &mut rng).unwrap_err(),
        Error::SuiteMismatch
    );
}

#[test]
fn shadowfax_round_trips_rejects_and_denies() {
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    for suite in SUITES {
        let s = shadowfax::SecretKey::generate(suite, &mut rng);
        let r = shadowfax::SecretKey::generate(suite, &mut rng);
        assert_eq!(
            s.public_key().to_bytes().len(),
            shadowfax::public_len(suite)
        );
        assert_eq!(s.to_bytes().len(), shadowfax::secret_len(suite));
        let (c, k) = shadowfax::encap(&s, r.public_key(), &mut rng).unwrap();
        assert_eq!(c.len(), shadowfax::ciphertext_len(suite));
        assert_eq!(shadowfax::decap(&r, s.public_key(), &c).unwrap(), k);
        // A second encapsulation is fresh and decapsulates to its own key.
        let (c2, k2) = shadowfax::encap(&s, r.public_key(), &mut rng).unwrap();
        assert_ne!(c2, c);
        assert_eq!(shadowfax::decap(&r, s.public_key(), &c2).unwrap(), k2);
        // Round trips of the encodings.
        let r2 = shadowfax::SecretKey::from_bytes(suite, &r.to_bytes()).unwrap();
        let spk = shadowfax::PublicKey::from_bytes(suite, &s.public_key().to_bytes()).unwrap();
        assert_eq!(shadowfax::decap(&r2, &spk, &c).unwrap(), k);
        // Tampering: ciphertext bytes in each part, sender identity (X25519 or PQ half swapped).
        for i in [0, 40, c.len() - 1] {
            let mut t = c.clone();
            t[i] ^= 0x80;
            assert!(
                shadowfax::decap(&r, s.public_key(), &t).is_err(),
                "byte {i}"
            );
        }
        let stranger = shadowfax::SecretKey::generate(suite, &mut rng);
        let mut mixed = stranger.public_key().to_bytes();
        mixed[32..].copy_from_slice(&s.public_key().to_bytes()[32..]);
        let mixed = shadowfax::PublicKey::from_bytes(suite, &mixed).unwrap();
        // Same PQ identity, other X25519 key: the ring signature still verifies, but the key the
        // receiver derives differs (the classical half authenticates too).
        let k_mixed = shadowfax::decap(&r, &mixed, &c).unwrap();
        assert_ne!(k_mixed, k);
        assert!(shadowfax::decap(&r, stranger.public_key(), &c).is_err());
        // Deniability: the receiver alone.
        let (fc, fk) = shadowfax::fake_encap(&r, s.public_key(), &mut rng).unwrap();
        assert_eq!(fc.len(), c.len());
        assert_eq!(shadowfax::decap(&r, s.public_key(), &fc).unwrap(), fk);
    }
}
