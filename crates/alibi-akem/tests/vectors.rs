//! Known answers: RFC 9180's DHKEM(X25519, HKDF-SHA256) auth-mode vectors (Appendix A, mode 2,
//! the KEM part of every suite with kem_id 0x0020; in tests/rfc9180_auth_x25519.json), and the
//! SHADOWFAX authors' vectors (vectors/shadowfax-artifact): decapsulating each of their
//! ciphertexts with their keys gives their key.

use alibi_akem::dh::{self, artifact, rfc9180};
use alibi_akem::{pq, shadowfax, Error};
use serde_json::Value;

fn hex(v: &Value, k: &str) -> Vec<u8> {
    alibi_testkit::hex_field(v, k)
}

fn h32(v: &Value, k: &str) -> [u8; 32] {
    hex(v, k).try_into().unwrap()
}

fn artifact_vectors(file: &str) -> Option<Vec<Value>> {
    alibi_testkit::json_lines(&format!("shadowfax-artifact/{file}"))
}

#[test]
fn rfc9180_auth_mode_vectors() {
    let all: Vec<Value> = serde_json::from_str(include_str!("rfc9180_auth_x25519.json")).unwrap();
    assert_eq!(all.len(), 8);
    for v in &all {
        let e = rfc9180::derive_key_pair(&hex(v, "ikmE"));
        let r = rfc9180::derive_key_pair(&hex(v, "ikmR"));
        let s = rfc9180::derive_key_pair(&hex(v, "ikmS"));
        assert_eq!(e.secret(), &h32(v, "skEm"));
        assert_eq!(r.secret(), &h32(v, "skRm"));
        assert_eq!(s.secret(), &h32(v, "skSm"));
        assert_eq!(s.public(), &h32(v, "pkSm"));
        assert_eq!(r.public(), &h32(v, "pkRm"));
        let (enc, ss) = rfc9180::encap_with_ephemeral(&e, &s, r.public()).unwrap();
        assert_eq!(enc, h32(v, "enc"));
        assert_eq!(ss[..], hex(v, "shared_secret")[..]);
        let ss2 = rfc9180::decap(&r, s.public(), &enc).unwrap();
        assert_eq!(ss2[..], hex(v, "shared_secret")[..]);
    }
}

#[test]
fn artifact_dh_akem_vectors() {
    let Some(lines) = artifact_vectors("dh_akem.jsonl") else {
        return;
    };
    assert_eq!(lines.len(), 20);
    for v in &lines {
        let r = dh::SecretKey::from_secret(h32(v, "receiver_sk"));
        assert_eq!(r.public(), &h32(v, "receiver_pk"));
        let s = dh::SecretKey::from_secret(h32(v, "sender_sk"));
        assert_eq!(s.public(), &h32(v, "sender_pk"));
        let k = artifact::decap(&r, s.public(), &h32(v, "ct")).unwrap();
        assert_eq!(k[..], hex(v, "key")[..]);
    }
}

#[test]
fn artifact_pq_akem_vectors() {
    let Some(lines) = artifact_vectors("pq_akem.jsonl") else {
        return;
    };
    assert_eq!(lines.len(), 20);
    let suite = pq::Suite::MlKem512Falcon512;
    for v in &lines {
        let r = pq::SecretKey::from_bytes(suite, &hex(v, "receiver_sk")).unwrap();
        assert_eq!(r.public_key().to_bytes(), hex(v, "receiver_pk"));
        assert_eq!(&r.to_bytes()[..], &hex(v, "receiver_sk")[..]);
        let s = pq::PublicKey::from_bytes(suite, &hex(v, "sender_pk")).unwrap();
        let c = hex(v, "ct");
        assert_eq!(c.len(), 2044);
        let k = pq::decap(&r, &s, &c).unwrap();
        assert_eq!(k[..], hex(v, "key")[..]);
        // Any flipped bit of the ciphertext is rejected (the ring signature no longer verifies, or
        // ML-KEM's implicit rejection changes the AES key and the signature decrypts to noise).
        for i in [0usize, 500, 767, 768, 1500, 2043] {
            let mut t = c.clone();
            t[i] ^= 0x04;
            assert_eq!(
                pq::decap(&r, &s, &t).unwrap_err(),
                Error::InvalidCiphertext,
                "byte {i}"
            );
        }
    }
}

#[test]
fn artifact_shadowfax_vectors() {
    let Some(lines) = artifact_vectors("shadowfax.jsonl") else {
        return;
    };
    assert_eq!(lines.len(), 20);
    let suite = pq::Suite::MlKem512Falcon512;
    for v in &lines {
        let r = shadowfax::SecretKey::from_bytes(suite, &hex(v, "receiver_sk")).unwrap();
        assert_eq!(r.public_key().to_bytes(), hex(v, "receiver_pk"));
        assert_eq!(&r.to_bytes()[..], &hex(v, "receiver_sk")[..]);
        let s = shadowfax::PublicKey::from_bytes(suite, &hex(v, "sender_pk")).unwrap();
        let c = hex(v, "ct");
        assert_eq!(c.len(), 2076);
        let k = shadowfax::decap(&r, &s, &c).unwrap();
        assert_eq!(k[..], hex(v, "key")[..]);
        // Tampering with the ephemeral key, the KEM ciphertext or the encrypted signature.
        for i in [0usize, 31, 32, 799, 800, 2075] {
            let mut t = c.clone();
            t[i] ^= 0x20;
            assert!(shadowfax::decap(&r, &s, &t).is_err(), "byte {i}");
        }
        // Another claimed sender (the receiver's own key, or a stranger's) is rejected.
        let other = shadowfax::SecretKey::from_bytes(suite, &hex(v, "sender_sk")).unwrap();
        assert_eq!(other.public_key(), &s);
        assert!(shadowfax::decap(&r, r.public_key(), &c).is_err());
    }
}
