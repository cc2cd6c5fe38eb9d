//! The handshake layer's decoders on untrusted bytes: X25519 public and private keys, KEM public
//! keys, secret keys and ciphertexts, RingXKEM messages, and XEdDSA verification. No panic;
//! accepted encodings re-encode to the same bytes.
#![no_main]
use alibi_akem::pq::Suite;
use alibi_handshake::ringxkem::Message;
use alibi_identity::{xeddsa, KemPublicKey, KemSecretKey, PrivateKey, PublicKey};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(k) = PublicKey::deserialize(data) {
        assert_eq!(&k.serialize()[..], data);
        let _ = k.is_canonical();
        if data.len() >= 33 {
            let sig: Vec<u8> = data.iter().copied().cycle().take(64).collect();
            let _ = xeddsa::verify(&k, &[data], &sig);
        }
    }
    let _ = PrivateKey::deserialize(data);
    if let Ok(k) = KemPublicKey::deserialize(data) {
        assert_eq!(k.serialize(), data);
    }
    if let Ok(k) = KemSecretKey::deserialize(data) {
        assert_eq!(&k.serialize()[..], data);
        let ct: Vec<u8> = data.iter().copied().cycle().take(1569).collect();
        let _ = k.decapsulate(&ct);
    }
    for suite in [Suite::MlKem512Falcon512, Suite::MlKem768Falcon1024] {
        if let Ok(m) = Message::from_bytes(suite, data) {
            assert_eq!(m.to_bytes(), data);
        }
    }
});
