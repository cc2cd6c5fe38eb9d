//! Byte compatibility with the SHADOWFAX authors' GANDALF[Falcon-512] code, through the vectors in
//! vectors/shadowfax-artifact (see its README for the layouts).

use alibi_falcon::{Level, SigningKey, VerifyingKey};
use alibi_ringsig::{Error, Ring, RingSignature};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde_json::Value;

fn vectors(file: &str) -> Option<Vec<Value>> {
    alibi_testkit::json_lines(&format!("shadowfax-artifact/{file}"))
}

fn hex(v: &Value, k: &str) -> Vec<u8> {
    alibi_testkit::hex_field(v, k)
}

fn ring_of(v: &Value) -> Ring {
    let h0 = VerifyingKey::from_h_bytes(Level::Falcon512, &hex(v, "h0")).unwrap();
    let h1 = VerifyingKey::from_h_bytes(Level::Falcon512, &hex(v, "h1")).unwrap();
    Ring::new(vec![h0, h1]).unwrap()
}

#[test]
fn gandalf_vectors_verify_and_negatives_fail() {
    let Some(lines) = vectors("gandalf.jsonl") else {
        return;
    };
    assert_eq!(lines.len(), 25);
    let (mut good, mut bad) = (0, 0);
    for v in &lines {
        let ring = ring_of(v);
        let msg = hex(v, "msg");
        let sig_bytes = hex(v, "sig");
        assert_eq!(sig_bytes.len(), 1276);
        let ok = RingSignature::from_bytes(&ring, &sig_bytes)
            .map(|s| ring.verify(&msg, &s).is_ok())
            .unwrap_or(false);
        assert_eq!(ok, v["valid"].as_bool().unwrap(), "{v}");
        if ok {
            good += 1;
            // Our encoder reproduces their bytes from the decoded parts.
            let s = RingSignature::from_bytes(&ring, &sig_bytes).unwrap();
            assert_eq!(s.to_bytes(), sig_bytes);
            // The same signature does not verify for the ring in the other order.
            let rev = Ring::new(ring.members().iter().rev().cloned().collect()).unwrap();
            assert!(rev.verify(&msg, &s).is_err());
        } else {
            bad += 1;
        }
    }
    assert_eq!((good, bad), (20, 5));
}

/// Signatures whose zero padding the artifact does not check: our strict decoder rejects them.
#[test]
fn padding_malleated_signatures_are_rejected() {
    let Some(lines) = vectors("gandalf_padding_malleable.jsonl") else {
        return;
    };
    for v in &lines {
        let ring = ring_of(v);
        let sig = hex(v, "sig");
        let off = v["tampered_byte_offset"].as_u64().unwrap() as usize;
        let block = off / 626;
        assert_eq!(
            RingSignature::from_bytes(&ring, &sig).unwrap_err(),
            Error::Encoding(block)
        );
        assert!(!v["strict_decode_valid"].as_bool().unwrap());
    }
}

/// The artifact's secret-key layout (f, g, F, G as signed bytes) loads, derives the artifact's h,
/// and signs for the artifact's ring.
#[test]
fn artifact_secret_keys_load_and_sign() {
    let Some(lines) = vectors("pq_akem.jsonl") else {
        return;
    };
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    for v in lines.iter().take(5) {
        let sk = hex(v, "sender_sk");
        let pk = hex(v, "sender_pk");
        let rpk = hex(v, "receiver_pk");
        let poly = |i: usize| -> Vec<i8> {
            sk[1632 + 512 * i..1632 + 512 * (i + 1)]
                .iter()
                .map(|&b| b as i8)
                .collect()
        };
        let key = SigningKey::from_ntru_polynomials(
            Level::Falcon512,
            &poly(0),
            &poly(1),
            &poly(2),
            &poly(3),
        )
        .unwrap();
        assert_eq!(key.verifying_key().h_bytes(), &pk[800..]);
        let ring = Ring::new(vec![
            key.verifying_key().clone(),
            VerifyingKey::from_h_bytes(Level::Falcon512, &rpk[800..]).unwrap(),
        ])
        .unwrap();
        let sig = ring.sign(&key.expand(), b"artifact key", &mut rng).unwrap();
        assert!(ring.verify(b"artifact key", &sig).is_ok());
        // A wrong G is refused.
        let mut g_bad = poly(3);
        g_bad[0] = g_bad[0].wrapping_add(1);
        assert!(SigningKey::from_ntru_polynomials(
            Level::Falcon512,
            &poly(0),
            &poly(1),
            &poly(2),
            &g_bad
        )
        .is_err());
    }
}
