//! Byte compatibility with the SHADOWFAX authors' GANDALF[Antrag, Mitaka] code, through the vectors
//! in vectors/shadowfax-artifact-bat-mitaka (see its README for the layouts): every honest
//! signature verifies, every negative fails, the artifact's secret keys sign for the artifact's
//! rings, and our signatures follow the same rule.

use alibi_falcon::{Level, VerifyingKey};
use alibi_ringsig::{Error, Ring, RingSignature, RingSigner, Trapdoor};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde_json::Value;

fn vectors() -> Option<Vec<Value>> {
    alibi_testkit::json_lines("shadowfax-artifact-bat-mitaka/gandalf_mitaka.jsonl")
}

fn hex(v: &Value, k: &str) -> Vec<u8> {
    alibi_testkit::hex_field(v, k)
}

fn member(v: &Value, k: &str) -> VerifyingKey {
    VerifyingKey::from_h_bytes(Level::Falcon512, &hex(v, k)).unwrap()
}

fn ring_of(v: &Value) -> Ring {
    Ring::with_trapdoor(
        Trapdoor::AntragMitaka,
        vec![member(v, "h0"), member(v, "h1")],
    )
    .unwrap()
}

#[test]
fn artifact_signatures_verify_and_negatives_fail() {
    let Some(lines) = vectors() else { return };
    assert_eq!(lines.len(), 25);
    let (mut good, mut bad, mut stale_tails) = (0, 0, 0);
    for v in &lines {
        let ring = ring_of(v);
        let msg = hex(v, "msg");
        let sig = hex(v, "sig");
        assert_eq!(sig.len(), 1276);
        let decoded = RingSignature::from_bytes(&ring, &sig);
        let ok = decoded
            .as_ref()
            .map(|s| ring.verify(&msg, s).is_ok())
            .unwrap_or(false);
        assert_eq!(ok, v["valid"].as_bool().unwrap(), "{v}");
        // The uniform decoder of decapsulation agrees.
        assert_eq!(ring.verify_encoded(&msg, &sig).is_ok(), ok);
        if ok {
            good += 1;
            let s = decoded.unwrap();
            assert_eq!(s.to_bytes(), sig, "decoding keeps the bytes as they came");
            // The artifact leaves stale bytes after a block's body: GANDALF[Falcon]'s strict
            // decoder refuses those signatures, which is why this variant ignores them.
            let falcon_ring = Ring::new(ring.members().to_vec()).unwrap();
            if RingSignature::from_bytes(&falcon_ring, &sig).is_err() {
                stale_tails += 1;
            }
            // The Falcon trapdoor's bound is not this ring's, and the rings differ in kind.
            assert!(ring.bound() < falcon_ring.bound());
        } else {
            bad += 1;
        }
    }
    assert_eq!((good, bad), (20, 5));
    assert!(stale_tails > 0, "the vectors exercise the stale-tail rule");
}

#[test]
fn bound_is_the_artifacts() {
    let v = &vectors().unwrap()[0];
    assert_eq!(ring_of(v).bound(), 60_669_689);
    assert_eq!(
        Trapdoor::AntragMitaka.bound(Level::Falcon512, 2),
        60_669_689
    );
    // Falcon-1024 keys are refused.
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let k = |rng: &mut ChaCha20Rng| {
        alibi_falcon::SigningKey::generate(Level::Falcon1024, rng)
            .verifying_key()
            .clone()
    };
    let members = vec![k(&mut rng), k(&mut rng)];
    assert_eq!(
        Ring::with_trapdoor(Trapdoor::AntragMitaka, members).unwrap_err(),
        Error::MitakaLevel
    );
}

/// The artifact's secret keys sign for the artifact's ring, as either member.
#[test]
fn artifact_keys_sign_for_their_ring() {
    let Some(lines) = vectors() else { return };
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    for v in lines.iter().take(4) {
        let ring = ring_of(v);
        for m in ["sk0", "sk1"] {
            let key = alibi_mitaka::SigningKey::from_bytes(&hex(v, m)).unwrap();
            let sig = ring.sign(&key.expand(), b"artifact key", &mut rng).unwrap();
            let bytes = sig.to_bytes();
            assert_eq!(bytes.len(), 1276);
            let back = RingSignature::from_bytes(&ring, &bytes).unwrap();
            assert!(ring.verify(b"artifact key", &back).is_ok());
            assert!(ring.verify(b"another message", &back).is_err());
        }
    }
}

#[test]
fn fresh_rings_of_two_and_n_members() {
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let keys: Vec<alibi_mitaka::SigningKey> = (0..4)
        .map(|_| alibi_mitaka::SigningKey::generate(&mut rng))
        .collect();
    for size in [2, 4] {
        let ring = Ring::with_trapdoor(
            Trapdoor::AntragMitaka,
            keys[..size]
                .iter()
                .map(|k| k.verifying_key().lattice_key().clone())
                .collect(),
        )
        .unwrap();
        for (j, key) in keys[..size].iter().enumerate() {
            let sig = ring.sign(&key.expand(), b"m", &mut rng).unwrap();
            assert_eq!(sig.to_bytes().len(), ring.signature_len());
            assert!(ring.verify(b"m", &sig).is_ok(), "signer {j} of {size}");
            // Our signer writes zero padding: the strict rule accepts it as well.
            for (i, block) in sig.to_bytes()[..size * 626].chunks(626).enumerate() {
                assert!(
                    alibi_falcon::decompress_padded(block, 512).is_ok(),
                    "block {i}"
                );
            }
        }
    }
    // A Falcon key cannot sign for a Mitaka ring, nor a Mitaka key for a Falcon ring.
    let falcon = alibi_falcon::SigningKey::generate(Level::Falcon512, &mut rng);
    let mixed = Ring::with_trapdoor(
        Trapdoor::AntragMitaka,
        vec![
            falcon.verifying_key().clone(),
            keys[0].verifying_key().lattice_key().clone(),
        ],
    )
    .unwrap();
    assert!(matches!(
        mixed.sign(&falcon.expand(), b"m", &mut rng),
        Err(Error::TrapdoorMismatch(
            Trapdoor::Falcon,
            Trapdoor::AntragMitaka
        ))
    ));
    let falcon_ring = Ring::new(mixed.members().to_vec()).unwrap();
    assert!(falcon_ring.sign(&keys[0].expand(), b"m", &mut rng).is_err());
    assert!(RingSigner::new(falcon_ring, keys[0].expand()).is_err());
}

#[test]
fn randomized_signer_trait_for_mitaka_keys() {
    use signature::{RandomizedSigner, Verifier};
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let a = alibi_mitaka::SigningKey::generate(&mut rng);
    let b = alibi_mitaka::SigningKey::generate(&mut rng);
    let ring = Ring::mitaka(&[a.verifying_key().clone(), b.verifying_key().clone()]).unwrap();
    let signer = RingSigner::new(ring.clone(), b.expand()).unwrap();
    let sig = signer.sign_with_rng(&mut rng, b"hello");
    assert!(Verifier::verify(&ring, b"hello", &sig).is_ok());
}
