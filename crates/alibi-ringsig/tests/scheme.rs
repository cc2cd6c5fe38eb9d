//! Schemes told apart by their encodings: every scheme's public keys have a length of their own,
//! a named scheme must agree with the keys, and a ring made from encodings signs and verifies
//! for every scheme, with decoding failures kept apart from invalid signatures.

use alibi_ringsig::{AnyRing, AnySigningKey, Error, Scheme};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

#[test]
fn every_scheme_has_its_own_key_length_and_name() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for s in Scheme::ALL {
        assert_eq!(Scheme::from_name(s.name()), Some(s));
        assert_eq!(s.to_string(), s.name());
        let others = Scheme::ALL.into_iter().filter(|o| *o != s);
        assert!(others
            .clone()
            .all(|o| o.public_key_len() != s.public_key_len()));
        let (pk, _) = s.generate(&mut rng);
        assert_eq!(pk.len(), s.public_key_len());
        assert_eq!(Scheme::of_public_key(&pk), Some(s));
        assert_eq!(Scheme::detect(None, &pk), Ok(s));
        assert_eq!(Scheme::detect(Some(s), &pk), Ok(s));
        for o in others {
            assert_eq!(
                Scheme::detect(Some(o), &pk),
                Err(Error::SchemeMismatch { named: o, keys: s })
            );
        }
    }
    assert_eq!(Scheme::from_name("rsa"), None);
    // A length of no scheme: named, the name stands (decoding will judge the key); not named,
    // nothing can be told.
    assert_eq!(
        Scheme::detect(None, &[0; 5]),
        Err(Error::UnknownPublicKey(5))
    );
    assert_eq!(
        Scheme::detect(Some(Scheme::Mayo1), &[0; 5]),
        Ok(Scheme::Mayo1)
    );
}

#[test]
fn rings_from_encodings_sign_and_verify_for_every_scheme() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    for s in Scheme::ALL {
        let (a_pk, a_sk) = s.generate(&mut rng);
        let (b_pk, _) = s.generate(&mut rng);
        let ring = AnyRing::from_public_keys(None, &[a_pk.clone(), b_pk.clone()]).unwrap();
        assert_eq!((ring.scheme(), ring.len()), (s, 2));
        assert_eq!(
            AnyRing::from_public_keys(Some(s), &[a_pk.clone(), b_pk.clone()]),
            Ok(ring.clone())
        );
        let key = AnySigningKey::from_bytes(s, &a_sk).unwrap();
        let sig = ring.sign(&key, b"one of us", &mut rng).unwrap();
        assert_eq!(ring.verify(b"one of us", &sig), Ok(()), "{s}");
        // Invalid, as against malformed.
        assert_eq!(
            ring.verify(b"nobody", &sig),
            Err(Error::InvalidSignature),
            "{s}"
        );
        assert!(matches!(
            ring.verify(b"one of us", &sig[1..]),
            Err(Error::Length(_))
        ));
        // The other order is another ring.
        let reordered = AnyRing::from_public_keys(None, &[b_pk, a_pk]).unwrap();
        assert_eq!(
            reordered.verify(b"one of us", &sig),
            Err(Error::InvalidSignature)
        );
    }
}

#[test]
fn keys_of_another_scheme_are_refused() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let falcon: Vec<Vec<u8>> = (0..2)
        .map(|_| Scheme::Falcon512.generate(&mut rng).0)
        .collect();
    let ring = AnyRing::from_public_keys(None, &falcon).unwrap();
    let (_, mayo_sk) = Scheme::Mayo1.generate(&mut rng);
    let mayo = AnySigningKey::from_bytes(Scheme::Mayo1, &mayo_sk).unwrap();
    assert_eq!(
        ring.sign(&mayo, b"x", &mut rng),
        Err(Error::SignerNotInRing)
    );
    let (_, big_sk) = Scheme::Falcon1024.generate(&mut rng);
    assert_eq!(
        AnySigningKey::from_bytes(Scheme::Falcon512, &big_sk).err(),
        Some(Error::SchemeMismatch {
            named: Scheme::Falcon512,
            keys: Scheme::Falcon1024
        })
    );
    // A ring named for MAYO_1 over Falcon keys, a mixed ring, and no keys at all.
    assert_eq!(
        AnyRing::from_public_keys(Some(Scheme::Mayo1), &falcon),
        Err(Error::SchemeMismatch {
            named: Scheme::Mayo1,
            keys: Scheme::Falcon512
        })
    );
    let (mitaka_pk, _) = Scheme::Mitaka512.generate(&mut rng);
    assert!(matches!(
        AnyRing::from_public_keys(None, &[falcon[0].clone(), mitaka_pk]),
        Err(Error::Falcon(_))
    ));
    assert_eq!(
        AnyRing::from_public_keys::<Vec<u8>>(None, &[]),
        Err(Error::RingTooSmall(0))
    );
}

/// One member's key is checked alone, so a caller can name the member at fault: a key of the
/// scheme passes, a key of another scheme is a mismatch, a damaged key is its own error.
#[test]
fn check_public_key_tells_which_member_is_wrong() {
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    for s in Scheme::ALL {
        let (pk, _) = s.generate(&mut rng);
        assert_eq!(s.check_public_key(&pk), Ok(()), "{s}");
        for o in Scheme::ALL.into_iter().filter(|o| *o != s) {
            assert_eq!(
                o.check_public_key(&pk),
                Err(Error::SchemeMismatch { named: o, keys: s })
            );
        }
        assert!(s.check_public_key(&pk[1..]).is_err(), "{s}: short key");
    }
    let junk = vec![0x59; Scheme::Falcon512.public_key_len()];
    assert!(matches!(
        Scheme::Falcon512.check_public_key(&junk),
        Err(Error::Falcon(_))
    ));
}

/// The trapdoor mismatch reads as words, not as Rust's debug names.
#[test]
fn trapdoor_mismatch_has_no_debug_names() {
    use alibi_ringsig::gandalf::Trapdoor;
    let e = Error::TrapdoorMismatch(Trapdoor::AntragMitaka, Trapdoor::Falcon).to_string();
    assert_eq!(
        e,
        "the signing key is for GANDALF[Antrag, Mitaka], the ring is GANDALF[Falcon]"
    );
}
