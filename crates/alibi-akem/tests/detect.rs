//! Configurations from key lengths (`detect`) and keys of any configuration (`any`): every
//! generated key and ciphertext has the length its configuration names, each length names one
//! configuration, wrong keys are named by what they are, and keys of any configuration decode,
//! re-encode and encapsulate as their modules' do.

use alibi_akem::any::{self, PublicKey, SecretKey};
use alibi_akem::detect::{Akem, Half, KeyError, Scheme};
use alibi_akem::pq::Suite;
use alibi_akem::{dh, Error};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::sync::OnceLock;

/// Every configuration.
fn all() -> Vec<Akem> {
    Scheme::ALL
        .into_iter()
        .flat_map(Scheme::configurations)
        .collect()
}

/// Two key pairs of every configuration, made once.
fn keys() -> &'static Vec<(Akem, SecretKey, SecretKey)> {
    static K: OnceLock<Vec<(Akem, SecretKey, SecretKey)>> = OnceLock::new();
    K.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(42);
        all()
            .into_iter()
            .map(|a| {
                let s = SecretKey::generate(a, &mut rng);
                (a, s, SecretKey::generate(a, &mut rng))
            })
            .collect()
    })
}

#[test]
fn the_lengths_are_the_sizes_of_the_keys_and_ciphertexts() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    assert_eq!(all().len(), 7);
    for (a, s, r) in keys() {
        assert_eq!(s.akem(), *a);
        assert_eq!(s.public_key().akem(), *a);
        assert_eq!(s.to_bytes().len(), a.key_len(Half::Secret), "{a:?}");
        assert_eq!(s.public_key().to_bytes().len(), a.key_len(Half::Public));
        let (c, k) = any::encap(s, &r.public_key(), &mut rng).unwrap();
        assert_eq!(c.len(), a.ciphertext_len(), "{a:?}");
        assert_eq!(any::decap(r, &s.public_key(), &c).unwrap(), k);
    }
    // The sizes the crate documents, standard suite.
    let std = Suite::MlKem512Falcon512;
    assert_eq!(Akem::Pq(std).key_len(Half::Public), 1696);
    assert_eq!(Akem::Shadowfax(std).key_len(Half::Public), 1728);
    assert_eq!(Akem::Shadowfax(std).ciphertext_len(), 2076);
    assert_eq!(Akem::Dh.ciphertext_len(), 32);
}

#[test]
fn a_key_length_names_its_configuration() {
    for a in all() {
        for half in [Half::Public, Half::Secret] {
            let len = a.key_len(half);
            assert_eq!(a.scheme().detect(half, len), Ok(a), "{a:?} {half}");
            assert_eq!(a.check_key_len(half, len), Ok(()));
        }
    }
}

#[test]
fn wrong_keys_are_named_by_what_they_are() {
    let (bat, std) = (Suite::Bat257Mitaka512, Suite::MlKem512Falcon512);
    // A public key where the secret key belongs, without and with a suite fixed.
    let pk = Akem::Pq(bat).key_len(Half::Public);
    let other_half = KeyError::OtherHalf {
        scheme: Scheme::Pq,
        found: Half::Public,
        suite: bat,
        expected: Half::Secret,
    };
    assert_eq!(Scheme::Pq.detect(Half::Secret, pk), Err(other_half));
    assert_eq!(
        Akem::Pq(std).check_key_len(Half::Secret, pk),
        Err(other_half)
    );
    // A key of another suite than the other key's.
    let sk = Akem::Shadowfax(bat).key_len(Half::Secret);
    let e = Akem::Shadowfax(std)
        .check_key_len(Half::Secret, sk)
        .unwrap_err();
    assert_eq!(
        e,
        KeyError::OtherSuite {
            half: Half::Secret,
            found: bat,
            expected: std
        }
    );
    assert_eq!(
        e.to_string(),
        "a secret key of suite bat257-mitaka512, but the other key is mlkem512-falcon512: both must use one suite"
    );
    // A PQ-AKEM key is no SHADOWFAX key, and DH-AKEM's halves are one length.
    let e = Scheme::Shadowfax
        .detect(Half::Secret, Akem::Pq(std).key_len(Half::Secret))
        .unwrap_err();
    assert!(matches!(e, KeyError::Length { len: 3680, .. }));
    assert_eq!(
        e.to_string(),
        "3680 bytes is no shadowfax secret key (3712 or 6528 or 5033 bytes)"
    );
    assert_eq!(
        Scheme::Dh.detect(Half::Public, 33).unwrap_err().to_string(),
        "33 bytes is no dh public key (32 bytes)"
    );
}

