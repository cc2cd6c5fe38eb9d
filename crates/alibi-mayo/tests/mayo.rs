//! MAYO end to end at all four levels: signatures verify, the open sampler hits any target,
//! tampering is rejected and malformed input gets typed errors.

use alibi_mayo::{Error, Params, Signature, SigningKey, VerifyingKey};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

#[test]
fn sign_verify_and_reject_tampering() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for p in Params::ALL {
        let sk = SigningKey::generate(p, &mut rng);
        let vk = sk.verifying_key();
        assert_eq!(vk.to_bytes().len(), p.public_key_bytes());
        for len in [0usize, 1, 100] {
            let mut msg = vec![0u8; len];
            rng.fill_bytes(&mut msg);
            let sig = sk.sign(&msg, &mut rng);
            assert_eq!(sig.to_bytes().len(), p.signature_bytes());
            vk.verify(&msg, &sig).unwrap();
            let mut other = msg.clone();
            other.push(1);
            assert_eq!(vk.verify(&other, &sig), Err(Error::InvalidSignature));
            // A flipped bit anywhere (s or salt).
            let mut bytes = sig.to_bytes();
            let at = rng.next_u32() as usize % bytes.len();
            bytes[at] ^= 1 << (rng.next_u32() % 8);
            if let Ok(bad) = Signature::from_bytes(p, &bytes) {
                assert_eq!(vk.verify(&msg, &bad), Err(Error::InvalidSignature), "{p}");
            }
        }
        // Another key does not verify it.
        let other = SigningKey::generate(p, &mut rng).verifying_key().clone();
        let sig = sk.sign(b"m", &mut rng);
        assert!(other.verify(b"m", &sig).is_err());
        // Keys round-trip through their encodings.
        let sk2 = SigningKey::from_bytes(p, &sk.to_bytes()).unwrap();
        assert_eq!(sk2.verifying_key(), vk);
        assert_eq!(VerifyingKey::from_bytes(p, &vk.to_bytes()).unwrap(), *vk);
    }
}

#[test]
fn the_open_sampler_hits_any_target() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    for p in [Params::Mayo1, Params::Mayo2] {
        let sk = SigningKey::generate(p, &mut rng);
        let vk = sk.verifying_key();
        for _ in 0..5 {
            let t: Vec<u8> = (0..p.m()).map(|_| (rng.next_u32() & 15) as u8).collect();
            let s = sk.sample_preimage(&t, &mut rng).unwrap();
            assert_eq!(s.len(), p.k() * p.n());
            assert_eq!(vk.evaluate(&s).unwrap(), t);
        }
        // The zero target too, and two preimages of one target differ (fresh vinegar).
        let zero = vec![0u8; p.m()];
        let a = sk.sample_preimage(&zero, &mut rng).unwrap();
        let b = sk.sample_preimage(&zero, &mut rng).unwrap();
        assert_ne!(a, b);
        assert_eq!(vk.evaluate(&a).unwrap(), zero);
        // Targets outside F16^m are refused.
        assert_eq!(
            sk.sample_preimage(&[16; 78][..p.m()], &mut rng),
            Err(Error::Malformed)
        );
        assert_eq!(
            sk.sample_preimage(&zero[1..], &mut rng),
            Err(Error::Malformed)
        );
        assert_eq!(vk.evaluate(&[0; 3]), Err(Error::Malformed));
    }
}

/// The packed vectors MAYO-RS (in alibi-ringsig) encodes its parts with: one encoding per
/// vector, a wrong length or a set padding nibble refused.
#[test]
fn packed_vectors_decode_strictly() {
    assert_eq!(alibi_mayo::encode_vector(&[1, 2, 3]), [0x21, 0x03]);
    assert_eq!(
        alibi_mayo::decode_vector(&[0x21, 0x03], 3),
        Ok(vec![1, 2, 3])
    );
    assert_eq!(
        alibi_mayo::decode_vector(&[0x21, 0x13], 3),
        Err(Error::Malformed)
    );
    assert_eq!(
        alibi_mayo::decode_vector(&[0x21, 0x13], 4),
        Ok(vec![1, 2, 3, 1])
    );
    assert!(matches!(
        alibi_mayo::decode_vector(&[0x21], 3),
        Err(Error::Length(_))
    ));
}

proptest! {
    /// Whatever decodes re-encodes to the same bytes.
    #[test]
    fn packed_vectors_round_trip(
        bytes in proptest::collection::vec(any::<u8>(), 0..40),
        odd: bool,
    ) {
        let len = (2 * bytes.len()).saturating_sub(usize::from(odd));
        if let Ok(v) = alibi_mayo::decode_vector(&bytes, len) {
            prop_assert_eq!(v.len(), len);
            prop_assert_eq!(alibi_mayo::encode_vector(&v), bytes);
        }
    }
}

#[test]
fn malformed_encodings_get_typed_errors() {
    for p in Params::ALL {
        for (len, what) in [
            (p.secret_key_bytes() + 1, "MAYO secret key"),
            (p.public_key_bytes() - 1, "MAYO public key"),
            (p.signature_bytes() + 3, "MAYO signature"),
        ] {
            let bytes = vec![0u8; len];
            let err = match what {
                "MAYO secret key" => SigningKey::from_bytes(p, &bytes).err(),
                "MAYO public key" => VerifyingKey::from_bytes(p, &bytes).err(),
                _ => Signature::from_bytes(p, &bytes).err(),
            };
            assert!(
                matches!(err, Some(Error::Length(alibi_encoding::LengthError { what: w, got, .. })) if w == what && got == len),
                "{p} {what}: {err:?}"
            );
        }
        // A signature of another parameter set is invalid, not a panic.
        let q = if p == Params::Mayo1 {
            Params::Mayo2
        } else {
            Params::Mayo1
        };
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let sk = SigningKey::generate(q, &mut rng);
        let vk = SigningKey::generate(p, &mut rng).verifying_key().clone();
        assert_eq!(
            vk.verify(b"x", &sk.sign(b"x", &mut rng)),
            Err(Error::InvalidSignature)
        );
    }
}

#[test]
fn rustcrypto_signature_traits() {
    use signature::{RandomizedSigner, Verifier};
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let sk = SigningKey::generate(Params::Mayo2, &mut rng);
    let vk = sk.verifying_key().clone();
    let sig: Signature = sk.sign_with_rng(&mut rng, b"traits");
    assert!(Verifier::verify(&vk, b"traits", &sig).is_ok());
    let decoded = Signature::try_from(&sig.to_bytes()[..]).unwrap();
    assert_eq!(decoded, sig);
}
