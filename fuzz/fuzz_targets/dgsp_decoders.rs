//! DGSP decoders: manager keys, signatures, certificates and stored one-time keys; no panic, and
//! accepted encodings re-encode to the same bytes; verification of decoded signatures never panics.
#![no_main]
use alibi_dgsp::storage::MemoryRevokedList;
use alibi_dgsp::{
    Certificate, GroupSignature, ManagerPublicKey, ManagerSecretKey, OneTimeKey, Params,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    alibi_dgsp::fuzzing::decoders(data);
    if let Ok(k) = ManagerPublicKey::from_bytes(data) {
        assert_eq!(k.to_bytes(), data);
        if data.len() > 1 {
            let p = k.params();
            if let Ok(s) = GroupSignature::from_bytes(p, &vec![data[0]; p.signature_len()]) {
                let _ = alibi_dgsp::verify(&k, b"fuzz", &s, &MemoryRevokedList::default());
            }
        }
    }
    if let Ok(k) = ManagerSecretKey::from_bytes(data) {
        assert_eq!(&k.to_bytes()[..], data);
    }
    for p in Params::ALL {
        if let Ok(s) = GroupSignature::from_bytes(p, data) {
            assert_eq!(s.to_bytes(), data);
        }
        if let Ok(c) = Certificate::from_bytes(p, data) {
            assert_eq!(c.to_bytes(), data);
        }
        if let Ok(k) = OneTimeKey::from_bytes(p, data) {
            assert_eq!(&k.to_bytes()[..], data);
        }
    }
});