#[test]
fn keys_of_any_configuration_round_trip_and_refuse_mixing() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    for (a, s, _) in keys() {
        let b = s.to_bytes();
        assert_eq!(
            &SecretKey::from_bytes(*a, &b).unwrap().to_bytes()[..],
            &b[..]
        );
        let pk = s.public_key();
        assert_eq!(PublicKey::from_bytes(*a, &pk.to_bytes()).unwrap(), pk);
        assert!(SecretKey::from_bytes(*a, &b[1..]).is_err());
        assert!(PublicKey::from_bytes(*a, &[]).is_err());
    }
    // The same bytes as the modules' own keys.
    let (_, s, r) = &keys()[0];
    let (SecretKey::Dh(sd), SecretKey::Dh(rd)) = (s, r) else {
        panic!("the first configuration is DH-AKEM");
    };
    let (c, k) = any::encap(s, &r.public_key(), &mut rng).unwrap();
    let c: [u8; 32] = c.try_into().unwrap();
    assert_eq!(dh::rfc9180::decap(rd, sd.public(), &c).unwrap(), k);
    assert_eq!(r.public_key(), PublicKey::Dh(*rd.public()));
    // Keys of two AKEMs, or of two suites.
    let (_, pq512, _) = &keys()[1];
    let (_, pq768, _) = &keys()[2];
    let (_, sf512, _) = &keys()[4];
    assert!(matches!(pq512, SecretKey::Pq(k) if k.suite() == Suite::MlKem512Falcon512));
    assert_eq!(
        any::encap(pq512, &sf512.public_key(), &mut rng).unwrap_err(),
        Error::SchemeMismatch
    );
    assert_eq!(
        any::decap(pq512, &s.public_key(), &[0; 32]).unwrap_err(),
        Error::SchemeMismatch
    );
    assert_eq!(
        any::encap(pq512, &pq768.public_key(), &mut rng).unwrap_err(),
        Error::SuiteMismatch
    );
    // A DH-AKEM ciphertext of another length is a length error, not a panic.
    assert!(matches!(
        any::decap(r, &s.public_key(), &[0; 31]),
        Err(Error::Length(_))
    ));
}

proptest! {
    /// Any length: a configuration whose key has that length, or an error naming one that has
    /// it in another place, or a plain length error.
    #[test]
    fn detection_is_consistent(len in 0usize..8000, secret in any::<bool>(), s in 0usize..3) {
        let half = if secret { Half::Secret } else { Half::Public };
        let scheme = Scheme::ALL[s];
        match scheme.detect(half, len) {
            Ok(a) => prop_assert_eq!(a.key_len(half), len),
            Err(KeyError::OtherHalf { found, suite, .. }) => {
                prop_assert_eq!(found, half.other());
                prop_assert_eq!(scheme.at(suite).key_len(found), len);
            }
            Err(KeyError::OtherSuite { .. }) => prop_assert!(false, "no suite was fixed"),
            Err(KeyError::Length { len: l, .. }) => {
                prop_assert_eq!(l, len);
                prop_assert!(!scheme.key_lens(half).contains(&len));
            }
        }
    }
}

/// A DH-AKEM public key looks like one (a prime-order point), so a public key handed over as a
/// secret key can be recognised; secrets mostly do not (each about 1 in 32).
#[test]
fn dh_public_keys_look_like_public_keys() {
    let mut rng = ChaCha20Rng::seed_from_u64(77);
    let mut secrets_that_look_public = 0;
    for _ in 0..64 {
        let k = dh::SecretKey::generate(&mut rng);
        assert!(dh::looks_like_public_key(k.public_key()));
        if dh::looks_like_public_key(&k.to_bytes()[..]) {
            secrets_that_look_public += 1;
        }
    }
    assert!(secrets_that_look_public < 12, "{secrets_that_look_public}");
    assert!(!dh::looks_like_public_key(&[1; 31]));
}
